"""The step API (:class:`kscore_fast.Simulator`) == the real kube-scheduler v1.23.6 under
the same cluster events (``goref simulate --events``: the real scheduler cache's
AssumePod, RemovePod, AddNode, RemoveNode and AddPod, Go's ``math/rand`` seeded by
``rand.Seed(seed)`` with scheduleOne's plugin-metrics draw per cycle).

Random scripts of :mod:`tests.differential.events` on the clusters and configurations of
:mod:`tests.scenarios_profile` (the basic family and the topology families), performed
call by call and again with :meth:`Simulator.replay` for the runs of schedule and delete
events: every scheduling cycle's host, counts, FitError text and scores must be equal.

``KSCORE_EVENT_OPS`` lists the event kinds the scripts draw (comma-separated, default
:data:`ENABLED`; ``all``: every kind of :data:`events.OPS`), ``KSCORE_DIFF_EVENT_SCENARIOS``
the scenarios per family (default 15); ``-m slow``: 500 more per family, larger.
"""

from __future__ import annotations

import os

import pytest

from kscore_fast.plugins.helper import counter_table

from ..goref import goref_missing
from . import events

pytestmark = [
    pytest.mark.goref,
    pytest.mark.skipif(goref_missing() is not None, reason=str(goref_missing())),
]

#: the event kinds the scripts draw by default: every kind kscore's Simulator supports
ENABLED = events.OPS
_ops = os.environ.get("KSCORE_EVENT_OPS", ",".join(ENABLED))
OPS = events.OPS if _ops == "all" else tuple(op for op in _ops.split(",") if op)
N_SCENARIOS = int(os.environ.get("KSCORE_DIFF_EVENT_SCENARIOS", 15))
FAMILIES = {"basic": 2_000_000, "pts": 2_100_000, "ipa": 2_200_000, "mixed": 2_300_000}
SIZES = {"max_nodes": 12, "max_pods": 30, "max_pending": 16}


def _check(tmp_path, family: str, seed: int, max_ops: int = 60, **sizes: int) -> None:
    unknown = set(OPS) - set(events.OPS)
    assert not unknown, f"KSCORE_EVENT_OPS: unknown event kinds {sorted(unknown)}"
    diffs, _ = events.check_scenario(family, seed, OPS, tmp_path, max_ops, **sizes)
    assert not diffs, (
        f"scenario {family} {seed}, events {','.join(OPS)} (minimize: python -m "
        f"tests.differential.minimize_events {family} {seed} --ops {','.join(OPS)}):\n"
        + "\n".join(diffs[:20])
    )


@pytest.mark.parametrize("family", list(FAMILIES))
@pytest.mark.parametrize("seed", range(N_SCENARIOS))
def test_events_equal_go(tmp_path, family, seed):
    _check(tmp_path, family, FAMILIES[family] + seed, **SIZES)


@pytest.mark.parametrize("family", ["pts", "ipa", "mixed"])
@pytest.mark.parametrize("seed", range(5))
def test_events_equal_go_with_counters_in_the_table(tmp_path, family, seed, monkeypatch):
    """Every counter of a hostname (or wide) key in the counter table, as at scale:
    binds, deletions, node changes and copies update the table."""
    monkeypatch.setattr(counter_table, "DENSE_BUDGET", -1)
    _check(tmp_path, family, FAMILIES[family] + 300_000 + seed, **SIZES)


@pytest.mark.parametrize("family", list(FAMILIES))
def test_events_past_100_nodes(tmp_path, family):
    """Adaptive sampling: the rotation carries over node adds and removes."""
    _check(tmp_path, family, FAMILIES[family] + 90_000, max_ops=150, max_nodes=300,
           max_pods=300, max_pending=40)  # fmt: skip


@pytest.mark.slow
@pytest.mark.parametrize("family", list(FAMILIES))
@pytest.mark.parametrize("seed", range(500))
def test_many_more_event_scripts(tmp_path, family, seed):
    _check(tmp_path, family, FAMILIES[family] + 100_000 + seed, max_ops=120, max_nodes=30,
           max_pods=80, max_pending=25)  # fmt: skip


def _node(i: int) -> dict:
    room = {"cpu": "8", "memory": "16Gi", "pods": "110"}
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": f"n{i:03d}", "labels": {"kubernetes.io/hostname": f"n{i:03d}"}},
            "status": {"allocatable": room, "capacity": room}}  # fmt: skip


def _pending(i: int) -> dict:
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": f"p{i}", "namespace": "default", "uid": f"uid-{i}"},
            "spec": {"schedulerName": "default-scheduler", "containers": [
                {"name": "c", "image": "busybox", "resources": {"requests": {"cpu": "100m"}}}]},
            "status": {"phase": "Pending"}}  # fmt: skip


def test_the_start_index_past_the_node_count_after_removals(tmp_path):
    """nextStartNodeIndex stays as Go keeps it when removals bring the node count below it
    and the states are prepared again before the next cycle (a read of ``nodes``): Go
    takes it modulo the node count inside a cycle only (issue 28, item 8)."""
    import json

    import yaml

    nodes = [_node(i) for i in range(150)]
    cluster = tmp_path / "cluster.json"
    cluster.write_text(json.dumps({"apiVersion": "v1", "kind": "List",
                                   "items": nodes + [_pending(i) for i in range(6)]}))  # fmt: skip
    config = tmp_path / "config.yaml"
    config.write_text(yaml.safe_dump({"apiVersion": "kubescheduler.config.k8s.io/v1beta3",
                                      "kind": "KubeSchedulerConfiguration"}))  # fmt: skip
    ops = [{"op": "schedule", "pod": "default/p0"}]  # 100 nodes of 150 examined: start 100
    ops += [{"op": "removeNode", "node": f"n{i:03d}"} for i in range(90, 150)]  # 90 left
    ops += [{"op": "addNode", "node": _node(i)} for i in range(90, 110)]  # 110: start 100
    ops += [{"op": "schedule", "pod": f"default/p{i}"} for i in range(1, 6)]
    sim = events.new_simulator(cluster, config, 7)
    ours = []
    for k, op in enumerate(ops):
        if (result := events.apply(sim, op)) is not None:
            ours.append(result)
        if k == 60:
            assert len(sim.nodes) == 90  # (the states prepared again, no cycle)
    go, error = events.run_goref_events(cluster, config, ops, 7, tmp_path)
    assert error is None
    assert events.differences(ours, go) == []
