"""The storage objects of a cluster, as the scheduler's listers see them:
PersistentVolumeClaims, PersistentVolumes, StorageClasses, CSINodes and CSIDrivers (the
objects the volume plugins read; only their fields that those plugins read are kept).

Records are made by the reader (:mod:`kscore_fast.io.objects`) with the API server's
defaults applied (a StorageClass's ``volumeBindingMode`` defaults to ``Immediate``), and
never change: binding claims is VolumeBinding's, which is not simulated yet.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import msgspec

from .disks import CSIDriverRecord, CSINodeRecord, DiskVolume

#: ``volume.beta.kubernetes.io/storage-class``: read before ``spec.storageClassName``
BETA_STORAGE_CLASS_ANNOTATION = "volume.beta.kubernetes.io/storage-class"
IMMEDIATE, WAIT_FOR_FIRST_CONSUMER = "Immediate", "WaitForFirstConsumer"


class ClaimRecord(msgspec.Struct, frozen=True, gc=False):
    """A PersistentVolumeClaim: ``spec.volumeName`` ("" unbound) and its class, as
    ``storagehelpers.GetPersistentVolumeClaimClass`` reads it (the beta annotation first,
    then ``spec.storageClassName``; "" none)."""

    namespace: str
    name: str
    volume_name: str = ""
    class_name: str = ""
    #: ``spec.storageClassName`` alone ("" absent; the volume limits' ``matchProvisioner``)
    spec_class: str = ""


class VolumeRecord(msgspec.Struct, frozen=True, gc=False):
    """A PersistentVolume: its labels."""

    name: str
    labels: dict[str, str] = {}
    #: its in-tree disk source (GCE PD, EBS, Azure Disk, Cinder; None: another)
    disk: DiskVolume | None = None
    #: ``spec.csi``'s driver and volume handle ("" none)
    csi_driver: str = ""
    csi_handle: str = ""


class ClassRecord(msgspec.Struct, frozen=True, gc=False):
    """A StorageClass: its ``volumeBindingMode`` (defaulted)."""

    name: str
    binding_mode: str = IMMEDIATE
    provisioner: str = ""


StorageRecord = ClaimRecord | VolumeRecord | ClassRecord | CSINodeRecord | CSIDriverRecord


@dataclass(frozen=True)
class Storage:
    """The storage objects by the keys the listers get them by."""

    claims: dict[tuple[str, str], ClaimRecord] = field(default_factory=dict)
    volumes: dict[str, VolumeRecord] = field(default_factory=dict)
    classes: dict[str, ClassRecord] = field(default_factory=dict)
    csi_nodes: dict[str, CSINodeRecord] = field(default_factory=dict)
    csi_drivers: dict[str, CSIDriverRecord] = field(default_factory=dict)

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
            else:
                out.classes[r.name] = r
        return out

    def __len__(self) -> int:
        return (len(self.claims) + len(self.volumes) + len(self.classes)
                + len(self.csi_nodes) + len(self.csi_drivers))  # fmt: skip


#: a cluster without storage objects
NO_STORAGE = Storage()
