"""Scalar reference port of VolumeBinding's PreFilter, Filter and Reserve, from v1.23.6:

* pkg/scheduler/framework/plugins/volumebinding/volume_binding.go: ``podHasPVCs`` (with
  generic ephemeral volumes' claims, :mod:`..helper.ephemeral`),
  ``PreFilter``, ``Filter``, ``Reserve``;
* .../volumebinding/binder.go: ``GetPodVolumes``, ``isPVCFullyBound``, ``FindPodVolumes``
  (its reasons, in its order), ``checkBoundClaims``, ``findMatchingVolumes``,
  ``checkVolumeProvisions``, ``hasEnoughCapacity``, ``capacitySufficient``,
  ``nodeHasAccess``, ``AssumePodVolumes``;
* pkg/controller/volume/persistentvolume/util: ``IsDelayBindingMode``,
  ``FindMatchingVolume``, ``IsVolumeBoundToClaim``, ``CheckAccessModes``,
  ``CheckVolumeModeMismatches``;
* pkg/volume/util ``CheckNodeAffinity`` with component-helpers' ``MatchNodeSelectorTerms``
  (a node of labels only: its ``metadata.name`` field terms are not checked);
* pkg/apis/core/v1/helper ``MatchTopologySelectorTerms``.

Every failure is ``UnschedulableAndUnresolvable``. What ``AssumePodVolumes`` changes
lives in :class:`Assumed`. The CSIStorageCapacity check is on (v1.23's default feature
gates); ``AssumePodVolumes`` consumes no capacity (the CSIStorageCapacity objects are the
driver's to update). ``checkBoundClaims`` translates the volumes of in-tree plugins a
node's CSINode migrates to CSI first (``tryTranslatePVToCSI``: :mod:`.translate`); a
failed translation raises :class:`~.translate.TranslationError` (Go's Filter error).
``findMatchingVolumes`` and ``checkVolumeProvisions`` translate nothing (as in v1.23).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ...model.disks import CSINodeRecord
from ...model.objects import NodeSelectorTerm, PodRecord
from ...model.storage import (
    NO_PROVISIONER,
    WAIT_FOR_FIRST_CONSUMER,
    CapacityRecord,
    ClaimRecord,
    ClassRecord,
    Storage,
    VolumeRecord,
)
from ..helper.ephemeral import volume_is_for_pod
from ..nodeaffinity.reference import go_quote, new_lazy_error_node_selector
from .translate import node_affinity

#: ``PreFilter``'s reason for unbound claims of an Immediate class (or pre-bound ones)
ERR_UNBOUND_IMMEDIATE = "pod has unbound immediate PersistentVolumeClaims"
#: binder.go's ``ConflictReason``s, in the order ``FindPodVolumes`` appends them
ERR_REASON_NODE_CONFLICT = "node(s) had volume node affinity conflict"
ERR_REASON_BIND_CONFLICT = "node(s) didn't find available persistent volumes to bind"
ERR_REASON_NOT_ENOUGH_SPACE = "node(s) did not have enough free storage"
ERR_REASON_PV_NOT_EXIST = (
    "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)"
)


def has_pvc_error(pod: PodRecord, storage: Storage) -> str | None:
    """``podHasPVCs``' error (the PreFilter status' message), or None. An ephemeral
    volume's claim (``ephemeral.VolumeClaimName``) that is absent is awaited from the
    ephemeral volume controller; one that is present must be the pod's own
    (``ephemeral.VolumeIsForPod``)."""
    for i, name in enumerate(pod.claims):
        claim = storage.claims.get((pod.namespace, name))
        ephemeral = bool(pod.ephemeral) and i in pod.ephemeral
        if claim is None:  # the lister's NotFound
            if ephemeral:
                return ("waiting for ephemeral volume controller to create the "
                        f"persistentvolumeclaim {go_quote(name)}")  # fmt: skip
            return f"persistentvolumeclaim {go_quote(name)} not found"
        if claim.lost:
            return (f"persistentvolumeclaim {go_quote(name)} bound to non-existent "
                    f"persistentvolume {go_quote(claim.volume_name)}")  # fmt: skip
        if claim.deleting:
            return f"persistentvolumeclaim {go_quote(name)} is being deleted"
        if ephemeral and (error := volume_is_for_pod(pod, claim)) is not None:
            return error
    return None


def is_fully_bound(claim: ClaimRecord) -> bool:
    """``isPVCFullyBound``."""
    return bool(claim.volume_name) and claim.bind_completed


def is_delay_binding(claim: ClaimRecord, storage: Storage) -> bool:
    """``IsDelayBindingMode``: the claim's class exists and waits for the first consumer
    (no class, or an absent one: immediate)."""
    cls = storage.classes.get(claim.class_name) if claim.class_name else None
    return cls is not None and cls.binding_mode == WAIT_FOR_FIRST_CONSUMER


def pod_claims(pod: PodRecord, storage: Storage) -> tuple[list[ClaimRecord], ...]:
    """``GetPodVolumes``: (bound, to bind (delayed binding), unbound immediate) claims, in
    the pod's volume order (every claim exists: :func:`has_pvc_error` passed)."""
    bound: list[ClaimRecord] = []
    to_bind: list[ClaimRecord] = []
    immediate: list[ClaimRecord] = []
    for name in pod.claims:
        claim = storage.claims[(pod.namespace, name)]
        if is_fully_bound(claim):
            bound.append(claim)
        elif is_delay_binding(claim, storage) and not claim.volume_name:
            to_bind.append(claim)
        else:  # (pre-bound claims count as unbound immediate ones)
            immediate.append(claim)
    return bound, to_bind, immediate


def pre_filter(pod: PodRecord, storage: Storage) -> str | None:
    """``PreFilter``: the failure's reason, or None."""
    if not pod.claims:
        return None
    error = has_pvc_error(pod, storage)
    if error is not None:
        return error
    return ERR_UNBOUND_IMMEDIATE if pod_claims(pod, storage)[2] else None


def node_affinity_matches(terms: Sequence[NodeSelectorTerm] | None,
                          labels: Mapping[str, str]) -> bool:  # fmt: skip
    """``CheckNodeAffinity`` succeeds: no required terms, or one of them matches the
    node's labels (a term with a parse error matches nothing; field terms are skipped:
    the node it builds has no name)."""
    if terms is None:
        return True
    for term in new_lazy_error_node_selector(terms):
        ok, failed = term.match(labels, {})
        if ok and not failed:
            return True
    return False


def check_bound_claims(claims: Sequence[ClaimRecord], labels: Mapping[str, str],
                       storage: Storage, csi_node: CSINodeRecord | None = None
                       ) -> tuple[bool, bool]:  # fmt: skip
    """``checkBoundClaims`` on a node of ``labels`` and ``csi_node`` (its CSINode, None:
    none): (node affinity satisfied, every volume found); the first claim that fails
    decides. Each volume's node affinity is read translated to CSI where the CSINode
    migrates its plugin (raises ``TranslationError`` where that fails)."""
    for claim in claims:
        volume = storage.volumes.get(claim.volume_name)
        if volume is None:
            return True, False
        if not node_affinity_matches(node_affinity(volume, csi_node), labels):
            return False, True
    return True, True


@dataclass
class Assumed:
    """What ``AssumePodVolumes`` changed in the binder's assume caches during a run:
    volumes' claim references (static bindings) and claims' selected nodes (dynamic
    provisioning). Nothing completes the bindings: claims stay unbound (goref's scheduler
    runs no PreBind and there is no PV controller)."""

    claim_refs: dict[str, tuple[str, str, str]] = field(default_factory=dict)
    selected: dict[tuple[str, str], str] = field(default_factory=dict)

    def claim_ref(self, volume: VolumeRecord) -> tuple[str, str, str] | None:
        return self.claim_refs.get(volume.name, volume.claim_ref)

    def selected_node(self, claim: ClaimRecord) -> str:
        return self.selected.get((claim.namespace, claim.name), claim.selected_node)


def is_volume_bound_to_claim(ref: tuple[str, str, str] | None, claim: ClaimRecord) -> bool:
    """``IsVolumeBoundToClaim``."""
    if ref is None or (ref[1], ref[0]) != (claim.name, claim.namespace):
        return False
    return not ref[2] or ref[2] == claim.uid


def volume_order(storage: Storage) -> list[VolumeRecord]:
    """The volumes in the order ``FindMatchingVolume`` sees them here: by name (Go lists
    them from an informer index, in map order: among equal capacities its choice is
    random; kscore_fast takes the first name)."""
    return sorted(storage.volumes.values(), key=lambda v: v.name)


def find_matching_volume(claim: ClaimRecord, labels: Mapping[str, str], storage: Storage,
                         excluded: set[str], assumed: Assumed) -> VolumeRecord | None:  # fmt: skip
    """pv_util.go ``FindMatchingVolume`` (scheduler path: a node, delayed binding) over
    the claim's class's volumes (``pvCache.ListPVs``)."""
    smallest = None
    for volume in volume_order(storage):
        if volume.class_name != claim.class_name or volume.name in excluded:
            continue
        ref = assumed.claim_ref(volume)
        bound_here = is_volume_bound_to_claim(ref, claim)
        if ref is not None and not bound_here:
            continue
        if volume.capacity < claim.request or volume.volume_mode != claim.volume_mode:
            continue
        if volume.deleting:
            continue
        affinity_ok = node_affinity_matches(volume.node_affinity, labels)
        if bound_here:  # pre-bound (by the user, or assumed): this one or none
            return volume if affinity_ok else None
        if not volume.available:
            continue
        if claim.selector is not None and not claim.selector.matches(volume.labels):
            continue
        if not affinity_ok or not set(claim.access_modes) <= set(volume.access_modes):
            continue
        if smallest is None or smallest.capacity > volume.capacity:
            smallest = volume
    return smallest


def provision_check(claims: Sequence[ClaimRecord], labels: Mapping[str, str],
                    storage: Storage) -> tuple[bool, bool]:  # fmt: skip
    """``checkVolumeProvisions``: (provisioning satisfied, enough storage); the first
    claim that fails decides. Every claim here has a class (its delayed binding needs
    one)."""
    for claim in claims:
        cls = storage.classes[claim.class_name]
        if cls.provisioner in ("", NO_PROVISIONER):
            return False, True
        if not topology_matches(cls.allowed_topologies, labels):
            return False, True
        if not has_enough_capacity(claim, cls, labels, storage):
            return True, False
    return True, True


def checks_capacity(claim: ClaimRecord, cls: ClassRecord, storage: Storage) -> bool:
    """``hasEnoughCapacity``'s first checks (CSIStorageCapacity on, v1.23's default):
    the claim requests storage and its class's provisioner is a CSIDriver that opts into
    capacity checks (``storageCapacity: true``)."""
    if claim.request_value is None:
        return False
    driver = storage.csi_drivers.get(cls.provisioner)
    return driver is not None and driver.storage_capacity


def has_enough_capacity(claim: ClaimRecord, cls: ClassRecord, labels: Mapping[str, str],
                        storage: Storage) -> bool:  # fmt: skip
    """``hasEnoughCapacity``: no check, or :func:`capacity_available`."""
    if not checks_capacity(claim, cls, storage):
        return True
    return capacity_available((cls.name, claim.request_value), labels, storage)


def capacity_available(need: tuple[str, int | None], labels: Mapping[str, str],
                       storage: Storage) -> bool:  # fmt: skip
    """``hasEnoughCapacity``'s search for ``need`` (class name, size in bytes): a
    CSIStorageCapacity of the class, large enough and accessible from the node (any one:
    Go stops at the first it lists)."""
    name, size = need
    return any(capacity.class_name == name and capacity_sufficient(capacity, size or 0)
               and node_has_access(capacity, labels)
               for capacity in storage.capacities.values())  # fmt: skip


def capacity_sufficient(capacity: CapacityRecord, size: int) -> bool:
    """``capacitySufficient``: ``maximumVolumeSize`` when set, else ``capacity``, is at
    least ``size`` (neither set: not sufficient)."""
    limit = capacity.limit
    return limit is not None and limit >= size


def node_has_access(capacity: CapacityRecord, labels: Mapping[str, str]) -> bool:
    """``nodeHasAccess``: the node's labels match ``nodeTopology`` (absent: no node)."""
    return capacity.node_topology is not None and capacity.node_topology.matches(labels)


def topology_matches(terms: Sequence[Sequence[tuple[str, Sequence[str]]]],
                     labels: Mapping[str, str]) -> bool:  # fmt: skip
    """``MatchTopologySelectorTerms``: no terms match every node; an empty term none."""
    if not terms:
        return True
    return any(term and all(labels.get(k) in values for k, values in term) for term in terms)


def by_request(claims: Sequence[ClaimRecord]) -> list[ClaimRecord]:
    """``sort.Sort(byPVCSize)`` of a pod's few claims (insertion sort: stable)."""
    return sorted(claims, key=lambda c: c.request)


@dataclass
class PodVolumes:
    """``FindPodVolumes``' result on one node: the reasons, the static bindings (claim,
    volume) and the claims to provision."""

    reasons: list[str]
    bindings: list[tuple[ClaimRecord, VolumeRecord]]
    provisions: list[ClaimRecord]


def find_pod_volumes(pod: PodRecord, node: str, labels: Mapping[str, str], storage: Storage,
                     assumed: Assumed) -> PodVolumes:  # fmt: skip
    """``FindPodVolumes`` of a pod ``PreFilter`` passed, on the node named ``node``."""
    bound, to_bind, _ = pod_claims(pod, storage)
    satisfied, found = check_bound_claims(bound, labels, storage, storage.csi_nodes.get(node))
    unbound_ok, enough = True, True
    bindings: list[tuple[ClaimRecord, VolumeRecord]] = []
    provisions: list[ClaimRecord] = []
    if to_bind:
        selected = [c for c in to_bind if assumed.selected_node(c)]
        if any(assumed.selected_node(c) != node for c in selected):
            unbound_ok = False  # (the fast path: nothing else is checked)
        else:
            provisions = list(selected)
            matching = by_request([c for c in to_bind if not assumed.selected_node(c)])
            chosen: set[str] = set()
            for claim in matching:
                volume = find_matching_volume(claim, labels, storage, chosen, assumed)
                if volume is None:
                    unbound_ok = False
                    provisions.append(claim)
                else:
                    chosen.add(volume.name)
                    bindings.append((claim, volume))
            if provisions:
                unbound_ok, enough = provision_check(provisions, labels, storage)
    reasons = [reason for ok, reason in ((satisfied, ERR_REASON_NODE_CONFLICT),
                                         (unbound_ok, ERR_REASON_BIND_CONFLICT),
                                         (enough, ERR_REASON_NOT_ENOUGH_SPACE),
                                         (found, ERR_REASON_PV_NOT_EXIST)) if not ok]  # fmt: skip
    return PodVolumes(reasons, bindings, provisions)


def filter(
    pod: PodRecord,
    node: str,
    labels: Mapping[str, str],
    storage: Storage,
    assumed: Assumed | None = None,
) -> list[str]:
    """``Filter`` of a pod ``PreFilter`` passed on the node named ``node``: the status'
    reasons, [] when it fits."""
    if not pod.claims:
        return []
    return find_pod_volumes(pod, node, labels, storage, assumed or Assumed()).reasons


def assume_pod_volumes(pod: PodRecord, node: str, labels: Mapping[str, str], storage: Storage,
                       assumed: Assumed) -> list[tuple[str, str | None]]:  # fmt: skip
    """``Reserve`` → ``AssumePodVolumes`` on the pod's host: its static bindings set the
    volumes' claim references, its provisioned claims get the node as selected node.
    What it decided, in ``PodVolumes``' order: (claim, volume) per static binding, then
    (claim, None) per claim to provision (empty when every claim is bound:
    ``arePodVolumesBound``)."""
    if not pod.claims:
        return []
    found = find_pod_volumes(pod, node, labels, storage, assumed)
    for claim, volume in found.bindings:
        assumed.claim_refs[volume.name] = (claim.namespace, claim.name, claim.uid)
    for claim in found.provisions:
        assumed.selected[(claim.namespace, claim.name)] = node
    static = [(c.name, v.name) for c, v in found.bindings]
    return static + [(c.name, None) for c in found.provisions]
