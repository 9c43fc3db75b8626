"""DefaultPreemption in the Simulator step API (``Simulator(preemption=True)``) and in the
timed queue (``TimedSimulator(preemption=True)``, ``simulate --events --preemption``):
step by step equal to ``simulate --preemption``, each call atomic, the outcome in the
results."""

from __future__ import annotations

import json

import numpy as np
import pytest

from kscore_fast import api
from kscore_fast.cli import main
from kscore_fast.errors import InputError
from kscore_fast.framework.simulation import queue_order
from kscore_fast.preemption import stepwise
from kscore_fast.queue import TimedSimulator
from kscore_fast.simulator import Simulator

from ..scenarios_preemption import preemption_scenario
from .test_reference import _manifest, _node, _write, overcommitted  # noqa: F401 (a fixture)

HI = {"nominatedNode": "n2", "victims": [{"namespace": "default", "name": "b1", "priority": 1}],
      "pdbViolations": 0, "ties": ["n2"], "candidates": 2}  # fmt: skip


def _rows(results: list[dict]) -> list[tuple]:
    return [(r["pod"], r["host"], r["error"], r.get("preemption")) for r in results]


def _steps_equal_simulate(tmp_path, seed: int, **sizes: int) -> int:
    """``run()`` and ``schedule_one`` pod after pod in queue order == ``simulate
    --preemption`` on a random over-committed cluster, draw for draw (go-rand: the
    offsets and the hosts' ties share the source); how many pods evicted victims."""
    path = _write(tmp_path, preemption_scenario(seed, **sizes))
    whole = api.simulate(api.load_cluster([path]), seed=seed, scores="none",
                         tie_break="go-rand", preemption=True).to_dict()["results"]  # fmt: skip
    sim = Simulator(api.load_cluster([path]), seed=seed, tie_break="go-rand", preemption=True)
    assert _rows(sim.run().to_dict()["results"]) == _rows(whole), seed
    sim = Simulator(api.load_cluster([path]), seed=seed, tie_break="go-rand", preemption=True)
    pods = sim.cluster.batch.pods
    steps = [sim.schedule_one(pods[i].key) for i in queue_order(pods)]
    assert _rows(steps) == _rows(whole), seed
    retried = api.simulate(api.load_cluster([path]), seed=seed, scores="none",
                           tie_break="go-rand", preemption=True,
                           retry_nominated=True).to_dict()["results"]  # fmt: skip
    sim = Simulator(api.load_cluster([path]), seed=seed, tie_break="go-rand", preemption=True)
    got = sim.run(retry_nominated=True).to_dict()["results"]
    assert _rows(got) == _rows(retried), seed
    return sum(bool((r.get("preemption") or {}).get("victims")) for r in whole)


def test_steps_equal_simulate_with_preemption(tmp_path):
    preempted = sum(_steps_equal_simulate(tmp_path, seed, max_nodes=4, max_pending=12)
                    for seed in range(8))  # fmt: skip
    assert preempted >= 5


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(500))
def test_many_more_steps_equal_simulate_with_preemption(tmp_path, seed):
    _steps_equal_simulate(tmp_path, 10_000 + seed, max_nodes=8, max_pending=16)


def test_run_retries_nominated_pods(overcommitted):  # noqa: F811
    sim = Simulator(api.load_cluster([overcommitted]), preemption=True)
    rows = {r["pod"]: r for r in sim.run(retry_nominated=True).to_dict()["results"]}
    assert rows["default/hi"]["host"] == "n2" and rows["default/hi"]["preemption"]["retried"]
    assert sim.nominations == {}
    plain = Simulator(api.load_cluster([overcommitted]))
    with pytest.raises(InputError, match="retry_nominated needs a Simulator with preemption"):
        plain.run(retry_nominated=True)


def test_schedule_one_preempts_and_nominates(overcommitted):  # noqa: F811
    sim = Simulator(api.load_cluster([overcommitted]), preemption=True)
    got = sim.schedule_one("default/hi")
    assert (got["host"], got["error"]) == (None, "0/2 nodes are available: 2 Insufficient cpu.")
    assert got["preemption"] == HI
    assert sim.nominations == {"default/hi": "n2"}
    with pytest.raises(InputError, match="default/b1"):  # the victim is gone
        sim.delete("default/b1")
    # low would fit on n2 (b2 and 3 free CPUs), but hi is nominated there with a higher
    # priority: the filters count it, and low has nothing to preempt
    low = sim.schedule_one("default/low")
    assert low["host"] is None and low["preemption"]["nominatedNode"] is None
    assert low["preemption"]["reason"] == "no candidate node"
    assert sim.schedule("default/low", scores="none")["host"] is None  # (counted there too)
    assert sim.schedule_and_bind("default/hi") == "n2"  # its nominated node, first
    assert sim.nominations == {}
    plain = Simulator(api.load_cluster([overcommitted]))  # (no preemption, b1 deleted)
    assert "preemption" not in plain.schedule_one("default/hi")
    plain.delete("default/b1")
    assert plain.schedule_one("default/low")["host"] == "n2"


def test_a_pending_pod_deleted_or_bound_leaves_the_nominator(overcommitted):  # noqa: F811
    sim = Simulator(api.load_cluster([overcommitted]), preemption=True)
    sim.schedule_one("default/hi")
    branch = sim.copy()
    sim.delete("default/hi")
    assert sim.nominations == {} and branch.nominations == {"default/hi": "n2"}
    assert sim.schedule_one("default/low")["host"] == "n2"  # nothing nominated there now


def test_a_failing_preemption_changes_nothing(overcommitted, monkeypatch):  # noqa: F811
    """An exception after the victims were deleted (here: while nominating) leaves the
    simulator as it was before the call: victims, nominations, rotation, draws."""
    sim = Simulator(api.load_cluster([overcommitted]), preemption=True, tie_break="go-rand",
                    seed=3)  # fmt: skip
    rng = sim._rng.copy()

    def broken(self, pod, node):
        raise RuntimeError("nominator broken")

    monkeypatch.setattr(stepwise.Nominations, "nominate", broken)
    for call in (lambda: sim.schedule_one("default/hi"), lambda: sim.run(),
                 lambda: sim.replay([("schedule", "default/hi")])):  # fmt: skip
        with pytest.raises(RuntimeError, match="nominator broken"):
            call()
        assert np.array_equal(sim._rng, rng) and sim.nominations == {}
        assert "default/b1" in sim._cache.existing
    monkeypatch.undo()
    fresh = Simulator(api.load_cluster([overcommitted]), preemption=True, tie_break="go-rand",
                      seed=3)  # fmt: skip
    assert _rows(sim.run().to_dict()["results"]) == _rows(fresh.run().to_dict()["results"])


def test_run_and_replay_report_preemptions(overcommitted):  # noqa: F811
    sim = Simulator(api.load_cluster([overcommitted]), preemption=True)
    rows = {r["pod"]: r for r in sim.run().to_dict()["results"]}
    assert rows["default/hi"]["preemption"] == HI and rows["default/hi"]["host"] is None
    assert rows["default/low"]["preemption"]["reason"] == "no candidate node"
    sim = Simulator(api.load_cluster([overcommitted]), preemption=True)
    got = sim.replay([("schedule", "default/hi"), ("delete", "default/b2"),
                      ("schedule", "default/low")]).to_dict()["results"]  # fmt: skip
    assert got[0]["preemption"] == HI
    assert got[1]["host"] is None  # n2: 4 CPUs free, 3 of them hi's (nominated)
    assert sim.nominations == {"default/hi": "n2"}


def test_timed_queue_preempts(overcommitted):  # noqa: F811
    """hi fails at 0, evicts b1 and goes back to the queue; the deletion's move
    (AssignedPodDelete) sends it to podBackoffQ; after its backoff it binds on n2.
    low fails on n2 (hi nominated there) and waits."""
    timed = TimedSimulator(api.load_cluster([overcommitted]), preemption=True)
    timed.replay([])
    rows = timed.attempts
    assert [(r["pod"], r["host"], r["queue"]) for r in rows] == [
        ("default/hi", None, "backoff"), ("default/low", None, "unschedulable"),
        ("default/hi", "n2", None)]  # fmt: skip
    # (its backoff ends 1 s after its failure at 2 ns: the flush at 2 s takes it)
    assert rows[0]["preemption"] == HI and rows[2]["timeNs"] == 2 * 10**9
    assert "preemption" not in rows[2]
    result = timed.result()
    assert result.pending == ["default/low"]
    assert "preemptions" in result.tables()
    with pytest.raises(InputError, match="a victim of the preemption by default/hi"):
        timed.replay([(2, "delete", "default/b1")])


def test_events_with_preemption_from_the_command_line(overcommitted, tmp_path):  # noqa: F811
    events = tmp_path / "events.jsonl"
    hi2 = _manifest("hi2", None, "2", 100)
    events.write_text(json.dumps({"time": 5, "op": "addPod", "pod": hi2}) + "\n")
    out = tmp_path / "out.json"
    assert main(["simulate", overcommitted, "--events", str(events), "--preemption",
                 "--quiet", "-o", str(out)]) == 0  # fmt: skip
    rows = json.loads(out.read_text())["attempts"]
    hi2_rows = [r for r in rows if r["pod"] == "default/hi2"]
    assert hi2_rows[0]["preemption"]["victims"]  # n1's pods, low priority
    assert main(["simulate", overcommitted, "--events", str(events), "--quiet",
                 "-o", str(out)]) == 0  # fmt: skip
    assert all("preemption" not in r for r in json.loads(out.read_text())["attempts"])


def _with_port(pod: dict, port: int) -> dict:
    pod["spec"]["containers"][0]["ports"] = [{"containerPort": port, "hostPort": port}]
    return pod


def test_host_port_victims_of_the_input_deleted_in_place(tmp_path):
    """Victims that are the input's bound pods and hold host ports leave the run's
    NodePorts state in place (no re-preparation): the preemptor binds at its retry, and
    the steps equal ``simulate --preemption --retry-nominated``."""
    path = _write(tmp_path, [
        _node("n1"), _node("n2"),
        _with_port(_manifest("p1", "n1", "1", 1), 8080), _manifest("q1", "n1", "1", 1),
        _with_port(_manifest("p2", "n2", "1", 2), 8080),
        _with_port(_manifest("q2", "n2", "1", 0), 9090),
        _with_port(_manifest("hi", None, "1", 100), 8080),
        _with_port(_manifest("next", None, "1", 50), 9090),
        _with_port(_manifest("last", None, "1", 0), 8080),
    ])  # fmt: skip
    whole = api.simulate(api.load_cluster([path]), scores="none", tie_break="go-rand",
                         preemption=True, retry_nominated=True).to_dict()["results"]  # fmt: skip
    sim = Simulator(api.load_cluster([path]), tie_break="go-rand", preemption=True)
    steps = []
    for key in ("default/hi", "default/next", "default/last"):
        step = sim.schedule_one(key)
        if step["host"] is None and key in sim.nominations:
            retried = sim.schedule_one(key)
            retried["preemption"] = {**step["preemption"], "retried": True,
                                     "firstError": step["error"]}  # fmt: skip
            step = retried
        steps.append(step)
    assert [(r["pod"], r["host"], r.get("preemption")) for r in steps] == [
        (r["pod"], r["host"], r.get("preemption")) for r in whole]  # fmt: skip
    assert steps[0]["host"] == "n1" and steps[0]["preemption"]["victims"] == [
        {"namespace": "default", "name": "p1", "priority": 1}]  # fmt: skip
    assert sim._rows and not sim._stale  # (the input's victim deleted in place)


def _fault_in_dry_run(m: pytest.MonkeyPatch, sim: Simulator) -> None:
    """The dry runs raise midway: a pod removed from the plugins' states, not put back
    (after the walk's kernel call: ``DryRuns.preempt_walk``)."""
    from kscore_fast.preemption.dryrun import DryRuns

    real = DryRuns.preempt_walk

    def broken(self, *args, **kwargs):
        real(self, *args, **kwargs)
        seq = sim._seq
        bound = np.flatnonzero(seq.bound >= 0)
        if len(bound):
            seq.remove(int(bound[0]), int(seq.bound[bound[0]]))
        raise RuntimeError("fault")

    m.setattr(DryRuns, "preempt_walk", broken)


def _fault_after_a_victim(m: pytest.MonkeyPatch, sim: Simulator) -> None:
    """The second deletion of a call raises: the first victim is gone already."""
    real, calls = Simulator._delete, []

    def broken(self, pod):
        calls.append(pod)
        if len(calls) == 2:
            raise RuntimeError("fault")
        real(self, pod)

    m.setattr(Simulator, "_delete", broken)


def _fault_in_the_cycle(m: pytest.MonkeyPatch, sim: Simulator) -> None:
    """The cycle raises once the plugins' states hold the pod on its host."""

    def broken(self, pod, i, node):
        raise RuntimeError("fault")

    m.setattr(Simulator, "_bind_record", broken)


def _fault_in_nominating(m: pytest.MonkeyPatch, sim: Simulator) -> None:
    def broken(self, pod, node):
        raise RuntimeError("fault")

    m.setattr(stepwise.Nominations, "nominate", broken)


@pytest.mark.parametrize("seed", range(8))
def test_a_call_that_raises_midway_leaves_the_simulator_unchanged(tmp_path, seed):
    """``schedule_one`` calls that raise at some point of a preempting step (in the cycle
    once the pod is bound in the plugins' states, in the dry runs with the states half
    changed, after a victim's deletion, while nominating): each then succeeds as if the
    failed call never happened, pod after pod equal to a simulator that never failed."""
    import random

    path = _write(tmp_path, preemption_scenario(9_000_000 + seed, 10, 8))

    def make() -> Simulator:
        return Simulator(api.load_cluster([path]), seed=seed, tie_break="go-rand",
                         preemption=True)  # fmt: skip

    sim, clean, rng = make(), make(), random.Random(seed)
    batch = clean._cluster.batch
    faults = (_fault_in_dry_run, _fault_after_a_victim, _fault_in_nominating, _fault_in_the_cycle)
    raised = evicted = 0
    for pod in [batch.pods[i].key for i in queue_order(batch.pods)]:
        for _ in range(2):  # (a pod that preempted is tried again)
            want = clean.schedule_one(pod)
            victims = want.get("preemption", {}).get("victims", [])
            evicted += bool(victims)
            options = faults  # (with victims, those that raise in PostFilter)
            if victims:
                options = (_fault_in_dry_run, _fault_in_nominating,
                           *((_fault_after_a_victim,) if len(victims) > 1 else ()))  # fmt: skip
            with pytest.MonkeyPatch.context() as m:
                rng.choice(options)(m, sim)
                try:
                    got = sim.schedule_one(pod)
                except RuntimeError:
                    got = None
            if got is None:
                raised += 1
                got = sim.schedule_one(pod)
            assert got == want, (seed, pod)
            assert sim.nominations == clean.nominations
            if pod not in clean.nominations:
                break
    assert raised >= evicted
