"""Scalar reference port of the volume limits' Filters (v1.23.6):
pkg/scheduler/framework/plugins/nodevolumelimits/csi.go (``CSILimits.Filter``,
``filterAttachableVolumes``, ``getCSIDriverInfo``, ``getCSIDriverInfoFromSC``,
``getVolumeLimits``), non_csi.go (``nonCSILimits.Filter``, ``filterVolumes``,
``matchProvisioner``, the four ``VolumeFilter``s, ``getMaxVolumeFunc``) and utils.go
(``volumeLimits``; ``isCSIMigrationOn`` is in :mod:`.translate`).

A volume's unique name is its CSI ``driver/handle`` (CSI) or its in-tree id (non-CSI);
an unbound claim (or one whose PV is absent) counts as ``<prefix>-<namespace>/<claim>``,
Go's prefix being 32 random characters: here a NUL byte, which no real id holds.

Generic ephemeral volumes count through their claims (``ephemeral.VolumeClaimName``,
in the pod's ``claims``); a present claim not owned by its pod (``VolumeIsForPod``) is
an error for a pending pod and for a pod on the node alike.

Failures are ``Unschedulable``. A pending pod whose claim is absent, or whose ephemeral
volume's claim is not its own, makes Go's Filter return an ``Error`` status (the
scheduling cycle fails with it: :data:`LOOKUP_ERROR`, :data:`OWNER_ERROR`); so does a
pod on the node whose ephemeral volume's claim is not its own, once the pending pod has
volumes to count there (and, CSI, the node some limit): the first such pod of the
node's. :func:`filter` returns those texts as :class:`ErrorStatus`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from ...model.disks import AWS_EBS, AZURE_DISK, CINDER, GCE_PD, CSINodeRecord
from ...model.objects import NodeRecord, PodRecord
from ...model.storage import ClaimRecord, Storage
from ..helper.ephemeral import volume_is_for_pod
from .translate import (
    DRIVERS,
    PLUGIN_OF,
    attach_limit_key,
    is_csi_migration_on,
    translated,
)

#: ``ErrReasonMaxVolumeCountExceeded``
ERR_REASON_MAX_VOLUME_COUNT = "node(s) exceed max volume count"
#: the text of a pending pod's failed claim lookup (``RunFilterPlugins``' wrapping)
LOOKUP_ERROR = (
    'running "{}" filter plugin: looking up PVC {}/{}: persistentvolumeclaim "{}" not found'
)
#: the text of a failed ownership check (``VolumeIsForPod``'s error, wrapped alike)
OWNER_ERROR = 'running "{}" filter plugin: {}'
#: the stand-in of ``randomVolumeIDPrefix``
PREFIX = "\x00"
ATTACHABLE_PREFIX = "attachable-volumes-"
INSTANCE_TYPE_LABELS = ("node.kubernetes.io/instance-type", "beta.kubernetes.io/instance-type")
#: volumeutil's ``EBSNitroLimitRegex``
EBS_NITRO = re.compile(r"^[cmr]5.*|t3|z1d")


@dataclass(frozen=True)
class NonCSI:
    """One of the non-CSI limits: its name, disk source, in-tree provisioner, allocatable
    key and default maximum (``getMaxVolumeFunc``; EBS's depends on the instance type)."""

    name: str
    kind: str
    limit_key: str
    default_max: int

    @property
    def provisioner(self) -> str:
        return PLUGIN_OF[self.kind]

    def max_volumes(self, node: NodeRecord) -> int:
        """``maxVolumeFunc`` (``KUBE_MAX_PD_VOLS`` unset), then the node's allocatable.
        Go takes the instance type from whichever of the GA and beta labels its map
        iteration meets first (random when both are set and differ); here the GA one."""
        limit = self.default_max
        if self.kind == AWS_EBS:
            labels = node.labels
            instance = next((labels[k] for k in INSTANCE_TYPE_LABELS if k in labels), "")
            limit = 25 if EBS_NITRO.search(instance) else 39
        q = node.allocatable.get(self.limit_key)
        return limit if q is None else int(q.value())


EBS = NonCSI("EBSLimits", AWS_EBS, "attachable-volumes-aws-ebs", 39)
GCE = NonCSI("GCEPDLimits", GCE_PD, "attachable-volumes-gce-pd", 16)
AZURE = NonCSI("AzureDiskLimits", AZURE_DISK, "attachable-volumes-azure-disk", 16)
CINDER_LIMITS = NonCSI("CinderLimits", CINDER, "attachable-volumes-cinder", 256)


class ErrorStatus(str):
    """A Filter's ``Error`` status, by its text (``RunFilterPlugins``' wrapping)."""


class ClaimError(Exception):
    """Go's ``Error`` status: a pending pod's claim is absent (``LookupFailed``), or a
    pod's ephemeral volume's claim is not its own (the ``VolumeIsForPod`` text)."""


class LookupFailed(ClaimError):
    """A pending pod's claim is absent (the claim's name)."""


def _claim(pod: PodRecord, i: int, new_pod: bool, storage: Storage) -> ClaimRecord | None:
    """The pod's ``i``-th claim (None: absent, on a pod of the node)."""
    name = pod.claims[i]
    claim = storage.claims.get((pod.namespace, name))
    if claim is None:
        if new_pod:
            raise LookupFailed(name)
        return None
    if i in pod.ephemeral and (error := volume_is_for_pod(pod, claim)) is not None:
        raise ClaimError(error)
    return claim


def non_csi_volumes(spec: NonCSI, pod: PodRecord, new_pod: bool, storage: Storage) -> set[str]:
    """``filterVolumes``: the unique ids of the pod's volumes this filter counts."""
    out = {d.name for d in pod.disks if d.kind == spec.kind}
    for i, name in enumerate(pod.claims):
        claim = _claim(pod, i, new_pod, storage)
        if claim is None:
            continue
        pv_id = f"{PREFIX}-{pod.namespace}/{name}"
        pv = storage.volumes.get(claim.volume_name) if claim.volume_name else None
        if pv is None:
            cls = storage.classes.get(claim.spec_class) if claim.spec_class else None
            if cls is not None and cls.provisioner == spec.provisioner:
                out.add(pv_id)
        elif pv.disk is not None and pv.disk.kind == spec.kind:
            out.add(pv.disk.name)
    return out


def non_csi_filter(spec: NonCSI, pod: PodRecord, node: NodeRecord, node_pods: Iterable[PodRecord],
                   storage: Storage) -> str | None:  # fmt: skip
    """``nonCSILimits.Filter``: the reason, or None when the pod fits."""
    new = non_csi_volumes(spec, pod, True, storage)
    if not new:
        return None
    if is_csi_migration_on(storage.csi_nodes.get(node.name), spec.provisioner):
        return None
    existing: set[str] = set()
    for p in node_pods:
        existing |= non_csi_volumes(spec, p, False, storage)
    if len(existing) + len(new - existing) > spec.max_volumes(node):
        return ERR_REASON_MAX_VOLUME_COUNT
    return None


def csi_driver_info(claim: ClaimRecord, csi_node: CSINodeRecord | None,
                    storage: Storage) -> tuple[str, str] | None:  # fmt: skip
    """``getCSIDriverInfo`` (and ``...FromSC``): the claim's (driver, volume handle)."""
    pv = storage.volumes.get(claim.volume_name) if claim.volume_name else None
    if pv is not None:
        if pv.csi_driver:
            return pv.csi_driver, pv.csi_handle
        if pv.disk is None or pv.disk.kind not in PLUGIN_OF:
            return None  # (not migratable, or not a plugin whose migration is on)
        if not is_csi_migration_on(csi_node, PLUGIN_OF[pv.disk.kind]):
            return None
        return translated(pv)
    cls = storage.classes.get(claim.class_name) if claim.class_name else None
    if cls is None:
        return None
    handle = f"{PREFIX}-{claim.namespace}/{claim.name}"
    provisioner = cls.provisioner
    if provisioner in DRIVERS:
        if not is_csi_migration_on(csi_node, provisioner):
            return None
        return DRIVERS[provisioner], handle
    return provisioner, handle


def csi_volumes(pod: PodRecord, csi_node: CSINodeRecord | None, new_pod: bool,
                storage: Storage) -> dict[str, str]:  # fmt: skip
    """``filterAttachableVolumes``: unique name (``driver/handle``) → limit key."""
    out = {}
    for i in range(len(pod.claims)):
        claim = _claim(pod, i, new_pod, storage)
        if claim is None:
            continue
        info = csi_driver_info(claim, csi_node, storage)
        if info is None or not info[0] or not info[1]:
            continue
        out[f"{info[0]}/{info[1]}"] = attach_limit_key(info[0])
    return out


def volume_limits(node: NodeRecord, csi_node: CSINodeRecord | None) -> dict[str, int]:
    """``getVolumeLimits``: the node's allocatable ``attachable-volumes-*``, then the
    CSINode's driver counts."""
    limits = {k: int(q.value()) for k, q in node.allocatable.items()
              if k.startswith(ATTACHABLE_PREFIX)}  # fmt: skip
    for d in csi_node.drivers if csi_node is not None else ():
        if d.count is not None:
            limits[attach_limit_key(d.name)] = d.count
    return limits


def csi_filter(pod: PodRecord, node: NodeRecord, node_pods: Iterable[PodRecord],
               storage: Storage) -> str | None:  # fmt: skip
    """``CSILimits.Filter``: the reason, or None when the pod fits."""
    csi_node = storage.csi_nodes.get(node.name)
    new = csi_volumes(pod, csi_node, True, storage)
    limits = volume_limits(node, csi_node)
    if not new or not limits:
        return None
    attached: dict[str, str] = {}
    for p in node_pods:
        attached.update(csi_volumes(p, csi_node, False, storage))
    attached_count: dict[str, int] = {}
    for unique, key in attached.items():
        new.pop(unique, None)
        attached_count[key] = attached_count.get(key, 0) + 1
    new_count: dict[str, int] = {}
    for key in new.values():
        new_count[key] = new_count.get(key, 0) + 1
    for key, count in new_count.items():
        if key in limits and attached_count.get(key, 0) + count > limits[key]:
            return ERR_REASON_MAX_VOLUME_COUNT
    return None


def filter(name: str, pod: PodRecord, node: NodeRecord, node_pods: Iterable[PodRecord],
           storage: Storage) -> str | None:  # fmt: skip
    """The Filter of the plugin ``name``: its reason, the error's text (a failed lookup
    or ownership check), or None."""
    try:
        if name == "NodeVolumeLimits":
            return csi_filter(pod, node, node_pods, storage)
        return non_csi_filter(NON_CSI[name], pod, node, node_pods, storage)
    except LookupFailed as missing:
        claim = missing.args[0]
        return ErrorStatus(LOOKUP_ERROR.format(name, pod.namespace, claim, claim))
    except ClaimError as foreign:
        return ErrorStatus(OWNER_ERROR.format(name, foreign.args[0]))


NON_CSI = {s.name: s for s in (EBS, GCE, AZURE, CINDER_LIMITS)}
