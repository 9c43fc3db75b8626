"""The scenario families of :mod:`tests.scenarios_profile` draw what they promise (no Go
needed): the topology families cover every feature PodTopologySpread and
InterPodAffinity read, and the basic family still draws the recorded golden inputs."""

from __future__ import annotations

import gzip
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml

from kscore_fast.api import load_cluster
from kscore_fast.config import load_config

from ..scenarios_profile import (
    TOPOLOGY_FAMILIES,
    profile_config,
    profile_scenario,
    topology_scenario,
)

GOLDEN = Path(__file__).resolve().parents[2] / "data" / "golden" / "profile.jsonl.gz"
KEYS = ["topology.kubernetes.io/zone", "kubernetes.io/hostname", "rack"]


def _selector_features(sel: dict[str, Any] | None, where: str, seen: Counter) -> None:
    if sel is None:
        seen[f"{where} nil selector"] += 1
    elif not sel:
        seen[f"{where} empty selector"] += 1
    else:
        if "matchLabels" in sel:
            seen[f"{where} matchLabels"] += 1
        for e in sel.get("matchExpressions", []):
            seen[f"{where} {e['operator']}"] += 1


def _term_features(term: dict[str, Any], where: str, seen: Counter) -> None:
    seen[f"{where} key {term['topologyKey']}"] += 1
    _selector_features(term.get("labelSelector"), where, seen)
    if "namespaces" in term:
        seen[f"{where} namespaces"] += 1
    ns = term.get("namespaceSelector")
    if ns == {}:
        seen[f"{where} namespaceSelector {{}}"] += 1
    elif ns:
        seen[f"{where} namespaceSelector"] += 1


def _features(objs: list[dict[str, Any]]) -> Counter:
    seen: Counter = Counter()
    namespaces = {o["metadata"]["name"] for o in objs if o["kind"] == "Namespace"}
    if namespaces:
        seen["Namespace"] += 1
    for o in objs:
        kind, meta, spec = o["kind"], o["metadata"], o.get("spec", {})
        if kind == "Node":
            labels = meta["labels"]
            for key in KEYS:
                seen[f"node {'with' if key in labels else 'without'} {key}"] += 1
            if labels.get("kubernetes.io/hostname", meta["name"]) != meta["name"]:
                seen["node hostname shared"] += 1
        elif kind in ("Service", "ReplicationController", "ReplicaSet", "StatefulSet"):
            seen[kind] += 1
        elif kind == "Pod":
            where = "pending" if "nodeName" not in spec else "bound"
            if meta.get("namespace") not in namespaces:
                seen["pod in a namespace without object"] += 1
            if "deletionTimestamp" in meta:
                seen[f"{where} deleting"] += 1
            for c in spec.get("topologySpreadConstraints", []):
                seen[f"tsc {c['whenUnsatisfiable']} maxSkew {c['maxSkew']}"] += 1
                seen[f"tsc key {c['topologyKey']}"] += 1
                _selector_features(c.get("labelSelector"), "tsc", seen)
            for kind_, part in spec.get("affinity", {}).items():
                if kind_ == "nodeAffinity":
                    continue
                for req in part.get("requiredDuringSchedulingIgnoredDuringExecution", []):
                    _term_features(req, f"{where} {kind_} required", seen)
                for pref in part.get("preferredDuringSchedulingIgnoredDuringExecution", []):
                    _term_features(pref["podAffinityTerm"], f"{where} {kind_} preferred", seen)
            selection = spec.get("nodeSelector", {})
            if any(k in selection for k in KEYS):
                seen["nodeSelector on a topology key"] += 1
            node_affinity = spec.get("affinity", {}).get("nodeAffinity", {})
            if "requiredDuringSchedulingIgnoredDuringExecution" in node_affinity:
                seen["required node affinity"] += 1
    return seen


@pytest.mark.parametrize("family", TOPOLOGY_FAMILIES)
def test_topology_families_cover_every_feature(family):
    seen: Counter = Counter()
    for seed in range(150):
        seen.update(_features(profile_scenario(seed, family=family, max_pods=40)))
    expected = ["Namespace", "pod in a namespace without object", "node hostname shared",
                "bound deleting", "pending deleting", "Service", "ReplicationController",
                "ReplicaSet", "StatefulSet", "nodeSelector on a topology key",
                "required node affinity"]  # fmt: skip
    expected += [f"node {w} {k}" for k in KEYS for w in ("with", "without")]
    expected += [f"tsc {w} maxSkew {s}" for w in ("DoNotSchedule", "ScheduleAnyway")
                 for s in (1, 2, 3)]  # fmt: skip
    expected += [f"tsc key {k}" for k in KEYS]
    for where in ["tsc"] + [f"{p} {k} {r}" for p in ("pending", "bound")
                            for k in ("podAffinity", "podAntiAffinity")
                            for r in ("required", "preferred")]:  # fmt: skip
        features = ["matchLabels", "In", "NotIn", "Exists", "DoesNotExist"]
        if family != "pts" or where.startswith("pending") or where == "tsc":
            expected += [f"{where} {f}" for f in features]
        if where != "tsc" and (family != "pts" or where.startswith("pending")):
            expected += [f"{where} {f}" for f in ("namespaces", "namespaceSelector {}",
                                                  "namespaceSelector")]  # fmt: skip
            expected += [f"{where} key {k}" for k in KEYS]
    expected += ["tsc nil selector", "tsc empty selector"]
    if family != "pts":
        expected += ["pending podAffinity required nil selector",
                     "pending podAntiAffinity preferred empty selector"]  # fmt: skip
    missing = [f for f in expected if not seen[f]]
    assert not missing, f"{family} never draws: {missing}"


@pytest.mark.parametrize("family", TOPOLOGY_FAMILIES)
def test_topology_scenarios_load_and_configs_validate(family, tmp_path):
    drawn: Counter = Counter()
    for seed in range(60):
        load_cluster(objects=topology_scenario(seed, family, max_pods=40))
        cfg = profile_config(seed, family=family)
        path = tmp_path / f"{seed}.yaml"
        path.write_text(yaml.safe_dump(cfg))
        load_config(path)
        profile = cfg["profiles"][0]
        for a in profile["pluginConfig"]:
            if a["name"] == "PodTopologySpread":
                drawn[f"spread {a['args']['defaultingType']}"] += 1
            if a["name"] == "InterPodAffinity":
                weight = a["args"]["hardPodAffinityWeight"]
                drawn["hard weight 0" if weight == 0 else "hard weight > 0"] += 1
        for point in ("filter", "score"):
            for d in profile["plugins"][point]["disabled"]:
                drawn[f"{point} disabled {d['name']}"] += 1
        for e in profile["plugins"]["score"].get("enabled", []):
            drawn[f"weighted {e['name']}"] += 1
    for feature in ["spread System", "spread List", "hard weight 0", "hard weight > 0",
                    "weighted PodTopologySpread", "weighted InterPodAffinity"]:  # fmt: skip
        assert drawn[feature], f"{family}: configurations never draw {feature}"
    assert sum(v for k, v in drawn.items() if " disabled " in k) >= 5


def test_basic_family_still_draws_the_golden_inputs():
    """data/golden/profile.jsonl.gz's profile-i cases were drawn with seed 700,000 + i."""
    with gzip.open(GOLDEN, "rt", encoding="utf-8") as fh:
        cases = [json.loads(line) for line in fh][:20]
    for i, case in enumerate(cases):
        assert case["name"] == f"profile-{i}"
        assert case["input"]["items"] == profile_scenario(700_000 + i)
        assert yaml.safe_load(case["config"]) == profile_config(700_000 + i)
