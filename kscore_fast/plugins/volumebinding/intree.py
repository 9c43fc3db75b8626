"""A claim of an in-tree provisioner whose CSI migration is on (v1.23's default gates:
``kubernetes.io/gce-pd``, ``aws-ebs``, ``azure-disk``, ``cinder``), provisioned as a
cluster provisions it: the PersistentVolume controller (pkg/controller/volume/
persistentvolume, ``provisionClaimOperation``) hands the claim to the migrated CSI
driver's external provisioner (kubernetes-csi/external-provisioner, ``Provision``), which
creates the volume through the driver, builds its CSI PersistentVolume (node affinity:
the driver's accessible topology) and, the class being the in-tree plugin's, translates
it back to the in-tree source with k8s.io/csi-translation-lib v0.23.6's
``TranslateCSIPVToInTree`` before it creates it. Ported here:

* the source: GCE PD ``pdName`` (the last part of the volume id), EBS and Cinder
  ``volumeID`` (the volume id), Azure Disk ``diskName`` (the disk URI's last part),
  ``diskURI``, kind ``Managed``;
* the topology (``translateTopologyFromCSIToInTree``; not for Azure Disk, whose
  translation keeps the node affinity): the driver's topology key becomes the zone key
  (``getTopologyLabel``), each term without a region expression gets one
  (``regionTopologyHandler``: GCE's and EBS's region of the term's zones; none for
  Cinder), and the volume gets the zone label (the zones, sorted, ``__``-joined).

What a cloud assigns is not known offline; kscore_fast takes deterministic ids
(:func:`csi_handle`, docs/volume-bindings.md): the volume's name ``pvc-<claim uid>`` is
the disk's name (as the GCE PD and Azure Disk drivers name the disks they create), EBS's
id is ``vol-`` and 17 hexadecimal digits of the SHA-256 of that name, Cinder's the
digest's first 16 bytes as a UUID. A translation that fails (a zone of no region) makes
the external provisioner delete the volume and fail: :class:`ProvisioningError`.
"""

from __future__ import annotations

import hashlib

from msgspec.structs import replace

from ...model.disks import AWS_EBS, AZURE_DISK, CINDER, GCE_PD, DiskVolume
from ...model.objects import NodeSelectorRequirement, NodeSelectorTerm
from ..nodevolumelimits.translate import (
    AWS_PLUGIN,
    AZURE_DISK_PLUGIN,
    CINDER_PLUGIN,
    DRIVERS,
    GCE_PLUGIN,
)
from .translate import BETA_REGION, BETA_ZONE, REGION, TOPOLOGY_KEYS, ZONE, Terms, renamed

#: the in-tree provisioners v1.23's default gates migrate, and the source each makes
MIGRATED = {GCE_PLUGIN: GCE_PD, AWS_PLUGIN: AWS_EBS, AZURE_DISK_PLUGIN: AZURE_DISK,
            CINDER_PLUGIN: CINDER}  # fmt: skip
#: the Azure disk URI's subscription and resource group (not known offline)
AZURE_DISKS = ("/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/kscore"
               "/providers/Microsoft.Compute/disks/")  # fmt: skip
#: ``labelMultiZoneDelimiter``
ZONE_DELIMITER = "__"


class ProvisioningError(Exception):
    """``TranslateCSIPVToInTree`` failed: the external provisioner deletes the volume."""


def migrated_driver(provisioner: str) -> str | None:
    """The CSI driver whose external provisioner provisions the in-tree provisioner's
    claims (None: not one whose migration is on)."""
    return DRIVERS[provisioner] if provisioner in MIGRATED else None


def csi_handle(provisioner: str, name: str) -> str:
    """The volume id the migrated driver returns for the volume ``name`` (see the
    module's docstring)."""
    kind = MIGRATED[provisioner]
    digest = hashlib.sha256(name.encode()).hexdigest()
    if kind == GCE_PD:
        return f"projects/UNSPECIFIED/zones/UNSPECIFIED/disks/{name}"
    if kind == AWS_EBS:
        return f"vol-{digest[:17]}"
    if kind == AZURE_DISK:
        return AZURE_DISKS + name
    return f"{digest[:8]}-{digest[8:12]}-{digest[12:16]}-{digest[16:20]}-{digest[20:32]}"


def to_in_tree(provisioner: str, handle: str, terms: Terms
               ) -> tuple[DiskVolume, dict[str, str], Terms]:  # fmt: skip
    """``TranslateCSIPVToInTree`` of the CSI volume (``handle``, node affinity ``terms``)
    the migrated driver created: its in-tree source, labels and node affinity."""
    kind = MIGRATED[provisioner]
    if kind == AZURE_DISK:
        disk = DiskVolume(AZURE_DISK, handle.rsplit("/", 1)[1], uri=handle, azure_kind="Managed")
        return disk, {}, terms
    name = handle.split("/")[-1] if kind == GCE_PD else handle
    parser = {GCE_PD: gce_region, AWS_EBS: aws_region}.get(kind)
    labels, terms = topology_to_in_tree(terms, TOPOLOGY_KEYS[kind], parser)
    return DiskVolume(kind, name), labels, terms


def topology_to_in_tree(terms: Terms, csi_key: str, parser) -> tuple[dict[str, str], Terms]:
    """``translateTopologyFromCSIToInTree`` of a volume without labels: its labels and
    node affinity."""
    zone_key = _zone_key(terms)
    terms = renamed(terms, csi_key, zone_key)
    if parser is not None and terms:
        region_key = REGION if zone_key == ZONE else BETA_REGION
        terms = tuple(_with_region(t, zone_key, region_key, parser) for t in terms)
    zones = sorted({v for t in terms or () for r in t.match_expressions if r.key == zone_key
                    for v in r.values})  # fmt: skip
    return ({zone_key: ZONE_DELIMITER.join(zones)} if zones else {}), terms


def _zone_key(terms: Terms) -> str:
    """``getTopologyLabel``'s zone key of a volume without labels."""
    named = {r.key for t in terms or () for r in t.match_expressions}
    return BETA_ZONE if ZONE not in named and BETA_ZONE in named else ZONE


def _with_region(term: NodeSelectorTerm, zone_key: str, region_key: str, parser
                 ) -> NodeSelectorTerm:  # fmt: skip
    """``regionTopologyHandler`` of one term: kept when it has a region expression,
    else the region of its zones (those of the expressions before any region one)
    appended."""
    zones: list[str] = []
    for r in term.match_expressions:
        if r.key == region_key:
            return term
        if r.key == zone_key:
            zones += r.values
    region = NodeSelectorRequirement(region_key, "In", (parser(zones),))
    return replace(term, match_expressions=(*term.match_expressions, region))


def gce_region(zones: list[str]) -> str:
    """``gceGetRegionFromZones``."""
    if not zones:
        raise ProvisioningError("no zones specified")
    regions = set()
    for zone in zones:
        parts = zone.split("-")
        if len(parts) != 3:
            raise ProvisioningError(f"zone in unexpected format, expected: "
                                    f"{{locale}}-{{region}}-{{zone}}, got: {zone}")  # fmt: skip
        regions.add("-".join(parts[:2]))
    if len(regions) != 1:
        raise ProvisioningError(f"multiple or no regions gotten from zones, got: {sorted(regions)}")
    return regions.pop()


def aws_region(zones: list[str]) -> str:
    """``getAwsRegionFromZones``."""
    if not zones:
        raise ProvisioningError("no zones specified")
    regions = set()
    for zone in zones:
        parts = zone.split("-")
        if len(parts) in (3, 4) and len(parts[-1]) == 2:
            regions.add("-".join([*parts[:-1], parts[-1][:1]]))
        elif len(parts) in (5, 7):
            regions.add("-".join(parts[:3]))
        else:
            raise ProvisioningError(f"Unexpected zone format: {zone} is not a valid AWS zone")
    if len(regions) != 1:
        raise ProvisioningError(f"multiple or no regions gotten from zones, got: {sorted(regions)}")
    return regions.pop()
