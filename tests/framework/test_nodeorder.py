"""Node order and the nodes a cycle examines (generic_scheduler.go, node_tree.go)."""

from __future__ import annotations

import pytest

from kscore_fast.framework.nodeorder import num_feasible_nodes_to_find
from kscore_fast.model.objects import NodeRecord, PodRecord
from kscore_fast.model.snapshot import build_cluster
from kscore_fast.model.topology import node_tree_order, zone_key
from kscore_fast.profile import build_framework


# generic_scheduler_test.go TestNumFeasibleNodesToFind
@pytest.mark.parametrize(
    "pct,n,expected",
    [
        (0, 10, 10),  # "not set percentageOfNodesToScore and nodes number not more than 50"
        (40, 10, 10),  # "set percentageOfNodesToScore and nodes number not more than 50"
        (0, 1000, 420),  # "not set percentageOfNodesToScore and nodes number more than 50"
        (40, 1000, 400),  # "set percentageOfNodesToScore and nodes number more than 50"
        (0, 6000, 300),  # "not set percentageOfNodesToScore and nodes number more than 50*125"
        (40, 6000, 2400),  # "set percentageOfNodesToScore and nodes number more than 50*125"
    ],
)
def test_num_feasible_nodes_to_find(pct, n, expected):
    assert num_feasible_nodes_to_find(n, pct) == expected


def _first_nodes(n_nodes, nominated, pct):
    """The first node of each pod's feasible list, without filters or score plugins."""
    nodes = [NodeRecord(f"n{i:03d}") for i in range(n_nodes)]
    pods = [
        PodRecord("default", f"p{i}", nominated_node_name=nom) for i, nom in enumerate(nominated)
    ]
    c = build_cluster(nodes, pods)
    fw = build_framework("", pct)
    result = fw.run(c.snapshot, c.batch).to_dict()["results"]
    return [int(r["scores"][0]["node"][1:]) if r["scores"] else int(r["host"][1:]) for r in result]


def test_fair_evaluation_for_nodes():
    """generic_scheduler_test.go TestFairEvaluationForNodes: 500 nodes, 30% → 150 a cycle."""
    assert num_feasible_nodes_to_find(500, 30) == 150
    starts = _first_nodes(500, [""] * 9, 30)
    assert starts == [0, 150, 300, 450, 100, 250, 400, 50, 200]


def test_nominated_node_resets_rotation():
    # findNodesThatPassFilters on the nominated node alone sets the index to 0
    assert _first_nodes(300, ["", "", "n007", ""], 0) == [0, 144, 7, 0]  # 48% of 300


def test_zone_key():
    beta_z, ga_z = "failure-domain.beta.kubernetes.io/zone", "topology.kubernetes.io/zone"
    beta_r, ga_r = "failure-domain.beta.kubernetes.io/region", "topology.kubernetes.io/region"
    assert zone_key(None) == ""
    assert zone_key({}) == ""
    assert zone_key({ga_z: "z"}) == ":\x00:z"
    assert zone_key({ga_r: "r"}) == "r:\x00:"
    assert zone_key({ga_z: "z", beta_z: "b"}) == ":\x00:b"
    assert zone_key({ga_z: "z", beta_z: ""}) == ""  # present beta label wins, even empty
    assert zone_key({beta_r: "r1", ga_r: "r2", ga_z: "z"}) == "r1:\x00:z"


def test_node_tree_order_interleaves_zones():
    # node_tree_test.go style: zones in first-appearance order, round robin
    zones = ["a", "a", "b", "", "a", "b", "c"]
    assert node_tree_order(zones) == [0, 2, 3, 6, 1, 5, 4]
