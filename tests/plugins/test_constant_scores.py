"""``constant_scores``: the pods a score plugin declares to score one value on every node
in every state of a run (the sequential loop scores them on one node alone,
``framework/cached_scoring.py``) do, on every node of random clusters, as pods are bound."""

from __future__ import annotations

import numpy as np
import pytest

from kscore_fast import api
from kscore_fast.framework.interface import Plugin
from kscore_fast.plugins.registry import IN_TREE

from ..scenarios_profile import profile_scenario

_DECLARING = [c for _, c in IN_TREE.items() if c.constant_scores is not Plugin.constant_scores]


@pytest.mark.parametrize("family", ["basic", "pts", "ipa", "mixed"])
@pytest.mark.parametrize("seed", range(12))
def test_constant_pods_score_one_value_on_every_node(family, seed):
    cluster = api.load_cluster(objects=profile_scenario(seed, family=family))
    results = api.simulate(cluster, seed=seed, tie_break="go-rand", scores="all",
                           percentage_of_nodes_to_score=100).to_dict()["results"]  # fmt: skip
    index = {name: i for i, name in enumerate(cluster.batch.names)}
    n_pods = len(cluster.batch)
    for cls in _DECLARING:
        state = cls().prepare(cluster.snapshot, cluster.batch)
        const = np.broadcast_to(np.asarray(cls.constant_scores(state), bool), (n_pods,))
        for r in results:
            raws = {s["plugins"][cls.name]["raw"] for s in r["scores"]
                    if cls.name in s["plugins"]}  # fmt: skip
            if const[index[r["pod"]]]:
                assert len(raws) <= 1, (cls.name, r["pod"], raws)


def test_some_pods_are_declared_constant_and_some_not():
    """The test above sees both kinds of pods for every declaring plugin."""
    seen = {cls.name: set() for cls in _DECLARING}
    for family in ("basic", "pts", "ipa", "mixed"):
        for seed in range(12):
            cluster = api.load_cluster(objects=profile_scenario(seed, family=family))
            for cls in _DECLARING:
                state = cls().prepare(cluster.snapshot, cluster.batch)
                const = np.asarray(cls.constant_scores(state), bool).reshape(-1)
                seen[cls.name].update(const.tolist())
    assert {name: len(v) for name, v in seen.items()} == {
        name: 1 if name == "VolumeBinding" else 2 for name in seen
    }
