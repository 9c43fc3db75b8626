"""A sweep's throughput on one process, a pool of processes and Ray, with its setup
cost apart from the cost of a run.

    python benchmarks/sweep_throughput.py [DIR] [--runs 40] [--jobs 2] [--no-ray]

``DIR``: a cluster (default: openb's full node list and its ``default`` pod list,
imported into a temporary folder, ``KSCORE_OPENB``; else ``data/embedded``). Each run
simulates its pending pods, with the default profile or NodeResourcesFit's
MostAllocated, a seed each. Every engine runs the sweep in a fresh process, timed from
before ``import kscore_fast``, with the time of each run's result (the sweep's
``progress``): the first result comes after the setup (imports, starting processes or
Ray, putting the snapshot in its object store, loading the kernels and the snapshot in
each worker) and a first run; from the first result to the last, results come at the
engine's marginal cost of a run; after the last, the engine stops (a pool's processes, a
local Ray). The kernel cache is warmed first, so no engine compiles, and each engine
sweeps once (2 runs) before it is timed. "own" is a run's own time as its worker
measured it (the sweep's ``seconds`` column, mean): with ``N`` workers, a marginal cost
of own / N says that a run costs its own work and nothing more. The first line says how
much of ``N`` cores ``N`` processes at once get: a pure-Python loop's time alone over its
time with ``N - 1`` others beside it, × N.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.compare_go import machine  # noqa: E402
from benchmarks.datasets import OPENB, openb_missing  # noqa: E402

MOST = {"name": "most-allocated", "patch": {"profiles": [{"pluginConfig": [{
    "name": "NodeResourcesFit",
    "args": {"scoringStrategy": {"type": "MostAllocated"}}}]}]}}  # fmt: skip
#: the child: one sweep, timed from before kscore_fast's import, each result's time
CHILD = """
import json, sys, time
t0 = time.perf_counter()
from kscore_fast import sweep
spec, engine, jobs = json.loads(sys.argv[1]), sys.argv[2], int(sys.argv[3])
options = {"one": {"jobs": 1}, "pool": {"jobs": jobs}, "ray": {"jobs": jobs, "ray": True}}
done = []
result = sweep(spec, progress=lambda n: done.append(time.perf_counter() - t0), **options[engine])
wall = time.perf_counter() - t0
print(json.dumps({"wall": wall, "done": done, "seconds": result.metrics["seconds"].to_pylist(),
                  "pods": result.metrics["pods"].to_pylist()}))
"""


def spec(cluster: str, runs: int) -> dict:
    """``runs`` simulate runs of ``cluster``: two configurations × ``runs / 2`` seeds."""
    return {"snapshots": [cluster], "configs": ["default", MOST],
            "seeds": list(range(1, runs // 2 + 1)), "mode": "simulate"}  # fmt: skip


def child(doc: dict, engine: str, jobs: int) -> dict:
    proc = subprocess.run([sys.executable, "-c", CHILD, json.dumps(doc), engine, str(jobs)],
                          capture_output=True, text=True, check=True)  # fmt: skip
    return json.loads(proc.stdout.splitlines()[-1])


def _loop(n: int) -> float:
    t0 = time.perf_counter()
    x = 0
    for i in range(n):
        x += i * i
    return time.perf_counter() - t0


def parallel_speedup(jobs: int, n: int = 10_000_000) -> float:
    """How many times one process's work ``jobs`` processes at once do."""
    alone = _loop(n)
    with multiprocessing.get_context("spawn").Pool(jobs) as pool:
        together = pool.map(_loop, [n] * jobs)
    return jobs * alone / max(together)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("cluster", nargs="?", help="a cluster directory (default: openb)")
    ap.add_argument("--runs", type=int, default=40, help="runs of the sweep (even)")
    ap.add_argument("--jobs", type=int, default=2, help="processes, and a local Ray's CPUs")
    ap.add_argument("--no-ray", action="store_true", help="leave Ray out")
    args = ap.parse_args()
    if args.runs < 4 or args.runs % 2:
        ap.error("--runs: an even number, at least 4")
    with tempfile.TemporaryDirectory(prefix="kscore-sweep-") as tmp:
        cluster = args.cluster
        if cluster is None and openb_missing() is None:
            from benchmarks.compare_simulate import openb_trace

            cluster = str(openb_trace(OPENB, None, Path(tmp)))
        cluster = cluster or str(ROOT / "data" / "embedded")
        child(spec(cluster, 2), "one", 1)  # (the kernel cache warm: no engine compiles)
        speedup = parallel_speedup(args.jobs)
        engines = ["one", "pool"] + ([] if args.no_ray else ["ray"])
        rows = []
        for engine in engines:
            child(spec(cluster, 2), engine, args.jobs)  # (its files in the page cache)
            got = child(spec(cluster, args.runs), engine, args.jobs)
            done, n, pods = got["done"], args.runs, got["pods"][0]
            marginal = (done[-1] - done[0]) / (n - 1)
            own = sum(got["seconds"]) / n
            rows.append((engine, got["wall"], done[0], marginal, 1 / marginal,
                         marginal / pods * 1e6, own, got["wall"] - done[-1]))  # fmt: skip
    print(f"{machine()} ({args.jobs} processes at once: {speedup:.2f}x one); {cluster}: "
          f"{pods} pending pods a run, {args.runs} runs, -j {args.jobs}\n")  # fmt: skip
    print("| engine | the sweep | first result at | a run, marginal | runs/s, marginal "
          "| µs/pod, marginal | a run's own time | stopping |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|")
    names = {"one": "one process", "pool": f"{args.jobs} processes",
             "ray": f"Ray, {args.jobs} CPUs"}  # fmt: skip
    for engine, wall, first, marginal, rate, us, own, stop in rows:
        print(f"| {names[engine]} | {wall:.2f} s | {first:.2f} s | {marginal * 1e3:.0f} ms | "
              f"{rate:.1f} | {us:.1f} | {own * 1e3:.0f} ms | {stop:.2f} s |")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
