"""Ported upstream table: pkg/scheduler/framework/plugins/nodeunschedulable/node_unschedulable_test.go
(v1.23.6): ``TestNodeUnschedulable``. Test ids are the Go case names; each case runs through the
kernels (tests/plugins/harness.py) and the reference."""

from __future__ import annotations

from kscore_fast.model.objects import NodeRecord, PodRecord, Toleration
from kscore_fast.model.snapshot import build_cluster
from kscore_fast.plugins.nodeunschedulable import NodeUnschedulable, kernels, reference

from ..tainttoleration.support import upstream, verdicts

UNSCHEDULABLE = "node(s) were unschedulable"

CASES = [
    ("Does not schedule pod to unschedulable node (node.Spec.Unschedulable==true)",
     PodRecord("", ""), NodeRecord("", unschedulable=True), UNSCHEDULABLE),
    ("Schedule pod to normal node", PodRecord("", ""), NodeRecord("", unschedulable=False), None),
    ("Schedule pod with toleration to unschedulable node (node.Spec.Unschedulable==true)",
     PodRecord("", "", tolerations=(Toleration(key="node.kubernetes.io/unschedulable", effect="NoSchedule"),)),
     NodeRecord("", unschedulable=True), None),
]  # fmt: skip


@upstream("pod, node, expected", CASES)
def test_node_unschedulable(pod, node, expected):
    c = build_cluster([node], [pod])
    plugin = NodeUnschedulable()
    _, texts = verdicts(plugin, kernels, plugin.prepare(c.snapshot, c.batch), 1, 1)
    assert texts[0][0] == (expected and [expected])
    assert reference.filter(pod, node) == expected
