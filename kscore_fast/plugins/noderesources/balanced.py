"""NodeResourcesBalancedAllocation: Score favouring nodes whose resource fractions are
close to each other (pkg/scheduler/framework/plugins/noderesources/balanced_allocation.go).
State layout: :mod:`.balanced_kernels`; the specification: :mod:`.balanced_reference`.

``prepare`` caches a pristine state on the batch and returns a copy of the arrays
``assume`` writes each time, so the cached one is never modified.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ...framework.interface import Plugin
from ...model.snapshot import ClusterSnapshot, PodBatch
from ..helper.pod_fields import REQUESTS
from . import args as plugin_args
from . import balanced_kernels, resources

NAME = "NodeResourcesBalancedAllocation"


class NodeResourcesBalancedAllocation(Plugin):
    """The NodeResourcesBalancedAllocation score plugin (no NormalizeScore)."""

    name = NAME
    #: what ``prepare`` reads of a pod (a lone pod's state is kept by them)
    lone_fields = REQUESTS
    filters = False
    scores = True
    normalizes = False
    #: its interfaces in v1.23.6 (pkg/scheduler/framework/plugins/noderesources)
    extension_points = frozenset({"score"})
    kernels = balanced_kernels
    #: a raw score depends on the pod and the node only
    row_independent = True
    #: reads only the pod's spec: pods of one ``spec_twins`` group score alike
    spec_only = True

    def __init__(self, args: Mapping[str, Any] | None = None, *, defaults: bool = True) -> None:
        """``args``: NodeResourcesBalancedAllocationArgs (camelCase); weights are not used
        by the score (validation wants them all 1)."""
        #: the resourceToWeightMap's names, first position of each
        self.resources: list[str] = list(
            dict.fromkeys(n for n, _ in plugin_args.balanced_args(args, defaults))
        )
        self._key = NAME + json.dumps(self.resources)

    def prepare(self, snapshot: ClusterSnapshot, batch: PodBatch) -> tuple:
        """The state of :mod:`.balanced_kernels` (cached on the batch, the same for every call)."""
        cached = batch.cache.get(self._key)
        if cached is None or cached[0] is not snapshot:
            cols = resources.columns(snapshot, batch)
            state = resources.common_state(cols, self.resources, non_zero=False, overhead=True)
            cached = (snapshot, state)
            batch.cache[self._key] = cached
        return cached[1]

    def own_state(self, state: tuple) -> tuple:
        """Copies of the aggregates ``assume`` changes."""
        return resources.fresh(state)

    def empty_state(self) -> tuple:
        return resources.empty_common_state()
