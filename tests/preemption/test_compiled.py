"""The compiled PostFilter (:func:`kscore_fast.preemption.compiled.preempt_compiled`:
verdict arrays, one dry-run kernel call, ``SelectCandidate`` compiled) equals the scalar
:func:`kscore_fast.preemption.reference.preempt` walking the view node by node."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

from kscore_fast import api
from kscore_fast.model.objects import PodRecord
from kscore_fast.model.times import start_ns
from kscore_fast.preemption import kernels
from kscore_fast.preemption.compiled import preempt_compiled
from kscore_fast.preemption.reference import Victims, _Clock, pick_ties, preempt, priority

from ..scenarios_ephemeral import foreign_claim_preemption_scenario
from ..scenarios_preemption import preemption_scenario
from .runs import nominated_runs

SAME_START = "2024-01-01T00:30:00Z"
LATER = "2024-01-01T00:40:00Z"


def _load(tmp_path, objects):
    path = tmp_path / "cluster.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objects}))
    return api.load_cluster(str(path))


def _starts_tied(objects, rng):
    """Some bound pods without ``status.startTime`` ("now" in Go), some sharing one."""
    for o in objects:
        if o["kind"] == "Pod" and o["spec"].get("nodeName"):
            r = rng.random()
            if r < 0.3:
                o["status"].pop("startTime", None)
            elif r < 0.6:
                o["status"]["startTime"] = SAME_START
    return objects


def _outcome(found):
    return (found.node, [p.name for p in found.victims], found.pdb_violations, found.ties,
            [(c.node, [p.name for p in c.pods], c.pdb_violations) for c in found.candidates],
            dict(found.statuses), found.drew, found.reason, found.error)  # fmt: skip


@pytest.mark.parametrize("seed", range(40))
def test_compiled_preempt_equals_the_reference(tmp_path, seed):
    rng = random.Random(seed)
    _compare(tmp_path, rng, _starts_tied(preemption_scenario(6_000_000 + seed, 10, 8), rng))


@pytest.mark.parametrize("seed", range(40))
def test_compiled_preempt_equals_the_reference_with_filter_errors(tmp_path, seed):
    """Nodes holding a pod whose ephemeral claim another owns: the volume limits' ``Error``
    in the dry runs, and PostFilter's ``Error`` (the reason and aggregated text) when no
    node is a candidate."""
    rng = random.Random(seed)
    _compare(tmp_path, rng, foreign_claim_preemption_scenario(6_100_000 + seed, max_nodes=10))


def _compare(tmp_path, rng, objects) -> None:
    cluster = _load(tmp_path, objects)
    runs, pending = nominated_runs(cluster, rng)
    for pod in pending:
        record = runs.records[pod]
        pct, absolute = rng.choice(((10, 100), (50, 1), (0, 2), (100, 3)))
        shift = rng.randrange(1000)

        def offset(n: int, shift: int = shift) -> int:
            return shift % n

        view = runs.view(pod)
        want = preempt(record, view.statuses(), view, cluster.budgets, offset, pct, absolute)
        view.restore()
        got = preempt_compiled(runs.view(pod), record, cluster.budgets, offset, pct, absolute)
        assert _outcome(got) == _outcome(want), record.name


def _victims(rng, node, records):
    return Victims(node, rng.sample(records, rng.randint(1, 3)), rng.choice((0, 0, 1)))


@pytest.mark.parametrize("seed", range(200))
def test_compiled_pick_equals_pick_ties(seed):
    """``kernels.pick`` on random candidates (few priorities, start times often equal or
    missing) lists them as ``DryRunPreemption`` does (clean ones first) and gives
    ``reference.pick_ties``' tie set."""
    rng = random.Random(seed)
    records = [PodRecord("default", f"v{k}", {}, priority=rng.choice((0, 1, 2)),
                         start_time=rng.choice(("", SAME_START, SAME_START, LATER)))
               for k in range(12)]  # fmt: skip
    cands = [Victims(node, rng.sample(records, rng.randint(1, 3)), rng.choice((0, 0, 1)))
             for node in range(rng.randint(1, 8))]  # fmt: skip
    position = {id(p): k for k, p in enumerate(records)}
    prio = np.array([priority(p) for p in records], dtype=np.int64)
    starts = (start_ns(p.start_time) for p in records)
    start = np.array([kernels.NO_START if s is None else s for s in starts], dtype=np.int64)
    flat = np.array([position[id(p)] for c in cands for p in c.pods], dtype=np.int64)
    vptr = np.cumsum([0, *(len(c.pods) for c in cands)]).astype(np.int64)
    status = np.full(len(cands), kernels.CANDIDATE, dtype=np.int64)
    violations = np.array([c.pdb_violations for c in cands], dtype=np.int64)
    got = np.empty(len(cands), dtype=np.int64)
    tie = np.zeros(len(cands), dtype=np.bool_)
    n = int(kernels.pick(status, vptr, flat, violations, np.int64(len(cands)),
                         np.int64(len(cands)), prio, start, got, tie))  # fmt: skip
    listed = [c for c in cands if c.pdb_violations == 0] + [c for c in cands if c.pdb_violations]
    assert [cands[k].node for k in got[:n]] == [c.node for c in listed]
    want = pick_ties(listed, _Clock())
    assert {cands[k].node for k in got[:n][tie[:n]]} == want
