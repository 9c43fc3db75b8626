"""An FGD-style study (issue 26): the openb trace × 5 configurations × 10 seeds in
simulate mode, with kscore's sweep on one process, a pool and a local Ray, against the
real scheduler's time for the same runs.

    python benchmarks/fgd_study.py [--seeds 10] [--jobs 2] [--go-seeds 1] [--no-ray]

The FGD study (ATC'23) ran 1,020 experiments (configurations × traces × seeds) as
separate simulator processes of about 10 minutes each. Here: openb's default pod list
(6,090 pending pods after its Failed/Succeeded ones) on its 1,523 nodes, scheduled one
after the other (``mode: simulate``, Go's tie-breaks, ``tie_break: go-rand``) under five
KubeSchedulerConfiguration files: v1.23.6's defaults; NodeResourcesFit's MostAllocated;
its RequestedToCapacityRatio (a bin-packing shape); ``percentageOfNodesToScore: 100``;
MostAllocated without NodeResourcesBalancedAllocation. The whole study is timed as a
user runs it (``kscore sweep``'s ``api.sweep``: one process, ``--jobs`` processes, Ray
with ``--jobs`` CPUs); each run's own time is the sweep's ``seconds``. Go: ``goref
simbench --plugin-metrics-draw`` (the real scheduler, ``Schedule`` then assume per pod)
on the same cluster and configuration files, ``--go-seeds`` seeds each (a run takes
tens of seconds), µs per pod × the run's pods: a run's time. Prints Markdown tables.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.compare_go import machine  # noqa: E402
from benchmarks.datasets import OPENB, openb_missing  # noqa: E402

GOREF = ROOT / "benchmarks" / "goref" / "bin" / "goref"
HEAD = "apiVersion: kubescheduler.config.k8s.io/v1beta3\nkind: KubeSchedulerConfiguration\n"
_FIT = (
    "profiles:\n- schedulerName: default-scheduler\n  pluginConfig:\n  - name: NodeResourcesFit\n"
)
CONFIGS = {
    "default": "",
    "most-allocated": _FIT + "    args:\n      scoringStrategy:\n        type: MostAllocated\n",
    "requested-to-capacity": _FIT + (
        "    args:\n      scoringStrategy:\n        type: RequestedToCapacityRatio\n"
        "        requestedToCapacityRatio:\n          shape:\n"
        "          - {utilization: 0, score: 0}\n          - {utilization: 100, score: 10}\n"
    ),
    "score-all-nodes": "percentageOfNodesToScore: 100\n",
    "most-allocated-unbalanced": _FIT.replace(
        "  pluginConfig:\n",
        "  plugins:\n    score:\n      disabled:\n      - name: NodeResourcesBalancedAllocation\n"
        "  pluginConfig:\n",
    ) + "    args:\n      scoringStrategy:\n        type: MostAllocated\n",
}  # fmt: skip
#: the child: one sweep, timed from before kscore_fast's import
CHILD = """
import json, sys, time
t0 = time.perf_counter()
from kscore_fast import sweep
spec, engine, jobs = json.loads(sys.argv[1]), sys.argv[2], int(sys.argv[3])
options = {"one": {"jobs": 1}, "pool": {"jobs": jobs}, "ray": {"jobs": jobs, "ray": True}}
result = sweep(spec, **options[engine])
m = result.metrics
print(json.dumps({"wall": time.perf_counter() - t0, "config": m["config"].to_pylist(),
                  "seconds": m["seconds"].to_pylist(), "pods": m["pods"].to_pylist(),
                  "placed": m["placed"].to_pylist()}))
"""


def child(spec: dict, engine: str, jobs: int) -> dict:
    proc = subprocess.run([sys.executable, "-c", CHILD, json.dumps(spec), engine, str(jobs)],
                          capture_output=True, text=True, check=True)  # fmt: skip
    return json.loads(proc.stdout.splitlines()[-1])


def go_run_seconds(cluster: str, config: Path, seed: int, pods: int) -> float:
    out = subprocess.run(
        [str(GOREF), "simbench", cluster, "--config", str(config), "--seed", str(seed),
         "--plugin-metrics-draw", "--runs", "1", "--json"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    return json.loads(out.stdout)["minNsPerPod"] * pods / 1e9


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--go-seeds", type=int, default=1, help="Go runs per configuration")
    ap.add_argument("--no-ray", action="store_true")
    args = ap.parse_args()
    if openb_missing() is not None or not GOREF.exists():
        print(openb_missing() or f"{GOREF} missing: run benchmarks/goref/build.sh",
              file=sys.stderr)  # fmt: skip
        return 1
    from benchmarks.compare_simulate import openb_trace

    with tempfile.TemporaryDirectory(prefix="kscore-fgd-") as tmp:
        cluster = str(openb_trace(OPENB, None, Path(tmp)))
        files = {}
        for name, body in CONFIGS.items():
            files[name] = Path(tmp) / f"{name}.yaml"
            files[name].write_text(HEAD + body)
        spec = {"snapshots": [cluster], "configs": [str(f) for f in files.values()],
                "seeds": list(range(args.seeds)), "mode": "simulate",
                "tie_break": "go-rand"}  # fmt: skip
        small = {**spec, "seeds": [0]}
        child(small, "one", 1)  # (the kernel cache warm and the files in the page cache)
        engines = ["one", "pool"] + ([] if args.no_ray else ["ray"])
        studies = {engine: child(spec, engine, args.jobs) for engine in engines}
        first = studies["one"]
        pods = first["pods"][0]
        own = {}
        for config, seconds in zip(first["config"], first["seconds"], strict=True):
            own.setdefault(Path(config).stem, []).append(seconds)
        go = {}
        t0 = time.perf_counter()
        for name, path in files.items():
            go[name] = min(go_run_seconds(cluster, path, seed, pods)
                           for seed in range(args.go_seeds))  # fmt: skip
        go_wall = time.perf_counter() - t0
    runs = len(CONFIGS) * args.seeds
    print(f"{machine()}; openb: {pods} pending pods a run, {len(CONFIGS)} configurations × "
          f"{args.seeds} seeds = {runs} simulate runs\n")  # fmt: skip
    print("| engine | the whole study | per run |")
    print("|---|---:|---:|")
    names = {"one": "kscore, one process", "pool": f"kscore, {args.jobs} processes",
             "ray": f"kscore, Ray with {args.jobs} CPUs"}  # fmt: skip
    for engine, got in studies.items():
        print(f"| {names[engine]} | {got['wall']:.1f} s | {got['wall'] / runs * 1e3:.0f} ms |")
    total_go = sum(go.values()) * args.seeds
    print(f"| Go (goref simbench), estimated from {args.go_seeds} seed(s) a configuration "
          f"({go_wall:.0f} s measured) | {total_go / 60:.1f} min | "
          f"{total_go / runs:.1f} s |\n")  # fmt: skip
    print("| configuration | Go s/run | kscore s/run (own, mean) | ratio |")
    print("|---|---:|---:|---:|")
    for name in CONFIGS:
        mean = sum(own[name]) / len(own[name])
        print(f"| {name} | {go[name]:.1f} | {mean:.3f} | {go[name] / mean:.0f}× |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
