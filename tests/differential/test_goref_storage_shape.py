"""kscore == the real kube-scheduler v1.23.6 (benchmarks/goref) on small clusters of the
storage-heavy benchmark's shape (``benchmarks/compare_storage.py``: every pod with 1-3
claims, half of them unbound WaitForFirstConsumer ones, bound zonal CSI volumes, a pool
of available volumes, CSI attach limits; here low ones, so that nodes fill) under the
whole default profile, in ``score`` and in whole ``simulate`` runs with Go's tie-breaks:
where pods of different volumes share filter classes, and VolumeBinding decides without
matching. ``KSCORE_DIFF_STORAGE_SHAPES`` (default 10) scenarios each; ``-m slow``: 200
more each, larger.
"""

from __future__ import annotations

import os
import random

import pytest

from benchmarks.compare_storage import config, storage_cluster

from ..goref import goref_missing
from .storage_runs import differences

pytestmark = [
    pytest.mark.goref,
    pytest.mark.skipif(goref_missing() is not None, reason=str(goref_missing())),
]

N_SCENARIOS = int(os.environ.get("KSCORE_DIFF_STORAGE_SHAPES", 10))


def _check(tmp_path, seed: int, mode: str, max_nodes: int, max_pods: int) -> None:
    rng = random.Random(seed)
    objs = storage_cluster(rng.randint(1, max_nodes), rng.randint(1, max_pods),
                           rng.randint(0, 8), seed, attach=(1, 5))  # fmt: skip
    doc = config(rng.choice((100, 100, 0, 30)))
    diffs = differences(tmp_path, seed, mode, objs, doc)
    assert not diffs, f"storage shape {mode} {seed}:\n" + "\n".join(diffs[:20])


@pytest.mark.parametrize("seed", range(N_SCENARIOS))
@pytest.mark.parametrize("mode", ["score", "simulate"])
def test_storage_shape_equals_go(tmp_path, mode, seed):
    _check(tmp_path, 4_000_000 + seed, mode, 12, 16)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(200))
@pytest.mark.parametrize("mode", ["score", "simulate"])
def test_many_more_storage_shapes(tmp_path, mode, seed):
    _check(tmp_path, 4_100_000 + seed, mode, 60, 80)
