"""What a lone pod costs through ``score`` on the default profile.

    python benchmarks/lone_pod.py [--pods 300] [--rounds 7] [--json FILE]

On openb's 1,523 nodes (imported from the trace, see ``benchmarks/datasets.py``), the
default profile, every node's scores kept: the snapshot's own preparation kept (as
``benchmarks/timing.py``'s ``scorer``: Go's snapshot and informers are built before its
timer), each batch's preparation timed (PreFilter and PreScore):

* ``same``: one pending pod alone, its batch's cache cleared before each call;
* ``distinct``: ``--pods`` pending pods, each a batch of its own over the snapshot, one
  after the other (openb's pods differ in their requests: 51 shapes in 1,201);
* ``new``: the same pods, nothing of a former lone pod kept on the snapshot (a pod no
  former one shares a field with).

Prints the best wall and process CPU time per pod, in µs, over ``--rounds`` rounds.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.compare_simulate import openb_trace  # noqa: E402
from benchmarks.datasets import OPENB, openb_missing  # noqa: E402
from kscore_fast import load_cluster, retain_freed_memory  # noqa: E402
from kscore_fast.api import _framework  # noqa: E402
from kscore_fast.model.snapshot import Cluster, ClusterSnapshot, PodBatch  # noqa: E402

#: the snapshot's cache entries of lone pods (:mod:`kscore_fast.framework.lone_states`)
LONE_FAMILIES = ("lone setup", "lone state")


def lone_batch(cluster: Cluster, i: int) -> PodBatch:
    """Pending pod ``i`` of ``cluster`` as a batch of its own over the same snapshot."""
    b, at = cluster.batch, [i]
    return PodBatch(
        pods=[b.pods[i]], ns=b.ns[at], labels=cluster.snapshot.labels.table([b.pods[i].labels]),
        controller_kind=b.controller_kind[at], controller_idx=b.controller_idx[at],
        has_spread_constraints=b.has_spread_constraints[at], nominated=b.nominated[at],
        names=[b.names[i]],
    )  # fmt: skip


def forget_lone_pods(snapshot: ClusterSnapshot) -> None:
    for key in [k for k in snapshot.cache if isinstance(k, tuple) and k[0] in LONE_FAMILIES]:
        del snapshot.cache[key]


def best(fn: Callable[[], object], rounds: int, per_call: int) -> tuple[float, float]:
    """Best wall and CPU µs per pod over ``rounds`` calls of ``fn`` (``per_call`` pods)."""
    wall = cpu = float("inf")
    for _ in range(rounds):
        w0, c0 = time.perf_counter(), time.process_time()
        fn()
        wall = min(wall, (time.perf_counter() - w0) * 1e6 / per_call)
        cpu = min(cpu, (time.process_time() - c0) * 1e6 / per_call)
    return wall, cpu


def measure(cluster: Cluster, n: int, rounds: int) -> dict[str, tuple[float, float]]:
    fw, _ = _framework(cluster, None, None, None, None)
    snapshot = cluster.snapshot
    batches = [lone_batch(cluster, i) for i in range(min(n, len(cluster.batch)))]
    one = batches[0]

    def same() -> None:
        for _ in range(50):
            one.cache.clear()
            fw.run(snapshot, one, scores="all")

    def distinct() -> None:
        for b in batches:
            b.cache.clear()
            fw.run(snapshot, b, scores="all")

    def new() -> None:
        for b in batches:
            forget_lone_pods(snapshot)
            b.cache.clear()
            fw.run(snapshot, b, scores="all")

    distinct()  # (kernels loaded, the snapshot's own parts prepared)
    return {"same": best(same, rounds, 50), "distinct": best(distinct, rounds, len(batches)),
            "new": best(new, max(1, rounds // 3), len(batches))}  # fmt: skip


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pods", type=int, default=300)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    missing = openb_missing()
    if missing:
        print(f"lone_pod: {missing}", file=sys.stderr)
        return 2
    retain_freed_memory()
    with tempfile.TemporaryDirectory() as tmp:
        cluster = load_cluster([openb_trace(OPENB, 2 * args.pods, Path(tmp))])
    out = measure(cluster, args.pods, args.rounds)
    print("| lone pod (openb, 1,523 nodes, default profile) | wall µs | CPU µs |")
    print("|---|---:|---:|")
    for name, (wall, cpu) in out.items():
        print(f"| {name} | {wall:.1f} | {cpu:.1f} |")
    if args.json:
        args.json.write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
