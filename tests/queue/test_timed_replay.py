"""The timed replay (docs/queue.md): hand-checked timelines of retries on cluster events,
backoff and the 60 s leftover flush; the events file's errors; the command line."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from kscore_fast.api import load_cluster
from kscore_fast.cli import main
from kscore_fast.errors import InputError
from kscore_fast.queue import TimedSimulator, read_events, replay_timed, timed_events

S = 10**9


def _node(name: str, cpu: str = "2") -> dict:
    alloc = {"cpu": cpu, "memory": "4Gi", "pods": "110"}
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
            "status": {"allocatable": alloc, "capacity": alloc}}  # fmt: skip


def _pod(name: str, cpu: str = "1", priority: int = 0, **spec: object) -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
            "spec": {"priority": priority, **spec, "containers": [
                {"name": "c", "image": "x", "resources": {"requests": {"cpu": cpu}}}]}}  # fmt: skip


def _write(tmp_path, objects: list[dict], events: list[dict]) -> tuple[str, str]:
    cluster = tmp_path / "cluster.json"
    cluster.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objects}))
    lines = tmp_path / "events.jsonl"
    lines.write_text("".join(json.dumps(e) + "\n" for e in events))
    return str(cluster), str(lines)


def _timeline(result) -> list[tuple[int, str, int, str | None]]:
    return [(a["timeNs"], a["pod"], a["attempt"], a["host"]) for a in result.attempts]


def test_a_deletion_frees_room_and_a_node_arrival_helps_at_once(tmp_path):
    cluster, events = _write(tmp_path, [_node("n1"), _pod("a"), _pod("b"), _pod("c")], [
        {"time": 5, "op": "delete", "pod": "default/a"},
        {"time": 100, "op": "addNode", "node": _node("n2")},
        {"time": 101, "op": "addPod", "pod": _pod("d", priority=10)},
        {"time": 150, "op": "addPod", "pod": _pod("e", cpu="3")},
    ])  # fmt: skip
    result = replay_timed(cluster, events)
    # queued at 0, 1, 2 ns; cycles from 3 ns, each taking 1 ns; c fits nowhere and waits
    # in unschedulableQ until a's deletion (an AssignedPodDelete NodeResourcesFit listens
    # to) moves it; its 1 s backoff is long over: it is tried at once
    assert _timeline(result) == [
        (3, "default/a", 1, "n1"), (4, "default/b", 1, "n1"), (5, "default/c", 1, None),
        (5 * S, "default/c", 2, "n1"), (101 * S + 1, "default/d", 1, "n2"),
        (150 * S + 1, "default/e", 1, None),
    ]  # fmt: skip
    assert result.attempts[2]["unschedulablePlugins"] == ["NodeResourcesFit"]
    assert result.attempts[2]["queue"] == "unschedulable"
    assert result.pending == ["default/e"] and result.end_ns == 150 * S + 2
    timeline = result.timeline  # (a row after each event and each attempt)
    assert len(timeline["timeNs"]) == 4 + len(result.attempts)
    at_end = {k: v[-1] for k, v in timeline.items()}
    assert at_end == {"timeNs": 150 * S + 1, "active": 0, "backoff": 0, "unschedulable": 1,
                      "boundPods": 3, "cpuMilli": 3000, "memoryBytes": 0, "gpus": 0}  # fmt: skip
    assert timeline["boundPods"][:5] == [1, 2, 2, 1, 2]  # a, b bound; c fails; a leaves; c
    states = {p["pod"]: (p["state"], p["attempts"]) for p in result.pods}
    assert states == {"default/a": ("deleted", 1), "default/b": ("bound", 1),
                      "default/c": ("bound", 2), "default/d": ("bound", 1),
                      "default/e": ("pending", 1)}  # fmt: skip


def test_a_pod_nothing_helps_is_retried_by_the_leftover_flush(tmp_path):
    cluster, events = _write(tmp_path, [_node("n1", cpu="1"), _pod("big", cpu="2")], [])
    result = replay_timed(cluster, events, until=200)
    # failed at 1 ns; leftover flushes every 30 s move it once it waited more than 60 s:
    # not at 60 s (60 s - 1 ns), at 90 s; then 180 s
    assert _timeline(result) == [(1, "default/big", 1, None), (90 * S, "default/big", 2, None),
                                 (180 * S, "default/big", 3, None)]  # fmt: skip
    assert result.end_ns == 200 * S  # (the backoff flush ticks every second)
    assert replay_timed(cluster, events).end_ns == 2  # (no until: nothing left to do)


def test_a_node_arrival_moves_only_pods_that_fit_it(tmp_path):
    objects = [_node("n1", cpu="1"), _pod("small", cpu="1"), _pod("big", cpu="3"),
               _pod("mid", cpu="2")]  # fmt: skip
    cluster, events = _write(tmp_path, objects, [
        {"time": 10, "op": "addNode", "node": _node("n2", cpu="2")},
    ])  # fmt: skip
    result = replay_timed(cluster, events)
    # preCheckForNode: big (3 cpu) does not fit n2, stays; mid is tried at 10 s
    assert _timeline(result) == [
        (3, "default/small", 1, "n1"),
        (4, "default/big", 1, None),
        (5, "default/mid", 1, None),
        (10 * S, "default/mid", 2, "n2"),
    ]
    assert result.pending == ["default/big"]


def test_the_step_api_advances_the_clock(tmp_path):
    cluster, _ = _write(tmp_path, [_node("n1", cpu="1"), _pod("big", cpu="2")], [])
    timed = TimedSimulator(load_cluster(cluster))
    timed.run_until(95)
    assert timed.now == 95 * S and [a["attempt"] for a in timed.attempts] == [1, 2]
    timed.advance(0.5)
    assert timed.now == 95 * S + S // 2
    timed.replay([(Decimal(96), "addNode", _node("n2", cpu="4"))])
    assert _timeline(timed.result())[-1] == (96 * S, "default/big", 3, "n2")
    with pytest.raises(InputError, match=r"events\[0\]: time 1 s is before the time"):
        timed.replay([(1, "removeNode", "n1")])


@pytest.mark.parametrize(("line", "message"), [
    ('{"time": 1, "op": "schedule", "pod": "default/a"}', "line 2: op: expected one of"),
    ('{"op": "delete", "pod": "default/a"}', "line 2: time: missing"),
    ('{"time": 0.5, "op": "delete", "pod": "default/a"}', "line 2: time 0.5 is before"),
    ('{"time": 2.0000000001, "op": "delete", "pod": "default/a"}', "whole number of"),
    ('{"time": -1, "op": "delete", "pod": "default/a"}', "expected a number of seconds >= 0"),
    ('{"time": 2, "op": "addNode", "node": "n9"}', "'node' must be an object"),
    ('{"time": 2, "op": "delete", "pod": "default/a", "x": 1}', "unknown field(s) x"),
    ("{nope", "line 2: not JSON"),
])  # fmt: skip
def test_events_file_errors_name_the_line(tmp_path, line, message):
    path = tmp_path / "ev.jsonl"
    path.write_text('{"time": 1, "op": "removeNode", "node": "n1"}\n' + line + "\n")
    with pytest.raises(InputError, match=message.replace("(", r"\(").replace(")", r"\)")):
        read_events(path)


def test_an_event_that_cannot_apply_names_its_line_and_writes_nothing(tmp_path, capsys):
    cluster, events = _write(tmp_path, [_node("n1"), _pod("a")], [
        {"time": 3, "op": "delete", "pod": "default/zz"},
    ])  # fmt: skip
    assert main(["simulate", cluster, "--events", events, "--quiet"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "events.jsonl line 1: delete: unknown pending pod 'default/zz'" in err
    with pytest.raises(InputError, match=r"events\[0\]: addPod: .*forbidden"):
        replay_timed(
            cluster,
            timed_events(
                [
                    (
                        1,
                        "addPod",
                        {
                            **_pod("p"),
                            "spec": {
                                **_pod("p")["spec"],
                                "priority": None,
                                "priorityClassName": "gone",
                            },
                        },
                    )
                ]
            ),
        )


def test_the_command_writes_json_and_tables(tmp_path, capsys):
    cluster, events = _write(tmp_path, [_node("n1"), _pod("a"), _pod("b"), _pod("c")], [
        {"time": 5, "op": "delete", "pod": "default/a"},
    ])  # fmt: skip
    assert main(["simulate", cluster, "--events", events, "--quiet"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [a["pod"] for a in doc["attempts"]] == ["default/a", "default/b", "default/c",
                                                   "default/c"]  # fmt: skip
    out = tmp_path / "out"
    for _ in range(2):  # (a second run replaces its own tables)
        assert main(["simulate", cluster, "--events", events, "--quiet", "--format",
                     "parquet", "-o", str(out)]) == 0  # fmt: skip
    attempts = pq.read_table(out / "attempts.parquet").to_pylist()
    assert [a["timeNs"] for a in attempts] == [a["timeNs"] for a in doc["attempts"]]
    assert attempts[2]["unschedulablePlugins"] == ["NodeResourcesFit"]
    assert len(pq.read_table(out / "pods.parquet")) == 3
    assert pq.read_table(out / "timeline.parquet").column("boundPods").to_pylist()[-1] == 2
    assert main(["simulate", cluster, "--events", events, "--scores", "none"]) == 2
    assert main(["simulate", cluster, "--until", "5"]) == 2


def test_yaml_events_read_as_json_lines(tmp_path):
    cluster, events = _write(tmp_path, [_node("n1"), _pod("a"), _pod("b"), _pod("c")], [
        {"time": 5, "op": "delete", "pod": "default/a"},
        {"time": 100.5, "op": "addNode", "node": _node("n2")},
    ])  # fmt: skip
    import yaml

    docs = [json.loads(line) for line in Path(events).read_text().splitlines()]
    as_yaml = tmp_path / "events.yaml"
    as_yaml.write_text(yaml.safe_dump(docs[0]) + "---\n" + yaml.safe_dump([docs[1]]))
    assert read_events(as_yaml) == [e.__class__(e.time_ns, e.op, e.arg, w) for e, w in zip(
        read_events(events), [f"{as_yaml} document 1", f"{as_yaml} document 2 item 1"],
        strict=True)]  # fmt: skip
    assert replay_timed(cluster, as_yaml).attempts == replay_timed(cluster, events).attempts
    as_yaml.write_text("time: 1\nop: [unclosed\n")
    with pytest.raises(InputError, match=r"events\.yaml line 3: not YAML"):
        read_events(as_yaml)


def test_a_replay_that_stops_changes_nothing(tmp_path):
    """A bad event half-way, or a progress callback that raises: the timed simulator
    (queue, clock, rows, the simulator under it) is as before the call."""
    cluster, _ = _write(tmp_path, [_node("n1"), _pod("a"), _pod("b"), _pod("c")], [])
    timed = TimedSimulator(load_cluster(cluster))
    timed.replay([(1, "delete", "default/a")])
    before = timed.result().to_dict()
    clock = timed.now
    bad = [(2, "addNode", _node("n2")), (3, "addPod", _pod("d")), (4, "delete", "default/zz")]
    with pytest.raises(InputError, match=r"events\[2\]: delete: unknown pending pod"):
        timed.replay(bad)

    def stop(k: int) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        timed.replay(bad[:2], progress=stop)
    assert timed.result().to_dict() == before and timed.now == clock
    assert timed.sim.nodes == ["n1"] and "default/d" not in timed.sim.pods
    timed.replay(bad[:2])  # (the same events then run as if nothing had happened)
    assert [a["pod"] for a in timed.attempts[len(before["attempts"]) :]] == ["default/d"]


def test_the_simulator_under_a_replay_is_locked(tmp_path):
    cluster, _ = _write(tmp_path, [_node("n1"), _pod("a")], [])
    timed = TimedSimulator(load_cluster(cluster))
    seen = []

    def peek(k: int) -> None:
        with pytest.raises(InputError, match="called while its replay"):
            timed.sim.schedule("default/a")
        seen.append(k)

    timed.replay([(5, "removeNode", "n1")], progress=peek)
    assert seen


def test_wrong_arguments_name_the_parameter(tmp_path):
    with pytest.raises(InputError, match="TimedSimulator: cluster must be a Cluster"):
        TimedSimulator("not a cluster")  # type: ignore[arg-type]
    with pytest.raises(InputError, match="replay_timed: cluster must be a Cluster"):
        replay_timed(42, [])  # type: ignore[arg-type]
    cluster, _ = _write(tmp_path, [_node("n1")], [])
    with pytest.raises(InputError, match=r"events\[0\]: expected \(time, op, pod or node\)"):
        replay_timed(cluster, [(1, "delete")])
    with pytest.raises(InputError, match="replay: until: expected a number of seconds >= 0"):
        replay_timed(cluster, [], until=-1)
