"""Ported upstream table: pkg/scheduler/framework/plugins/noderesources/
balanced_allocation_test.go (kube-scheduler v1.23.6) ``TestNodeResourcesBalancedAllocation``.
Test ids are the Go case names. Scores go through the kernels and the reference port.

The scored pod's ``spec.nodeName`` of the Go table is dropped (Go calls ``Score`` directly;
here the pod must be pending).
"""

from __future__ import annotations

import pytest

from kscore_fast.plugins.noderesources import NodeResourcesBalancedAllocation

from ._build import balanced_scores, cluster, milli_node, pod

GPU = "nvidia.com/gpu"
CPU_AND_MEMORY = [{"cpu": "1000m", "memory": "2000"}, {"cpu": "2000m", "memory": "3000"}]
CPU_AND_MEMORY_AND_GPU = [CPU_AND_MEMORY[0], {**CPU_AND_MEMORY[1], GPU: "3"}]
CPU_ONLY = [{"cpu": "1000m", "memory": "0"}, {"cpu": "2000m", "memory": "0"}]
DEFAULT = [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]


def _on(node, containers=()):
    return pod(list(containers), node=node)


def _nodes(cpu, mem, **gpu):
    return [milli_node("machine1", cpu, mem, **gpu), milli_node("machine2", cpu, mem, **gpu)]


# (name, pod's containers, nodes, existing pods, resources, expected)
BALANCED = [
    ("nothing scheduled, nothing requested", [], _nodes(4000, 10000), [], DEFAULT, [100, 100]),
    ("nothing scheduled, resources requested, differently sized machines", CPU_AND_MEMORY,
     [milli_node("machine1", 4000, 10000), milli_node("machine2", 6000, 10000)], [], DEFAULT,
     [87, 100]),
    ("no resources requested, pods without container scheduled", [], _nodes(4000, 10000),
     [_on("machine1"), _on("machine1"), _on("machine2"), _on("machine2")], DEFAULT,
     [100, 100]),
    ("no resources requested, pods with container scheduled", [None],
     _nodes(250, 1000 * 1024 * 1024), [_on("machine1", [None]), _on("machine1", [None])],
     DEFAULT, [100, 100]),
    ("no resources requested, pods scheduled with resources", [], _nodes(10000, 20000),
     [_on("machine1", CPU_ONLY), _on("machine1", CPU_ONLY), _on("machine2", CPU_ONLY),
      _on("machine2", CPU_AND_MEMORY)], DEFAULT, [70, 82]),
    ("resources requested, pods scheduled with resources", CPU_AND_MEMORY, _nodes(10000, 20000),
     [_on("machine1", CPU_ONLY), _on("machine2", CPU_AND_MEMORY)], DEFAULT, [82, 95]),
    ("resources requested, pods scheduled with resources, differently sized machines",
     CPU_AND_MEMORY,
     [milli_node("machine1", 10000, 20000), milli_node("machine2", 10000, 50000)],
     [_on("machine1", CPU_ONLY), _on("machine2", CPU_AND_MEMORY)], DEFAULT, [82, 80]),
    ("requested resources at node capacity", CPU_ONLY, _nodes(6000, 10000),
     [_on("machine1", CPU_ONLY), _on("machine2", CPU_AND_MEMORY)], DEFAULT, [50, 75]),
    ("zero node resources, pods scheduled with resources", [], _nodes(0, 0),
     [_on("machine1", CPU_ONLY), _on("machine2", CPU_AND_MEMORY)], DEFAULT, [100, 100]),
    ("include scalar resource on a node for balanced resource allocation",
     [{"memory": "0", GPU: "1"}], _nodes(3500, 40000, **{GPU: 8}),
     [_on("machine2", CPU_AND_MEMORY), _on("machine1", CPU_AND_MEMORY_AND_GPU)],
     [*DEFAULT, {"name": GPU, "weight": 1}], [70, 65]),
    ("node without the scalar resource results to a higher score", [None],
     [milli_node("machine1", 3500, 40000, **{GPU: 8}), milli_node("machine2", 3500, 40000)],
     [_on("machine1", CPU_ONLY), _on("machine2", CPU_ONLY)],
     [DEFAULT[0], {"name": GPU, "weight": 1}], [100, 100]),
]  # fmt: skip


@pytest.mark.parametrize(("name", "containers", "nodes", "existing", "resources", "want"),
                         BALANCED, ids=[case[0] for case in BALANCED])  # fmt: skip
def test_node_resources_balanced_allocation(name, containers, nodes, existing, resources, want):
    plugin = NodeResourcesBalancedAllocation({"resources": resources}, defaults=False)
    got, ref = balanced_scores(cluster(nodes, existing, pod(containers)), plugin)
    assert got == want
    assert ref == want
