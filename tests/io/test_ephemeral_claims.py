"""The ephemeral volume controller for pods added during a run (``io.ephemeral``): the
claims it creates, leaves, stops at, and the DefaultStorageClass admission plugin's
class; through ``Simulator.add_pod``, and ``kscore capacity``'s copies (new uids)."""

from __future__ import annotations

import pytest

# (the package's lazy ``capacity`` first: importing the submodule before it would shadow
# the exported function by the module for the whole process)
from kscore_fast import Simulator, capacity, load_cluster
from kscore_fast.capacity_search import copies
from kscore_fast.errors import InputError
from kscore_fast.io.ephemeral import created_claims
from kscore_fast.model.objects import PodRecord, object_uid
from kscore_fast.model.storage import ClaimRecord, ClassRecord, Storage


def _pod(*names: str, template=None) -> dict:
    vols = [{"name": n, "ephemeral": {"volumeClaimTemplate": template or {
        "metadata": {"labels": {"a": "b"}},
        "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}}}
        for n in names]  # fmt: skip
    vols.insert(1, {"name": "plain", "emptyDir": {}})
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "ns"},
            "spec": {"containers": [{"name": "c", "image": "i"}], "volumes": vols}}  # fmt: skip


RECORD = PodRecord("ns", "p", uid="u")


def _storage(*defaults: str, claims=()) -> Storage:
    out = Storage()
    for name in ("fast", "slow"):
        out.classes[name] = ClassRecord(name, default=name in defaults)
    for c in claims:
        out.claims[(c.namespace, c.name)] = c
    return out


def test_the_claims_are_the_templates_with_the_pod_as_owner_and_the_default_class():
    made = created_claims(_pod("a", "b"), RECORD, _storage("fast"))
    assert [c["metadata"]["name"] for c in made] == ["p-a", "p-b"]
    meta = made[0]["metadata"]
    assert meta["ownerReferences"] == [{"apiVersion": "v1", "kind": "Pod", "name": "p",
                                        "uid": "u", "controller": True,
                                        "blockOwnerDeletion": True}]  # fmt: skip
    assert (meta["namespace"], meta["labels"], made[0]["spec"]["storageClassName"]) == (
        "ns", {"a": "b"}, "fast")  # fmt: skip
    assert "storageClassName" not in created_claims(_pod("a"), RECORD, _storage())[0]["spec"]
    named = {"metadata": {"annotations": {"volume.beta.kubernetes.io/storage-class": "x"}},
             "spec": {}}  # fmt: skip
    assert "storageClassName" not in created_claims(_pod("a", template=named), RECORD,
                                                    _storage("fast"))[0]["spec"]  # fmt: skip


def test_an_existing_claim_is_left_or_stops_the_controller():
    own = ClaimRecord("ns", "p-a", controller_uid="u")
    foreign = ClaimRecord("ns", "p-a", controller_uid="other")
    assert [c["metadata"]["name"] for c in created_claims(
        _pod("a", "b"), RECORD, _storage(claims=[own]))] == ["p-b"]  # fmt: skip
    assert created_claims(_pod("a", "b"), RECORD, _storage(claims=[foreign])) == []


def test_two_default_classes_refuse_a_claim_of_no_class():
    assert created_claims(_pod("a"), RECORD, _storage("fast", "slow")) == []


def test_add_pod_creates_them_and_the_pod_is_bound_with_them():
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"},
            "status": {"allocatable": {"cpu": "1", "memory": "1Gi", "pods": "10"}}}  # fmt: skip
    sc = {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
          "metadata": {"name": "fast", "annotations": {
              "storageclass.kubernetes.io/is-default-class": "true"}},
          "provisioner": "d.io", "volumeBindingMode": "WaitForFirstConsumer"}  # fmt: skip
    sim = Simulator(load_cluster(objects=[node, sc]))
    sim.add_pod(_pod("a"))
    out = sim.schedule_one("ns/p")
    assert out["host"] == "n"
    assert [b["claim"] for b in out["volumeBindings"]] == ["p-a"]
    bad = _pod("a")
    bad["metadata"]["name"] = "q"
    bad["spec"]["volumes"][0]["ephemeral"]["volumeClaimTemplate"]["spec"]["resources"] = {
        "requests": {"storage": "lots"}}  # fmt: skip
    with pytest.raises(InputError, match="add_pod: pod ns/q: its ephemeral volume's claim"):
        sim.add_pod(bad)
    assert "ns/q" not in sim.pods


def test_capacity_copies_are_new_pods():
    assert callable(capacity)
    pod = _pod("a")
    pod["metadata"]["uid"] = "template-uid"
    (first,) = copies(pod, 0, 1)
    assert "uid" not in first["metadata"]
    assert object_uid("ns", first["metadata"]["name"]) != "template-uid"
