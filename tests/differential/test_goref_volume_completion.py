"""kscore == the real kube-scheduler v1.23.6 (benchmarks/goref, acting as the PV
controller and the external provisioners) when volume bindings complete (issue 29):
random clusters of :mod:`tests.scenarios_volume_completion` (shared claims, a StatefulSet's
claims, CSI drivers with ``topologyKeys``, static volumes, Immediate and
WaitForFirstConsumer classes) in whole ``simulate`` runs with Go's tie-breaks (every host,
count, error and ``volumeBindings``, the provisioned volumes' names among them), and in
event scripts (``simulate --events``) that delete bound pods, add them again pending and
schedule them again: a pod whose claims were bound by an earlier pod's cycle must follow
their volumes (a provisioned volume's zone, a local volume's host). kscore's side runs the
script call by call (``Simulator.schedule_one``, ``delete``, ``add_pod``) and again with
each run of schedule and delete ops in one ``Simulator.replay``. The same with a
StatefulSet of a migrated in-tree provisioner's class (:func:`in_tree_completion_scenario`:
its claims provisioned through the CSI driver and translated back to in-tree volumes).
Odd seeds run the whole default profile (the volume limits count the completed
bindings' volumes), even ones without the limits and VolumeRestrictions.
``KSCORE_DIFF_VOLUME_SCENARIOS`` (default 40) scenarios each; ``-m slow``: 2,000 more each,
with larger clusters.
"""

from __future__ import annotations

import copy
import json
import os
import random
from collections.abc import Callable
from typing import Any

import pytest
import yaml

from benchmarks.timing import timing_free
from kscore_fast.api import load_cluster
from kscore_fast.errors import UnsupportedError
from kscore_fast.simulator import Simulator

from ..goref import goref_missing, run_goref
from ..scenarios_volume_binding import VOLUME_BINDING_CONFIG
from ..scenarios_volume_completion import completion_scenario, in_tree_completion_scenario
from .events import replay_batched, run_goref_events
from .storage_runs import differences

pytestmark = [
    pytest.mark.goref,
    pytest.mark.skipif(goref_missing() is not None, reason=str(goref_missing())),
]

N_SCENARIOS = int(os.environ.get("KSCORE_DIFF_VOLUME_SCENARIOS", 40))
SIMULATE_SEEDS, EVENT_SEEDS, IN_TREE_SEEDS = 3_600_000, 3_700_000, 3_800_000
SLOW = {"max_nodes": 30, "max_pending": 20}
#: the whole default profile (the volume limits and VolumeRestrictions on): odd seeds
DEFAULT = {"apiVersion": "kubescheduler.config.k8s.io/v1beta3",
           "kind": "KubeSchedulerConfiguration"}  # fmt: skip


def _config(seed: int) -> dict[str, Any]:
    return DEFAULT if seed % 2 else VOLUME_BINDING_CONFIG


Scenario = Callable[..., list[dict[str, Any]]]
FIELDS = ("pod", "host", "error", "feasibleNodes", "volumeBindings")


def _simulate(tmp_path, seed: int, make: Scenario = completion_scenario, **sizes: int) -> None:
    objs = make(seed, **sizes)
    diffs = differences(tmp_path, seed, "simulate", objs, _config(seed))
    assert not diffs, f"completion simulate {seed}:\n" + "\n".join(diffs[:20])


def _name(pod: dict[str, Any]) -> str:
    return f"{pod['metadata'].get('namespace', 'default')}/{pod['metadata']['name']}"


def _script(sim: Simulator, objs: list[dict[str, Any]], seed: int,
            ops: list[dict[str, Any]] | None = None
            ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:  # fmt: skip
    """The ops, drawn while ``sim`` runs them, and kscore's result of each schedule op:
    every pending pod scheduled in input order, then rounds of a pod (a StatefulSet's more
    often) deleted, added again pending and scheduled (sometimes with another pending pod
    scheduled in between), then every pod still pending scheduled again. ``ops``: the
    list the ops are appended to (so far, when ``sim`` raises)."""
    rng = random.Random(f"completion-script-{seed}")
    pods = {_name(p): p for p in objs if p["kind"] == "Pod" and not p["spec"].get("nodeName")}
    names = list(pods)
    stateful = [n for n in names if pods[n]["metadata"].get("ownerReferences")]
    ops = [] if ops is None else ops
    results: list[dict[str, Any]] = []
    pending = set(names)

    def schedule(name: str) -> None:
        ops.append({"op": "schedule", "pod": name})
        results.append(sim.schedule_one(name))
        if results[-1]["host"] is not None:
            pending.discard(name)

    for name in names:
        schedule(name)
    for _ in range(rng.randint(1, 6)):
        name = rng.choice(stateful if stateful and rng.random() < 0.7 else names)
        again = copy.deepcopy(pods[name])
        ops += [{"op": "delete", "pod": name}, {"op": "addPod", "pod": again}]
        sim.delete(name)
        sim.add_pod(copy.deepcopy(again))
        pending.add(name)
        others = sorted(pending - {name})
        if others and rng.random() < 0.3:
            schedule(rng.choice(others))
        schedule(name)
    for name in [n for n in names if n in pending]:
        schedule(name)
    return ops, results


def _lines(ours: list[dict[str, Any]], go: list[dict[str, Any]], what: str) -> list[str]:
    n = timing_free(go)
    out = [f"{what} cycle {i} {k['pod']}: {f} {k.get(f)!r} != go {g.get(f)!r}"
           for i, (k, g) in enumerate(zip(ours[:n], go[:n], strict=False))
           for f in FIELDS if f != "feasibleNodes" or "feasibleNodes" in k
           if k.get(f) != g.get(f)]  # fmt: skip
    if len(ours) != len(go):
        out.append(f"{what}: {len(ours)} schedule results, go {len(go)}")
    return out


def _events(tmp_path, seed: int, make: Scenario = completion_scenario,
            ops: list[dict[str, Any]] | None = None, **sizes: int) -> None:  # fmt: skip
    objs = make(seed, **sizes)
    cluster, config = tmp_path / f"cluster-{seed}.json", tmp_path / "config.yaml"
    cluster.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objs}))
    config.write_text(yaml.safe_dump(_config(seed)))

    def simulator() -> Simulator:
        return Simulator(load_cluster([cluster]), config=config, tie_break="go-rand", seed=seed)

    ops, ours = _script(simulator(), objs, seed, ops)
    go, error = run_goref_events(cluster, config, ops, seed, tmp_path)
    diffs = _lines(ours, go, "schedule_one")
    diffs += _lines(replay_batched(simulator(), ops), go, "replay")
    if error:
        diffs.append(f"goref refused the script: {error}")
    assert not diffs, f"completion events {seed}:\n" + "\n".join(diffs[:20])


@pytest.mark.parametrize("seed", range(N_SCENARIOS))
def test_completed_bindings_simulate_as_go(tmp_path, seed):
    _simulate(tmp_path, SIMULATE_SEEDS + seed)


@pytest.mark.parametrize("seed", range(N_SCENARIOS))
def test_recreated_pods_follow_their_volumes_as_in_go(tmp_path, seed):
    _events(tmp_path, EVENT_SEEDS + seed)


@pytest.mark.parametrize("seed", range(N_SCENARIOS))
def test_in_tree_provisioning_simulates_as_go(tmp_path, seed):
    """Claims of a migrated in-tree provisioner's class provisioned through its CSI
    driver and translated back (goref: csi-translation-lib's TranslateCSIPVToInTree)."""
    _simulate(tmp_path, IN_TREE_SEEDS + seed, in_tree_completion_scenario)


@pytest.mark.parametrize("seed", range(N_SCENARIOS))
def test_recreated_pods_follow_their_in_tree_volumes_as_in_go(tmp_path, seed):
    _events(tmp_path, IN_TREE_SEEDS + 100_000 + seed, in_tree_completion_scenario)


REGIONAL_SEEDS = 3_900_000


def _regional(seed: int, **sizes: int) -> list[dict[str, Any]]:
    return in_tree_completion_scenario(seed, regional=True, **sizes)


def _azure_file(seed: int, **sizes: int) -> list[dict[str, Any]]:
    return in_tree_completion_scenario(seed, azure_file=True, **sizes)


AZURE_FILE_SEEDS = 4_000_000


@pytest.mark.parametrize("seed", range(N_SCENARIOS))
@pytest.mark.parametrize("mode", ["simulate", "events"])
def test_regional_gce_pd_provisioning_as_go(tmp_path, mode, seed):
    """Claims of a GCE PD class asking for ``replication-type: regional-pd``: the disk's
    two zones (the node's and the next of the requisite, sorted, as the external
    provisioner and the driver pick them; goref: csi-translation-lib's class and volume
    translations), its zone labels and node affinity, which later and re-created pods
    follow. Where the provisioning fails, kscore refuses it and goref fails it too."""
    _provisioning_as_go(tmp_path, REGIONAL_SEEDS + seed, mode, _regional)


@pytest.mark.parametrize("seed", range(N_SCENARIOS))
@pytest.mark.parametrize("mode", ["simulate", "events"])
def test_azure_file_provisioning_as_go(tmp_path, mode, seed):
    """Claims of ``kubernetes.io/azure-file`` (migration off): its own plugin's volume,
    bound, reachable from every node (re-created pods go anywhere); the plugin's refusals
    (an unknown option, malformed tags) refused by kscore and failed by goref."""
    _provisioning_as_go(tmp_path, AZURE_FILE_SEEDS + seed, mode, _azure_file)


def _provisioning_as_go(tmp_path, seed: int, mode: str, make: Scenario) -> None:
    """kscore equals goref on ``make``'s scenario (a simulate run or an event script);
    or kscore refuses a provisioning that fails and goref fails it too."""
    seed += 100_000 if mode == "events" else 0
    ops: list[dict[str, Any]] = []
    try:
        if mode == "simulate":
            _simulate(tmp_path, seed, make)
        else:
            _events(tmp_path, seed, make, ops=ops)
    except UnsupportedError as exc:
        assert "(the provisioner fails)" in str(exc), exc
        path, config = tmp_path / "refused.json", tmp_path / "refused.yaml"
        path.write_text(json.dumps({"apiVersion": "v1", "kind": "List",
                                    "items": make(seed)}))  # fmt: skip
        config.write_text(yaml.safe_dump(_config(seed)))
        try:  # (goref fails the same provisioning)
            if mode == "simulate":
                run_goref([path], ["--config", str(config), "--seed", str(seed),
                                   "--plugin-metrics-draw"], command="simulate")  # fmt: skip
                error = None
            else:
                error = run_goref_events(path, config, ops, seed, tmp_path)[1]
        except RuntimeError as e:
            error = str(e)
        assert error and "goref: provisioning" in error, (str(exc), error)


def test_regional_scenarios_provision_two_zones(tmp_path):
    """Over the first regional scenarios, set pods' claims are provisioned, and some
    provisionings are refused."""
    from kscore_fast.api import simulate

    seen = set()
    for seed in range(REGIONAL_SEEDS, REGIONAL_SEEDS + 20):
        try:
            sim = simulate(load_cluster(objects=_regional(seed)), tie_break="go-rand", seed=seed)
        except UnsupportedError:
            seen.add("refused")
            continue
        seen.update("bound" for r in sim.to_dict()["results"] if r["host"]
                    for b in r.get("volumeBindings") or ()
                    if b["provisioned"] and b["volume"] and b["claim"][:3] == "vol")  # fmt: skip
    assert {"refused", "bound"} <= seen, seen


def test_in_tree_scenarios_provision_and_follow(tmp_path):
    """Over the first in-tree scenarios, the set's claims are provisioned (a volume
    named)."""
    from kscore_fast.api import simulate

    config = tmp_path / "config.yaml"
    provisioned = 0
    for seed in range(IN_TREE_SEEDS, IN_TREE_SEEDS + 6):
        config.write_text(yaml.safe_dump(_config(seed)))
        objs = in_tree_completion_scenario(seed)
        for r in simulate(load_cluster(objects=objs), config=config).to_dict()["results"]:
            provisioned += sum(b["provisioned"] and b["volume"] is not None
                               and b["claim"].startswith("vol")
                               for b in r.get("volumeBindings") or ())  # fmt: skip
    assert provisioned > 0


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(2_000))
def test_many_more_in_tree_provisioning_runs(tmp_path, seed):
    _simulate(tmp_path, IN_TREE_SEEDS + 50_000 + seed, in_tree_completion_scenario, **SLOW)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(2_000))
def test_many_more_completed_binding_runs(tmp_path, seed):
    _simulate(tmp_path, SIMULATE_SEEDS + 50_000 + seed, **SLOW)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(2_000))
def test_many_more_recreated_pod_scripts(tmp_path, seed):
    _events(tmp_path, EVENT_SEEDS + 50_000 + seed, **SLOW)
