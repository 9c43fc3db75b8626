"""Scalar reference port of VolumeZone's Filter, from
pkg/scheduler/framework/plugins/volumezone/volume_zone.go (v1.23.6), with
``volumehelpers.LabelZonesToSet`` (k8s.io/cloud-provider/volume/helpers/zones.go) and
``storagehelpers.GetPersistentVolumeClaimClass`` (read by the reader into
:class:`~kscore_fast.model.storage.ClaimRecord`).

Every failure is ``UnschedulableAndUnresolvable``; the listers' NotFound errors are
reported with their text (``getErrorAsStatus``).
"""

from __future__ import annotations

from collections.abc import Mapping

from ...model.objects import PodRecord
from ...model.storage import WAIT_FOR_FIRST_CONSUMER, Storage

#: ``volumeZoneLabels``: the GA and beta zone and region labels
VOLUME_ZONE_LABELS = frozenset((
    "failure-domain.beta.kubernetes.io/zone",
    "failure-domain.beta.kubernetes.io/region",
    "topology.kubernetes.io/zone",
    "topology.kubernetes.io/region",
))  # fmt: skip
#: volume_zone.go ``ErrReasonConflict``
ERR_REASON_CONFLICT = "node(s) had no available volume zone"
#: ``cloudvolume.LabelMultiZoneDelimiter``
MULTI_ZONE_DELIMITER = "__"


def node_constraints(labels: Mapping[str, str]) -> dict[str, str]:
    """The node's zone and region labels (``nodeConstraints``)."""
    return {k: v for k, v in labels.items() if k in VOLUME_ZONE_LABELS}


def label_zones_to_set(value: str) -> frozenset[str] | None:
    """``LabelZonesToSet``: the zones of a ``__``-separated label value, each trimmed;
    None (Go's error: the label is ignored) when one of them is empty."""
    zones = set()
    for zone in value.split(MULTI_ZONE_DELIMITER):
        trimmed = zone.strip()
        if not trimmed:
            return None
        zones.add(trimmed)
    return frozenset(zones)


def filter(pod: PodRecord, node_labels: Mapping[str, str], storage: Storage) -> str | None:
    """``Filter``: the failure reason, or None when the pod fits."""
    claims = pod.pvc_claims  # (ephemeral volumes' claims are not read)
    if not claims:  # (no volume, or none a claim: nothing to check)
        return None
    constraints = node_constraints(node_labels)
    if not constraints:  # the node has no zone constraints
        return None
    for claim_name in claims:
        claim = storage.claims.get((pod.namespace, claim_name))
        if claim is None:
            return f'persistentvolumeclaim "{claim_name}" not found'
        if not claim.volume_name:
            if not claim.class_name:
                return "PersistentVolumeClaim had no pv name and storageClass name"
            cls = storage.classes.get(claim.class_name)
            if cls is None:
                return f'storageclass.storage.k8s.io "{claim.class_name}" not found'
            if cls.binding_mode == WAIT_FOR_FIRST_CONSUMER:
                continue  # unbound volumes are skipped
            return "PersistentVolume had no name"
        volume = storage.volumes.get(claim.volume_name)
        if volume is None:
            return f'persistentvolume "{claim.volume_name}" not found'
        for key, value in volume.labels.items():
            if key not in VOLUME_ZONE_LABELS:
                continue
            zones = label_zones_to_set(value)
            if zones is None:  # (Go logs it and ignores the label)
                continue
            if constraints.get(key, "") not in zones:
                return ERR_REASON_CONFLICT
    return None
