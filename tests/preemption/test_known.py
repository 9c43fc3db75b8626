"""The dry runs' memo of each node's outcome (``kernels.dry_run``'s ``known``): runs that
keep it equal runs that find every outcome afresh, it is read while a node is unchanged
and forgotten once the node changes; and ``split_by_code`` (the nodes where preemption
might help) equals its NumPy statement."""

from __future__ import annotations

import copy
import json
import random

import numpy as np
import pytest

from kscore_fast import api
from kscore_fast.framework.simulation import queue_order
from kscore_fast.preemption import kernels
from kscore_fast.preemption.dryrun import DryRuns
from kscore_fast.preemption.reference import UNSCHEDULABLE_AND_UNRESOLVABLE
from kscore_fast.simulator import Simulator

from ..scenarios_preemption import preemption_scenario
from .runs import nominated_runs


def _with_twins(objects: list[dict], rng: random.Random) -> list[dict]:
    """The scenario with copies of some pending pods (twins: same spec, other names)."""
    pending = [o for o in objects if o["kind"] == "Pod" and not o["spec"].get("nodeName")]
    for pod in rng.sample(pending, min(len(pending), 3)):
        for t in range(rng.randint(1, 3)):
            twin = copy.deepcopy(pod)
            twin["metadata"]["name"] = f"{pod['metadata']['name']}-twin{t}"
            objects.append(twin)
    return objects


def _load(tmp_path, objects):
    path = tmp_path / "cluster.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objects}))
    return api.load_cluster(str(path))


def _forgetful(m: pytest.MonkeyPatch) -> None:
    """Every :class:`DryRuns` made from now on walks without its memo."""
    setup = DryRuns._setup

    def without(self, *args, **kwargs):
        setup(self, *args, **kwargs)
        self.memo = False

    m.setattr(DryRuns, "_setup", without)


@pytest.mark.parametrize("seed", range(16))
def test_runs_that_keep_outcomes_equal_runs_that_do_not(tmp_path, seed):
    """``simulate --preemption`` (with and without the retry) and a preempting
    ``Simulator`` pod by pod give the same results with the memo as without."""
    rng = random.Random(seed)
    objects = _with_twins(preemption_scenario(7_000_000 + seed, 12, 8), rng)
    cluster = _load(tmp_path, objects)

    def runs() -> list:
        out = []
        for retry in (False, True):
            result = api.simulate(cluster, seed=seed, tie_break="go-rand", preemption=True,
                                  retry_nominated=retry, scores="none")  # fmt: skip
            out.append(result.to_dict())
        sim = Simulator(cluster, seed=seed, tie_break="go-rand", preemption=True)
        for i in queue_order(cluster.batch.pods):
            key = cluster.batch.pods[i].key
            out.append(sim.schedule_one(key))
            if out[-1]["host"] is None and key in sim.nominations:
                out.append(sim.schedule_one(key))
        return out

    kept = runs()
    with pytest.MonkeyPatch.context() as m:
        _forgetful(m)
        assert runs() == kept


def _walk(runs: DryRuns, pod: int, potential: np.ndarray, budgets) -> tuple:
    """(order, status, vptr, victims, violations, walked) of ``pod``'s walk over every
    potential node from the first on."""
    view = runs.view(pod)
    return view._walk(potential, 0, len(potential), budgets)


def test_a_known_outcome_is_read_until_its_node_changes(tmp_path):
    """A second walk of a pod reads the first walk's outcomes (a node's row made up here
    is what it returns), and a node whose pods change is walked afresh."""
    cluster = _load(tmp_path, preemption_scenario(7_100_003, 8, 6))
    runs, pending = nominated_runs(cluster, random.Random(0))
    runs.nominated = {}
    budgets = cluster.budgets
    potential = np.arange(len(runs.names), dtype=np.int64)
    pod = next(p for p in pending
               if _walk(runs, p, potential, budgets)[1][0] == kernels.CANDIDATE)  # fmt: skip
    first = _walk(runs, pod, potential, budgets)
    node = int(first[0][0])
    known = runs._known[1]
    assert known[node, kernels.KNOWN] == 1
    known[node, kernels.K_STATUS] = 12345  # (no verdict: only the memo gives it)
    assert _walk(runs, pod, potential, budgets)[1][0] == 12345
    victim = int(first[3][first[2][0]])
    runs.evict(victim)  # (the node changes: its row is forgotten)
    again = _walk(runs, pod, potential, budgets)
    assert again[1][0] != 12345 and known[node, kernels.KNOWN] == 1


@pytest.mark.parametrize("seed", range(6))
def test_split_by_code_equals_the_statuses(tmp_path, seed):
    rng = random.Random(seed)
    cluster = _load(tmp_path, preemption_scenario(7_200_000 + seed, 12, 8))
    runs, pending = nominated_runs(cluster, rng)
    for pod in pending:
        verdicts = runs.view(pod).verdicts(runs._all)
        codes = np.array([runs._status(int(v)).code for v in verdicts.tolist()])
        potential, unhelpful = runs.split_by_code(verdicts)
        assert (
            potential.tolist() == np.flatnonzero(codes != UNSCHEDULABLE_AND_UNRESOLVABLE).tolist()
        )
        assert (
            unhelpful.tolist() == np.flatnonzero(codes == UNSCHEDULABLE_AND_UNRESOLVABLE).tolist()
        )
