"""kscore == the real kube-scheduler v1.23.6 (benchmarks/goref) with VolumeBinding's
PreFilter and Filter: random clusters of :mod:`tests.scenarios_volume_binding` under the
default profile without VolumeRestrictions and the volume limits (``test_goref_disks``),
and those of :mod:`tests.scenarios_volume_capacity` (CSI drivers with and without
``storageCapacity``, CSIStorageCapacity objects per topology segment: the capacity
check). In ``score``: every verdict count, FitError text and score; in whole ``simulate``
runs with Go's tie-breaks: the same, every host, and what Reserve decided for each bound
pod (``volumeBindings``: goref reads the real binder's ``PodVolumes``); in the timed
queue (``replay``) every attempt with its bindings. And the project's ``data/embedded``
under the default profile, whose three pods with absent claims Go fails at PreFilter.
``KSCORE_DIFF_VOLUME_SCENARIOS`` (default 40) scenarios each; ``-m slow``: 2,000 more
each (1,000 of capacity scenarios), with larger clusters.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import yaml

from kscore_fast.api import load_cluster, simulate

from ..goref import goref_missing, run_differences, run_goref
from ..scenarios_volume_binding import VOLUME_BINDING_CONFIG, binding_scenario
from ..scenarios_volume_capacity import capacity_scenario
from .storage_runs import differences
from .timed import queued_at_once

pytestmark = [
    pytest.mark.goref,
    pytest.mark.skipif(goref_missing() is not None, reason=str(goref_missing())),
]

N_SCENARIOS = int(os.environ.get("KSCORE_DIFF_VOLUME_SCENARIOS", 40))
SCORE_SEEDS, SIMULATE_SEEDS, QUEUE_SEEDS = 3_000_000, 3_100_000, 3_200_000
PREEMPTION_SEEDS = 3_300_000
#: the capacity scenarios' seeds: the score and simulate seeds plus these (the same
#: numbers as other tests' seeds, of another generator)
CAPACITY = 200_000
SLOW = {"max_nodes": 30, "max_pending": 20}
EMBEDDED = Path(__file__).resolve().parents[2] / "data" / "embedded"
DEFAULT = {"apiVersion": "kubescheduler.config.k8s.io/v1beta3",
           "kind": "KubeSchedulerConfiguration"}  # fmt: skip


def _check(tmp_path, seed: int, mode: str, make=binding_scenario, **sizes) -> None:
    diffs = differences(tmp_path, seed, mode, make(seed, **sizes), VOLUME_BINDING_CONFIG)
    assert not diffs, f"{make.__name__} {mode} {seed}:\n" + "\n".join(diffs[:20])


@pytest.mark.parametrize("seed", range(N_SCENARIOS))
@pytest.mark.parametrize("mode", ["score", "simulate"])
def test_volume_binding_equals_go(tmp_path, mode, seed):
    _check(tmp_path, (SCORE_SEEDS if mode == "score" else SIMULATE_SEEDS) + seed, mode)


@pytest.mark.parametrize("seed", range(N_SCENARIOS))
@pytest.mark.parametrize("mode", ["score", "simulate"])
def test_volume_capacity_equals_go(tmp_path, mode, seed):
    base = CAPACITY + (SCORE_SEEDS if mode == "score" else SIMULATE_SEEDS)
    _check(tmp_path, base + seed, mode, capacity_scenario)


def _inputs(tmp_path, seed: int) -> tuple[Path, Path]:
    path, config = tmp_path / f"scenario-{seed}.json", tmp_path / "config.yaml"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List",
                                "items": binding_scenario(seed)}))  # fmt: skip
    config.write_text(yaml.safe_dump(VOLUME_BINDING_CONFIG))
    return path, config


def test_the_bindings_compared_are_static_and_provisioned(tmp_path):
    """The simulate scenarios bind volumes both ways: over the first ten, Go's Reserves
    match volumes and provision claims, and kscore reports the same, pod by pod."""
    kinds = set()
    for seed in range(SIMULATE_SEEDS, SIMULATE_SEEDS + 10):
        path, config = _inputs(tmp_path, seed)
        go = run_goref([path], ["--config", str(config), "--seed", str(seed),
                                "--plugin-metrics-draw"], command="simulate")  # fmt: skip
        ours = simulate(load_cluster([path]), config=config, seed=seed, tie_break="go-rand")
        mine = {r["pod"]: r.get("volumeBindings") for r in ours.to_dict()["results"]}
        for r in go["results"]:
            assert mine[r["pod"]] == r.get("volumeBindings"), (seed, r["pod"])
            kinds.update(b["provisioned"] for b in r.get("volumeBindings", ()))
    assert kinds == {True, False}


@pytest.mark.parametrize("seed", range(N_SCENARIOS // 2))
def test_simulate_with_preemption_binds_as_go(tmp_path, seed):
    """``simulate --preemption`` on crowded disk scenarios (WaitForFirstConsumer and
    Immediate classes, evictions): every host, error and ``volumeBindings`` as goref's."""
    from benchmarks.timing import timing_free

    from ..scenarios_disks import DISK_CONFIG, disk_scenario

    seed += PREEMPTION_SEEDS
    path, config = tmp_path / "scenario.json", tmp_path / "config.yaml"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List",
                                "items": disk_scenario(seed, crowded=True)}))  # fmt: skip
    config.write_text(yaml.safe_dump(DISK_CONFIG))
    ours = simulate(load_cluster([path]), config=config, seed=seed, scores="none",
                    tie_break="go-rand", preemption=True).to_dict()  # fmt: skip
    go = run_goref([path], ["--config", str(config), "--seed", str(seed), "--scores", "none",
                            "--plugin-metrics-draw", "--preemption", "--preemption-ties",
                            "first"], command="simulate")  # fmt: skip
    n = timing_free(go["results"])
    fields = ("pod", "host", "error", "volumeBindings")
    diffs = [(k["pod"], [(f, k.get(f), g.get(f)) for f in fields if k.get(f) != g.get(f)])
             for k, g in zip(ours["results"][:n], go["results"][:n], strict=True)
             if any(k.get(f) != g.get(f) for f in fields)]  # fmt: skip
    assert not diffs, f"disk scenario simulate --preemption {seed}: {diffs[:5]}"


@pytest.mark.parametrize("seed", range(N_SCENARIOS))
def test_the_timed_queue_equals_go(tmp_path, seed):
    """The scenario's pending pods queued at once, no further event: every attempt (its
    host, reasons and bindings) equals goref's replay."""
    seed += QUEUE_SEEDS
    path, config = _inputs(tmp_path, seed)
    diffs = queued_at_once(path, config, seed)
    assert not diffs, f"volume binding queue scenario {seed}:\n" + "\n".join(diffs[:20])


@pytest.mark.parametrize("mode", ["score", "simulate"])
def test_embedded_cluster_equals_go(tmp_path, mode):
    """The default profile on data/embedded: its pods with absent claims fail at
    VolumeBinding's PreFilter on all 36 nodes, as in Go."""
    config = tmp_path / "config.yaml"
    config.write_text(yaml.safe_dump(DEFAULT))
    diffs = run_differences([EMBEDDED], config, 3, mode)
    assert not diffs, "\n".join(diffs[:20])


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(2_000))
@pytest.mark.parametrize("mode", ["score", "simulate"])
def test_many_more_volume_binding_scenarios(tmp_path, mode, seed):
    base = SCORE_SEEDS if mode == "score" else SIMULATE_SEEDS
    _check(tmp_path, base + 50_000 + seed, mode, **SLOW)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(1_000))
@pytest.mark.parametrize("mode", ["score", "simulate"])
def test_many_more_volume_capacity_scenarios(tmp_path, mode, seed):
    base = CAPACITY + (SCORE_SEEDS if mode == "score" else SIMULATE_SEEDS)
    _check(tmp_path, base + 50_000 + seed, mode, capacity_scenario, **SLOW)
