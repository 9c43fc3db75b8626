"""Plugin protocols (pkg/scheduler/framework/interface.go) in kscore_fast's compiled shape.

A *chunk* is a few pods of the batch (``pods``, int64 indices) and, for chunk pod ``i``,
the nodes ``nodes[ptr[i]:ptr[i+1]]`` it is scored on. Plugins are the :class:`Plugin`
protocol below plus a numba ``kernels`` module (see the comment block at the end): the
registry's driver (``plugins/driver.py``) calls their kernels from one compiled loop, the
same for the batch runtime and the simulator.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import numpy as np

from ..goarith import MAX_NODE_SCORE, MIN_NODE_SCORE
from ..model.snapshot import ClusterSnapshot, PodBatch

__all__ = ["MAX_NODE_SCORE", "MIN_NODE_SCORE", "Chunk", "Plugin"]


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
class Plugin(Protocol):
    """The Python half of a compiled plugin (see the comment block below)."""

    name: str
    filters: bool
    scores: bool
    normalizes: bool

    def prepare(self, snapshot: ClusterSnapshot, batch: PodBatch) -> tuple[Any, ...]:
        """The plugin's state for the kernels (PreFilter/PreScore of every pod at once)."""
        ...

    def empty_state(self) -> tuple[Any, ...]:
        """A state of the same numba types, for a plugin not in the profile."""
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
#   ``constant_normalize``        (score plugins with NormalizeScore, optional, default
#                                 False) True when NormalizeScore turns equal raw scores
#                                 into equal scores whatever the list (e.g.
#                                 ``DefaultNormalizeScore``): a pod whose raw scores are
#                                 one value everywhere is then normalized once
#   filters only: ``filter_key(state)`` → int64[B]: pods with equal keys get equal codes from
#                                 ``filter_node`` on every node (pending pods of one shape
#                                 are filtered once); ``reasons(state, code)`` → Go's
#                                 ``Status.Reasons()`` (list of str) for a failure code.
#
# numba (the ``kernels`` module; ``pod`` is the pod's index in the batch, ``node`` a node
# index in node-tree order; none of them allocates per node; ``filter_node`` is an
# ``inline_kernel`` and, with ``score_pod``/``normalize_pod``, allocates nothing at all
# unless the driver lists the plugin among those it runs with numba's reference counting:
# the hot loops run them in ``_jit.unrefcounted_kernel``s):
#   ``filter_node(state, pod, node) -> int64``     0: passes; > 0: the plugin's failure code
#   ``score_pod(state, pod, nodes, out)``          raw ``Score`` of ``pod`` on each of
#                                                  ``nodes`` (int32[:]) into ``out`` (int64[:])
#   ``normalize_pod(state, pod, nodes, scores)``   ``NormalizeScore`` in place (plugins
#                                                  that have one)
#   ``assume(state, pod, node)``                   add ``pod`` to ``node``'s aggregates (the
#                                                  scheduler cache's ``AssumePod``; no-op
#                                                  for plugins without node aggregates)
