"""Go and kscore_fast side by side, on the same machine, in one run.

    python benchmarks/compare_go.py [--json FILE] [--shapes 100x1000,1000x10000]

Runs ``goref bench`` (upstream's BenchmarkTestSelectorSpreadPriority loop through the
real plugin code: PreScore, parallel Score over every node, NormalizeScore; one op = one
pod) and times kscore_fast on the same shapes: one pod alone, and a batch of 1,000
pending pods with distinct label sets (µs per pod), kernels only; and end to end, files
in and results out: ``kscore score --plugins SelectorSpread`` (the plugin Go's loop
times; in process, after one warm-up run) reading the shape as one ``kubectl get -o
json`` List with 2 × existing + 1 pending pods, scoring every pod on every node and
writing the placements (``--scores none``), µs per pending pod. Go and kscore alternate
for ``--rounds`` rounds and the best time of each is kept. Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.manifests import go_shape_objects, write_list  # noqa: E402
from benchmarks.shapes import go_shape  # noqa: E402
from benchmarks.timing import best_of, scorer  # noqa: E402
from kscore_fast.cli import main as kscore  # noqa: E402

GOREF = ROOT / "benchmarks" / "goref" / "bin" / "goref"


def go_bench(shapes: str) -> dict[str, float]:
    proc = subprocess.run(
        [str(GOREF), "bench", "--shapes", shapes, "--json", "--runs", "5"],
        capture_output=True,
        text=True,
        check=True,
    )
    doc = json.loads(proc.stdout)
    return {f"{r['nodes']}x{r['existingPods']}": r["minNsPerOp"] / 1e3 for r in doc["results"]}


def kscore_bench(nodes: int, existing: int) -> dict[str, float]:
    lone, _ = scorer(go_shape(nodes, existing, 1))
    batch, _ = scorer(go_shape(nodes, existing, 1000))
    distinct, _ = scorer(go_shape(nodes, existing, 1000, distinct_selectors=True))
    return {
        "lone_us": best_of(lone, 7, 50) * 1e6,
        "batch_us_per_pod": best_of(batch, 7) * 1e6 / 1000,
        "distinct_us_per_pod": best_of(distinct, 7) * 1e6 / 1000,
    }


def end_to_end(path: Path, pending: int) -> float:
    """µs per pending pod of ``kscore score FILE --plugins SelectorSpread --scores none``
    on every node."""
    argv = ["score", str(path), "--plugins", "SelectorSpread", "--scores", "none", "--quiet",
            "-o", os.devnull, "--percentage-of-nodes-to-score", "100"]  # fmt: skip

    def run() -> None:
        if kscore(argv) != 0:
            raise RuntimeError(f"kscore {' '.join(argv)} failed")

    run()  # warm: kernels loaded from the cache, file in the page cache
    return best_of(run, 3) * 1e6 / pending


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{os.cpu_count()} CPUs, {cpu}, Python {platform.python_version()}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shapes", default="100x1000,1000x10000")
    ap.add_argument("--json", metavar="FILE")
    ap.add_argument(
        "--rounds", type=int, default=3, help="alternate Go and kscore this often; keep the best"
    )
    args = ap.parse_args()
    if not GOREF.exists():
        print(f"{GOREF} missing: run benchmarks/goref/build.sh", file=sys.stderr)
        return 1
    shapes = args.shapes.split(",")
    best: dict[str, dict[str, float]] = {s: {} for s in shapes}
    workdir = Path(tempfile.mkdtemp(prefix="kscore-compare-"))
    files = {}
    for shape in shapes:
        nodes, existing = map(int, shape.split("x"))
        objects = go_shape_objects(nodes, existing, 2 * existing + 1)
        files[shape] = write_list(objects, workdir / f"{shape}.json", "json")
    try:
        for _ in range(args.rounds):  # alternate, so both see the same machine conditions
            go = go_bench(args.shapes)
            for shape in shapes:
                nodes, existing = map(int, shape.split("x"))
                measured = {
                    "go_us_per_pod": go[shape],
                    **kscore_bench(nodes, existing),
                    "e2e_us_per_pod": end_to_end(files[shape], 2 * existing + 1),
                }
                for key, value in measured.items():
                    best[shape][key] = min(value, best[shape].get(key, float("inf")))
    finally:
        shutil.rmtree(workdir)
    rows = [{"shape": shape, **best[shape]} for shape in shapes]
    print(f"machine: {machine()}\n")
    print(
        "| nodes × existing pods | Go µs/pod | kscore lone pod µs | ratio | "
        "kscore batch µs/pod | ratio | batch, distinct selectors µs/pod | ratio | "
        "end to end µs/pod | ratio |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        g = r["go_us_per_pod"]
        print(
            f"| {r['shape'].replace('x', ' × ')} | {g:,.1f} | {r['lone_us']:,.1f} | "
            f"{g / r['lone_us']:,.1f}× | {r['batch_us_per_pod']:,.2f} | "
            f"{g / r['batch_us_per_pod']:,.0f}× | {r['distinct_us_per_pod']:,.2f} | "
            f"{g / r['distinct_us_per_pod']:,.0f}× | {r['e2e_us_per_pod']:,.1f} | "
            f"{g / r['e2e_us_per_pod']:,.0f}× |"
        )
    if args.json:
        Path(args.json).write_text(json.dumps({"machine": machine(), "rows": rows}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
