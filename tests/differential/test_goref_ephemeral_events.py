"""kscore == the real kube-scheduler v1.23.6 (benchmarks/goref acting as the ephemeral
volume controller) for pods with generic ephemeral volumes that arrive during a run: an
event script's ``addPod`` (``Simulator.add_pod`` and ``replay``; ``simulate --events``
with times, the timed queue and its ``PvcAdd`` moves) and ``kscore capacity``'s copies.
The controller creates each arriving pod's claims (``<pod>-<volume>``, owned by the pod,
the template's spec, the default StorageClass when it names none; an existing claim of
another owner, or two default classes, stop it) before the pod's next cycle.

Scenarios: :mod:`tests.scenarios_ephemeral`'s clusters (the VolumeBinding profile, and
the disks' under the whole default profile) whose pending pods with ephemeral volumes
arrive by ``addPod``, their own claims left out of the input (some kept: the controller
leaves them), sometimes with a second default class. ``KSCORE_DIFF_EPHEMERAL_SCENARIOS``
(default 30) scenarios each.
"""

from __future__ import annotations

import json
import os
import random
from typing import Any

import pytest
import yaml

from kscore_fast import capacity, load_cluster
from kscore_fast.capacity_search import copies, template_pod
from kscore_fast.model.objects import object_uid
from kscore_fast.queue import replay_timed

from ..goref import goref_missing
from ..scenarios_disks import DISK_CONFIG
from ..scenarios_ephemeral import ephemeral_binding_scenario, ephemeral_disk_scenario
from ..scenarios_volume_binding import VOLUME_BINDING_CONFIG
from . import timed
from .events import new_simulator, replay_batched, run_goref_events

pytestmark = [
    pytest.mark.goref,
    pytest.mark.skipif(goref_missing() is not None, reason=str(goref_missing())),
]

N_SCENARIOS = int(os.environ.get("KSCORE_DIFF_EPHEMERAL_SCENARIOS", 30))
SEEDS = 3_900_000
KINDS = {"binding": (ephemeral_binding_scenario, VOLUME_BINDING_CONFIG),
         "disks": (ephemeral_disk_scenario, DISK_CONFIG)}  # fmt: skip
FIELDS = ("pod", "host", "error", "volumeBindings")
Obj = dict[str, Any]


def _key(o: Obj) -> str:
    return f"{o['metadata'].get('namespace', 'default')}/{o['metadata']['name']}"


def _uid(pod: Obj) -> str:
    meta = pod["metadata"]
    return meta.get("uid") or object_uid(meta.get("namespace", "default"), meta["name"])


def _ephemeral(pod: Obj) -> bool:
    return any("ephemeral" in v for v in pod["spec"].get("volumes") or ())


def arriving(kind: str, seed: int) -> tuple[list[Obj], list[Obj], Obj]:
    """The cluster without its pending pods with ephemeral volumes (and most of their own
    claims), those pods (in input order), and the configuration."""
    make, config = KINDS[kind]
    objs = make(seed)
    rng = random.Random(f"arriving-{seed}")
    pods = [o for o in objs if o["kind"] == "Pod" and not o["spec"].get("nodeName")
            and _ephemeral(o)]  # fmt: skip
    owners = {_uid(p) for p in pods}
    keep = []
    for o in objs:
        if o["kind"] == "Pod" and o in pods:
            continue
        refs = o["metadata"].get("ownerReferences") or ()
        own = o["kind"] == "PersistentVolumeClaim" and any(
            r.get("controller") and r.get("uid") in owners for r in refs)  # fmt: skip
        if own and rng.random() < 0.8:
            continue
        keep.append(o)
    classes = [o for o in keep if o["kind"] == "StorageClass"]
    if classes and rng.random() < 0.15:  # (two defaults: the admission plugin refuses)
        for c in rng.sample(classes, min(2, len(classes))):
            c["metadata"].setdefault("annotations", {})[
                "storageclass.kubernetes.io/is-default-class"
            ] = "true"
    return keep, pods, config


def _write(tmp_path, objs: list[Obj], config: Obj):
    cluster, cfg = tmp_path / "cluster.json", tmp_path / "config.yaml"
    cluster.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objs}))
    cfg.write_text(yaml.safe_dump(config))
    return cluster, cfg


def _lines(ours: list[Obj], go: list[Obj], what: str) -> list[str]:
    out = [f"{what} {i} {k['pod']}: {f} {k.get(f)!r} != go {g.get(f)!r}"
           for i, (k, g) in enumerate(zip(ours, go, strict=False))
           for f in FIELDS if k.get(f) != g.get(f)]  # fmt: skip
    if len(ours) != len(go):
        out.append(f"{what}: {len(ours)} results, go {len(go)}")
    return out


def _script(objs: list[Obj], pods: list[Obj], seed: int) -> list[Obj]:
    """The pending pods of the input scheduled, then each arriving pod added and
    scheduled (sometimes after the next one arrived), then those left pending again."""
    rng = random.Random(f"arriving-script-{seed}")
    ops: list[Obj] = [{"op": "schedule", "pod": _key(o)} for o in objs
                      if o["kind"] == "Pod" and not o["spec"].get("nodeName")]  # fmt: skip
    waiting: list[str] = []
    for pod in pods:
        ops.append({"op": "addPod", "pod": pod})
        waiting.append(_key(pod))
        if rng.random() < 0.7:
            ops += [{"op": "schedule", "pod": k} for k in waiting]
            waiting = []
    ops += [{"op": "schedule", "pod": k} for k in waiting]
    return ops


def _one_by_one(sim, ops: list[Obj]) -> list[Obj]:
    """The script call by call (``add_pod``, ``schedule_one``): each schedule's result."""
    out = []
    for op in ops:
        if op["op"] == "addPod":
            sim.add_pod(json.loads(json.dumps(op["pod"])))
        else:
            out.append(sim.schedule_one(op["pod"]))
    return out


def _check_script(tmp_path, kind: str, seed: int) -> None:
    objs, pods, config = arriving(kind, seed)
    if not pods:
        pytest.skip("no pending pod with ephemeral volumes")
    cluster, cfg = _write(tmp_path, objs, config)
    ops = _script(objs, pods, seed)
    go, error = run_goref_events(cluster, cfg, ops, seed, tmp_path)
    assert error is None, error
    diffs = _lines(_one_by_one(new_simulator(cluster, cfg, seed), ops), go, "add_pod")
    diffs += _lines(replay_batched(new_simulator(cluster, cfg, seed), ops), go, "replay")
    assert not diffs, f"arriving {kind} {seed}:\n" + "\n".join(diffs[:20])


@pytest.mark.parametrize("seed", range(N_SCENARIOS))
@pytest.mark.parametrize("kind", sorted(KINDS))
def test_arriving_pods_get_their_claims_as_in_go(tmp_path, kind, seed):
    _check_script(tmp_path, kind, SEEDS + seed)


@pytest.mark.parametrize("seed", range(N_SCENARIOS))
@pytest.mark.parametrize("kind", sorted(KINDS))
def test_the_timed_queue_with_arriving_pods_equals_go(tmp_path, kind, seed):
    """The pods arrive by ``addPod`` at random times:
    the timed queue's attempts equal goref replay's (the claims' ``PvcAdd`` included)."""
    seed += SEEDS + 50_000
    objs, pods, config = arriving(kind, seed)
    if not pods:
        pytest.skip("no pending pod with ephemeral volumes")
    cluster, cfg = _write(tmp_path, objs, config)
    rng = random.Random(f"arriving-times-{seed}")
    events, t = [], 0
    for pod in pods:
        t += rng.choice((0, 1, 2, 5, 30))
        events.append({"time": t, "op": "addPod", "pod": pod})
    path = timed.write_events(events, tmp_path / "events.jsonl")
    ours = replay_timed([cluster], path, config=cfg, seed=seed, tie_break="go-rand")
    diffs = timed.differences(ours.to_dict(), timed.run_goref(cluster, cfg, path, seed, None))
    assert not diffs, f"arriving timed {kind} {seed}:\n" + "\n".join(diffs[:20])


@pytest.mark.parametrize("seed", range(N_SCENARIOS))
@pytest.mark.parametrize("kind", sorted(KINDS))
def test_capacity_copies_get_their_claims_as_in_go(tmp_path, kind, seed):
    """``kscore capacity`` of a pod with ephemeral volumes: each copy's claims made as it
    is added; goref adds and schedules the same copies by events."""
    seed += SEEDS + 100_000
    objs, pods, config = arriving(kind, seed)
    if not pods:
        pytest.skip("no pending pod with ephemeral volumes")
    rest = [o for o in objs if not (o["kind"] == "Pod" and not o["spec"].get("nodeName"))]
    template = random.Random(seed).choice(pods)
    cluster, cfg = _write(tmp_path, rest, config)
    ours = capacity(load_cluster([cluster]), template, config=cfg, seed=seed,
                    tie_break="go-rand", max_replicas=25)  # fmt: skip
    n = ours.replicas + (ours.stop_reason is not None)
    ops: list[Obj] = []
    for pod in copies(template_pod(template), 0, n):
        ops += [{"op": "addPod", "pod": pod}, {"op": "schedule", "pod": _key(pod)}]
    go, error = run_goref_events(cluster, cfg, ops, seed, tmp_path)
    assert error is None, error
    assert [r["host"] for r in go[: ours.replicas]] == ours.hosts
    if ours.stop_reason is not None:
        assert go[-1]["host"] is None and go[-1]["error"] == ours.stop_reason


def test_the_scenarios_create_claims_and_bind_them(tmp_path):
    """Over the first scenarios, arriving pods are bound with claims the controller made
    (their bindings name them), and some fail for a claim it left out or could not make."""
    seen = set()
    for seed in range(SEEDS, SEEDS + 12):
        for kind in KINDS:
            objs, pods, config = arriving(kind, seed)
            if not pods:
                continue
            cluster, cfg = _write(tmp_path, objs, config)
            results = _one_by_one(new_simulator(cluster, cfg, seed), _script(objs, pods, seed))
            for r in results:
                if r["pod"] in {_key(p) for p in pods}:
                    seen.add("bound" if r["host"] else "failed")
                    seen.update("provisioned" for b in r.get("volumeBindings") or ()
                                if b["provisioned"])  # fmt: skip
    assert {"bound", "failed", "provisioned"} <= seen, seen


def test_the_created_claims_raise_pvc_add(tmp_path, monkeypatch):
    """Over the first timed scenarios, the claims the controller creates raise ``PvcAdd``
    in the timed queue (kscore's side of the moves compared above)."""
    raised = timed.raised_events(monkeypatch)
    for seed in range(SEEDS + 50_000, SEEDS + 50_006):
        objs, pods, config = arriving("binding", seed)
        cluster, cfg = _write(tmp_path, objs, config)
        events = [{"time": k, "op": "addPod", "pod": p} for k, p in enumerate(pods)]
        path = timed.write_events(events, tmp_path / "events.jsonl")
        replay_timed([cluster], path, config=cfg, seed=seed, tie_break="go-rand")
    assert "PvcAdd" in raised, raised
