"""Plugin protocols (pkg/scheduler/framework/interface.go), batch-first.

A score plugin sees a *chunk*: ``pods`` (int64 indices into the batch), and for chunk
pod ``i`` the nodes ``nodes[ptr[i]:ptr[i+1]]`` it is scored on. ``pre_score`` prepares
whatever the plugin needs for the chunk (upstream: ``PreScore`` writing ``CycleState``);
``score`` writes one raw int64 score per entry into ``out`` (upstream: ``Score`` per node);
``normalize`` rewrites them in place, per pod, over that pod's entries only (upstream:
``ScoreExtensions().NormalizeScore`` over the feasible node list). Plugins without
``NormalizeScore`` set ``normalizes = False``.

A plugin may also offer ``score_normalize(state, snapshot, batch, chunk, raw_out,
norm_out)``, equal to ``score`` followed by ``normalize`` on a copy but fused into one
pass; the runtime then uses it (tests check the two paths agree).
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import numpy as np

from ..goarith import MAX_NODE_SCORE, MIN_NODE_SCORE
from ..model.snapshot import ClusterSnapshot, PodBatch

__all__ = ["MAX_NODE_SCORE", "MIN_NODE_SCORE", "Chunk", "ScorePlugin"]


class Chunk:
    """The pods of one chunk and the nodes each of them is scored on."""

    __slots__ = ("nodes", "pods", "ptr")

    def __init__(self, pods: np.ndarray, ptr: np.ndarray, nodes: np.ndarray) -> None:
        self.pods = pods
        self.ptr = ptr
        self.nodes = nodes

    def __len__(self) -> int:
        return len(self.pods)


@runtime_checkable
class ScorePlugin(Protocol):
    """PreScore + Score (+ NormalizeScore) for a batch."""

    name: str
    normalizes: bool

    def pre_score(self, snapshot: ClusterSnapshot, batch: PodBatch, chunk: Chunk) -> Any:
        """Prepare the chunk (upstream ``PreScore``)."""
        ...

    def score(
        self,
        state: Any,
        snapshot: ClusterSnapshot,
        batch: PodBatch,
        chunk: Chunk,
        out: np.ndarray,
    ) -> None:
        """Write the int64 raw score of every entry of the chunk to ``out`` (``Score``)."""
        ...

    def normalize(
        self,
        state: Any,
        snapshot: ClusterSnapshot,
        batch: PodBatch,
        chunk: Chunk,
        scores: np.ndarray,
    ) -> None:
        """Normalize ``scores`` in place, pod by pod (upstream ``NormalizeScore``)."""
        ...
