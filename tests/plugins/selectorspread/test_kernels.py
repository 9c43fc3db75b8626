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
