"""Shrink an event script on which kscore's Simulator and goref differ.

    python -m tests.differential.minimize_events FAMILY SEED [--ops LIST] [--max-ops N]
        [--max-nodes N --max-pods N --max-pending N] [-o DIR]

rebuilds the scenario and the script of :mod:`tests.differential.test_goref_events`
(``FAMILY`` basic, pts, ipa or mixed; ``--ops`` and the sizes its test used), cuts the
script after the first differing cycle, drops ops and then objects of the cluster (delta
debugging) and then fields of the remaining objects while a difference remains. It
prints the difference lines and writes ``scenario.json``, ``config.yaml`` and
``events.jsonl`` to ``DIR`` (default ``minimized-events-FAMILY-SEED``), replayed with
``goref simulate scenario.json --config config.yaml --seed SEED --plugin-metrics-draw
--events events.jsonl`` and with :func:`tests.differential.events.replay`.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import yaml

from . import events
from .minimize import _ddmin, _field_paths, _without


def _cut(ops: list[events.Op], cycle: int) -> list[events.Op]:
    """The ops up to the schedule op of cycle ``cycle`` (numbered from 0)."""
    seen = -1
    for i, op in enumerate(ops):
        seen += op["op"] == "schedule"
        if seen == cycle:
            return ops[: i + 1]
    return ops


def _first_cycle(diffs: list[str]) -> int:
    for line in diffs:
        if line.startswith("cycle "):
            return int(line.split()[1].rstrip(":"))
    return 1 << 30


def _drop_fields(objs: list[events.Obj], fails: Callable[[list[events.Obj]], bool]
                 ) -> list[events.Obj]:  # fmt: skip
    """Drop fields of the objects (:func:`minimize._field_paths`) while ``fails`` holds."""
    changed = True
    while changed:
        changed = False
        for i, obj in enumerate(objs):
            for path in _field_paths(obj):
                new = _without(obj, path)
                candidate = None if new is None else [*objs[:i], new, *objs[i + 1 :]]
                if candidate is not None and fails(candidate):
                    objs, changed = candidate, True
                    break
    return objs


def minimize(sc: events.Scenario, ops: list[events.Op], tmp: Path
             ) -> tuple[list[events.Obj], list[events.Op], list[str]]:  # fmt: skip
    """The smallest cluster and script found that still differ, and their differences."""
    calls = 0

    def diffs(objs: list[events.Obj], script: list[events.Op]) -> list[str]:
        nonlocal calls
        calls += 1
        return events.replay_differences(sc, objs, script, tmp)

    objs = sc.objects
    first = diffs(objs, ops)
    if not first:
        raise SystemExit("the script replayed gives no difference")
    ops = _cut(ops, _first_cycle(first))
    ops = _ddmin(ops, lambda c: bool(diffs(objs, c)))
    objs = _ddmin(objs, lambda c: bool(diffs(c, ops)))
    objs = _drop_fields(objs, lambda c: bool(diffs(c, ops)))
    carried = [i for i, op in enumerate(ops) if isinstance(op.get("node", op.get("pod")), dict)]

    def with_objects(new: list[events.Obj]) -> list[events.Op]:
        script = list(ops)
        for i, obj in zip(carried, new, strict=True):
            script[i] = {**ops[i], "node" if "node" in ops[i] else "pod": obj}
        return script

    shrunk = _drop_fields([ops[i].get("node", ops[i].get("pod")) for i in carried],
                          lambda c: bool(diffs(objs, with_objects(c))))  # fmt: skip
    ops = with_objects(shrunk)
    print(f"{calls} runs", file=sys.stderr)
    return objs, ops, diffs(objs, ops)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tests.differential.minimize_events")
    p.add_argument("family", choices=["basic", "pts", "ipa", "mixed"])
    p.add_argument("seed", type=int)
    p.add_argument("--ops", default=",".join(events.OPS))
    p.add_argument("--max-ops", type=int, default=60)
    p.add_argument("--max-nodes", type=int, default=12)
    p.add_argument("--max-pods", type=int, default=30)
    p.add_argument("--max-pending", type=int, default=16)
    p.add_argument("-o", "--out", type=Path)
    a = p.parse_args(argv)
    kinds = tuple(a.ops.split(","))
    sc = events.scenario(a.family, a.seed, kinds, max_nodes=a.max_nodes, max_pods=a.max_pods,
                         max_pending=a.max_pending)  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        cluster, config = events.write_inputs(sc, sc.objects, Path(tmp))
        script = events.draw_script(sc, events.new_simulator(cluster, config, a.seed), kinds,
                                    a.max_ops)  # fmt: skip
        objs, ops, lines = minimize(sc, script.ops, Path(tmp))
    out = a.out or Path(f"minimized-events-{a.family}-{a.seed}")
    out.mkdir(parents=True, exist_ok=True)
    (out / "scenario.json").write_text(json.dumps({"apiVersion": "v1", "kind": "List",
                                                   "items": objs}, indent=1))  # fmt: skip
    (out / "config.yaml").write_text(yaml.safe_dump(sc.config))
    (out / "events.jsonl").write_text("".join(json.dumps(op) + "\n" for op in ops))
    print(f"{len(objs)} objects, {len(ops)} ops in {out}/ (seed {a.seed})")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
