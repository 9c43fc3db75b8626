"""Cluster shapes of Go's ``BenchmarkTestSelectorSpreadPriority`` (and variants).

pkg/scheduler/framework/plugins/selectorspread/selector_spread_perf_test.go builds, with
``MakeNodesAndPodsForEvenPodsSpread({"foo": ""}, P, N, N)``: node i in zone ``i % 10``
with hostname ``node<i>``; existing pod i on node ``i % N`` labelled ``foo=""``; one Service
selecting ``foo=""``; the scored pod labelled ``foo=""``. Every node then scores 0.

``pending`` pods get distinct label sets ``{foo: "", id: j}`` (they all match the service).
With ``distinct_selectors`` every pending pod is instead owned by its own ReplicaSet whose
selector ``{grp: j}`` matches the existing pods of group ``j % groups`` (existing pod i
carries ``grp: i % groups``), so no two pending pods share a selector.
"""

from __future__ import annotations

from kscore_fast.model.objects import (
    RS_KIND,
    ControllerRecord,
    NodeRecord,
    OwnerReference,
    PodRecord,
    ServiceRecord,
)
from kscore_fast.model.selectors import LabelSelector
from kscore_fast.model.snapshot import Cluster, build_cluster

SHAPES = {"100nodes": (100, 1_000), "1000nodes": (1_000, 10_000)}
ZONE = "topology.kubernetes.io/zone"


def go_shape(
    n_nodes: int,
    n_existing: int,
    n_pending: int,
    *,
    distinct_selectors: bool = False,
    groups: int = 1000,
) -> Cluster:
    nodes = [
        NodeRecord(f"node{i}", {ZONE: f"zone{i % 10}", "kubernetes.io/hostname": f"node{i}"})
        for i in range(n_nodes)
    ]
    pods = []
    for i in range(n_existing):
        labels = {"foo": ""}
        if distinct_selectors:
            labels["grp"] = str(i % groups)
        pods.append(PodRecord("default", f"pod{i}", labels, node_name=f"node{i % n_nodes}"))
    controllers = []
    for j in range(n_pending):
        if distinct_selectors:
            owner = (OwnerReference("apps/v1", RS_KIND, f"rs{j}", True),)
            sel = LabelSelector((("grp", str(j % groups)), ("foo", "")), ())
            controllers.append(ControllerRecord(RS_KIND, "default", f"rs{j}", sel))
            labels = {"foo": "", "grp": str(j % groups), "id": str(j)}
        else:
            owner = ()
            labels = {"foo": "", "id": str(j)}
        pods.append(PodRecord("default", f"p{j}", labels, owner_references=owner))
    return build_cluster(nodes, pods, [ServiceRecord("default", "svc", {"foo": ""})], controllers)
