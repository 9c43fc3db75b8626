"""Twins (pending pods whose records are equal but for the name) are scored once per node
list, or from one row of raw scores on every node when their lists differ (rotating
windows): the results must equal scoring every pod on its own."""

from __future__ import annotations

import copy
import random

import pytest

from kscore_fast.api import load_cluster, score

from ..scenarios_profile import profile_scenario


def _with_twins(seed: int, n_copies: int) -> list[dict]:
    objs = profile_scenario(seed, max_nodes=260, max_pods=200, max_pending=6)
    pending = [o for o in objs if o["kind"] == "Pod" and "nodeName" not in o["spec"]]
    rng = random.Random(seed)
    for i in range(n_copies):
        twin = copy.deepcopy(rng.choice(pending))
        twin["metadata"]["name"] = f"twin-{i}"
        objs.append(twin)
    return objs


def _unique(objs: list[dict]) -> list[dict]:
    """The same cluster with every pod told apart by a label no plugin reads."""
    objs = copy.deepcopy(objs)
    for i, o in enumerate(objs):
        if o["kind"] == "Pod":
            o["metadata"].setdefault("labels", {})["kscore-test/uid"] = str(i)
    return objs


def _roomy(seed: int) -> list[dict]:
    """300 nodes with room for everyone (so windows rotate), 5 pod shapes × 40 pods."""
    rng = random.Random(seed)
    objs = []
    for i in range(300):
        labels = {"kubernetes.io/hostname": f"n{i}", "disk": rng.choice(["ssd", "hdd"])}
        status = {"allocatable": {"cpu": str(rng.choice([16, 32, 64])), "memory": "256Gi",
                                  "pods": "110"}}  # fmt: skip
        if rng.random() < 0.5:
            status["images"] = [{"names": ["nginx:latest"], "sizeBytes": 300 * 2**20}]
        spec = {}
        if rng.random() < 0.2:
            spec["taints"] = [{"key": "spot", "effect": "PreferNoSchedule"}]
        objs.append({"apiVersion": "v1", "kind": "Node", "spec": spec, "status": status,
                     "metadata": {"name": f"n{i}", "labels": labels}})  # fmt: skip
    for i in range(80):  # bound pods: uneven requested resources
        objs.append({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"b{i}"},
                     "spec": {"nodeName": f"n{rng.randrange(300)}", "containers": [
                         {"name": "c", "resources": {"requests": {"cpu": "3"}}}]}})  # fmt: skip
    for shape in range(5):
        cpu = rng.choice(["100m", "1", "2"])
        pref = {"weight": rng.randint(1, 50), "preference": {"matchExpressions": [
            {"key": "disk", "operator": "In", "values": ["ssd"]}]}}  # fmt: skip
        for j in range(40):
            objs.append({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"p{shape}-{j}"},
                         "spec": {"containers": [{"name": "c", "image": "nginx", "resources": {
                             "requests": {"cpu": cpu}}}], "affinity": {"nodeAffinity": {
                             "preferredDuringSchedulingIgnoredDuringExecution": [pref]}}},
                         })  # fmt: skip
    rng.shuffle(objs)
    return objs


@pytest.mark.parametrize("pct", [0, 30])
@pytest.mark.parametrize("seed", range(4))
def test_twins_on_rotating_windows(seed, pct):
    """Windows rotate, so twins' node lists differ: they share a row of raw scores."""
    objs = _roomy(seed)
    kwargs = {"seed": seed, "percentage_of_nodes_to_score": pct}
    twins = score(load_cluster(objects=objs), **kwargs).to_dict()
    alone = score(load_cluster(objects=_unique(objs)), **kwargs).to_dict()
    assert twins == alone
    firsts = {r["scores"][0]["node"] for r in twins["results"]}
    assert len(firsts) > 1  # the windows did rotate


@pytest.mark.parametrize("pct", [0, 100, 30])
@pytest.mark.parametrize("seed", range(12))
def test_twins_score_like_everyone_else(seed, pct):
    objs = _with_twins(seed, 40)
    kwargs = {"seed": seed, "percentage_of_nodes_to_score": pct}
    twins = score(load_cluster(objects=objs), **kwargs).to_dict()
    alone = score(load_cluster(objects=_unique(objs)), **kwargs).to_dict()
    assert twins == alone
