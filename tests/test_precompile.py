"""Compiling ahead (``kscore_fast/precompile.py``): the recorded signatures match what the
workloads compile, processes share kernels through lock files, a cold command starts one
helper and stops it, a warm one checks nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kscore_fast import _jit, precompile
from kscore_fast.framework import abi
from kscore_fast.warmup import USES

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("use", USES)
def test_signatures_json_is_what_the_workload_compiles(use):
    """Stale after a kernel changes: ``python -m kscore_fast.precompile --record``."""
    done = subprocess.run(
        [sys.executable, "-m", precompile.MODULE, "--record-use", use],
        capture_output=True, text=True, timeout=900, cwd=ROOT,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    recorded = json.loads(precompile.SIGNATURES.read_text())[use]
    assert sorted(json.loads(done.stdout)) == sorted(recorded)  # (the order only guides)


def test_every_recorded_kernel_and_signature_resolves():
    jobs = precompile.kernel_jobs(USES)
    assert len(jobs) == len(set(jobs)) > 20
    for _, module, qualname, sig in jobs:
        kernel = precompile._kernel(module, qualname)
        assert kernel is not None, (module, qualname)
        assert len(precompile._signature(sig)) == len(kernel.py_func.__code__.co_varnames[
            : kernel.py_func.__code__.co_argcount])  # fmt: skip


def test_jobs_cover_the_profile_and_its_uses():
    jobs = precompile.job_list(["score"], ["NodeName", "NodeResourcesFit"])
    entries = [j for j in jobs if j[0] == "entry"]
    names = ("NodeName", "NodeResourcesFit")
    batch = (abi.FILTER, abi.SCORE, abi.NORMALIZE, abi.SCORE_NORMALIZE)  # (the last: a no-op
    # for plugins without ``score_normalize_pod``, ``cached``)
    assert entries == [("entry", name, column) for name in names for column in batch]
    modules = {j[1] for j in jobs if j[0] == "kernel"}
    assert any(m.startswith("kscore_fast.plugins.noderesources") for m in modules)
    assert not any(m.startswith("kscore_fast.plugins.selectorspread") for m in modules)
    assert all(precompile.cached(("entry", name, abi.SCORE_NORMALIZE)) for name in names)
    seq = {j[2] for j in precompile.job_list(["simulate"], ["NodeName"]) if j[0] == "entry"}
    assert seq == {abi.FILTER, abi.SCORE_SERIAL, abi.NORMALIZE, abi.ASSUME, abi.REMOVE}


@pytest.mark.parametrize("n", [1, 2, 3])
def test_each_process_takes_every_job_in_its_own_order(n):
    jobs = [("kernel", str(i)) for i in range(10)]
    orders = [precompile.rotated(jobs, k, n) for k in range(n)]
    for order in orders:
        assert sorted(order) == sorted(jobs)
    assert orders[0] == jobs
    if n > 1:
        assert orders[-1] == jobs[::-1]  # a cold start's helper works from the end


def test_a_kernel_lock_makes_the_second_process_wait(tmp_path):
    lock = tmp_path / "k.nbi.lock"
    script = (
        "import sys, time\n"
        "from kscore_fast._jit import _file_lock\n"
        f"with _file_lock({str(lock)!r}):\n"
        "    print('locked', flush=True)\n"
        "    time.sleep(1.5)\n"
    )
    holder = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True,
                              cwd=ROOT)  # fmt: skip
    assert holder.stdout.readline().strip() == "locked"
    t0 = time.monotonic()
    with _jit._file_lock(str(lock)):
        waited = time.monotonic() - t0
    holder.wait()
    holder.stdout.close()
    assert waited > 0.5


def test_a_lock_that_cannot_be_created_does_not_stop_the_work(tmp_path):
    with _jit._file_lock(str(tmp_path / "missing" / "k.lock")):
        pass


class _FakeProcess:
    def __init__(self) -> None:
        self.stopped = False

    def poll(self):
        return None

    def terminate(self) -> None:
        self.stopped = True

    def wait(self, timeout=None):
        return 0


def test_a_cold_start_runs_one_helper_and_stops_it(monkeypatch, tmp_path):
    started, told = [], []
    proc = _FakeProcess()
    monkeypatch.setattr(precompile, "cached", lambda job: bool(started))
    monkeypatch.setattr(precompile, "spawn", lambda args: started.append(args) or proc)
    monkeypatch.setattr(precompile, "_warm_marker", lambda use, plugins: str(tmp_path / "m"))
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    with precompile.helper("score", ["NodeName"], told.append) as cold:
        assert cold and not proc.stopped
    assert proc.stopped
    assert started == [["--use", "score", "--plugins", "NodeName", "--part", "1/2"]]
    assert told == ["compiling kernels for first use (cached afterwards)…"]
    assert (tmp_path / "m").exists()  # every job is cached now: the next start checks nothing
    monkeypatch.setattr(precompile, "cached", lambda job: pytest.fail("a warm start checks"))
    with precompile.helper("score", ["NodeName"], told.append) as cold:
        assert not cold
    assert len(started) == 1 and len(told) == 1


def test_a_start_missing_only_parallel_variants_says_nothing(monkeypatch, tmp_path):
    """After a small first run, only the kernels' parallel variants (for large batches)
    may be missing: the helper goes on compiling them, and no line says "compiling"."""
    started, told = [], []
    monkeypatch.setattr(precompile, "cached", lambda job: not precompile._parallel(job))
    monkeypatch.setattr(precompile, "spawn", lambda args: started.append(args) or _FakeProcess())
    monkeypatch.setattr(precompile, "_warm_marker", lambda use, plugins: str(tmp_path / "m"))
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    assert any(precompile._parallel(j) for j in precompile.job_list(["score"], ["NodeName"]))
    with precompile.helper("score", ["NodeName"], told.append) as cold:
        assert cold
    assert len(started) == 1 and told == []


def test_one_core_runs_no_helper(monkeypatch, tmp_path):
    monkeypatch.setattr(precompile, "cached", lambda job: False)
    monkeypatch.setattr(precompile, "spawn", lambda args: pytest.fail("no second core"))
    monkeypatch.setattr(precompile, "_warm_marker", lambda use, plugins: str(tmp_path / "m"))
    monkeypatch.setattr(os, "cpu_count", lambda: 1)
    with precompile.helper("simulate", ["NodeName"], None) as cold:
        assert cold
    assert not (tmp_path / "m").exists()


def test_a_serial_score_served_by_the_score_entry_counts_as_cached(tmp_path):
    """A plugin without ``score_pod_serial`` scores serially through its ``SCORE`` entry
    point: once that is compiled, the ``SCORE_SERIAL`` job is cached too (else no
    ``simulate`` start was ever warm: each checked every job again)."""
    code = (
        "from kscore_fast import precompile as p\n"
        "from kscore_fast.framework import abi\n"
        "job = ('entry', 'ImageLocality', abi.SCORE_SERIAL)\n"
        "before = p.cached(job)\n"
        "p.run_job(job)\n"
        "print(before, p.cached(job), p.cached(('entry', 'ImageLocality', abi.SCORE)))\n"
    )
    env = {**os.environ, "KSCORE_CACHE_DIR": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, timeout=600, cwd=ROOT)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.split() == ["False", "True", "True"]
