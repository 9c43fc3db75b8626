"""kscore == the real kube-scheduler v1.23.6 (through benchmarks/goref) on random clusters.

Every raw, normalized, weighted and total score, every count and error must be equal, and
kscore's host must be among Go's top-scoring nodes. CI runs ``KSCORE_DIFF_SCENARIOS``
(default 300) scenarios; ``-m slow`` runs 2,000 more, with larger clusters.
"""

from __future__ import annotations

import json
import os

import pytest

from kscore_fast.api import load_cluster, score

from ..goref import compare, goref_missing, run_goref
from ..scenarios import scenario

pytestmark = [
    pytest.mark.goref,
    pytest.mark.skipif(goref_missing() is not None, reason=str(goref_missing())),
]

N_SCENARIOS = int(os.environ.get("KSCORE_DIFF_SCENARIOS", 300))

#: flag sets cycled through the scenarios: (kscore keyword arguments, goref flags)
SS = {"plugins": "SelectorSpread"}
FLAGS = [
    (SS, ["--plugins", "SelectorSpread"]),
    ({"plugins": ""}, ["--plugins", ""]),
    ({"plugins": "SelectorSpread=3", "seed": 7}, ["--plugins", "SelectorSpread=3", "--seed", "7"]),
    ({**SS, "percentage_of_nodes_to_score": 100},
     ["--plugins", "SelectorSpread", "--percentage-of-nodes-to-score", "100"]),
    ({**SS, "scores": "top:2"}, ["--plugins", "SelectorSpread", "--scores", "top:2"]),
]  # fmt: skip


def _differential(tmp_path, seed: int, **sizes) -> None:
    objs = scenario(seed, **sizes)
    path = tmp_path / f"scenario-{seed}.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objs}))
    kwargs, flags = FLAGS[seed % len(FLAGS)]
    ours = score(load_cluster([path]), **kwargs).to_dict()
    go = run_goref([path], flags)
    top_k = int(kwargs["scores"][4:]) if "scores" in kwargs else None
    diffs = compare(ours, go, top_k)
    assert not diffs, f"scenario {seed} ({flags}):\n" + "\n".join(diffs[:20])


@pytest.mark.parametrize("seed", range(N_SCENARIOS))
def test_small_clusters(tmp_path, seed):
    _differential(tmp_path, seed)


@pytest.mark.parametrize("seed", range(20))
def test_clusters_past_100_nodes_rotate_like_go(tmp_path, seed):
    """numFeasibleNodesToFind < N: windows rotate across the batch (nextStartNodeIndex)."""
    _differential(tmp_path, 10_000 + seed, max_nodes=400, max_pods=1500, max_pending=40)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(2000))
def test_many_more_clusters(tmp_path, seed):
    _differential(tmp_path, 100_000 + seed, max_nodes=60, max_pods=300, max_pending=20)
