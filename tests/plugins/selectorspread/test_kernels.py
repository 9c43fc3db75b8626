"""SelectorSpread kernels == the scalar reference port, on seeded random clusters."""

from __future__ import annotations

import numpy as np
import pytest

from kscore_fast import _jit
from kscore_fast.api import load_cluster
from kscore_fast.framework.interface import Chunk
from kscore_fast.plugins.selectorspread import SelectorSpread, reference

from ...builders import full_chunk, run_plugin
from ...scenarios import scenario


@pytest.fixture(params=["serial", "parallel"])
def path(request, monkeypatch):
    """The compiled shape, with the shared group counts computed serially or in parallel."""
    if request.param == "parallel":
        monkeypatch.setattr(_jit, "PARALLEL_MIN_WORK", 0)
    return request.param


def _windows(n, k, nominated, start):
    """The node lists of consecutive cycles without filter plugins (findNodesThatPassFilters'
    ``!HasFilterPlugins()`` branch; a nominated node alone, then the start is 0)."""
    lists = []
    for nom in nominated.tolist():
        if nom >= 0:
            lists.append([nom])
            start = 0
        else:
            lists.append([(start + j) % n for j in range(k)])
            start = (start + k) % n
    ptr = np.cumsum([0, *map(len, lists)]).astype(np.int64)
    return ptr, np.array([x for row in lists for x in row], dtype=np.int32)


def _check(c, chunk, path):
    raw, norm = run_plugin(SelectorSpread(), c, chunk)
    for i, p in enumerate(chunk.pods):
        lo, hi = chunk.ptr[i], chunk.ptr[i + 1]
        nodes = chunk.nodes[lo:hi].tolist()
        ref_raw, ref_norm = reference.score_pod(c.snapshot, c.batch.pods[p], nodes)
        assert raw[lo:hi].tolist() == ref_raw, f"raw, pod {c.batch.pods[p].key}"
        assert norm[lo:hi].tolist() == ref_norm, f"normalized, pod {c.batch.pods[p].key}"


@pytest.mark.parametrize("seed", range(300))
def test_kernels_equal_reference_on_all_nodes(seed, path):
    c = load_cluster(objects=scenario(seed))
    if c.snapshot.n_nodes == 0:
        pytest.skip("no nodes")
    _check(c, full_chunk(c), path)


@pytest.mark.parametrize("seed", range(40))
def test_kernels_equal_reference_on_rotating_windows(seed, path):
    """Normalization runs over each pod's own node subset (numFeasibleNodesToFind)."""
    c = load_cluster(objects=scenario(seed, max_nodes=260, max_pods=600, max_pending=8))
    n = c.snapshot.n_nodes
    if n == 0:
        pytest.skip("no nodes")
    rng = np.random.default_rng(seed)
    k = int(rng.integers(1, n + 1))
    pods = np.arange(len(c.batch), dtype=np.int64)
    ptr, nodes = _windows(n, k, c.batch.nominated, int(rng.integers(0, n)))
    _check(c, Chunk(pods, ptr, nodes), path)


def _lists(rng, n, n_pods):
    """Node lists of every kind ``score_normalize_pod`` tells apart: every node in order,
    runs of consecutive nodes (whole, partial, wrapping), shuffled and gapped lists, a
    lone node."""
    kinds = []
    for _ in range(n_pods):
        start, k = int(rng.integers(0, n)), int(rng.integers(1, n + 1))
        kind = int(rng.integers(0, 6))
        if kind == 0:
            kinds.append(list(range(n)))
        elif kind == 1:
            kinds.append([(start + j) % n for j in range(n)])
        elif kind == 2:
            kinds.append([(start + j) % n for j in range(k)])
        elif kind == 3:
            kinds.append(rng.permutation(n)[:k].tolist())
        elif kind == 4:  # a run with one node left out
            run = [(start + j) % n for j in range(n)]
            kinds.append(run[:k] + run[k + 1 :] if n > 1 else run)
        else:
            kinds.append([start])
    return kinds


@pytest.mark.parametrize("hot", [True, False])
@pytest.mark.parametrize("seed", range(60))
def test_score_normalize_kernel_equals_reference(seed, hot, monkeypatch):
    """``score_normalize_pod`` (one call: raw and normalized) == the reference where it
    scores: every pod counted per pod (not ``hot``: no group counted once for several
    pods) on a list that is a run of consecutive nodes, and no other."""
    from kscore_fast.plugins.selectorspread import kernels, plugin

    if not hot:
        monkeypatch.setattr(plugin, "HOT_ENTRIES", 0)

    from ..harness import score_normalize_lists

    c = load_cluster(objects=scenario(seed, max_nodes=120, max_pods=400, max_pending=12))
    n = c.snapshot.n_nodes
    if n == 0:
        pytest.skip("no nodes")
    rng = np.random.default_rng(seed)
    pods = [int(p) for p in rng.integers(0, len(c.batch), 3 * len(c.batch))]
    lists = _lists(rng, n, len(pods))
    state = SelectorSpread().prepare(c.snapshot, c.batch)
    raw, norm, done = score_normalize_lists(kernels, state, lists, pods)
    group, skip, hot_row = state[0], state[1], state[9]
    for i, p in enumerate(pods):
        run = all(x == (lists[i][0] + j) % n for j, x in enumerate(lists[i]))
        counted = not skip[p] and group[p] >= 0 and hot_row[group[p]] < 0
        assert done[i] == (run and counted), f"pod {c.batch.pods[p].key}, list {i}"
        if not done[i]:
            assert raw[i] == norm[i] == [-7] * len(lists[i])  # (left alone)
            continue
        ref_raw, ref_norm = reference.score_pod(c.snapshot, c.batch.pods[p], lists[i])
        assert raw[i] == ref_raw, f"raw, pod {c.batch.pods[p].key}, list {i}"
        assert norm[i] == ref_norm, f"normalized, pod {c.batch.pods[p].key}, list {i}"


@pytest.mark.parametrize("variant", ["serial", "parallel"])
@pytest.mark.parametrize("seed", range(20))
def test_normalize_kernel_equals_reference_on_wide_counts(seed, variant):
    """Large counts reach float rounding edges such as 100 * (29/100) = 28.999999999999996."""
    from kscore_fast.plugins.selectorspread import kernels

    rng = np.random.default_rng(seed)
    n_nodes, n_zones, n_pods = 300, int(rng.integers(0, 6)), 8
    node_zone = (
        rng.integers(-1, n_zones, n_nodes).astype(np.int32)
        if n_zones
        else np.full(n_nodes, -1, np.int32)
    )
    hi = int(rng.choice([3, 100, 1000, 1 << 20]))
    lengths = rng.integers(2, n_nodes, n_pods)
    ptr = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    nodes = np.concatenate([rng.permutation(n_nodes)[:k] for k in lengths]).astype(np.int32)
    raw = rng.integers(0, hi + 1, ptr[-1]).astype(np.int64)
    skip = np.zeros(n_pods, dtype=np.bool_)
    got = raw.copy()
    getattr(kernels.normalize, variant)(ptr, nodes, node_zone, n_zones, skip, got)
    keys = [f"z{z}" if z >= 0 else "" for z in range(-1, n_zones)]
    for i in range(n_pods):
        sl = slice(ptr[i], ptr[i + 1])
        zones = [keys[z + 1] for z in node_zone[nodes[sl]]]
        assert got[sl].tolist() == reference.normalize_score(raw[sl].tolist(), zones)


def test_normalize_truncation_edge():
    """maxNode 100, count 71: Go computes 100 * (29/100) = 28.999999999999996 → 28."""
    assert reference.normalize_score([100, 71], ["", ""]) == [0, 28]


@pytest.mark.parametrize("seed", range(4))
def test_every_kept_mode_uses_the_fused_entry_alike(seed, monkeypatch):
    """A batch whose pods each have their own selector is scored through
    ``score_normalize_pod`` whatever the result keeps (with ``scores="none"`` the raw
    scores go apart from the normalized ones): hosts, and the totals of the kept nodes,
    equal in every mode."""
    from benchmarks.shapes import go_shape
    from kscore_fast.plugins.selectorspread import plugin
    from kscore_fast.profile import build_framework

    monkeypatch.setattr(plugin, "HOT_ENTRIES", 0)  # (every group counted per pod)
    c = go_shape(40 + seed, 400, 60, distinct_selectors=True, groups=7 + seed)
    fw = build_framework("SelectorSpread=2,NodeResourcesBalancedAllocation",
                         percentage_of_nodes_to_score=100)  # fmt: skip

    def run(scores):
        c.batch.cache.clear()
        return fw.run(c.snapshot, c.batch, seed=seed, scores=scores).to_dict()

    results = {m: run(m) for m in ("all", "top:2", "none")}
    hosts = {m: [p["host"] for p in r["results"]] for m, r in results.items()}
    assert hosts["all"] == hosts["top:2"] == hosts["none"]
    assert None not in hosts["all"]
    for full, top in zip(results["all"]["results"], results["top:2"]["results"], strict=True):
        totals = {n["node"]: n["total"] for n in full["scores"]}
        assert len(top["scores"]) == 2
        assert all(totals[n["node"]] == n["total"] for n in top["scores"])
