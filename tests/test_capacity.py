"""``kscore capacity``: copies of a template pod until one fits nowhere."""

from __future__ import annotations

import json

import pytest

from kscore_fast import capacity, load_cluster
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
