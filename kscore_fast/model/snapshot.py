"""The columnar cluster snapshot and the batch of pending pods.

:func:`build_cluster` plays the part of kube-scheduler's cache and informers: nodes enter
in the order given and are listed in node-tree order (:mod:`.topology`); pods bound to a
node are the node's pods (pods bound to an unknown node are left out, as
``cache.UpdateSnapshot`` skips node infos without a node); ``Succeeded``/``Failed`` pods
are dropped as the scheduler's pod informer drops them; pods without a node are the
pending batch, except those being deleted (``deletionTimestamp`` set), which
kube-scheduler's ``skipPodSchedule`` passes over.

Everything per pod or per node is a NumPy column; label sets are
:class:`~kscore_fast.model.labels.LabelTable` objects over one shared
:class:`~kscore_fast.model.labels.LabelInterner` (plugins take value-id columns of the
keys they declare).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from itertools import repeat
from operator import attrgetter
from typing import Any

import msgspec
import numpy as np

from . import priority
from .collection import collection_paused
from .disruption import BudgetRecord
from .labels import LabelInterner, LabelTable
from .objects import (
    RC_KIND,
    RS_KIND,
    SS_KIND,
    ContainerRecord,
    ControllerRecord,
    NamespaceRecord,
    NodeRecord,
    OwnerReference,
    PodRecord,
    PriorityClassRecord,
    ServiceRecord,
    controller_of,
)
from .storage import NO_STORAGE, Storage
from .topology import node_tree_order, zone_key

#: codes of ``PodBatch.controller_kind``
NO_CONTROLLER, RC_CONTROLLER, RS_CONTROLLER, SS_CONTROLLER = 0, 1, 2, 3
_KIND_CODES = {RC_KIND: RC_CONTROLLER, RS_KIND: RS_CONTROLLER, SS_KIND: SS_CONTROLLER}

TERMINATED_PHASES = ("Succeeded", "Failed")
_TERMINATED = frozenset(TERMINATED_PHASES)


@dataclass(eq=False, repr=False)
class ClusterSnapshot:
    """Nodes in node-tree order, the pods bound to them, services and controllers.

    ``cache`` holds per-plugin preparations of this snapshot (the snapshot itself is
    never modified after :func:`build_cluster`).
    """

    node_names: list[str]
    node_labels: list[dict[str, str]]
    #: the node records, in node-tree order (``nodes[i]`` is node ``i``)
    nodes: list[NodeRecord]
    #: int32[N]: the input position of node ``i`` (the order the cache added nodes in)
    node_input_order: np.ndarray
    #: int32[N]: index into ``zone_keys``, -1 for a node without zone
    node_zone: np.ndarray
    zone_keys: list[str]
    namespaces: list[str]
    labels: LabelInterner
    pods: list[PodRecord]
    pod_ns: np.ndarray
    pod_labels: LabelTable
    pod_node: np.ndarray
    pod_deleting: np.ndarray
    services: list[ServiceRecord]
    #: kind → records; ``controller_index`` maps (kind, namespace, name) → position
    controllers: dict[str, list[ControllerRecord]]
    controller_index: dict[tuple[str, str, str], int]
    #: labels of the input's ``Namespace`` objects, by name (a namespace without an
    #: object is absent, as it is from the scheduler's namespace lister)
    namespace_labels: dict[str, dict[str, str]] = field(default_factory=dict)
    #: each node's ``NodeInfo.ImageStates`` (node-tree order) when the cache's history
    #: is not the nodes added in input order (a simulator's node adds and removes);
    #: None: computed from the input order
    image_states: list[dict[str, Any]] | None = None
    #: node name → the (ip, protocol, port) of its ``NodeInfo.UsedPorts`` when the
    #: cache's history is not the bound pods' ports added (a simulator's deletions: a
    #: port two pods use is freed by either); None: the bound pods' ports
    used_ports: dict[str, list[tuple[str, str, int]]] | None = None
    #: PersistentVolumeClaims, PersistentVolumes and StorageClasses (the volume plugins')
    storage: Storage = NO_STORAGE
    cache: dict[str, Any] = field(default_factory=dict)

    @property
    def n_nodes(self) -> int:
        return len(self.node_names)

    def __repr__(self) -> str:
        n_ctrl = sum(len(c) for c in self.controllers.values())
        return (f"ClusterSnapshot({self.n_nodes} nodes, {len(self.pods)} bound pods, "
                f"{len(self.services)} services, {n_ctrl} controllers)")  # fmt: skip

    @property
    def node_index(self) -> dict[str, int]:
        """Node name → node index (built once; never modify it)."""
        index = self.cache.get("node_index")
        if index is None:
            index = self.cache["node_index"] = {n: i for i, n in enumerate(self.node_names)}
        return index

    def kept(self, family: str, key: Any, build: Callable[[], Any], limit: int = 64) -> Any:
        """``build()``, kept in :attr:`cache` under ``(family, key)``: a part of a plugin's
        state that depends on this snapshot and on a small key (a selector space, a set of
        label keys), never on a batch; the ``limit`` last used keys of a family are kept
        (lone pods of ever new shapes do not grow the snapshot without bound). What it
        returns is shared: never write it."""
        memo = self.cache.get(family)
        if memo is None:
            memo = self.cache[family] = {}
        got = memo.pop(key, None)
        if got is None:
            got = build()
            if len(memo) >= limit:
                del memo[next(iter(memo))]
        memo[key] = got  # (last used last)
        return got

    def pods_with_affinity(self) -> list[int]:
        """The bound pods with pod affinity or anti-affinity terms (``NodeInfo``'s
        ``PodsWithAffinity``), in order (built once; never modify it)."""
        got = self.cache.get("pods_with_affinity")
        if got is None:
            got = self.cache["pods_with_affinity"] = [
                i for i, p in enumerate(self.pods)
                if p.pod_affinity is not None or p.pod_anti_affinity is not None
            ]  # fmt: skip
        return got


@dataclass(eq=False, repr=False)
class PodBatch:
    """The pending pods, in batch order, as columns over the snapshot's vocabularies."""

    pods: list[PodRecord]
    ns: np.ndarray
    labels: LabelTable
    #: int8[B]: NO/RC/RS/SS_CONTROLLER of the pod's controller reference
    controller_kind: np.ndarray
    #: int32[B]: position of that controller in ``snapshot.controllers[kind]``, -1 if absent
    controller_idx: np.ndarray
    #: bool[B]: the pod has ``spec.topologySpreadConstraints``
    has_spread_constraints: np.ndarray
    #: int32[B]: node index of ``status.nominatedNodeName``, -1 if none or unknown
    nominated: np.ndarray
    #: ``namespace/name`` of every pod
    names: list[str] = field(default_factory=list)
    #: per-plugin preparations of this batch (the batch is never modified)
    cache: dict[str, Any] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.pods)

    def __repr__(self) -> str:
        return f"PodBatch({len(self.pods)} pending pods)"

    def prepared(self, key: str, snapshot: Any, build: Callable[[], Any]) -> Any:
        """``build()``, kept in :attr:`cache` under ``key`` for ``snapshot``: a plugin's
        preparation of this batch against that snapshot, made again for another."""
        cached = self.cache.get(key)
        if cached is not None and cached[0] is snapshot:
            return cached[1]
        built = build()
        self.cache[key] = (snapshot, built)
        return built


@dataclass(eq=False, repr=False)
class Cluster:
    snapshot: ClusterSnapshot
    batch: PodBatch
    #: pods bound to nodes absent from the input (left out)
    orphaned_pods: int = 0
    #: Succeeded/Failed pods (ignored)
    terminated_pods: int = 0
    #: pending pods being deleted (not scheduled, as kube-scheduler skips them)
    deleting_pending_pods: int = 0
    #: pending pods with PersistentVolumeClaim (or generic ephemeral) volumes
    pvc_pending_pods: int = 0
    #: objects of kinds the scheduler does not read, by kind (filled by the loader)
    skipped_kinds: dict[str, int] = field(default_factory=dict)
    #: special files, broken links and link loops passed over in directories (loader)
    skipped_files: int = 0
    #: directories given that hold no manifest file (loader)
    empty_dirs: list[str] = field(default_factory=list)
    #: the input's PriorityClasses (:mod:`.priority`: the Priority admission plugin)
    priority_classes: list[PriorityClassRecord] = field(default_factory=list)
    #: pods the Priority admission plugin refuses: key → the API server's message (the
    #: pending ones are not scheduled: their results say so)
    refused_pods: dict[str, str] = field(default_factory=dict)
    #: pods whose ``spec.priority`` differs from their class's value: (key, theirs, class)
    differing_priorities: list[tuple[str, int, int]] = field(default_factory=list)
    #: pending pods added for what the input's workloads lack, by workload kind
    #: (``load_cluster(expand_workloads=True)``)
    expanded_workloads: dict[str, int] = field(default_factory=dict)
    #: the input's PodDisruptionBudgets, each with its status (:mod:`.disruption`)
    budgets: list[BudgetRecord] = field(default_factory=list)
    #: unbound claims of classes whose provisioner kscore does not provision (in-tree
    #: plugins whose CSI migration is off), by provisioner (filled by the loader)
    unprovisioned_claims: dict[str, int] = field(default_factory=dict)

    def __repr__(self) -> str:
        snap = self.snapshot
        n_ctrl = sum(len(c) for c in snap.controllers.values())
        return (f"Cluster({snap.n_nodes} nodes, {len(snap.pods)} bound pods, "
                f"{len(self.batch)} pending pods, {len(snap.services)} services, "
                f"{n_ctrl} controllers)")  # fmt: skip

    def warning(self) -> str | None:
        """One line counting what the input held that is not scored, or None."""
        parts = []
        if self.expanded_workloads:
            kinds = ", ".join(f"{k} {n}" for k, n in self.expanded_workloads.items())
            n = sum(self.expanded_workloads.values())
            parts.append(f"added {n} pending pods the workloads lack ({kinds})")
        n_skipped = sum(self.skipped_kinds.values())
        if n_skipped:
            kinds = ", ".join(f"{k} {n}" for k, n in sorted(self.skipped_kinds.items()))
            parts.append(f"skipped {n_skipped} objects of unused kinds ({kinds})")
        counted = (
            (self.orphaned_pods, "left out {} pods bound to nodes absent from the input"),
            (self.skipped_files,
             "skipped {} special files, broken links or link loops in directories"),
            (self.deleting_pending_pods,
             "skipped {} pending pods being deleted (metadata.deletionTimestamp set)"),
        )  # fmt: skip
        parts += [text.format(n) for n, text in counted if n]
        parts += priority.notices(self.refused_pods, self.differing_priorities)
        if self.unprovisioned_claims:
            n = sum(self.unprovisioned_claims.values())
            names = ", ".join(f"{k} {m}" for k, m in sorted(self.unprovisioned_claims.items()))
            parts.append(f"{n} unbound claims of provisioners kscore does not provision "
                         f"({names}) stay pending once their pod is bound")  # fmt: skip
        if self.empty_dirs:
            parts.append(f"no .yaml, .yml or .json files in {', '.join(self.empty_dirs)}")
        return "; ".join(parts) if parts else None

    def nothing_pending(self) -> str | None:
        """When no pod is pending, one line saying what the pods read were; else None."""
        if len(self.batch):
            return None
        bound = len(self.snapshot.pods)
        others = (
            (self.terminated_pods, "{} Succeeded or Failed"),
            (self.deleting_pending_pods, "{} pending but being deleted"),
            (self.orphaned_pods, "{} bound to nodes absent from the input"),
        )
        read = bound + sum(n for n, _ in others)
        if read == 0:
            return "0 pending pods: the input holds no Pod"
        if read == bound:
            return f"0 pending pods: {read} pods read, all bound to nodes"
        parts = [f"{bound} bound to nodes"] + [text.format(n) for n, text in others if n]
        return f"0 pending pods: {read} pods read, {', '.join(parts)}"


def parse_group_version(gv: str) -> tuple[str, str] | None:
    """``schema.ParseGroupVersion``: (group, version), or None on error."""
    if gv in ("", "/"):
        return ("", "")
    n = gv.count("/")
    if n == 0:
        return ("", gv)
    if n == 1:
        group, version = gv.split("/")
        return (group, version)
    return None


_CONTROLLER_GVK = {
    ("", "v1", RC_KIND): RC_KIND,
    ("apps", "v1", RS_KIND): RS_KIND,
    ("apps", "v1", SS_KIND): SS_KIND,
}


def resolve_controller(pod: PodRecord, index: dict[tuple[str, str, str], int]) -> tuple[int, int]:
    """The (kind code, position) of the controller ``helper.DefaultSelector`` would use.

    Mirrors the owner branch of pkg/scheduler/framework/plugins/helper/spread.go
    ``DefaultSelector``: the first controller reference, its apiVersion parsed by
    ``ParseGroupVersion``, compared exactly with v1 ReplicationController and apps/v1
    ReplicaSet/StatefulSet, then a namespaced lister ``Get`` (a pod without namespace
    never finds one). Returns ``(NO_CONTROLLER, -1)`` when no branch applies and
    ``(kind, -1)`` when the lookup fails.
    """
    return _resolve(pod.namespace, pod.owner_references, index)


def _resolve(namespace: str, refs: tuple[OwnerReference, ...],
             index: dict[tuple[str, str, str], int]) -> tuple[int, int]:  # fmt: skip
    ref = controller_of(refs)
    if ref is None:
        return NO_CONTROLLER, -1
    gv = parse_group_version(ref.api_version)
    if gv is None:
        return NO_CONTROLLER, -1
    kind = _CONTROLLER_GVK.get((gv[0], gv[1], ref.kind))
    if kind is None:
        return NO_CONTROLLER, -1
    if namespace == "":
        return _KIND_CODES[kind], -1
    return _KIND_CODES[kind], index.get((kind, namespace, ref.name), -1)


def build_cluster(
    nodes: Iterable[NodeRecord],
    pods: Iterable[PodRecord],
    services: Iterable[ServiceRecord] = (),
    controllers: Iterable[ControllerRecord] = (),
    namespaces: Iterable[NamespaceRecord] = (),
    *,
    listed: bool = False,
    storage: Storage = NO_STORAGE,
) -> Cluster:
    """Build the snapshot and the pending batch (names are assumed unique). The nodes are
    put in node-tree order, unless ``listed``: already in the snapshot's list order.

    Per pod, only C-level iteration (``map`` over attribute getters, ``np.fromiter``): this
    runs once per pod of the cluster, after the reading."""
    with collection_paused():
        cluster = _build(list(nodes), list(pods), services, controllers, namespaces, listed)
    cluster.snapshot.storage = storage
    return cluster


def _build(nodes: list[NodeRecord], pods: list[PodRecord], services: Iterable[ServiceRecord],
           controllers: Iterable[ControllerRecord], namespaces: Iterable[NamespaceRecord],
           listed: bool) -> Cluster:  # fmt: skip
    node_list, node_zone, zone_keys, input_order = _node_tree(nodes, listed)
    node_index = {n.name: i for i, n in enumerate(node_list)}
    split = _PodSplit(pods, node_index)
    existing, pending = split.existing, split.pending
    ns_index: dict[str, int] = {}
    pod_ns, batch_ns = _namespace_ids(existing, ns_index), _namespace_ids(pending, ns_index)
    ctrl_lists, ctrl_index = _controllers(controllers)
    interner = LabelInterner()
    snapshot = ClusterSnapshot(
        node_names=[n.name for n in node_list],
        node_labels=[n.labels for n in node_list],
        nodes=node_list,
        node_input_order=input_order,
        node_zone=node_zone,
        zone_keys=zone_keys,
        namespaces=list(ns_index),
        labels=interner,
        pods=existing,
        pod_ns=pod_ns,
        pod_labels=interner.table(map(_labels, existing)),
        pod_node=split.existing_node,
        pod_deleting=split.existing_deleting,
        services=list(services),
        controllers=ctrl_lists,
        controller_index=ctrl_index,
        namespace_labels={ns.name: ns.labels for ns in namespaces},
    )
    kind, position = _controller_columns(pending, ctrl_index)
    n = len(pending)
    batch = PodBatch(
        pods=pending,
        ns=batch_ns,
        labels=interner.table(map(_labels, pending)),
        controller_kind=kind,
        controller_idx=position,
        has_spread_constraints=np.fromiter(map(bool, map(_spread, pending)), np.bool_, n),
        nominated=_nominated(pending, node_index),
        names=[f"{p.namespace}/{p.name}" for p in pending],
    )
    return Cluster(snapshot, batch, **split.counts())


_labels = attrgetter("labels")
_spread = attrgetter("topology_spread_constraints")
_namespace = attrgetter("namespace")


def _nominated(pending: list[PodRecord], node_index: dict[str, int]) -> np.ndarray:
    """int32 node index of each pod's ``status.nominatedNodeName`` (-1: none, unknown)."""
    names = map(attrgetter("nominated_node_name"), pending)
    return np.fromiter(map(node_index.get, names, repeat(-1)), np.int32, len(pending))


def _node_tree(
    nodes: list[NodeRecord], listed: bool = False
) -> tuple[list[NodeRecord], np.ndarray, list[str], np.ndarray]:
    """Nodes in node-tree order (``listed``: in the order given), each node's zone index
    (-1: none), the zone keys, each node's input position."""
    zkeys = [zone_key(n.labels) for n in nodes]
    order = list(range(len(nodes))) if listed else node_tree_order(zkeys)
    zone_id: dict[str, int] = {}
    node_zone = np.fromiter(
        (zone_id.setdefault(zkeys[i], len(zone_id)) if zkeys[i] else -1 for i in order),
        np.int32,
        len(order),
    )
    input_order = np.asarray(order, dtype=np.int32).reshape(-1)
    return [nodes[i] for i in order], node_zone, list(zone_id), input_order


class _PodSplit:
    """Pods bound to a known node (existing), the pending batch, and what was left out:
    terminated pods (whatever their node), pods bound to an unknown node, pending pods
    being deleted."""

    def __init__(self, pods: list[PodRecord], node_index: dict[str, int]) -> None:
        n = len(pods)
        node_names = list(map(attrgetter("node_name"), pods))
        node = np.fromiter(map(node_index.get, node_names, repeat(-1)), np.int32, n)
        terminated = np.fromiter(map(_TERMINATED.__contains__, map(attrgetter("phase"), pods)),
                                 np.bool_, n)  # fmt: skip
        bound = np.fromiter(map(bool, node_names), np.bool_, n)
        deleting = np.fromiter(map(attrgetter("deleting"), pods), np.bool_, n)
        live, unbound = ~terminated, ~bound
        existing = np.flatnonzero(live & bound & (node >= 0))
        pending = np.flatnonzero(live & unbound & ~deleting)
        self.existing = list(map(pods.__getitem__, existing.tolist()))
        self.pending = list(map(pods.__getitem__, pending.tolist()))
        #: int32 node index and deletion flag of each existing pod
        self.existing_node, self.existing_deleting = node[existing], deleting[existing]
        self._orphaned = int(np.count_nonzero(live & bound & (node < 0)))
        self._terminated = int(np.count_nonzero(terminated))
        self._deleting = int(np.count_nonzero(live & unbound & deleting))

    def counts(self) -> dict[str, int]:
        """The counters of :class:`Cluster`."""
        claims = map(attrgetter("pvc_volumes"), self.pending)
        return {"orphaned_pods": self._orphaned, "terminated_pods": self._terminated,
                "deleting_pending_pods": self._deleting,
                "pvc_pending_pods": sum(map(bool, claims))}  # fmt: skip


def _namespace_ids(pods: list[PodRecord], index: dict[str, int]) -> np.ndarray:
    """int32 namespace index of every pod (``index`` grows with new namespaces)."""
    names = list(map(_namespace, pods))
    for name in dict.fromkeys(names):
        index.setdefault(name, len(index))
    return np.fromiter(map(index.__getitem__, names), np.int32, len(names))


def _controller_columns(pending: list[PodRecord], index: dict[tuple[str, str, str], int]
                        ) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """int8 kind code and int32 position of each pod's controller (:func:`resolve_controller`),
    resolved once per namespace and owner-reference tuple (pods of a controller share one,
    see :mod:`kscore_fast.io.objects`)."""
    memo: dict[tuple[str, int], int] = {}
    found: list[tuple[int, int]] = []
    which = np.zeros(len(pending), dtype=np.intp)
    for i, p in enumerate(pending):
        refs = p.owner_references
        if refs:
            key = (p.namespace, id(refs))  # (every pod holds its references meanwhile)
            j = memo.get(key)
            if j is None:
                j = memo[key] = len(found) + 1
                found.append(_resolve(p.namespace, refs, index))
            which[i] = j
    kind = np.array([NO_CONTROLLER, *(k for k, _ in found)], dtype=np.int8)
    position = np.array([-1, *(i for _, i in found)], dtype=np.int32)
    return kind[which], position[which]


def _controllers(
    controllers: Iterable[ControllerRecord],
) -> tuple[dict[str, list[ControllerRecord]], dict[tuple[str, str, str], int]]:
    """Controllers by kind, and (kind, namespace, name) → position in its kind's list."""
    lists: dict[str, list[ControllerRecord]] = {RC_KIND: [], RS_KIND: [], SS_KIND: []}
    index: dict[tuple[str, str, str], int] = {}
    for c in controllers:
        index[(c.kind, c.namespace, c.name)] = len(lists[c.kind])
        lists[c.kind].append(c)
    return lists, index


#: JSON, not msgpack: quantities (dataclasses, encoded natively) may hold integers past 64 bits
_twin_encoder = msgspec.json.Encoder()


def pod_twins(batch: PodBatch) -> np.ndarray:
    """int64[B]: pods with equal ids are twins: records equal but for the name, so every
    filter and score plugin gives them the same verdicts and scores on the same nodes
    (the runtime scores one of them per node list). Ids in order of first appearance;
    cached on the batch.

    A pod whose label set no other pod of the batch has is its own group, found without
    its record's text (:func:`lone_label_sets`): a batch of pods with distinct labels
    (an ``id`` each, a StatefulSet's pod names) costs no key at all."""
    cached = batch.cache.get("twins")
    if cached is not None:
        return cached
    pods, key = batch.pods, _TwinKey()
    ids: dict[tuple[bytes, tuple[bytes, ...], tuple[bytes, ...]], int] = {}
    if len(pods) < 2:  # (no twins)
        twins = np.zeros(len(pods), dtype=np.int64)
    elif len(pods) < FEW_PODS:  # (the hashing's dozen NumPy calls cost more)
        twins = np.fromiter((ids.setdefault(key(p), len(ids)) for p in pods), np.int64,
                            len(pods))  # fmt: skip
    else:
        first = np.arange(len(pods), dtype=np.int64)  # lone pods: their own position
        rest = np.flatnonzero(~lone_label_sets(batch.labels)).tolist()
        first[rest] = np.fromiter((ids.setdefault(key(pods[i]), i) for i in rest),
                                  np.int64, len(rest))  # fmt: skip
        # every pod holds its group's first position: ranked, those are the ids in order
        # of first appearance (every pod alone: its position)
        twins = (np.unique(first, return_inverse=True)[1].reshape(-1).astype(np.int64)
                 if rest else first)  # fmt: skip
    batch.cache["twins"] = twins
    return twins


#: batches smaller than this compare every pod's record text
FEW_PODS = 64


def lone_label_sets(labels: LabelTable) -> np.ndarray:
    """bool[n]: object ``i``'s label set is not the label set of any other object.

    Each set is summed as a 64-bit hash of its (key id, value id) entries, whatever their
    order: equal sets give equal sums, so a sum no other object has is a set no other
    object has (a collision only leaves two objects to be compared in full)."""
    n = len(labels)
    if n == 0:
        return np.zeros(0, dtype=np.bool_)
    z = (labels.key.astype(np.uint64) << np.uint64(32)) | labels.value.astype(np.uint64)
    z += np.uint64(0x9E3779B97F4A7C15)  # splitmix64's finalizer: each entry mixed
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z ^= z >> np.uint64(31)
    cum = np.zeros(len(z) + 1, dtype=np.uint64)
    np.cumsum(z, out=cum[1:])
    sums = cum[labels.ptr[1:]] - cum[labels.ptr[:-1]]  # (wrapping: the sum mod 2^64)
    if not (np.diff(np.sort(sums)) == 0).any():  # every sum its own (a sort: no argsort)
        return np.ones(n, dtype=np.bool_)
    order = np.argsort(sums)
    ranked = sums[order]
    shared = np.zeros(n, dtype=np.bool_)  # (in sum order: a neighbour has the same sum)
    same = ranked[1:] == ranked[:-1]
    shared[1:] |= same
    shared[:-1] |= same
    lone = np.empty(n, dtype=np.bool_)
    lone[order] = ~shared
    return lone


def spec_twins(batch: PodBatch) -> np.ndarray:
    """int64[B]: pods with equal ids have equal specs: records equal but for the name,
    namespace, labels, owner references, nominated node and claim names, which is all a
    plugin that reads only the pod's spec sees (its requests, ports, tolerations, node
    affinity, images: plugins marked ``spec_only``). Twins (:func:`pod_twins`) always are; ids in
    order of first appearance; cached on the batch."""
    cached = batch.cache.get("spec_twins")
    if cached is not None:
        return cached
    key, ids = _TwinKey(_SPEC_BLANKS), {}
    same: dict[tuple[int, ...], int] = {}  # spec fields holding the same objects → id

    def group(p: PodRecord) -> int:
        kept = _spec_fields(p)  # (the pods of a template hold the same records: no text)
        g = same.get(kept)
        if g is None:
            g = same[kept] = ids.setdefault(key(p), len(ids))
        return g

    firsts = twin_firsts(batch).tolist()  # (twins have equal specs: one key per group)
    of_group = np.fromiter((group(batch.pods[i]) for i in firsts), np.int64, len(firsts))
    groups = of_group[pod_twins(batch)] if len(firsts) else np.zeros(0, dtype=np.int64)
    batch.cache["spec_twins"] = groups
    return groups


def spec_representatives(batch: PodBatch) -> tuple[list[PodRecord], np.ndarray]:
    """:func:`twin_representatives` for the groups of :func:`spec_twins`: the first pod of
    each group and, per pod, its group."""
    groups = spec_twins(batch)
    first = batch.cache.get("spec_firsts")
    if first is None:
        _, first = np.unique(groups, return_index=True)  # ids in order of appearance
        first = batch.cache["spec_firsts"] = first.tolist()
    return [batch.pods[i] for i in first], groups


#: the fields a pod's twins may differ in (besides its containers, keyed apart)
_TWIN_BLANKS = {"name": "", "nominated_node_name": ""}
#: and those its spec twins may differ in (claim names: each pod of a StatefulSet has its
#: own, which no ``spec_only`` plugin reads)
_SPEC_BLANKS = {**_TWIN_BLANKS, "namespace": "", "labels": {}, "owner_references": (),
                "claims": ()}  # fmt: skip


_spec_values = attrgetter(*(f for f in PodRecord.__struct_fields__ if f not in _SPEC_BLANKS))


def _spec_fields(p: PodRecord) -> tuple[int, ...]:
    """The identities of the values :func:`spec_twins` compares: equal identities, equal
    values (the records are alive meanwhile, so are their ids)."""
    return tuple(map(id, _spec_values(p)))


class _TwinKey:
    """A pod's record as text, but for ``blanks`` (its name and nominated node, by
    default). Its containers are encoded once per record object: the pods of a template
    share them (encoding their quantities is most of a pod's), and equal texts still make
    equal keys."""

    def __init__(self, blanks: dict[str, Any] = _TWIN_BLANKS) -> None:
        self._containers: dict[int, tuple[ContainerRecord, bytes]] = {}
        self._blanks = {**blanks, "containers": (), "init_containers": ()}

    def __call__(self, p: PodRecord) -> tuple[bytes, tuple[bytes, ...], tuple[bytes, ...]]:
        rest = msgspec.structs.replace(p, **self._blanks)
        return (_twin_encoder.encode(rest), self._texts(p.containers),
                self._texts(p.init_containers))  # fmt: skip

    def _texts(self, containers: tuple[ContainerRecord, ...]) -> tuple[bytes, ...]:
        known = self._containers
        out = []
        for c in containers:
            hit = known.get(id(c))
            if hit is None:  # (the record is kept: its id stays its own)
                hit = known[id(c)] = (c, _twin_encoder.encode(c))
            out.append(hit[1])
        return tuple(out)


def twin_representatives(batch: PodBatch) -> tuple[list[PodRecord], np.ndarray]:
    """The first pod of each twin group (:func:`pod_twins`) and, per pod, its group: a
    plugin preparing per-pod data does it for the representatives and indexes the result
    with the groups (twins give equal data)."""
    twins = pod_twins(batch)
    return [batch.pods[i] for i in twin_firsts(batch).tolist()], twins


def twin_firsts(batch: PodBatch) -> np.ndarray:
    """int64[T]: the batch index of the first pod of each twin group (:func:`pod_twins`)."""
    first = batch.cache.get("twin_firsts")
    if first is None:
        _, first = np.unique(pod_twins(batch), return_index=True)  # ids in order of appearance
        first = batch.cache["twin_firsts"] = first.astype(np.int64)
    return first.copy()  # (callers own it)
