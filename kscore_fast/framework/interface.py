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


# -- the compiled plugin shape (filters and the default-profile score plugins) ---------------
#
# Every plugin below is driven by one compiled per-pod loop (``plugins/driver.py``), the
# same for the batch runtime (in parallel over pods) and the simulator (pod after pod, with
# ``assume`` in between). A plugin is a Python class plus a ``kernels`` module:
#
# Python (the class):
#   ``name``                      upstream name, e.g. "NodeResourcesFit"
#   ``__init__(args=None)``       ``args``: the plugin's pluginConfig args, defaulted, as the
#                                 camelCase mapping kube-scheduler reads (None: defaults)
#   ``prepare(snapshot, batch)``  → the plugin's *state*: a tuple of C-contiguous NumPy
#                                 arrays and NumPy scalars, always of the same dtypes and
#                                 ndims (one compiled signature), built once per
#                                 (snapshot, batch). Node aggregates (e.g. requested
#                                 resources, used host ports) are arrays the simulator
#                                 updates in place with ``assume``.
#   ``empty_state()``             a state of the same types for a plugin that is not in the
#                                 profile (never read by the kernels).
#   filters only: ``filter_key(state)`` → int64[B]: pods with equal keys get equal codes from
#                                 ``filter_node`` on every node (pending pods of one shape
#                                 are filtered once); ``reasons(state, code)`` → Go's
#                                 ``Status.Reasons()`` (list of str) for a failure code.
#
# numba (the ``kernels`` module; ``pod`` is the pod's index in the batch, ``node`` a node
# index in node-tree order; none of them allocates per node):
#   ``filter_node(state, pod, node) -> int64``     0: passes; > 0: the plugin's failure code
#   ``score_pod(state, pod, nodes, out)``          raw ``Score`` of ``pod`` on each of
#                                                  ``nodes`` (int32[:]) into ``out`` (int64[:])
#   ``normalize_pod(state, pod, nodes, scores)``   ``NormalizeScore`` in place (plugins
#                                                  that have one)
#   ``assume(state, pod, node)``                   add ``pod`` to ``node``'s aggregates (the
#                                                  scheduler cache's ``AssumePod``; no-op
#                                                  for plugins without node aggregates)
