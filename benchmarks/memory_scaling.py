"""Peak memory at scale, where a pending pod per selector used to cost a row per node:
each pending pod its own Deployment (its own label selector), spread over hostnames
(PodTopologySpread) or kept apart from 20 others (InterPodAffinity anti-affinity).

    python benchmarks/memory_scaling.py [--shapes 5000x2000,20000x8000] [--copies 4]

Per shape and workload, fresh processes with the kernels cached (a warm-up run first):
``kscore score --scores none`` and ``kscore simulate --scores none``, their wall time and
peak RSS (GNU time's ``%M``), and in a third process the RSS each ``Simulator.copy()``
adds (median of ``--copies``, after 200 pods bound). kscore's process holds ~105 MB of
Python, numba and LLVM before reading anything.

Workloads (``--workloads``):

* ``spread``: DoNotSchedule on ``kubernetes.io/hostname`` (maxSkew 1) and ScheduleAnyway
  on ``topology.kubernetes.io/zone``, both selecting the pod's own app label;
* ``anti``: 20 required anti-affinity terms on hostname, each its own app label.
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
from typing import Any

ROOM = {"cpu": "64", "memory": "256Gi", "pods": "110"}
HOSTNAME, ZONE = "kubernetes.io/hostname", "topology.kubernetes.io/zone"


def _node(i: int) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": f"n{i}", "labels": {HOSTNAME: f"n{i}", ZONE: f"z{i % 3}"}},
            "status": {"allocatable": ROOM, "capacity": ROOM}}  # fmt: skip


def _pod(j: int, labels: dict[str, str], spec: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": f"p{j}", "namespace": "default", "uid": f"u{j}",
                         "labels": labels},
            "spec": {"containers": [{"name": "c", "image": "x",
                                     "resources": {"requests": {"cpu": "100m"}}}], **spec},
            "status": {"phase": "Pending"}}  # fmt: skip


def _spread(j: int) -> dict[str, Any]:
    own = {"matchLabels": {"app": f"app{j}"}}
    cons = [{"maxSkew": 1, "topologyKey": HOSTNAME, "whenUnsatisfiable": "DoNotSchedule",
             "labelSelector": own},
            {"maxSkew": 1, "topologyKey": ZONE, "whenUnsatisfiable": "ScheduleAnyway",
             "labelSelector": own}]  # fmt: skip
    return _pod(j, {"app": f"app{j}"}, {"topologySpreadConstraints": cons})


def _anti(j: int) -> dict[str, Any]:
    terms = [{"labelSelector": {"matchLabels": {"app": f"a{j}-{t}"}}, "topologyKey": HOSTNAME}
             for t in range(20)]  # fmt: skip
    spec = {"affinity": {"podAntiAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": terms}}}  # fmt: skip
    return _pod(j, {"app": f"a{j}-0"}, spec)


WORKLOADS = {"spread": _spread, "anti": _anti}

_COPIES = """
import os, statistics, sys
import kscore_fast as ks
def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
sim = ks.Simulator(ks.load_cluster([sys.argv[1]]), seed=1)
sim.run(sim.pods[:200])
kept, grown = [], []
for _ in range(int(sys.argv[2])):
    before = rss()
    kept.append(sim.copy())
    grown.append(rss() - before)
print(statistics.median(grown))
"""


def write_cluster(path: Path, nodes: int, pods: int, workload: str) -> None:
    make = WORKLOADS[workload]
    items = [_node(i) for i in range(nodes)] + [make(j) for j in range(pods)]
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))


def timed_peak(argv: list[str]) -> tuple[float, int]:
    """Wall seconds and peak RSS (bytes) of a fresh process."""
    t0 = time.perf_counter()
    proc = subprocess.run(["/usr/bin/time", "-f", "%M", *argv], capture_output=True,
                          text=True, check=True)  # fmt: skip
    return time.perf_counter() - t0, int(proc.stderr.split()[-1]) * 1024


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shapes", default="5000x2000", help="NODESxPODS, comma separated")
    ap.add_argument("--workloads", default="spread,anti")
    ap.add_argument("--copies", type=int, default=4)
    args = ap.parse_args()
    kscore = [sys.executable, "-m", "kscore_fast"]
    rows = []
    with tempfile.TemporaryDirectory(prefix="kscore-memory-") as tmp:
        for shape in args.shapes.split(","):
            nodes, pods = (int(v) for v in shape.split("x"))
            for workload in args.workloads.split(","):
                path = Path(tmp) / f"{workload}-{shape}.json"
                write_cluster(path, nodes, pods, workload)
                size = path.stat().st_size
                out = os.path.join(tmp, "out.json")
                row = [f"{nodes:,} × {pods:,}", workload, f"{size / 1e6:.0f}"]
                for command in ("score", "simulate"):
                    argv = [*kscore, command, str(path), "--scores", "none", "--quiet",
                            "-o", out]  # fmt: skip
                    subprocess.run(argv, check=True)  # (kernels compiled or loaded)
                    secs, peak = timed_peak(argv)
                    row += [f"{secs:.1f}", f"{peak / 2**20:,.0f}"]
                grown = subprocess.run([sys.executable, "-c", _COPIES, str(path),
                                        str(args.copies)], capture_output=True, text=True,
                                       check=True).stdout.split()[-1]  # fmt: skip
                row.append(f"{float(grown) / 2**20:.1f}")
                rows.append(row)
                print(" | ".join(row), file=sys.stderr)
    print(f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs\n")
    print("| nodes × pending pods | workload | input MB | score s | score peak MiB | "
          "simulate s | simulate peak MiB | a copy, MiB |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|")
    for row in rows:
        print(f"| {' | '.join(row)} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
