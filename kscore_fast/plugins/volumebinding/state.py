"""VolumeBinding's state for a batch (``plugin.VolumeBinding.prepare``): the scalar
reference evaluated where verdicts never change (bound claims, per pod class and node
class) and the arrays the kernels bind claims with.

``STATE_FIELDS`` names the tuple's arrays in order: node classes (equal values of the
labels the volumes' node affinity and the classes' allowed topologies read), pod classes
(0: no claim, or PreFilter fails), the bound claims' reason bits per pod class and node
class, per pod class its claims to bind (volume order, and sorted by request), per claim
its candidate volumes (``FindMatchingVolume``'s static checks passed, smallest first, then
by name), per volume its node affinity row, per claim whether its class provisions and its
topology row, and what ``assume`` changes: each volume's owning claim, each claim's bound
volume and selected node; and per batch pod its slots (CSR ``pod_ptr``, one per claim to
bind) where ``assume`` records what Reserve decided (``r_claim``, ``r_vol``: the claim,
and the volume or ``PROVISIONED``; ``r_claim`` -1: not reserved); then per claim its row
of the storage capacity check (``hasEnoughCapacity``'s verdict on each node:
CSIStorageCapacity objects never change during a run, and ``assume`` consumes none).
"""

from __future__ import annotations

import dataclasses
import itertools
import weakref
from bisect import bisect_left
from fractions import Fraction
from typing import Any, NamedTuple

import msgspec
import numpy as np

from ...errors import UnsupportedError
from ...framework.result import volume_binding_entries
from ...model.disks import CSINodeRecord
from ...model.rows import unique_rows
from ...model.snapshot import ClusterSnapshot, PodBatch
from ...model.storage import NO_PROVISIONER, ClaimRecord, Storage, VolumeRecord
from ..helper.claims import claim_classes
from ..nodevolumelimits.translate import migration_mask
from . import kernels as k
from .capacity import Need, capacity_rows
from .complete import IN_TREE_PREFIX, complete
from .reference import (
    by_request,
    check_bound_claims,
    checks_capacity,
    is_volume_bound_to_claim,
    node_affinity_matches,
    pod_claims,
    pre_filter,
    topology_matches,
    volume_order,
)
from .translate import TranslationError, is_migratable, topology_keys

STATE_FIELDS = ("node_class", "pod_class", "bound_code", "pc_ptr", "pc_claims", "pc_sorted",
                "cand_ptr", "cand", "aff_row", "aff", "prov", "topo_row", "topo", "owner",
                "pre", "selected", "n_bound", "pod_ptr", "r_claim", "r_vol",
                "cap_row", "cap")  # fmt: skip
#: the fields ``assume`` changes
DYNAMIC = (13, 14, 15, 16, 18, 19)
#: the batch cache's key of the claims and volumes the states' indices name (per state:
#: :func:`records`)
RECORDS = "VolumeBinding.records"
#: the batch cache's key of the pods of each claim (:func:`_claim_readers`)
READERS = "VolumeBinding.readers"


def empty_state() -> tuple:
    i64, i32, b = np.int64, np.int32, np.bool_
    return (np.zeros(0, i32), np.zeros(0, i32), np.zeros((1, 1), i64), np.zeros(2, i64),
            np.zeros(0, i64), np.zeros(0, i64), np.zeros(1, i64), np.zeros(0, i64),
            np.zeros(0, i32), np.zeros((0, 0), b), np.zeros(0, b), np.zeros(0, i32),
            np.zeros((0, 0), b), np.zeros(0, i64), np.zeros(0, i64), np.zeros(0, i64),
            np.zeros(0, i64), np.zeros(1, i64), np.zeros(0, i64), np.zeros(0, i64),
            np.zeros(0, i32), np.zeros((0, 0), b))  # fmt: skip


def build(snapshot: ClusterSnapshot, batch: PodBatch) -> tuple:
    """The state (see the module's docstring)."""
    storage = snapshot.storage
    pod_class, reps = pod_classes(batch, storage)
    to_bind = [pod_claims(p, storage)[1] if p is not None else [] for p in reps]
    claims = list({(c.namespace, c.name): c for cs in to_bind for c in cs}.values())
    claim_id = {(c.namespace, c.name): i for i, c in enumerate(claims)}
    volumes = volume_order(storage)
    classes = [storage.classes[c.class_name] for c in claims]
    needs = [(cls.name, c.request_value) if checks_capacity(c, cls, storage) else None
             for c, cls in zip(claims, classes, strict=True)]  # fmt: skip
    keys = _keys(claims, volumes, needs, storage)
    node_class, node_labels = node_classes(snapshot, keys)
    node_class, node_labels, csi_nodes = split_by_migration(snapshot, volumes, node_class,
                                                            node_labels)  # fmt: skip
    bound_code = _bound_codes(reps, node_labels, storage, csi_nodes)
    pc_ptr, pc_claims, pc_sorted = _pod_class_claims(to_bind, claim_id)
    cand_ptr, cand, pre, owner, n_bound = _candidates(claims, volumes)
    aff_row, aff = _rows([v.node_affinity for v in volumes], node_class, node_labels,
                         node_affinity_matches)  # fmt: skip
    prov = np.array([c.provisioner not in ("", NO_PROVISIONER) for c in classes], np.bool_)
    topo_row, topo = _rows([c.allowed_topologies for c in classes], node_class, node_labels,
                           topology_matches)  # fmt: skip
    cap_row, cap = capacity_rows(needs, node_labels, storage)
    cap = cap[:, node_class]
    kept = batch.cache.setdefault(RECORDS, {})
    for key in [key for key, (ref, _) in kept.items() if ref() is None]:
        del kept[key]
    kept[id(node_class)] = (weakref.ref(node_class), (claims, volumes))
    node_index = snapshot.node_index
    selected = np.array([node_index.get(c.selected_node, k.OTHER_NODE) if c.selected_node
                         else k.NO_NODE for c in claims], np.int64).reshape(-1)  # fmt: skip
    pod_ptr = np.zeros(len(batch) + 1, dtype=np.int64)
    np.cumsum(np.diff(pc_ptr)[pod_class], out=pod_ptr[1:])
    r_claim = np.full(int(pod_ptr[-1]), -1, np.int64)
    r_vol = np.full(int(pod_ptr[-1]), k.PROVISIONED, np.int64)
    return (node_class, pod_class, bound_code, pc_ptr, pc_claims, pc_sorted, cand_ptr, cand,
            aff_row, aff, prov, topo_row, topo, owner, pre, selected, n_bound, pod_ptr,
            r_claim, r_vol, cap_row, cap)  # fmt: skip


def filter_key(s: tuple) -> np.ndarray:
    """int64[B]: ``VolumeBinding.filter_key`` of the state ``s``: per pod class, its bound
    claims' verdict row (among the distinct rows of ``bound_code``) when every claim it
    binds is provisioned anywhere, with room wherever its capacity is checked
    (``kernels.provisioned_anywhere`` decides on every node), else the class itself
    (numbered after the rows)."""
    pod_class, bound_code, pc_ptr, pc_claims = s[1], s[2], s[3], s[4]
    prov, topo_row, topo, selected = s[10], s[11], s[12], s[15]
    cap_row, cap = s[20], s[21]
    ok = (selected == k.NO_NODE) & prov & topo.all(axis=1)[topo_row] & cap.all(axis=1)[cap_row]
    bad = np.zeros(len(pc_claims) + 1, np.int64)  # (claims matching decides, cumulated)
    np.cumsum(~ok[pc_claims], out=bad[1:])
    simple = bad[pc_ptr[1:]] == bad[pc_ptr[:-1]]
    rows, row_of = unique_rows(bound_code)
    key = np.where(simple, row_of, len(rows) + np.arange(len(simple)))
    return key[pod_class].astype(np.int64)


def pod_classes(batch: PodBatch, storage: Storage) -> tuple[np.ndarray, list[Any]]:
    """int32[B]: each pod's class (0: no claim, or PreFilter fails it: never filtered;
    else one per namespace and claim names), and a pod of each class (None for class 0)."""
    return claim_classes(batch, lambda pod: pre_filter(pod, storage) is None)


def _keys(claims: list[ClaimRecord], volumes: list[VolumeRecord],
          needs: list[Need | None], storage: Storage) -> tuple[str, ...]:  # fmt: skip
    """The node label keys the verdicts read: the node affinity of the volumes (bound or
    candidates), the allowed topologies of the claims' classes and the node topology of
    the CSIStorageCapacities of the classes whose capacity is checked."""
    keys: set[str] = set()
    for volume in volumes:
        for term in volume.node_affinity or ():
            keys.update(r.key for r in term.match_expressions)
        keys.update(topology_keys(volume))
    for claim in claims:
        for term in storage.classes[claim.class_name].allowed_topologies:
            keys.update(key for key, _ in term)
    checked = {need[0] for need in needs if need is not None}
    for capacity in storage.capacities.values():
        if capacity.class_name in checked and capacity.node_topology is not None:
            keys.update(r.key for r in capacity.node_topology.requirements)
    return tuple(sorted(keys))


def node_classes(snapshot: ClusterSnapshot, keys: tuple[str, ...]
                 ) -> tuple[np.ndarray, list[dict[str, str]]]:  # fmt: skip
    """int32[N]: each node's class (equal values of the label ``keys``, absent ones
    apart); each class's labels (those keys only)."""
    if not keys:
        return np.zeros(snapshot.n_nodes, dtype=np.int32), [{}]
    ids: dict[tuple[tuple[str, str], ...], int] = {}
    of_node = [ids.setdefault(tuple((k, labels[k]) for k in keys if k in labels), len(ids))
               for labels in snapshot.node_labels]  # fmt: skip
    return np.array(of_node, dtype=np.int32).reshape(-1), [dict(key) for key in ids] or [{}]


def split_by_migration(
    snapshot: ClusterSnapshot,
    volumes: list[VolumeRecord],
    node_class: np.ndarray,
    node_labels: list[dict[str, str]],
) -> tuple[np.ndarray, list[dict[str, str]], list[CSINodeRecord | None]]:
    """The node classes split by the in-tree plugins each node's CSINode migrates (when
    a volume has an in-tree source that may be migrated), and a CSINode of each class
    (``checkBoundClaims`` translates by it; None: translate nothing)."""
    csi = snapshot.storage.csi_nodes
    if not csi or not snapshot.n_nodes or not any(map(is_migratable, volumes)):
        return node_class, node_labels, [None] * len(node_labels)
    mask = np.array([migration_mask(csi.get(n)) for n in snapshot.node_names], np.int64)
    pair = node_class.astype(np.int64) * (int(mask.max(initial=0)) + 1) + mask.reshape(-1)
    _, first, inverse = np.unique(pair, return_index=True, return_inverse=True)
    names = [snapshot.node_names[i] for i in first.tolist()]
    labels = [node_labels[node_class[i]] for i in first.tolist()]
    return inverse.astype(np.int32).reshape(-1), labels, [csi.get(n) for n in names]


def _bound_codes(reps: list[Any], node_labels: list[dict[str, str]], storage: Storage,
                 csi_nodes: list[CSINodeRecord | None]) -> np.ndarray:  # fmt: skip
    """int64[P, C]: the bound claims' reason bits (``checkBoundClaims``) of each pod
    class on each node class (of CSINode ``csi_nodes[c]``); classes whose bound claims'
    volumes are alike (absent, or of equal node affinity and, for in-tree disks that may
    be translated to CSI, equal source and labels, in order) share one evaluation."""
    out = np.zeros((len(reps), len(node_labels)), dtype=np.int64)
    rows: dict[tuple[Any, ...], list[int]] = {}
    for p, pod in enumerate(reps):
        bound = pod_claims(pod, storage)[0] if pod is not None else []
        if not bound:
            continue
        volumes = [storage.volumes.get(c.volume_name) for c in bound]
        alike = tuple(None if v is None else _alike(v) for v in volumes)
        row = rows.get(alike)
        if row is None:
            row = rows[alike] = _bound_row(pod, bound, node_labels, storage, csi_nodes)
        out[p] = row
    return out


def _alike(volume: VolumeRecord) -> tuple[Any, ...]:
    """What ``checkBoundClaims`` reads of a volume (its translation to CSI included)."""
    if not is_migratable(volume):
        return (volume.node_affinity,)
    return volume.node_affinity, volume.disk, tuple(sorted(volume.labels.items()))


def _bound_row(pod: Any, bound: list[ClaimRecord], node_labels: list[dict[str, str]],
               storage: Storage, csi_nodes: list[CSINodeRecord | None]) -> list[int]:  # fmt: skip
    """The bits on each node class; a volume whose translation to CSI fails there (Go's
    Filter error, which fails the scheduling cycle) is refused."""
    try:
        return [_bound_bits(bound, labels, storage, csi)
                for labels, csi in zip(node_labels, csi_nodes, strict=True)]  # fmt: skip
    except TranslationError as e:
        raise UnsupportedError(
            f"VolumeBinding: pod {pod.namespace}/{pod.name}: {e} on a node whose CSINode "
            "migrates its plugin (Go's Filter error): not simulated by kscore_fast yet"
        ) from None


def _bound_bits(bound: list[ClaimRecord], labels: dict[str, str], storage: Storage,
                csi_node: CSINodeRecord | None) -> int:  # fmt: skip
    satisfied, found = check_bound_claims(bound, labels, storage, csi_node)
    return (0 if satisfied else k.NODE_CONFLICT) | (0 if found else k.PV_NOT_EXIST)


def _pod_class_claims(to_bind: list[list[ClaimRecord]], claim_id: dict[Any, int]
                      ) -> tuple[np.ndarray, ...]:  # fmt: skip
    """Per pod class, its claims to bind: CSR (``pc_ptr``), in volume order and sorted."""
    ptr = np.zeros(len(to_bind) + 1, dtype=np.int64)
    np.cumsum([len(cs) for cs in to_bind], out=ptr[1:])
    ids = [claim_id[(c.namespace, c.name)] for cs in to_bind for c in cs]
    ranked = [claim_id[(c.namespace, c.name)] for cs in to_bind for c in by_request(cs)]
    return ptr, np.array(ids, np.int64), np.array(ranked, np.int64)


def _candidates(claims: list[ClaimRecord], volumes: list[VolumeRecord]
                ) -> tuple[np.ndarray, ...]:  # fmt: skip
    """Per claim its free candidate volumes (CSR, smallest first, then by name), its first
    pre-bound volume (-1: none) and how many are bound to it; per volume its owner (free,
    a claim, or taken). (Go finds the volumes bound to a claim in map order: with two or
    more, which one it meets first is random; here: the first by name.)"""
    owner = np.full(len(volumes), k.FREE, dtype=np.int64)
    pre = np.full(len(claims), -1, dtype=np.int64)
    n_bound = np.zeros(len(claims), dtype=np.int64)
    claim_id = {(c.namespace, c.name): i for i, c in enumerate(claims)}
    for v, volume in enumerate(volumes):
        ref = volume.claim_ref
        if ref is None:
            continue
        i = claim_id.get((ref[0], ref[1]), -1)
        claim = claims[i] if i >= 0 else None
        if (claim is not None and volume.class_name == claim.class_name
                and _fits(volume, claim) and is_volume_bound_to_claim(ref, claim)):  # fmt: skip
            pre[i] = v if pre[i] < 0 else pre[i]
            owner[v] = i
            n_bound[i] += 1
        else:
            owner[v] = k.TAKEN
    lists = _free_candidates(claims, volumes)
    ptr = np.zeros(len(lists) + 1, dtype=np.int64)
    np.cumsum([len(x) for x in lists], out=ptr[1:])
    cand = np.concatenate(lists) if lists else np.zeros(0, np.int64)
    return ptr, cand.astype(np.int64), pre, owner, n_bound


def _free_candidates(claims: list[ClaimRecord], volumes: list[VolumeRecord]
                     ) -> list[np.ndarray]:  # fmt: skip
    """Per claim, the volumes without a claim reference that it may bind (class, volume
    mode, access modes, selector, available, not deleting, capacity at least its request),
    smallest first, then by name. Claims alike but for their request share one sorted
    list, of which each takes the tail its request allows."""
    by_class: dict[str, list[int]] = {}
    for v, volume in enumerate(volumes):
        if volume.claim_ref is None and volume.available and not volume.deleting:
            by_class.setdefault(volume.class_name, []).append(v)
    shapes: dict[Any, tuple[list[Fraction], np.ndarray]] = {}
    out = []
    for claim in claims:
        shape = (claim.class_name, claim.volume_mode, frozenset(claim.access_modes),
                 claim.selector)  # fmt: skip
        found = shapes.get(shape)
        if found is None:
            fits = [v for v in by_class.get(claim.class_name, ())
                    if _available_for(volumes[v], claim)
                    and volumes[v].volume_mode == claim.volume_mode]  # fmt: skip
            fits.sort(key=lambda v: (volumes[v].capacity, v))
            found = shapes[shape] = ([volumes[v].capacity for v in fits],
                                     np.array(fits, dtype=np.int64))  # fmt: skip
        out.append(found[1][bisect_left(found[0], claim.request) :])
    return out


def _fits(volume: VolumeRecord, claim: ClaimRecord) -> bool:
    """``FindMatchingVolume``'s first checks: capacity, volume mode, not being deleted."""
    return (volume.capacity >= claim.request and volume.volume_mode == claim.volume_mode
            and not volume.deleting)  # fmt: skip


def _available_for(volume: VolumeRecord, claim: ClaimRecord) -> bool:
    """The checks of a volume not bound to the claim (but its node affinity)."""
    if not volume.available:
        return False
    if claim.selector is not None and not claim.selector.matches(volume.labels):
        return False
    return set(claim.access_modes) <= set(volume.access_modes)


def _rows(values: list[Any], node_class: np.ndarray, node_labels: list[dict[str, str]],
          match: Any) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """(int32 row of each value, bool[rows, N]): ``match(value, labels)`` of each distinct
    value on each node (through the node classes)."""
    ids: dict[Any, int] = {}
    row = np.array([ids.setdefault(v, len(ids)) for v in values], np.int32).reshape(-1)
    table = np.array([[match(v, labels) for labels in node_labels] for v in ids], np.bool_)
    table = table.reshape(len(ids), len(node_labels))
    return row, table[:, node_class] if len(ids) else np.zeros((0, len(node_class)), np.bool_)


def assumed_storage(s: tuple, snapshot: ClusterSnapshot, batch: PodBatch,
                    base: Storage | None = None) -> Storage:  # fmt: skip
    """``base``'s storage objects (default: ``snapshot``'s) with what ``assume`` changed in
    the state ``s`` (made for ``snapshot`` and ``batch``): volumes owned by a claim get it
    as their claim reference, claims selected for a node get it as their selected node;
    objects that ``base`` holds changed since (bindings completed) are kept as they are."""
    claims, volumes = records(s, batch)
    storage = snapshot.storage if base is None else base
    owner, selected = s[13], s[15]
    out = dataclasses.replace(storage, claims=dict(storage.claims),
                              volumes=dict(storage.volumes))  # fmt: skip
    for v in np.flatnonzero(owner >= 0).tolist():
        claim, volume = claims[int(owner[v])], volumes[v]
        ref = (claim.namespace, claim.name, claim.uid)
        if (not is_volume_bound_to_claim(volume.claim_ref, claim)
                and storage.volumes.get(volume.name) is volume):  # fmt: skip
            out.volumes[volume.name] = msgspec.structs.replace(volume, claim_ref=ref)
    for i in np.flatnonzero(selected >= 0).tolist():
        claim = claims[i]
        key = (claim.namespace, claim.name)
        if storage.claims.get(key) is claim:
            node = snapshot.node_names[int(selected[i])]
            out.claims[key] = msgspec.structs.replace(claim, selected_node=node)
    return out


def reserved(s: tuple, batch: PodBatch, pod: int) -> list[tuple[str, str | None]]:
    """What Reserve (``AssumePodVolumes``) decided for batch pod ``pod`` of the state
    ``s`` (made for ``batch``), in ``PodVolumes``' order: (claim name, volume name) per
    static binding, then (claim name, None) per claim to provision on the pod's host;
    empty when no Reserve assumed a volume or claim of the pod."""
    lo, hi = int(s[17][pod]), int(s[17][pod + 1])
    if hi == lo or s[18][lo] < 0:
        return []
    claims, volumes = records(s, batch)
    return [(claims[c].name, volumes[v].name if v >= 0 else None)
            for c, v in zip(s[18][lo:hi].tolist(), s[19][lo:hi].tolist(), strict=True)]  # fmt: skip


def reserved_pods(s: tuple, pods: np.ndarray) -> np.ndarray:
    """bool per batch pod of ``pods``: :func:`reserved` holds a decision for it."""
    lo, hi = s[17][pods], s[17][pods + 1]
    out = hi > lo
    out[out] = s[18][lo[out]] >= 0
    return out


def records(s: tuple, batch: PodBatch) -> tuple[list[ClaimRecord], list[VolumeRecord]]:
    """The claims and volumes the indices of the state ``s`` (made for ``batch``) name:
    kept per state (its ``node_class`` array, which copies share), as a run whose
    bindings complete, and its copies, make states for several snapshots."""
    ref, found = batch.cache.get(RECORDS, {}).get(id(s[0]), (lambda: None, ([], [])))
    return found if ref() is s[0] else ([], [])


def binds_claims(s: tuple) -> np.ndarray:
    """bool[B]: the batch pods with claims to bind (a Reserve placing one binds them)."""
    return np.diff(s[17]) > 0


class Completed(NamedTuple):
    """What completing a pod's bindings changed: the storage objects after, the pod's
    ``volumeBindings``, the batch pods that read a claim it bound (``readers``), and
    whether the plugins' views of pods already bound may differ (``bound_views``: a
    claim matched to an existing volume that the volume limits count otherwise than
    they counted the claim unbound; a provisioned claim's new volume counts as its
    claim did)."""

    storage: Storage
    entries: list[dict[str, Any]]
    readers: np.ndarray
    bound_views: bool


def completed_storage(s: tuple, snapshot: ClusterSnapshot, batch: PodBatch, pod: int,
                      host: int, base: Storage) -> Completed | None:  # fmt: skip
    """``base`` (the storage objects after the bindings completed so far; the state ``s``
    was made for ``snapshot`` and ``batch``) once batch pod ``pod``'s bindings, which
    Reserve decided in ``s`` for node ``host``, completed (:mod:`.complete`); None:
    Reserve decided nothing for it."""
    decided = reserved(s, batch, pod)
    if not decided:
        return None
    node, namespace = snapshot.node_names[host], batch.pods[pod].namespace
    # (every earlier pod's decisions completed in ``base`` already: this pod's only)
    storage, made = complete(base, namespace, decided, node, snapshot.node_labels[host],
                             snapshot.node_labels)  # fmt: skip
    provisioned = [m if v is None else None for (_, v), m in zip(decided, made, strict=True)]
    index = _claim_readers(batch)
    readers = [index.get((namespace, c), ()) for c, _ in decided]
    views = any(not _counted_alike(base, storage, namespace, c, v) for c, v in decided)
    return Completed(storage, volume_binding_entries(decided, node, provisioned),
                     np.fromiter(itertools.chain(*readers), np.int64), views)  # fmt: skip


def _counted_alike(storage: Storage, after: Storage, namespace: str, claim_name: str,
                   volume_name: str | None) -> bool:  # fmt: skip
    """The volume limits count the claim bound to the volume (None: the one provisioned
    for it, in ``after``) as they counted it unbound: a CSI volume of the driver that the
    claim's class names as provisioner, not an in-tree one (the CSI limit counts one
    volume of that driver either way, the in-tree limits neither)."""
    claim = storage.claims[(namespace, claim_name)]
    if volume_name is None:  # (provisioned: a migrated in-tree plugin's has its disk id)
        made = after.claims[(namespace, claim_name)].volume_name
        return not made or after.volumes[made].disk is None
    volume = storage.volumes[volume_name]
    cls = storage.classes.get(claim.class_name)
    return (cls is not None and volume.disk is None and volume.csi_driver != ""
            and volume.csi_driver == cls.provisioner
            and not cls.provisioner.startswith(IN_TREE_PREFIX))  # fmt: skip


def _claim_readers(batch: PodBatch) -> dict[tuple[str, str], list[int]]:
    """(namespace, claim name) → the batch pods with a volume of that claim (kept in the
    batch's cache)."""
    index = batch.cache.get(READERS)
    if index is None:
        index = {}
        for i, pod in enumerate(batch.pods):
            for claim in dict.fromkeys(pod.claims):
                index.setdefault((pod.namespace, claim), []).append(i)
        batch.cache[READERS] = index
    return index
