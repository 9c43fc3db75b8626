"""SelectorSpread: spread a pod's replicas over nodes and zones.

Wiring of pkg/scheduler/framework/plugins/selectorspread/selector_spread.go onto the
batch framework. Per snapshot (cached): the selectors of services and controllers are
compiled over the label keys they mention (the plugin's declared keys), and existing pods
are aggregated into signatures of those keys' values. Per chunk: every pod's
``DefaultSelector`` is built over the same keys, pods with equal selectors share one
count vector
(``countMatchingPods`` on every node), then each pod gathers its raw scores and
normalizes them over its own scored nodes (``kernels.score_pod``, ``normalize_pod``: the
compiled shape of framework/interface.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ...model.objects import RC_KIND, RS_KIND, SS_KIND
from ...model.rows import unique_rows
from ...model.selectors import (
    LOCAL_ABSENT,
    LabelSelector,
    SelectorSpace,
    label_selector_as_selector,
    set_requirements,
)
from ...model.snapshot import (
    RS_CONTROLLER,
    SS_CONTROLLER,
    ClusterSnapshot,
    PodBatch,
    build_cluster,
)
from ..helper.base import NoArgs
from . import kernels

NAME = "SelectorSpread"
_EMPTY = build_cluster((), ())


@dataclass(frozen=True)
class _Prepared:
    """The snapshot compiled for SelectorSpread (see ``kernels`` for the layout)."""

    space: SelectorSpace
    all_ns: int
    services: tuple[np.ndarray, ...]
    controllers: tuple[np.ndarray, ...]
    index: tuple[np.ndarray, ...]


class _BatchState(NamedTuple):
    """Every pending pod's default selector, grouped: pods of one group share counts.

    ``group`` (int64[B]) is -1 for pods whose selector matches nothing (empty) or that
    skip SelectorSpread; groups are described by ``grp_ns``, ``grp_req`` and ``grp_ctrl``
    (see ``kernels``).
    """

    group: np.ndarray
    skip: np.ndarray
    grp_ns: np.ndarray
    grp_req: np.ndarray
    grp_ctrl: np.ndarray


def _selectors(snapshot: ClusterSnapshot) -> tuple[list, list, list]:
    """The services with a selector (map), RC selectors (map), RS then SS requirements."""
    services = [s for s in snapshot.services if s.selector is not None]
    rc_maps = [c.selector if isinstance(c.selector, dict) else {}
               for c in snapshot.controllers[RC_KIND]]  # fmt: skip
    ctrl_reqs = [
        label_selector_as_selector(
            c.selector if isinstance(c.selector, LabelSelector) else None
        ).requirements
        for kind in (RS_KIND, SS_KIND)
        for c in snapshot.controllers[kind]
    ]
    return services, rc_maps, ctrl_reqs


def declared_keys(snapshot: ClusterSnapshot) -> list[str]:
    """The label keys SelectorSpread reads: those its selectors (services,
    ReplicationControllers, ReplicaSets, StatefulSets) mention."""
    services, rc_maps, ctrl_reqs = _selectors(snapshot)
    keys = {k for s in services for k in s.selector or ()}
    keys.update(k for m in rc_maps for k in m)
    keys.update(r.key for reqs in ctrl_reqs for r in reqs)
    return sorted(keys)


def _postings(sig_vals: np.ndarray, sizes: np.ndarray) -> tuple[np.ndarray, ...]:
    """For every (key, local id ≥ 1) pair, the signatures carrying it (CSR).

    Pair ``key_off[k] + local - 1``; a key's pairs are contiguous, so ``Exists`` is one
    range of postings.
    """
    n_sig, n_keys = sig_vals.shape
    key_off = np.zeros(n_keys + 1, dtype=np.int64)
    np.cumsum(sizes - 1, out=key_off[1:])
    pair = key_off[:-1][None, :] + sig_vals.astype(np.int64) - 1
    sig = np.repeat(np.arange(n_sig, dtype=np.int64), n_keys).reshape(n_sig, n_keys)
    present = sig_vals > LOCAL_ABSENT
    pair, sig = pair[present], sig[present]
    order = np.argsort(pair, kind="stable")
    post_ptr = np.searchsorted(pair[order], np.arange(key_off[-1] + 1)).astype(np.int64)
    return key_off, post_ptr, sig[order]


def prepare(snapshot: ClusterSnapshot) -> _Prepared:
    """Compile ``snapshot`` for SelectorSpread (cached on the snapshot)."""
    cached = snapshot.cache.get(NAME)
    if cached is not None:
        return cached
    services, rc_maps, ctrl_reqs = _selectors(snapshot)
    keys = declared_keys(snapshot)
    mentioned = [r for s in services for r in set_requirements(s.selector or {})]
    mentioned += [r for m in rc_maps for r in set_requirements(m)]
    mentioned += [r for reqs in ctrl_reqs for r in reqs]
    space = SelectorSpace(keys, mentioned)

    # services grouped by namespace index (namespaces without pods get extra indices)
    ns_ids = {ns: i for i, ns in enumerate(snapshot.namespaces)}
    services.sort(key=lambda s: ns_ids.setdefault(s.namespace, len(ns_ids)))
    svc_ns = np.array([ns_ids[s.namespace] for s in services], dtype=np.int64)
    svc_ns_ptr = np.searchsorted(svc_ns, np.arange(len(ns_ids) + 1)).astype(np.int64)
    svc_req = space.map_rows([s.selector or {} for s in services])
    svc_nonempty = np.array([bool(s.selector) for s in services], dtype=np.bool_)
    rc_req = space.map_rows(rc_maps)
    rc_nonempty = np.array([bool(m) for m in rc_maps], dtype=np.bool_)
    # ReplicaSets then StatefulSets: requirement lists of LabelSelectorAsSelector
    compiled = space.compile(ctrl_reqs)
    ctrl_offset = np.zeros(4, dtype=np.int64)
    ctrl_offset[SS_CONTROLLER] = len(snapshot.controllers[RS_KIND])
    ctrl_offset[RS_CONTROLLER] = 0
    ctrl_nonempty = np.array([len(r) > 0 for r in ctrl_reqs], dtype=np.bool_)

    # signatures of the non-deleting existing pods: (namespace, local value ids), so
    # pods differing only in values no selector mentions share one signature
    live = ~snapshot.pod_deleting
    local = space.project(snapshot.pod_labels.columns(keys))
    rows = np.empty((int(live.sum()), len(keys) + 1), dtype=np.int32)
    rows[:, 0] = snapshot.pod_ns[live]
    rows[:, 1:] = local[live]
    sig_rows, pod_sig = unique_rows(rows)
    pod_sig = pod_sig.reshape(-1).astype(np.int64)
    n_sig = sig_rows.shape[0]
    sig_ns = sig_rows[:, 0].astype(np.int64)
    sig_ns_ptr = np.searchsorted(sig_ns, np.arange(len(snapshot.namespaces) + 1)).astype(np.int64)
    sig_vals = np.ascontiguousarray(sig_rows[:, 1:])
    key_off, post_ptr, post_sig = _postings(sig_vals, space.sizes)
    n_nodes = max(snapshot.n_nodes, 1)
    pairs, ent_count = np.unique(pod_sig * n_nodes + snapshot.pod_node[live], return_counts=True)
    sig_ptr = np.searchsorted(pairs // n_nodes, np.arange(n_sig + 1)).astype(np.int64)
    index = (
        sig_ns, sig_ns_ptr, sig_vals, sig_ptr, (pairs % n_nodes).astype(np.int32),
        ent_count.astype(np.int64), key_off, post_ptr, post_sig, compiled.ptr, compiled.key,
        compiled.op, compiled.vptr, compiled.vals,
    )  # fmt: skip
    prepared = _Prepared(
        space=space,
        all_ns=snapshot.namespaces.index("") if "" in snapshot.namespaces else -1,
        services=(svc_ns_ptr, svc_req, svc_nonempty),
        controllers=(rc_req, rc_nonempty, ctrl_offset, ctrl_nonempty),
        index=index,
    )
    snapshot.cache[NAME] = prepared
    return prepared


def batch_state(snapshot: ClusterSnapshot, batch: PodBatch) -> _BatchState:
    """``DefaultSelector`` of every pending pod, grouped (cached on the batch)."""
    cached = batch.cache.get(NAME)
    if cached is not None:
        return cached
    prep = prepare(snapshot)
    local = prep.space.project(batch.labels.columns(prep.space.keys))
    group, grp_ns, grp_req, grp_ctrl = kernels.selector_groups(
        batch.ns, local, batch.controller_kind, batch.controller_idx,
        batch.has_spread_constraints, prep.services, prep.controllers, prep.all_ns,
    )  # fmt: skip
    state = _BatchState(group, batch.has_spread_constraints, grp_ns, grp_req, grp_ctrl)
    batch.cache[NAME] = state
    return state


#: entries of the per-group count rows kept for groups shared by several pods (32 MB)
HOT_ENTRIES = 1 << 22


def driver_state(snapshot: ClusterSnapshot, batch: PodBatch) -> tuple:
    """The state of the compiled shape (``kernels.score_pod``): every pending pod's
    selector group; groups of several pods get their counts on every node once."""
    key = NAME + "/driver"
    cached = batch.cache.get(key)
    if cached is not None:
        return cached
    prep = prepare(snapshot)
    bs = batch_state(snapshot, batch)
    n_nodes = max(snapshot.n_nodes, 1)
    if len(bs.group) < 2:  # (a lone pod: no group to share)
        shared = np.zeros(0, dtype=np.int64)
    else:
        sizes = np.bincount(bs.group[bs.group >= 0], minlength=len(bs.grp_ns))
        shared = np.flatnonzero(sizes >= 2)
        shared = shared[np.argsort(-sizes[shared], kind="stable")][: HOT_ENTRIES // n_nodes]
    hot_row = np.empty(len(bs.grp_ns), dtype=np.int64)
    hot_row.fill(-1)
    if len(shared):
        hot_row[shared] = np.arange(len(shared))
    hot = np.zeros((len(shared), n_nodes), dtype=np.int64)
    if len(shared):
        kernels.count_groups.pick(len(shared) * n_nodes)(
            shared.astype(np.int64), bs.grp_ns, bs.grp_req, bs.grp_ctrl, prep.index, hot
        )
    state = (
        bs.group, bs.skip, bs.grp_ns, bs.grp_req, bs.grp_ctrl, prep.index,
        snapshot.node_zone, np.int64(len(snapshot.zone_keys)), np.int64(snapshot.n_nodes),
        hot_row, hot,
    )  # fmt: skip
    batch.cache[key] = state
    return state


class SelectorSpread(NoArgs):
    """The SelectorSpread score plugin (PreScore, Score, NormalizeScore)."""

    name = NAME
    filters = False
    scores = True
    normalizes = True
    #: its interfaces in v1.23.6 (pkg/scheduler/framework/plugins/selectorspread)
    extension_points = frozenset({"preScore", "score"})
    kernels = kernels
    #: ``score_pod`` counts a group's pods in a row of its own when no hot row holds them,
    #: ``normalize_pod`` counts per zone
    kernels_allocate = ("score_pod", "normalize_pod", "score_normalize_pod")
    #: a raw score depends on the pod and the node only
    row_independent = True

    def prepare(self, snapshot: ClusterSnapshot, batch: PodBatch) -> tuple:
        return driver_state(snapshot, batch)

    def empty_state(self) -> tuple:
        return driver_state(_EMPTY.snapshot, _EMPTY.batch)

    @staticmethod
    def copy_groups(state: tuple) -> np.ndarray:
        """int64[B]: pods with equal ids score and normalize equally on equal node lists
        (``kernels.score_pod`` reads only the pod's selector group, ``normalize_pod`` only
        whether it skips): 0 for the pods that skip, 1 for those whose selector matches
        nothing, 2 + the group for the others."""
        group, skip = state[0], state[1]
        return np.where(skip, 0, np.where(group < 0, 1, group + 2)).astype(np.int64)
