"""kscore's DefaultPreemption == the real plugin of kube-scheduler v1.23.6 (goref ``score
--explain``): random over-committed clusters (:mod:`tests.scenarios_preemption`) under
the default profile, every pod that fits nowhere explained against the snapshot. Equal:
whether the offset was drawn, the candidate nodes (as a set: the offsets are each side's
own draw), the tie set of ``pickOneNodeForPreemption``, and, when it has one node, the
nominated node, its victims in order and their PDB violations; else kscore's node is one
of Go's ties. ``KSCORE_DIFF_PREEMPTION_SCENARIOS`` (default 60) scenarios; ``-m slow``:
2,000 more, larger.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from benchmarks.timing import timing_free
from kscore_fast.api import load_cluster, score, simulate

from ..goref import GOREF, goref_missing, run_goref
from ..scenarios_preemption import preemption_scenario

pytestmark = [
    pytest.mark.goref,
    pytest.mark.skipif(goref_missing() is not None, reason=str(goref_missing())),
]

N_SCENARIOS = int(os.environ.get("KSCORE_DIFF_PREEMPTION_SCENARIOS", 60))
SEEDS = 3_000_000
DEFAULT_CONFIG = GOREF.parent.parent / "testdata" / "filters" / "default-v1beta3.yaml.cfg"


def differences(tmp_path, seed: int, **sizes) -> list[str]:
    return explain_differences(tmp_path, seed, preemption_scenario(seed, **sizes))


def explain_differences(tmp_path, seed: int, objects: list[dict],
                        config: Path | None = None) -> list[str]:  # fmt: skip
    """``score --explain`` of ``objects`` against goref's, under ``config`` (None: kscore's
    default profile, goref's ``DEFAULT_CONFIG``)."""
    path = tmp_path / f"scenario-{seed}.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objects}))
    ours = score(load_cluster([path]), config=config, seed=seed, scores="none",
                 explain=True).to_dict()  # fmt: skip
    go = run_goref([path], ["--config", str(config or DEFAULT_CONFIG), "--seed", str(seed),
                            "--explain", "--scores", "none"])  # fmt: skip
    mine = {r["pod"]: r for r in ours["results"]}
    diffs = []
    for g in go["results"]:
        k = mine.get(g["pod"])
        if k is None:
            diffs.append(f"{g['pod']}: missing")
            continue
        # (hosts are each side's own tie-break: only whether the pod fits is compared)
        if (k["host"] is None, k["error"]) != (g["host"] is None, g["error"]):
            diffs.append(f"{g['pod']}: {k['host']} {k['error']} != go {g['host']} {g['error']}")
            continue
        if g.get("postFilterCode") is None:  # (no FitError: PostFilter did not run)
            if "preemption" in k:
                diffs.append(f"{g['pod']}: explained, go ran no PostFilter")
            continue
        diffs += _preemption_differences(g["pod"], k.get("preemption"), g)
    return diffs


def _preemption_differences(pod: str, k: dict | None, g: dict) -> list[str]:
    if k is None:
        return [f"{pod}: not explained, go: {g['postFilterCode']}"]
    out = []
    drew = k.get("reason") not in ("not eligible to preempt", "no node where preemption might help")
    if drew != g["preemptionDraw"]:
        out.append(f"{pod}: drew {drew} != go {g['preemptionDraw']}")
    ties = sorted(k["ties"])
    if ties != sorted(g.get("preemptionTies") or []):
        out.append(f"{pod}: ties {ties} != go {g.get('preemptionTies')}")
    if k["candidates"] != len(g.get("preemptionCandidates") or []):
        out.append(f"{pod}: {k['candidates']} candidates != go {g.get('preemptionCandidates')}")
    if len(ties) == 1:
        if (k["nominatedNode"], k["victims"], k["pdbViolations"]) != (
            g["nominatedNode"], g["victims"], g["pdbViolations"]
        ):  # fmt: skip
            out.append(f"{pod}: {k['nominatedNode']} {k['victims']} {k['pdbViolations']} != "
                       f"go {g['nominatedNode']} {g['victims']} {g['pdbViolations']}")  # fmt: skip
    elif ties and k["nominatedNode"] not in g["preemptionTies"]:
        out.append(f"{pod}: {k['nominatedNode']} not among go's ties {g['preemptionTies']}")
    if not ties and k["nominatedNode"] is not None:
        out.append(f"{pod}: nominated {k['nominatedNode']}, go none")
    return out + error_differences(pod, k, g, ordered=False)


def error_differences(pod: str, k: dict, g: dict, ordered: bool = True) -> list[str]:
    """PostFilter's ``Error`` status (goref's code and message) against kscore's
    ``error`` (absent when Go's status is not an ``Error``). Not ``ordered``: the errors
    an aggregate of several joins (``[a, b]``, in the dry run's order, which starts at
    each side's own offset) as a set."""
    go_error = g["postFilterMessage"] if g.get("postFilterCode") == "Error" else None
    mine = k.get("error")
    if not ordered and mine and go_error and mine.startswith("[") and go_error.startswith("["):
        mine, go_error = (sorted(e[1:-1].split(", ")) for e in (mine, go_error))  # type: ignore[assignment]
    if mine != go_error:
        return [f"{pod}: PostFilter error {k.get('error')!r} != go {g.get('postFilterMessage')!r}"]
    return []


def _check(tmp_path, seed: int, **sizes) -> None:
    diffs = differences(tmp_path, seed, **sizes)
    assert not diffs, f"preemption scenario {seed}:\n" + "\n".join(diffs[:20])


@pytest.mark.parametrize("seed", range(N_SCENARIOS))
def test_preemption_equals_go(tmp_path, seed):
    _check(tmp_path, SEEDS + seed)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(2_000))
def test_many_more_preemption_scenarios(tmp_path, seed):
    _check(tmp_path, SEEDS + 50_000 + seed, max_nodes=16, max_pending=10)


def simulate_differences(tmp_path, seed: int, retry: bool = False, **sizes) -> list[str]:
    """Whole ``simulate --preemption`` runs with Go's tie-breaks: every host, error and
    nomination, every victim in order (``--preemption-ties first``: both nominate the
    first tied candidate in the dry run's order, which the shared offset makes equal).
    ``retry``: ``--retry-nominated``, whose second cycle goref prints as a row of its own
    and kscore in the pod's row (the first cycle's error in ``firstError``)."""
    return simulate_objects_differences(tmp_path, seed, preemption_scenario(seed, **sizes),
                                        retry)  # fmt: skip


def simulate_objects_differences(tmp_path, seed: int, objects: list[dict],
                                 retry: bool = False) -> list[str]:  # fmt: skip
    """:func:`simulate_differences` on ``objects`` (the default profile)."""
    path = tmp_path / f"scenario-{seed}.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objects}))
    ours = simulate(load_cluster([path]), seed=seed, scores="none", tie_break="go-rand",
                    preemption=True, retry_nominated=retry).to_dict()  # fmt: skip
    go = run_goref([path], ["--config", str(DEFAULT_CONFIG), "--seed", str(seed), "--scores",
                            "none", "--plugin-metrics-draw", "--preemption",
                            "--preemption-ties", "first",
                            *(["--retry-nominated"] if retry else [])],
                   command="simulate")  # fmt: skip
    n = timing_free(go["results"])
    go_rows, retried = [], {}
    for g in go["results"][:n]:
        if g.get("retry"):
            retried[g["pod"]] = g
        else:
            go_rows.append(g)
    ours_rows = ours["results"][: len(go_rows)]
    diffs = []
    for k in ours_rows:
        pre = k.get("preemption") or {}
        if pre.get("retried"):
            again = retried.pop(k["pod"], None)
            if again is None:
                diffs.append(f"{k['pod']}: retried, go did not (or past the timing-free part)")
                continue
            if (k["host"], k["error"]) != (again["host"], again["error"]):
                diffs.append(f"{k['pod']}: retry {k['host']} {k['error']} != go {again['host']} "
                             f"{again['error']}")  # fmt: skip
            k = {**k, "host": None, "error": pre["firstError"]}
        g = go_rows.pop(0)
        if (k["pod"], k["host"], k["error"]) != (g["pod"], g["host"], g["error"]):
            diffs.append(f"{g['pod']}: {k['pod']} {k['host']} {k['error']} != go {g['host']} "
                         f"{g['error']}")  # fmt: skip
            continue
        if g.get("postFilterCode") is not None:
            diffs += outcome_differences(g["pod"], k.get("preemption"), g)
    return diffs


def outcome_differences(where: str, pre: dict | None, g: dict) -> list[str]:
    """An applied PostFilter's outcome (kscore's ``preemption`` object, goref's fields):
    the pod's nomination after it, the victims in order, their PDB violations, the tie
    set, its ``Error`` status."""
    if pre is None:
        return [f"{where}: no preemption, go {g['postFilterCode']}"]
    mine = (pre["nominatedNode"], pre["victims"], pre["pdbViolations"], sorted(pre["ties"]))
    theirs = (g["nominatedNode"], g["victims"], g["pdbViolations"],
              sorted(g.get("preemptionTies") or []))  # fmt: skip
    out = [f"{where}: {mine} != go {theirs}"] if mine != theirs else []
    return out + error_differences(where, pre, g)


@pytest.mark.parametrize("retry", [False, True])
@pytest.mark.parametrize("seed", range(N_SCENARIOS))
def test_simulate_with_preemption_equals_go(tmp_path, seed, retry):
    diffs = simulate_differences(tmp_path, SEEDS + 100_000 + seed, retry)
    assert not diffs, f"preemption simulate {seed}:\n" + "\n".join(diffs[:20])


@pytest.mark.slow
@pytest.mark.parametrize("retry", [False, True])
@pytest.mark.parametrize("seed", range(1_000))
def test_many_more_simulate_preemption_scenarios(tmp_path, seed, retry):
    diffs = simulate_differences(tmp_path, SEEDS + 200_000 + seed, retry, max_nodes=16,
                                 max_pending=12)  # fmt: skip
    assert not diffs, f"preemption simulate {seed}:\n" + "\n".join(diffs[:20])
