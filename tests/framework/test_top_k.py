"""``--scores top:K``: the host first, then the best others; any K; bad K."""

from __future__ import annotations

import numpy as np
import pytest

from kscore_fast.errors import ConfigError
from kscore_fast.framework.kernels import top_k
from kscore_fast.framework.result import parse_scores_mode
from kscore_fast.profile import build_framework

from ..builders import cluster, node, pod, service


def _reference(totals: list[int], nodes: list[int], host: int, k: int) -> list[int]:
    """Entry indices: the host's, then the others by total descending (stable), cut to k."""
    first = [e for e, n in enumerate(nodes) if n == host][:1]
    others = sorted((e for e in range(len(nodes)) if e not in first), key=lambda e: -totals[e])
    return (first + others)[:k]


@pytest.mark.parametrize("variant", ["serial", "parallel"])
def test_kernel_equals_reference(variant):
    rng = np.random.default_rng(0)
    for _ in range(300):
        n_pods = int(rng.integers(1, 6))
        lengths = rng.integers(0, 40, n_pods)
        ptr = np.zeros(n_pods + 1, np.int64)
        np.cumsum(lengths, out=ptr[1:])
        total = rng.integers(0, 4, int(ptr[-1])).astype(np.int64)  # many ties
        nodes = np.concatenate([rng.permutation(60)[:n] for n in lengths]).astype(np.int32)
        hosts = np.full(n_pods, -1, np.int32)
        for i in range(n_pods):  # a random node among the top totals, as select_hosts picks
            seg = total[ptr[i] : ptr[i + 1]]
            if len(seg) and rng.random() < 0.9:
                ties = np.flatnonzero(seg == seg.max())
                hosts[i] = nodes[ptr[i] + rng.choice(ties)]
        k = int(rng.choice([1, 2, 3, 5, 40]))  # both the scan (8k < n) and the sort path
        order = np.empty(len(total), np.int64)
        out_len = np.empty(n_pods, np.int64)
        n = getattr(top_k, variant)(ptr, nodes, total, hosts, k, order, out_len)
        got = np.split(order[:n], np.cumsum(out_len)[:-1])
        for i in range(n_pods):
            lo, hi = ptr[i], ptr[i + 1]
            want = _reference(total[lo:hi].tolist(), nodes[lo:hi].tolist(), int(hosts[i]), k)
            assert (got[i] - lo).tolist() == want


def _spread(n_nodes: int, n_pending: int):
    nodes = [node(f"n{i}", {"topology.kubernetes.io/zone": f"z{i % 3}"}) for i in range(n_nodes)]
    pods = [pod(f"e{i}", ns="default", labels={"app": "a"}, node=f"n{i % 4}") for i in range(6)]
    pods += [pod(f"p{i}", ns="default", labels={"app": "a"}) for i in range(n_pending)]
    return cluster(nodes, pods, [service({"app": "a"})])


@pytest.mark.parametrize("plugins", ["SelectorSpread", "SelectorSpread=2", ""])
def test_host_heads_every_list(plugins):
    c = _spread(30, 25)
    fw = build_framework(plugins)
    for seed in range(5):
        full = fw.run(c.snapshot, c.batch, seed=seed).to_dict()["results"]
        for k in (1, 3):
            top = fw.run(c.snapshot, c.batch, seed=seed, scores=f"top:{k}").to_dict()["results"]
            for f, t in zip(full, top, strict=True):
                assert t["host"] == f["host"] and t["scores"][0]["node"] == f["host"]
                idx = _reference(
                    [s["total"] for s in f["scores"]],
                    [s["node"] for s in f["scores"]],
                    f["host"],
                    k,
                )
                assert t["scores"] == [f["scores"][e] for e in idx]


def test_huge_k_is_clamped_to_the_nodes():
    c = _spread(7, 3)
    fw = build_framework("SelectorSpread")
    full = fw.run(c.snapshot, c.batch).to_dict()["results"]
    big = fw.run(c.snapshot, c.batch, scores="top:99999999999999999999").to_dict()["results"]
    for f, b in zip(full, big, strict=True):
        assert len(b["scores"]) == 7 and b["scores"][0]["node"] == f["host"]
        assert sorted(map(str, b["scores"])) == sorted(map(str, f["scores"]))


@pytest.mark.parametrize("mode", ["top:" + "9" * 5000, "top:0", "top:", "top:-1", "top:1.5", "x"])
def test_bad_scores_mode_is_config_error(mode):
    with pytest.raises(ConfigError) as exc:
        parse_scores_mode(mode)
    assert len(str(exc.value)) < 200  # never echoes thousands of digits


def test_scores_mode_values():
    assert parse_scores_mode("all") is None
    assert parse_scores_mode("none") == 0
    assert parse_scores_mode("top:12") == 12
