"""kscore == the real kube-scheduler v1.23.6 (benchmarks/goref) with VolumeRestrictions
and the volume limits (NodeVolumeLimits, EBSLimits, GCEPDLimits, AzureDiskLimits):
random clusters with in-tree disks, CSI volumes, CSINodes and attach limits
(:mod:`tests.scenarios_disks`) under the whole default profile, VolumeBinding included.
In ``score``: every verdict count and FitError text, every
score; in whole ``simulate`` runs with Go's tie-breaks: the same, and every host (also on
crowded clusters, where pods preempt); ``score --explain`` on crowded clusters:
DefaultPreemption's candidates and victims. ``KSCORE_DIFF_DISK_SCENARIOS`` (default 40)
scenarios each (20 crowded runs); ``-m slow``: 2,000 more of each, larger.
"""

from __future__ import annotations

import os

import pytest
import yaml

from ..goref import goref_missing
from ..scenarios_disks import DISK_CONFIG, disk_scenario
from .storage_runs import differences
from .test_goref_preemption import explain_differences

pytestmark = [
    pytest.mark.goref,
    pytest.mark.skipif(goref_missing() is not None, reason=str(goref_missing())),
]

N_SCENARIOS = int(os.environ.get("KSCORE_DIFF_DISK_SCENARIOS", 40))
SCORE_SEEDS, SIMULATE_SEEDS, EXPLAIN_SEEDS = 3_000_000, 3_100_000, 3_200_000
CROWDED_SEEDS = 3_300_000
SLOW = {"max_nodes": 12, "max_pending": 20}


def _check(tmp_path, seed: int, mode: str, **sizes) -> None:
    diffs = differences(tmp_path, seed, mode, disk_scenario(seed, **sizes), DISK_CONFIG)
    assert not diffs, f"disk scenario {mode} {seed} {sizes}:\n" + "\n".join(diffs[:20])


@pytest.mark.parametrize("seed", range(N_SCENARIOS))
@pytest.mark.parametrize("mode", ["score", "simulate"])
def test_disk_plugins_equal_go(tmp_path, mode, seed):
    _check(tmp_path, (SCORE_SEEDS if mode == "score" else SIMULATE_SEEDS) + seed, mode)


@pytest.mark.parametrize("seed", range(N_SCENARIOS // 2))
def test_crowded_disks_simulate_equal_go(tmp_path, seed):
    """1-2 nodes full of disks: conflicts, full attach limits, and the preemptions they
    lead to in a whole run."""
    _check(tmp_path, CROWDED_SEEDS + seed, "simulate", crowded=True)


@pytest.mark.parametrize("seed", range(N_SCENARIOS))
def test_disk_preemption_equals_go(tmp_path, seed):
    """``score --explain`` on crowded scenarios: DefaultPreemption's candidates and victims
    where a disk conflict or an attach limit rejects a pod (both ``Unschedulable``)."""
    config = tmp_path / "config.yaml"
    config.write_text(yaml.safe_dump(DISK_CONFIG))
    objs = disk_scenario(EXPLAIN_SEEDS + seed, crowded=True)
    diffs = explain_differences(tmp_path, EXPLAIN_SEEDS + seed, objs, config)
    assert not diffs, f"disk scenario explain {seed}:\n" + "\n".join(diffs[:20])


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(2_000))
@pytest.mark.parametrize("mode", ["score", "simulate", "crowded", "explain"])
def test_many_more_disk_scenarios(tmp_path, mode, seed):
    if mode == "explain":
        test_disk_preemption_equals_go(tmp_path, 50_000 + seed)
    elif mode == "crowded":
        _check(tmp_path, CROWDED_SEEDS + 50_000 + seed, "simulate", crowded=True)
    else:
        base = SCORE_SEEDS if mode == "score" else SIMULATE_SEEDS
        _check(tmp_path, base + 50_000 + seed, mode, **SLOW)
