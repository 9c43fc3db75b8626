"""kscore == the real kube-scheduler v1.23.6 (benchmarks/goref) with VolumeBinding's
PreFilter and Filter: random clusters of :mod:`tests.scenarios_volume_binding` under the
default profile without VolumeRestrictions and the volume limits (``test_goref_disks``),
and those of :mod:`tests.scenarios_volume_capacity` (CSI drivers with and without
``storageCapacity``, CSIStorageCapacity objects per topology segment: the capacity
check). In ``score``: every verdict count, FitError text and score; in whole ``simulate``
runs with Go's tie-breaks: the same, and every host. And the project's ``data/embedded``
under the default profile, whose three pods with absent claims Go fails at PreFilter.
``KSCORE_DIFF_VOLUME_SCENARIOS`` (default 40) scenarios each; ``-m slow``: 2,000 more
each (1,000 of capacity scenarios), with larger clusters.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml

from ..goref import goref_missing, run_differences
from ..scenarios_volume_binding import VOLUME_BINDING_CONFIG, binding_scenario
from ..scenarios_volume_capacity import capacity_scenario
from .storage_runs import differences

pytestmark = [
    pytest.mark.goref,
    pytest.mark.skipif(goref_missing() is not None, reason=str(goref_missing())),
]

N_SCENARIOS = int(os.environ.get("KSCORE_DIFF_VOLUME_SCENARIOS", 40))
SCORE_SEEDS, SIMULATE_SEEDS = 3_000_000, 3_100_000
#: the capacity scenarios' seeds: these plus 200,000
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
