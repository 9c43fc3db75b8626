"""A regional GCE PD's two zones (``volumebinding.regional``): the external provisioner's
requisite and preferred terms and the GCE PD CSI driver's pick, ported; goref's own port
and csi-translation-lib are compared with it in
tests/differential/test_goref_volume_completion.py."""

from __future__ import annotations

from fractions import Fraction

import pytest

from kscore_fast.errors import UnsupportedError
from kscore_fast.model.disks import CSINodeDriver, CSINodeRecord
from kscore_fast.model.objects import NodeSelectorRequirement, NodeSelectorTerm
from kscore_fast.model.storage import ClaimRecord, ClassRecord, Storage
from kscore_fast.plugins.volumebinding.complete import complete
from kscore_fast.plugins.volumebinding.regional import (
    GCE_ZONE_KEY,
    RegionalError,
    regional_zones,
    replication_type,
)

K = GCE_ZONE_KEY
GA_ZONE, GA_REGION = "topology.kubernetes.io/zone", "topology.kubernetes.io/region"
NODES = [{K: z} for z in ("us-central1-c", "us-central1-a", "us-central1-f", "us-central1-a")]


def _class(*params: tuple[str, str], topologies=()) -> ClassRecord:
    return ClassRecord("c", "WaitForFirstConsumer", "kubernetes.io/gce-pd", topologies,
                       parameters=(("replication-type", "regional-pd"), *params))  # fmt: skip


@pytest.mark.parametrize(("zone", "want"), [
    ("us-central1-a", ["us-central1-a", "us-central1-c"]),
    ("us-central1-c", ["us-central1-c", "us-central1-f"]),
    ("us-central1-f", ["us-central1-f", "us-central1-a"]),  # (wrapping)
])  # fmt: skip
def test_the_next_zone_of_the_nodes_sorted(zone, want):
    assert regional_zones(_class(), [K], {K: zone}, [*NODES, {"other": "x"}]) == want


def test_the_class_zones_and_allowed_topologies_are_the_requisite():
    zones = _class(("Zones", "us-central1-f,us-central1-b"))
    assert regional_zones(zones, [K], {K: "us-central1-f"}, NODES) == [
        "us-central1-f",
        "us-central1-b",
    ]
    allowed = _class(topologies=(((GA_ZONE, ("us-central1-b", "us-central1-a")),),))
    assert regional_zones(allowed, [K], {K: "us-central1-b"}, NODES) == [
        "us-central1-b",
        "us-central1-a",
    ]
    both = _class(("zone", "us-central1-a"), topologies=(((GA_ZONE, ("us-central1-b",)),),))
    with pytest.raises(RegionalError, match="cannot simultaneously set allowed topologies"):
        regional_zones(both, [K], {K: "us-central1-b"}, NODES)


@pytest.mark.parametrize(("cls", "labels", "nodes", "error"), [
    (_class(), {K: "us-central1-a"}, [{K: "us-central1-a"}], "need 2 zones"),
    (_class(("zones", "us-central1-b,us-central1-c")), {K: "us-central1-a"}, NODES,
     "is not in requisite"),
])  # fmt: skip
def test_what_the_driver_refuses(cls, labels, nodes, error):
    with pytest.raises(RegionalError, match=error):
        regional_zones(cls, [K], labels, nodes)
    with pytest.raises(RegionalError, match="no topology keys"):
        regional_zones(cls, [], labels, nodes)


def test_replication_type_is_read_lowercased():
    assert replication_type(ClassRecord("c", parameters=(("Replication-Type", "Regional-PD"),))
                            ) == "regional-pd"  # fmt: skip
    assert replication_type(ClassRecord("c", parameters=(("replication-type", ""),))) == "none"
    with pytest.raises(RegionalError, match="replication type 'x' is not supported"):
        replication_type(ClassRecord("c", parameters=(("replication-type", "x"),)))


def _storage(cls: ClassRecord) -> Storage:
    storage = Storage()
    storage.classes["c"] = cls
    storage.claims[("ns", "d")] = ClaimRecord("ns", "d", class_name="c", uid="u",
                                              request=Fraction(2**30),
                                              access_modes=("ReadWriteOnce",))  # fmt: skip
    storage.csi_nodes["n0"] = CSINodeRecord("n0", (CSINodeDriver("pd.csi.storage.gke.io",
                                                                 None, (K,)),))  # fmt: skip
    return storage


def test_the_volume_spans_two_zones():
    """Translated back as csi-translation-lib does: a term per zone with its region, the
    zone label of both."""
    out, (name,) = complete(_storage(_class()), "ns", [("d", None)], "n0",
                            {K: "us-central1-f"}, NODES)  # fmt: skip
    pv = out.volumes[name]
    assert pv.labels == {GA_ZONE: "us-central1-a__us-central1-f"}
    assert pv.node_affinity == tuple(
        NodeSelectorTerm((NodeSelectorRequirement(GA_ZONE, "In", (z,)),
                          NodeSelectorRequirement(GA_REGION, "In", ("us-central1",))))
        for z in ("us-central1-f", "us-central1-a"))  # fmt: skip


def test_a_failing_provisioning_is_refused():
    nodes = [{K: "us-central1-a"}, {K: "europe-west1-b"}]
    with pytest.raises(UnsupportedError, match=r"multiple or no regions.*provisioner fails"):
        complete(_storage(_class()), "ns", [("d", None)], "n0", {K: "us-central1-a"}, nodes)
