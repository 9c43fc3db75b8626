"""kscore == the real kube-scheduler v1.23.6 (benchmarks/goref ``--config``) with the
default profile's filters and scores.

Random clusters (:mod:`tests.scenarios_profile`) under random configurations (v1beta2
and v1beta3, changed weights and strategies, disabled plugins, args): every filter
verdict count, FitError text, raw, normalized, weighted and total score must be equal,
and kscore's host must be among Go's top-scoring nodes.

* the basic family (resources, taints, node affinity, images, ports; PodTopologySpread
  and InterPodAffinity disabled): ``KSCORE_DIFF_SCENARIOS`` (default 300) scenarios;
* the topology families ``pts``, ``ipa`` and ``mixed`` (topology spread constraints,
  pod affinity and anti-affinity, Namespaces, default spreading; both plugins enabled
  with random weights and args): ``KSCORE_DIFF_TOPOLOGY_SCENARIOS`` (default 80) each;
* a few clusters past 100 nodes (the search stops early; PodTopologySpread scores the
  nodes found);
* ``-m slow``: 2,000 more basic scenarios, 2,000 per topology family (1,000 ``mixed``),
  with larger clusters.

A failure names the scenario (family and seed); ``python -m tests.differential.minimize``
shrinks it to the objects the difference needs.
"""

from __future__ import annotations

import json
import os

import pytest
import yaml

from kscore_fast.api import load_cluster, score

from ..goref import compare, goref_missing, run_goref
from ..scenarios_profile import limits_for_requests, profile_config, profile_scenario

pytestmark = [
    pytest.mark.goref,
    pytest.mark.skipif(goref_missing() is not None, reason=str(goref_missing())),
]

N_SCENARIOS = int(os.environ.get("KSCORE_DIFF_SCENARIOS", 300))
N_TOPOLOGY = int(os.environ.get("KSCORE_DIFF_TOPOLOGY_SCENARIOS", 80))

#: scenario sizes of the topology families: in CI, and with -m slow
TOPOLOGY_CI = {"max_nodes": 12, "max_pods": 40, "max_pending": 8}
TOPOLOGY_SLOW = {"max_nodes": 40, "max_pods": 150, "max_pending": 12}
#: first seed of each topology family (CI, then slow from +100,000)
FAMILY_SEEDS = {"pts": 300_000, "ipa": 500_000, "mixed": 700_000}


def differences(tmp_path, seed: int, family: str = "basic", **sizes) -> list[str]:
    """kscore's output against goref's on one scenario, as :func:`tests.goref.compare`
    lines (none when equal)."""
    objs = profile_scenario(seed, family=family, **sizes)
    if family == "basic" and seed % 2:  # (the golden inputs are drawn unchanged)
        objs = limits_for_requests(objs)
    return compare_objects(tmp_path, objs, profile_config(seed, family=family), seed)


def compare_objects(tmp_path, objs: list, config: dict, seed: int) -> list[str]:
    """kscore against goref on the objects ``objs`` under ``config`` with ``--seed seed``
    (and ``--scores top:2`` when ``seed % 5 == 4``)."""
    path = tmp_path / f"scenario-{seed}.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objs}))
    config_path = tmp_path / f"config-{seed}.yaml"
    config_path.write_text(yaml.safe_dump(config))
    flags = ["--config", str(config_path)]
    kwargs: dict = {}
    if seed % 5 == 4:
        flags += ["--scores", "top:2"]
        kwargs["scores"] = "top:2"
    ours = score(load_cluster([path]), config=config_path, seed=seed, **kwargs).to_dict()
    go = run_goref([path], [*flags, "--seed", str(seed)])
    return compare(ours, go, 2 if "scores" in kwargs else None)


def _differential(tmp_path, seed: int, family: str = "basic", **sizes) -> None:
    diffs = differences(tmp_path, seed, family, **sizes)
    assert not diffs, f"scenario {family} {seed} {sizes or ''}:\n" + "\n".join(diffs[:20])


@pytest.mark.parametrize("seed", range(N_SCENARIOS))
def test_profile_on_small_clusters(tmp_path, seed):
    _differential(tmp_path, seed)


@pytest.mark.parametrize("seed", range(10))
def test_profile_past_100_nodes_stops_early_like_go(tmp_path, seed):
    """numFeasibleNodesToFind < N: the search stops at the (K+1)-th feasible node."""
    _differential(tmp_path, 50_000 + seed, max_nodes=300, max_pods=400, max_pending=30)


@pytest.mark.parametrize("family", list(FAMILY_SEEDS))
@pytest.mark.parametrize("seed", range(N_TOPOLOGY))
def test_topology_on_small_clusters(tmp_path, family, seed):
    _differential(tmp_path, FAMILY_SEEDS[family] + seed, family, **TOPOLOGY_CI)


@pytest.mark.parametrize("family", list(FAMILY_SEEDS))
@pytest.mark.parametrize("seed", range(2))
def test_topology_past_100_nodes(tmp_path, family, seed):
    """PodTopologySpread's PreScore reads the nodes the early-stopping search found."""
    sizes = {"max_nodes": 300, "max_pods": 500, "max_pending": 15}
    _differential(tmp_path, FAMILY_SEEDS[family] + 90_000 + seed, family, **sizes)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(2000))
def test_profile_on_many_more_clusters(tmp_path, seed):
    _differential(tmp_path, 200_000 + seed, max_nodes=40, max_pods=80, max_pending=12)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(2000))
def test_topology_spread_on_many_more_clusters(tmp_path, seed):
    _differential(tmp_path, FAMILY_SEEDS["pts"] + 100_000 + seed, "pts", **TOPOLOGY_SLOW)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(2000))
def test_pod_affinity_on_many_more_clusters(tmp_path, seed):
    _differential(tmp_path, FAMILY_SEEDS["ipa"] + 100_000 + seed, "ipa", **TOPOLOGY_SLOW)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(1000))
def test_topology_mixed_on_many_more_clusters(tmp_path, seed):
    _differential(tmp_path, FAMILY_SEEDS["mixed"] + 100_000 + seed, "mixed", **TOPOLOGY_SLOW)
