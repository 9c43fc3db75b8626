"""VolumeRestrictions: a pod's GCE PD, EBS, RBD and iSCSI volumes must not conflict with
those of the pods on the node
(pkg/scheduler/framework/plugins/volumerestrictions/volume_restrictions.go). State layout:
see ``kernels``; the scalar port is ``reference``.

``prepare`` caches the pending pods' entries and the bound pods' counts on the batch;
``own_state`` copies the counts ``assume`` writes into.
"""

from __future__ import annotations

from collections.abc import Iterable
from operator import attrgetter

import numpy as np

from ...framework.cluster_events import ADD, DELETE, NODE, POD, PVC, UPDATE, events
from ...model.disks import AWS_EBS, RBD, DiskVolume
from ...model.snapshot import ClusterSnapshot, PodBatch
from ..helper.base import NoArgs
from ..helper.pod_fields import VOLUMES
from . import kernels
from .kernels import CONFLICT
from .reference import CHECKED, ERR_REASON_DISK_CONFLICT

NAME = "VolumeRestrictions"
_disks = attrgetter("disks")
#: (key, flag) entries of one pod: the key of a disk and whether it is read-write
Entries = list[tuple[tuple[str, ...], bool]]


def _keys(disk: DiskVolume) -> list[tuple[str, ...]]:
    """The keys of a checked disk: one per distinct monitor for RBD."""
    if disk.kind == RBD:
        return [(RBD, disk.pool, disk.name, m) for m in dict.fromkeys(disk.monitors)]
    return [(disk.kind, disk.name)]


def check_entries(disks: Iterable[DiskVolume]) -> Entries:
    """What a pending pod checks: (key, only a read-write holder conflicts)."""
    return [(key, d.read_only and d.kind != AWS_EBS)
            for d in disks if d.kind in CHECKED for key in _keys(d)]  # fmt: skip


def add_entries(disks: Iterable[DiskVolume]) -> Entries:
    """What a pod on a node holds: (key, read-write)."""
    return [(key, not d.read_only) for d in disks if d.kind in CHECKED for key in _keys(d)]


class VolumeRestrictions(NoArgs):
    """The VolumeRestrictions filter plugin."""

    name = NAME
    #: what ``prepare`` reads of a pod (a lone pod's state is kept by them)
    lone_fields = VOLUMES
    events_to_register = events((POD, DELETE), (NODE, ADD), (PVC, ADD | UPDATE))
    filters = True
    scores = False
    normalizes = False
    #: its interfaces in v1.23.6
    extension_points = frozenset({"preFilter", "filter"})
    kernels = kernels

    def prepare(self, snapshot: ClusterSnapshot, batch: PodBatch) -> tuple:
        return batch.prepared(NAME, snapshot, lambda: _state(snapshot, batch))

    def own_state(self, state: tuple) -> tuple:
        """Copies of the counts ``assume`` changes."""
        return (*state[:6], state[6].copy(), state[7].copy(), state[8])

    def empty_state(self) -> tuple:
        z, b = np.zeros(0, np.int64), np.zeros(0, np.bool_)
        counts = np.zeros((0, 0), np.int32)
        return (np.zeros(1, np.int64), z, b, np.zeros(1, np.int64), z, b, counts,
                counts.copy(), z)  # fmt: skip

    def filter_ignores_pods(self, state: tuple) -> np.ndarray:
        """The pods without check entries (``filter_node`` checks none)."""
        return np.diff(state[0]) == 0

    def filter_key(self, state: tuple) -> np.ndarray:
        """Pods with equal check entries get equal verdicts."""
        return state[8]

    def passes_all(self, state: tuple) -> bool:
        """No pod of the batch has a disk Filter checks."""
        return int(state[0][-1]) == 0

    def reasons(self, state: tuple, code: int) -> list[str]:
        assert code == CONFLICT, code
        return [ERR_REASON_DISK_CONFLICT]


def _flatten(rows: list[Entries], ids: dict[tuple[str, ...], int]
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
    """CSR of the entries whose key is in ``ids``: (ptr, key ids, flags)."""
    ptr = np.zeros(len(rows) + 1, dtype=np.int64)
    keys, flags = [], []
    for i, row in enumerate(rows):
        kept = [(ids[k], f) for k, f in row if k in ids]
        keys += [k for k, _ in kept]
        flags += [f for _, f in kept]
        ptr[i + 1] = len(keys)
    return ptr, np.array(keys, dtype=np.int64), np.array(flags, dtype=np.bool_)


def _held_elsewhere(checks: list[Entries], adds: list[Entries], bound: list[Entries]
                    ) -> list[Entries]:  # fmt: skip
    """The check entries whose key some other pod (bound, or pending and later bound)
    holds: a key only the pod itself holds never conflicts (the pod is never on a node
    while it is checked), so such entries are dropped, and pods whose disks are their own
    share the verdicts of pods without disks (one filter class)."""
    holders: dict[tuple[str, ...], int] = {}
    for row in (*adds, *bound):
        for key in {k for k, _ in row}:
            holders[key] = holders.get(key, 0) + 1
    out = []
    for check, add in zip(checks, adds, strict=True):
        own = {k for k, _ in add}
        out.append([(k, f) for k, f in check if holders.get(k, 0) > (k in own)])
    return out


def _state(snapshot: ClusterSnapshot, batch: PodBatch) -> tuple:
    """The state (see ``kernels``): nothing but empty lists when no pending pod holds a
    checked disk that another pod holds (the filter then passes every pod at no cost)."""
    n, b = snapshot.n_nodes, len(batch)
    if not any(map(_disks, batch.pods)):
        z, none = np.zeros(0, np.int64), np.zeros(0, np.bool_)
        ptr, counts = np.zeros(b + 1, np.int64), np.zeros((n, 0), np.int32)
        return (ptr, z, none, ptr.copy(), z, none, counts, counts.copy(), np.zeros(b, np.int64))
    adds = [add_entries(p.disks) if p.disks else [] for p in batch.pods]
    bound = [add_entries(p.disks) for p in snapshot.pods if p.disks]
    checks = [check_entries(p.disks) if p.disks else [] for p in batch.pods]
    checks = _held_elsewhere(checks, adds, bound)
    ids: dict[tuple[str, ...], int] = {}
    for row in checks:
        for key, _ in row:
            ids.setdefault(key, len(ids))
    groups: dict[tuple, int] = {(): 0}
    group = np.array([groups.setdefault(tuple(r), len(groups)) for r in checks], np.int64)
    any_count = np.zeros((n, len(ids)), dtype=np.int32)
    rw_count = np.zeros((n, len(ids)), dtype=np.int32)
    if ids:
        for pod, node in zip(snapshot.pods, snapshot.pod_node.tolist(), strict=True):
            for key, rw in add_entries(pod.disks) if pod.disks else ():
                k = ids.get(key)
                if k is not None:
                    any_count[node, k] += 1
                    rw_count[node, k] += rw
    return (*_flatten(checks, ids), *_flatten(adds, ids), any_count, rw_count,
            group.reshape(-1))  # fmt: skip
