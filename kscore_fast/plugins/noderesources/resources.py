"""The resource columns NodeResourcesFit and NodeResourcesBalancedAllocation prepare from.

Columns (``Columns.names``): 0 ``cpu`` (millicores, ``MilliValue``), 1 ``memory``, 2
``ephemeral-storage`` (LocalStorageCapacityIsolation is on in 1.23), then the scalar
resources (``IsScalarResourceName``: extended, ``hugepages-*``, ``*kubernetes.io/*``,
``attachable-volumes-*``) that some pending pod lists in a container, an init container or
its overhead, sorted by name (``Value``). Other scalar resources never matter: the filter
checks only the pod's own scalar requests, and a scorer skips a scalar resource the pod
does not request.

Arrays (N nodes, B pending pods, R columns):

* ``alloc`` int64[N, R]: ``NodeInfo.Allocatable`` (``node.status.allocatable`` through
  ``Resource.Add``); ``allowed_pods`` int64[N]: its ``AllowedPodNumber``;
* ``used`` int64[N, R + 2]: ``NodeInfo.Requested`` per column, then
  ``NonZeroRequested`` cpu and memory; ``pod_count`` int64[N]: ``len(NodeInfo.Pods)``;
  both sum every bound pod of the snapshot (deleting ones included), and are never written
  (``fresh`` gives a state its own copies);
* ``pod_add`` int64[B, R + 2]: each pending pod's ``calculateResource`` (equal to fit.go's
  ``computePodResourceRequest``) and non-zero cpu/memory: what ``assume`` adds to ``used``;
  ``pod_present`` bool[B, R]: the resource is a key of that request; ``pod_empty`` bool[B]:
  the request is empty (fitsRequest's early return);
* the container table (``table``) of one pod per twin group (``twins``: each pending
  pod's row), from which each plugin computes ``calculatePodResourceRequest`` for its
  configured resources.

The node arrays are built once per snapshot (the scheduler cache keeps them in its
``NodeInfo``s), the per-pod ones once per group of twins.

A container table holds, per pod, one row per container, then one per init container,
then one row for ``spec.overhead``: ``ptr`` int64[P + 1] (rows of pod ``p``),
``init_start`` int64[P], ``val`` int64[rows, R] and ``has`` bool[rows, R] (the resource is
listed), ``ovh_units`` int64[P] (overhead cpu as ``Value()``, whole cores rounded up).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ...model.objects import PodRecord, ResourceList
from ...model.snapshot import ClusterSnapshot, PodBatch, spec_representatives
from . import allocation_kernels as ak
from .names import CPU, EPHEMERAL_STORAGE, MEMORY, PODS, is_scalar_resource_name

FIXED = (CPU, MEMORY, EPHEMERAL_STORAGE)
CACHE_KEY = "NodeResources.columns"


@dataclass(frozen=True)
class Table:
    """Container table of some pods (see the module docstring)."""

    ptr: np.ndarray
    init_start: np.ndarray
    val: np.ndarray
    has: np.ndarray
    ovh_units: np.ndarray


@dataclass(frozen=True)
class Columns:
    """The shared columns of one (snapshot, batch); never written after building."""

    names: list[str]
    alloc: np.ndarray
    allowed_pods: np.ndarray
    used: np.ndarray
    pod_count: np.ndarray
    pod_add: np.ndarray
    pod_present: np.ndarray
    pod_empty: np.ndarray
    #: the container table of the twin representatives (``spec_representatives``)
    table: Table
    #: int64[B]: each pending pod's row of ``table``
    twins: np.ndarray

    def column(self, name: str) -> int:
        """The column of resource ``name``, -1 if it has none."""
        try:
            return self.names.index(name)
        except ValueError:
            return -1


def _scalar_names(pods: Sequence[PodRecord]) -> list[str]:
    """Sorted scalar resource names listed by the pods (containers, init, overhead)."""
    seen: set[str] = set()
    for pod in pods:
        for rl in (*(c.requests for c in pod.containers),
                   *(c.requests for c in pod.init_containers), pod.overhead):  # fmt: skip
            seen.update(rl)
    return sorted(n for n in seen if n not in FIXED and n != PODS and is_scalar_resource_name(n))


class _Rows:
    """(column, value) pairs of resource lists, memoized by identity: the loader shares one
    dict between the containers of a pod template (the lists outlive this object)."""

    def __init__(self, index: dict[str, int]) -> None:
        self.index = index
        self.memo: dict[int, list[tuple[int, int]]] = {}

    def add(self, rl: ResourceList, row: int, out: list[tuple[int, int, int]]) -> None:
        pairs = self.memo.get(id(rl))
        if pairs is None:
            pairs = [
                (col, q.milli_value() if col == 0 else q.value())
                for name, q in rl.items()
                if (col := self.index.get(name)) is not None
            ]
            self.memo[id(rl)] = pairs
        out.extend((row, col, v) for col, v in pairs)


def container_table(pods: Sequence[PodRecord], index: dict[str, int]) -> Table:
    """The container table of ``pods`` over the columns of ``index`` (name → column)."""
    ptr = np.zeros(len(pods) + 1, dtype=np.int64)
    init_start = np.zeros(len(pods), dtype=np.int64)
    ovh_units = np.zeros(len(pods), dtype=np.int64)
    entries: list[tuple[int, int, int]] = []
    rows = _Rows(index)
    row = 0
    for p, pod in enumerate(pods):
        for c in pod.containers:
            rows.add(c.requests, row, entries)
            row += 1
        init_start[p] = row
        for c in pod.init_containers:
            rows.add(c.requests, row, entries)
            row += 1
        if pod.overhead:
            rows.add(pod.overhead, row, entries)
            q = pod.overhead.get(CPU)
            ovh_units[p] = 0 if q is None else q.value()
        row += 1
        ptr[p + 1] = row
    val = np.zeros((row, len(index)), dtype=np.int64)
    has = np.zeros((row, len(index)), dtype=np.bool_)
    if entries:
        e = np.array(entries, dtype=np.int64)
        val[e[:, 0], e[:, 1]] = e[:, 2]
        has[e[:, 0], e[:, 1]] = True
    return Table(ptr, init_start, val, has, ovh_units)


def allocatable(snapshot: ClusterSnapshot, index: dict[str, int]) -> tuple[np.ndarray, np.ndarray]:
    """``NewResource(node.status.allocatable)`` of every node: (alloc, AllowedPodNumber)."""
    alloc = np.zeros((snapshot.n_nodes, len(index)), dtype=np.int64)
    pods = np.zeros(snapshot.n_nodes, dtype=np.int64)
    for n, node in enumerate(snapshot.nodes):
        for name, q in node.allocatable.items():
            if name == PODS:
                pods[n] = q.value()
            else:
                col = index.get(name)
                if col is not None:
                    alloc[n, col] = q.milli_value() if col == 0 else q.value()
    return alloc, pods


def _node_columns(snapshot: ClusterSnapshot, names: list[str]) -> tuple[np.ndarray, ...]:
    """(alloc, allowed_pods, used, pod_count) over the columns ``names``: what the scheduler
    cache's ``NodeInfo`` holds, built once per snapshot and set of columns (never written:
    ``fresh`` copies the aggregates ``assume`` changes)."""
    key = (CACHE_KEY, tuple(names))
    cached = snapshot.cache.get(key)
    if cached is None:
        index = {n: i for i, n in enumerate(names)}
        bound = container_table(snapshot.pods, index)
        b_res, _, b_nonzero = ak.pod_resources(bound.ptr, bound.init_start, bound.val, bound.has)
        pod_node = np.ascontiguousarray(snapshot.pod_node, dtype=np.int64)
        used, count = ak.node_sums(pod_node, b_res, b_nonzero, snapshot.n_nodes)
        alloc, allowed = allocatable(snapshot, index)
        cached = snapshot.cache[key] = (alloc, allowed, used, count)
    return cached


def _build(snapshot: ClusterSnapshot, batch: PodBatch) -> Columns:
    reps, twins = spec_representatives(batch)
    names = [*FIXED, *_scalar_names(reps)]
    pending = container_table(reps, {n: i for i, n in enumerate(names)})
    res, present, nonzero = ak.pod_resources(pending.ptr, pending.init_start, pending.val,
                                             pending.has)  # fmt: skip
    empty = ~present[:, 3:].any(axis=1) & (res[:, :3] == 0).all(axis=1)
    alloc, allowed, used, count = _node_columns(snapshot, names)
    pod_add = np.ascontiguousarray(np.concatenate([res, nonzero], axis=1)[twins])
    return Columns(names, alloc, allowed, used, count, pod_add,
                   np.ascontiguousarray(present[twins]), empty[twins], pending, twins)  # fmt: skip


def columns(snapshot: ClusterSnapshot, batch: PodBatch) -> Columns:
    """The shared columns of ``snapshot`` and ``batch`` (cached on the batch)."""
    return batch.prepared(CACHE_KEY, snapshot, lambda: _build(snapshot, batch))


def scoring_columns(
    cols: Columns, names: Sequence[str], non_zero: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per configured resource: its column (-1: none, it never scores), its column of
    ``used`` (the non-zero columns for cpu and memory when ``non_zero``: the scorer reads
    ``NonZeroRequested``) and whether it is a scalar resource."""
    r = len(cols.names)
    alloc_col = np.array([cols.column(n) for n in names], dtype=np.int64).reshape(-1)
    used_col = alloc_col.copy()
    if non_zero:
        used_col[alloc_col == 0] = r
        used_col[alloc_col == 1] = r + 1
    scalar = np.array([is_scalar_resource_name(n) for n in names], dtype=np.bool_).reshape(-1)
    return alloc_col, used_col, scalar


def common_state(cols: Columns, names: Sequence[str], non_zero: bool, overhead: bool) -> tuple:
    """The first eight state arrays of both plugins (see ``fit_kernels``): alloc, used,
    pod_count, pod_add, alloc_col, used_col, scalar, pod_req."""
    alloc_col, used_col, scalar = scoring_columns(cols, names, non_zero)
    t = cols.table
    pod_req = ak.score_requests(t.ptr, t.init_start, t.val, t.has, t.ovh_units, alloc_col,
                                non_zero, overhead)[cols.twins]  # fmt: skip
    return (cols.alloc, cols.used, cols.pod_count, cols.pod_add, alloc_col, used_col, scalar,
            pod_req)  # fmt: skip


def empty_common_state() -> tuple:
    """``common_state`` of nothing (same dtypes and dimensions)."""
    m = np.zeros((0, 0), dtype=np.int64)
    v = np.zeros(0, dtype=np.int64)
    return (m, m.copy(), v, m.copy(), v.copy(), v.copy(), np.zeros(0, np.bool_), m.copy())


def fresh(state: tuple) -> tuple:
    """``state`` with its own copies of the arrays ``assume`` writes (used, pod_count)."""
    return (state[0], state[1].copy(), state[2].copy(), *state[3:])
