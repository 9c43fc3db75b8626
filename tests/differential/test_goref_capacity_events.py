"""kscore == the real kube-scheduler v1.23.6 (benchmarks/goref) when CSIStorageCapacity
objects change during a run: event scripts' ``addCapacity``, ``updateCapacity`` and
``deleteCapacity`` (``Simulator.add_capacity``/``update_capacity``/``delete_capacity``
against ``goref simulate --events``), and the timed queue, where an add or update is
``CSIStorageCapacityAdd``/``Update`` moving the pods VolumeBinding rejected (its
``EventsToRegister``; no handler for a delete), against ``goref replay`` attempt by
attempt. Clusters of :mod:`tests.scenarios_volume_capacity` under the VolumeBinding
profile. ``KSCORE_DIFF_VOLUME_SCENARIOS`` (default 40) scenarios each.
"""

from __future__ import annotations

import json
import os
import random
from typing import Any

import pytest
import yaml

from kscore_fast.queue import replay_timed

from ..goref import goref_missing
from ..scenarios_volume_binding import VOLUME_BINDING_CONFIG
from ..scenarios_volume_capacity import _capacity, capacity_scenario
from . import timed
from .events import new_simulator, run_goref_events

pytestmark = [
    pytest.mark.goref,
    pytest.mark.skipif(goref_missing() is not None, reason=str(goref_missing())),
]

N_SCENARIOS = int(os.environ.get("KSCORE_DIFF_VOLUME_SCENARIOS", 40))
SEEDS = 4_500_000
FIELDS = ("pod", "host", "error", "volumeBindings")
Obj = dict[str, Any]


def _key(o: Obj) -> str:
    return f"{o['metadata'].get('namespace', 'default')}/{o['metadata']['name']}"


def capacity_events(objs: list[Obj], seed: int) -> list[Obj]:
    """2-8 changes of the scenario's CSIStorageCapacity objects: new ones (the
    scenario's shapes), updates of existing ones (a new object of that name) and
    deletions, in a random order (each name's state followed)."""
    rng = random.Random(f"capacity-events-{seed}")
    n_nodes = sum(o["kind"] == "Node" for o in objs)
    live = {_key(o): o for o in objs if o["kind"] == "CSIStorageCapacity"}
    out: list[Obj] = []
    for k in range(rng.randint(2, 8)):
        shape = rng.random()
        if live and shape < 0.35:
            name = rng.choice(sorted(live))
            fresh = _capacity(k, rng, n_nodes)
            fresh["metadata"].update(name=live[name]["metadata"]["name"],
                                     namespace=live[name]["metadata"]["namespace"])  # fmt: skip
            live[name] = fresh
            out.append({"op": "updateCapacity", "capacity": fresh})
        elif live and shape < 0.5:
            name = rng.choice(sorted(live))
            del live[name]
            out.append({"op": "deleteCapacity", "capacity": name})
        else:
            fresh = _capacity(100 + k, rng, n_nodes)
            live[_key(fresh)] = fresh
            out.append({"op": "addCapacity", "capacity": fresh})
    return out


def _write(tmp_path, objs: list[Obj]):
    cluster, cfg = tmp_path / "cluster.json", tmp_path / "config.yaml"
    cluster.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objs}))
    cfg.write_text(yaml.safe_dump(VOLUME_BINDING_CONFIG))
    return cluster, cfg


def _script(objs: list[Obj], seed: int) -> list[Obj]:
    """Every pending pod scheduled; then each capacity change followed by the pods
    still pending scheduled again (as goref's results tell which are)."""
    pending = [_key(o) for o in objs if o["kind"] == "Pod" and not o["spec"].get("nodeName")]
    ops = [{"op": "schedule", "pod": p} for p in pending]
    for change in capacity_events(objs, seed):
        ops.append(change)
        ops += [{"op": "schedule", "pod": p} for p in pending]
    return ops


def _run_ours(sim, ops: list[Obj]) -> list[Obj]:
    """kscore's side call by call; a pod bound already is not scheduled again."""
    out, bound = [], set()
    for op in ops:
        kind = op["op"]
        if kind == "addCapacity":
            sim.add_capacity(json.loads(json.dumps(op["capacity"])))
        elif kind == "updateCapacity":
            sim.update_capacity(json.loads(json.dumps(op["capacity"])))
        elif kind == "deleteCapacity":
            sim.delete_capacity(op["capacity"])
        elif op["pod"] not in bound:
            r = sim.schedule_one(op["pod"])
            if r["host"] is not None:
                bound.add(op["pod"])
            out.append(r)
    return out


def _only_pending(ops: list[Obj], ours: list[Obj]) -> list[Obj]:
    """The script without the schedule ops of pods kscore had bound already (goref runs
    the same ops; a schedule op of a bound pod is an error there)."""
    out, bound = [], set()
    results = iter(ours)
    for op in ops:
        if op["op"] != "schedule":
            out.append(op)
            continue
        if op["pod"] in bound:
            continue
        out.append({"op": "schedule", "pod": op["pod"]})
        if next(results)["host"] is not None:
            bound.add(op["pod"])
    return out


def _check_script(tmp_path, seed: int) -> None:
    objs = capacity_scenario(seed)
    cluster, cfg = _write(tmp_path, objs)
    ops = _script(objs, seed)
    ours = _run_ours(new_simulator(cluster, cfg, seed), ops)
    go, error = run_goref_events(cluster, cfg, _only_pending(ops, ours), seed, tmp_path)
    assert error is None, error
    diffs = [f"{i} {k['pod']}: {f} {k.get(f)!r} != go {g.get(f)!r}"
             for i, (k, g) in enumerate(zip(ours, go, strict=False))
             for f in FIELDS if k.get(f) != g.get(f)]  # fmt: skip
    if len(ours) != len(go):
        diffs.append(f"{len(ours)} results, go {len(go)}")
    assert not diffs, f"capacity script {seed}:\n" + "\n".join(diffs[:20])


@pytest.mark.parametrize("seed", range(N_SCENARIOS))
def test_capacity_changes_in_scripts_as_in_go(tmp_path, seed):
    _check_script(tmp_path, SEEDS + seed)


@pytest.mark.parametrize("seed", range(N_SCENARIOS))
def test_capacity_changes_move_the_timed_queue_as_in_go(tmp_path, seed):
    seed += SEEDS + 50_000
    objs = capacity_scenario(seed)
    cluster, cfg = _write(tmp_path, objs)
    rng = random.Random(f"capacity-times-{seed}")
    events, t = [], 0
    for change in capacity_events(objs, seed):
        t += rng.choice((0, 1, 3, 20, 90))
        events.append({"time": t, **change})
    path = timed.write_events(events, tmp_path / "events.jsonl")
    ours = replay_timed([cluster], path, config=cfg, seed=seed, tie_break="go-rand")
    diffs = timed.differences(ours.to_dict(), timed.run_goref(cluster, cfg, path, seed, None))
    assert not diffs, f"capacity timed {seed}:\n" + "\n".join(diffs[:20])


def test_the_changes_bind_pods_that_did_not_fit(tmp_path, monkeypatch):
    """Over the first scenarios, a pod that failed for storage is bound after a capacity
    change (scripts), and the timed queue's moves happen (``CSIStorageCapacityAdd``)."""
    raised = timed.raised_events(monkeypatch)
    later_bound = 0
    for seed in range(SEEDS, SEEDS + 12):
        objs = capacity_scenario(seed)
        cluster, cfg = _write(tmp_path, objs)
        failed = set()
        for r in _run_ours(new_simulator(cluster, cfg, seed), _script(objs, seed)):
            if r["host"] is None and "enough free storage" in (r["error"] or ""):
                failed.add(r["pod"])
            elif r["host"] is not None and r["pod"] in failed:
                later_bound += 1
        events = [{"time": k, **c} for k, c in enumerate(capacity_events(objs, seed))]
        path = timed.write_events(events, tmp_path / "events.jsonl")
        replay_timed([cluster], path, config=cfg, seed=seed, tie_break="go-rand")
    assert later_bound > 0
    assert "CSIStorageCapacityAdd" in raised and "CSIStorageCapacityUpdate" in raised, raised
