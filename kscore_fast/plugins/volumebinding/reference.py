"""Scalar reference port of VolumeBinding's PreFilter and Filter for claims that need no
binding by the scheduler, from v1.23.6:

* pkg/scheduler/framework/plugins/volumebinding/volume_binding.go: ``podHasPVCs``,
  ``PreFilter``, ``Filter``;
* .../volumebinding/binder.go: ``GetPodVolumes``, ``isPVCFullyBound``, ``FindPodVolumes``
  (its reasons, in its order), ``checkBoundClaims``;
* pkg/controller/volume/persistentvolume/util: ``IsDelayBindingMode``;
* pkg/volume/util ``CheckNodeAffinity`` with component-helpers' ``MatchNodeSelectorTerms``
  (a node of labels only: its ``metadata.name`` field terms are not checked).

Every failure is ``UnschedulableAndUnresolvable``. Unbound claims of a
WaitForFirstConsumer class (``claimsToBind``: matching PersistentVolumes, dynamic
provisioning) are not simulated: :func:`claims_to_bind` names them and the plugin reports
such pods (see ``plugin``). No CSINode objects are read, so no in-tree PersistentVolume is
translated to CSI (``tryTranslatePVToCSI`` needs the node's CSINode).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ...model.objects import NodeSelectorTerm, PodRecord
from ...model.storage import WAIT_FOR_FIRST_CONSUMER, ClaimRecord, Storage
from ..nodeaffinity.reference import go_quote, new_lazy_error_node_selector

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
    """``podHasPVCs``' error (the PreFilter status' message), or None."""
    for name in pod.claims:
        claim = storage.claims.get((pod.namespace, name))
        if claim is None:  # the lister's NotFound
            return f"persistentvolumeclaim {go_quote(name)} not found"
        if claim.lost:
            return (f"persistentvolumeclaim {go_quote(name)} bound to non-existent "
                    f"persistentvolume {go_quote(claim.volume_name)}")  # fmt: skip
        if claim.deleting:
            return f"persistentvolumeclaim {go_quote(name)} is being deleted"
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


def claims_to_bind(pod: PodRecord, storage: Storage) -> list[ClaimRecord]:
    """The unbound WaitForFirstConsumer claims of a pod ``PreFilter`` passes."""
    if not pod.claims or pre_filter(pod, storage) is not None:
        return []
    return pod_claims(pod, storage)[1]


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
                       storage: Storage) -> tuple[bool, bool]:  # fmt: skip
    """``checkBoundClaims``: (node affinity satisfied, every volume found); the first
    claim that fails decides."""
    for claim in claims:
        volume = storage.volumes.get(claim.volume_name)
        if volume is None:
            return True, False
        if not node_affinity_matches(volume.node_affinity, labels):
            return False, True
    return True, True


def filter(pod: PodRecord, labels: Mapping[str, str], storage: Storage) -> list[str]:
    """``Filter`` of a pod ``PreFilter`` passed, for its bound claims (its claims to bind
    are not simulated: see :func:`claims_to_bind`): the status' reasons, [] when it fits."""
    if not pod.claims:
        return []
    bound = pod_claims(pod, storage)[0]
    satisfied, found = check_bound_claims(bound, labels, storage)
    reasons = [] if satisfied else [ERR_REASON_NODE_CONFLICT]
    return reasons if found else [*reasons, ERR_REASON_PV_NOT_EXIST]
