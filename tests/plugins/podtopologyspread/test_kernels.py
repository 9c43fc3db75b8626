"""PodTopologySpread kernels == the scalar reference port, on seeded random clusters
(zone, rack and hostname keys, nodes lacking keys or with empty values, selectors of every
operator and nil ones, namespaces, nodeSelector and required node affinity, terminating
pods, System defaults from services/ReplicaSets/StatefulSets/ReplicationControllers, List
defaults); ``assume`` then filter/score == a fresh state of the cluster with the pod bound.
"""

from __future__ import annotations

import msgspec
import numpy as np
import pytest

from kscore_fast.model.snapshot import build_cluster
from kscore_fast.plugins.podtopologyspread import PodTopologySpread, kernels
from kscore_fast.plugins.podtopologyspread.reference import PodTopologySpreadReference

from ..harness import filter_codes, score_lists
from .support import random_cluster

#: Go's framework code → the kernels' filter code
KERNEL_CODE = {2: kernels.FAIL_SKEW, 3: kernels.FAIL_LABEL}


def _cluster(seed, scale=1):
    nodes, existing, pending, (services, controllers, args) = random_cluster(seed, scale)
    return build_cluster(nodes, [*existing, *pending], services, controllers), args


def _node_lists(rng, n_nodes, n_pods):
    """Per pod a random non-empty list of distinct nodes, in random order."""
    return [rng.permutation(n_nodes)[: rng.integers(1, n_nodes + 1)].tolist()
            for _ in range(n_pods)]  # fmt: skip


def check(c, args, state, lists):
    """Filter codes and scores of every pending pod: kernels (on ``state``) == reference."""
    ref = PodTopologySpreadReference(args)
    codes = filter_codes(kernels, state, len(c.batch), c.snapshot.n_nodes)
    for p, pod in enumerate(c.batch.pods):
        want = [0 if r is None else KERNEL_CODE[r[0]] for r in ref.filter_pod(c.snapshot, pod)]
        assert codes[p].tolist() == want, f"filter, pod {pod.key}"
    raw, norm = score_lists(kernels, state, lists, True)
    for p, pod in enumerate(c.batch.pods):
        assert (raw[p], norm[p]) == ref.score_pod(c.snapshot, pod, lists[p]), f"score {pod.key}"
    return codes


@pytest.mark.parametrize("seed", range(300))
def test_kernels_equal_reference(seed, counter_layout):
    c, args = _cluster(seed)
    state = PodTopologySpread(args).prepare(c.snapshot, c.batch)
    rng = np.random.default_rng(seed)
    codes = check(c, args, state, _node_lists(rng, c.snapshot.n_nodes, len(c.batch)))
    keys = PodTopologySpread.filter_key(state)
    for p in range(len(c.batch)):  # equal filter keys, equal verdicts
        for q in range(p):
            if keys[p] == keys[q]:
                assert codes[p].tolist() == codes[q].tolist()


@pytest.mark.parametrize("seed", range(40))
def test_score_groups_score_alike_on_any_list(seed):
    """``score_groups``: a pod of a group scores the same on every node whatever its list
    (the driver shares one row), and a constant row normalizes to one value."""
    c, args = _cluster(seed)
    state = PodTopologySpread(args).prepare(c.snapshot, c.batch)
    groups = PodTopologySpread.score_groups(state)
    lists = _node_lists(np.random.default_rng(seed), c.snapshot.n_nodes, len(c.batch))
    raw, norm = score_lists(kernels, state, lists, True)
    full, _ = score_lists(kernels, state, [list(range(c.snapshot.n_nodes))] * len(c.batch), True)
    for p in np.flatnonzero(groups >= 0).tolist():
        assert raw[p] == [full[p][n] for n in lists[p]]
        assert len(set(full[p])) == 1 and len(set(norm[p])) == 1
        assert full[p] == full[int(np.flatnonzero(groups == groups[p])[0])]


@pytest.mark.parametrize("seed", range(10))
def test_kernels_equal_reference_on_larger_clusters(seed, counter_layout):
    """Up to 60 nodes, 750 existing pods and 35 pending pods."""
    c, args = _cluster(5000 + seed, scale=5)
    state = PodTopologySpread(args).prepare(c.snapshot, c.batch)
    check(
        c, args, state, _node_lists(np.random.default_rng(seed), c.snapshot.n_nodes, len(c.batch))
    )


@pytest.mark.parametrize("seed", range(100))
def test_assume_equals_a_fresh_state(seed, counter_layout):
    """Bind pending pods one by one with ``assume``; after each, every pod's filter codes
    and scores equal those of a state prepared on the cluster with the pods bound (the
    bound copies added as existing pods, the batch unchanged). Then ``remove`` them, last
    first: the same, down to the cluster as it was."""
    nodes, existing, pending, (services, controllers, args) = random_cluster(seed)
    c = build_cluster(nodes, [*existing, *pending], services, controllers)
    plugin = PodTopologySpread(args)
    state = plugin.own_state(plugin.prepare(c.snapshot, c.batch))
    rng = np.random.default_rng(1000 + seed)
    bound = []
    for _ in range(3):
        p, n = int(rng.integers(0, len(pending))), int(rng.integers(0, c.snapshot.n_nodes))
        kernels.assume(state, p, n)
        copy = msgspec.structs.replace(pending[p], name=f"{pending[p].name}-bound{len(bound)}",
                                       node_name=c.snapshot.node_names[n])  # fmt: skip
        bound.append(copy)
        fresh = build_cluster(nodes, [*existing, *bound, *pending], services, controllers)
        lists = _node_lists(rng, c.snapshot.n_nodes, len(pending))
        codes = check(fresh, args, state, lists)
        fresh_state = plugin.prepare(fresh.snapshot, fresh.batch)
        assert filter_codes(kernels, fresh_state, len(pending), c.snapshot.n_nodes).tolist() == (
            codes.tolist()
        )
    for k in reversed(range(len(bound))):
        kernels.remove(state, pending.index(_unbound(bound[k], pending)),
                       c.snapshot.node_index[bound[k].node_name])  # fmt: skip
        fresh = build_cluster(nodes, [*existing, *bound[:k], *pending], services, controllers)
        check(fresh, args, state, _node_lists(rng, c.snapshot.n_nodes, len(pending)))


def _unbound(copy, pending):
    """The pending pod whose bound copy ``copy`` is."""
    return next(p for p in pending if copy.name.startswith(f"{p.name}-bound"))


def test_own_state_gives_each_caller_its_own_counters():
    """A state another caller assumed into (its own) leaves a new prepare untouched."""
    c, args = _cluster(6)
    plugin = PodTopologySpread(args)
    first = plugin.own_state(plugin.prepare(c.snapshot, c.batch))
    before = filter_codes(kernels, plugin.prepare(c.snapshot, c.batch), len(c.batch),
                          c.snapshot.n_nodes)  # fmt: skip
    for p in range(len(c.batch)):
        for _ in range(5):
            kernels.assume(first, p, 0)
    again = plugin.prepare(c.snapshot, c.batch)
    total = lambda st: st[1][1].sum() + st[2][9].sum() + st[6][1].sum()  # noqa: E731
    assert total(first) > total(again)  # the assumed pods were counted in ``first`` only
    assert filter_codes(kernels, again, len(c.batch), c.snapshot.n_nodes).tolist() == (
        before.tolist()
    )


def test_one_compiled_signature():
    """Every state has the same numba types: one compiled signature per kernel."""
    for seed in range(5):
        c, args = _cluster(seed)
        check(c, args, PodTopologySpread(args).prepare(c.snapshot, c.batch),
              [[0]] * len(c.batch))  # fmt: skip
    for fn in (kernels.filter_node, kernels.score_pod, kernels.normalize_pod):
        assert len(fn.signatures) <= 1, fn


def test_empty_state_types_match():
    plugin = PodTopologySpread()
    c, _ = _cluster(0)
    empty, full = plugin.empty_state(), plugin.prepare(c.snapshot, c.batch)

    def types(x):
        if isinstance(x, tuple):
            return tuple(types(y) for y in x)
        return (x.dtype, x.ndim)

    assert types(empty) == types(full)
