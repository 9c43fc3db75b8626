"""Which nodes a scheduling cycle examines, in which order.

Mirrors pkg/scheduler/generic_scheduler.go: ``numFeasibleNodesToFind``,
``findNodesThatPassFilters`` (the ``!fwk.HasFilterPlugins()`` branch and the rotation of
``nextStartNodeIndex``) and ``evaluateNominatedNode``. Nodes are indexed in node-tree
order (the snapshot's order).
"""

from __future__ import annotations

import numpy as np

from .._jit import kernel

MIN_FEASIBLE_NODES_TO_FIND = 100
MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND = 5


def num_feasible_nodes_to_find(num_all_nodes: int, percentage_of_nodes_to_score: int) -> int:
    """``numFeasibleNodesToFind`` (int32 arithmetic, truncating division)."""
    if num_all_nodes < MIN_FEASIBLE_NODES_TO_FIND or percentage_of_nodes_to_score >= 100:
        return num_all_nodes
    adaptive = percentage_of_nodes_to_score
    if adaptive <= 0:
        adaptive = 50 - num_all_nodes // 125
        if adaptive < MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND:
            adaptive = MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND
    num_nodes = num_all_nodes * adaptive // 100
    if num_nodes < MIN_FEASIBLE_NODES_TO_FIND:
        return MIN_FEASIBLE_NODES_TO_FIND
    return num_nodes


@kernel
def windows_without_filters(n_nodes, num_to_find, nominated, start):  # pragma: no cover
    """Feasible node lists of consecutive cycles when the profile has no filter plugin.

    ``nominated`` (int32[C]): node index of the pod's ``status.nominatedNodeName`` or -1.
    A nominated node is evaluated alone first and passes (no filters): it is the only
    feasible node and the one-node pass resets ``nextStartNodeIndex`` to 0. Otherwise the
    ``num_to_find`` nodes from ``start`` on (wrapping) are feasible and ``start`` advances.
    Returns ``(ptr int64[C+1], nodes int32[E], next_start)``.
    """
    n_pods = nominated.shape[0]
    ptr = np.zeros(n_pods + 1, dtype=np.int64)
    for i in range(n_pods):
        ptr[i + 1] = ptr[i] + (1 if nominated[i] >= 0 else num_to_find)
    nodes = np.empty(ptr[n_pods], dtype=np.int32)
    for i in range(n_pods):
        if nominated[i] >= 0:
            nodes[ptr[i]] = nominated[i]
            start = 0
        else:
            # (start + j) % n_nodes for j < num_to_find, without a division per node
            e = ptr[i]
            first = min(num_to_find, n_nodes - start)
            for j in range(first):
                nodes[e + j] = start + j
            for j in range(num_to_find - first):
                nodes[e + first + j] = j
            start = (start + num_to_find) % n_nodes
    return ptr, nodes, start
