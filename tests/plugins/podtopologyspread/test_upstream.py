"""Upstream's table tests of PodTopologySpread, ported as data (``upstream.json``, written
from the Go tests themselves by ``make_upstream.py``), against the reference port and the kernels.

pkg/scheduler/framework/plugins/podtopologyspread/filtering_test.go ``TestPreFilterState``,
``TestSingleConstraint``, ``TestMultipleConstraints``; scoring_test.go
``TestPreScoreStateEmptyNodes``, ``TestPodTopologySpreadScore``.
"""

from __future__ import annotations

import struct

import pytest

from kscore_fast.plugins.podtopologyspread import PodTopologySpread, kernels
from kscore_fast.plugins.podtopologyspread.reference import PodTopologySpreadReference

from ..harness import filter_codes, score_lists
from .support import case_cluster, selector_string, upstream

LIST_ARGS = {"defaultingType": "List"}


def _ids(test):
    return [c["name"] for c in upstream(test)]


def _bits(f: float) -> int:
    return struct.unpack("<Q", struct.pack("<d", f))[0]


def _constraints(cs):
    return [[c.max_skew, c.topology_key, selector_string(c.selector)] for c in cs]


@pytest.mark.parametrize("case", upstream("TestPreFilterState"), ids=_ids("TestPreFilterState"))
def test_pre_filter_state(case):
    args = {"defaultingType": "List", "defaultConstraints": case["defaultConstraints"] or []}
    c = case_cluster(case)
    s = PodTopologySpreadReference(args).pre_filter(c.snapshot, c.batch.pods[0])
    want = case["want"]
    assert _constraints(s.constraints) == (want["constraints"] or [])
    assert sorted([k, v, n] for (k, v), n in s.pair_counts.items()) == want["pairs"]
    assert {k: p[0][1] for k, p in s.critical_paths.items()} == want["mins"]


FILTER_CASES = [(t, c) for t in ("TestSingleConstraint", "TestMultipleConstraints")
                for c in upstream(t)]  # fmt: skip


def reference_codes(c, args=None) -> dict[str, int]:
    """Go's framework code of every node (0: Success)."""
    ref = PodTopologySpreadReference(args or LIST_ARGS)
    out = ref.filter_pod(c.snapshot, c.batch.pods[0])
    return {n: 0 if r is None else r[0] for n, r in zip(c.snapshot.node_names, out, strict=True)}


def kernel_codes(c, args=None) -> dict[str, int]:
    """The same through the kernels (code 1: UnschedulableAndUnresolvable, 2: Unschedulable)."""
    state = PodTopologySpread(args or LIST_ARGS).prepare(c.snapshot, c.batch)
    codes = filter_codes(kernels, state, 1, c.snapshot.n_nodes)[0]
    go = {0: 0, kernels.FAIL_LABEL: 3, kernels.FAIL_SKEW: 2}
    return {n: go[int(x)] for n, x in zip(c.snapshot.node_names, codes, strict=True)}


@pytest.mark.parametrize(("test", "case"), FILTER_CASES,
                         ids=[f"{t}/{c['name']}" for t, c in FILTER_CASES])  # fmt: skip
def test_filter(test, case):
    c = case_cluster(case)
    assert reference_codes(c) == case["wantStatusCode"]
    assert kernel_codes(c) == case["wantStatusCode"]


@pytest.mark.parametrize("case", upstream("TestPreScoreStateEmptyNodes"),
                         ids=_ids("TestPreScoreStateEmptyNodes"))  # fmt: skip
def test_pre_score_state(case):
    c = case_cluster(case)
    args = {"defaultingType": case["config"]["defaultingType"],
            "defaultConstraints": case["config"]["defaultConstraints"] or []}  # fmt: skip
    pod = c.batch.pods[0]
    s = PodTopologySpreadReference(args).pre_score(c.snapshot, pod, range(c.snapshot.n_nodes))
    want = case["want"]
    assert _constraints(s.constraints) == (want.get("constraints") or [])
    assert sorted([k, v, n] for (k, v), n in s.pair_counts.items()) == want["pairs"]
    assert sorted(s.ignored_nodes) == (want.get("ignored") or [])
    assert [_bits(w) for w in s.weights] == (want.get("weightBits") or [])
    nodes = list(range(c.snapshot.n_nodes))
    state = PodTopologySpread(args).prepare(c.snapshot, c.batch)
    raw, norm = score_lists(kernels, state, [nodes], True)
    assert (raw[0], norm[0]) == PodTopologySpreadReference(args).score_pod(c.snapshot, pod, nodes)


def score_nodes(case) -> tuple:
    """The cluster (nodes and failed nodes) and the indices of the candidate nodes."""
    c = case_cluster(case, case["nodes"] + (case["failedNodes"] or []))
    index = {n: i for i, n in enumerate(c.snapshot.node_names)}
    return c, [index[n["name"]] for n in case["nodes"]]


@pytest.mark.parametrize("case", upstream("TestPodTopologySpreadScore"),
                         ids=_ids("TestPodTopologySpreadScore"))  # fmt: skip
def test_score(case):
    c, nodes = score_nodes(case)
    _, norm = PodTopologySpreadReference().score_pod(c.snapshot, c.batch.pods[0], nodes)
    assert [
        {"name": c.snapshot.node_names[n], "score": s} for n, s in zip(nodes, norm, strict=True)
    ] == [{"name": w["Name"], "score": w["Score"]} for w in case["want"]]
