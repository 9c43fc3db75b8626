"""NodeResourcesFit and NodeResourcesBalancedAllocation kernels == the scalar reference
ports, on seeded random clusters, before and after random ``assume`` sequences.

The clusters are rich in what the plugins read: cpu, memory, ephemeral-storage and pods
present or missing, zero, fractional, negative and huge (int64 wrap-around) quantities,
extended, hugepages, ``kubernetes.io/`` and attachable-volumes resources, names that are
not scalar resources, init containers, overhead, deleting bound pods, nodes without
allocatable, and random args (every strategy, duplicate and unknown resource names,
ignored resources and groups, random shapes).
"""

from __future__ import annotations

import numpy as np
import pytest

from kscore_fast.model.objects import ContainerRecord, NodeRecord, PodRecord
from kscore_fast.model.quantity import parse_quantity
from kscore_fast.model.snapshot import build_cluster
from kscore_fast.plugins.noderesources import (
    NodeResourcesBalancedAllocation,
    NodeResourcesFit,
    balanced_kernels,
    balanced_reference,
    fit_kernels,
    fit_reference,
)
from kscore_fast.plugins.noderesources.resources_reference import new_node_info

from ..harness import filter_codes, score_lists

NAMES = ("cpu", "memory", "ephemeral-storage", "pods", "example.com/gpu", "example.com/fpga",
         "other.io/card", "hugepages-2Mi", "kubernetes.io/batch", "attachable-volumes-csi",
         "foo", "requests.example.com/x")  # fmt: skip
SMALL = ("0", "1", "2", "3", "5", "10", "100m", "250m", "1500m", "0.5", "1e3", "64Mi", "1Gi",
         "200Mi", "4k")  # fmt: skip
HUGE = ("9e18", "9223372036854775807", "-1", "-500m", "8Ei", "100000000000000000000",
        "-9e18", "4611686018427387904")  # fmt: skip
STRATEGIES = ("LeastAllocated", "MostAllocated", "RequestedToCapacityRatio")
#: realistic amounts (odd seeds): nodes mostly fit pods, scores spread over 0..100
NODE_SIZES = {"cpu": ("2", "4", "8", "3500m"), "memory": ("4Gi", "8Gi", "16Gi", "7.5Gi"),
              "ephemeral-storage": ("50Gi", "100Gi"), "pods": ("4", "8", "110"),
              "example.com/gpu": ("0", "2", "4"), "hugepages-2Mi": ("1Gi", "2Gi")}  # fmt: skip
POD_SIZES = {"cpu": ("0", "100m", "250m", "500m", "1", "1500m"),
             "memory": ("0", "64Mi", "128Mi", "500M", "1Gi", "2Gi"),
             "ephemeral-storage": ("1Gi", "5Gi"), "example.com/gpu": ("1", "2"),
             "hugepages-2Mi": ("2Mi", "512Mi")}  # fmt: skip


def _q(rng, mode, name, sizes):
    if mode == 1 and name in sizes:
        pool = sizes[name]
    else:
        pool = HUGE if mode == 2 and rng.random() < 0.15 else SMALL
    return parse_quantity(pool[int(rng.integers(len(pool)))])


#: realistic odds of each resource being listed (a node, a container)
NODE_ODDS = {"cpu": 0.95, "memory": 0.95, "pods": 0.95, "ephemeral-storage": 0.5,
             "example.com/gpu": 0.4, "hugepages-2Mi": 0.3}  # fmt: skip
POD_ODDS = {"cpu": 0.8, "memory": 0.8, "ephemeral-storage": 0.15, "example.com/gpu": 0.1,
            "hugepages-2Mi": 0.05}  # fmt: skip


def _rl(rng, k, mode, sizes=POD_SIZES):
    if mode == 1 and rng.random() < 0.9:
        odds = NODE_ODDS if sizes is NODE_SIZES else POD_ODDS
        return {n: _q(rng, mode, n, sizes) for n, o in odds.items() if rng.random() < o}
    picked = rng.choice(len(NAMES), size=min(k, len(NAMES)), replace=False)
    return {NAMES[i]: _q(rng, mode, NAMES[i], sizes) for i in picked}


def _pod(rng, name, mode, node=""):
    containers = tuple(ContainerRecord(requests=_rl(rng, int(rng.integers(0, 5)), mode))
                       for _ in range(int(rng.integers(0, 4))))  # fmt: skip
    init = tuple(ContainerRecord(requests=_rl(rng, int(rng.integers(0, 4)), mode))
                 for _ in range(int(rng.integers(0, 3))))  # fmt: skip
    overhead = _rl(rng, int(rng.integers(0, 3)), mode) if rng.random() < 0.3 else {}
    return PodRecord("ns", name, node_name=node, containers=containers, init_containers=init,
                     overhead=overhead, deleting=bool(node) and rng.random() < 0.1)  # fmt: skip


def _node(rng, name, mode):
    alloc = _rl(rng, int(rng.integers(0, len(NAMES) + 1)), mode, NODE_SIZES)
    if mode != 1 and "pods" in alloc and rng.random() < 0.8:
        alloc["pods"] = parse_quantity(str(int(rng.integers(0, 8))))
    return NodeRecord(name, allocatable=alloc)


def _cluster(seed):
    rng = np.random.default_rng(seed)
    mode = seed % 3  # 0: small amounts, 1: realistic, 2: with huge and negative ones
    nodes = [_node(rng, f"n{i}", mode) for i in range(int(rng.integers(0, 7)))]
    bound = [_pod(rng, f"b{i}", mode, nodes[int(rng.integers(len(nodes)))].name)
             for i in range(int(rng.integers(0, 25)) if nodes else 0)]  # fmt: skip
    pending = [_pod(rng, f"p{i}", mode) for i in range(int(rng.integers(1, 10)))]
    return rng, mode, build_cluster(nodes, bound + pending)


def _resource_names(rng, mode, k, replace):
    pool = list(POD_SIZES) if mode == 1 and rng.random() < 0.8 else NAMES
    return [pool[int(i)] for i in rng.choice(len(pool), size=min(k, len(pool)), replace=replace)]


def _fit_args(rng, mode):
    names = _resource_names(rng, mode, int(rng.integers(1, 5)), True)
    strategy = {
        "type": STRATEGIES[int(rng.integers(3))],
        "resources": [{"name": n, "weight": int(rng.integers(1, 101))} for n in names],
    }
    us = np.sort(rng.choice(101, size=int(rng.integers(1, 5)), replace=False))
    shape = [{"utilization": int(u), "score": int(rng.integers(0, 11))} for u in us]
    strategy["requestedToCapacityRatio"] = {"shape": shape}
    ignored = [n for n in NAMES[4:7] if rng.random() < 0.3]
    groups = ["example.com"] if rng.random() < 0.3 else []
    return {"scoringStrategy": strategy, "ignoredResources": ignored,
            "ignoredResourceGroups": groups}  # fmt: skip


def _balanced_args(rng, mode):
    names = _resource_names(rng, mode, int(rng.integers(1, 5)), False)
    return {"resources": [{"name": n, "weight": 1} for n in names]}


def _check(c, fit, fit_state, bal, bal_state, on_node):
    infos = [new_node_info(n, pods) for n, pods in zip(c.snapshot.nodes, on_node, strict=True)]
    n_nodes = c.snapshot.n_nodes
    codes = filter_codes(fit_kernels, fit_state, len(c.batch), n_nodes)
    lists = [list(range(n_nodes))] * len(c.batch)
    fit_raw, _ = score_lists(fit_kernels, fit_state, lists, False)
    bal_raw, _ = score_lists(balanced_kernels, bal_state, lists, False)
    scorer = fit_reference.new_scorer(fit.strategy, list(fit.weights.items()), fit.shape)
    specs = [(n, 1) for n in bal.resources]
    for p, pod in enumerate(c.batch.pods):
        want = fit_reference.filter_reasons(infos, pod, fit.ignored_resources, fit.ignored_groups)
        assert [fit.reasons(fit_state, int(x)) for x in codes[p]] == want, pod
        assert fit_raw[p] == fit_reference.score_nodes(infos, pod, lists[p], scorer), pod
        assert bal_raw[p] == balanced_reference.score_nodes(infos, pod, lists[p], specs), pod
    key = fit.filter_key(fit_state)
    for p in range(len(c.batch)):
        assert (codes[p] == codes[int(np.flatnonzero(key == key[p])[0])]).all()


@pytest.mark.parametrize("seed", range(400))
def test_kernels_equal_reference_before_and_after_assume(seed):
    rng, mode, c = _cluster(seed)
    fit = NodeResourcesFit(_fit_args(rng, mode))
    bal = NodeResourcesBalancedAllocation(_balanced_args(rng, mode))
    fit_state = fit.own_state(fit.prepare(c.snapshot, c.batch))  # (assume changes it)
    bal_state = bal.own_state(bal.prepare(c.snapshot, c.batch))
    on_node = [[] for _ in range(c.snapshot.n_nodes)]
    for pod, n in zip(c.snapshot.pods, c.snapshot.pod_node, strict=True):
        on_node[n].append(pod)
    _check(c, fit, fit_state, bal, bal_state, on_node)
    if not c.snapshot.n_nodes:
        return
    for step, p in enumerate(rng.permutation(len(c.batch))[: int(rng.integers(1, 6))]):
        n = int(rng.integers(c.snapshot.n_nodes))
        fit_kernels.assume(fit_state, int(p), n)
        balanced_kernels.assume(bal_state, int(p), n)
        on_node[n].append(c.batch.pods[p])
        if step % 2 == 0:
            _check(c, fit, fit_state, bal, bal_state, on_node)
    _check(c, fit, fit_state, bal, bal_state, on_node)


def test_own_state_hands_out_fresh_aggregates():
    """``assume`` on one owned state leaves the cached one (and the next) untouched."""
    _, _, c = _cluster(7)
    for plugin, kernels in ((NodeResourcesFit(), fit_kernels),
                            (NodeResourcesBalancedAllocation(), balanced_kernels)):  # fmt: skip
        first = plugin.own_state(plugin.prepare(c.snapshot, c.batch))
        kernels.assume(first, 0, 0)
        second = plugin.prepare(c.snapshot, c.batch)
        assert second[2][0] == first[2][0] - 1
        assert second[3] is first[3]
