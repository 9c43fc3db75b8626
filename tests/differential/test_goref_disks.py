"""kscore == the real kube-scheduler v1.23.6 (benchmarks/goref) with VolumeRestrictions
and the volume limits (NodeVolumeLimits, EBSLimits, GCEPDLimits, AzureDiskLimits):
random clusters with in-tree disks, CSI volumes, CSINodes and attach limits
(:mod:`tests.scenarios_disks`) under the default profile without VolumeBinding's filter
(being built elsewhere). In ``score``: every verdict count and FitError text, every
score; in whole ``simulate`` runs with Go's tie-breaks: the same, and every host.
``KSCORE_DIFF_DISK_SCENARIOS`` (default 40) scenarios each; ``-m slow``: 2,000 more each,
with larger clusters.
"""

from __future__ import annotations

import os

import pytest

from ..goref import goref_missing
from ..scenarios_disks import DISK_CONFIG, disk_scenario
from .storage_runs import differences

pytestmark = [
    pytest.mark.goref,
    pytest.mark.skipif(goref_missing() is not None, reason=str(goref_missing())),
]

N_SCENARIOS = int(os.environ.get("KSCORE_DIFF_DISK_SCENARIOS", 40))
SCORE_SEEDS, SIMULATE_SEEDS = 3_000_000, 3_100_000
SLOW = {"max_nodes": 12, "max_pending": 20}


def _check(tmp_path, seed: int, mode: str, **sizes) -> None:
    diffs = differences(tmp_path, seed, mode, disk_scenario(seed, **sizes), DISK_CONFIG)
    assert not diffs, f"disk scenario {mode} {seed}:\n" + "\n".join(diffs[:20])


@pytest.mark.parametrize("seed", range(N_SCENARIOS))
@pytest.mark.parametrize("mode", ["score", "simulate"])
def test_disk_plugins_equal_go(tmp_path, mode, seed):
    _check(tmp_path, (SCORE_SEEDS if mode == "score" else SIMULATE_SEEDS) + seed, mode)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(2_000))
@pytest.mark.parametrize("mode", ["score", "simulate"])
def test_many_more_disk_scenarios(tmp_path, mode, seed):
    base = SCORE_SEEDS if mode == "score" else SIMULATE_SEEDS
    _check(tmp_path, base + 50_000 + seed, mode, **SLOW)
