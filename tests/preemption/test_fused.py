"""The one-call PostFilter walk (:mod:`kscore_fast.preemption.fused`): the offset it draws
in the kernel (Go's ``rand.Int31n`` on the run's source, or kscore's seeded draw) is the
draw :class:`~kscore_fast.preemption.offset.OffsetDraw` makes from Python, it leaves Go's
source where that draw leaves it, and the victims it deletes (``evict``) are those of
the chosen candidate, the state after equal to deleting them one by one."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

from kscore_fast import api
from kscore_fast.framework.gorand import GoRand
from kscore_fast.preemption.compiled import preempt_compiled
from kscore_fast.preemption.offset import OffsetDraw

from ..scenarios_preemption import preemption_scenario
from .runs import nominated_runs


def _load(tmp_path, objects):
    path = tmp_path / "cluster.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objects}))
    return api.load_cluster(str(path))


def _outcome(found):
    return (found.node, [p.name for p in found.victims], found.pdb_violations, found.ties,
            [(c.node, [p.name for p in c.pods], c.pdb_violations) for c in found.candidates],
            dict(found.statuses), found.drew, found.reason)  # fmt: skip


@pytest.mark.parametrize("seeds", [range(0, 6), range(6, 12)])
def test_the_kernel_draws_as_offset_draw_does(tmp_path, seeds):
    """Per pending pod, with Go's source and with kscore's seeded draw: the walk drawing
    in the kernel gives what the walk given ``OffsetDraw``'s Python draw gives, and Go's
    source is left in the same state."""
    drew = 0
    for seed in seeds:
        rng = random.Random(seed)
        cluster = _load(tmp_path, preemption_scenario(8_000_000 + seed, 10, 8))
        runs, pending = nominated_runs(cluster, rng)
        for pod in pending:
            drew += _draws_alike(runs, pod, cluster.budgets, seed, rng)
    assert drew  # (some pod drew an offset)


def _draws_alike(runs, pod, budgets, seed, rng) -> int:
    record = runs.records[pod]
    pct, absolute = rng.choice(((10, 100), (50, 1), (0, 2), (100, 3)))
    source = GoRand(rng.randrange(1 << 40))
    drew = 0
    for go in (True, False):
        kernel_state, python_state = source.state.copy(), source.state.copy()
        stream = rng.randrange(1 << 62)
        inside = OffsetDraw(kernel_state if go else None, seed, stream)
        outside = OffsetDraw(python_state if go else None, seed, stream)
        got = preempt_compiled(runs.view(pod), record, budgets, inside, pct, absolute)
        want = preempt_compiled(runs.view(pod), record, budgets, lambda n, d=outside: d(n), pct,
                                absolute)  # fmt: skip
        runs.restore()
        assert _outcome(got) == _outcome(want), (seed, record.name, go)
        assert np.array_equal(kernel_state, python_state)
        drew += got.drew
    return drew


@pytest.mark.parametrize("seed", range(12))
def test_evicting_in_the_kernel_equals_deleting_one_by_one(tmp_path, seed):
    """``evict``: the chosen candidate's victims deleted in the walk's call leave the
    plugins' states, the nodes' pods and the bound nodes as deleting them after."""
    cluster = _load(tmp_path, preemption_scenario(8_100_000 + seed, 10, 8))
    for pod_seed in range(3):
        evicted = 0
        runs, pending = nominated_runs(cluster, random.Random(seed * 10 + pod_seed))
        twin, _ = nominated_runs(cluster, random.Random(seed * 10 + pod_seed))
        for pod in pending:
            record = runs.records[pod]
            draw = OffsetDraw(None, seed, pod)
            a = preempt_compiled(runs.view(pod), record, cluster.budgets, draw, evict=True)
            b = preempt_compiled(twin.view(pod), twin.records[pod], cluster.budgets, draw)
            assert _outcome(a) == _outcome(b)
            if b.node >= 0:
                twin.evict_all([twin.position(v) for v in b.victims])
                evicted += 1
            assert evicted == (b.node >= 0)
            assert np.array_equal(runs.seq.bound, twin.seq.bound)
            assert np.array_equal(runs._on_node.count, twin._on_node.count)
            assert runs._on_node.total == twin._on_node.total
            for node in range(len(runs.names)):
                assert runs._on_node.pods(node) == twin._on_node.pods(node)
            for mine, theirs in zip(runs.seq.states, twin.seq.states, strict=True):
                for x, y in zip(mine, theirs, strict=True):
                    if isinstance(x, np.ndarray):
                        assert np.array_equal(x, y)
            if evicted:
                break  # (one eviction per pair of runs)
            evicted = 0
