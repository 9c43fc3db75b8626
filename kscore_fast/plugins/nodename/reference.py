"""Scalar reference port of NodeName, from
pkg/scheduler/framework/plugins/nodename/node_name.go (v1.23.6)."""

from __future__ import annotations

from ...model.objects import NodeRecord, PodRecord

#: node_name.go ``ErrReason``
ERR_REASON = "node(s) didn't match the requested node name"


def fits(pod: PodRecord, node: NodeRecord) -> bool:
    """``Fits``: the pod names no node, or this one."""
    return len(pod.node_name) == 0 or pod.node_name == node.name


def filter(pod: PodRecord, node: NodeRecord) -> str | None:
    """``Filter``: the failure reason, or None when the pod fits."""
    return None if fits(pod, node) else ERR_REASON
