"""What completes a binding (``volumebinding.complete``): the claims bound, the volumes
a CSI provisioner creates with the node's CSINode topology, a non-migrated in-tree
provisioner's claims left pending, a node lacking a topology label refused (the migrated
in-tree provisioners: test_intree.py)."""

from __future__ import annotations

import re
from fractions import Fraction

import pytest

from kscore_fast.errors import UnsupportedError
from kscore_fast.model.disks import CSINodeDriver, CSINodeRecord
from kscore_fast.model.objects import NodeSelectorRequirement, NodeSelectorTerm
from kscore_fast.model.storage import ClaimRecord, ClassRecord, Storage, VolumeRecord
from kscore_fast.plugins.volumebinding.complete import (
    claim_uid,
    complete,
    unprovisioned_claims,
)

ZONE = "topology.kubernetes.io/zone"


def _storage(keys: tuple[str, ...] = (ZONE,)) -> Storage:
    storage = Storage()
    storage.classes.update({"fast": ClassRecord("fast", "WaitForFirstConsumer", "d.io"),
                            "file": ClassRecord("file", "WaitForFirstConsumer",
                                                "kubernetes.io/vsphere-volume")})  # fmt: skip
    for name, cls, uid in (("made", "fast", ""), ("old", "file", "u1"), ("mine", "", "u2")):
        storage.claims[("ns", name)] = ClaimRecord(
            "ns", name, class_name=cls, uid=uid, request=Fraction(2**30),
            access_modes=("ReadWriteOnce",), selected_node="n0" if cls else "",
        )  # fmt: skip
    storage.volumes["pv"] = VolumeRecord("pv", class_name="", available=True,
                                         claim_ref=("ns", "mine", ""))  # fmt: skip
    storage.csi_nodes["n0"] = CSINodeRecord("n0", (CSINodeDriver("d.io", None, keys),))
    return storage


def test_claim_uid_is_the_claims_or_a_digest_of_its_name():
    """(goref's claimUID gives the same: benchmarks/goref/volumecomplete_test.go)"""
    assert claim_uid(ClaimRecord("n", "c", uid="u")) == "u"
    assert claim_uid(ClaimRecord("n", "c")) == "8c253c7d-08ee-b54f-72b8-592e4ac69c63"


def test_bindings_complete_as_the_controllers_leave_them():
    storage = _storage()
    decided = [("mine", "pv"), ("made", None), ("old", None)]
    out, names = complete(storage, "ns", decided, "n0", {ZONE: "z1", "other": "x"})
    uid = claim_uid(storage.claims[("ns", "made")])
    assert names == ["pv", f"pvc-{uid}", None]
    mine, made, old = (out.claims[("ns", n)] for n in ("mine", "made", "old"))
    assert (mine.volume_name, mine.bind_completed, mine.uid) == ("pv", True, "u2")
    assert (out.volumes["pv"].claim_ref, out.volumes["pv"].available) == (("ns", "mine", "u2"),
                                                                          False)  # fmt: skip
    assert (made.volume_name, made.bind_completed, made.uid) == (f"pvc-{uid}", True, uid)
    assert old == storage.claims[("ns", "old")]  # (a non-migrated in-tree plugin's: pending)
    pv = out.volumes[f"pvc-{uid}"]
    assert (pv.csi_driver, pv.csi_handle, pv.class_name, pv.capacity, pv.access_modes,
            pv.claim_ref, pv.available, pv.labels) == (
        "d.io", f"pvc-{uid}", "fast", Fraction(2**30), ("ReadWriteOnce",), ("ns", "made", uid),
        False, {})  # fmt: skip
    assert pv.node_affinity == (NodeSelectorTerm((NodeSelectorRequirement(ZONE, "In", ("z1",)),)),)
    assert storage.claims[("ns", "made")].volume_name == ""  # (the input unchanged)


def test_a_driver_without_topology_gives_no_node_affinity():
    for storage in (_storage(()), Storage(classes=_storage().classes, claims=_storage().claims)):
        out, (name,) = complete(storage, "ns", [("made", None)], "n0", {ZONE: "z1"})
        assert out.volumes[name].node_affinity is None


def test_a_node_without_a_topology_label_is_refused():
    with pytest.raises(UnsupportedError, match=re.escape(f"lacks the label '{ZONE}'")):
        complete(_storage(), "ns", [("made", None)], "n0", {})


def test_the_claims_no_provisioner_completes_are_counted_by_provisioner():
    """Unbound claims of WaitForFirstConsumer classes whose in-tree provisioner kscore does
    not provision (vSphere here; not a CSI driver's, not one bound, not an Immediate
    class's): counted for the loader's warning line."""
    storage = _storage()
    storage.classes["now"] = ClassRecord("now", "Immediate", "kubernetes.io/vsphere-volume")
    for name, cls, volume in (("bound", "file", "pv"), ("soon", "now", ""), ("two", "file", "")):
        storage.claims[("ns", name)] = ClaimRecord("ns", name, class_name=cls,
                                                   volume_name=volume)  # fmt: skip
    assert unprovisioned_claims(storage) == {"kubernetes.io/vsphere-volume": 2}
    assert unprovisioned_claims(Storage()) == {}


def test_the_loader_warns_of_claims_no_provisioner_completes():
    from kscore_fast.api import load_cluster

    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n0"},
            "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}  # fmt: skip
    sc = {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": "v"},
          "provisioner": "kubernetes.io/vsphere-volume",
          "volumeBindingMode": "WaitForFirstConsumer"}  # fmt: skip
    pvc = {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
           "metadata": {"name": "data", "namespace": "default"},
           "spec": {"storageClassName": "v", "accessModes": ["ReadWriteOnce"],
                    "resources": {"requests": {"storage": "1Gi"}}}}  # fmt: skip
    volume = {"name": "d", "persistentVolumeClaim": {"claimName": "data"}}
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
           "spec": {"containers": [{"name": "c", "image": "i"}], "volumes": [volume]}}  # fmt: skip
    cluster = load_cluster([], objects=[node, sc, pvc, pod])
    assert cluster.warning() == ("1 unbound claims of provisioners kscore does not provision "
                                 "(kubernetes.io/vsphere-volume 1) stay pending once their pod "
                                 "is bound")  # fmt: skip
    assert load_cluster([], objects=[node, pod]).warning() is None
