"""Run the Go reference harness (benchmarks/goref) and compare its output with kscore's."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
GOREF = Path(os.environ.get("KSCORE_GOREF", ROOT / "benchmarks" / "goref" / "bin" / "goref"))


def goref_missing() -> str | None:
    """Why goref cannot run here, or None."""
    if not GOREF.exists():
        return (
            f"goref is not built ({GOREF}): run benchmarks/goref/build.sh (needs Go), or set "
            "KSCORE_GOREF to a built goref"
        )
    return None


def run_goref(paths: list[str | Path], flags: list[str], command: str = "score"
              ) -> dict[str, Any]:  # fmt: skip
    """``goref COMMAND PATHS... --quiet FLAGS``'s JSON document."""
    proc = subprocess.run(
        [str(GOREF), command, *map(str, paths), "--quiet", *flags],
        capture_output=True,
        text=True,
        timeout=120,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"goref failed ({proc.returncode}): {proc.stderr.strip()}")
    return json.loads(proc.stdout)


def compare(kscore: dict[str, Any], go: dict[str, Any], top_k: int | None = None) -> list[str]:
    """Differences between two documents of docs/contract.md, as readable lines.

    Everything must be equal except the host, which must be one of Go's top-total nodes
    (both sides choose uniformly among them, from different random sources). With
    ``--scores top:K`` (``top_k``) a list of K equal totals may hide more tied nodes, and
    kscore's list starts with its own host: it must equal that host's entry followed by
    Go's list without it (goref: total descending, ties in list order), cut to K.
    """
    diffs: list[str] = []
    kr, gr = kscore["results"], go["results"]
    if [r["pod"] for r in kr] != [r["pod"] for r in gr]:
        return [f"pods differ: {[r['pod'] for r in kr]} vs {[r['pod'] for r in gr]}"]
    for k, g in zip(kr, gr, strict=True):
        pod = k["pod"]
        for field in ("feasibleNodes", "evaluatedNodes", "error"):
            if k[field] != g[field]:
                diffs.append(f"{pod}: {field} {k[field]!r} != go {g[field]!r}")
        if k.get("volumeBindings") != g.get("volumeBindings"):  # (simulate: Reserve's)
            diffs.append(f"{pod}: volumeBindings {k.get('volumeBindings')!r} != go "
                         f"{g.get('volumeBindings')!r}")  # fmt: skip
        if top_k is not None and k["scores"] and g["scores"]:
            first, top = k["scores"][0], max(s["total"] for s in g["scores"])
            if first["node"] != k["host"] or first["total"] != top:
                diffs.append(f"{pod}: top:{top_k} list starts with {first} (host {k['host']})")
            rest = sorted(
                (s for s in g["scores"] if s["node"] != k["host"]), key=lambda s: -s["total"]
            )
            if k["scores"][1:] != rest[: top_k - 1]:
                diffs.append(f"{pod}: top:{top_k} {k['scores']} != host + go {g['scores']}")
        elif k["scores"] != g["scores"]:
            kmap = {s["node"]: s for s in k["scores"]}
            gmap = {s["node"]: s for s in g["scores"]}
            if list(kmap) != list(gmap):
                diffs.append(f"{pod}: scored nodes {list(kmap)} != go {list(gmap)}")
            for node in kmap.keys() & gmap.keys():
                if kmap[node] != gmap[node]:
                    diffs.append(f"{pod} on {node}: {kmap[node]} != go {gmap[node]}")
        if g["scores"]:
            top = max(s["total"] for s in g["scores"])
            ties = {s["node"] for s in g["scores"] if s["total"] == top}
            hidden = top_k is not None and len(ties) == top_k
            if k["host"] not in ties and not hidden:
                diffs.append(f"{pod}: host {k['host']!r} not among go's top nodes {sorted(ties)}")
        elif k["host"] != g["host"]:
            diffs.append(f"{pod}: host {k['host']!r} != go {g['host']!r}")
    return diffs


def run_differences(paths: list[Path], config: Path, seed: int, mode: str) -> list[str]:
    """kscore against goref on the cluster ``paths`` under the configuration file ``config``:
    ``score`` (:func:`compare`), or a whole ``simulate`` run with Go's tie-breaks (the
    same, and every host, over the results goref's timing does not decide)."""
    from benchmarks.timing import timing_free
    from kscore_fast.api import load_cluster, score, simulate

    flags = ["--config", str(config), "--seed", str(seed)]
    if mode == "score":
        ours = score(load_cluster(paths), config=config, seed=seed).to_dict()
        return compare(ours, run_goref(paths, flags))
    ours = simulate(load_cluster(paths), config=config, seed=seed,
                    tie_break="go-rand").to_dict()  # fmt: skip
    go = run_goref(paths, [*flags, "--plugin-metrics-draw"], command="simulate")
    n = timing_free(go["results"])
    ours["results"], go["results"] = ours["results"][:n], go["results"][:n]
    diffs = compare(ours, go)
    return diffs + [f"{k['pod']}: host {k['host']!r} != go {g['host']!r}"
                    for k, g in zip(ours["results"], go["results"], strict=True)
                    if k["host"] != g["host"]]  # fmt: skip
