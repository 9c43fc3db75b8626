"""NodeUnschedulable kernels over the state of ``plugin.NodeUnschedulable.prepare``:

``(node_unschedulable bool[N], pod_tolerates bool[B])``: ``spec.unschedulable`` of every
node, and whether every pending pod's tolerations tolerate the taint
``node.kubernetes.io/unschedulable:NoSchedule`` (computed once per toleration set).
"""

from __future__ import annotations

import numpy as np

from ..._jit import inline_kernel

#: the failure code (``ErrReasonUnschedulable``)
UNSCHEDULABLE = 1


@inline_kernel
def filter_node(state, pod, node):  # pragma: no cover - compiled
    """``Filter``: 0, or ``UNSCHEDULABLE``."""
    node_unschedulable, pod_tolerates = state
    if node_unschedulable[node] and not pod_tolerates[pod]:
        return np.int64(UNSCHEDULABLE)
    return np.int64(0)
