"""Generic ephemeral volumes in (``spec.volumes[].ephemeral``): a pod's claims of them
named ``<pod>-<volume>`` among its other claims, in volume order, its uid (given, or the
digest the API server's stands in for), a claim's controller uid, and the claims
``--expand-workloads`` makes for a workload's pods as the ephemeral volume controller
does."""

from __future__ import annotations

import json

import pytest

from kscore_fast.api import load_cluster
from kscore_fast.errors import InputError
from kscore_fast.io.workloads import expand_workloads
from kscore_fast.model.objects import object_uid

NODE = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n0"},
        "status": {"allocatable": {"cpu": "1", "memory": "1Gi", "pods": "10"}}}  # fmt: skip
EPHEMERAL = {"volumeClaimTemplate": {
    "metadata": {"labels": {"k": "v"}},
    "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}},
}}  # fmt: skip


def _pod(name: str, *volumes: dict, uid: object = None, node: str = "") -> dict:
    meta: dict = {"name": name, "namespace": "default"}
    if uid is not None:
        meta["uid"] = uid
    spec: dict = {"containers": [{"name": "c", "image": "x"}], "volumes": list(volumes)}
    if node:
        spec["nodeName"] = node
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}


def _load(tmp_path, *objs):
    path = tmp_path / "c.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": [NODE, *objs]}))
    return load_cluster([path])


def test_claims_in_volume_order(tmp_path):
    vols = ({"name": "a", "persistentVolumeClaim": {"claimName": "data"}},
            {"name": "scratch", "ephemeral": EPHEMERAL}, {"name": "t", "emptyDir": {}},
            {"name": "b", "persistentVolumeClaim": {"claimName": "logs"}},
            {"name": "cache", "ephemeral": EPHEMERAL})  # fmt: skip
    # (pods of one template one after the other: each names its own claims)
    c = _load(tmp_path, _pod("p", *vols), _pod("q", *vols, uid="u-q"))
    p, q = c.batch.pods
    assert p.claims == ("data", "p-scratch", "logs", "p-cache") and p.ephemeral == (1, 3)
    assert q.claims == ("data", "q-scratch", "logs", "q-cache") and q.ephemeral == (1, 3)
    assert p.pvc_claims == q.pvc_claims == ("data", "logs")
    assert (p.uid, q.uid) == (object_uid("default", "p"), "u-q")


def test_pods_without_ephemeral_volumes_keep_no_uid(tmp_path):
    c = _load(tmp_path, _pod("p", {"name": "a", "persistentVolumeClaim": {"claimName": "d"}},
                             uid="u-p"))  # fmt: skip
    pod = c.batch.pods[0]
    assert (pod.claims, pod.ephemeral, pod.uid, pod.pvc_claims) == (("d",), (), "", ("d",))


def test_object_uid_is_a_uuid_shaped_digest():
    uid = object_uid("default", "p")
    assert [len(part) for part in uid.split("-")] == [8, 4, 4, 4, 12]
    assert uid != object_uid("default", "q") and uid == object_uid("default", "p")


@pytest.mark.parametrize("uid", [7, ["x"]])
def test_a_bad_uid_is_named(tmp_path, uid):
    with pytest.raises(InputError, match=r"Pod default/p.*metadata\.uid.*must be a string"):
        _load(tmp_path, _pod("p", {"name": "e", "ephemeral": EPHEMERAL}, uid=uid))


def test_an_ephemeral_volume_needs_a_name(tmp_path):
    with pytest.raises(InputError, match=r"spec\.volumes\[0\]\.name.*required"):
        _load(tmp_path, _pod("p", {"ephemeral": EPHEMERAL}))


def _claim(name: str, refs: list | None) -> dict:
    meta: dict = {"name": name, "namespace": "default"}
    if refs is not None:
        meta["ownerReferences"] = refs
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": meta,
            "spec": {"resources": {"requests": {"storage": "1Gi"}}}}  # fmt: skip


def test_a_claims_controller_uid(tmp_path):
    pod = {"apiVersion": "v1", "kind": "Pod", "name": "p"}
    c = _load(tmp_path, _claim("none", None),
              _claim("plain", [{**pod, "uid": "u1"}]),
              _claim("owned", [{**pod, "uid": "u0"}, {**pod, "uid": "u1", "controller": True},
                               {**pod, "uid": "u2", "controller": True}]),
              _claim("blank", [{**pod, "controller": True}]))  # fmt: skip
    got = {name: c.snapshot.storage.claims[("default", name)].controller_uid
           for name in ("none", "plain", "owned", "blank")}  # fmt: skip
    assert got == {"none": None, "plain": None, "owned": "u1", "blank": ""}


def test_workload_pods_get_their_ephemeral_claims():
    template = {"metadata": {"labels": {"app": "w"}}, "spec": {
        "containers": [{"name": "c", "image": "x"}],
        "volumes": [{"name": "scratch", "ephemeral": {"volumeClaimTemplate": {
            "metadata": {"labels": {"k": "v"}, "annotations": {"a": "b"}},
            "spec": {"accessModes": ["ReadWriteOnce"], "resources": {
                "requests": {"storage": "1Gi"}}}}}},
            {"name": "named", "ephemeral": {"volumeClaimTemplate": {
                "spec": {"storageClassName": "fast"}}}}]}}  # fmt: skip
    rs = {"apiVersion": "apps/v1", "kind": "ReplicaSet",
          "metadata": {"name": "w", "namespace": "ns", "uid": "rs"},
          "spec": {"replicas": 2, "template": template}}  # fmt: skip
    default = {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
               "metadata": {"name": "std", "annotations": {
                   "storageclass.kubernetes.io/is-default-class": "true"}},
               "provisioner": "x"}  # fmt: skip
    made, counts = expand_workloads([rs, default])
    pods = [o for o in made if o["kind"] == "Pod"]
    claims = [o for o in made if o["kind"] == "PersistentVolumeClaim"]
    assert counts == {"ReplicaSet": 2} and len(claims) == 4
    for pod in pods:
        name = pod["metadata"]["name"]
        uid = pod["metadata"]["uid"]
        assert uid == object_uid("ns", name)
        mine = {c["metadata"]["name"]: c for c in claims
                if c["metadata"]["ownerReferences"][0]["name"] == name}  # fmt: skip
        assert set(mine) == {f"{name}-scratch", f"{name}-named"}
        scratch = mine[f"{name}-scratch"]
        assert scratch["metadata"]["ownerReferences"] == [{
            "apiVersion": "v1", "kind": "Pod", "name": name, "uid": uid, "controller": True,
            "blockOwnerDeletion": True}]  # fmt: skip
        assert scratch["metadata"]["labels"] == {"k": "v"}
        assert scratch["metadata"]["annotations"] == {"a": "b"}
        assert scratch["metadata"]["namespace"] == "ns"
        assert scratch["spec"] == {"accessModes": ["ReadWriteOnce"], "storageClassName": "std",
                                   "resources": {"requests": {"storage": "1Gi"}}}  # fmt: skip
        assert mine[f"{name}-named"]["spec"] == {"storageClassName": "fast"}
    # a claim the input has already is left as it is; a foreign one is handleVolume's
    # error, which stops the controller for the pod (its later volumes get none)
    first = pods[0]["metadata"]["name"]
    existing = {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                "metadata": {"name": f"{first}-scratch", "namespace": "ns"}}  # fmt: skip
    again, _ = expand_workloads([rs, default, existing])
    assert len([o for o in again if o["kind"] == "PersistentVolumeClaim"]) == 2
    existing["metadata"]["ownerReferences"] = [{"kind": "Pod", "name": first, "controller": True,
                                                "uid": object_uid("ns", first)}]  # fmt: skip
    again, _ = expand_workloads([rs, default, existing])
    assert len([o for o in again if o["kind"] == "PersistentVolumeClaim"]) == 3
    # two default classes: the admission plugin refuses the claim of no class (the
    # first volume), which stops the controller: no claim for either pod
    two = {**default, "metadata": {**default["metadata"], "name": "other"}}
    again, _ = expand_workloads([rs, default, two])
    assert [o for o in again if o["kind"] == "PersistentVolumeClaim"] == []


def test_expanded_ephemeral_pods_are_owned(tmp_path):
    """Loaded with ``expand_workloads``: the made pods' claims are theirs (VolumeBinding's
    PreFilter passes them: provisioned on the node)."""
    template = {"spec": {"containers": [{"name": "c", "image": "x"}],
                         "volumes": [{"name": "s", "ephemeral": EPHEMERAL}]}}  # fmt: skip
    rs = {"apiVersion": "apps/v1", "kind": "ReplicaSet",
          "metadata": {"name": "w", "namespace": "default"},
          "spec": {"replicas": 2, "template": template}}  # fmt: skip
    sc = {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
          "metadata": {"name": "std", "annotations": {
              "storageclass.kubernetes.io/is-default-class": "true"}},
          "provisioner": "example.com/x", "volumeBindingMode": "WaitForFirstConsumer"}  # fmt: skip
    path = tmp_path / "c.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": [NODE, rs, sc]}))
    from kscore_fast.api import simulate

    result = simulate(load_cluster([path], expand_workloads=True)).to_dict()["results"]
    assert [r["host"] for r in result] == ["n0", "n0"]
    assert all(r["volumeBindings"][0]["provisioned"] for r in result)
