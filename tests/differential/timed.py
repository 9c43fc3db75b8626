"""Random timed event scripts for the scheduling queue (docs/queue.md): the same script
replayed by kscore's :func:`~kscore_fast.queue.replay_timed` and by ``goref replay`` (the
real ``PriorityQueue`` of kube-scheduler v1.23.6 on a fake clock), every attempt compared.

A scenario is one of :mod:`tests.differential.events`' (a profile cluster and
configuration with some nodes and pods held back). The script is drawn offline: held-back
pods arrive (pending or bound), held-back nodes are added, present nodes removed, and
pods that arrived are deleted, at times on a half-second grid up to ``span`` seconds, so
that events often fall on the queue's flush ticks and on each other. With ``until``, the
clock runs on past the last event, through backoffs and the 60 s leftover flushes.
"""

from __future__ import annotations

import json
import random
import subprocess
from collections.abc import Sequence
from decimal import Decimal
from pathlib import Path
from typing import Any

from benchmarks.timing import timing_free
from kscore_fast.queue import replay_timed

from ..goref import GOREF
from .events import Scenario, _movable, pod_name, scenario, write_inputs

#: the fields of an attempt both sides give
FIELDS = ("timeNs", "pod", "attempt", "cycle", "host", "error", "feasibleNodes",
          "evaluatedNodes", "unschedulablePlugins", "volumeBindings")  # fmt: skip


def draw_events(sc: Scenario, rng: random.Random, span: int = 300) -> list[dict[str, Any]]:
    """A valid timed script over ``sc`` (what each event needs is present at its time)."""
    present_nodes = [o["metadata"]["name"] for o in sc.objects if o["kind"] == "Node"]
    pods_at_start = [pod_name(o) for o in sc.objects if o["kind"] == "Pod" and _movable(o)]

    def when() -> Decimal:
        return Decimal(rng.randrange(0, 2 * span + 1)) / 2

    planned: list[tuple[Decimal, int, dict[str, Any]]] = []
    arrived_at: dict[str, Decimal] = {p: Decimal(0) for p in pods_at_start}
    for pod in sc.later_pods:
        t = when()
        arrived_at[pod_name(pod)] = t
        planned.append((t, len(planned), {"op": "addPod", "pod": pod}))
    for node in sc.later_nodes:
        planned.append((when(), len(planned), {"op": "addNode", "node": node}))
    for name in rng.sample(present_nodes, min(len(present_nodes) - 1, rng.randint(0, 2))):
        planned.append((when(), len(planned), {"op": "removeNode", "node": name}))
    gone = rng.sample(sorted(arrived_at), min(len(arrived_at), rng.randint(0, 8)))
    for key in gone:
        t = arrived_at[key] + Decimal(rng.randrange(0, 2 * span)) / 2
        planned.append((t, len(planned) + 10_000, {"op": "delete", "pod": key}))
    planned.sort(key=lambda item: (item[0], item[1]))
    return [{"time": t, **ev} for t, _, ev in planned]


def write_events(events: list[dict[str, Any]], path: Path) -> Path:
    """JSON Lines, each time written as the exact decimal it is."""
    lines = []
    for e in events:
        rest = json.dumps({k: v for k, v in e.items() if k != "time"})
        lines.append(f'{{"time": {e["time"]}, {rest[1:]}\n')
    path.write_text("".join(lines))
    return path


def run_goref(cluster: Path, config: Path, events: Path, seed: int,
              until: Decimal | None, flags: Sequence[str] = ()) -> dict[str, Any]:  # fmt: skip
    cmd = [str(GOREF), "replay", str(cluster), "--quiet", "--config", str(config), "--seed",
           str(seed), "--plugin-metrics-draw", "--events", str(events), *flags]  # fmt: skip
    if until is not None:
        cmd += ["--until", str(until)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        raise RuntimeError(f"goref replay failed ({proc.returncode}): {proc.stderr.strip()}")
    return json.loads(proc.stdout)


def differences(ours: dict[str, Any], go: dict[str, Any]) -> list[str]:
    """Every difference of the attempts (up to goref's first slow cycle), and of the
    pods left pending and the final clock when there was none."""
    n = timing_free(go["attempts"])
    diffs = []
    for i, (k, g) in enumerate(zip(ours["attempts"][:n], go["attempts"][:n], strict=False)):
        for field in FIELDS:
            if k.get(field) != g.get(field):  # (volumeBindings: only when Reserve bound)
                diffs.append(f"attempt {i} ({k['pod']} at {k['timeNs']} ns): {field} "
                             f"{k.get(field)!r} != go {g.get(field)!r}")  # fmt: skip
        if diffs:
            return diffs
    if n == len(go["attempts"]):
        if len(ours["attempts"]) != n:
            diffs.append(f"{len(ours['attempts'])} attempts, go {n}")
        for field in ("pending", "endNs"):
            if ours[field] != go[field]:
                diffs.append(f"{field}: {ours[field]!r} != go {go[field]!r}")
    return diffs


def queued_at_once(cluster: Path, config: Path, seed: int) -> list[str]:
    """The cluster's pending pods queued at once, no further event: kscore's timed queue
    against goref's replay, attempt by attempt (:func:`differences`)."""
    events = cluster.parent / "events.jsonl"
    events.write_text("")
    ours = replay_timed([cluster], events, config=config, seed=seed, tie_break="go-rand")
    return differences(ours.to_dict(), run_goref(cluster, config, events, seed, None))


def check_scenario(family: str, seed: int, tmp: Path, span: int = 300,
                   **sizes: int) -> list[str]:  # fmt: skip
    """Draw a scenario and a timed script, replay it on both sides: the differences."""
    rng = random.Random(seed * 31 + 7)
    sc = scenario(family, seed, ("addNode", "addPod"), **sizes)
    cluster, config = write_inputs(sc, sc.objects, tmp)
    events = write_events(draw_events(sc, rng, span), tmp / f"events-{seed}.jsonl")
    until = Decimal(span * 2 + rng.randrange(0, 200)) if rng.random() < 0.5 else None
    ours = replay_timed([cluster], events, config=config, seed=seed, tie_break="go-rand",
                        until=None if until is None else float(until))  # fmt: skip
    go = run_goref(cluster, config, events, seed, until)
    return differences(ours.to_dict(), go)


def raised_events(monkeypatch) -> list[str]:
    """The labels of the events the timed queue's ``move_all`` gets from now on (in the
    list returned, filled as they come)."""
    from kscore_fast.queue import timed as timed_queue

    raised: list[str] = []
    move_all = timed_queue.PriorityQueue.move_all

    def spy(self, event, pre_check=None):
        raised.append(event.label)
        return move_all(self, event, pre_check)

    monkeypatch.setattr(timed_queue.PriorityQueue, "move_all", spy)
    return raised
