"""Invariants of scoring, checked with hypothesis over random clusters."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kscore_fast.api import load_cluster, score

from .scenarios import scenario

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _by_pod_node(result):
    return {
        (r["pod"], s["node"]): (s["total"], s["plugins"])
        for r in result.to_dict()["results"]
        for s in r["scores"]
    }


@SETTINGS
@given(st.integers(0, 10**6), st.integers(0, 2**32))
def test_scores_in_range_and_host_among_top(seed, tie_seed):
    c = load_cluster(objects=scenario(seed))
    for r in score(c, seed=tie_seed).to_dict()["results"]:
        if r["error"]:
            assert r["host"] is None
            continue
        for s in r["scores"]:
            assert 0 <= s["plugins"]["SelectorSpread"]["normalized"] <= 100
        if r["scores"]:
            top = max(s["total"] for s in r["scores"])
            assert r["host"] in {s["node"] for s in r["scores"] if s["total"] == top}


@SETTINGS
@given(st.integers(0, 10**6), st.integers(0, 1000))
def test_node_input_order_does_not_change_scores(seed, perm_seed):
    """With every node scored, a node's score does not depend on the nodes' order."""
    objs = scenario(seed)
    nodes = [o for o in objs if o["kind"] == "Node"]
    random.Random(perm_seed).shuffle(nodes)
    permuted = nodes + [o for o in objs if o["kind"] != "Node"]
    a = score(load_cluster(objects=objs), percentage_of_nodes_to_score=100)
    b = score(load_cluster(objects=permuted), percentage_of_nodes_to_score=100)
    # a single feasible node is not scored, so compare only scored pods
    assert _by_pod_node(a) == _by_pod_node(b)


@SETTINGS
@given(st.integers(0, 10**6))
def test_irrelevant_labels_change_nothing(seed):
    objs = scenario(seed)
    noisy = []
    for o in objs:
        o = {**o, "metadata": {**o["metadata"]}}
        o["metadata"]["labels"] = {
            **(o["metadata"].get("labels") or {}),
            "noise.example.com/id": o["metadata"]["name"],
        }
        noisy.append(o)
    a = score(load_cluster(objects=objs), seed=1).to_dict()
    b = score(load_cluster(objects=noisy), seed=1).to_dict()
    assert a == b


@SETTINGS
@given(st.integers(0, 10**6), st.integers(0, 2**63))
def test_same_seed_same_result(seed, tie_seed):
    c = load_cluster(objects=scenario(seed))
    assert score(c, seed=tie_seed).to_dict() == score(c, seed=tie_seed).to_dict()
