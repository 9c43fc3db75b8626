"""Typed records of the Kubernetes objects the scheduler reads.

Only the fields kube-scheduler v1.23 uses are kept. Records are built by
:mod:`kscore_fast.io.objects` (from manifests) or directly (tests, simulators). They are
frozen ``msgspec.Struct``s: an order of magnitude cheaper to create than dataclasses,
which matters at 100,000 pods. A namespace
of ``""`` is kept as is: only the manifest loader maps a missing namespace to
``default``; the model follows the Go listers for ``""`` (see ``snapshot``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

import msgspec

from .disks import DiskVolume
from .quantity import Quantity
from .selectors import LabelSelector

RC_KIND = "ReplicationController"
RS_KIND = "ReplicaSet"
SS_KIND = "StatefulSet"


class OwnerReference(msgspec.Struct, frozen=True, gc=False):
    """``metav1.OwnerReference`` (only what ``GetControllerOf`` and the listers use)."""

    api_version: str
    kind: str
    name: str
    controller: bool = False


#: ``spec.schedulerName`` of a pod that names none (``v1.DefaultSchedulerName``)
DEFAULT_SCHEDULER_NAME = "default-scheduler"

#: a resource list (``v1.ResourceList``): resource name → parsed quantity
ResourceList = dict[str, Quantity]


class Taint(msgspec.Struct, frozen=True, gc=False):
    """``v1.Taint`` (``timeAdded`` is not read by the scheduler)."""

    key: str
    value: str = ""
    #: NoSchedule, PreferNoSchedule or NoExecute (any string is kept as given)
    effect: str = ""


class Toleration(msgspec.Struct, frozen=True, gc=False):
    """``v1.Toleration``; an empty ``operator`` means Equal, as ``ToleratesTaint`` reads it."""

    key: str = ""
    operator: str = ""
    value: str = ""
    effect: str = ""
    toleration_seconds: int | None = None


class ContainerImage(msgspec.Struct, frozen=True, gc=False):
    """An entry of ``node.status.images``."""

    names: tuple[str, ...] = ()
    size_bytes: int = 0


class NodeSelectorRequirement(msgspec.Struct, frozen=True, gc=False):
    """``v1.NodeSelectorRequirement``: operator In, NotIn, Exists, DoesNotExist, Gt or Lt
    (validated by the loader)."""

    key: str
    operator: str
    values: tuple[str, ...] = ()


class NodeSelectorTerm(msgspec.Struct, frozen=True, gc=False):
    match_expressions: tuple[NodeSelectorRequirement, ...] = ()
    #: only ``metadata.name`` is a valid field key (``nodeaffinity`` helpers)
    match_fields: tuple[NodeSelectorRequirement, ...] = ()


class PreferredSchedulingTerm(msgspec.Struct, frozen=True, gc=False):
    weight: int
    preference: NodeSelectorTerm


class NodeAffinity(msgspec.Struct, frozen=True, gc=False):
    """``v1.NodeAffinity``: ``required`` None when
    ``requiredDuringSchedulingIgnoredDuringExecution`` is absent; a tuple (possibly
    empty, which matches no node) of its ``nodeSelectorTerms`` otherwise."""

    required: tuple[NodeSelectorTerm, ...] | None = None
    preferred: tuple[PreferredSchedulingTerm, ...] = ()


class ContainerPort(msgspec.Struct, frozen=True, gc=False):
    """A container port as the scheduler reads it (``hostPort`` 0: no host port)."""

    container_port: int = 0
    host_port: int = 0
    #: TCP when not given (the API server's default)
    protocol: str = "TCP"
    host_ip: str = ""


class ContainerRecord(msgspec.Struct, frozen=True, gc=False):
    """What the scheduler reads of a container: its image, requests and ports."""

    image: str = ""
    requests: ResourceList = {}
    ports: tuple[ContainerPort, ...] = ()


class TopologySpreadConstraint(msgspec.Struct, frozen=True, gc=False):
    """``v1.TopologySpreadConstraint`` as v1.23 has it (no ``minDomains``)."""

    max_skew: int
    topology_key: str
    #: DoNotSchedule or ScheduleAnyway (validated by the loader)
    when_unsatisfiable: str
    #: None when ``labelSelector`` is absent (a nil selector matches no pod)
    label_selector: LabelSelector | None = None


class PodAffinityTerm(msgspec.Struct, frozen=True, gc=False):
    """``v1.PodAffinityTerm``: ``label_selector``/``namespace_selector`` None when absent."""

    label_selector: LabelSelector | None = None
    namespaces: tuple[str, ...] = ()
    topology_key: str = ""
    namespace_selector: LabelSelector | None = None


class WeightedPodAffinityTerm(msgspec.Struct, frozen=True, gc=False):
    weight: int
    term: PodAffinityTerm


class PodAffinity(msgspec.Struct, frozen=True, gc=False):
    """``v1.PodAffinity`` or ``v1.PodAntiAffinity`` (same shape): the
    ``requiredDuringSchedulingIgnoredDuringExecution`` and
    ``preferredDuringSchedulingIgnoredDuringExecution`` terms."""

    required: tuple[PodAffinityTerm, ...] = ()
    preferred: tuple[WeightedPodAffinityTerm, ...] = ()


class PriorityClassRecord(msgspec.Struct, frozen=True, gc=False):
    """A ``PriorityClass`` (``scheduling.k8s.io/v1``), as the Priority admission plugin
    reads it."""

    name: str
    value: int = 0
    global_default: bool = False
    #: ``preemptionPolicy`` (v1 defaulting: ``PreemptLowerPriority`` when absent)
    preemption_policy: str = "PreemptLowerPriority"


class NamespaceRecord(msgspec.Struct, frozen=True, gc=False):
    """A ``Namespace`` object (InterPodAffinity's ``namespaceSelector`` reads its labels)."""

    name: str
    labels: dict[str, str] = {}


class NodeRecord(msgspec.Struct, frozen=True, gc=False):
    name: str
    labels: dict[str, str] = {}
    #: ``status.allocatable`` (every resource name as given; the plugins pick theirs)
    allocatable: ResourceList = {}
    #: ``spec.unschedulable``
    unschedulable: bool = False
    taints: tuple[Taint, ...] = ()
    #: ``status.images``
    images: tuple[ContainerImage, ...] = ()


class PodRecord(msgspec.Struct, frozen=True, gc=False):
    namespace: str
    name: str
    labels: dict[str, str] = {}
    node_name: str = ""
    phase: str = ""
    deleting: bool = False
    owner_references: tuple[OwnerReference, ...] = ()
    #: ``spec.topologySpreadConstraints``
    topology_spread_constraints: tuple[TopologySpreadConstraint, ...] = ()
    nominated_node_name: str = ""
    #: ``spec.schedulerName`` (the loader fills in ``default-scheduler`` when absent)
    scheduler_name: str = DEFAULT_SCHEDULER_NAME
    #: ``spec.priority`` (None when absent)
    priority: int | None = None
    containers: tuple[ContainerRecord, ...] = ()
    init_containers: tuple[ContainerRecord, ...] = ()
    #: ``spec.overhead``
    overhead: ResourceList = {}
    #: ``spec.nodeSelector``
    node_selector: dict[str, str] = {}
    #: ``spec.affinity.nodeAffinity`` (None when absent)
    node_affinity: NodeAffinity | None = None
    tolerations: tuple[Toleration, ...] = ()
    #: the claim names of the ``persistentVolumeClaim`` and ``ephemeral`` volumes of
    #: ``spec.volumes``, in order (an ephemeral volume's claim is ``<pod name>-<volume
    #: name>``, ``ephemeral.VolumeClaimName``)
    claims: tuple[str, ...] = ()
    #: ``spec.affinity.podAffinity`` / ``podAntiAffinity`` (None when absent)
    pod_affinity: PodAffinity | None = None
    pod_anti_affinity: PodAffinity | None = None
    #: ``spec.priorityClassName`` (the Priority admission plugin resolves ``priority``
    #: from it, :mod:`kscore_fast.model.priority`)
    priority_class_name: str = ""
    #: ``spec.preemptionPolicy`` (None when absent)
    preemption_policy: str | None = None
    #: the in-tree disk sources of ``spec.volumes`` (GCE PD, EBS, Azure Disk, Cinder, RBD,
    #: iSCSI), in order: what VolumeRestrictions and the volume limits read
    disks: tuple[DiskVolume, ...] = ()
    #: the positions in ``claims`` of the claims of ``ephemeral`` volumes (generic
    #: ephemeral volumes), in order
    ephemeral: tuple[int, ...] = ()
    #: ``status.startTime`` as given (RFC 3339, checked by the reader; "" when absent):
    #: :func:`kscore_fast.model.times.start_ns` reads it
    start_time: str = ""
    #: the ``Ready`` condition of ``status.conditions`` is ``True`` (``podutil.IsPodReady``);
    #: None when the pod has no ``Ready`` condition
    ready: bool | None = None
    #: ``metadata.uid`` of a pod with ephemeral volumes (their claims' owner, the only
    #: reader); when absent, as the API server would have given it one: the SHA-256 of
    #: ``namespace/name`` shaped as a UUID (:func:`object_uid`). "" for other pods.
    uid: str = ""

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    @property
    def pvc_volumes(self) -> int:
        """How many of ``spec.volumes`` are ``persistentVolumeClaim`` or ``ephemeral``
        volumes (volumes of a claim)."""
        return len(self.claims)

    @property
    def pvc_claims(self) -> tuple[str, ...]:
        """The claim names of the ``persistentVolumeClaim`` volumes only, in order."""
        if not self.ephemeral:
            return self.claims
        return tuple(c for i, c in enumerate(self.claims) if i not in self.ephemeral)

    @property
    def ephemeral_owner(self) -> str:
        """The pod's name when it has ephemeral volumes (their claims' checks name it in
        their messages), else "": what the volume plugins read of the name."""
        return self.name if self.ephemeral else ""

    def controller_ref(self) -> OwnerReference | None:
        """``metav1.GetControllerOfNoCopy``: the first reference with controller=true."""
        return controller_of(self.owner_references)


def object_key(obj: Mapping[str, Any]) -> str:
    """``namespace/name`` of an object as parsed (``default`` when it names no namespace),
    as :attr:`PodRecord.key` is of a record."""
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), Mapping) else {}
    return f"{meta.get('namespace') or 'default'}/{meta.get('name')}"


def object_uid(namespace: str, name: str) -> str:
    """The uid kscore (and goref) give an object the input gives none: the SHA-256 of
    ``namespace/name`` shaped as a UUID (8-4-4-4-12 hexadecimal digits of its first 16
    bytes). The API server gives every object one."""
    d = hashlib.sha256(f"{namespace}/{name}".encode()).hexdigest()
    return f"{d[:8]}-{d[8:12]}-{d[12:16]}-{d[16:20]}-{d[20:32]}"


def controller_of(refs: tuple[OwnerReference, ...]) -> OwnerReference | None:
    """``metav1.GetControllerOfNoCopy``: the first reference with controller=true."""
    for ref in refs:
        if ref.controller:
            return ref
    return None


class ServiceRecord(msgspec.Struct, frozen=True, gc=False):
    namespace: str
    name: str
    #: ``spec.selector``; None when absent (a nil selector matches no pod)
    selector: dict[str, str] | None = None


class ControllerRecord(msgspec.Struct, frozen=True, gc=False):
    """A ReplicationController (map selector) or a ReplicaSet/StatefulSet (LabelSelector)."""

    kind: str
    namespace: str
    name: str
    selector: dict[str, str] | LabelSelector | None = None
