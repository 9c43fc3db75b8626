"""The volume limits: NodeVolumeLimits (CSI, csi.go) and EBSLimits, GCEPDLimits,
AzureDiskLimits, CinderLimits (non_csi.go) of pkg/scheduler/framework/plugins/nodevolumelimits.
State layout: see ``kernels``; the scalar port is ``reference``.

``prepare`` resolves every pod's volumes once per node class with the reference's own
functions, and folds the bound pods into the node counts; with no pending pod holding a
volume the filter counts, the state is empty lists and the filter passes at no cost.
"""

from __future__ import annotations

from operator import attrgetter
from typing import ClassVar

import numpy as np

from ...errors import UnsupportedError
from ...framework.cluster_events import ADD, CSI_NODE, DELETE, NODE, POD, events
from ...framework.search import ERROR_FLAG
from ...model.disks import CSINodeRecord
from ...model.objects import PodRecord
from ...model.rows import unique_rows
from ...model.snapshot import ClusterSnapshot, PodBatch
from ..helper import counter_table as table
from ..helper.base import NoArgs
from ..helper.ephemeral import foreign_claim, volume_is_for_pod
from ..helper.pod_fields import VOLUMES
from ..helper.texts import text_at, text_table
from . import kernels
from .kernels import EXCEEDED
from .reference import (
    AZURE,
    CINDER_LIMITS,
    EBS,
    ERR_REASON_MAX_VOLUME_COUNT,
    GCE,
    LOOKUP_ERROR,
    OWNER_ERROR,
    ClaimError,
    NonCSI,
    csi_volumes,
    non_csi_volumes,
    volume_limits,
)
from .translate import is_csi_migration_on, migration_mask

_claims, _disks = attrgetter("claims"), attrgetter("disks")


class _Limits(NoArgs):
    """What the five limit plugins share; ``spec`` None: the CSI one."""

    spec: ClassVar[NonCSI | None] = None
    filters = True
    scores = False
    normalizes = False
    extension_points = frozenset({"filter"})
    events_to_register = events((NODE, ADD), (POD, DELETE))
    kernels = kernels
    reads_storage = True
    #: what ``prepare`` reads of a pod (a lone pod's state is kept by them)
    lone_fields = VOLUMES

    def prepare(self, snapshot: ClusterSnapshot, batch: PodBatch) -> tuple:
        return batch.prepared(self.name, snapshot, lambda: _Builder(self, snapshot, batch).state())

    def own_state(self, state: tuple) -> tuple:
        """Copies of the counts ``assume`` changes (``bad`` only when some batch pod's
        binding changes it)."""
        bad = state[16].copy() if state[17].any() else state[16]
        return (*state[:5], *(a.copy() for a in state[5:9]), *state[9:15], state[15].copy(),
                bad, state[17])  # fmt: skip

    def empty_state(self) -> tuple:
        z = np.zeros(0, np.int64)
        return (z, np.zeros(0, np.bool_), np.zeros(1, np.int64), z, z, *table.new_table(0),
                np.zeros((0, 0), np.int32),
                np.zeros((0, 0), np.int64), z, np.array([0, 1], np.int64),
                np.zeros(0, np.int64), np.zeros(1, np.int64), np.zeros(0, np.uint8), z,
                np.zeros((0, 4), np.int64), z)  # fmt: skip

    def filter_ignores_pods(self, state: tuple) -> np.ndarray:
        """The pods with a lookup error (the same verdict everywhere) or no volume to
        count on any node class (``filter_node`` passes them)."""
        ent_ptr, code, classes = state[2], state[10], int(state[11][1])
        rows = ent_ptr[:: max(classes, 1)][: len(code) + 1]
        none = np.diff(rows) == 0 if classes else np.ones(len(code), np.bool_)
        return (code != 0) | none

    def passes_all(self, state: tuple) -> bool:
        """No pod of the batch has a volume the limit counts, nor an error of its own."""
        return int(state[2][-1]) == 0 and not state[10].any()

    def filter_key(self, state: tuple) -> np.ndarray:
        return filter_key(state)

    def reasons(self, state: tuple, code: int) -> list[str]:
        if code == EXCEEDED:
            return [ERR_REASON_MAX_VOLUME_COUNT]
        return [text_at(state[13], state[14], (code & ~ERROR_FLAG) - EXCEEDED - 1)]

    def unresolvable(self, state: tuple, code: int) -> bool:
        """The count is ``Unschedulable`` (the errors fail the cycle: no node's status)."""
        return code != EXCEEDED


def filter_key(state: tuple) -> np.ndarray:
    """int64[B]: pods with equal keys get equal verdicts on every node. A pod whose
    volumes no node holds yet adds all of them wherever it goes: its verdicts depend on
    how many of them each limit key has (per node class), not on which they are. Other
    pods: their group (equal volumes); a failed lookup: its code."""
    ent_ptr, ent_vol, vol_key = state[2], state[3], state[4]
    count, code, group, held = state[8], state[10], state[12], state[15] > 0
    n_pods = len(code)
    if n_pods == 0:
        return np.zeros(0, np.int64)
    rows = np.repeat(np.arange(len(ent_ptr) - 1), np.diff(ent_ptr))  # (each entry's row)
    per_row = np.zeros((len(ent_ptr) - 1, count.shape[1]), np.int64)
    np.add.at(per_row, (rows, vol_key[ent_vol]), 1)
    n_held = np.zeros(len(ent_ptr) - 1, np.int64)
    np.add.at(n_held, rows, held[ent_vol])
    fresh = n_held.reshape(n_pods, -1).sum(axis=1) == 0
    keys = np.concatenate([code.reshape(-1, 1), np.where(fresh, -1, group).reshape(-1, 1),
                           per_row.reshape(n_pods, -1) * fresh.reshape(-1, 1)], axis=1)  # fmt: skip
    return unique_rows(keys)[1]


class NodeVolumeLimits(_Limits):
    """The NodeVolumeLimits filter plugin (csi.go)."""

    name = "NodeVolumeLimits"
    events_to_register = events((CSI_NODE, ADD), (POD, DELETE))


def _non_csi(spec: NonCSI) -> type[_Limits]:
    """The plugin class of a non-CSI limit (non_csi.go ``newNonCSILimits``)."""
    doc = f"The {spec.name} filter plugin (non_csi.go)."
    return type(spec.name, (_Limits,), {"name": spec.name, "spec": spec, "__doc__": doc})


EBSLimits = _non_csi(EBS)
GCEPDLimits = _non_csi(GCE)
AzureDiskLimits = _non_csi(AZURE)
CinderLimits = _non_csi(CINDER_LIMITS)


class _Builder:
    """The state of one plugin for one (snapshot, batch)."""

    def __init__(self, plugin: _Limits, snapshot: ClusterSnapshot, batch: PodBatch) -> None:
        self.name, self.spec, self.snapshot, self.batch = plugin.name, plugin.spec, snapshot, batch
        self.storage = snapshot.storage
        self.vols: dict[str, int] = {}
        self.keys: dict[str, int] = {} if self.spec is None else {self.spec.limit_key: 0}
        self.vol_key: list[int] = []

    def _classes(self) -> tuple[np.ndarray, list[CSINodeRecord | None]]:
        """Each node's class and a CSINode of each (CSI: by migration mask; else one)."""
        if self.spec is not None:
            return np.zeros(self.snapshot.n_nodes, np.int64), [None]
        ids: dict[int, int] = {}
        reps: list[CSINodeRecord | None] = []
        of = []
        for name in self.snapshot.node_names:
            csi_node = self.storage.csi_nodes.get(name)
            c = ids.get(mask := migration_mask(csi_node))
            if c is None:
                c = ids[mask] = len(reps)
                reps.append(csi_node)
            of.append(c)
        return np.array(of, dtype=np.int64).reshape(-1), reps or [None]

    def _ids(self, pod: PodRecord, csi_node: CSINodeRecord | None) -> list[int]:
        """The interned volumes of ``pod`` (an existing pod's view: absent claims skipped)."""
        if self.spec is not None:
            named = dict.fromkeys(non_csi_volumes(self.spec, pod, False, self.storage), "")
        else:
            named = csi_volumes(pod, csi_node, False, self.storage)
        out = []
        for unique, key in sorted(named.items()):
            v = self.vols.get(unique)
            if v is None:
                v = self.vols[unique] = len(self.vols)
                self.vol_key.append(self.keys.setdefault(key, len(self.keys)) if key else 0)
            out.append(v)
        return out

    def _lookup_error(self, pod: PodRecord) -> str | None:
        """The error of a pending pod's first claim that is absent, or that an ephemeral
        volume names but another owns (Go's ``Error`` status), or None."""
        claims, ephemeral = self.storage.claims, pod.ephemeral
        for i, name in enumerate(pod.claims):
            claim = claims.get((pod.namespace, name))
            if claim is None:
                return LOOKUP_ERROR.format(self.name, pod.namespace, name, name)
            if ephemeral and i in ephemeral and (error := volume_is_for_pod(pod, claim)):
                return OWNER_ERROR.format(self.name, error)
        return None

    def state(self) -> tuple:
        pods = self.batch.pods
        relevant = any(map(_claims, pods)) or any(map(_disks, pods))
        if not relevant:
            return self._nothing()
        node_class, reps = self._classes()
        n_classes = len(reps)
        errors: dict[str, int] = {}
        code = np.zeros(len(pods), dtype=np.int64)
        ptr, ent, rows = [0], [], {}
        group = np.zeros(len(pods), dtype=np.int64)
        for p, pod in enumerate(pods):
            error = self._lookup_error(pod) if pod.claims else None
            if error is not None:  # (Go's Error status: the cycle fails with it)
                code[p] = ERROR_FLAG | (EXCEEDED + 1 + errors.setdefault(error, len(errors)))
            try:  # (a pod with an error fits nowhere: its volumes count if it is bound)
                per_class = [self._ids(pod, c) if pod.claims or pod.disks else [] for c in reps]
            except ClaimError:  # (an ephemeral volume's claim another owns)
                per_class = [[] for _ in reps]
            for ids in per_class:
                ent += ids
                ptr.append(len(ent))
            group[p] = rows.setdefault((int(code[p]), *map(tuple, per_class)), len(rows))
        ent_ptr, ent_vol = np.array(ptr, np.int64), np.array(ent, np.int64).reshape(-1)
        ref, count, holders, bad = self._bound(node_class, reps, len(ent_vol), errors)
        pod_bad = self._pod_errors(errors)
        if self.spec is None and (bad[:, 0].any() or pod_bad.any()):
            self._with_limits(bad)
        meta = np.array([int(self.spec is None), n_classes], np.int64)
        return (node_class, self._skip(), ent_ptr, ent_vol,
                np.array(self.vol_key, np.int64).reshape(-1), *ref, count, self._limits(),
                code, meta, group, *text_table(list(errors)), holders, bad, pod_bad)  # fmt: skip

    def _nothing(self) -> tuple:
        """The state when no pending pod has a volume the filter counts: it passes all.
        Its per-node arrays are kept on the snapshot (never written: ``own_state`` copies
        the counts ``assume`` changes)."""
        b = len(self.batch)
        nodes = self.snapshot.kept((self.name, "nothing"), len(self.keys), self._no_volumes)
        zeros = np.zeros(b, np.int64)
        return (*nodes[:2], np.zeros(b + 1, np.int64), *nodes[2:9], zeros, nodes[9],
                zeros.copy(), *nodes[10:], zeros.copy())  # fmt: skip

    def _no_volumes(self) -> tuple:
        """The parts of :meth:`_nothing` that depend on the nodes only."""
        n = self.snapshot.n_nodes
        meta = np.array([int(self.spec is None), 1], np.int64)
        return (np.zeros(n, np.int64), np.zeros(n, np.bool_), np.zeros(0, np.int64),
                np.zeros(0, np.int64), *table.new_table(0),
                np.zeros((n, len(self.keys)), np.int32), self._limits(), meta,
                *text_table([]), np.zeros(0, np.int64), np.zeros((n, 4), np.int64))  # fmt: skip

    def _bound(self, node_class: np.ndarray, reps: list[CSINodeRecord | None], pending: int,
               errors: dict[str, int]) -> tuple[tuple[np.ndarray, ...], np.ndarray, np.ndarray,
                                                 np.ndarray]:  # fmt: skip
        """``ref`` (a sparse table sized for the bound pods' volumes and ``pending`` more
        entries), ``count`` and ``holders`` of the bound pods (none when no pending pod
        counts), and ``bad`` (the kernels' docstring; its texts join ``errors``)."""
        nodes: list[int] = []
        held: list[int] = []
        bad = np.zeros((self.snapshot.n_nodes, 4), np.int64)
        if len(self.vols):
            for pod, node in zip(self.snapshot.pods, self.snapshot.pod_node.tolist(), strict=True):
                if pod.claims or pod.disks:
                    try:
                        ids = self._ids(pod, reps[node_class[node]])
                    except ClaimError as e:  # (Go's Filter error on that node)
                        self._held_error(bad, node, pod, self._code(errors, e))
                        continue
                    nodes += [node] * len(ids)
                    held += ids
        n_vols = len(self.vols)
        keys, n = np.unique(np.array(nodes, np.int64) * n_vols + np.array(held, np.int64),
                            return_counts=True)  # fmt: skip
        ref = table.new_table(len(keys) + pending)
        table.fill(*ref, keys.astype(np.int64), n.astype(np.int64))
        count = np.zeros((self.snapshot.n_nodes, len(self.keys)), dtype=np.int32)
        vol_key = np.array(self.vol_key, np.int64).reshape(-1)
        np.add.at(count, (keys // max(n_vols, 1), vol_key[keys % max(n_vols, 1)]), 1)
        holders = np.bincount(keys % max(n_vols, 1), minlength=n_vols).astype(np.int64)
        return ref, count, holders, bad

    def _code(self, errors: dict[str, int], e: ClaimError) -> int:
        """The failure code of a pod on a node's ownership error (its text interned)."""
        return EXCEEDED + 1 + errors.setdefault(OWNER_ERROR.format(self.name, e.args[0]),
                                                len(errors))  # fmt: skip

    def _held_error(self, bad: np.ndarray, node: int, pod: PodRecord, code: int) -> None:
        """Bound pod ``pod``'s error recorded on its node (``NodeInfo.Pods`` order: the
        snapshot's); three or more such pods on one node are refused (which is first
        after a deletion depends on the order ``RemovePod`` leaves)."""
        n = int(bad[node, 0])
        if n == 2:
            raise UnsupportedError(
                f"{self.name}: node {pod.node_name} holds three or more pods whose ephemeral "
                f"volume's claim another owns (pod {pod.namespace}/{pod.name}): not simulated "
                "by kscore_fast"
            )
        bad[node, 1 + n] = code
        bad[node, 0] = n + 1

    def _with_limits(self, bad: np.ndarray) -> None:
        """``bad[:, 3]``: ``getVolumeLimits`` gives the node some limit (CSI)."""
        csi_nodes = self.storage.csi_nodes
        for n, node in enumerate(self.snapshot.nodes):
            bad[n, 3] = bool(volume_limits(node, csi_nodes.get(node.name)))

    def _pod_errors(self, errors: dict[str, int]) -> np.ndarray:
        """int64[B]: each batch pod's error code as a pod on a node (0: none)."""
        out = np.zeros(len(self.batch), np.int64)
        for p, pod in enumerate(self.batch.pods):
            if pod.ephemeral and (error := foreign_claim(pod, self.storage.claims)) is not None:
                out[p] = EXCEEDED + 1 + errors.setdefault(OWNER_ERROR.format(self.name, error),
                                                          len(errors))  # fmt: skip
        return out

    def _skip(self) -> np.ndarray:
        """bool[N]: the node's CSINode says the non-CSI filter's plugin is migrated."""
        csi_nodes = self.storage.csi_nodes
        if self.spec is None or not csi_nodes:
            return np.zeros(self.snapshot.n_nodes, np.bool_)
        plugin = self.spec.provisioner
        return np.array([is_csi_migration_on(csi_nodes.get(n), plugin)
                         for n in self.snapshot.node_names], np.bool_).reshape(-1)  # fmt: skip

    def _limits(self) -> np.ndarray:
        """int64[N, L]: each node's limit of each key (-1: none)."""
        nodes, csi_nodes = self.snapshot.nodes, self.storage.csi_nodes
        out = np.full((len(nodes), len(self.keys)), -1, dtype=np.int64)
        if not len(self.vols):
            return out
        for n, node in enumerate(nodes):
            if self.spec is not None:
                out[n, 0] = self.spec.max_volumes(node)
                continue
            limits = volume_limits(node, csi_nodes.get(node.name))
            for key, k in self.keys.items():
                out[n, k] = limits.get(key, -1)
        return out
