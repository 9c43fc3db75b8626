"""Seeded random KubeSchedulerConfiguration documents, valid and not, for differential
tests: both versions, one to three profiles, random enabled/disabled sets (``*`` too) at
random extension points and in multiPoint, weights (unset, 0, negative, large), unknown
plugin names, and args of every plugin that has an args type (in range or not)."""

from __future__ import annotations

import random
from typing import Any

from kscore_fast.config.build import plugin_points
from kscore_fast.config.schema import PLUGIN_SET_FIELDS, V1BETA2, V1BETA3

REGISTRY = plugin_points()
PLUGINS = sorted(REGISTRY)


class _Rng(random.Random):
    """A random source that picks out-of-range values only when the config may be bad."""

    bad = False

    def value(self, good: list[Any], bad: list[Any]) -> Any:
        return self.choice(good + bad) if self.bad and self.random() < 0.5 else self.choice(good)


def random_config(seed: int) -> dict[str, Any]:
    """A configuration; about two in three are meant to be valid."""
    rng = _Rng(seed)
    rng.bad = rng.random() < 0.35
    doc: dict[str, Any] = {
        "apiVersion": rng.choice([V1BETA2, V1BETA3, V1BETA3]),
        "kind": "KubeSchedulerConfiguration",
    }
    if rng.random() < 0.3:
        doc["percentageOfNodesToScore"] = rng.value([0, 10, 50, 100], [101, -1])
    if rng.random() < 0.2:
        doc["parallelism"] = rng.value([1, 16], [0])
    names = ["default-scheduler", "second", "third"]
    doc["profiles"] = [_profile(rng, names[i]) for i in range(rng.choice([1, 1, 1, 2, 3]))]
    if len(doc["profiles"]) > 1 and rng.bad and rng.random() < 0.1:
        doc["profiles"][1]["schedulerName"] = doc["profiles"][0]["schedulerName"]
    return doc


def _plugin(rng: _Rng, point: str) -> dict[str, Any]:
    fits = [n for n in PLUGINS if point == "multiPoint" or point in REGISTRY[n]]
    name = rng.value(fits, [*PLUGINS, "Bogus"]) if fits else rng.choice([*PLUGINS, "Bogus"])
    p: dict[str, Any] = {"name": name}
    r = rng.random()
    if r < 0.4:
        p["weight"] = rng.randint(1, 10)
    elif r < 0.45:
        p["weight"] = 0
    elif r < 0.48:
        p["weight"] = rng.choice([-5, 2**31 - 1])
    return p


def _plugin_set(rng: _Rng, point: str) -> dict[str, Any]:
    s: dict[str, Any] = {}
    if rng.random() < 0.6 and (rng.bad or point not in ("permit", "postBind")):
        chosen = {p["name"]: p for p in (_plugin(rng, point) for _ in range(rng.randint(1, 4)))}
        s["enabled"] = list(chosen.values())
    if rng.random() < 0.5:
        if rng.random() < 0.4:
            s["disabled"] = [{"name": "*"}]
        else:
            s["disabled"] = [{"name": rng.choice(PLUGINS)} for _ in range(rng.randint(1, 3))]
    return s


def _profile(rng: _Rng, name: str) -> dict[str, Any]:
    prof: dict[str, Any] = {"schedulerName": name}
    if rng.random() < 0.8:
        fields = [f for f in PLUGIN_SET_FIELDS if rng.bad or f not in ("queueSort", "bind")]
        points = rng.sample(fields, rng.randint(1, 4))
        prof["plugins"] = {pt: _plugin_set(rng, pt) for pt in points}
    configs = [f(rng) for f in _ARGS if rng.random() < 0.25]
    if configs:
        prof["pluginConfig"] = configs
    return prof


def _fit(rng: _Rng) -> dict[str, Any]:
    strategy: dict[str, Any] = {
        "type": rng.value(["LeastAllocated", "MostAllocated", "RequestedToCapacityRatio"], ["X"])
    }
    if rng.random() < 0.7:
        strategy["resources"] = [
            {"name": n, "weight": rng.value([0, 1, 3, 100], [101, -1])}
            for n in rng.sample(["cpu", "memory", "example.com/gpu"], rng.randint(1, 3))
        ]
    if strategy["type"] == "RequestedToCapacityRatio" or rng.random() < 0.2:
        strategy["requestedToCapacityRatio"] = {
            "shape": [
                {"utilization": u, "score": rng.value([0, 5, 10], [11])}
                for u in sorted(rng.sample(range(0, 101, 10), rng.randint(1, 3)))
            ]
        }
    args: dict[str, Any] = {"scoringStrategy": strategy}
    if rng.random() < 0.3:
        args["ignoredResources"] = [rng.value(["example.com/foo", "bar"], ["bad name"])]
    return {"name": "NodeResourcesFit", "args": args}


def _balanced(rng: _Rng) -> dict[str, Any]:
    res = [
        {"name": n, "weight": rng.value([0, 1], [2])}
        for n in rng.sample(["cpu", "memory", "example.com/gpu"], rng.randint(1, 3))
    ]
    return {"name": "NodeResourcesBalancedAllocation", "args": {"resources": res}}


def _spread(rng: _Rng) -> dict[str, Any]:
    args: dict[str, Any] = {"defaultingType": rng.value(["List"], ["System", "Foo"])}
    if rng.random() < 0.7:
        args["defaultConstraints"] = [
            {
                "maxSkew": rng.value([1, 2], [0]),
                "topologyKey": key,
                "whenUnsatisfiable": rng.choice(["ScheduleAnyway", "DoNotSchedule"]),
            }
            for key in rng.sample(
                ["topology.kubernetes.io/zone", "kubernetes.io/hostname"], rng.randint(1, 2)
            )
        ]
    return {"name": "PodTopologySpread", "args": args}


def _simple(name: str, key: str, good: list[int], bad: list[int]) -> Any:
    return lambda rng: {"name": name, "args": {key: rng.value(good, bad)}}


def _affinity(rng: _Rng) -> dict[str, Any]:
    op = rng.value(["In", "NotIn", "Exists", "Gt"], ["Bad"])
    req: dict[str, Any] = {"key": rng.value(["zone"], ["bad key"]), "operator": op}
    if op in ("In", "NotIn") or (op == "Gt" and not rng.bad):
        req["values"] = ["1"] if op == "Gt" else rng.value([["a"], ["a", "b"]], [[]])
    elif op in ("Gt", "Exists") and rng.random() < 0.5:
        req["values"] = rng.choice([["a"], ["1"], ["a", "b"]])
    term = {"matchExpressions": [req]}
    return {
        "name": "NodeAffinity",
        "args": {
            "addedAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [term]}
            }
        },
    }


_ARGS = [
    _fit,
    _balanced,
    _spread,
    _affinity,
    _simple("InterPodAffinity", "hardPodAffinityWeight", [0, 1, 50], [101]),
    _simple("VolumeBinding", "bindTimeoutSeconds", [0, 30], [-1]),
    _simple("DefaultPreemption", "minCandidateNodesPercentage", [0, 10], [101]),
]
