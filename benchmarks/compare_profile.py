"""The default profile on the openb cluster: Go and kscore_fast side by side, in one run.

    python benchmarks/compare_profile.py [--pods 1000] [--rounds 3] [--json FILE]

The cluster: openb's 1,523 nodes (``openb_node_list_all_node.csv``) and the first
``--pods`` pending pods of ``openb_pod_list_default.csv``, imported with
``kscore import openb`` (from ``../shared/data/openb``, or ``--openb DIR``). The profile:
kube-scheduler v1.23.6's default (v1beta3) without PodTopologySpread and InterPodAffinity
(not simulated yet), at ``percentageOfNodesToScore`` 100 and adaptive (0).

Go: ``goref schedbench`` (``genericScheduler.Schedule`` per pod through the plain in-tree
registry, parallelism 1, nothing assumed; harness setup not timed). kscore_fast: the batch
through the framework (kernels and preparation, loading not timed), and end to end,
``kscore score DIR --config FILE --scores none`` in process (files in, placements out).
Go and kscore alternate for ``--rounds`` rounds and the best time of each is kept; µs per
pod and the ratio. Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.compare_go import machine  # noqa: E402
from benchmarks.timing import best_of  # noqa: E402
from kscore_fast import retain_freed_memory  # noqa: E402
from kscore_fast.api import load_cluster  # noqa: E402
from kscore_fast.cli import main as kscore  # noqa: E402
from kscore_fast.config.load import load_config  # noqa: E402
from kscore_fast.profile import framework_for_profile  # noqa: E402

GOREF = ROOT / "benchmarks" / "goref" / "bin" / "goref"
from benchmarks.datasets import OPENB  # noqa: E402

CONFIG = """apiVersion: kubescheduler.config.k8s.io/v1beta3
kind: KubeSchedulerConfiguration
percentageOfNodesToScore: {pct}
profiles:
- schedulerName: default-scheduler
  plugins:
    multiPoint:
      disabled:
      - name: PodTopologySpread
      - name: InterPodAffinity
"""


def openb_cluster(openb: Path, pods: int, workdir: Path) -> Path:
    """Import openb's nodes and the first ``pods`` pending pods into ``workdir/openb``."""
    from kscore_fast.io.openb import import_openb

    lines = (openb / "openb_pod_list_default.csv").read_text().splitlines()
    head = [lines[0], *[x for x in lines[1:] if ",Running," in x or ",Pending," in x][:pods]]
    pod_csv = workdir / "pods.csv"
    pod_csv.write_text("\n".join(head) + "\n")
    out = workdir / "openb"
    import_openb(openb / "openb_node_list_all_node.csv", pod_csv, out)
    return out


def go_us_per_pod(cluster: Path, config: Path) -> float:
    proc = subprocess.run(
        [str(GOREF), "schedbench", str(cluster), "--config", str(config), "--runs", "1",
         "--json"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    return json.loads(proc.stdout)["minNsPerPod"] / 1e3


def kscore_batch(cluster: Path, config: Path) -> tuple[object, int]:
    """A function scheduling the whole batch (preparation included), and the pod count."""
    retain_freed_memory()
    c = load_cluster([cluster])
    cfg = load_config(config)
    fw = framework_for_profile(cfg.profiles[0], cfg.percentage_of_nodes_to_score).framework

    def run() -> object:
        c.batch.cache.clear()  # the batch's preparation is timed, as Go's PreFilter/PreScore
        return fw.run(c.snapshot, c.batch, scores="none", explain=False)

    run()  # compile or load the kernel cache
    return run, len(c.batch)


def end_to_end(cluster: Path, config: Path, pods: int) -> float:
    argv = ["score", str(cluster), "--config", str(config), "--scores", "none", "--quiet",
            "-o", os.devnull]  # fmt: skip

    def run() -> None:
        if kscore(argv) != 0:
            raise RuntimeError(f"kscore {' '.join(argv)} failed")

    run()
    return best_of(run, 2) * 1e6 / pods


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pods", type=int, default=1000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--openb", type=Path, default=OPENB)
    ap.add_argument("--json", metavar="FILE")
    args = ap.parse_args()
    if not GOREF.exists():
        print(f"{GOREF} missing: run benchmarks/goref/build.sh", file=sys.stderr)
        return 1
    workdir = Path(tempfile.mkdtemp(prefix="kscore-profile-"))
    cluster = openb_cluster(args.openb, args.pods, workdir)
    rows = []
    for pct in (100, 0):
        config = workdir / f"config-{pct}.yaml"
        config.write_text(CONFIG.format(pct=pct))
        run, n = kscore_batch(cluster, config)
        best = {"go": float("inf"), "batch": float("inf"), "e2e": float("inf")}
        for _ in range(args.rounds):  # alternate: both see the same machine conditions
            best["go"] = min(best["go"], go_us_per_pod(cluster, config))
            best["batch"] = min(best["batch"], best_of(run, 3) * 1e6 / n)
            best["e2e"] = min(best["e2e"], end_to_end(cluster, config, n))
        rows.append({"percentage": pct, "pods": n, **best})
    print(f"machine: {machine()}\n")
    print("| percentageOfNodesToScore | pods | Go µs/pod | kscore batch µs/pod | ratio | "
          "end to end µs/pod | ratio |")  # fmt: skip
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        g = r["go"]
        print(f"| {r['percentage'] or 'adaptive (0)'} | {r['pods']} | {g:,.1f} | "
              f"{r['batch']:,.2f} | {g / r['batch']:,.0f}× | {r['e2e']:,.1f} | "
              f"{g / r['e2e']:,.1f}× |")  # fmt: skip
    if args.json:
        Path(args.json).write_text(json.dumps({"machine": machine(), "rows": rows}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
