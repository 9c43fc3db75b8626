"""Plugins that read only a pod's spec (``spec_only``: resources, ports, tolerations, node
affinity, images) prepare and score once per ``spec_twins`` group, pods that differ in
labels, namespace and owners included. Every result must equal grouping twins only."""

from __future__ import annotations

import copy
import random

import pytest

from kscore_fast.api import load_cluster, score
from kscore_fast.framework import runtime
from kscore_fast.model import snapshot

from ..scenarios_profile import profile_scenario


def _told_apart(seed: int) -> list[dict]:
    """A random cluster whose pending pods come in a few specs, each pod in a namespace and
    with labels of its own (so that no two are twins)."""
    objs = profile_scenario(seed, max_nodes=120, max_pods=150, max_pending=5)
    pending = [o for o in objs if o["kind"] == "Pod" and "nodeName" not in o["spec"]]
    rng = random.Random(seed)
    for i in range(60):
        pod = copy.deepcopy(rng.choice(pending))
        meta = pod["metadata"]
        meta["name"] = f"told-apart-{i}"
        meta["namespace"] = rng.choice(["default", "ns1", "ns2"])
        meta.setdefault("labels", {})["kscore-test/id"] = str(i)
        objs.append(pod)
    return objs


def _twins_only(m: pytest.MonkeyPatch) -> None:
    m.setattr(snapshot, "spec_twins", snapshot.pod_twins)
    m.setattr(runtime, "spec_twins", snapshot.pod_twins)


@pytest.mark.parametrize("scores", ["top:2", "all"])
@pytest.mark.parametrize("pct", [100, 0, 30])
@pytest.mark.parametrize("seed", range(8))
def test_spec_groups_score_like_twins_only(seed, pct, scores, monkeypatch):
    kwargs = {"seed": seed, "scores": scores, "percentage_of_nodes_to_score": pct}
    cluster = load_cluster(objects=_told_apart(seed))
    grouped = score(cluster, **kwargs).to_dict()
    assert len(set(snapshot.spec_twins(cluster.batch).tolist())) < len(cluster.batch) // 2
    with monkeypatch.context() as m:
        _twins_only(m)
        alone = score(load_cluster(objects=_told_apart(seed)), **kwargs).to_dict()
    assert grouped == alone
