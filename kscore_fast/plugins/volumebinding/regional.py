"""A regional GCE PD: a claim of a ``kubernetes.io/gce-pd`` class whose parameters ask
for ``replication-type: regional-pd``, provisioned through the migrated driver
(``pd.csi.storage.gke.io``) on its selected node. What decides the disk's two zones:

* csi-translation-lib v0.23.6 ``TranslateInTreeStorageClassToCSI`` (GCE PD): the class's
  ``zone``/``zones`` parameters (keys compared lowercased) become allowed topologies of
  the driver's zone key ``topology.gke.io/zone`` (both with ``allowedTopologies``: an
  error); else ``allowedTopologies``' zone keys (GA and beta) are renamed to it; every
  other parameter (``replication-type`` among them) is passed on as it is;
* kubernetes-csi/external-provisioner ``GenerateAccessibilityRequirements`` (delayed
  binding, ``--strict-topology`` off, its default): the topology keys are those of the
  driver's entry in the selected node's CSINode; the requisite terms are the allowed
  topologies distributed into single-value terms (``flatten``), or without any, the
  values of those keys on every node that has them all (``aggregateTopologies``); they
  are sorted (shorter terms first, then segment by segment, key then value) and
  deduplicated, and the preferred terms are the same list rotated to start at the first
  term that the selected node's topology contains;
* the GCE PD CSI driver's ``CreateVolume`` (``ExtractAndDefaultParameters``: the
  parameter's key and value compared lowercased; ``none`` or absent is a zonal disk) and
  ``pickZonesFromTopology(top, 2)``: the zones of the first two preferred terms; the two
  zones must be of one region (``GetRegionFromZones``); the volume's accessible topology
  is one term per zone, in that order, and its id ``projects/…/regions/<region>/disks/
  <name>``.

So the second zone is the next zone after the node's, in sorted order (wrapping), among
the zones of the class's allowed topologies, or else among the zones of the cluster's
nodes. Where the driver would fail (fewer than two zones, zones of two regions, a term
without a zone, no topology keys: the cloud's default zones, not known offline), the
provisioning is refused, not simulated (:class:`RegionalError`).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence

from ...model.objects import NodeSelectorRequirement, NodeSelectorTerm
from ...model.storage import ClassRecord
from .translate import BETA_ZONE, ZONE

#: the GCE PD CSI driver's topology key, and its name
GCE_ZONE_KEY = "topology.gke.io/zone"
GCE_DRIVER = "pd.csi.storage.gke.io"
REGIONAL, ZONAL = "regional-pd", "none"

Term = tuple[tuple[str, str], ...]


class RegionalError(Exception):
    """The provisioning fails (the external provisioner's or the driver's error text)."""


def replication_type(cls: ClassRecord) -> str:
    """The driver's ``replication-type`` of the class's parameters (lowercased;
    :data:`ZONAL` when absent or empty); another value is the driver's error."""
    values = {v.lower() for k, v in cls.parameters if k.lower() == "replication-type" and v}
    if len(values) > 1:  # (Go's map order picks one: not knowable)
        raise RegionalError(f"parameters give replication-type {sorted(values)}")
    kind = values.pop() if values else ZONAL
    if kind not in (ZONAL, REGIONAL):
        raise RegionalError(f"CreateVolume replication type '{kind}' is not supported")
    return kind


def allowed_terms(cls: ClassRecord) -> list[Term]:
    """The requisite terms of the class's topology as the driver's class has it
    (``TranslateInTreeStorageClassToCSI``, then ``flatten``); none: aggregate."""
    generated: list[list[tuple[str, tuple[str, ...]]]] = []
    for key, value in cls.parameters:
        if key.lower() == "zone":
            generated = [[(GCE_ZONE_KEY, (value,))]]
        elif key.lower() == "zones":
            generated = [[(GCE_ZONE_KEY, tuple(value.split(",")))]]
    if generated and cls.allowed_topologies:
        raise RegionalError("cannot simultaneously set allowed topologies and zone/zones "
                            "parameters")  # fmt: skip
    terms = generated or [[(GCE_ZONE_KEY if k in (ZONE, BETA_ZONE) else k, vs) for k, vs in t]
                          for t in cls.allowed_topologies]  # fmt: skip
    out: list[Term] = []
    for term in terms:  # each expression's values distributed: one value per key
        choices = [[(k, v) for v in values] for k, values in term]
        out += [tuple(sorted(pick)) for pick in itertools.product(*choices)] if term else []
    return out


def regional_zones(cls: ClassRecord, keys: Sequence[str], labels: Mapping[str, str],
                   all_labels: Sequence[Mapping[str, str]]) -> list[str]:  # fmt: skip
    """The two zones of a regional disk provisioned for the node of ``labels`` (the
    driver's topology ``keys`` in its CSINode; ``all_labels``: every node's)."""
    if not keys:
        raise RegionalError("the selected node's CSINode gives the driver no topology keys "
                            "(the driver picks the cloud's default zones)")  # fmt: skip
    requisite = allowed_terms(cls)
    if not requisite:  # aggregateTopologies: the nodes that have every key
        requisite = [tuple(sorted((k, n[k]) for k in keys)) for n in all_labels
                     if all(k in n for k in keys)]  # fmt: skip
    requisite = sorted(set(requisite), key=lambda t: (len(t), t))
    selected = {(k, labels[k]) for k in keys}
    first = next((i for i, t in enumerate(requisite) if set(t) <= selected), None)
    if first is None:
        raise RegionalError(f"topology {sorted(selected)} from the selected node is not in "
                            f"requisite: {requisite}")  # fmt: skip
    preferred = requisite[first:] + requisite[:first]
    zones = []
    for term in preferred[:2]:
        zone = dict(term).get(GCE_ZONE_KEY)
        if zone is None:
            raise RegionalError(f"topologies specified but no zone specified in {term}")
        zones.append(zone)
    if len(zones) < 2:
        raise RegionalError(f"need 2 zones from topology, only got {len(zones)} unique zones")
    if zones[0] == zones[1]:
        raise RegionalError(f"the two zones are the same: {zones[0]}")
    return zones


def regional_terms(zones: Sequence[str]) -> tuple[NodeSelectorTerm, ...]:
    """The CSI volume's node affinity (``GenerateVolumeNodeAffinity``): one term per
    zone of its accessible topology."""
    return tuple(NodeSelectorTerm((NodeSelectorRequirement(GCE_ZONE_KEY, "In", (z,)),))
                 for z in zones)  # fmt: skip


def regional_handle(name: str, region: str) -> str:
    """The regional disk's volume id (the project is not known offline: as for a zonal
    disk, ``UNSPECIFIED``)."""
    return f"projects/UNSPECIFIED/regions/{region}/disks/{name}"
