"""Scalar reference port of NodeUnschedulable, from
pkg/scheduler/framework/plugins/nodeunschedulable/node_unschedulable.go (v1.23.6)."""

from __future__ import annotations

from ...model.objects import NodeRecord, PodRecord, Taint
from ..helper.taints import tolerations_tolerate_taint

#: node_unschedulable.go ``ErrReasonUnschedulable``
ERR_REASON_UNSCHEDULABLE = "node(s) were unschedulable"
#: v1.TaintNodeUnschedulable
TAINT_NODE_UNSCHEDULABLE = "node.kubernetes.io/unschedulable"


def filter(pod: PodRecord, node: NodeRecord) -> str | None:
    """``Filter``: the failure reason, or None when the pod fits."""
    pod_tolerates_unschedulable = tolerations_tolerate_taint(
        pod.tolerations, Taint(key=TAINT_NODE_UNSCHEDULABLE, effect="NoSchedule")
    )
    if node.unschedulable and not pod_tolerates_unschedulable:
        return ERR_REASON_UNSCHEDULABLE
    return None
