"""``--format kss``: the pending pods with kube-scheduler-simulator's result annotations."""

from __future__ import annotations

import json

from kscore_fast.cli import main
from kscore_fast.io.kss import FILTER, FINAL, SCORE, SELECTED, go_json

TAINTED = {"apiVersion": "v1", "kind": "Node",
           "metadata": {"name": "cp", "labels": {"kubernetes.io/hostname": "cp"}},
           "spec": {"taints": [{"key": "role", "value": "cp", "effect": "NoSchedule"}]},
           "status": {"allocatable": {"cpu": "4", "memory": "4Gi", "pods": "110"}}}  # fmt: skip


def _node(name: str, cpu: str) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
        "status": {"allocatable": {"cpu": cpu, "memory": "4Gi", "pods": "110"}},
    }


def _pod(name: str, cpu: str) -> dict:
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "a", "labels": {"app": name},
                         "annotations": {"team": "x"}},
            "spec": {"containers": [{"name": "c", "image": "x",
                                     "resources": {"requests": {"cpu": cpu}}}]}}  # fmt: skip


def test_the_pods_carry_the_simulators_annotations(tmp_path, capsys):
    objs = [TAINTED, _node("w1", "2"), _node("w2", "1"), _pod("fits", "1500m"),
            _pod("huge", "8")]  # fmt: skip
    path = tmp_path / "in.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objs}))
    assert main(["score", str(path), "--format", "kss", "--plugins", "NodeResourcesFit",
                 "--quiet"]) == 0  # fmt: skip
    doc = json.loads(capsys.readouterr().out)
    fits, huge = doc["items"]
    assert fits["metadata"]["labels"] == {"app": "fits"}  # (the input's object, kept)
    ann = fits["metadata"]["annotations"]
    assert ann["team"] == "x" and ann[SELECTED] == "cp"  # (the most room, unfiltered)
    # --plugins: score plugins only, no filter ran: no filter result; every node scored
    assert json.loads(ann[FILTER]) == {}
    assert set(json.loads(ann[SCORE])) == {"cp", "w1", "w2"}
    assert main(["score", str(path), "--format", "kss", "--quiet"]) == 0  # default profile
    fits, huge = json.loads(capsys.readouterr().out)["items"]
    filters = json.loads(fits["metadata"]["annotations"][FILTER])
    assert filters["cp"] == {"NodeUnschedulable": "passed", "NodeName": "passed",
                             "TaintToleration": "node(s) had taint {role: cp}, that the "
                             "pod didn't tolerate"}  # fmt: skip
    assert filters["w2"]["NodeResourcesFit"] == "Insufficient cpu"
    assert set(filters["w1"].values()) == {"passed"}
    assert fits["metadata"]["annotations"][SELECTED] == "w1"
    assert json.loads(fits["metadata"]["annotations"][SCORE]) == {}  # (one feasible node)
    assert json.loads(fits["metadata"]["annotations"][FINAL]) == {}
    assert huge["metadata"]["annotations"][SELECTED] == ""
    assert len(json.loads(huge["metadata"]["annotations"][FILTER])) == 3


def test_values_are_written_as_gos_json_marshal_writes_them():
    assert go_json({"b": {"y": "1"}, "a": {"x": "<&>"}}) == (
        '{"a":{"x":"\\u003c\\u0026\\u003e"},"b":{"y":"1"}}')  # fmt: skip


def test_stdin_is_refused(capsys):
    assert main(["score", "-", "--format", "kss"]) == 2
    assert "give files, not -" in capsys.readouterr().err
