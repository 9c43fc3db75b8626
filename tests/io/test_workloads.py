"""``--expand-workloads`` (:mod:`kscore_fast.io.workloads`): the pending pods the input's
workloads lack, as their controllers would create them."""

from __future__ import annotations

import json

import pytest

from kscore_fast import load_cluster, simulate
from kscore_fast.cli import main
from kscore_fast.io.workloads import ALPHABET, expand_workloads
from kscore_fast.plugins.selectorspread.reference import default_selector

TEMPLATE = {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [
    {"name": "c", "image": "x", "resources": {"requests": {"cpu": "300m"}}}]}}  # fmt: skip


def _workload(kind: str, name: str, uid: str, **spec: object) -> dict:
    api = "batch/v1" if kind == "Job" else "v1" if kind == "ReplicationController" else "apps/v1"
    return {"apiVersion": api, "kind": kind, "metadata": {"name": name, "namespace": "ns",
            "uid": uid}, "spec": {"template": TEMPLATE, **spec}}  # fmt: skip


def _owned(name: str, kind: str, owner: str, uid: str, phase: str = "Running",
           deleting: bool = False) -> dict:  # fmt: skip
    meta = {"name": name, "namespace": "ns", "labels": {"app": "web"},
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": kind, "name": owner,
                                 "uid": uid, "controller": True}]}  # fmt: skip
    if deleting:
        meta["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta,
            "spec": {"nodeName": "n1", "containers": TEMPLATE["spec"]["containers"]},
            "status": {"phase": phase}}  # fmt: skip


def test_a_replica_set_gets_the_pods_it_lacks():
    rs = _workload("ReplicaSet", "web-abc", "u1", replicas=4)
    pods = [_owned("web-abc-1", "ReplicaSet", "web-abc", "u1"),
            _owned("web-abc-2", "ReplicaSet", "web-abc", "u1", deleting=True),
            _owned("web-abc-3", "ReplicaSet", "web-abc", "u1", phase="Succeeded"),
            _owned("other", "ReplicaSet", "web-xyz", "u2")]  # fmt: skip
    made, counts = expand_workloads([rs, *pods])
    assert counts == {"ReplicaSet": 3} and len(made) == 3  # 4 wanted, 1 active
    for pod in made:
        name = pod["metadata"]["name"]
        assert name.startswith("web-abc-") and set(name[8:]) <= set(ALPHABET)
        assert len(name) == len("web-abc-") + 5
        assert pod["metadata"]["labels"] == {"app": "web"}
        assert pod["metadata"]["ownerReferences"][0] == {
            "apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-abc", "uid": "u1",
            "controller": True, "blockOwnerDeletion": True}  # fmt: skip
        assert "nodeName" not in pod["spec"] and pod["metadata"]["namespace"] == "ns"
    assert len({p["metadata"]["name"] for p in made}) == 3
    assert expand_workloads([rs, *pods]) == (made, counts)  # deterministic


def test_a_deployment_gets_a_replica_set_only_when_it_has_none_of_its_template():
    deploy = _workload("Deployment", "web", "d1", replicas=3,
                       selector={"matchLabels": {"app": "web"}})  # fmt: skip
    made, counts = expand_workloads([deploy])
    rs = made[0]
    digest = rs["metadata"]["labels"]["pod-template-hash"]
    assert rs["kind"] == "ReplicaSet" and rs["metadata"]["name"] == f"web-{digest}"
    assert rs["spec"]["selector"]["matchLabels"] == {"app": "web", "pod-template-hash": digest}
    assert [p["metadata"]["labels"] for p in made[1:]] == [
        {"app": "web", "pod-template-hash": digest}] * 3  # fmt: skip
    assert counts == {"Deployment": 3}
    existing = {**_workload("ReplicaSet", "web-old", "r1", replicas=3),
                "metadata": {"name": "web-old", "namespace": "ns", "uid": "r1",
                             "ownerReferences": [{"kind": "Deployment", "name": "web",
                                                  "uid": "d1", "controller": True}]}}  # fmt: skip
    made, counts = expand_workloads([deploy, existing])
    assert counts == {"ReplicaSet": 3}  # (its ReplicaSet does the work)


def test_a_stateful_set_fills_its_missing_ordinals():
    sts = {**_workload("StatefulSet", "db", "s1", replicas=3, serviceName="db"),
           "status": {"updateRevision": "db-7f9"}}  # fmt: skip
    made, _ = expand_workloads([sts, _owned("db-1", "StatefulSet", "db", "s1")])
    assert [p["metadata"]["name"] for p in made] == ["db-0", "db-2"]
    labels = made[1]["metadata"]["labels"]
    assert labels["statefulset.kubernetes.io/pod-name"] == "db-2"
    assert labels["controller-revision-hash"] == "db-7f9"
    assert made[1]["spec"]["hostname"] == "db-2" and made[1]["spec"]["subdomain"] == "db"


def test_a_stateful_set_claims_its_volume_claim_templates():
    """Each pod it adds mounts ``<template>-<name>-<ordinal>`` (the template's name as the
    volume's); the claims the input lacks are added, labelled with the selector, of the
    template's class or the default one."""
    templates = [{"metadata": {"name": "data"}, "spec": {"resources": {"requests": {
                     "storage": "1Gi"}}}},
                 {"metadata": {"name": "logs", "labels": {"tier": "x"}},
                  "spec": {"storageClassName": "slow"}}]  # fmt: skip
    template = {**TEMPLATE, "spec": {**TEMPLATE["spec"], "volumes": [
        {"name": "data", "emptyDir": {}}, {"name": "tmp", "emptyDir": {}}]}}  # fmt: skip
    sts = _workload("StatefulSet", "db", "s1", replicas=2, volumeClaimTemplates=templates,
                    selector={"matchLabels": {"app": "web"}}, template=template)  # fmt: skip
    default = {"kind": "StorageClass", "metadata": {"name": "fast", "annotations": {
        "storageclass.kubernetes.io/is-default-class": "true"}}}  # fmt: skip
    have = {"kind": "PersistentVolumeClaim", "metadata": {"name": "data-db-1", "namespace": "ns"}}
    made, counts = expand_workloads([sts, default, have])
    pods = [o for o in made if o["kind"] == "Pod"]
    claims = {o["metadata"]["name"]: o for o in made if o["kind"] == "PersistentVolumeClaim"}
    assert counts == {"StatefulSet": 2}
    assert pods[1]["spec"]["volumes"] == [
        {"name": "data", "persistentVolumeClaim": {"claimName": "data-db-1"}},
        {"name": "logs", "persistentVolumeClaim": {"claimName": "logs-db-1"}},
        {"name": "tmp", "emptyDir": {}},
    ]
    assert sorted(claims) == ["data-db-0", "logs-db-0", "logs-db-1"]
    assert claims["data-db-0"]["spec"]["storageClassName"] == "fast"
    assert claims["logs-db-1"]["spec"]["storageClassName"] == "slow"
    assert claims["logs-db-1"]["metadata"]["labels"] == {"tier": "x", "app": "web"}
    assert claims["logs-db-0"]["metadata"]["namespace"] == "ns"


def test_two_default_classes_stop_a_stateful_set_at_its_first_claim_of_no_class():
    """v1.23's DefaultStorageClass admission refuses a claim of no class when two classes
    are the default: ``CreateStatefulPod`` creates the pod's other claims, not the pod,
    and ``updateStatefulSet`` stops there (the later ordinals are not created). A pod
    whose claims all exist is created; a template with the beta class annotation has a
    class."""
    templates = [{"metadata": {"name": "data"}, "spec": {}},
                 {"metadata": {"name": "logs"}, "spec": {"storageClassName": "slow"}},
                 {"metadata": {"name": "beta", "annotations": {
                     "volume.beta.kubernetes.io/storage-class": "slow"}}, "spec": {}}]  # fmt: skip
    sts = _workload("StatefulSet", "db", "s1", replicas=3, volumeClaimTemplates=templates,
                    selector={"matchLabels": {"app": "web"}})  # fmt: skip
    default = {"kind": "StorageClass", "metadata": {"name": "fast", "annotations": {
        "storageclass.kubernetes.io/is-default-class": "true"}}}  # fmt: skip
    two = {"kind": "StorageClass", "metadata": {"name": "other", "annotations": {
        "storageclass.beta.kubernetes.io/is-default-class": "true"}}}  # fmt: skip
    have = {"kind": "PersistentVolumeClaim", "metadata": {"name": "data-db-0", "namespace": "ns"}}
    made, counts = expand_workloads([sts, default, two, have])
    assert counts == {"StatefulSet": 1}
    assert [o["metadata"]["name"] for o in made] == [
        "logs-db-0", "beta-db-0", "logs-db-1", "beta-db-1", "db-0"]  # fmt: skip
    beta = next(o for o in made if o["metadata"]["name"] == "beta-db-1")
    assert "storageClassName" not in beta["spec"]
    made, counts = expand_workloads([sts, default, two])  # (db-0 itself refused)
    assert counts == {"StatefulSet": 0}
    assert [o["metadata"]["name"] for o in made] == ["logs-db-0", "beta-db-0"]
    made, counts = expand_workloads([sts, default, have])  # (one default: every pod)
    assert counts == {"StatefulSet": 3}


@pytest.mark.parametrize(("spec", "status", "wanted"), [
    ({"parallelism": 3, "completions": 5}, {"succeeded": 4}, 1),
    ({"parallelism": 3, "completions": 5}, {}, 3),
    ({"parallelism": 2}, {}, 2),
    ({"parallelism": 2}, {"succeeded": 1}, 0),
    ({"parallelism": 2, "suspend": True}, {}, 0),
])  # fmt: skip
def test_a_job_wants_its_parallelism_up_to_the_completions_left(spec, status, wanted):
    job = {**_workload("Job", "batch", "j1", **spec), "status": status}
    made, _ = expand_workloads([job])
    assert len(made) == wanted
    for pod in made:
        assert pod["metadata"]["labels"] == {"app": "web", "job-name": "batch",
                                             "controller-uid": "j1"}  # fmt: skip


def test_spreading_sees_the_new_pods_as_the_workloads(tmp_path):
    """The new pods and the new ReplicaSet carry the labels and references that
    PodTopologySpread's default constraints select by (the owning ReplicaSet's selector):
    the replicas spread one per node, then a second round."""
    nodes = [{"apiVersion": "v1", "kind": "Node",
              "metadata": {"name": n, "labels": {"kubernetes.io/hostname": n}},
              "status": {"allocatable": {"cpu": "8", "memory": "8Gi", "pods": "110"}}}
             for n in ("n1", "n2", "n3")]  # fmt: skip
    deploy = _workload("Deployment", "web", "d1", replicas=6,
                       selector={"matchLabels": {"app": "web"}})  # fmt: skip
    path = tmp_path / "in.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": [*nodes, deploy]}))
    cluster = load_cluster([path], expand_workloads=True)
    assert cluster.expanded_workloads == {"Deployment": 6} and len(cluster.batch) == 6
    assert "added 6 pending pods the workloads lack (Deployment 6)" in cluster.warning()
    snap = cluster.snapshot
    for pod in cluster.batch.pods:  # helper.DefaultSelector: the new ReplicaSet's selector
        selector = default_selector(snap, pod)
        assert selector.matches(pod.labels)
        assert not selector.matches({"app": "web"})  # (pod-template-hash required)
    hosts = simulate(cluster, plugins="PodTopologySpread", scores="none").host_names
    assert len(set(hosts[:3])) == 3 and sorted(hosts) == ["n1", "n1", "n2", "n2", "n3", "n3"]


def test_the_command_line_flag(tmp_path, capsys, monkeypatch):
    deploy = _workload("ReplicaSet", "web", "u1", replicas=2)
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
            "status": {"allocatable": {"cpu": "1", "memory": "1Gi", "pods": "110"}}}  # fmt: skip
    path = tmp_path / "in.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": [node, deploy]}))
    assert main(["simulate", str(path), "--expand-workloads", "--scores", "none"]) == 0
    out, err = capsys.readouterr()
    assert len(json.loads(out)["results"]) == 2 and "ReplicaSet 2" in err
    assert main(["score", "-", "--expand-workloads"]) == 2
    assert "give files, not -" in capsys.readouterr().err
