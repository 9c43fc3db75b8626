"""kscore == the real kube-scheduler v1.23.6 (benchmarks/goref ``--config``) with the
default profile's filters and resource, taint, affinity and image scores.

Random clusters (:mod:`tests.scenarios_profile`) under random configurations (v1beta2
and v1beta3, changed weights and strategies, disabled plugins, args), PodTopologySpread
and InterPodAffinity disabled (not simulated yet): every filter verdict count, FitError
text, raw, normalized, weighted and total score must be equal, and kscore's host must be
among Go's top-scoring nodes. CI runs ``KSCORE_DIFF_SCENARIOS`` (default 300) scenarios;
``-m slow`` runs 2,000 more, with larger clusters.
"""

from __future__ import annotations

import json
import os

import pytest
import yaml

from kscore_fast.api import load_cluster, score

from ..goref import compare, goref_missing, run_goref
from ..scenarios_profile import profile_config, profile_scenario

pytestmark = [
    pytest.mark.goref,
    pytest.mark.skipif(goref_missing() is not None, reason=str(goref_missing())),
]

N_SCENARIOS = int(os.environ.get("KSCORE_DIFF_SCENARIOS", 300))


def _differential(tmp_path, seed: int, **sizes) -> None:
    path = tmp_path / f"scenario-{seed}.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List",
                                "items": profile_scenario(seed, **sizes)}))  # fmt: skip
    config = tmp_path / f"config-{seed}.yaml"
    config.write_text(yaml.safe_dump(profile_config(seed)))
    flags = ["--config", str(config)]
    kwargs: dict = {}
    if seed % 5 == 4:
        flags += ["--scores", "top:2"]
        kwargs["scores"] = "top:2"
    ours = score(load_cluster([path]), config=config, seed=seed, **kwargs).to_dict()
    go = run_goref([path], [*flags, "--seed", str(seed)])
    diffs = compare(ours, go, 2 if "scores" in kwargs else None)
    assert not diffs, f"scenario {seed}:\n" + "\n".join(diffs[:20])


@pytest.mark.parametrize("seed", range(N_SCENARIOS))
def test_profile_on_small_clusters(tmp_path, seed):
    _differential(tmp_path, seed)


@pytest.mark.parametrize("seed", range(10))
def test_profile_past_100_nodes_stops_early_like_go(tmp_path, seed):
    """numFeasibleNodesToFind < N: the search stops at the (K+1)-th feasible node."""
    _differential(tmp_path, 50_000 + seed, max_nodes=300, max_pods=400, max_pending=30)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(2000))
def test_profile_on_many_more_clusters(tmp_path, seed):
    _differential(tmp_path, 200_000 + seed, max_nodes=40, max_pods=80, max_pending=12)
