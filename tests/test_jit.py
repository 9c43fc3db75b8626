"""The JIT policy: one signature per kernel, serial and parallel variants kept apart."""

from __future__ import annotations

import os

from kscore_fast import _jit
from kscore_fast.api import load_cluster, score
from kscore_fast.warmup import warmup

from .scenarios import scenario


def test_parallel_variant_is_compiled_and_cached_separately():
    # numba's disk cache is keyed by qualified name: the parallel twin needs its own
    for dual in {k for k in _jit.DUALS}:
        assert dual.parallel.py_func.__qualname__ == dual.serial.py_func.__qualname__ + "_parallel"
        assert dual.parallel.targetoptions.get("parallel") is True
        assert not dual.serial.targetoptions.get("parallel")
        if _jit.CACHE.directory is not None:  # one index file each, in the same directory
            serial, parallel = dual.serial.index_path(), dual.parallel.index_path()
            assert os.path.dirname(serial) == os.path.dirname(parallel)
            assert serial != parallel


def test_parallel_and_serial_paths_agree(monkeypatch):
    results = []
    for threshold in (1 << 60, 0):  # never parallel, always parallel
        monkeypatch.setattr(_jit, "PARALLEL_MIN_WORK", threshold)
        results.append(
            [
                score(load_cluster(objects=scenario(seed, max_nodes=150)), seed=3).to_dict()
                for seed in range(40)
            ]
        )
    assert results[0] == results[1]


def test_every_kernel_has_exactly_one_signature():
    """No kernel is recompiled for drifting dtypes (after the whole default workload)."""
    warmup()
    for seed in range(20):
        score(load_cluster(objects=scenario(seed)), plugins="SelectorSpread=2", scores="top:2")
    for kernel in _jit.REGISTERED:
        assert len(kernel.signatures) <= 1, (kernel.py_func.__qualname__, kernel.signatures)
