"""Regenerate data/golden/: scenarios and the real kube-scheduler's output for them.

    python benchmarks/goref/make_golden.py        # needs benchmarks/goref/bin/goref

Writes ``data/golden/selectorspread.jsonl.gz``: one JSON object per line with ``name``,
``flags`` (goref's command line), ``kwargs`` (the same for ``kscore_fast.score``),
``input`` (a v1 List) and ``output`` (goref's document). tests/test_golden.py replays them
without Go.
"""

from __future__ import annotations

import gzip
import io
import json
import sys
import tempfile
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.goref import goref_missing, run_goref  # noqa: E402
from tests.scenarios import scenario  # noqa: E402

OUT = ROOT / "data" / "golden" / "selectorspread.jsonl.gz"

FLAG_SETS = [
    ({}, []),
    ({"plugins": ""}, ["--plugins", ""]),
    ({"plugins": "SelectorSpread=3", "seed": 7}, ["--plugins", "SelectorSpread=3", "--seed", "7"]),
    ({"percentage_of_nodes_to_score": 100}, ["--percentage-of-nodes-to-score", "100"]),
    ({"percentage_of_nodes_to_score": 30}, ["--percentage-of-nodes-to-score", "30"]),
]


def cases():
    for i in range(260):
        kwargs, flags = FLAG_SETS[i % len(FLAG_SETS)]
        yield f"small-{i}", scenario(500_000 + i), kwargs, flags
    for i in range(30):
        kwargs, flags = FLAG_SETS[i % len(FLAG_SETS)]
        objs = scenario(600_000 + i, max_nodes=300, max_pods=800, max_pending=12)
        yield f"rotating-{i}", objs, kwargs, flags
    embedded = ROOT / "data" / "embedded"
    objs = [yaml.safe_load(f.read_text()) for f in sorted(embedded.glob("*.yaml"))]
    for kwargs, flags in FLAG_SETS[:4]:
        yield f"embedded{''.join(flags).replace('-', '')}", objs, kwargs, flags


def main() -> int:
    if why := goref_missing():
        print(why, file=sys.stderr)
        return 1
    OUT.parent.mkdir(parents=True, exist_ok=True)
    n = 0
    raw = OUT.open("wb")
    gz = gzip.GzipFile(fileobj=raw, mode="wb", mtime=0)  # mtime 0: same input, same bytes
    with tempfile.TemporaryDirectory() as tmp, raw, gz, io.TextIOWrapper(gz, "utf-8") as out:
        for name, objs, kwargs, flags in cases():
            doc = {"apiVersion": "v1", "kind": "List", "items": objs}
            path = Path(tmp) / f"{name}.json"
            path.write_text(json.dumps(doc))
            output = run_goref([path], flags)
            line = {"name": name, "flags": flags, "kwargs": kwargs, "input": doc, "output": output}
            out.write(json.dumps(line, separators=(",", ":"), sort_keys=True) + "\n")
            n += 1
    print(f"wrote {n} cases to {OUT.relative_to(ROOT)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
