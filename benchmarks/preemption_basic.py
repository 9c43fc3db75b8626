"""DefaultPreemption on scheduler_perf's PreemptionBasic shape, Go and kscore_fast in one run.

    python benchmarks/preemption_basic.py [--nodes 500] [--init-pods 2000]
                                          [--preemptors 500] [--rounds 3]

The shape is v1.23's ``Preemption`` workload of test/integration/scheduler_perf (500
nodes of 4 CPU, 2,000 low-priority pods of 900m bound 4 to a node, 500 preemptors of 3
CPU at priority 10: each fits nowhere and evicts 3 pods). ``goref bench-preemption``
times the real scheduler per preemptor: the failing cycle, PostFilter with its evictions,
then the immediate retry and bind; kscore runs the same (``simulate --preemption
--retry-nominated``, Go's tie-breaks) on the objects goref dumps, in process after one
warm-up run (kernels loaded), and end to end as a process (``kscore simulate``: reading,
scheduling, writing). Go and kscore alternate for ``--rounds`` rounds; the best of each
is kept. The step API (``Simulator(preemption=True)``: ``schedule_one`` per preemptor,
then once more if it was nominated) is timed on the same objects, its construction
aside, and ``Simulator.run(retry_nominated=True)`` (the same cycles in one call), and
so is the timed queue (``TimedSimulator(preemption=True)``: the preemptors
queued at time 0, replayed until the queue is empty). Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kscore_fast import api  # noqa: E402

GOREF = ROOT / "benchmarks" / "goref" / "bin" / "goref"


def go_us(shape: list[str]) -> float:
    out = subprocess.run([str(GOREF), "bench-preemption", *shape, "--json", "--runs", "1"],
                         capture_output=True, text=True, check=True)  # fmt: skip
    return json.loads(out.stdout)["usPerPreemptor"]


def kscore_us(cluster: api.Cluster, preemptors: int) -> tuple[float, int]:
    t0 = time.perf_counter()
    result = api.simulate(cluster, scores="none", tie_break="go-rand", preemption=True,
                          retry_nominated=True, explain=False)  # fmt: skip
    dt = time.perf_counter() - t0
    return dt * 1e6 / preemptors, int((result.hosts >= 0).sum())


def simulator_us(cluster: api.Cluster) -> float:
    """``Simulator(preemption=True)``: each preemptor's ``schedule_one``, then its retry."""
    from kscore_fast.framework.simulation import queue_order
    from kscore_fast.simulator import Simulator

    sim = Simulator(cluster, tie_break="go-rand", preemption=True)
    pods = [cluster.batch.pods[i].key for i in queue_order(cluster.batch.pods)]
    t0 = time.perf_counter()
    for pod in pods:
        if sim.schedule_one(pod)["host"] is None and pod in sim.nominations:
            sim.schedule_one(pod)
    return (time.perf_counter() - t0) * 1e6 / len(pods)


def simulator_run_us(cluster: api.Cluster) -> float:
    """``Simulator(preemption=True).run(retry_nominated=True)``: the same cycles in one
    call (one checkpoint for the whole run)."""
    from kscore_fast.simulator import Simulator

    sim = Simulator(cluster, tie_break="go-rand", preemption=True)
    t0 = time.perf_counter()
    result = sim.run(retry_nominated=True)
    dt = time.perf_counter() - t0
    assert int((result.hosts >= 0).sum()) == len(cluster.batch)
    return dt * 1e6 / len(cluster.batch)


def queue_us(cluster: api.Cluster) -> float:
    """The timed queue (``TimedSimulator(preemption=True)``, ``simulate --events
    --preemption``): every preemptor queued at time 0, the queue run until it is empty (a
    preemptor fails, preempts, and comes back when its victims' deletions move it)."""
    from kscore_fast.queue.timed import TimedSimulator

    timed = TimedSimulator(cluster, tie_break="go-rand", preemption=True)
    t0 = time.perf_counter()
    timed.replay([])
    dt = time.perf_counter() - t0
    bound = sum(1 for a in timed.attempts if a["host"])
    assert bound == len(cluster.batch), f"the queue bound {bound} of {len(cluster.batch)}"
    return dt * 1e6 / len(cluster.batch)


def process_us(path: Path, preemptors: int) -> float:
    argv = [sys.executable, "-m", "kscore_fast", "simulate", str(path), "--preemption",
            "--retry-nominated", "--tie-break", "go-rand", "--scores", "none", "--quiet",
            "-o", os.devnull]  # fmt: skip
    t0 = time.perf_counter()
    subprocess.run(argv, check=True)
    return (time.perf_counter() - t0) * 1e6 / preemptors


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nodes", type=int, default=500)
    ap.add_argument("--init-pods", type=int, default=2000)
    ap.add_argument("--preemptors", type=int, default=500)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--no-queue", dest="queue", action="store_false",
                    help="leave the timed queue out")  # fmt: skip
    args = ap.parse_args()
    if not GOREF.exists():
        print(f"{GOREF} missing: run benchmarks/goref/build.sh", file=sys.stderr)
        return 1
    shape = ["--nodes", str(args.nodes), "--init-pods", str(args.init_pods),
             "--preemptors", str(args.preemptors)]  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "preemption.json"
        subprocess.run([str(GOREF), "bench-preemption", *shape, "--dump", str(path)],
                       check=True)  # fmt: skip
        cluster = api.load_cluster(path)
        kscore_us(cluster, args.preemptors)  # warm: kernels compiled or loaded
        best = {"go": float("inf"), "kscore": float("inf"), "process": float("inf"),
                "simulator": float("inf"), "run": float("inf"),
                "queue": float("inf")}  # fmt: skip
        seen: dict[str, list[float]] = {key: [] for key in best}
        bound = 0
        for _ in range(args.rounds):  # alternate: both see the same machine conditions
            seen["go"].append(go_us(shape))
            us, bound = kscore_us(cluster, args.preemptors)
            seen["kscore"].append(us)
            seen["process"].append(process_us(path, args.preemptors))
            seen["simulator"].append(simulator_us(cluster))
            seen["run"].append(simulator_run_us(cluster))
            if args.queue:
                seen["queue"].append(queue_us(cluster))
        best = {key: min(values, default=float("inf")) for key, values in seen.items()}
    go = best["go"]
    for key, values in seen.items():  # (the ranges: a loaded machine varies)
        if values:
            print(f"{key}: {min(values):,.0f}–{max(values):,.0f} µs per preemptor", file=sys.stderr)
    print(f"{args.nodes} nodes, {args.init_pods} low-priority pods, {args.preemptors} "
          f"preemptors ({bound} bound after preempting)\n")  # fmt: skip
    print("| | µs per preemptor | Go ÷ kscore |")
    print("|---|---:|---:|")
    print(f"| Go (goref bench-preemption) | {go:,.0f} | |")
    print(f"| kscore, in process | {best['kscore']:,.0f} | {go / best['kscore']:.2f}× |")
    print(f"| kscore, process end to end | {best['process']:,.0f} | "
          f"{go / best['process']:.2f}× |")  # fmt: skip
    print(f"| kscore, Simulator step API | {best['simulator']:,.0f} | "
          f"{go / best['simulator']:.2f}× |")  # fmt: skip
    print(f"| kscore, Simulator.run(retry_nominated=True) | {best['run']:,.0f} | "
          f"{go / best['run']:.2f}× |")  # fmt: skip
    if args.queue:
        print(f"| kscore, timed queue | {best['queue']:,.0f} | {go / best['queue']:.2f}× |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
