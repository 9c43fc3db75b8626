"""The timed replay (docs/queue.md) at scale: openb's nodes and pods copied ``k`` times,
up to 15,000 nodes and 100,000 arrivals, with their departures.

    python benchmarks/replay_timed_scale.py [--scales 0.25,0.5,1]

At scale 1: openb's 1,523 nodes ten times (15,230 nodes) and its 6,090 pods seventeen
times (103,530 arrivals, copy c's times shifted by c seconds so that the copies
interleave), imported with ``kscore import openb --events --qos-priorities``; a
smaller scale takes that share of the node copies and of the pod copies. Each run is a
fresh ``kscore simulate DIR --events FILE --tie-break go-rand`` process (kernels cached
by an earlier run): its wall time and its peak resident memory (``ru_maxrss``), which
must grow linearly with the input. No Go here: at this size goref would take hours.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.datasets import OPENB, openb_missing  # noqa: E402
from kscore_fast.io.openb import import_openb  # noqa: E402

NODE_COPIES, POD_COPIES = 10, 17


def scaled_trace(work: Path, scale: float) -> tuple[Path, Path, int, int]:
    """The copied trace imported under ``work``: (cluster, events, nodes, arrivals)."""
    nodes = (OPENB / "openb_node_list_all_node.csv").read_text().splitlines()
    pods = (OPENB / "openb_pod_list_default.csv").read_text().splitlines()
    node_copies = max(1, round(NODE_COPIES * scale))
    pod_copies = max(1, round(POD_COPIES * scale))
    node_rows = [f"{r.split(',', 1)[0]}-c{c},{r.split(',', 1)[1]}"
                 for c in range(node_copies) for r in nodes[1:]]  # fmt: skip
    header = pods[0].split(",")
    times = [header.index(c) for c in ("creation_time", "deletion_time", "scheduled_time")]
    pod_rows = []
    for c in range(pod_copies):
        for row in pods[1:]:
            f = row.split(",")
            f[0] = f"{f[0]}-c{c}"
            for col in times:  # copy c, c seconds later
                if f[col]:
                    f[col] = str(int(f[col]) + c)
            pod_rows.append(",".join(f))
    (work / "nodes.csv").write_text("\n".join([nodes[0], *node_rows]) + "\n")
    (work / "pods.csv").write_text("\n".join([pods[0], *pod_rows]) + "\n")
    cluster, events = work / "cluster", work / "events.jsonl"
    report = import_openb(work / "nodes.csv", work / "pods.csv", cluster, events=events,
                          qos_priorities=True)  # fmt: skip
    return cluster, events, report.nodes, report.pods


def run(cluster: Path, events: Path) -> tuple[float, int, dict]:
    """One fresh kscore process: (seconds, peak RSS bytes, the document's counts)."""
    out = cluster.parent / "out.json"
    cmd = [
        sys.executable,
        "-m",
        "kscore_fast",
        "simulate",
        str(cluster),
        "--events",
        str(events),
        "--tie-break",
        "go-rand",
        "--seed",
        "1",
        "--quiet",
        "-o",
        str(out),
    ]
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True)
    wall = time.perf_counter() - t0
    # (the largest child so far: the scales run in increasing order)
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    doc = json.loads(out.read_text())
    attempts = doc["attempts"]
    counts = {"attempts": len(attempts), "failed": sum(a["host"] is None for a in attempts),
              "pending_at_end": len(doc["pending"])}  # fmt: skip
    os.unlink(out)
    return wall, peak * 1024, counts


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scales", default="0.25,0.5,1")
    args = ap.parse_args(argv)
    if why := openb_missing():
        print(f"replay_timed_scale: {why}", file=sys.stderr)
        return 2
    print("| scale | nodes | arrivals | attempts | failed | seconds | peak RSS MB |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for scale in (float(s) for s in args.scales.split(",")):
        with tempfile.TemporaryDirectory() as tmp:
            cluster, events, nodes, arrivals = scaled_trace(Path(tmp), scale)
            wall, peak, counts = run(cluster, events)
            print(
                f"| {scale:g} | {nodes:,} | {arrivals:,} | {counts['attempts']:,} | "
                f"{counts['failed']:,} | {wall:.1f} | {peak / 2**20:,.0f} |",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
