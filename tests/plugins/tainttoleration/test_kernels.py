"""TaintToleration kernels == the scalar reference port, on seeded random clusters; the
normalization kernel on wide counts; reason texts; filter keys; the plugin's shape."""

from __future__ import annotations

import numpy as np
import pytest

from kscore_fast.model.objects import NodeRecord, PodRecord, Taint, Toleration
from kscore_fast.model.snapshot import build_cluster
from kscore_fast.plugins.tainttoleration import TaintToleration, kernels, reference

from ..harness import _normalize_lists, score_lists
from .support import check_records, check_shape, random_cluster, verdicts


@pytest.mark.parametrize("seed", range(300))
def test_filter_equals_reference(seed):
    c = random_cluster(seed)
    check_records(TaintToleration(), kernels, reference.filter, c.snapshot, c.batch)


@pytest.mark.parametrize("seed", range(300))
def test_score_equals_reference(seed):
    c = random_cluster(seed)
    rng = np.random.default_rng(seed + 10_000)
    n = c.snapshot.n_nodes
    lists = [rng.permutation(n)[: int(rng.integers(0, n + 1))].tolist() for _ in c.batch.pods]
    raw, norm = score_lists(kernels, TaintToleration().prepare(c.snapshot, c.batch), lists, True)
    for p, pod in enumerate(c.batch.pods):
        want = reference.score_pod(pod, [c.snapshot.nodes[i] for i in lists[p]])
        assert (raw[p], norm[p]) == want, pod.name


@pytest.mark.parametrize("seed", range(50))
def test_default_normalize_score_on_wide_counts(seed):
    rng = np.random.default_rng(seed)
    hi = int(rng.choice([1, 3, 7, 100, 1000, 1 << 40]))
    lists = [rng.integers(0, hi + 1, int(rng.integers(0, 40))).tolist() for _ in range(20)]
    ptr = np.concatenate([[0], np.cumsum([len(x) for x in lists])]).astype(np.int64)
    scores = np.array([s for x in lists for s in x], dtype=np.int64)
    nodes = np.zeros(len(scores), dtype=np.int32)
    pods = np.zeros(len(lists), dtype=np.int64)
    state = TaintToleration().empty_state()
    _normalize_lists(kernels.normalize_pod, state, pods, ptr, nodes, scores)
    got = [scores[ptr[i] : ptr[i + 1]].tolist() for i in range(len(lists))]
    assert got == [reference.normalize_score(x) for x in lists]


def test_reference_default_normalize_score_upstream_examples():
    # helper/normalize_score_test.go (TestDefaultNormalizeScore), the reverse cases and more
    f = reference.default_normalize_score
    assert f(100, False, [1, 2, 3, 4]) == [25, 50, 75, 100]
    assert f(100, True, [1, 2, 3, 4]) == [75, 50, 25, 0]
    assert f(100, False, [1000, 10, 20, 30]) == [100, 1, 2, 3]
    assert f(100, True, [1000, 10, 20, 30]) == [0, 99, 98, 97]
    assert f(100, False, [1, 1, 1, 1]) == [100] * 4
    assert f(100, True, [1, 1, 1, 1]) == [0] * 4
    assert f(100, False, [0, 0, 0, 0]) == [0] * 4
    assert f(100, True, [0, 0, 0, 0]) == [100] * 4
    assert f(100, False, [1000, 1, 1, 1]) == [100, 0, 0, 0]
    assert f(100, True, [0, 1, 1, 1]) == [100, 0, 0, 0]
    assert f(100, True, []) == []


def test_reason_text_uses_key_and_value_of_the_first_untolerated_taint():
    taints = (Taint("a", "1", "PreferNoSchedule"), Taint("b", "", "NoExecute"),
              Taint("c", "{x}: ü", "NoSchedule"))  # fmt: skip
    nodes = [NodeRecord("n0", taints=taints), NodeRecord("n1", taints=taints[2:])]
    pods = [PodRecord("", "p0"), PodRecord("", "p1", tolerations=(Toleration("b", "Exists"),))]
    c = build_cluster(nodes, pods)
    plugin = TaintToleration()
    _, texts = verdicts(plugin, kernels, plugin.prepare(c.snapshot, c.batch), 2, 2)
    b = ["node(s) had taint {b: }, that the pod didn't tolerate"]
    c_ = ["node(s) had taint {c: {x}: ü}, that the pod didn't tolerate"]
    i0, i1 = (c.snapshot.node_names.index(x) for x in ("n0", "n1"))
    assert [texts[0][i0], texts[0][i1], texts[1][i0], texts[1][i1]] == [b, c_, c_, c_]


def test_plugin_shape():
    plugin = TaintToleration()
    c = random_cluster(1)
    state = plugin.prepare(c.snapshot, c.batch)
    assert plugin.name == "TaintToleration"
    check_shape(plugin, state, (True, True, True))
    assert plugin.prepare(c.snapshot, c.batch)[0] is state[0]  # cached
