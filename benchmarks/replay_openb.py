"""Replay the openb trace through the Simulator: pods arrive at ``creation_time`` and
leave at ``deletion_time``, Go and kscore_fast side by side.

    python benchmarks/replay_openb.py [DIR] [--pods N] [--pct 0] [--seed 1] [--rounds 2]
                                      [--events FILE] [--no-go]

``DIR``: a ``kscore import openb`` output (default: openb's full node list and its
``default`` pod list, imported into a temporary folder, the first ``--pods`` pods). The
events: each pod's arrival, ``schedule`` (a pod that fits nowhere stays pending until
it leaves: no retry, no preemption), and its departure, ``delete`` (bound or waiting); in
time order, departures before arrivals at the same second, else in file order. kscore:
``Simulator(..., tie_break="go-rand").replay(events)`` with the full default profile,
timed from the loaded cluster (the plugins' preparation included). Go:
``goref simulate --events`` (the real scheduler cache: Schedule, assume, Reserve,
Permit, and ``RemovePod`` for departures) with the same seed; the hosts are compared
pod for pod and its time is reported beside (process time, reading included).
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
from benchmarks.compare_profile import GOREF, OPENB  # noqa: E402
from benchmarks.compare_simulate import CONFIG, openb_trace  # noqa: E402
from benchmarks.timing import timing_free  # noqa: E402
from kscore_fast import Simulator, load_cluster  # noqa: E402

CREATED = "openb.alibaba.com/creation-time"
DELETED = "openb.alibaba.com/deletion-time"


def trace_events(pods_json: Path) -> list[tuple[str, str]]:
    """(op, "namespace/name") in replay order: ``schedule`` at creation, ``delete`` at
    deletion (same second: deletions first, then arrivals in file order, then the
    departures of pods that arrived in that second)."""
    timed = []
    for i, pod in enumerate(json.loads(pods_json.read_text())["items"]):
        meta = pod["metadata"]
        times, key = meta.get("annotations", {}), f"{meta['namespace']}/{meta['name']}"
        created = int(times[CREATED])
        timed.append((created, 1, i, "schedule", key))
        if DELETED in times:  # (a pod gone the second it came: after its arrival)
            deleted = int(times[DELETED])
            timed.append((deleted, 2 if deleted == created else 0, i, "delete", key))
    return [(op, key) for *_, op, key in sorted(timed)]


def replay(sim: Simulator, events: list[tuple[str, str]]) -> dict[str, str | None]:
    """Run ``events`` (one compiled loop); each scheduled pod's host (None: it fit
    nowhere)."""
    result = sim.replay(events)
    return dict(zip(result.pod_names, result.host_names, strict=True))


def go_replay(cluster: Path, config: Path, events: Path, seed: int) -> tuple[dict, float]:
    """goref's hosts for the schedule events up to its first slow cycle (``timing_free``),
    and its wall time in seconds."""
    t0 = time.perf_counter()
    proc = subprocess.run(
        [str(GOREF), "simulate", str(cluster), "--config", str(config), "--seed", str(seed),
         "--plugin-metrics-draw", "--events", str(events), "--scores", "none", "--quiet"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    elapsed = time.perf_counter() - t0
    results = json.loads(proc.stdout)["results"]
    return {r["pod"]: r["host"] for r in results[: timing_free(results)]}, elapsed


def write_events(events: list[tuple[str, str]], path: Path) -> None:
    """The events as goref reads them (JSON Lines)."""
    path.write_text("".join(json.dumps({"op": op, "pod": key}) + "\n" for op, key in events))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir", nargs="?", type=Path)
    ap.add_argument("--pods", type=int, default=None, help="first N pods (default: all)")
    ap.add_argument("--pct", type=int, default=0, help="percentageOfNodesToScore")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--events", type=Path, help="also write the events (goref's format)")
    ap.add_argument("--no-go", action="store_true")
    ap.add_argument("--openb", type=Path, default=OPENB)
    args = ap.parse_args()
    print(machine())
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        cluster = args.dir or openb_trace(args.openb, args.pods, work)
        config = work / "config.yaml"
        config.write_text(CONFIG.format(pct=args.pct))
        events = trace_events(cluster / "pods.json")
        write_events(events, args.events or work / "events.jsonl")
        loaded = load_cluster([cluster])
        best, hosts = float("inf"), {}
        go_s, go_hosts = float("inf"), None
        for _ in range(args.rounds):
            t0 = time.perf_counter()
            sim = Simulator(loaded, config=config, seed=args.seed, tie_break="go-rand")
            hosts = replay(sim, events)
            best = min(best, time.perf_counter() - t0)
            if not args.no_go and GOREF.exists():
                go_hosts, s = go_replay(cluster, config, args.events or work / "events.jsonl",
                                        args.seed)  # fmt: skip
                go_s = min(go_s, s)
    n = sum(op == "schedule" for op, _ in events)
    placed = sum(h is not None for h in hosts.values())
    print(f"{n:,} arrivals, {len(events) - n:,} departures, {placed:,} placed; "
          f"kscore {best:.2f} s ({n / best:,.0f} arrivals/s)")  # fmt: skip
    if go_hosts is not None:
        same = sum(go_hosts.get(k, "?") == h for k, h in hosts.items())
        slow = "" if len(go_hosts) == n else " (the rest follow a slow cycle of Go's)"
        print(f"goref {go_s:.2f} s ({n / go_s:,.0f} arrivals/s, reading included): "
              f"{go_s / best:.0f}×; hosts equal to Go's: "
              f"{same:,}/{len(go_hosts):,}{slow}")  # fmt: skip
        return 0 if same == len(go_hosts) else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
