"""What plugins keep on a snapshot (``ClusterSnapshot.kept`` and the other per-snapshot
entries of ``snapshot.cache``) serves every batch scored against it: lone pods scored one
after the other on one snapshot, warm, give exactly what they give on a copy of the
snapshot holding nothing yet, before and after the Simulator's events."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from benchmarks.lone_pod import lone_batch as _lone
from kscore_fast import Simulator, api
from kscore_fast.api import _framework
from kscore_fast.model.snapshot import Cluster, ClusterSnapshot, build_cluster

from ..scenarios_profile import profile_scenario
from .test_simulator import _config


def _cold(snapshot: ClusterSnapshot) -> ClusterSnapshot:
    return dataclasses.replace(snapshot, cache={})


def _assert_lone_pods_equal_cold(cluster: Cluster, config: object) -> int:
    """Score every pending pod alone on the (warm) snapshot and on a cold copy; returns
    how many were scored."""
    fw, _ = _framework(cluster, None, config, None, None)
    snapshot = cluster.snapshot
    fw.run(snapshot, cluster.batch, scores="all")  # (warm: the whole batch's parts too)
    for i in range(len(cluster.batch)):
        batch = _lone(cluster, i)
        warm = fw.run(snapshot, batch, scores="all", explain=True).to_dict()
        cold = fw.run(_cold(snapshot), _lone(cluster, i), scores="all", explain=True).to_dict()
        assert warm == cold, cluster.batch.names[i]
    return len(cluster.batch)


@pytest.mark.parametrize("family", ["basic", "pts", "ipa", "mixed"])
@pytest.mark.parametrize("seed", range(4))
def test_lone_pods_on_one_snapshot_equal_a_cold_one(tmp_path, family, seed):
    c = api.load_cluster(objects=profile_scenario(seed, family=family, max_pending=16))
    assert _assert_lone_pods_equal_cold(c, None) == len(c.batch) > 0
    _assert_lone_pods_equal_cold(c, _config(tmp_path, family, seed))


@pytest.mark.parametrize("family", ["pts", "ipa", "mixed"])
@pytest.mark.parametrize("seed", range(3))
def test_the_simulators_snapshots_after_events_equal_cold_ones(family, seed):
    """Bind, delete an input pod, remove and add back a node: each event's cluster is a
    snapshot of its own, warm after lone pods, equal to a cold copy."""
    c = api.load_cluster(objects=profile_scenario(seed, family=family, max_pending=16))
    sim = Simulator(c, seed=seed)
    _assert_lone_pods_equal_cold(sim.cluster, None)
    before = sim.cluster.snapshot
    for name in sim.pods[:4]:
        sim.schedule_and_bind(name)
    if before.pods:
        sim.delete(f"{before.pods[0].namespace}/{before.pods[0].name}")
    after = sim.cluster
    assert after.snapshot is not before
    _assert_lone_pods_equal_cold(after, None)
    node = after.snapshot.nodes[0]
    sim.remove_node(node.name)
    _assert_lone_pods_equal_cold(sim.cluster, None)
    sim.add_node(node)
    _assert_lone_pods_equal_cold(sim.cluster, None)


def test_kept_builds_once_per_key_and_keeps_the_last_used():
    snapshot = build_cluster((), ()).snapshot
    built = []

    def build(key):
        def make():
            built.append(key)
            return np.array([key])

        return make

    first = snapshot.kept("family", 1, build(1), limit=2)
    assert snapshot.kept("family", 1, build(1), limit=2) is first
    snapshot.kept("family", 2, build(2), limit=2)
    snapshot.kept("family", 1, build(1), limit=2)  # (1 used last: 2 goes first)
    snapshot.kept("family", 3, build(3), limit=2)
    assert built == [1, 2, 3]
    assert snapshot.kept("family", 1, build(1), limit=2) is first
    snapshot.kept("family", 2, build(2), limit=2)
    assert built == [1, 2, 3, 2]
    assert snapshot.kept("other", 1, build(1)) is not first
