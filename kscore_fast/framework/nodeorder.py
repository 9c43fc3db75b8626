"""Which nodes a scheduling cycle examines, in which order.

Mirrors pkg/scheduler/generic_scheduler.go ``numFeasibleNodesToFind``; the search itself
(``findNodesThatPassFilters``, the rotation of ``nextStartNodeIndex``,
``evaluateNominatedNode``) is :mod:`.search`. Nodes are indexed in node-tree order (the
snapshot's order).
"""

from __future__ import annotations

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
