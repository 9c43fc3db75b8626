"""What the volume limits take from k8s.io/csi-translation-lib v0.23.6 and
pkg/scheduler/framework/plugins/nodevolumelimits/utils.go: the in-tree plugins' names and
CSI drivers, ``isCSIMigrationOn`` under v1.23's default feature gates (CSIMigration on for
GCE PD, AWS EBS, Azure Disk and OpenStack Cinder; off for Azure File, vSphere, Portworx,
RBD), and ``TranslateInTreePVToCSI``'s volume handles for those four.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from ...model.disks import AWS_EBS, AZURE_DISK, CINDER, GCE_PD, CSINodeRecord
from ...model.storage import VolumeRecord

GCE_PLUGIN, AWS_PLUGIN = "kubernetes.io/gce-pd", "kubernetes.io/aws-ebs"
AZURE_DISK_PLUGIN, CINDER_PLUGIN = "kubernetes.io/azure-disk", "kubernetes.io/cinder"
#: ``inTreePlugins``: in-tree plugin name → CSI driver name
DRIVERS = {
    GCE_PLUGIN: "pd.csi.storage.gke.io",
    AWS_PLUGIN: "ebs.csi.aws.com",
    CINDER_PLUGIN: "cinder.csi.openstack.org",
    AZURE_DISK_PLUGIN: "disk.csi.azure.com",
    "kubernetes.io/azure-file": "file.csi.azure.com",
    "kubernetes.io/vsphere-volume": "csi.vsphere.vmware.com",
    "kubernetes.io/portworx-volume": "pxd.portworx.com",
    "kubernetes.io/rbd": "rbd.csi.ceph.com",
}
#: the plugins whose migration feature gates are on in v1.23
MIGRATION_GATES_ON = frozenset((GCE_PLUGIN, AWS_PLUGIN, AZURE_DISK_PLUGIN, CINDER_PLUGIN))
#: the in-tree plugin of each disk source read
PLUGIN_OF = {GCE_PD: GCE_PLUGIN, AWS_EBS: AWS_PLUGIN, AZURE_DISK: AZURE_DISK_PLUGIN,
             CINDER: CINDER_PLUGIN}  # fmt: skip
_BETA_ZONE, _ZONE = "failure-domain.beta.kubernetes.io/zone", "topology.kubernetes.io/zone"
_AWS_VOLUME = re.compile(r"^vol-[^/]*$")
_UNSPECIFIED = "UNSPECIFIED"


def is_csi_migration_on(csi_node: CSINodeRecord | None, plugin: str) -> bool:
    """``isCSIMigrationOn``: the gate is on and the CSINode's migrated-plugins annotation
    (comma-separated) names the plugin."""
    if csi_node is None or not plugin or plugin not in MIGRATION_GATES_ON:
        return False
    return plugin in (csi_node.migrated or "").split(",")


def migration_mask(csi_node: CSINodeRecord | None) -> int:
    """The plugins of ``MIGRATION_GATES_ON`` (in sorted order) migrated on the node, as
    bits: nodes of one mask resolve every volume alike."""
    return sum(1 << i for i, p in enumerate(sorted(MIGRATION_GATES_ON))
               if is_csi_migration_on(csi_node, p))  # fmt: skip


def _gce_handle(pv: VolumeRecord, pd_name: str) -> str | None:
    """gce_pd.go ``TranslateInTreePVToCSI``'s volume handle (zonal, regional or
    unspecified), None on its error."""
    label = pv.labels.get(_BETA_ZONE, "") or pv.labels.get(_ZONE, "")
    zones = label.split("__")
    if len(zones) == 1 and zones[0]:
        return f"projects/{_UNSPECIFIED}/zones/{zones[0]}/disks/{pd_name}"
    if len(zones) > 1:
        regions = set()
        for zone in zones:
            parts = zone.split("-")
            if len(parts) != 3:
                return None
            regions.add("-".join(parts[:2]))
        if len(regions) != 1:
            return None
        return f"projects/{_UNSPECIFIED}/regions/{regions.pop()}/disks/{pd_name}"
    return f"projects/{_UNSPECIFIED}/zones/{_UNSPECIFIED}/disks/{pd_name}"


def _ebs_handle(volume_id: str) -> str | None:
    """``KubernetesVolumeIDToEBSVolumeID``: ``aws://zone/vol-...`` → ``vol-...``."""
    if not volume_id.startswith("aws://"):
        return volume_id
    try:
        path = urlsplit(volume_id).path
    except ValueError:
        return None
    aws_id = path.strip("/")
    return aws_id if _AWS_VOLUME.match(aws_id) else None


def translated(pv: VolumeRecord) -> tuple[str, str] | None:
    """``TranslateInTreePVToCSI``'s (driver, volume handle) of an in-tree PV, None when
    it fails (or the PV has no in-tree source of the four)."""
    disk = pv.disk
    if disk is None:
        return None
    driver = DRIVERS[PLUGIN_OF[disk.kind]]
    if disk.kind == GCE_PD:
        handle = _gce_handle(pv, disk.name)
    elif disk.kind == AWS_EBS:
        handle = _ebs_handle(disk.name)
    elif disk.kind == AZURE_DISK:
        kind = disk.azure_kind
        handle = disk.uri if kind is None or kind.lower() == "managed" else None
    else:
        handle = disk.name
    return None if handle is None else (driver, handle)


def attach_limit_key(driver: str) -> str:
    """``volumeutil.GetCSIAttachLimitKey``."""
    import hashlib

    prefix = "attachable-volumes-csi-"
    if len(prefix) + len(driver) >= 63:
        digest = hashlib.sha1(driver.encode()).hexdigest()[:16]
        return prefix + driver[:23] + digest
    return prefix + driver
