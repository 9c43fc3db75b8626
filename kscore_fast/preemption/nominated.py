"""``RunFilterPluginsWithNominatedPods``' first pass on a sequential run's state: a pod's
filter verdict on a node once the node's nominated pods of its priority or higher are
added (``addNominatedPods``: the plugins' ``assume`` kernels, then ``remove`` again).
A failure there is the node's status; elsewhere the verdict without them stands (the
caller's ``override``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from ..framework.search import fill_nodes
from ..framework.simulation import _Sequence


def nominated_verdicts(seq: _Sequence, pod: int, by_node: Mapping[int, Sequence[int]],
                       memo: np.ndarray, reps: np.ndarray,
                       nodes: set[int] | None = None) -> np.ndarray:  # fmt: skip
    """int64[N]: the verdict of batch pod ``pod`` of ``seq`` on each node of ``by_node``
    (node → the batch positions of the nominated pods to add there, in nomination order;
    only the nodes of ``nodes`` when given) with those pods added; 0 elsewhere.
    ``memo`` (int64[1, N]) and ``reps`` (int64[1]) are scratch."""
    out = np.zeros(seq.n_nodes, dtype=np.int64)
    reps[0] = pod
    for node, pods in sorted(by_node.items()):
        if nodes is not None and node not in nodes:
            continue
        at = np.full(len(pods), node, dtype=np.int64)
        seq.kernels.assume_pods(seq.add_ids, seq.table, seq.cache, np.array(pods, np.int64),
                                at)  # fmt: skip
        try:
            fill_nodes(seq.fids, seq.table, reps, np.int64(0), np.array([node], np.int64), memo)
        finally:
            for q in pods:
                seq.remove(q, node)
        out[node] = memo[0, node]
    return out
