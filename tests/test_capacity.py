"""``kscore capacity``: copies of a template pod until one fits nowhere."""

from __future__ import annotations

import json

import pytest

from kscore_fast import capacity, load_cluster
from kscore_fast.capacity_search import drain, nodes_to_add
from kscore_fast.cli import main
from kscore_fast.errors import InputError

NODE = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
        "status": {"allocatable": {"cpu": "2", "memory": "4Gi", "pods": "110"}}}  # fmt: skip
DEPLOYMENT = {
    "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "a"},
    "spec": {"replicas": 2, "template": {"metadata": {"labels": {"app": "web"}}, "spec": {
        "containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": "300m"}}}]}}},
}  # fmt: skip


def test_copies_fit_until_the_first_fit_error():
    result = capacity(load_cluster(objects=[NODE]), DEPLOYMENT)
    assert result.replicas == 6 and result.per_node == {"n1": 6}  # 6 × 300m of 2 cores
    assert result.stop_reason == "0/1 nodes are available: 1 Insufficient cpu."
    assert result.template == "a/web"
    limited = capacity(load_cluster(objects=[NODE]), DEPLOYMENT, max_replicas=4)
    assert limited.replicas == 4 and limited.stop_reason is None
    assert "stopped at the limit" in limited.summary()


def test_the_command_prints_the_document_and_a_summary(tmp_path, capsys):
    cluster, pod = tmp_path / "cluster.json", tmp_path / "web.yaml"
    cluster.write_text(json.dumps(NODE))
    pod.write_text(json.dumps(DEPLOYMENT))
    assert main(["capacity", str(cluster), "--pod", str(pod)]) == 0
    out, err = capsys.readouterr()
    doc = json.loads(out)
    assert doc["replicas"] == 6 and doc["hosts"] == ["n1"] * 6
    assert "6 more replicas of a/web fit, on 1 node; the next fits nowhere" in err
    assert main(["capacity", str(cluster), "--pod", str(pod), "-o", str(tmp_path / "o.json"),
                 "--quiet", "--max", "2"]) == 0  # fmt: skip
    assert json.loads((tmp_path / "o.json").read_text())["replicas"] == 2


@pytest.mark.parametrize(("text", "message"), [
    ('{"kind": "Service", "metadata": {"name": "s"}}', "kind 'Service': expected Pod"),
    ('{"kind": "Deployment", "metadata": {"name": "d"}, "spec": {}}', "spec.template.spec"),
    ("kind: Pod\n---\nkind: Pod\n", "expected one object, found 2"),
])  # fmt: skip
def test_bad_templates_name_the_file(tmp_path, capsys, text, message):
    cluster, pod = tmp_path / "cluster.json", tmp_path / "t.yaml"
    cluster.write_text(json.dumps(NODE))
    pod.write_text(text)
    assert main(["capacity", str(cluster), "--pod", str(pod)]) == 2
    out, err = capsys.readouterr()
    assert (out == "" and message in err and "t.yaml" in err) or message in err
    with pytest.raises(InputError, match="max_replicas"):
        capacity(load_cluster(objects=[NODE]), DEPLOYMENT, max_replicas=-1)


def _bound(name: str, node: str, cpu: str, priority: int = 0, daemon: bool = False) -> dict:
    meta: dict = {"name": name, "namespace": "a"}
    if daemon:
        meta["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": "DaemonSet", "name": "d",
                                    "uid": "u1", "controller": True}]  # fmt: skip
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta,
            "spec": {"nodeName": node, "priority": priority, "containers": [
                {"name": "c", "image": "x", "resources": {"requests": {"cpu": cpu}}}]}}  # fmt: skip


def _node(name: str, cpu: str = "2") -> dict:
    return {
        **NODE,
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
        "status": {"allocatable": {"cpu": cpu, "memory": "4Gi", "pods": "110"}},
    }


def test_nodes_to_add_is_the_fewest_copies_of_the_template():
    result = nodes_to_add(load_cluster(objects=[NODE]), DEPLOYMENT, _node("big", "1"), 9)
    # n1 takes 6 (2 cores), each 1-core copy 3 more: one copy for 9
    assert (result.nodes, result.run.replicas, result.run.per_node) == (
        1, 9, {"n1": 6, "big-added-0": 3})  # fmt: skip
    assert result.summary() == "add 1 big node for 9 replicas of a/web to fit"
    none = nodes_to_add(load_cluster(objects=[NODE]), DEPLOYMENT, _node("tiny", "100m"), 9,
                        max_nodes=2)  # fmt: skip
    assert none.nodes is None and "do not fit with up to 2 more tiny nodes" in none.summary()


def test_drain_moves_the_pods_by_priority_and_leaves_daemonset_pods():
    objs = [_node("n1"), _node("n2", "1500m"), _node("n3", "1"),
            _bound("low", "n1", "1"), _bound("high", "n1", "1", priority=10),
            _bound("ds", "n1", "100m", daemon=True), _bound("other", "n2", "1")]  # fmt: skip
    result = drain(load_cluster(objects=objs), ["n1"])
    assert [(p["pod"], p["host"]) for p in result.pods] == [("a/high", "n3"), ("a/low", None)]
    assert not result.all_fit and result.pods[1]["error"].startswith("0/2 nodes are available")
    assert "2 pods to move, 1 placed, 1 fit nowhere" in result.summary()
    with pytest.raises(InputError, match="unknown node 'n9'"):
        drain(load_cluster(objects=objs), ["n9"])
