"""``checkBoundClaims``' ``tryTranslatePVToCSI`` (binder.go, v1.23.6): on a node whose
CSINode says the PersistentVolume's in-tree plugin is migrated (``isCSIMigrationOn`` of
:mod:`..nodevolumelimits.translate`: GCE PD, AWS EBS, Azure Disk, Cinder under v1.23's
default gates), the volume's node affinity is that of k8s.io/csi-translation-lib
v0.23.6's ``TranslateInTreePVToCSI``:

* GCE PD, AWS EBS and Cinder (``translateTopologyFromInTreeToCSI``): the zone key
  (``getTopologyLabel``: the GA zone key when a term's expression names it, else the beta
  one when an expression names it, else the GA key when the volume's labels have it, else
  the beta one when they have it, else the GA key) is renamed to the driver's topology key
  in every expression when its expressions hold values; otherwise, when the volume's
  labels have that key, an ``In`` expression of the driver's key with the label's zones
  (``__``-separated, trimmed, non-empty, sorted, no duplicates; none: nothing added) is
  appended to every term (a volume without required node affinity gets one term).
  With the beta zone key, expressions of the beta region key (with values) are renamed to
  the GA region key.
* Azure Disk: the node affinity is kept.

The translation fails (:class:`TranslationError`, Go's Filter error) where
``TranslateInTreePVToCSI``'s volume handle does (:func:`..nodevolumelimits.translate.translated`).
"""

from __future__ import annotations

from msgspec.structs import replace

from ...model.disks import AWS_EBS, CINDER, GCE_PD, CSINodeRecord
from ...model.objects import NodeSelectorRequirement, NodeSelectorTerm
from ...model.storage import VolumeRecord
from ..nodevolumelimits.translate import PLUGIN_OF, is_csi_migration_on, translated

#: each translated source's CSI topology key (Azure Disk's translation adds none)
TOPOLOGY_KEYS = {GCE_PD: "topology.gke.io/zone", AWS_EBS: "topology.ebs.csi.aws.com/zone",
                 CINDER: "topology.cinder.csi.openstack.org/zone"}  # fmt: skip
ZONE, BETA_ZONE = "topology.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/zone"
REGION, BETA_REGION = "topology.kubernetes.io/region", "failure-domain.beta.kubernetes.io/region"

Terms = tuple[NodeSelectorTerm, ...] | None


class TranslationError(Exception):
    """``TranslateInTreePVToCSI`` failed on a node that migrates the volume's plugin."""


def is_migratable(volume: VolumeRecord) -> bool:
    """The volume has an in-tree source whose migration gate is on in v1.23."""
    return volume.disk is not None and volume.disk.kind in PLUGIN_OF


def migrated(volume: VolumeRecord, csi_node: CSINodeRecord | None) -> bool:
    """``tryTranslatePVToCSI`` translates the volume on the node of ``csi_node``."""
    return is_migratable(volume) and is_csi_migration_on(csi_node, PLUGIN_OF[volume.disk.kind])


def node_affinity(volume: VolumeRecord, csi_node: CSINodeRecord | None) -> Terms:
    """The required node affinity ``CheckNodeAffinity`` reads after
    ``tryTranslatePVToCSI`` on the node of ``csi_node`` (raises :class:`TranslationError`)."""
    if not migrated(volume, csi_node):
        return volume.node_affinity
    if translated(volume) is None:
        raise TranslationError(f"could not translate pv {volume.name!r} to CSI")
    key = TOPOLOGY_KEYS.get(volume.disk.kind)
    return volume.node_affinity if key is None else topology_to_csi(volume, key)


def topology_to_csi(volume: VolumeRecord, key: str) -> Terms:
    """``translateTopologyFromInTreeToCSI``'s node affinity (see the module's docstring)."""
    terms, labels = volume.node_affinity, volume.labels
    zone_key = _zone_key(terms, labels)
    if _values(terms, zone_key):
        terms = renamed(terms, zone_key, key)
    elif zone_key in labels:
        zones = sorted({z.strip() for z in labels[zone_key].split("__")} - {""})
        if zones:
            added = NodeSelectorRequirement(key, "In", tuple(zones))
            terms = tuple(replace(t, match_expressions=(*t.match_expressions, added))
                          for t in terms or (NodeSelectorTerm(),))  # fmt: skip
    if zone_key == BETA_ZONE and _values(terms, BETA_REGION):
        terms = renamed(terms, BETA_REGION, REGION)
    return terms


def _zone_key(terms: Terms, labels: dict[str, str]) -> str:
    """``getTopologyLabel``'s zone key."""
    named = {r.key for t in terms or () for r in t.match_expressions}
    for key in (ZONE, BETA_ZONE):
        if key in named:
            return key
    return BETA_ZONE if ZONE not in labels and BETA_ZONE in labels else ZONE


def _values(terms: Terms, key: str) -> bool:
    """``getTopologyValues`` is not empty: an expression of ``key`` has values."""
    return any(r.key == key and r.values for t in terms or () for r in t.match_expressions)


def renamed(terms: Terms, old: str, new: str) -> Terms:
    """``replaceTopology``: every expression of key ``old`` gets key ``new``."""
    if not terms:
        return terms
    return tuple(replace(t, match_expressions=tuple(replace(r, key=new) if r.key == old else r
                                                    for r in t.match_expressions))
                 for t in terms)  # fmt: skip


def topology_keys(volume: VolumeRecord) -> tuple[str, ...]:
    """The node label keys a translated node affinity may add to the volume's own."""
    key = TOPOLOGY_KEYS.get(volume.disk.kind) if is_migratable(volume) else None
    return () if key is None else (key, REGION)
