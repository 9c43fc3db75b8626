"""Sequential mode (``kscore simulate``): each pod sees the pods scheduled before it."""

from __future__ import annotations

import copy

import pytest

from kscore_fast import api
from kscore_fast.errors import UnsupportedError
from kscore_fast.model.objects import ContainerPort

from ..builders import cluster, node, pod
from ..scenarios_profile import profile_scenario


def _hosts(result) -> dict[str, str | None]:
    return {r["pod"]: r["host"] for r in result.to_dict()["results"]}


def test_second_pod_sees_the_first_pods_requests():
    n0 = node("n0", allocatable={"cpu": "1", "memory": "1Gi", "pods": 10})
    c = cluster([n0], [pod(f"p{i}", ns="default", requests={"cpu": "600m"}) for i in range(2)])
    r = api.simulate(c).to_dict()["results"]
    assert r[0]["host"] == "n0"
    assert r[1]["host"] is None
    assert r[1]["error"] == "0/1 nodes are available: 1 Insufficient cpu."
    # the batch mode, by contrast, scores both against the same snapshot
    assert [x["host"] for x in api.score(c).to_dict()["results"]] == ["n0", "n0"]


def test_host_ports_taken_by_an_earlier_pod():
    port = ContainerPort(container_port=80, host_port=8080)
    nodes = [node(f"n{i}", allocatable={"cpu": "4", "memory": "4Gi", "pods": 10})
             for i in range(2)]  # fmt: skip
    pods = [pod(f"p{i}", ns="default", ports=[port]) for i in range(3)]
    r = api.simulate(cluster(nodes, pods)).to_dict()["results"]
    assert sorted(x["host"] for x in r[:2]) == ["n0", "n1"]
    assert r[2]["host"] is None
    assert "free ports" in r[2]["error"]


def test_queue_order_is_priority_then_input():
    nodes = [node("n0", allocatable={"cpu": "1", "memory": "1Gi", "pods": 10})]
    pods = [
        pod("low", ns="default", requests={"cpu": "600m"}, priority=0),
        pod("high", ns="default", requests={"cpu": "600m"}, priority=10),
        pod("none", ns="default", requests={"cpu": "100m"}),
    ]
    r = api.simulate(cluster(nodes, pods)).to_dict()["results"]
    assert [x["pod"] for x in r] == ["default/high", "default/low", "default/none"]
    assert [x["host"] for x in r] == ["n0", None, "n0"]


def test_selector_spread_is_refused():
    c = cluster([node("n0")], [pod("p", ns="default")])
    with pytest.raises(UnsupportedError, match="SelectorSpread"):
        api.simulate(c, plugins="SelectorSpread")


def test_go_rand_seed_must_be_int64():
    from kscore_fast.errors import ConfigError

    c = cluster([node("n0")], [pod("p", ns="default")])
    with pytest.raises(ConfigError, match="int64"):
        api.simulate(c, tie_break="go-rand", seed=2**64)


def _so_far(objs: list[dict], hosts: dict[str, str | None], upto: list[str], current: str
            ) -> list[dict]:  # fmt: skip
    """``objs`` with the pods ``upto`` bound to their hosts (dropped when they have none),
    ``current`` pending and the other pending pods left out."""
    out = []
    for o in copy.deepcopy(objs):
        if o.get("kind") == "Pod":
            key = f"{o['metadata'].get('namespace', 'default')}/{o['metadata']['name']}"
            if key in upto:
                if hosts[key] is None:
                    continue
                o["spec"]["nodeName"] = hosts[key]
            elif key in hosts and key != current:
                continue
        out.append(o)
    return out


@pytest.mark.parametrize("family", ["basic", "pts", "ipa", "mixed"])
@pytest.mark.parametrize("seed", range(12))
def test_each_cycle_equals_a_batch_of_one_on_the_cluster_so_far(family, seed):
    """Pod ``i`` of a sequential run scores exactly as a batch of pod ``i`` alone on the
    cluster where the pods before it are bound to their hosts (every plugin's ``assume``
    against a fresh ``prepare``); its host is among that batch's top nodes."""
    objs = profile_scenario(seed, family=family)
    sim = api.simulate(api.load_cluster(objects=objs), percentage_of_nodes_to_score=100)
    results = sim.to_dict()["results"]
    hosts = {r["pod"]: r["host"] for r in results}
    for i, r in enumerate(results):
        objs_i = _so_far(objs, hosts, [x["pod"] for x in results[:i]], r["pod"])
        one = api.score(api.load_cluster(objects=objs_i), percentage_of_nodes_to_score=100)
        (b,) = one.to_dict()["results"]
        assert b["error"] == r["error"], r["pod"]
        assert b["feasibleNodes"] == r["feasibleNodes"], r["pod"]
        by_node = {s["node"]: s for s in b["scores"]}
        assert by_node == {s["node"]: s for s in r["scores"]}, r["pod"]
        if r["host"] is not None and b["scores"]:
            top = max(s["total"] for s in b["scores"])
            assert by_node[r["host"]]["total"] == top
