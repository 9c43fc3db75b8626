"""Which nodes a scheduling cycle examines, in which order.

Mirrors pkg/scheduler/generic_scheduler.go: ``numFeasibleNodesToFind``,
``findNodesThatPassFilters`` (the ``!fwk.HasFilterPlugins()`` branch and the rotation of
``nextStartNodeIndex``) and ``evaluateNominatedNode``. Nodes are indexed in node-tree
order (the snapshot's order).
"""

from __future__ import annotations

import numpy as np

from .._jit import dual_kernel, kernel, prange

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
def window_starts(n_nodes, num_to_find, nominated, start):  # pragma: no cover - compiled
    """Where each consecutive cycle starts when the profile has no filter plugin.

    ``nominated`` (int32[C]): node index of the pod's ``status.nominatedNodeName`` or -1.
    A nominated node is evaluated alone first and passes (no filters): it is the only
    feasible node, and that one-node pass of ``findNodesThatPassFilters`` leaves
    ``nextStartNodeIndex`` at 0. Otherwise the ``num_to_find`` nodes from ``start`` on
    (wrapping) are feasible and ``start`` advances by as many.
    Returns ``(ptr int64[C+1], starts int64[C] (-1: the nominated node), next_start)``.
    """
    n_pods = nominated.shape[0]
    ptr = np.zeros(n_pods + 1, dtype=np.int64)
    starts = np.empty(n_pods, dtype=np.int64)
    for i in range(n_pods):
        if nominated[i] >= 0:
            starts[i] = -1
            ptr[i + 1] = ptr[i] + 1
            start = 0
        else:
            starts[i] = start
            ptr[i + 1] = ptr[i] + num_to_find
            start = (start + num_to_find) % n_nodes
    return ptr, starts, start


@dual_kernel
def fill_windows(ptr, starts, nominated, n_nodes, out):  # pragma: no cover - compiled
    """The feasible node lists: ``(start + j) % n_nodes`` for each pod (or its nominated
    node), written to ``out[ptr[i]:ptr[i+1]]`` without a division per node."""
    for i in prange(ptr.shape[0] - 1):
        e = ptr[i]
        n = ptr[i + 1] - e
        if starts[i] < 0:
            out[e] = nominated[i]
            continue
        first = min(n, n_nodes - starts[i])
        for j in range(first):
            out[e + j] = starts[i] + j
        for j in range(n - first):
            out[e + first + j] = j


def windows_without_filters(
    n_nodes: int, num_to_find: int, nominated: np.ndarray, start: int
) -> tuple[np.ndarray, np.ndarray, int]:
    """``(ptr, nodes, next_start)``: the feasible node lists of consecutive cycles."""
    ptr, starts, start = window_starts(n_nodes, num_to_find, nominated, start)
    nodes = np.empty(ptr[-1], dtype=np.int32)
    fill_windows.pick(len(nodes))(ptr, starts, nominated, n_nodes, nodes)
    return ptr, nodes, int(start)
