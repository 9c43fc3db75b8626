"""The openb trace replayed at its own timestamps through the scheduling queue, Go and
kscore_fast side by side (docs/queue.md).

    python benchmarks/replay_timed_openb.py [--pods N] [--nodes N] [--rounds 3] [--seed 1]
                                            [--json FILE]

openb's full node list (1,523 nodes) and its ``default`` pod list (the first ``--pods``
pods; default all 6,090 kept), imported with ``kscore import openb --events
--qos-priorities``: each pod arrives at its ``creation_time`` and leaves at its
``deletion_time``, with ``spec.priority`` from its QoS class (a made-up mapping:
Guaranteed 3000, LS 2000, Burstable 1000, BE 0). The default profile, Go's tie-breaks.
``--nodes N`` keeps the first N nodes only: the trace then over-commits them, and the
queue works (pods fail, wait, and are tried again on deletions and every 60-90 s).

* loop: the replay loop alone (events applied, queue flushes, scheduling cycles), kscore's
  :meth:`TimedSimulator.replay` against ``goref replay --timing``'s loop time (the real
  ``PriorityQueue``, cache and framework), in alternating rounds (best of each);
* end to end: ``kscore simulate DIR --events FILE`` against ``goref replay``, whole
  processes (reading, preparing, writing; kscore's kernels cached);
* the two documents compared attempt by attempt (they must be equal).
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

from benchmarks.compare_go import machine  # noqa: E402
from benchmarks.compare_profile import GOREF  # noqa: E402
from benchmarks.datasets import OPENB, openb_missing  # noqa: E402
from kscore_fast import load_cluster  # noqa: E402
from kscore_fast.io.openb import import_openb  # noqa: E402
from kscore_fast.model.objects import object_key  # noqa: E402
from kscore_fast.queue import TimedSimulator, read_events  # noqa: E402
from kscore_fast.queue.replay import _loaded_with_cluster  # noqa: E402
from tests.differential.timed import differences  # noqa: E402

CONFIG = ROOT / "benchmarks" / "goref" / "testdata" / "filters" / "default-v1beta3.yaml.cfg"


def import_trace(work: Path, pods: int | None, nodes: int | None) -> tuple[Path, Path]:
    def head(name: str, n: int | None) -> Path:
        lines = (OPENB / name).read_text().splitlines()
        path = work / name
        path.write_text("\n".join([lines[0], *(lines[1:] if n is None else lines[1 : n + 1])]))
        return path

    pods_csv = head("openb_pod_list_default.csv", pods)
    nodes_csv = head("openb_node_list_all_node.csv", nodes)
    cluster, events = work / "openb", work / "events.jsonl"
    import_openb(nodes_csv, pods_csv, cluster, events=events, qos_priorities=True)
    return cluster, events


def kscore_loop(cluster: Path, events: Path, seed: int) -> tuple[float, dict]:
    evs = read_events(events)
    later = _loaded_with_cluster(evs)
    loaded = load_cluster([cluster], objects=[e.arg for e in later])
    timed = TimedSimulator(loaded, config=CONFIG, tie_break="go-rand", seed=seed,
                           later=[object_key(e.arg) for e in later])  # fmt: skip
    t0 = time.perf_counter()
    timed.replay(evs)
    return time.perf_counter() - t0, timed.result().to_dict()


def go_loop(cluster: Path, events: Path, seed: int) -> tuple[float, float, dict]:
    cmd = [
        str(GOREF),
        "replay",
        str(cluster),
        "--events",
        str(events),
        "--config",
        str(CONFIG),
        "--seed",
        str(seed),
        "--plugin-metrics-draw",
        "--quiet",
        "--timing",
    ]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, check=True)
    wall = time.perf_counter() - t0
    line = next(x for x in proc.stderr.splitlines() if x.startswith("goref-timing: "))
    return json.loads(line.split(": ", 1)[1])["loopNs"] / 1e9, wall, json.loads(proc.stdout)


def kscore_process(cluster: Path, events: Path, seed: int) -> float:
    cmd = [sys.executable, "-m", "kscore_fast", "simulate", str(cluster), "--events",
           str(events), "--config", str(CONFIG), "--tie-break", "go-rand", "--seed",
           str(seed), "--quiet", "-o", os.devnull]  # fmt: skip
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True)
    return time.perf_counter() - t0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pods", type=int, default=None)
    ap.add_argument("--nodes", type=int, default=None)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    if why := openb_missing():
        print(f"replay_timed_openb: {why}", file=sys.stderr)
        return 2
    if not GOREF.exists():
        print(f"replay_timed_openb: goref is not built ({GOREF})", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        cluster, events = import_trace(Path(tmp), args.pods, args.nodes)
        ours, go_doc = None, None
        k_loop, g_loop, k_proc, g_proc = [], [], [], []
        kscore_loop(cluster, events, args.seed)  # kernels loaded
        for _ in range(args.rounds):  # alternating rounds: the machine drifts
            t, ours = kscore_loop(cluster, events, args.seed)
            k_loop.append(t)
            t, wall, go_doc = go_loop(cluster, events, args.seed)
            g_loop.append(t)
            g_proc.append(wall)
            k_proc.append(kscore_process(cluster, events, args.seed))
        assert ours is not None and go_doc is not None
        diffs = differences(ours, go_doc)
    attempts = len(ours["attempts"])
    out = {
        "machine": machine(), "attempts": attempts,
        "retries": sum(a["attempt"] > 1 for a in ours["attempts"]),
        "failed": sum(a["host"] is None for a in ours["attempts"]),
        "pending_at_end": len(ours["pending"]), "differences": len(diffs),
        "kscore_loop_s": min(k_loop), "go_loop_s": min(g_loop),
        "loop_ratio": min(g_loop) / min(k_loop),
        "kscore_process_s": min(k_proc), "go_process_s": min(g_proc),
        "process_ratio": min(g_proc) / min(k_proc),
    }  # fmt: skip
    print(json.dumps(out, indent=1))
    if args.json:
        args.json.write_text(json.dumps(out, indent=1))
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
