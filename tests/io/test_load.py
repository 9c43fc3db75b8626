"""Manifest input: kubectl's shapes, skipped kinds, and bad input named precisely."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from kscore_fast.api import load_cluster
from kscore_fast.errors import InputError

ROOT = Path(__file__).resolve().parents[2]
DUMPS = ROOT / "data" / "real-dumps"


def _pod(name, node="", ns=None, labels=None, **extra):
    meta = {"name": name, "labels": labels or {"app": "a"}}
    if ns is not None:
        meta["namespace"] = ns
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": meta,
        "spec": {"nodeName": node, "containers": [{"name": "c"}]},
        **extra,
    }


def _node(name, zone="z1"):
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {"topology.kubernetes.io/zone": zone}},
    }


def test_real_kubectl_dumps_typed_lists():
    c = load_cluster(sorted(DUMPS.glob("splunk__fluent-plugin-kubernetes-objects__*.json")))
    assert c.snapshot.n_nodes == 4
    assert len(c.snapshot.pods) == 13 and len(c.batch) == 0
    # failure-domain.beta zones 1, 2, 0, 0 (region westus2): three zones, interleaved order
    assert len(c.snapshot.zone_keys) == 3
    assert c.snapshot.zone_keys[0].startswith("westus2:\x00:")


def test_list_multidoc_directory_and_order(tmp_path):
    d = tmp_path / "cluster"
    (d / "b").mkdir(parents=True)
    (d / "a.yaml").write_text(yaml.safe_dump_all([_node("n1"), _node("n2", "z2")]))
    (d / "b" / "c.json").write_text(
        json.dumps({"apiVersion": "v1", "kind": "List", "items": [_pod("p1"), _pod("p2", "n1")]})
    )
    (d / ".hidden.yaml").write_text("not: [valid")
    (d / "notes.txt").write_text("ignored")
    (tmp_path / "extra.yaml").write_text(
        yaml.safe_dump({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"}})
    )
    c = load_cluster([d, tmp_path / "extra.yaml"])
    assert c.snapshot.node_names == ["n1", "n2"]
    assert [p.key for p in c.batch.pods] == ["default/p1"]  # missing namespace → default
    assert c.skipped_kinds == {"ConfigMap": 1}
    assert c.warning() == "skipped 1 objects of unused kinds (ConfigMap 1)"


def test_pods_on_absent_nodes_and_terminated_pods():
    c = load_cluster(
        objects=[
            _node("n1"),
            _pod("a", "n1"),
            _pod("b", "gone"),
            _pod("c", "n1", status={"phase": "Succeeded"}),
            _pod("d", status={"phase": "Failed"}),
            _pod("e"),
        ]
    )
    assert [p.name for p in c.snapshot.pods] == ["a"]
    assert [p.name for p in c.batch.pods] == ["e"]
    assert c.orphaned_pods == 1 and c.terminated_pods == 2
    assert "left out 1 pods bound to nodes absent from the input" in c.warning()


def _err(tmp_path, text, name="bad.yaml"):
    f = tmp_path / name
    f.write_text(text)
    with pytest.raises(InputError) as exc:
        load_cluster([f])
    msg = str(exc.value)
    assert str(f) in msg
    return msg


def test_malformed_yaml(tmp_path):
    assert "malformed YAML at line 3 column 1" in _err(tmp_path, "kind: Pod\nmetadata: [oops\n")


def test_malformed_json(tmp_path):
    assert "malformed JSON at line 1" in _err(tmp_path, '{"kind": "Pod",', "bad.json")


def test_object_without_kind(tmp_path):
    assert "object without kind" in _err(tmp_path, "metadata: {name: x}\n")


def test_object_without_name(tmp_path):
    msg = _err(tmp_path, "kind: Pod\nmetadata: {namespace: x}\n")
    assert "metadata.name" in msg and "Pod without metadata.name" in msg


def test_bad_quantity(tmp_path):
    pod = _pod("p")
    pod["spec"]["containers"][0]["resources"] = {"requests": {"cpu": "1.2.3"}}
    msg = _err(tmp_path, yaml.safe_dump(pod))
    assert "Pod default/p" in msg and "spec.containers[0].resources.requests.cpu" in msg


def test_bad_label_value(tmp_path):
    msg = _err(tmp_path, yaml.safe_dump(_pod("p", labels={"app": "no spaces allowed"})))
    assert "metadata.labels.app" in msg and "invalid label value" in msg


def test_unquoted_non_string_label(tmp_path):
    msg = _err(tmp_path, "kind: Pod\nmetadata:\n  name: p\n  labels: {version: 1.0}\n")
    assert "label value must be a string" in msg


def test_bad_selector_operator(tmp_path):
    rs = {
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "metadata": {"name": "rs"},
        "spec": {
            "selector": {"matchExpressions": [{"key": "a", "operator": "Equals", "values": ["x"]}]}
        },
    }
    msg = _err(tmp_path, yaml.safe_dump(rs))
    assert "ReplicaSet default/rs" in msg and "spec.selector.matchExpressions[0].operator" in msg
    assert '"Equals" is not a valid pod selector operator' in msg


def test_duplicate_names(tmp_path):
    msg = _err(tmp_path, yaml.safe_dump_all([_node("n1"), _node("n1")]))
    assert "duplicate Node" in msg and "document 2" in msg
