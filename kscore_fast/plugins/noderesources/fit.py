"""NodeResourcesFit: PreFilter + Filter (the node has room for the pod's requests) and
Score (LeastAllocated, MostAllocated or RequestedToCapacityRatio over the configured
resources), pkg/scheduler/framework/plugins/noderesources/fit.go. State layout and
failure codes: :mod:`.fit_kernels`; the specification: :mod:`.fit_reference`.

``prepare`` caches a pristine state on the batch and returns a copy of the arrays
``assume`` writes each time, so the cached one is never modified.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import numpy as np

from ...errors import UnsupportedError
from ...framework.cluster_events import ADD, DELETE, NODE, POD, UPDATE_NODE_ALLOCATABLE, events
from ...framework.interface import Plugin
from ...model.rows import unique_rows
from ...model.snapshot import ClusterSnapshot, PodBatch
from ..helper.pod_fields import REQUESTS
from ..helper.texts import text_at, text_table
from . import args as fit_args
from . import fit_kernels as fk
from . import resources
from .names import is_extended_resource_name

NAME = "NodeResourcesFit"
_STRATEGY_CODE = {
    fit_args.LEAST_ALLOCATED: fk.LEAST_ALLOCATED,
    fit_args.MOST_ALLOCATED: fk.MOST_ALLOCATED,
    fit_args.REQUESTED_TO_CAPACITY_RATIO: fk.RTCR,
}
#: scalar failure bits 4..62 keep codes positive int64
MAX_SCALAR_BITS = 63 - fk.FIRST_SCALAR_BIT
_FIXED_REASONS = ("Too many pods", "Insufficient cpu", "Insufficient memory",
                  "Insufficient ephemeral-storage")  # fmt: skip


class NodeResourcesFit(Plugin):
    """The NodeResourcesFit filter and score plugin (no NormalizeScore)."""

    name = NAME
    #: what ``prepare`` reads of a pod (a lone pod's state is kept by them)
    lone_fields = REQUESTS
    events_to_register = events((POD, DELETE), (NODE, ADD | UPDATE_NODE_ALLOCATABLE))
    filters = True
    scores = True
    normalizes = False
    #: its interfaces in v1.23.6 (pkg/scheduler/framework/plugins/noderesources)
    extension_points = frozenset({"preFilter", "filter", "score"})
    kernels = fk
    #: a raw score depends on the pod and the node only
    row_independent = True
    #: reads only the pod's spec: pods of one ``spec_twins`` group score alike
    spec_only = True

    def __init__(self, args: Mapping[str, Any] | None = None, *, defaults: bool = True) -> None:
        """``args``: NodeResourcesFitArgs (camelCase); ``defaults=False``: take them as
        internal args, as ``NewFit`` does in upstream's unit tests."""
        a = fit_args.fit_args(args, defaults)
        self.ignored_resources: set[str] = set(a["ignored"])
        self.ignored_groups: set[str] = set(a["groups"])
        self.strategy: str = a["strategy"]
        #: resourceToWeightMap: first position of each name, last weight
        self.weights: dict[str, int] = {}
        for name, weight in a["resources"]:
            self.weights[name] = weight
        self.shape: list[tuple[int, int]] = a["shape"]
        self._key = NAME + json.dumps(
            [sorted(self.ignored_resources), sorted(self.ignored_groups), self.strategy,
             list(self.weights.items()), self.shape]
        )  # fmt: skip

    def _ignored(self, name: str) -> bool:
        """fitsRequest skips an extended resource listed in ignoredResources or whose
        group (the part before "/") is in ignoredResourceGroups."""
        if not is_extended_resource_name(name):
            return False
        return name in self.ignored_resources or (
            bool(self.ignored_groups) and name.split("/")[0] in self.ignored_groups
        )

    def _checks(self, cols: resources.Columns) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """chk_ptr, chk_col, col_bit: the scalar columns each pod's filter checks."""
        r = len(cols.names)
        checked = cols.pod_present.copy()
        checked[:, :3] = False
        for c in range(3, r):
            if self._ignored(cols.names[c]):
                checked[:, c] = False
        used = np.flatnonzero(checked.any(axis=0))
        if len(used) > MAX_SCALAR_BITS:
            raise UnsupportedError(
                f"{NAME}: the pending pods request {len(used)} scalar resources; failure "
                f"codes hold at most {MAX_SCALAR_BITS}"
            )
        col_bit = np.zeros(r, dtype=np.int64)
        col_bit[used] = np.int64(1) << (np.arange(len(used), dtype=np.int64) + 4)
        pods, chk_col = np.nonzero(checked)
        chk_ptr = np.zeros(len(checked) + 1, dtype=np.int64)
        np.cumsum(np.bincount(pods, minlength=len(checked)), out=chk_ptr[1:])
        return chk_ptr, chk_col.astype(np.int64), col_bit

    def _build(self, cols: resources.Columns) -> tuple:
        names = list(self.weights)
        common = resources.common_state(cols, names, non_zero=True, overhead=False)
        rtcr = np.zeros(fk.MAX_UTILIZATION + 1, dtype=np.int64)
        if self.shape:
            scale = 100 // fit_args.MAX_CUSTOM_PRIORITY_SCORE
            shape_u = np.array([u for u, _ in self.shape], dtype=np.int64)
            shape_s = np.array([s * scale for _, s in self.shape], dtype=np.int64)
            rtcr = fk.rtcr_table(shape_u, shape_s)
        weight = np.array([self.weights[n] for n in names], dtype=np.int64).reshape(-1)
        return (
            *common, cols.allowed_pods, cols.pod_empty, *self._checks(cols), weight,
            np.int64(_STRATEGY_CODE[self.strategy]), rtcr,
            *text_table(cols.names),
        )  # fmt: skip

    def prepare(self, snapshot: ClusterSnapshot, batch: PodBatch) -> tuple:
        """The state of :mod:`.fit_kernels` (cached on the batch, the same for every call)."""
        cached = batch.cache.get(self._key)
        if cached is None or cached[0] is not snapshot:
            cached = (snapshot, self._build(resources.columns(snapshot, batch)))
            batch.cache[self._key] = cached
        return cached[1]

    def own_state(self, state: tuple) -> tuple:
        """Copies of the aggregates ``assume`` changes."""
        return resources.fresh(state)

    def empty_state(self) -> tuple:
        v = np.zeros(0, dtype=np.int64)
        return (
            *resources.empty_common_state(), v.copy(), np.zeros(0, np.bool_),
            np.zeros(1, np.int64), v.copy(), v.copy(), v.copy(), np.int64(0), v.copy(),
            np.zeros(1, np.int64), np.zeros(0, np.uint8),
        )  # fmt: skip

    def filter_key(self, state: tuple) -> np.ndarray:
        """int64[B]: pods with equal requests (as the filter reads them) share a key."""
        pod_add, pod_empty, chk_ptr, chk_col = state[3], state[9], state[10], state[11]
        n_pods, r = len(pod_empty), pod_add.shape[1] - 2
        flags = np.zeros((n_pods, r), dtype=np.int64)
        flags[np.repeat(np.arange(n_pods), np.diff(chk_ptr)), chk_col] = 1
        rows = np.concatenate(
            [pod_empty[:, None].astype(np.int64), pod_add[:, :3], flags[:, 3:],
             np.where(flags[:, 3:] == 1, pod_add[:, 3:r], 0)], axis=1,
        )  # fmt: skip
        if n_pods == 0:
            return np.zeros(0, dtype=np.int64)
        _, key = unique_rows(rows)
        return key.reshape(-1).astype(np.int64)

    def reasons(self, state: tuple, code: int) -> list[str]:
        """``Status.Reasons()`` of failure ``code``: Go's order, scalar resources by name."""
        out = [text for b, text in enumerate(_FIXED_REASONS) if code >> b & 1]
        col_bit, name_ptr, name_chars = state[12], state[16], state[17]
        for c in np.flatnonzero(col_bit & code):
            out.append(f"Insufficient {text_at(name_ptr, name_chars, c)}")
        return out
