"""PreScore runs the profile's PreScore list: a plugin disabled at Score still fails there
(generic_scheduler.go prioritizeNodes → RunPreScorePlugins), as it does in Go."""

from __future__ import annotations

from kscore_fast.api import load_cluster, score

CONFIG = """apiVersion: kubescheduler.config.k8s.io/v1beta3
kind: KubeSchedulerConfiguration
profiles:
- plugins:
    multiPoint:
      disabled: [{name: PodTopologySpread}, {name: InterPodAffinity}]
    score:
      disabled: [{name: NodeAffinity}]
"""


def _cluster():
    nodes = [{"kind": "Node", "metadata": {"name": f"n{i}", "labels": {"disk": "1"}},
              "status": {"allocatable": {"pods": "110"}}} for i in range(3)]  # fmt: skip
    bad = {"weight": 1, "preference": {"matchExpressions": [
        {"key": "disk", "operator": "Gt", "values": ["-5"]}]}}  # fmt: skip
    pod = {"kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
           "spec": {"affinity": {"nodeAffinity": {
               "preferredDuringSchedulingIgnoredDuringExecution": [bad]}}}}  # fmt: skip
    return load_cluster(objects=[*nodes, pod])


def test_prescore_of_a_plugin_disabled_at_score_still_fails(tmp_path):
    config = tmp_path / "c.yaml"
    config.write_text(CONFIG)
    r = score(_cluster(), config=config).to_dict()["results"][0]
    assert r["host"] is None and r["feasibleNodes"] == r["evaluatedNodes"] == 0
    assert r["error"].startswith('running PreScore plugin "NodeAffinity": [0].matchExpressions')


def test_no_prescore_without_score_plugins():
    r = score(_cluster(), plugins="").to_dict()["results"][0]
    assert r["error"] is None and r["host"] is not None
