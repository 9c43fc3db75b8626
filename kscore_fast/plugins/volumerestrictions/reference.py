"""Scalar reference port of VolumeRestrictions' Filter, from
pkg/scheduler/framework/plugins/volumerestrictions/volume_restrictions.go (v1.23.6):
``Filter``, ``isVolumeConflict`` and ``haveOverlap``. ``ReadWriteOncePod`` is off in
v1.23's default feature gates, so PreFilter does nothing.

A failure is ``Unschedulable`` (deleting the pods that hold the disk helps).
"""

from __future__ import annotations

from collections.abc import Iterable

from ...model.disks import AWS_EBS, GCE_PD, ISCSI, RBD, DiskVolume
from ...model.objects import PodRecord

#: ``ErrReasonDiskConflict``
ERR_REASON_DISK_CONFLICT = "node(s) had no available disk"
#: the sources the filter checks (its fast path skips the others)
CHECKED = frozenset((GCE_PD, AWS_EBS, RBD, ISCSI))


def have_overlap(a: Iterable[str], b: Iterable[str]) -> bool:
    """``haveOverlap``: the two lists share an element."""
    return not set(a).isdisjoint(b)


def is_volume_conflict(volume: DiskVolume, pod: PodRecord) -> bool:
    """``isVolumeConflict``: ``volume`` conflicts with one of ``pod``'s volumes. GCE PDs and
    iSCSI volumes (by IQN) conflict unless both are read-only; EBS volumes always; RBD
    images when they share a monitor, the pool and the image, unless both are read-only."""
    for other in pod.disks:
        if other.kind != volume.kind or other.name != volume.name:
            continue
        both_read_only = volume.read_only and other.read_only
        if volume.kind == AWS_EBS:
            return True
        if volume.kind in (GCE_PD, ISCSI) and not both_read_only:
            return True
        if (volume.kind == RBD and have_overlap(volume.monitors, other.monitors)
                and volume.pool == other.pool and not both_read_only):  # fmt: skip
            return True
    return False


def filter(pod: PodRecord, node_pods: Iterable[PodRecord]) -> str | None:
    """``Filter``: the reason, or None when the pod fits the node holding ``node_pods``."""
    node_pods = list(node_pods)
    for volume in pod.disks:
        if volume.kind not in CHECKED:
            continue
        for existing in node_pods:
            if is_volume_conflict(volume, existing):
                return ERR_REASON_DISK_CONFLICT
    return None
