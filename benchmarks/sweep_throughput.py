"""A sweep's throughput on one process, a pool of processes and Ray, with its setup
cost apart from the cost of a run.

    python benchmarks/sweep_throughput.py [DIR] [--runs 20] [--jobs 2] [--no-ray]

``DIR``: a cluster (default: openb's full node list and its ``default`` pod list,
imported into a temporary folder, ``KSCORE_OPENB``; else ``data/embedded``). Each run
simulates its pending pods (the default profile, or NodeResourcesFit's MostAllocated, a
seed each). Every engine sweeps once with 1 run and once with ``--runs`` runs, each in a
fresh process timed from before ``import kscore_fast`` to the sweep's result (a local
Ray started and stopped inside it): the difference, over ``runs - 1``, is the marginal
cost of a run on that engine, and what is left of the 1-run sweep is setup (imports,
starting processes or Ray, loading kernels and the snapshot). The kernel cache is
warmed first, so no engine compiles. "own" is the runs' own time as each worker
measured it (the sweep's ``seconds`` column), mean per run: with ``N`` workers, a
marginal cost of about own / N says that a run costs its own work and nothing more.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.compare_go import machine  # noqa: E402
from benchmarks.datasets import OPENB, openb_missing  # noqa: E402

MOST = {"name": "most-allocated", "patch": {"profiles": [{"pluginConfig": [{
    "name": "NodeResourcesFit",
    "args": {"scoringStrategy": {"type": "MostAllocated"}}}]}]}}  # fmt: skip
#: the child: one sweep, timed from before kscore_fast's import
CHILD = """
import json, sys, time
t0 = time.perf_counter()
from kscore_fast import sweep
spec, engine, jobs = json.loads(sys.argv[1]), sys.argv[2], int(sys.argv[3])
options = {"one": {"jobs": 1}, "pool": {"jobs": jobs}, "ray": {"jobs": jobs, "ray": True}}
result = sweep(spec, **options[engine])
wall = time.perf_counter() - t0
print(json.dumps({"wall": wall, "seconds": result.metrics.column("seconds").to_pylist(),
                  "pods": result.metrics.column("pods").to_pylist()}))
"""


def spec(cluster: str, runs: int) -> dict:
    """``runs`` simulate runs of ``cluster``: one, or two configurations × ``runs / 2``
    seeds."""
    if runs == 1:
        return {"snapshots": [cluster], "configs": ["default"], "seeds": [1], "mode": "simulate"}
    return {"snapshots": [cluster], "configs": ["default", MOST],
            "seeds": list(range(1, runs // 2 + 1)), "mode": "simulate"}  # fmt: skip


def child(doc: dict, engine: str, jobs: int) -> dict:
    proc = subprocess.run([sys.executable, "-c", CHILD, json.dumps(doc), engine, str(jobs)],
                          capture_output=True, text=True, check=True)  # fmt: skip
    return json.loads(proc.stdout.splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("cluster", nargs="?", help="a cluster directory (default: openb)")
    ap.add_argument("--runs", type=int, default=20, help="runs of the larger sweep (even)")
    ap.add_argument("--jobs", type=int, default=2, help="processes, and a local Ray's CPUs")
    ap.add_argument("--no-ray", action="store_true", help="leave Ray out")
    args = ap.parse_args()
    if args.runs < 2 or args.runs % 2:
        ap.error("--runs: an even number, at least 2")
    with tempfile.TemporaryDirectory(prefix="kscore-sweep-") as tmp:
        cluster = args.cluster
        if cluster is None and openb_missing() is None:
            from benchmarks.compare_simulate import openb_trace

            cluster = str(openb_trace(OPENB, None, Path(tmp)))
        cluster = cluster or str(ROOT / "data" / "embedded")
        small, large = spec(cluster, 1), spec(cluster, args.runs)
        child(small, "one", 1)  # (the kernel cache warm: no engine compiles)
        child({**small, "configs": [MOST]}, "one", 1)
        engines = ["one", "pool"] + ([] if args.no_ray else ["ray"])
        rows = []
        for engine in engines:
            one, many = child(small, engine, args.jobs), child(large, engine, args.jobs)
            n, pods = len(many["seconds"]), many["pods"][0]
            marginal = (many["wall"] - one["wall"]) / (n - 1)
            own = sum(many["seconds"]) / n
            rows.append((engine, one["wall"], many["wall"], one["wall"] - marginal, marginal,
                         n / many["wall"], 1 / marginal, marginal / pods * 1e6, own))  # fmt: skip
    print(f"{machine()}; {cluster}: {pods} pending pods a run, {args.runs} runs, -j {args.jobs}\n")
    print(
        "| engine | 1 run | 20 runs | setup | a run, marginal | runs/s (20 runs) "
        "| runs/s, marginal | µs/pod, marginal | a run's own time |".replace("20", str(n))
    )
    print("|---|---|---|---|---|---|---|---|---|")
    names = {
        "one": "one process",
        "pool": f"{args.jobs} processes",
        "ray": f"Ray, {args.jobs} CPUs",
    }
    for engine, t1, tn, setup, marginal, rate, steady, us, own in rows:
        print(f"| {names[engine]} | {t1:.2f} s | {tn:.2f} s | {setup:.2f} s | "
              f"{marginal * 1e3:.0f} ms | {rate:.1f} | {steady:.1f} | {us:.1f} | "
              f"{own * 1e3:.0f} ms |")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
