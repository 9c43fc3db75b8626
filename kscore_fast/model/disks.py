"""What the volume restrictions and limits read beyond claims: the in-tree disk sources
of pod volumes and PersistentVolumes, and the ``CSINode`` and ``CSIDriver`` objects
(storage.k8s.io/v1). Records are made by the reader (:mod:`kscore_fast.io.objects`) and
never change.
"""

from __future__ import annotations

import msgspec

#: the in-tree sources (``DiskVolume.kind``)
GCE_PD, AWS_EBS, AZURE_DISK, CINDER, RBD, ISCSI = "gce", "aws", "azure", "cinder", "rbd", "iscsi"
#: ``v1.MigratedPluginsAnnotationKey``
MIGRATED_PLUGINS_ANNOTATION = "storage.alpha.kubernetes.io/migrated-plugins"


class DiskVolume(msgspec.Struct, frozen=True, gc=False):
    """An in-tree disk source: ``name`` is GCE's ``pdName``, EBS's and Cinder's
    ``volumeID``, Azure's ``diskName``, RBD's ``image``, iSCSI's ``iqn``."""

    kind: str
    name: str
    read_only: bool = False
    #: RBD's ``pool`` and ``monitors``
    pool: str = ""
    monitors: tuple[str, ...] = ()
    #: Azure's ``diskURI`` and ``kind`` (None: absent)
    uri: str = ""
    azure_kind: str | None = None


class CSINodeDriver(msgspec.Struct, frozen=True, gc=False):
    """An entry of ``spec.drivers``: its name, ``allocatable.count`` (None: absent) and
    ``topologyKeys`` (the node label keys the driver's volumes' topology is made of: an
    external provisioner gives a volume provisioned for the node those labels' values
    as node affinity)."""

    name: str
    count: int | None = None
    topology_keys: tuple[str, ...] = ()


class CSINodeRecord(msgspec.Struct, frozen=True, gc=False):
    """A CSINode (named after its node): its drivers and its migrated-plugins annotation
    (None: no annotations at all, as ``GetAnnotations()`` nil)."""

    name: str
    drivers: tuple[CSINodeDriver, ...] = ()
    migrated: str | None = None


class CSIDriverRecord(msgspec.Struct, frozen=True, gc=False):
    """A CSIDriver: ``spec.attachRequired`` (default true) and ``spec.storageCapacity``
    (default false)."""

    name: str
    attach_required: bool = True
    storage_capacity: bool = False
