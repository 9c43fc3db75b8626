"""Copies: pods that every score plugin of the profile scores and normalizes alike on equal
node lists (``framework.sharing.copy_classes``: twins, and for SelectorSpread pods with one
default selector whatever their other labels) are scored once per list; with
``scores="none"`` a copy's host is picked from its source's totals
(``selection.select_copies``). Every result must equal scoring each pod on its own."""

from __future__ import annotations

import copy
import random

import numpy as np
import pytest

from kscore_fast.api import load_cluster, score
from kscore_fast.framework import runtime, sharing
from kscore_fast.framework.interface import Chunk
from kscore_fast.framework.selection import select_copies, select_hosts
from kscore_fast.plugins.noderesources import NodeResourcesBalancedAllocation
from kscore_fast.plugins.selectorspread import SelectorSpread

from ..scenarios import scenario


def _many_pending(seed: int) -> list[dict]:
    """A random cluster whose pending pods come in a few label sets, each pod with a label
    of its own besides (so they are not twins): SelectorSpread's selectors see the sets."""
    objs = scenario(seed, max_nodes=40, max_pods=60, max_pending=4)
    pending = [o for o in objs if o["kind"] == "Pod" and "nodeName" not in o["spec"]]
    rng = random.Random(seed)
    for i in range(120):
        pod = copy.deepcopy(rng.choice(pending))
        pod["metadata"]["name"] = f"many-{i}"
        pod["metadata"].setdefault("labels", {})["kscore-test/id"] = str(i)
        pod["status"].pop("nominatedNodeName", None)
        objs.append(pod)
    return objs


def _no_copies(monkeypatch: pytest.MonkeyPatch) -> None:
    """Score as before copies: twins only."""
    monkeypatch.setattr(sharing, "copy_classes", lambda plugins, states, twins, spec=None: twins)


PROFILES = ["SelectorSpread", "SelectorSpread=2,NodeResourcesBalancedAllocation",
            "SelectorSpread,PodTopologySpread"]  # fmt: skip


@pytest.mark.parametrize("scores", ["none", "top:3", "all"])
@pytest.mark.parametrize("pct", [100, 30])
@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("seed", range(6))
def test_copies_score_like_every_pod_alone(seed, profile, pct, scores, monkeypatch):
    cluster = load_cluster(objects=_many_pending(seed))
    kwargs = {"plugins": profile, "seed": seed, "scores": scores,
              "percentage_of_nodes_to_score": pct}  # fmt: skip
    shared = score(cluster, **kwargs).to_dict()
    with monkeypatch.context() as m:
        _no_copies(m)
        alone = score(load_cluster(objects=_many_pending(seed)), **kwargs).to_dict()
    assert shared == alone


def test_selector_spread_shares_pods_that_are_not_twins():
    """The scenario does exercise copies: far fewer classes than twins."""
    cluster = load_cluster(objects=_many_pending(3))
    from kscore_fast.model.snapshot import pod_twins
    from kscore_fast.plugins.selectorspread.plugin import driver_state

    twins = pod_twins(cluster.batch)
    state = driver_state(cluster.snapshot, cluster.batch)
    classes = sharing.copy_classes([SelectorSpread()], [state], twins)
    assert len(np.unique(classes)) < len(np.unique(twins)) // 4
    # pods of one class are pods of one twin group or share a selector group
    group = state[0]
    for c in np.unique(classes).tolist():
        members = classes == c
        assert len(set(group[members].tolist())) == 1


def test_a_plugin_without_copy_groups_keeps_twins_apart():
    twins = np.array([0, 1, 0, 2], dtype=np.int64)
    plugin = NodeResourcesBalancedAllocation()
    assert sharing.copy_classes([plugin], [None], twins) is twins


@pytest.mark.parametrize("seed", range(20))
def test_select_copies_equals_scanning_each_list(seed):
    rng = np.random.default_rng(seed)
    n_pods, n = 30, int(rng.integers(1, 50))
    ptr = np.arange(n_pods + 1, dtype=np.int64) * n
    base = rng.permutation(200)[:n].astype(np.int32)
    nodes = np.tile(base, n_pods)
    total = rng.integers(0, 4, size=n_pods * n).astype(np.int64)
    source = np.full(n_pods, -1, dtype=np.int64)
    for i in range(1, n_pods):
        if rng.random() < 0.7:
            j = int(rng.integers(0, i))
            while source[j] >= 0:
                j = int(source[j])
            source[i] = j
            total[ptr[i] : ptr[i + 1]] = total[ptr[j] : ptr[j + 1]]
    per_pod = total.reshape(n_pods, n)
    best = per_pod.max(axis=1)
    count = (per_pod == best[:, None]).sum(axis=1)
    streams = rng.permutation(1000)[:n_pods].astype(np.int64)
    want = np.empty(n_pods, dtype=np.int32)
    select_hosts.serial(ptr, nodes, total, 1, best, count, np.uint64(seed), streams, want)
    unwritten = total.copy()  # a copy's entries hold nothing when scores are not kept
    unwritten[np.repeat(source >= 0, n)] = -7
    for kernel in (select_copies.serial, select_copies.parallel):
        got = np.where(source < 0, want, -1).astype(np.int32)  # (the others' hosts are in)
        kernel(ptr, nodes, unwritten, best, count, np.uint64(seed), streams, source, got)
        assert (got == want).all()


def test_copy_totals_fills_the_copies_entries():
    ptr = np.array([0, 3, 6, 9], dtype=np.int64)
    chunk = Chunk(np.arange(3, dtype=np.int64), ptr, np.tile(np.arange(3, dtype=np.int32), 3))
    total = np.array([5, 6, 7, -1, -1, -1, 1, 2, 3], dtype=np.int64)
    runtime._copy_totals(chunk, total, np.array([-1, 0, -1], dtype=np.int64))
    assert total.tolist() == [5, 6, 7, 5, 6, 7, 1, 2, 3]
