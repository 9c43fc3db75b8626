"""The storage objects of a cluster, as the scheduler's listers see them:
PersistentVolumeClaims, PersistentVolumes, StorageClasses, CSINodes, CSIDrivers and
CSIStorageCapacities (the objects the volume plugins read; only their fields that those
plugins read are kept).

Records are made by the reader (:mod:`kscore_fast.io.objects`) with the API server's
defaults applied (a StorageClass's ``volumeBindingMode`` defaults to ``Immediate``), and
never change during a run.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from fractions import Fraction

import msgspec

from .disks import CSIDriverRecord, CSINodeRecord, DiskVolume
from .objects import NodeSelectorTerm
from .selectors import Selector

#: ``volume.beta.kubernetes.io/storage-class``: read before ``spec.storageClassName``
BETA_STORAGE_CLASS_ANNOTATION = "volume.beta.kubernetes.io/storage-class"
#: ``IsDefaultAnnotation``: a StorageClass with one of these ``"true"`` is a default one
DEFAULT_CLASS_ANNOTATIONS = ("storageclass.kubernetes.io/is-default-class",
                             "storageclass.beta.kubernetes.io/is-default-class")  # fmt: skip
IMMEDIATE, WAIT_FOR_FIRST_CONSUMER = "Immediate", "WaitForFirstConsumer"
#: ``pv.kubernetes.io/bind-completed``: the PV controller finished binding the claim
BIND_COMPLETED_ANNOTATION = "pv.kubernetes.io/bind-completed"
#: a claim's ``status.phase`` once its volume is gone
CLAIM_LOST = "Lost"
#: ``volume.kubernetes.io/selected-node``: the node a claim is provisioned for
SELECTED_NODE_ANNOTATION = "volume.kubernetes.io/selected-node"
#: a volume's ``status.phase`` when it may be bound to any claim
VOLUME_AVAILABLE = "Available"
#: the default ``volumeMode`` of volumes and claims
FILESYSTEM = "Filesystem"
#: ``NotSupportedProvisioner``: a class of volumes that are never provisioned
NO_PROVISIONER = "kubernetes.io/no-provisioner"


class ClaimRecord(msgspec.Struct, frozen=True, gc=False):
    """A PersistentVolumeClaim: ``spec.volumeName`` ("" unbound) and its class, as
    ``storagehelpers.GetPersistentVolumeClaimClass`` reads it (the beta annotation first,
    then ``spec.storageClassName``; "" none). ``bind_completed``: it has the
    ``pv.kubernetes.io/bind-completed`` annotation (with ``volume_name``, what
    VolumeBinding's ``isPVCFullyBound`` calls bound); ``lost``: ``status.phase`` is
    ``Lost``; ``deleting``: ``metadata.deletionTimestamp`` is set."""

    namespace: str
    name: str
    volume_name: str = ""
    class_name: str = ""
    #: ``spec.storageClassName`` alone ("" absent; the volume limits' ``matchProvisioner``)
    spec_class: str = ""
    bind_completed: bool = False
    lost: bool = False
    deleting: bool = False
    #: what binding reads (``FindMatchingVolume``): ``metadata.uid``, the storage request
    #: (exact, bytes; 0 when absent), ``accessModes``, ``volumeMode`` (defaulted),
    #: ``spec.selector`` (None: absent) and the selected-node annotation ("" none)
    uid: str = ""
    request: Fraction = Fraction(0)
    access_modes: tuple[str, ...] = ()
    volume_mode: str = FILESYSTEM
    selector: Selector | None = None
    selected_node: str = ""
    #: ``Quantity.Value()`` of the storage request (None: absent), what
    #: ``hasEnoughCapacity`` compares
    request_value: int | None = None
    #: the uid of ``metadata.ownerReferences``' controller (the first with
    #: ``controller: true``; "" when it has none); None: no controller reference
    controller_uid: str | None = None


class VolumeRecord(msgspec.Struct, frozen=True, gc=False):
    """A PersistentVolume: its labels and the terms of ``spec.nodeAffinity.required``
    (None: no required node affinity)."""

    name: str
    labels: dict[str, str] = {}
    #: its in-tree disk source (GCE PD, EBS, Azure Disk, Cinder; None: another)
    disk: DiskVolume | None = None
    #: ``spec.csi``'s driver and volume handle ("" none)
    csi_driver: str = ""
    csi_handle: str = ""
    node_affinity: tuple[NodeSelectorTerm, ...] | None = None
    #: what binding reads: its class (the beta annotation first), storage capacity
    #: (exact, bytes), ``accessModes``, ``volumeMode`` (defaulted), ``spec.claimRef``
    #: as (namespace, name, uid) (None: absent), whether ``status.phase`` is
    #: Available, and whether it is being deleted
    class_name: str = ""
    capacity: Fraction = Fraction(0)
    access_modes: tuple[str, ...] = ()
    volume_mode: str = FILESYSTEM
    claim_ref: tuple[str, str, str] | None = None
    available: bool = False
    deleting: bool = False


class ClassRecord(msgspec.Struct, frozen=True, gc=False):
    """A StorageClass: its ``volumeBindingMode`` (defaulted)."""

    name: str
    binding_mode: str = IMMEDIATE
    #: ``provisioner``, and ``allowedTopologies`` (terms: (key, values) pairs ANDed;
    #: the terms ORed; none: any node)
    provisioner: str = ""
    allowed_topologies: tuple[tuple[tuple[str, tuple[str, ...]], ...], ...] = ()
    #: an ``is-default-class`` annotation (GA or beta) is ``"true"``
    default: bool = False
    #: ``parameters`` (key, value), in the input's order (read by provisioners only)
    parameters: tuple[tuple[str, str], ...] = ()


class CapacityRecord(msgspec.Struct, frozen=True, gc=False):
    """A CSIStorageCapacity (storage.k8s.io/v1beta1, namespaced): its class, its
    ``nodeTopology`` (None: absent, no node has access) and ``Quantity.Value()`` of its
    ``capacity`` and ``maximumVolumeSize`` (None: absent)."""

    namespace: str
    name: str
    class_name: str
    node_topology: Selector | None = None
    capacity: int | None = None
    maximum_volume_size: int | None = None

    @property
    def limit(self) -> int | None:
        """What a volume's size is compared with: ``maximumVolumeSize`` when set (the more
        precise), else ``capacity`` (``capacitySufficient``)."""
        return self.capacity if self.maximum_volume_size is None else self.maximum_volume_size


StorageRecord = (
    ClaimRecord | VolumeRecord | ClassRecord | CSINodeRecord | CSIDriverRecord | CapacityRecord
)


@dataclass(frozen=True)
class Storage:
    """The storage objects by the keys the listers get them by."""

    claims: dict[tuple[str, str], ClaimRecord] = field(default_factory=dict)
    volumes: dict[str, VolumeRecord] = field(default_factory=dict)
    classes: dict[str, ClassRecord] = field(default_factory=dict)
    csi_nodes: dict[str, CSINodeRecord] = field(default_factory=dict)
    csi_drivers: dict[str, CSIDriverRecord] = field(default_factory=dict)
    #: CSIStorageCapacities by (namespace, name), in input order
    capacities: dict[tuple[str, str], CapacityRecord] = field(default_factory=dict)

    @classmethod
    def of(cls, records: Iterable[StorageRecord]) -> Storage:
        out = cls()
        for r in records:
            if isinstance(r, ClaimRecord):
                out.claims[(r.namespace, r.name)] = r
            elif isinstance(r, VolumeRecord):
                out.volumes[r.name] = r
            elif isinstance(r, CSINodeRecord):
                out.csi_nodes[r.name] = r
            elif isinstance(r, CSIDriverRecord):
                out.csi_drivers[r.name] = r
            elif isinstance(r, CapacityRecord):
                out.capacities[(r.namespace, r.name)] = r
            else:
                out.classes[r.name] = r
        return out

    def __len__(self) -> int:
        return (len(self.claims) + len(self.volumes) + len(self.classes)
                + len(self.csi_nodes) + len(self.csi_drivers)
                + len(self.capacities))  # fmt: skip


#: a cluster without storage objects
NO_STORAGE = Storage()
