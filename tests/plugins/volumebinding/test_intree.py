"""A migrated in-tree provisioner's claims (``volumebinding.intree``, through
``complete``): the CSI volume the migrated driver creates, translated back as
csi-translation-lib v0.23.6's ``TranslateCSIPVToInTree`` does (goref runs the library
itself: benchmarks/goref/volumecomplete_test.go and the differential tests)."""

from __future__ import annotations

import re
from fractions import Fraction

import pytest

from kscore_fast.errors import UnsupportedError
from kscore_fast.model.disks import (
    AWS_EBS,
    AZURE_DISK,
    CINDER,
    GCE_PD,
    CSINodeDriver,
    CSINodeRecord,
    DiskVolume,
)
from kscore_fast.model.objects import NodeSelectorRequirement, NodeSelectorTerm
from kscore_fast.model.storage import ClaimRecord, ClassRecord, Storage
from kscore_fast.plugins.volumebinding import intree
from kscore_fast.plugins.volumebinding.complete import complete

GA_ZONE, GA_REGION = "topology.kubernetes.io/zone", "topology.kubernetes.io/region"
BETA_ZONE = "failure-domain.beta.kubernetes.io/zone"
BETA_REGION = "failure-domain.beta.kubernetes.io/region"


def _req(key: str, *values: str) -> NodeSelectorRequirement:
    return NodeSelectorRequirement(key, "In", values)


def _storage(plugin: str, driver: str, keys: tuple[str, ...]) -> Storage:
    storage = Storage()
    storage.classes["c"] = ClassRecord("c", "WaitForFirstConsumer", plugin)
    storage.claims[("ns", "d")] = ClaimRecord("ns", "d", class_name="c", uid="u",
                                              request=Fraction(2**30),
                                              access_modes=("ReadWriteOnce",))  # fmt: skip
    storage.csi_nodes["n0"] = CSINodeRecord("n0", (CSINodeDriver(driver, None, keys),))
    return storage


@pytest.mark.parametrize(
    ("plugin", "driver", "key", "zone", "disk", "labels", "terms"),
    [
        ("kubernetes.io/gce-pd", "pd.csi.storage.gke.io", "topology.gke.io/zone",
         "us-central1-a", DiskVolume(GCE_PD, "pvc-u"), {GA_ZONE: "us-central1-a"},
         (_req(GA_ZONE, "us-central1-a"), _req(GA_REGION, "us-central1"))),
        ("kubernetes.io/aws-ebs", "ebs.csi.aws.com", "topology.ebs.csi.aws.com/zone",
         "us-west-2-lax-1a", DiskVolume(AWS_EBS, intree.csi_handle("kubernetes.io/aws-ebs",
                                                                    "pvc-u")),
         {GA_ZONE: "us-west-2-lax-1a"},
         (_req(GA_ZONE, "us-west-2-lax-1a"), _req(GA_REGION, "us-west-2"))),
        ("kubernetes.io/cinder", "cinder.csi.openstack.org",
         "topology.cinder.csi.openstack.org/zone", "nova",
         DiskVolume(CINDER, intree.csi_handle("kubernetes.io/cinder", "pvc-u")),
         {GA_ZONE: "nova"}, (_req(GA_ZONE, "nova"),)),
        ("kubernetes.io/azure-disk", "disk.csi.azure.com", "topology.disk.csi.azure.com/zone",
         "eastus-1", DiskVolume(AZURE_DISK, "pvc-u", uri=intree.AZURE_DISKS + "pvc-u",
                                azure_kind="Managed"),
         {}, (_req("topology.disk.csi.azure.com/zone", "eastus-1"),)),
    ],
)  # fmt: skip
def test_the_volume_is_the_in_tree_translation(plugin, driver, key, zone, disk, labels, terms):
    out, (name,) = complete(_storage(plugin, driver, (key,)), "ns", [("d", None)], "n0",
                            {key: zone})  # fmt: skip
    pv = out.volumes[name]
    assert name == "pvc-u" and out.claims[("ns", "d")].volume_name == "pvc-u"
    assert (pv.disk, pv.csi_driver, pv.csi_handle, pv.labels) == (disk, "", "", labels)
    assert pv.node_affinity == (NodeSelectorTerm(terms),)
    assert (pv.class_name, pv.capacity, pv.claim_ref) == ("c", Fraction(2**30), ("ns", "d", "u"))


def test_deterministic_ids():
    """(goref's migratedHandle gives the same: the SHA-256 of the volume's name)"""
    assert intree.csi_handle("kubernetes.io/aws-ebs", "pvc-u") == "vol-34b566796bc31fda0"
    cinder = intree.csi_handle("kubernetes.io/cinder", "pvc-u")
    assert cinder == "34b56679-6bc3-1fda-060c-bdcf78943d1b"
    assert re.fullmatch(r"vol-[0-9a-f]{17}", intree.csi_handle("kubernetes.io/aws-ebs", "x"))
    assert re.fullmatch(r"[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}",
                        intree.csi_handle("kubernetes.io/cinder", "x"))  # fmt: skip


def test_no_topology_no_labels_and_a_beta_zone_key_kept():
    out, (name,) = complete(_storage("kubernetes.io/gce-pd", "pd.csi.storage.gke.io", ()), "ns",
                            [("d", None)], "n0", {})  # fmt: skip
    assert (out.volumes[name].labels, out.volumes[name].node_affinity) == ({}, None)
    labels, terms = intree.topology_to_in_tree(
        (NodeSelectorTerm((_req("k", "x-y-w"), _req(BETA_ZONE, "x-y-z"))),), "k",
        intree.gce_region)  # fmt: skip
    assert labels == {BETA_ZONE: "x-y-w__x-y-z"}
    assert terms == (NodeSelectorTerm((_req(BETA_ZONE, "x-y-w"), _req(BETA_ZONE, "x-y-z"),
                                       _req(BETA_REGION, "x-y"))),)  # fmt: skip


@pytest.mark.parametrize(("parser", "zones", "want"), [
    (intree.gce_region, ["us-central1-a", "us-central1-b"], "us-central1"),
    (intree.gce_region, ["us-central1"], "zone in unexpected format"),
    (intree.gce_region, ["us-central1-a", "europe-west1-b"], "multiple or no regions"),
    (intree.gce_region, [], "no zones specified"),
    (intree.aws_region, ["us-gov-east-1a"], "us-gov-east-1"),
    (intree.aws_region, ["us-east-1-wl1-bos-wlz-1"], "us-east-1"),
    (intree.aws_region, ["us-east-1abc"], "not a valid AWS zone"),
])  # fmt: skip
def test_regions(parser, zones, want):
    try:
        got = parser(zones)
    except intree.ProvisioningError as e:
        got = str(e)
    assert want in got


def test_a_zone_of_no_region_is_refused():
    storage = _storage("kubernetes.io/gce-pd", "pd.csi.storage.gke.io", ("topology.gke.io/zone",))
    with pytest.raises(UnsupportedError, match="failed to translate topology: zone in unexpected"):
        complete(storage, "ns", [("d", None)], "n0", {"topology.gke.io/zone": "zone-1"})
