"""Reading clusters: µs per object and peak memory, JSON and YAML, as kubectl prints them.

    python benchmarks/ingest.py [--nodes 1000 --existing 10000 --pending 20001]
                                [--statefulset 80000] [--rounds 3] [--json FILE]

Writes the shape of Go's SelectorSpread benchmark (``manifests.go_shape_objects``) as
one ``kubectl get -o json`` List (pretty-printed, 4 spaces) and as ``-o yaml``, and
times, best of ``--rounds`` in fresh processes:

* ``load``: ``kscore_fast.load_cluster`` (read, decode, validate, build the columnar
  snapshot), µs per object, on every core and in one process (``KSCORE_READ_WORKERS=1``);
* the floors no reader can go under: msgspec skimming the JSON (decoding each object's
  ``kind`` only, i.e. scanning the bytes) and PyYAML's C loader parsing the YAML items
  into Python objects (in pieces of 200 items, garbage collection off, as kscore does);
* for JSON, msgspec decoding it into kscore's typed structures alone
  (``kscore_fast.io.schema``: the fields the scheduler reads, nothing validated or built),
  in one process: what reading costs before any check or column;
* peak memory (``VmHWM``) of the process that loaded the cluster, and the processor
  time of every process that read it (workers included) per object.

``--statefulset N`` adds the StatefulSet-heavy case (N pods each with its own
``statefulset.kubernetes.io/pod-name``, one Service selecting ``web-0`` by it) run end to
end through ``kscore score --scores none``: its peak memory must stay linear in pods.
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

from benchmarks.manifests import go_shape_objects, statefulset_objects, write_list  # noqa: E402

_PROBE = r"""
import json, os, resource, sys, time
what, path = sys.argv[1], sys.argv[2]
def cpu():
    return sum(getattr(resource.getrusage(who), f) for f in ("ru_utime", "ru_stime")
               for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
if what == "load":
    from kscore_fast.api import load_cluster  # (imports numba: not timed)
    cpu0, t0 = cpu(), time.perf_counter()
    cluster = load_cluster([path])
    n = len(cluster.snapshot.pods) + len(cluster.batch) + cluster.snapshot.n_nodes
elif what == "json-typed":
    from kscore_fast.io.schema import json_decoder
    data = open(path, "rb").read()
    cpu0, t0 = cpu(), time.perf_counter()
    n = len(json_decoder.decode(data).items)
elif what == "json-floor":
    import msgspec
    class Kind(msgspec.Struct):
        kind: str | None = None
    class Doc(msgspec.Struct):
        items: list[Kind]
    data = open(path, "rb").read()
    cpu0, t0 = cpu(), time.perf_counter()
    n = len(msgspec.json.decode(data, type=Doc).items)
else:  # PyYAML's C loader on the items, a megabyte at a time as kscore feeds it
    import gc, yaml
    text = open(path, encoding="utf-8").read()
    body = text[text.index("\nitems:\n") + 8 : text.rindex("\nkind: ")]
    pieces, n = body.split("\n- "), 0
    gc.disable()
    cpu0, t0 = cpu(), time.perf_counter()
    for i in range(0, len(pieces), 200):
        n += len(yaml.load("- " + "\n- ".join(pieces[i : i + 200]).lstrip("- "),
                           Loader=yaml.CSafeLoader))
seconds = time.perf_counter() - t0
while True:  # reap the workers (kscore reaps those still ending later): count their time
    try:
        os.waitpid(-1, 0)
    except ChildProcessError:
        break
print(json.dumps({"seconds": seconds, "cpu_seconds": cpu() - cpu0, "objects": n,
                  "peak_bytes": peak()}))
"""
# VmHWM: this process's peak resident memory (ru_maxrss would include the parent's, from
# before exec)
_PEAK = """
def peak():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
"""


_SCORE = """
import sys, time
from kscore_fast.cli import main
t = time.perf_counter()
rc = main(sys.argv[1:])
print(time.perf_counter() - t, peak())
sys.exit(rc)
"""


def probe(what: str, path: Path, workers: int = 0) -> dict[str, float]:
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    if workers:
        env["KSCORE_READ_WORKERS"] = str(workers)
    proc = subprocess.run(
        [sys.executable, "-c", _PEAK + _PROBE, what, str(path)],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    return json.loads(proc.stdout)


def best(what: str, path: Path, rounds: int, workers: int = 0) -> dict[str, float]:
    runs = [probe(what, path, workers) for _ in range(rounds)]
    return {
        "us_per_object": min(r["seconds"] for r in runs) / runs[0]["objects"] * 1e6,
        # processor time of every process (workers included): on a machine shared with
        # other work the wall time drifts, this much less
        "cpu_us_per_object": min(r["cpu_seconds"] for r in runs) / runs[0]["objects"] * 1e6,
        "objects": runs[0]["objects"],
        "peak_mb": min(r["peak_bytes"] for r in runs) / 2**20,
    }


def statefulset_peak(pods: int, workdir: Path, rounds: int) -> dict[str, float]:
    path = write_list(statefulset_objects(1000, pods), workdir / "statefulset.json", "json")
    peaks, seconds = [], []
    for _ in range(rounds):
        cmd = [sys.executable, "-c", _PEAK + _SCORE, "score", str(path), "--scores", "none",
               "--quiet", "-o", os.devnull]  # fmt: skip
        out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.split()
        seconds.append(float(out[0]))
        peaks.append(int(out[1]) / 2**20)
    return {
        "pods": pods,
        "file_mb": path.stat().st_size / 2**20,
        "seconds": min(seconds),
        "peak_mb": min(peaks),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nodes", type=int, default=1000)
    ap.add_argument("--existing", type=int, default=10_000)
    ap.add_argument("--pending", type=int, default=20_001)
    ap.add_argument("--statefulset", type=int, default=0, metavar="PODS")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--json", metavar="FILE")
    args = ap.parse_args()
    report: dict[str, object] = {}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for fmt in ("json", "yaml"):
            objects = go_shape_objects(args.nodes, args.existing, args.pending)
            path = write_list(objects, work / f"cluster.{fmt}", fmt)
            load = best("load", path, args.rounds)
            serial = best("load", path, args.rounds, workers=1)
            floor = best(f"{fmt}-floor", path, args.rounds)
            report[fmt] = {"file_mb": path.stat().st_size / 2**20, "load": load,
                           "one_process": serial, "floor": floor}  # fmt: skip
            if fmt == "json":
                report[fmt]["typed"] = best("json-typed", path, args.rounds)
            path.unlink()
        if args.statefulset:
            report["statefulset"] = statefulset_peak(args.statefulset, work, args.rounds)
    cores = os.cpu_count()
    print(f"| input | objects | file MB | load µs/object ({cores} cores) | one process | "
          "typed decoding alone, one process | floor, one process | peak MB | "
          "CPU µs/object, all processes |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|---|")
    for fmt in ("json", "yaml"):
        r = report[fmt]
        load, serial, floor = r["load"], r["one_process"], r["floor"]
        typed = f"{r['typed']['us_per_object']:.1f}" if "typed" in r else "n/a"
        print(
            f"| {fmt} | {load['objects']:,} | {r['file_mb']:,.0f} | {load['us_per_object']:.1f} "
            f"| {serial['us_per_object']:.1f} | {typed} | {floor['us_per_object']:.1f} "
            f"| {load['peak_mb']:,.0f} | {load['cpu_us_per_object']:.1f} |"
        )
    if "statefulset" in report:
        s = report["statefulset"]
        print(
            f"\nStatefulSet-heavy, `kscore score --scores none`: {s['pods']:,} pods "
            f"({s['file_mb']:,.0f} MB of JSON), {s['seconds']:.1f} s, peak {s['peak_mb']:,.0f} MB"
        )
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
