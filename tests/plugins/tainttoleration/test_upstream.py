"""Ported upstream tables: pkg/scheduler/framework/plugins/tainttoleration/taint_toleration_test.go
(v1.23.6): ``TestTaintTolerationScore`` and ``TestTaintTolerationFilter``. Test ids are the Go
case names. Each case runs through the kernels (tests/plugins/harness.py) and the reference.
"""

from __future__ import annotations

from kscore_fast.model.objects import NodeRecord, PodRecord, Taint, Toleration
from kscore_fast.model.snapshot import build_cluster
from kscore_fast.plugins.tainttoleration import TaintToleration, kernels, reference

from ..harness import score_lists
from .support import upstream, verdicts

MAX = 100
PNS, NS = "PreferNoSchedule", "NoSchedule"


def node_with_taints(name: str, taints: list[Taint]) -> NodeRecord:
    return NodeRecord(name, taints=tuple(taints))


def pod_with_tolerations(name: str, tolerations: list[Toleration]) -> PodRecord:
    return PodRecord("", name, tolerations=tuple(tolerations))


def T(key, value, effect):  # a v1.Taint literal
    return Taint(key=key, value=value, effect=effect)


def Tol(key, operator, value, effect=""):  # a v1.Toleration literal
    return Toleration(key=key, operator=operator, value=value, effect=effect)


# (name, pod, nodes, expected scores in node order)
SCORE_CASES = [
    ("node with taints tolerated by the pod, gets a higher score than those node with intolerable taints",
     pod_with_tolerations("pod1", [Tol("foo", "Equal", "bar", PNS)]),
     [node_with_taints("nodeA", [T("foo", "bar", PNS)]), node_with_taints("nodeB", [T("foo", "blah", PNS)])],
     [MAX, 0]),
    ("the nodes that all of their taints are tolerated by the pod, get the same score, no matter how many tolerable taints a node has",
     pod_with_tolerations("pod1", [Tol("cpu-type", "Equal", "arm64", PNS), Tol("disk-type", "Equal", "ssd", PNS)]),
     [node_with_taints("nodeA", []), node_with_taints("nodeB", [T("cpu-type", "arm64", PNS)]),
      node_with_taints("nodeC", [T("cpu-type", "arm64", PNS), T("disk-type", "ssd", PNS)])],
     [MAX, MAX, MAX]),
    ("the more intolerable taints a node has, the lower score it gets.",
     pod_with_tolerations("pod1", [Tol("foo", "Equal", "bar", PNS)]),
     [node_with_taints("nodeA", []), node_with_taints("nodeB", [T("cpu-type", "arm64", PNS)]),
      node_with_taints("nodeC", [T("cpu-type", "arm64", PNS), T("disk-type", "ssd", PNS)])],
     [MAX, 50, 0]),
    ("only taints and tolerations that have effect PreferNoSchedule are checked by taints-tolerations priority function",
     pod_with_tolerations("pod1", [Tol("cpu-type", "Equal", "arm64", NS), Tol("disk-type", "Equal", "ssd", NS)]),
     [node_with_taints("nodeA", []), node_with_taints("nodeB", [T("cpu-type", "arm64", NS)]),
      node_with_taints("nodeC", [T("cpu-type", "arm64", PNS), T("disk-type", "ssd", PNS)])],
     [MAX, MAX, 0]),
    ("Default behaviour No taints and tolerations, lands on node with no taints",
     pod_with_tolerations("pod1", []),
     [node_with_taints("nodeA", []), node_with_taints("nodeB", [T("cpu-type", "arm64", PNS)])],
     [MAX, 0]),
]  # fmt: skip


def _reason(key, value):
    return f"node(s) had taint {{{key}: {value}}}, that the pod didn't tolerate"


# (name, pod, node, expected reason or None)
FILTER_CASES = [
    ("A pod having no tolerations can't be scheduled onto a node with nonempty taints",
     pod_with_tolerations("pod1", []), node_with_taints("nodeA", [T("dedicated", "user1", "NoSchedule")]),
     _reason("dedicated", "user1")),
    ("A pod which can be scheduled on a dedicated node assigned to user1 with effect NoSchedule",
     pod_with_tolerations("pod1", [Tol("dedicated", "", "user1", "NoSchedule")]),
     node_with_taints("nodeA", [T("dedicated", "user1", "NoSchedule")]), None),
    ("A pod which can't be scheduled on a dedicated node assigned to user2 with effect NoSchedule",
     pod_with_tolerations("pod1", [Tol("dedicated", "Equal", "user2", "NoSchedule")]),
     node_with_taints("nodeA", [T("dedicated", "user1", "NoSchedule")]), _reason("dedicated", "user1")),
    ("A pod can be scheduled onto the node, with a toleration uses operator Exists that tolerates the taints on the node",
     pod_with_tolerations("pod1", [Tol("foo", "Exists", "", "NoSchedule")]),
     node_with_taints("nodeA", [T("foo", "bar", "NoSchedule")]), None),
    ("A pod has multiple tolerations, node has multiple taints, all the taints are tolerated, pod can be scheduled onto the node",
     pod_with_tolerations("pod1", [Tol("dedicated", "Equal", "user2", "NoSchedule"), Tol("foo", "Exists", "", "NoSchedule")]),
     node_with_taints("nodeA", [T("dedicated", "user2", "NoSchedule"), T("foo", "bar", "NoSchedule")]), None),
    ("A pod has a toleration that keys and values match the taint on the node, but (non-empty) effect doesn't match, "
     "can't be scheduled onto the node",
     pod_with_tolerations("pod1", [Tol("foo", "Equal", "bar", "PreferNoSchedule")]),
     node_with_taints("nodeA", [T("foo", "bar", "NoSchedule")]), _reason("foo", "bar")),
    ("The pod has a toleration that keys and values match the taint on the node, the effect of toleration is empty, "
     "and the effect of taint is NoSchedule. Pod can be scheduled onto the node",
     pod_with_tolerations("pod1", [Tol("foo", "Equal", "bar")]),
     node_with_taints("nodeA", [T("foo", "bar", "NoSchedule")]), None),
    ("The pod has a toleration that key and value don't match the taint on the node, "
     "but the effect of taint on node is PreferNoSchedule. Pod can be scheduled onto the node",
     pod_with_tolerations("pod1", [Tol("dedicated", "Equal", "user2", "NoSchedule")]),
     node_with_taints("nodeA", [T("dedicated", "user1", "PreferNoSchedule")]), None),
    ("The pod has no toleration, but the effect of taint on node is PreferNoSchedule. Pod can be scheduled onto the node",
     pod_with_tolerations("pod1", []), node_with_taints("nodeA", [T("dedicated", "user1", "PreferNoSchedule")]), None),
]  # fmt: skip


@upstream("pod, nodes, expected", SCORE_CASES)
def test_taint_toleration_score(pod, nodes, expected):
    c = build_cluster(nodes, [pod])
    # the table's node order, whatever the node tree does with nodes without zones
    order = [c.snapshot.node_names.index(n.name) for n in nodes]
    plugin = TaintToleration()
    _, norm = score_lists(kernels, plugin.prepare(c.snapshot, c.batch), [order], True)
    assert norm == [expected]
    assert reference.score_pod(pod, nodes)[1] == expected


@upstream("pod, node, expected", FILTER_CASES)
def test_taint_toleration_filter(pod, node, expected):
    c = build_cluster([node], [pod])
    plugin = TaintToleration()
    _, texts = verdicts(plugin, kernels, plugin.prepare(c.snapshot, c.batch), 1, 1)
    assert texts[0][0] == (expected and [expected])
    assert reference.filter(pod, node) == expected
