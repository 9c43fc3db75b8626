"""The JIT policy: one signature per kernel, serial and parallel variants kept apart."""

from __future__ import annotations

import os
import threading
import time

import pytest

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


def test_a_stop_signal_during_a_compilation_lands_once_the_kernel_is_ready(monkeypatch):
    """SIGINT arriving while numba compiles (issue 28, item 7): held until the kernel is
    compiled, then raised, so it is neither swallowed by numba's callbacks nor leaves a
    half-built kernel behind."""
    import signal
    import threading
    import time

    import numpy as np
    import pytest

    from kscore_fast.framework import search

    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signals reach the main thread only")
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    real = _jit._Dispatcher._compile

    def compile_interrupted(self, sig):
        os.kill(os.getpid(), signal.SIGINT)  # arrives in the middle of the compilation
        time.sleep(0.05)
        return real(self, sig)

    monkeypatch.setattr(_jit._Dispatcher, "_compile", compile_interrupted)
    kernel = _jit._jitted(search.windows_pod.py_func, cache=False)
    args = (np.int64(-1), np.int64(3), np.int64(4), np.int64(6), np.zeros(4, np.int32))
    try:
        with pytest.raises(KeyboardInterrupt):
            kernel(*args)
    finally:
        signal.signal(signal.SIGINT, previous)
    assert len(kernel.overloads) == 1  # compiled whole before the interrupt was raised
    monkeypatch.setattr(_jit._Dispatcher, "_compile", real)
    assert kernel(*args) == (4, 1)


def test_run_threaded_runs_the_first_call_itself_and_ends_every_call():
    caller = threading.get_ident()
    ran = []

    def part(i, fail=False, delay=0.0):
        def call():
            time.sleep(delay)
            ran.append((i, threading.get_ident()))
            if fail:
                raise ValueError(i)
            return i * 10

        return call

    assert _jit.run_threaded([part(0), part(1), part(2)]) == [0, 10, 20]
    assert dict(ran)[0] == caller and dict(ran)[1] != caller
    ran.clear()
    # the first call fails at once: the exception comes once the slow others have ended
    with pytest.raises(ValueError, match="0"):
        _jit.run_threaded([part(0, fail=True), part(1, delay=0.2), part(2, delay=0.2)])
    assert sorted(i for i, _ in ran) == [0, 1, 2]
