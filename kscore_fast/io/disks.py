"""The reader's part for the volume restrictions and limits: the in-tree disk sources of
pod volumes and PersistentVolumes, and CSINode and CSIDriver objects, checked (one error
naming the object and field) and turned into :mod:`kscore_fast.model.disks` records with
the API server's defaults.
"""

from __future__ import annotations

from typing import Any

import msgspec

from ..model.disks import (
    AWS_EBS,
    AZURE_DISK,
    CINDER,
    GCE_PD,
    ISCSI,
    MIGRATED_PLUGINS_ANNOTATION,
    RBD,
    CSIDriverRecord,
    CSINodeDriver,
    CSINodeRecord,
    DiskVolume,
)
from ..model.storage import VolumeRecord
from ..model.validation import is_qualified_name
from . import schema
from .validate import Where, found

#: the kinds read here (cluster-scoped, storage.k8s.io/v1)
CSI_KINDS = ("CSINode", "CSIDriver")
#: the PersistentVolume ``spec`` fields read
PV_SOURCES = ("gcePersistentDisk", "awsElasticBlockStore", "azureDisk", "cinder", "csi")
#: ``SetDefaults_RBDVolumeSource``
DEFAULT_RBD_POOL = "rbd"
_INT32_MAX = 2**31 - 1


def _required(value: str | None, path: str, where: Where) -> str:
    if not value:
        raise where.error(path, "required")
    return value


def _disk(v: schema.Volume | schema.Spec, path: str, where: Where) -> DiskVolume | None:
    """The in-tree disk source of a pod volume or a PersistentVolume's spec, or None."""
    if (g := v.gce_persistent_disk) is not None:
        name = _required(g.pd_name, f"{path}gcePersistentDisk.pdName", where)
        return DiskVolume(GCE_PD, name, bool(g.read_only))
    for kind, src, key in ((AWS_EBS, v.aws_elastic_block_store, "awsElasticBlockStore"),
                           (CINDER, v.cinder, "cinder")):  # fmt: skip
        if src is not None:
            name = _required(src.volume_id, f"{path}{key}.volumeID", where)
            return DiskVolume(kind, name, bool(src.read_only))
    if (a := v.azure_disk) is not None:
        name = _required(a.disk_name, f"{path}azureDisk.diskName", where)
        uri = _required(a.disk_uri, f"{path}azureDisk.diskURI", where)
        return DiskVolume(AZURE_DISK, name, bool(a.read_only), uri=uri,
                          azure_kind="Shared" if a.kind is None else a.kind)  # fmt: skip
    if isinstance(v, schema.Volume):
        if (r := v.rbd) is not None:
            image = _required(r.image, f"{path}rbd.image", where)
            monitors = r.monitors or ()
            if not monitors:
                raise where.error(f"{path}rbd.monitors", "required")
            return DiskVolume(RBD, image, bool(r.read_only), r.pool or DEFAULT_RBD_POOL,
                              tuple(monitors))  # fmt: skip
        if (i := v.iscsi) is not None:
            iqn = _required(i.iqn, f"{path}iscsi.iqn", where)
            return DiskVolume(ISCSI, iqn, bool(i.read_only))
    return None


def pod_disks(volumes: tuple[schema.Volume | None, ...], memo: dict[Any, Any],
              where: Where) -> tuple[DiskVolume, ...]:  # fmt: skip
    """A pod's disk sources, in ``spec.volumes`` order (remembered per volume list: the
    pods of a template share theirs)."""
    got = memo.get(volumes)
    if got is not None:
        return got
    disks = []
    for i, v in enumerate(volumes):
        if v is None:
            continue
        disk = _disk(v, f"spec.volumes[{i}].", where)
        if disk is not None:
            disks.append(disk)
    got = memo[volumes] = tuple(disks)
    return got


def volume_record(name: str, labels: dict[str, str], spec: schema.Spec, where: Where
                  ) -> VolumeRecord:  # fmt: skip
    """A PersistentVolume: its labels, in-tree disk source and CSI source."""
    disk = _disk(spec, "spec.", where)
    csi = spec.csi
    if csi is None:
        return VolumeRecord(name, labels, disk)
    driver = _required(csi.driver, "spec.csi.driver", where)
    handle = _required(csi.volume_handle, "spec.csi.volumeHandle", where)
    return VolumeRecord(name, labels, disk, driver, handle)


def csi_record(kind: str, name: str, meta: schema.Metadata, obj: schema.Resource,
               where: Where) -> CSINodeRecord | CSIDriverRecord:  # fmt: skip
    """A CSINode or a CSIDriver."""
    spec = obj.spec or schema.Spec()
    if kind == "CSIDriver":
        flags = []
        for field, value, default in (
            ("attachRequired", spec.attach_required, True),
            ("storageCapacity", spec.storage_capacity, False),
        ):
            if value is not None and value.__class__ is not bool:
                raise where.error(f"spec.{field}", f"must be true or false, found {found(value)}")
            flags.append(default if value is None else value)
        return CSIDriverRecord(name, *flags)
    return CSINodeRecord(name, _node_drivers(spec.drivers, where), _migrated(meta, where))


def _node_drivers(drivers: Any, where: Where) -> tuple[CSINodeDriver, ...]:
    if drivers is None:  # (``drivers: null``: a node without CSI drivers)
        return ()
    if not isinstance(drivers, list):
        raise where.error("spec.drivers", f"must be a list, found {found(drivers)}")
    out = []
    for i, d in enumerate(drivers):
        path = f"spec.drivers[{i}]"
        if not isinstance(d, dict):
            raise where.error(path, f"must be a mapping, found {found(d)}")
        name = d.get("name")
        if not isinstance(name, str) or not name:
            raise where.error(f"{path}.name", f"required: a driver name, found {found(name)}")
        count = None
        allocatable = d.get("allocatable")
        if allocatable is not None:
            if not isinstance(allocatable, dict):
                raise where.error(f"{path}.allocatable",
                                  f"must be a mapping, found {found(allocatable)}")  # fmt: skip
            count = allocatable.get("count")
            if count is not None and (count.__class__ is not int
                                      or not 0 <= count <= _INT32_MAX):  # fmt: skip
                raise where.error(f"{path}.allocatable.count",
                                  f"must be an integer from 0 to {_INT32_MAX}, "
                                  f"found {found(count)}")  # fmt: skip
        keys = _topology_keys(d.get("topologyKeys"), f"{path}.topologyKeys", where)
        out.append(CSINodeDriver(name, count, keys))
    return tuple(out)


def _topology_keys(keys: Any, path: str, where: Where) -> tuple[str, ...]:
    """``spec.drivers[].topologyKeys`` as the API server validates them
    (``validateCSINodeDriver``): strings, each a qualified name, none twice."""
    if keys is None:
        return ()
    if not isinstance(keys, list):
        raise where.error(path, f"must be a list of label keys, found {found(keys)}")
    seen: set[str] = set()
    for i, key in enumerate(keys):
        if not isinstance(key, str):
            raise where.error(f"{path}[{i}]", f"must be a string, found {found(key)}")
        if not key:
            raise where.error(f"{path}[{i}]", "required: a label key")
        if key in seen:
            raise where.error(f"{path}[{i}]", f"duplicate value {key!r}")
        seen.add(key)
        if errs := is_qualified_name(key):
            raise where.error(f"{path}[{i}]", f"invalid key {key!r}: {'; '.join(errs)}")
    return tuple(keys)


def _migrated(meta: schema.Metadata, where: Where) -> str | None:
    """The migrated-plugins annotation ("" when the object has other annotations only;
    None when it has none)."""
    try:
        notes = schema.annotations(meta)
    except (msgspec.ValidationError, msgspec.DecodeError):
        notes = 0
    if notes is None:
        return None
    if not isinstance(notes, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in notes.items()
    ):
        raise where.error("metadata.annotations", "expected a mapping of strings")
    return notes.get(MIGRATED_PLUGINS_ANNOTATION, "")
