"""VolumeBinding's ``checkBoundClaims`` on in-tree PersistentVolumes a node's CSINode
migrates (``tryTranslatePVToCSI``): csi-translation-lib v0.23.6's node affinity
(translate_test.go and in_tree_volume_test.go cases restated), the reference's verdicts,
the kernels' (a cluster of such volumes) and the refusal of a volume whose translation
fails (Go's Filter error)."""

from __future__ import annotations

import pytest

from kscore_fast.api import load_cluster, score
from kscore_fast.errors import UnsupportedError
from kscore_fast.model.disks import AWS_EBS, AZURE_DISK, CINDER, GCE_PD, CSINodeRecord, DiskVolume
from kscore_fast.model.objects import NodeSelectorRequirement, NodeSelectorTerm
from kscore_fast.model.storage import ClaimRecord, Storage, VolumeRecord
from kscore_fast.plugins.volumebinding import reference
from kscore_fast.plugins.volumebinding.translate import (
    BETA_REGION,
    BETA_ZONE,
    REGION,
    ZONE,
    TranslationError,
    node_affinity,
)

GKE = "topology.gke.io/zone"
ALL = "kubernetes.io/gce-pd,kubernetes.io/aws-ebs,kubernetes.io/azure-disk,kubernetes.io/cinder"
MIGRATES = CSINodeRecord("n1", migrated=ALL)


def _req(key, op="In", *values):
    return NodeSelectorRequirement(key, op, tuple(values))


def _pv(kind=GCE_PD, labels=None, terms=None, name="d1", **disk):
    return VolumeRecord("pv1", labels or {}, DiskVolume(kind, name, **disk), node_affinity=terms)


def test_zone_labels_become_a_term_of_the_drivers_key():
    pv = _pv(labels={ZONE: "a"})
    assert node_affinity(pv, MIGRATES) == (NodeSelectorTerm((_req(GKE, "In", "a"),)),)
    ebs = _pv(AWS_EBS, {BETA_ZONE: "z2__z1__ z1"}, name="vol-1")
    want = (NodeSelectorTerm((_req("topology.ebs.csi.aws.com/zone", "In", "z1", "z2"),)),)
    assert node_affinity(ebs, MIGRATES) == want
    regional = _pv(labels={BETA_ZONE: "us-east1-b__us-east1-a"})
    want = (NodeSelectorTerm((_req(GKE, "In", "us-east1-a", "us-east1-b"),)),)
    assert node_affinity(regional, MIGRATES) == want
    other = NodeSelectorTerm((_req("rack", "In", "r"),))
    cinder = _pv(CINDER, {ZONE: "z"}, (other, other))
    added = _req("topology.cinder.csi.openstack.org/zone", "In", "z")
    assert node_affinity(cinder, MIGRATES) == (NodeSelectorTerm((*other.match_expressions,
                                                                 added)),) * 2  # fmt: skip


def test_zone_terms_are_renamed_and_beta_regions_made_ga():
    terms = (NodeSelectorTerm((_req(BETA_ZONE, "In", "a"), _req(BETA_REGION, "In", "r"))),)
    pv = _pv(labels={ZONE: "c"}, terms=terms)  # (a term's zone key wins over labels)
    want = (NodeSelectorTerm((_req(GKE, "In", "a"), _req(REGION, "In", "r"))),)
    assert node_affinity(pv, MIGRATES) == want
    ga = (NodeSelectorTerm((_req(ZONE, "In", "a"), _req(BETA_REGION, "In", "r"))),)
    kept = node_affinity(_pv(terms=ga), MIGRATES)  # GA zone: the beta region stays
    assert kept == (NodeSelectorTerm((_req(GKE, "In", "a"), _req(BETA_REGION, "In", "r"))),)
    exists = (NodeSelectorTerm((_req(ZONE, "Exists"),)),)  # no values: labels are read
    assert node_affinity(_pv(labels={ZONE: "a"}, terms=exists), MIGRATES) == (
        NodeSelectorTerm((_req(ZONE, "Exists"), _req(GKE, "In", "a"))),
    )


def test_what_is_not_translated():
    pv = _pv(labels={ZONE: "a"})
    assert node_affinity(pv, None) is None  # no CSINode
    assert node_affinity(pv, CSINodeRecord("n1", migrated="kubernetes.io/aws-ebs")) is None
    assert node_affinity(_pv(labels={ZONE: " "}), MIGRATES) is None  # no valid zone
    azure = _pv(AZURE_DISK, {ZONE: "a"}, uri="/u", azure_kind="Managed")
    assert node_affinity(azure, MIGRATES) is None  # (Azure Disk keeps its affinity)


@pytest.mark.parametrize("pv", [
    _pv(labels={ZONE: "us-central1-a__europe-west1-b"}),  # two regions
    _pv(AWS_EBS, name="aws://x/bad"),
    _pv(AZURE_DISK, uri="/u", azure_kind="Shared"),
])  # fmt: skip
def test_failed_translations_raise(pv):
    with pytest.raises(TranslationError):
        node_affinity(pv, MIGRATES)
    assert node_affinity(pv, None) is None


def test_check_bound_claims_reads_the_translated_volume():
    claim = ClaimRecord("default", "c1", volume_name="pv1", bind_completed=True)
    storage = Storage(volumes={"pv1": _pv(labels={ZONE: "a"})}, csi_nodes={"n1": MIGRATES})
    assert reference.check_bound_claims([claim], {ZONE: "a"}, storage) == (True, True)
    assert reference.check_bound_claims([claim], {ZONE: "a"}, storage, MIGRATES) == (False, True)
    assert reference.check_bound_claims([claim], {GKE: "a"}, storage, MIGRATES) == (True, True)


def _objects(zone_label: str) -> list[dict]:
    nodes = [{"apiVersion": "v1", "kind": "Node",
              "metadata": {"name": f"n{i}", "labels": {ZONE: "a", **extra}},
              "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "10"}}}
             for i, extra in enumerate(({}, {GKE: "a"}, {}))]  # fmt: skip
    csi = [{"apiVersion": "storage.k8s.io/v1", "kind": "CSINode",
            "metadata": {"name": f"n{i}", "annotations": {
                "storage.alpha.kubernetes.io/migrated-plugins": "kubernetes.io/gce-pd"}},
            "spec": {"drivers": []}} for i in (0, 1)]  # fmt: skip
    pv = {"apiVersion": "v1", "kind": "PersistentVolume",
          "metadata": {"name": "pv1", "labels": {ZONE: zone_label}},
          "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"],
                   "gcePersistentDisk": {"pdName": "d1"}}}  # fmt: skip
    claim = {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
             "metadata": {"name": "c1", "namespace": "default",
                          "annotations": {"pv.kubernetes.io/bind-completed": "yes"}},
             "spec": {"volumeName": "pv1", "accessModes": ["ReadWriteOnce"],
                      "storageClassName": "",
                      "resources": {"requests": {"storage": "1Gi"}}}}  # fmt: skip
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
           "spec": {"containers": [{"name": "c"}], "volumes": [
               {"name": "v", "persistentVolumeClaim": {"claimName": "c1"}}]}}  # fmt: skip
    return [*nodes, *csi, pv, claim, pod]


def test_a_node_that_migrates_gce_pd_needs_the_drivers_zone():
    """n0 migrates GCE PD and lacks topology.gke.io/zone: a conflict (as Go); n1 has it;
    n2 has no CSINode (the volume's own node affinity: none)."""
    result = score(load_cluster(objects=_objects("a")), scores="all").to_dict()["results"][0]
    assert [(r["node"], r["reason"]) for r in result["rejected"]] == [
        ("n0", reference.ERR_REASON_NODE_CONFLICT)
    ]
    assert result["feasibleNodes"] == 2


def test_a_volume_whose_translation_fails_is_refused():
    with pytest.raises(UnsupportedError, match="could not translate pv 'pv1'"):
        score(load_cluster(objects=_objects("us-central1-a__europe-west1-b")))
