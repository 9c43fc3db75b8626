"""Shrink a scenario on which kscore and goref differ to the objects the difference needs.

    python -m tests.differential.minimize FAMILY SEED [--max-nodes N --max-pods N
                                                       --max-pending N] [-o DIR]

rebuilds the scenario of :mod:`tests.differential.test_goref_profile` (``FAMILY`` basic,
pts, ipa or mixed; the sizes its test used), keeps one differing pending pod, then drops
objects (delta debugging) and then fields of the pods and labels of the nodes while a
difference remains. It prints the remaining difference lines and writes
``scenario.json`` and ``config.yaml`` to ``DIR`` (default ``minimized-FAMILY-SEED``), to
be replayed with ``kscore score`` and ``goref score --config``.
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from ..scenarios_profile import profile_config, profile_scenario
from .test_goref_profile import compare_objects

Objects = list[dict[str, Any]]


def _is_pending(obj: dict[str, Any]) -> bool:
    return obj["kind"] == "Pod" and "nodeName" not in obj.get("spec", {})


def _ddmin(items: list, fails: Callable[[list], bool]) -> list:
    """The classic delta debugging: a smaller list on which ``fails`` still holds."""
    n = 2
    while len(items) >= 2:
        size = -(-len(items) // n)
        chunks = [items[i : i + size] for i in range(0, len(items), size)]
        for i in range(len(chunks)):
            rest = [x for j, c in enumerate(chunks) if j != i for x in c]
            if fails(rest):
                items, n = rest, max(n - 1, 2)
                break
        else:
            if n >= len(items):
                break
            n = min(n * 2, len(items))
    if len(items) == 1 and fails([]):
        return []
    return items


def _field_paths(obj: dict[str, Any]) -> list[tuple]:
    """Droppable parts of an object: labels, pod spec fields, list entries of affinity."""
    paths: list[tuple] = []
    for key in obj.get("metadata", {}).get("labels", {}):
        paths.append(("metadata", "labels", key))
    for key in ("deletionTimestamp", "ownerReferences"):
        if key in obj.get("metadata", {}):
            paths.append(("metadata", key))
    if "nominatedNodeName" in obj.get("status", {}):
        paths.append(("status", "nominatedNodeName"))
    spec = obj.get("spec", {})
    if obj["kind"] == "Pod":
        paths += [("spec", "containers", i) for i in range(1, len(spec.get("containers", [])))]
        for key in spec:
            if key not in ("containers", "nodeName"):
                paths.append(("spec", key))
        for i, c in enumerate(spec.get("containers", [])):
            for key in c:
                if key not in ("name", "image"):
                    paths.append(("spec", "containers", i, key))
        for kind, part in spec.get("affinity", {}).items():
            for lst, terms in part.items():
                if isinstance(terms, list):
                    paths += [("spec", "affinity", kind, lst, i) for i in range(len(terms))]
                else:
                    paths.append(("spec", "affinity", kind, lst))
        for i in range(len(spec.get("topologySpreadConstraints", []))):
            paths.append(("spec", "topologySpreadConstraints", i))
    elif obj["kind"] == "Node":
        for key in ("taints", "unschedulable"):
            if key in spec:
                paths.append(("spec", key))
    return paths


def _without(obj: dict[str, Any], path: tuple) -> dict[str, Any] | None:
    new = copy.deepcopy(obj)
    parent = new
    for step in path[:-1]:
        parent = parent[step]
    if isinstance(parent, list):
        if len(parent) == 1:
            return None  # an empty list is often invalid: drop its holder instead
        parent.pop(path[-1])
    else:
        del parent[path[-1]]
    return new


def minimize(objs: Objects, config: dict[str, Any], seed: int, tmp: Path) -> tuple[Objects, list]:
    """The smallest objects found that still differ, and their difference lines."""
    calls = 0

    def diffs(candidate: Objects) -> list[str]:
        nonlocal calls
        calls += 1
        try:
            return compare_objects(tmp, candidate, config, seed)
        except Exception as exc:  # an invalid candidate (both sides refuse it) is no repro
            return [] if calls > 1 else [f"error: {exc}"]

    first = diffs(objs)
    if not first:
        raise SystemExit("no difference on this scenario")
    # one differing pending pod
    bad = {line.split(":")[0].split(" on ")[0] for line in first}
    pending = [o for o in objs if _is_pending(o)]
    for pod in pending:
        name = f"{pod['metadata'].get('namespace', 'default')}/{pod['metadata']['name']}"
        if name in bad:
            others = [o for o in objs if not _is_pending(o) or o is pod]
            if diffs(others):
                objs = others
                break
    objs = _ddmin(objs, lambda c: any(_is_pending(o) for o in c) and bool(diffs(c)))
    changed = True
    while changed:
        changed = False
        for i in range(len(objs)):
            for path in _field_paths(objs[i]):
                new = _without(objs[i], path)
                if new is None:
                    continue
                candidate = [*objs[:i], new, *objs[i + 1 :]]
                if diffs(candidate):
                    objs, changed = candidate, True
                    break
    print(f"{calls} runs", file=sys.stderr)
    return objs, diffs(objs)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tests.differential.minimize")
    p.add_argument("family", choices=["basic", "pts", "ipa", "mixed"])
    p.add_argument("seed", type=int)
    p.add_argument("--max-nodes", type=int)
    p.add_argument("--max-pods", type=int)
    p.add_argument("--max-pending", type=int)
    p.add_argument("-o", "--out", type=Path)
    a = p.parse_args(argv)
    sizes = {k: v for k, v in (("max_nodes", a.max_nodes), ("max_pods", a.max_pods),
                               ("max_pending", a.max_pending)) if v is not None}  # fmt: skip
    objs = profile_scenario(a.seed, family=a.family, **sizes)
    config = profile_config(a.seed, family=a.family)
    with tempfile.TemporaryDirectory() as tmp:
        small, lines = minimize(objs, config, a.seed, Path(tmp))
    out = a.out or Path(f"minimized-{a.family}-{a.seed}")
    out.mkdir(parents=True, exist_ok=True)
    (out / "scenario.json").write_text(json.dumps({"apiVersion": "v1", "kind": "List",
                                                   "items": small}, indent=1))  # fmt: skip
    (out / "config.yaml").write_text(yaml.safe_dump(config))
    flags = f"--seed {a.seed}" + (" --scores top:2" if a.seed % 5 == 4 else "")
    print(f"{len(small)} objects in {out}/scenario.json (config {out}/config.yaml, {flags})")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
