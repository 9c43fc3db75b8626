"""Sequential scheduling at 1,523 to 15,000 nodes: Go and kscore_fast side by side, with
peak memory.

    python benchmarks/simulate_scaling.py [--nodes 1523,5000,15000] [--pods 1000]
                                          [--bound 1000] [--pct 0,100] [--rounds 2]
                                          [--json FILE]

Clusters synthesized from openb: ``--nodes`` nodes cycling through the shapes of
``openb_node_list_all_node.csv`` (CPU, memory, GPUs, GPU model; renamed
``node-00000``...), ``--bound`` pods of the trace bound one per node, spread evenly over
the nodes (the anchor of issue 9: 5,000 nodes and 1,000 pre-bound pods), and the first
``--pods`` pending pods of ``openb_pod_list_default.csv`` (Failed/Succeeded dropped),
scheduled one after the other through v1.23.6's full default profile, each assumed
before the next. Go: ``goref simbench --plugin-metrics-draw`` (the real scheduler
cache, per pod ``Schedule`` then assume/Reserve/Permit; setup not timed). kscore:
``api.simulate --tie-break go-rand`` (the pods' preparation and the framework's building
timed; loading the cluster and the configuration file, and the node columns built once
per snapshot, not). Go and
kscore alternate; the best round of each is kept. Peak memory (``ru_maxrss``) of a
process that loads the cluster and runs the simulation once, each side (kscore's
includes numba and LLVM, ~200 MB before any cluster: the ``baseline`` column). Placements:
``goref simulate`` against ``api.simulate``, pod for pod up to Go's first cycle of 100 ms
or more (``timing.timing_free``: after it, Go's tie-breaks depend on its speed).
"""

from __future__ import annotations

import argparse
import csv
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.compare_go import machine  # noqa: E402
from benchmarks.compare_profile import GOREF, OPENB  # noqa: E402
from benchmarks.compare_simulate import CONFIG, SEED, go_us_per_pod, same_as_go  # noqa: E402

_PROBE = r"""
import resource, sys, time
from kscore_fast.api import load_cluster, simulate
if sys.argv[1] == "baseline":
    print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024)
    raise SystemExit
cluster = load_cluster([sys.argv[1]])
simulate(cluster, config=sys.argv[2], seed=1, tie_break="go-rand", scores="none")
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024)
"""


def synthesize(openb: Path, n_nodes: int, n_pods: int, n_bound: int, out: Path) -> Path:
    """A ``kscore import openb`` folder of ``n_nodes`` nodes and ``n_pods`` pending pods,
    plus ``bound.json``: ``n_bound`` pods bound one per node, evenly spread."""
    from kscore_fast.io.openb import import_openb

    with (openb / "openb_node_list_all_node.csv").open() as f:
        rows = list(csv.DictReader(f))
    nodes_csv = out.parent / f"nodes-{n_nodes}.csv"
    with nodes_csv.open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        for i in range(n_nodes):
            w.writerow({**rows[i % len(rows)], "sn": f"node-{i:05d}"})
    lines = (openb / "openb_pod_list_default.csv").read_text().splitlines()
    pods_csv = out.parent / "pods.csv"
    pods_csv.write_text("\n".join([lines[0], *lines[1:]]) + "\n")
    import_openb(nodes_csv, pods_csv, out, force=True)
    items = json.loads((out / "pods.json").read_text())["items"]
    bound = []
    for k, pod in enumerate(items[len(items) - n_bound :] if n_bound else []):
        pod = json.loads(json.dumps(pod))
        pod["metadata"]["name"] = f"bound-{k:05d}"
        pod["spec"]["nodeName"] = f"node-{k * n_nodes // max(n_bound, 1):05d}"
        pod["status"] = {"phase": "Running"}
        bound.append(pod)
    doc = json.loads((out / "pods.json").read_text())
    doc["items"] = items[:n_pods]
    (out / "pods.json").write_text(json.dumps(doc))
    (out / "bound.json").write_text(json.dumps({"apiVersion": "v1", "kind": "List",
                                                "items": bound}))  # fmt: skip
    return out


def kscore_us_per_pod(cluster: Path, config: Path) -> float:
    """api.simulate's µs per pod (the pods' preparation and the framework's building
    timed; loading the cluster and the configuration file, compiled kernels and the
    snapshot's node columns not, as Go's setup is not), in this process."""
    from benchmarks.timing import best_of
    from kscore_fast.api import load_cluster, simulate
    from kscore_fast.config.load import load_config

    c, cfg = load_cluster([cluster]), load_config(config)

    def run() -> object:
        return simulate(c, config=cfg, seed=SEED, tie_break="go-rand", scores="none")

    run()  # compiled kernels loaded, node-level columns built (the scheduler cache's)
    c.batch.cache.clear()  # the pods' preparation is timed, as Go's PreFilter
    secs = best_of(run, 1)
    return secs * 1e6 / len(c.batch)


def peak_bytes(argv: list[str]) -> int:
    """ru_maxrss of a fresh process running ``argv``, which prints it last (bytes)."""
    return int(subprocess.run(argv, capture_output=True, text=True, check=True)
               .stdout.split()[-1])  # fmt: skip


def go_peak_bytes(cluster: Path, config: Path) -> int:
    """Peak RSS of goref simbench (one run), from GNU time's %M (KiB)."""
    proc = subprocess.run(
        ["/usr/bin/time", "-f", "%M", str(GOREF), "simbench", str(cluster), "--config",
         str(config), "--seed", str(SEED), "--plugin-metrics-draw", "--runs", "1", "--json"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    return int(proc.stderr.split()[-1]) * 1024


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nodes", default="1523,5000,15000")
    ap.add_argument("--pods", type=int, default=1000)
    ap.add_argument("--bound", type=int, default=1000)
    ap.add_argument("--pct", default="0,100")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--openb", type=Path, default=OPENB)
    ap.add_argument("--json", metavar="FILE")
    args = ap.parse_args()
    if not GOREF.exists():
        print(f"{GOREF} missing: run benchmarks/goref/build.sh", file=sys.stderr)
        return 1
    print(machine())
    base = peak_bytes([sys.executable, "-c", _PROBE, "baseline"])
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in [int(x) for x in args.nodes.split(",")]:
            cluster = synthesize(args.openb, n, args.pods, args.bound, Path(tmp) / f"c{n}")
            for pct in [int(x) for x in args.pct.split(",")]:
                config = Path(tmp) / f"config-{pct}.yaml"
                config.write_text(CONFIG.format(pct=pct))
                go = ks = float("inf")
                for _ in range(args.rounds):
                    go = min(go, go_us_per_pod(cluster, config))
                    ks = min(ks, kscore_us_per_pod(cluster, config))
                same, compared = same_as_go(cluster, config)
                rows.append({
                    "same": same, "compared": compared,
                    "nodes": n, "pct": pct, "pods": args.pods, "go": go, "kscore": ks,
                    "go_mb": go_peak_bytes(cluster, config) / 2**20,
                    "kscore_mb": peak_bytes([sys.executable, "-c", _PROBE, str(cluster),
                                             str(config)]) / 2**20,
                })  # fmt: skip
                print(f"{n} nodes, pct {pct}: Go {go:,.0f} µs/pod, kscore {ks:,.1f} "
                      f"({go / ks:.0f}×)", file=sys.stderr)  # fmt: skip
    print(f"\nkscore process baseline (imports, numba, LLVM): {base / 2**20:.0f} MB\n")
    print("| nodes | percentageOfNodesToScore | Go µs/pod | kscore µs/pod | ratio | "
          "kscore pods/s | Go peak MB | kscore peak MB | placements equal to Go's |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        go, ks = r["go"], r["kscore"]
        mem = f"{r['go_mb']:,.0f} | {r['kscore_mb']:,.0f}"
        same = f"{r['same']:,}/{r['compared']:,}" + (
            f" (Go's cycle {r['compared']:,} was slow)" if r["compared"] < r["pods"] else ""
        )
        print(f"| {r['nodes']:,} | {r['pct'] or 'adaptive (0)'} | {go:,.0f} | {ks:,.1f} | "
              f"{go / ks:.0f}× | {1e6 / ks:,.0f} | {mem} | {same} |")  # fmt: skip
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
