"""Ported upstream tables (kube-scheduler v1.23.6,
pkg/scheduler/framework/plugins/interpodaffinity):

* filtering_test.go: ``TestRequiredAffinitySingleNode``, ``TestRequiredAffinityMultipleNodes``
  (PreFilter+Filter), ``TestPreFilterStateAddRemovePod`` (``AddPod``: here ``assume``),
  ``TestGetTPMapMatchingIncomingAffinityAntiAffinity`` (the incoming pod's counts);
* scoring_test.go: ``TestPreferredAffinity``,
  ``TestPreferredAffinityWithHardPodAffinitySymmetricWeight`` (PreScore, Score,
  NormalizeScore).

The cases are the Go tables themselves, dumped by the Go tests
(``upstream/make_upstream.sh``) into ``upstream/upstream.json``; test ids are the Go case
names. Each runs through the kernels and through the reference port. Left out: the four
cases whose label selectors do not parse (PreFilter/PreScore fail with a parse error in
Go; kscore_fast's loader refuses such pods before scoring), ``TestPreFilterDisabled`` and
``TestPreFilterStateClone`` (cycle-state plumbing with no counterpart here).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kscore_fast.model.objects import NamespaceRecord
from kscore_fast.plugins.interpodaffinity import kernels
from kscore_fast.plugins.interpodaffinity.plugin import UNRESOLVABLE_CODES
from kscore_fast.plugins.interpodaffinity.reference import PodInfo

from .build import (
    cluster,
    kernel_filter,
    kernel_scores,
    namespaces_of,
    node_of,
    plugin_for,
    pod_of,
    reference_filter,
    reference_for,
    reference_scores,
)

TABLES = json.loads((Path(__file__).parent / "upstream" / "upstream.json").read_text())
#: framework.Code values
UNSCHEDULABLE, UNRESOLVABLE = 2, 3
#: cases whose selectors do not parse (the loader refuses them)
UNPARSABLE = {
    "PodAffinity fails PreFilter with an invalid affinity label syntax",
    "PodAntiAffinity fails PreFilter with an invalid antiaffinity label syntax",
    "invalid Affinity fails PreScore",
    "invalid AntiAffinity fails PreScore",
}


def _cases(test: str) -> list:
    cases = [c for c in TABLES[test]["cases"] if c["name"] not in UNPARSABLE]
    return [pytest.param(c, id=c["name"]) for c in cases]


def _existing(objs: list | None) -> list:
    return [pod_of(o, f"existing-{i}") for i, o in enumerate(objs or ())]


def _expected(status: dict | None) -> str | None:
    if status is None:
        return None
    assert len(status["reasons"]) == 1
    return status["reasons"][0]


def _code_of(reason: str | None, plugin, state) -> int | None:
    for code in (kernels.FAIL_AFFINITY, kernels.FAIL_ANTI_AFFINITY,
                 kernels.FAIL_EXISTING_ANTI_AFFINITY):  # fmt: skip
        if plugin.reasons(state, code) == [reason]:
            return UNRESOLVABLE if code in UNRESOLVABLE_CODES else UNSCHEDULABLE
    return None


def _check_filter(c, nodes, want: list[dict | None], enabled: bool) -> None:
    plugin = plugin_for(enabled=enabled)
    state = plugin.prepare(c.snapshot, c.batch)
    index = {n: i for i, n in enumerate(c.snapshot.node_names)}
    expected = [_expected(w) for w in want]
    got_kernel = kernel_filter(c, plugin, state)[0]
    got_ref = reference_filter(c, reference_for(c, enabled=enabled))[0]
    assert [got_ref[index[n.name]] for n in nodes] == expected
    assert [got_kernel[index[n.name]] for n in nodes] == expected
    for w, reason in zip(want, expected, strict=True):
        if w is not None:
            assert _code_of(reason, plugin, state) == w["code"]


@pytest.mark.parametrize("case", _cases("TestRequiredAffinitySingleNode"))
def test_required_affinity_single_node(case):
    nodes = [node_of(case["node"])]
    ns = namespaces_of(TABLES["TestRequiredAffinitySingleNode"]["namespaces"])
    c = cluster(nodes, _existing(case["pods"]), [pod_of(case["pod"], "pending", pending=True)], ns)
    _check_filter(c, nodes, [case["wantStatus"]], not case["disableNSSelector"])


@pytest.mark.parametrize("case", _cases("TestRequiredAffinityMultipleNodes"))
def test_required_affinity_multiple_nodes(case):
    nodes = [node_of(n) for n in case["nodes"]]
    # SetupPluginWithInformers(..., feature.Features{}, ...): the namespace selector is off
    c = cluster(nodes, _existing(case["pods"]), [pod_of(case["pod"], "pending", pending=True)],
                [NamespaceRecord("NS1")])  # fmt: skip
    _check_filter(c, nodes, case["wantStatuses"], False)


def _counts(pairs: list) -> dict:
    return {(k, v): n for k, v, n in pairs}


@pytest.mark.parametrize("case", _cases("TestPreFilterStateAddRemovePod"))
def test_pre_filter_state_add_pod(case):
    """``AddPod`` of ``addedPod`` to the state of ``pendingPod`` gives the expected counts
    and the state PreFilter gives with every pod (reference); ``assume`` of the added pod
    then filters as ``prepare`` with it bound (kernels)."""
    nodes = [node_of(n) for n in case["nodes"]]
    existing = _existing(case["existingPods"])
    added = pod_of(case["addedPod"], "added")
    pending = pod_of(case["pendingPod"], "pending", pending=True)
    # the reference: AddPod on the state without the added pod
    c = cluster(nodes, existing, [pending])
    ref = reference_for(c, enabled=False)
    state = ref.pre_filter(pending)
    node = c.snapshot.node_names.index(added.node_name)
    state.update_with_pod(PodInfo.new(added), c.snapshot.nodes[node], 1)
    assert dict(state.affinity_counts) == _counts(case["expectedAffinity"])
    assert dict(state.anti_affinity_counts) == _counts(case["expectedAntiAffinity"])
    c_all = cluster(nodes, [*existing, added], [pending])
    all_state = reference_for(c_all, enabled=False).pre_filter(pending)
    for name in ("affinity_counts", "anti_affinity_counts", "existing_anti_affinity_counts"):
        assert getattr(state, name) == getattr(all_state, name), name
    # the kernels: assume the added pod (pending in this batch) on its node
    c_assume = cluster(nodes, existing, [pending, pod_of(case["addedPod"], "added", pending=True)])
    plugin = plugin_for(enabled=False)
    s = plugin.own_state(plugin.prepare(c_assume.snapshot, c_assume.batch))
    kernels.assume(s, 1, c_assume.snapshot.node_names.index(added.node_name))
    assert kernel_filter(c_assume, plugin, s)[0] == kernel_filter(c_all, plugin)[0]
    assert kernel_filter(c_all, plugin)[0] == reference_filter(
        c_all, reference_for(c_all, enabled=False))[0]  # fmt: skip


@pytest.mark.parametrize("case", _cases("TestGetTPMapMatchingIncomingAffinityAntiAffinity"))
def test_get_tp_map_matching_incoming_affinity_anti_affinity(case):
    nodes = [node_of(n) for n in case["nodes"]]
    pod = pod_of(case["pod"], "pending", pending=True)
    c = cluster(nodes, _existing(case["existingPods"]), [pod])
    ref = reference_for(c, enabled=True)
    affinity, anti = ref.get_incoming_affinity_anti_affinity_counts(PodInfo.new(pod))
    assert dict(affinity) == _counts(case["wantAffinityPodsMap"] or [])
    assert dict(anti) == _counts(case["wantAntiAffinityPodsMap"] or [])
    plugin = plugin_for(enabled=True)
    assert kernel_filter(c, plugin) == reference_filter(c, ref)


def _check_scores(case, test: str, hard_weight: int) -> None:
    nodes = [node_of(n) for n in case["nodes"]]
    ns = namespaces_of(TABLES[test]["namespaces"])
    c = cluster(nodes, _existing(case["pods"]), [pod_of(case["pod"], "pending", pending=True)], ns)
    enabled = not case["disableNSSelector"]
    index = {n: i for i, n in enumerate(c.snapshot.node_names)}
    lists = [[index[n.name] for n in nodes]]
    want = [(s["Name"], s["Score"]) for s in case["expectedList"]]
    _, ref_norm = reference_scores(c, reference_for(c, hard_weight, enabled), lists)
    assert list(zip([n.name for n in nodes], ref_norm[0], strict=True)) == want
    _, norm = kernel_scores(c, plugin_for(hard_weight, enabled), lists)
    assert list(zip([n.name for n in nodes], norm[0], strict=True)) == want


@pytest.mark.parametrize("case", _cases("TestPreferredAffinity"))
def test_preferred_affinity(case):
    _check_scores(case, "TestPreferredAffinity", 1)


@pytest.mark.parametrize("case", _cases("TestPreferredAffinityWithHardPodAffinitySymmetricWeight"))
def test_preferred_affinity_with_hard_pod_affinity_symmetric_weight(case):
    _check_scores(case, "TestPreferredAffinityWithHardPodAffinitySymmetricWeight",
                  case["hardPodAffinityWeight"])  # fmt: skip
