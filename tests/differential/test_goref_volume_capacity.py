"""kscore == the real kube-scheduler v1.23.6 (benchmarks/goref) with VolumeBinding's
storage capacity check: random clusters of :mod:`tests.scenarios_volume_capacity` (CSI
drivers with and without ``storageCapacity``, CSIStorageCapacity objects per topology
segment) under the default profile without the volume limits and VolumeRestrictions. In
``score``: every verdict count, FitError text and score; in whole ``simulate`` runs with
Go's tie-breaks: the same, and every host. ``KSCORE_DIFF_VOLUME_SCENARIOS`` (default 40)
scenarios each; ``-m slow``: 1,000 more each, with larger clusters.
"""

from __future__ import annotations

import os

import pytest

from ..goref import goref_missing
from ..scenarios_volume_binding import VOLUME_BINDING_CONFIG
from ..scenarios_volume_capacity import capacity_scenario
from .storage_runs import differences

pytestmark = [
    pytest.mark.goref,
    pytest.mark.skipif(goref_missing() is not None, reason=str(goref_missing())),
]

N_SCENARIOS = int(os.environ.get("KSCORE_DIFF_VOLUME_SCENARIOS", 40))
SCORE_SEEDS, SIMULATE_SEEDS = 3_200_000, 3_300_000
SLOW = {"max_nodes": 30, "max_pending": 20}


def _check(tmp_path, seed: int, mode: str, **sizes) -> None:
    diffs = differences(tmp_path, seed, mode, capacity_scenario(seed, **sizes),
                        VOLUME_BINDING_CONFIG)  # fmt: skip
    assert not diffs, f"volume capacity scenario {mode} {seed}:\n" + "\n".join(diffs[:20])


@pytest.mark.parametrize("seed", range(N_SCENARIOS))
@pytest.mark.parametrize("mode", ["score", "simulate"])
def test_volume_capacity_equals_go(tmp_path, mode, seed):
    _check(tmp_path, (SCORE_SEEDS if mode == "score" else SIMULATE_SEEDS) + seed, mode)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(1_000))
@pytest.mark.parametrize("mode", ["score", "simulate"])
def test_many_more_volume_capacity_scenarios(tmp_path, mode, seed):
    base = SCORE_SEEDS if mode == "score" else SIMULATE_SEEDS
    _check(tmp_path, base + 50_000 + seed, mode, **SLOW)
