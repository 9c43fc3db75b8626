"""kscore == the real kube-scheduler v1.23.6 (benchmarks/goref) with VolumeZone: random
clusters with storage objects (:mod:`tests.scenarios_volumes`) under the default profile
with, of the volume plugins, only VolumeZone (the others are compared in
``test_goref_volumebinding`` and ``test_goref_disks``). In ``score``: every verdict count
and FitError text, every score; in whole ``simulate`` runs with Go's tie-breaks: the same,
and every host.
``KSCORE_DIFF_VOLUME_SCENARIOS`` (default 40) scenarios each; ``-m slow``: 2,000 more each,
with larger clusters.
"""

from __future__ import annotations

import os

import pytest

from ..goref import goref_missing
from ..scenarios_volumes import VOLUME_ZONE_CONFIG, volume_scenario
from .storage_runs import differences

pytestmark = [
    pytest.mark.goref,
    pytest.mark.skipif(goref_missing() is not None, reason=str(goref_missing())),
]

N_SCENARIOS = int(os.environ.get("KSCORE_DIFF_VOLUME_SCENARIOS", 40))
SCORE_SEEDS, SIMULATE_SEEDS = 2_000_000, 2_100_000
SLOW = {"max_nodes": 30, "max_pending": 20}


def _check(tmp_path, seed: int, mode: str, **sizes) -> None:
    diffs = differences(tmp_path, seed, mode, volume_scenario(seed, **sizes), VOLUME_ZONE_CONFIG)
    assert not diffs, f"volume scenario {mode} {seed}:\n" + "\n".join(diffs[:20])


@pytest.mark.parametrize("seed", range(N_SCENARIOS))
@pytest.mark.parametrize("mode", ["score", "simulate"])
def test_volume_zone_equals_go(tmp_path, mode, seed):
    _check(tmp_path, (SCORE_SEEDS if mode == "score" else SIMULATE_SEEDS) + seed, mode)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(2_000))
@pytest.mark.parametrize("mode", ["score", "simulate"])
def test_many_more_volume_scenarios(tmp_path, mode, seed):
    base = SCORE_SEEDS if mode == "score" else SIMULATE_SEEDS
    _check(tmp_path, base + 50_000 + seed, mode, **SLOW)
