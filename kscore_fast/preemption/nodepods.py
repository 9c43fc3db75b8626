"""``NodeInfo.Pods`` of every node for the compiled dry runs: batch positions in Go's
order (``AddPod`` appends; ``RemovePod`` puts the node's last pod in the removed one's
place), kept in a padded table of one row per node that the kernel reads as it is (no
list rebuilt per preemptor)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np


class NodePods:
    """The pods of ``n_nodes`` nodes: row ``node`` of :attr:`table` holds its first
    ``count[node]`` pods."""

    def __init__(self, n_nodes: int, width: int = 8) -> None:
        self.table = np.zeros((max(n_nodes, 1), width), dtype=np.int64)
        self.count = np.zeros(max(n_nodes, 1), dtype=np.int64)
        #: the pods of every node together
        self.total = 0

    @classmethod
    def of(cls, n_nodes: int, lists: Mapping[int, Iterable[int]]) -> NodePods:
        """Node → its pods, in order."""
        made = cls(n_nodes)
        for node, pods in lists.items():
            for pod in pods:
                made.append(node, pod)
        return made

    def copy(self) -> NodePods:
        other = NodePods.__new__(NodePods)
        other.table, other.count, other.total = self.table.copy(), self.count.copy(), self.total
        return other

    def append(self, node: int, pod: int) -> None:
        """``AddPod``: ``pod`` last on ``node``."""
        k = int(self.count[node])
        if k == self.table.shape[1]:
            self.widen()
        self.table[node, k] = pod
        self.count[node] = k + 1
        self.total += 1

    def widen(self) -> None:
        """Room for twice as many pods on each node (:attr:`table` replaced)."""
        k = self.table.shape[1]
        wider = np.zeros((self.table.shape[0], 2 * k), dtype=np.int64)
        wider[:, :k] = self.table
        self.table = wider

    def remove(self, node: int, pod: int) -> None:
        """``RemovePod``: the node's last pod takes ``pod``'s place."""
        k = int(self.count[node]) - 1
        row = self.table[node]
        at = row[: k + 1].tolist().index(pod)
        row[at] = row[k]
        self.count[node] = k
        self.total -= 1

    def pods(self, node: int) -> list[int]:
        """The pods of ``node``, in order."""
        return self.table[node, : self.count[node]].tolist()
