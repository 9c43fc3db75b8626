"""What one call of the step API costs a simulator that drives kscore pod by pod.

    python benchmarks/step_latency.py [--pods 600] [--json FILE]

On openb's 1,523 nodes (imported from the trace, see ``benchmarks/datasets.py``) with the
default profile and ``tie_break="go-rand"``, times each call on its own, from Python:
``Simulator.schedule_and_bind`` on the first ``--pods`` pending pods in turn,
``Simulator.schedule(pod, scores="none")`` on as many others (nothing bound), then
``Simulator.delete`` of the pods bound first. Also ``run()`` on the same pods, in one
compiled loop, for the per-pod cost without Python between pods. Prints the median and
the 90th percentile of each, in µs (kernels loaded before timing: compile time is
``benchmarks/startup.py``'s).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.compare_simulate import openb_trace  # noqa: E402
from benchmarks.datasets import OPENB, openb_missing  # noqa: E402
from kscore_fast import Simulator, load_cluster  # noqa: E402


def timed(call: Callable[[str], object], pods: Sequence[str]) -> list[float]:
    """Each call's wall time, µs."""
    out = []
    for pod in pods:
        t0 = time.perf_counter()
        call(pod)
        out.append((time.perf_counter() - t0) * 1e6)
    return out


def measure(cluster_dir: Path, n: int) -> dict[str, dict[str, float]]:
    cluster = load_cluster([cluster_dir])
    sim = Simulator(cluster, seed=1, tie_break="go-rand")
    pods = sim.pods
    if len(pods) < 2 * n + 1:
        raise SystemExit(f"step_latency: {len(pods)} pending pods, {2 * n + 1} needed")
    sim.copy().run(pods[:1])  # kernels loaded, states prepared
    bound, looked_at = pods[1 : n + 1], pods[n + 1 : 2 * n + 1]
    runs = {
        "schedule_and_bind": timed(sim.schedule_and_bind, bound),
        "schedule(scores='none')": timed(lambda p: sim.schedule(p, scores="none"), looked_at),
        "delete": timed(sim.delete, bound),
    }
    other = Simulator(cluster, seed=1, tie_break="go-rand")
    t0 = time.perf_counter()
    other.run(bound)
    whole = (time.perf_counter() - t0) * 1e6 / n
    out = {k: {"median": statistics.median(v), "p90": statistics.quantiles(v, n=10)[-1]}
           for k, v in runs.items()}  # fmt: skip
    out["run() per pod"] = {"median": whole, "p90": whole}
    return out


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pods", type=int, default=600)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    missing = openb_missing()
    if missing:
        print(f"step_latency: {missing}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        cluster_dir = openb_trace(OPENB, 4 * args.pods, Path(tmp))  # (some are bound)
        out = measure(cluster_dir, args.pods)
    print("| call (openb, 1,523 nodes) | median µs | p90 µs |")
    print("|---|---:|---:|")
    for name, v in out.items():
        print(f"| {name} | {v['median']:.1f} | {v['p90']:.1f} |")
    if args.json:
        args.json.write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
