"""The scalar port of DefaultPreemption (kscore_fast.preemption.reference), case by case
against default_preemption.go and preemption.go of v1.23.6, and what ``score --explain``
shows of it."""

from __future__ import annotations

import json
import time
from collections.abc import Sequence

import pytest

from kscore_fast import api
from kscore_fast.cli import main
from kscore_fast.model.disruption import BudgetRecord
from kscore_fast.model.objects import PodRecord
from kscore_fast.model.selectors import LabelSelector
from kscore_fast.preemption.reference import (
    SUCCESS,
    UNSCHEDULABLE,
    UNSCHEDULABLE_AND_UNRESOLVABLE,
    Status,
    Victims,
    _Clock,
    eligible,
    more_important,
    num_candidates,
    pdb_violations,
    pick_ties,
    preempt,
)


def _pod(name: str, priority: int = 0, start: int | None = None, labels=None, node: str = "",
         deleting: bool = False, **kw) -> PodRecord:  # fmt: skip
    """A pod record; ``start``: its start time, seconds after 2024-01-01 (None: none)."""
    at = time.gmtime(1_704_067_200 + (start or 0))
    started = "" if start is None else time.strftime("%Y-%m-%dT%H:%M:%SZ", at)
    return PodRecord("default", name, labels or {}, node_name=node, priority=priority,
                     start_time=started, deleting=deleting, **kw)  # fmt: skip


class _Cpu:
    """A cluster view whose only filter is CPU: each node's capacity, its pods' requests."""

    def __init__(self, capacity: dict[str, int], pods: dict[str, list[tuple[PodRecord, int]]],
                 need: int) -> None:  # fmt: skip
        self.names = list(capacity)
        self.capacity, self.pods, self.need = capacity, pods, need
        self.checks = 0

    def node_names(self) -> Sequence[str]:
        return self.names

    def node_pods(self, node: int) -> Sequence[PodRecord]:
        return [p for p, _ in self.pods.get(self.names[node], [])]

    def filter(self, node: int, removed: Sequence[PodRecord]) -> Status:
        self.checks += 1
        name = self.names[node]
        used = sum(cpu for p, cpu in self.pods.get(name, []) if p not in removed)
        if used + self.need > self.capacity[name]:
            return Status(UNSCHEDULABLE, ("Insufficient cpu",))
        return Status(SUCCESS)


def test_num_candidates_is_calculate_num_candidates():
    assert num_candidates(1000, 10, 100) == 100
    assert num_candidates(5000, 10, 100) == 500
    assert num_candidates(50, 10, 100) == 50
    assert num_candidates(50, 0, 3) == 3


def test_more_important_reads_now_for_a_missing_start_time():
    clock = _Clock()
    old, new = _pod("old", 1, start=10), _pod("new", 1, start=20)
    bare, bare2 = _pod("bare", 1), _pod("bare2", 1)
    assert more_important(clock, old, new) and not more_important(clock, new, old)
    assert more_important(clock, old, bare) and not more_important(clock, bare, old)
    # two pods without one: whichever is asked about first (time.Now() read first)
    assert more_important(clock, bare, bare2) and more_important(clock, bare2, bare)
    assert more_important(clock, _pod("x", 2), old)


def test_pdb_violations_count_down_each_budget_in_order():
    sel = LabelSelector((("app", "a"),), ())
    budgets = [BudgetRecord("default", "one", sel, disruptions_allowed=1),
               BudgetRecord("other", "elsewhere", sel, disruptions_allowed=0),
               BudgetRecord("default", "empty", LabelSelector(), disruptions_allowed=0),
               BudgetRecord("default", "nil", None, disruptions_allowed=0)]  # fmt: skip
    a1, a2, a3 = (_pod(f"a{i}", labels={"app": "a"}) for i in (1, 2, 3))
    gone = BudgetRecord("default", "gone", sel, disruptions_allowed=0,
                        disrupted_pods=frozenset({"a1"}))  # fmt: skip
    plain = _pod("plain")
    violating, fine = pdb_violations([a1, plain, a2, a3], [*budgets, gone])
    # a1 uses the one disruption "one" allows ("gone" skips it: already disrupted);
    # a2 and a3 exceed both; other namespaces, empty and nil selectors count nothing
    assert [p.name for p in violating] == ["a2", "a3"]
    assert [p.name for p in fine] == ["a1", "plain"]


def test_eligibility():
    view = _Cpu({"n1": 4}, {"n1": [(_pod("t", 1, node="n1", deleting=True), 1)]}, 1)
    assert not eligible(_pod("p", 5, preemption_policy="Never"), None, view)
    waiting = _pod("p", 5, nominated_node_name="n1")
    assert not eligible(waiting, None, view)  # a lower-priority victim is terminating
    assert eligible(waiting, Status(UNSCHEDULABLE_AND_UNRESOLVABLE), view)
    assert eligible(_pod("p", 1, nominated_node_name="n1"), None, view)  # not lower


def _victims(node: int, *priorities: int, violations: int = 0, start=None) -> Victims:
    return Victims(node, [_pod(f"v{node}-{i}", p, start=start) for i, p in enumerate(priorities)],
                   violations)  # fmt: skip


def test_pick_ties_criteria_in_order():
    clock = _Clock()
    assert pick_ties([_victims(0, 1), _victims(1, 1, violations=1)], clock) == {0}
    assert pick_ties([_victims(0, 5), _victims(1, 3, 9)], clock) == {1}  # Pods[0] priority
    assert pick_ties([_victims(0, 3, 3), _victims(1, 3, 1)], clock) == {1}  # priority sum
    assert pick_ties([_victims(0, 3, -1), _victims(1, 3)], clock) == {1}  # fewer... by sum
    assert pick_ties([_victims(0, 2, 2), _victims(1, 4)], clock) == {0}  # lower highest
    # equal up to the start times: the latest earliest start wins, ties are a set
    assert pick_ties([_victims(0, 1, start=5), _victims(1, 1, start=9)], clock) == {1}
    assert pick_ties([_victims(0, 1, start=9), _victims(1, 1, start=9),
                      _victims(2, 1, start=3)], clock) == {0, 1}  # fmt: skip
    # a victim without a start time reads time.Now(): the last walked of those wins
    assert pick_ties([_victims(0, 1), _victims(1, 1, start=9), _victims(2, 1)],
                     clock) == {0, 2}  # fmt: skip


def test_preempt_walks_candidates_from_the_offset_and_stops_early():
    capacity = {f"n{i}": 2 for i in range(6)}
    pods = {f"n{i}": [(_pod(f"p{i}", 1, start=i), 2)] for i in range(6)}
    view = _Cpu(capacity, pods, 2)
    statuses = {i: Status(UNSCHEDULABLE, ("Insufficient cpu",)) for i in range(6)}
    out = preempt(_pod("hi", 10), statuses, view, [], lambda n: 4, percentage=10, absolute=2)
    # candidates n4, n5 (offset 4, 2 wanted), both clean: the later start time wins
    assert [c.node for c in out.candidates] == [4, 5]
    assert out.node == 5 and [p.name for p in out.victims] == ["p5"] and out.drew
    assert out.ties == [5]


def test_preempt_leaves_out_unresolvable_nodes_and_does_not_draw_without_candidates():
    view = _Cpu({"n1": 2}, {}, 4)
    statuses = {0: Status(UNSCHEDULABLE_AND_UNRESOLVABLE, ("node(s) didn't match",))}
    out = preempt(_pod("hi", 10), statuses, view, [], lambda n: 0)
    assert out.node == -1 and not out.drew and not out.candidates
    assert out.statuses[0].reasons == ("Preemption is not helpful for scheduling",)


def test_preempt_reports_nodes_without_victims():
    view = _Cpu({"n1": 2, "n2": 2}, {"n1": [(_pod("same", 10, node="n1"), 2)]}, 4)
    statuses = {0: Status(UNSCHEDULABLE), 1: Status(UNSCHEDULABLE)}
    out = preempt(_pod("hi", 10), statuses, view, [], lambda n: 0)
    assert out.node == -1 and out.drew
    assert out.statuses[0].reasons == ("No victims found on node n1 for preemptor pod hi",)
    assert out.statuses[1].reasons == ("No victims found on node n2 for preemptor pod hi",)


def _write(tmp_path, objects) -> str:
    path = tmp_path / "cluster.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objects}))
    return str(path)


def _node(name: str, cpu: str = "4") -> dict:
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
            "status": {"allocatable": {"cpu": cpu, "memory": "8Gi", "pods": "110"}}}  # fmt: skip


def _manifest(name: str, node: str | None, cpu: str, priority: int, labels=None) -> dict:
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "labels": labels or {}},
           "spec": {"priority": priority, "containers": [
               {"name": "c", "resources": {"requests": {"cpu": cpu}}}]}}  # fmt: skip
    if node:
        pod["spec"]["nodeName"] = node
    return pod


@pytest.fixture
def overcommitted(tmp_path) -> str:
    return _write(tmp_path, [
        _node("n1"), _node("n2"),
        _manifest("a1", "n1", "2", 0, {"app": "a"}), _manifest("a2", "n1", "2", 5, {"app": "a"}),
        _manifest("b1", "n2", "3", 1), _manifest("b2", "n2", "1", 10),
        _manifest("hi", None, "3", 100), _manifest("low", None, "3", 0),
        {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "pa"},
         "spec": {"selector": {"matchLabels": {"app": "a"}}},
         "status": {"disruptionsAllowed": 0}},
    ])  # fmt: skip


def test_score_explain_shows_what_preemption_would_do(overcommitted):
    got = {r["pod"]: r for r in api.score(overcommitted, scores="none",
                                          explain=True).to_dict()["results"]}  # fmt: skip
    # n1 would lose both app=a pods against their budget, n2 one pod and no budget
    assert got["default/hi"]["preemption"] == {
        "nominatedNode": "n2", "victims": [{"namespace": "default", "name": "b1", "priority": 1}],
        "pdbViolations": 0, "ties": ["n2"], "candidates": 2}  # fmt: skip
    assert got["default/low"]["preemption"]["nominatedNode"] is None  # nothing lower
    assert got["default/low"]["preemption"]["reason"] == "no candidate node"
    assert "preemption" not in api.score(overcommitted, scores="none").to_dict()["results"][0]


def test_a_profile_without_default_preemption_explains_none(overcommitted, tmp_path):
    config = tmp_path / "config.yaml"
    config.write_text("apiVersion: kubescheduler.config.k8s.io/v1beta3\n"
                      "kind: KubeSchedulerConfiguration\nprofiles:\n"
                      "- schedulerName: default-scheduler\n  plugins:\n    postFilter:\n"
                      "      disabled:\n      - name: DefaultPreemption\n")  # fmt: skip
    out = tmp_path / "out.json"
    assert main(["score", overcommitted, "--config", str(config), "--explain", "--quiet",
                 "-o", str(out)]) == 0  # fmt: skip
    assert all("preemption" not in r for r in json.loads(out.read_text())["results"])
    assert main(["score", overcommitted, "--explain", "--quiet", "-o", str(out)]) == 0
    assert json.loads(out.read_text())["results"][0]["preemption"]["nominatedNode"] == "n2"


def test_budget_status_is_computed_for_an_integer_min_available(tmp_path):
    ready = {"conditions": [{"type": "Ready", "status": "True"}]}
    pods = [{**_manifest(f"r{i}", "n1", "1", 0, {"app": "a"}), "status": ready} for i in range(3)]
    unready = {"conditions": [{"type": "Ready", "status": "False"}]}
    pods.append({**_manifest("unready", "n1", "1", 0, {"app": "a"}), "status": unready})
    pods.append(_manifest("bare", "n1", "1", 0, {"app": "a"}))  # no Ready condition: bound
    pods.append({**_manifest("done", "n1", "1", 0, {"app": "a"}),
                 "status": {"phase": "Succeeded"}})  # fmt: skip
    pods.append(_manifest("waiting", None, "1", 0, {"app": "a"}))
    budget = {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
              "metadata": {"name": "b"},
              "spec": {"minAvailable": 2, "selector": {"matchLabels": {"app": "a"}}}}  # fmt: skip
    cluster = api.load_cluster(_write(tmp_path, [_node("n1"), *pods, budget]))
    assert [b.disruptions_allowed for b in cluster.budgets] == [2]  # 4 healthy - 2


@pytest.mark.parametrize(
    "spec, status, field",
    [
        ({"minAvailable": "x"}, None, "spec.minAvailable"),
        ({"maxUnavailable": [1]}, None, "spec.maxUnavailable"),
        ({"minAvailable": 1, "maxUnavailable": 1}, None, "spec"),
        ({"maxUnavailable": 1}, None, "status"),
        ({"minAvailable": "50%"}, None, "status"),
        ({}, {"disruptionsAllowed": "1"}, "status.disruptionsAllowed"),
        ({"selector": {"matchLabels": {"a": 1}}}, {}, "spec.selector"),
    ],
)
def test_bad_budgets_name_the_field(tmp_path, spec, status, field, capsys):
    budget = {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
              "metadata": {"name": "b"}, "spec": spec}  # fmt: skip
    if status is not None:
        budget["status"] = status
    path = _write(tmp_path, [_node("n1"), budget])
    assert main(["score", path, "--quiet", "-o", str(tmp_path / "out.json")]) == 2
    err = capsys.readouterr().err
    assert "PodDisruptionBudget default/b" in err and field in err, err
    assert not (tmp_path / "out.json").exists()


def test_a_bad_start_time_names_the_field(tmp_path, capsys):
    pod = {**_manifest("p", "n1", "1", 0), "status": {"startTime": "yesterday"}}
    path = _write(tmp_path, [_node("n1"), pod])
    assert main(["score", path, "--quiet", "-o", str(tmp_path / "out.json")]) == 2
    assert "status.startTime" in capsys.readouterr().err


def test_preemptions_table_in_every_format(overcommitted, tmp_path):
    import pyarrow.parquet as pq

    out = tmp_path / "out"
    assert main(["score", overcommitted, "--explain", "--quiet", "--format", "parquet",
                 "-o", str(out)]) == 0  # fmt: skip
    table = pq.read_table(out / "preemptions.parquet").to_pylist()
    assert [(r["pod"], r["nominated_node"]) for r in table] == [
        ("default/hi", "n2"), ("default/low", None)]  # fmt: skip
    assert table[0]["victims"] == [{"namespace": "default", "name": "b1", "priority": 1}]
    # the directory is kscore's own: a second run replaces it
    assert main(["score", overcommitted, "--explain", "--quiet", "--format", "parquet",
                 "-o", str(out)]) == 0  # fmt: skip


@pytest.mark.parametrize("seed", range(12))
def test_dry_run_checks_equal_the_cluster_built_without_the_pods(tmp_path, seed):
    """A dry-run check (remove kernels, filters, assume kernels back) gives the verdict of
    the same pod on a cluster read without the removed pods; the state is whole again
    after."""
    import random

    from kscore_fast.preemption.dryrun import DryRuns
    from kscore_fast.profile import framework_for_profile

    from ..scenarios_preemption import preemption_scenario

    rng = random.Random(seed)
    objects = preemption_scenario(4_000_000 + seed)
    cluster = api.load_cluster(_write(tmp_path, objects))
    fw = framework_for_profile(api._default_config().profiles[0], 0).framework
    runs = DryRuns(fw, cluster)
    for pod in range(len(cluster.batch)):
        view = runs.view(runs.offset + pod)
        before = view.statuses()
        for _ in range(4):
            node = rng.randrange(len(view.node_names()))
            on = list(view.node_pods(node))
            removed = rng.sample(on, rng.randint(0, len(on)))
            got = view.filter(node, removed)
            gone = {(p.namespace, p.name) for p in removed}
            kept = [o for o in objects if o["kind"] != "Pod" or o["spec"].get("nodeName") is None
                    or ("default", o["metadata"]["name"]) not in gone]  # fmt: skip
            where = tmp_path / f"{pod}-{node}"
            where.mkdir(exist_ok=True)
            fresh = api.load_cluster(_write(where, kept))
            fresh_runs = DryRuns(fw, fresh)
            want = fresh_runs.view(fresh_runs.offset + pod).statuses().get(node, Status(SUCCESS))
            assert got == want, (pod, node, [p.name for p in removed])
        view.restore()
        assert view.statuses() == before


@pytest.mark.parametrize("seed", range(30))
def test_compiled_dry_run_equals_the_reference_walk(tmp_path, seed):
    """``kernels.dry_run`` (the whole walk in one call) gives the candidates, victims,
    violations and node statuses of ``reference.dry_run_preemption`` (node by node through
    the view's ``filter``), nominated pods and budgets included."""
    import random

    from kscore_fast.preemption.reference import dry_run_preemption

    from ..scenarios_preemption import preemption_scenario
    from .runs import nominated_runs

    rng = random.Random(seed)
    cluster = api.load_cluster(_write(tmp_path, preemption_scenario(5_000_000 + seed, 10, 8)))
    runs, pending = nominated_runs(cluster, rng)
    for pod in pending:
        view = runs.view(pod)
        potential = list(range(len(runs.names)))
        offset, wanted = rng.randrange(len(potential)), rng.randint(1, len(potential))
        args = (runs.records[pod], potential, offset, wanted, view, cluster.budgets)
        want = dry_run_preemption(*args)
        view.restore()
        got = view.dry_run(*args)
        assert [(v.node, [p.name for p in v.pods], v.pdb_violations) for v in got[0] + got[1]] == [
            (v.node, [p.name for p in v.pods], v.pdb_violations) for v in want[0] + want[1]
        ]
        assert got[2] == want[2]


def test_simulate_preemption_from_the_command_line(overcommitted, tmp_path, capsys):
    out = tmp_path / "out.json"
    assert main(["simulate", overcommitted, "--preemption", "--quiet", "-o", str(out)]) == 0
    rows = {r["pod"]: r for r in json.loads(out.read_text())["results"]}
    # hi evicts b1 on n2 and is nominated there (not retried: it waits)
    assert rows["default/hi"]["preemption"]["nominatedNode"] == "n2"
    assert rows["default/hi"]["host"] is None
    assert main(["simulate", overcommitted, "--preemption", "--retry-nominated", "--quiet",
                 "-o", str(out)]) == 0  # fmt: skip
    rows = {r["pod"]: r for r in json.loads(out.read_text())["results"]}
    assert rows["default/hi"]["host"] == "n2" and rows["default/hi"]["preemption"]["retried"]
    events = tmp_path / "events.jsonl"
    events.write_text("")
    for argv, says in ((["--retry-nominated"], "--retry-nominated needs --preemption"),
                       (["--preemption", "--retry-nominated", "--events", str(events)],
                        "--retry-nominated does not apply with --events")):  # fmt: skip
        assert main(["simulate", overcommitted, *argv, "--quiet", "-o", str(out)]) == 2
        assert says in capsys.readouterr().err


def test_explain_with_a_score_plugin_the_sequential_mode_refuses(overcommitted, tmp_path):
    """The dry runs run the profile's filters only: SelectorSpread at Score (no assume
    kernels, refused by simulate) does not stop score --explain."""
    config = tmp_path / "config.yaml"
    config.write_text("apiVersion: kubescheduler.config.k8s.io/v1beta3\n"
                      "kind: KubeSchedulerConfiguration\nprofiles:\n"
                      "- schedulerName: default-scheduler\n  plugins:\n    score:\n"
                      "      enabled:\n      - name: SelectorSpread\n")  # fmt: skip
    got = api.score(overcommitted, config=config, scores="none", explain=True).to_dict()
    assert got["results"][0]["preemption"]["nominatedNode"] == "n2"


@pytest.mark.parametrize(
    "text, ns",
    [
        ("2024-01-01T00:00:00Z", 1_704_067_200 * 10**9),
        ("2024-01-01T00:00:00.5Z", 1_704_067_200 * 10**9 + 500_000_000),
        ("2024-01-01T01:00:00+01:00", 1_704_067_200 * 10**9),
        ("2024-02-29T00:00:00Z", 1_709_164_800 * 10**9),
        ("", None),
    ],
)
def test_start_times(text, ns):
    from kscore_fast.model.times import rfc3339_problem, start_ns

    assert start_ns(text) == ns
    assert (rfc3339_problem(text) is None) == bool(text)


@pytest.mark.parametrize("text", ["yesterday", "2024-13-01T00:00:00Z", "2023-02-29T00:00:00Z",
                                  "2024-01-01T24:00:00Z", "2024-01-01 00:00:00Z", 5])  # fmt: skip
def test_bad_start_times_are_refused(text):
    from kscore_fast.model.times import rfc3339_problem

    assert rfc3339_problem(text) is not None


def test_aggregate_error_is_go_text():
    """``utilerrors.NewAggregate(errs).Error()``: one error as it is, several distinct
    ones in order in brackets, repeated ones once."""
    from kscore_fast.preemption.reference import aggregate_error

    assert aggregate_error([]) == ""
    assert aggregate_error(["a"]) == "a"
    assert aggregate_error(["a", "a"]) == "a"
    assert aggregate_error(["b", "a", "b"]) == "[b, a]"
