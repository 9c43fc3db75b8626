"""Sequential replay of the openb trace: Go and kscore_fast side by side, in one run.

    python benchmarks/compare_simulate.py [--pods N] [--rounds 2] [--pct 0,100] [--json FILE]

The cluster: openb's 1,523 nodes (``openb_node_list_all_node.csv``) and its pods
(``openb_pod_list_default.csv``; Failed/Succeeded dropped by ``kscore import openb``, the
first ``--pods`` of them, all by default), every pod pending, scheduled one after the
other in queue order through v1.23.6's full default profile (PodTopologySpread and
InterPodAffinity included), at ``percentageOfNodesToScore`` 100 and adaptive.

Go: ``goref simbench --plugin-metrics-draw`` (the real scheduler cache: ``Schedule``,
then assume/Reserve/Permit, per pod; harness setup not timed). kscore: ``api.simulate``
with ``--tie-break go-rand`` and the same seed (the pods' preparation and the framework's
building timed; loading the cluster and the configuration file not), and end
to end (``kscore simulate DIR --scores none``, files in, placements out). Go and kscore
alternate; the best round of each is kept. The placements are checked once to be the
same as ``goref simulate``'s, pod for pod.
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
from benchmarks.compare_profile import GOREF, OPENB  # noqa: E402
from benchmarks.timing import best_of, timing_free  # noqa: E402
from kscore_fast.api import load_cluster, simulate  # noqa: E402
from kscore_fast.cli import main as kscore  # noqa: E402
from kscore_fast.config.load import load_config  # noqa: E402

CONFIG = """apiVersion: kubescheduler.config.k8s.io/v1beta3
kind: KubeSchedulerConfiguration
percentageOfNodesToScore: {pct}
"""
SEED = 1


def openb_trace(openb: Path, pods: int | None, workdir: Path) -> Path:
    """Import openb's nodes and pods (the first ``pods``) into ``workdir/openb``."""
    from kscore_fast.io.openb import import_openb

    lines = (openb / "openb_pod_list_default.csv").read_text().splitlines()
    body = lines[1:] if pods is None else lines[1 : pods + 1]
    pod_csv = workdir / "pods.csv"
    pod_csv.write_text("\n".join([lines[0], *body]) + "\n")
    out = workdir / "openb"
    import_openb(openb / "openb_node_list_all_node.csv", pod_csv, out)
    return out


def go_us_per_pod(cluster: Path, config: Path) -> float:
    proc = subprocess.run(
        [str(GOREF), "simbench", str(cluster), "--config", str(config), "--seed", str(SEED),
         "--plugin-metrics-draw", "--runs", "1", "--json"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    return json.loads(proc.stdout)["minNsPerPod"] / 1e3


def same_as_go(cluster: Path, config: Path) -> tuple[int, int]:
    """(pods placed as Go places them, pods compared): kscore simulate against goref
    simulate, up to goref's first slow cycle (``timing_free``)."""
    proc = subprocess.run(
        [str(GOREF), "simulate", str(cluster), "--config", str(config), "--seed", str(SEED),
         "--plugin-metrics-draw", "--scores", "none", "--quiet"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    go = json.loads(proc.stdout)["results"]
    go = go[: timing_free(go)]
    ours = simulate(load_cluster([cluster]), config=config, seed=SEED, tie_break="go-rand",
                    scores="none").to_dict()["results"]  # fmt: skip
    same = sum(
        a["pod"] == b["pod"] and a["host"] == b["host"] for a, b in zip(ours, go, strict=False)
    )
    return same, len(go)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pods", type=int, default=None, help="first N pods (default: all)")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--pct", default="0,100")
    ap.add_argument("--openb", type=Path, default=OPENB)
    ap.add_argument("--json", metavar="FILE")
    args = ap.parse_args()
    if not GOREF.exists():
        print(f"{GOREF} missing: run benchmarks/goref/build.sh", file=sys.stderr)
        return 1
    print(machine())
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        cluster = openb_trace(args.openb, args.pods, work)
        c = load_cluster([cluster])
        n = len(c.batch)
        for pct in [int(x) for x in args.pct.split(",")]:
            config = work / f"config-{pct}.yaml"
            config.write_text(CONFIG.format(pct=pct))
            cfg = load_config(config)  # (read outside the timing, as Go's setup)
            same, total = same_as_go(cluster, config)
            argv = ["simulate", str(cluster), "--config", str(config), "--seed", str(SEED),
                    "--tie-break", "go-rand", "--scores", "none", "--quiet",
                    "-o", os.devnull]  # fmt: skip
            go = ks = e2e = float("inf")
            for _ in range(args.rounds):
                go = min(go, go_us_per_pod(cluster, config))
                c.batch.cache.clear()  # the plugins' preparation is timed, as Go's PreFilter
                ks = min(ks, best_of(lambda: simulate(c, config=cfg, seed=SEED,  # noqa: B023
                                                      tie_break="go-rand", scores="none"), 1)
                         * 1e6 / n)  # fmt: skip
                e2e = min(e2e, best_of(lambda: kscore(argv), 1) * 1e6 / n)  # noqa: B023
            rows.append({"pct": pct, "pods": n, "go": go, "kscore": ks, "e2e": e2e,
                         "same": same, "total": total})  # fmt: skip
    print("\n| percentageOfNodesToScore | pods | Go µs/pod | kscore µs/pod | ratio | "
          "end to end µs/pod | ratio | placements equal to Go's (before its first slow "
          "cycle) |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['pct'] or 'adaptive (0)'} | {r['pods']:,} | {r['go']:,.1f} | "
            f"{r['kscore']:.2f} | {r['go'] / r['kscore']:.0f}× | {r['e2e']:.1f} | "
            f"{r['go'] / r['e2e']:.1f}× | {r['same']:,}/{r['total']:,} |"
        )
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
