"""What DefaultPreemption would do for the pods of a batch that fit nowhere (``kscore
score --explain``): the reference port (:mod:`.reference`) over the dry runs' compiled
state (:mod:`.dryrun`). Nothing is applied: every pod is explained against the snapshot
as the input gives it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from ..model.disruption import BudgetRecord
from ..model.objects import PodRecord
from .compiled import preempt_compiled
from .dryrun import DryRuns
from .offset import OffsetDraw
from .reference import NO_CANDIDATE, NO_POTENTIAL, NOT_ELIGIBLE, Preemption, priority

#: the stream key of the candidates' offset draws (the hosts' draws use the pod's position)
OFFSET_STREAM = 1 << 62


def explain_preemption(runs: DryRuns, pod: int, seed: int, budgets: Sequence[BudgetRecord],
                       percentage: int, absolute: int) -> Preemption:  # fmt: skip
    """DefaultPreemption's PostFilter for batch pod ``pod`` after its FitError, against the
    snapshot (``runs``: the dry runs' state of the cluster; the candidates' offset drawn
    with ``seed``, per pod)."""
    view = runs.view(runs.offset + pod)
    record = runs.records[view.pod]
    offset = OffsetDraw(None, seed, OFFSET_STREAM + pod)
    try:
        return preempt_compiled(view, record, budgets, offset, percentage, absolute)
    finally:
        view.restore()


def no_victims_entry(pod: PodRecord, unresolvable: np.ndarray) -> dict[str, Any]:
    """The entry of a pod no bound pod has a lower priority than (what :func:`preempt`
    gives without a dry run: every potential node has no victims), from its FitError's
    nodes (``unresolvable``: each rejected node's status is UnschedulableAndUnresolvable;
    all nodes were rejected)."""
    found = Preemption()
    if pod.preemption_policy == "Never":
        found.reason = NOT_ELIGIBLE
    elif unresolvable.all():
        found.reason = NO_POTENTIAL
    else:
        found.reason = NO_CANDIDATE
    return preemption_entry(found, ())


def preemption_entry(found: Preemption, names: Sequence[str]) -> dict[str, Any]:
    """The JSON object of a pod's preemption (docs/contract.md)."""
    return entry_of(found.node, found.victims, found.pdb_violations, found.ties,
                    len(found.candidates), found.reason, names, found.error)  # fmt: skip


def entry_of(node: int, victims: Iterable[PodRecord], pdb_violations: int, ties: Sequence[int],
             candidates: int, reason: str, names: Sequence[str], error: str = ""
             ) -> dict[str, Any]:  # fmt: skip
    """:func:`preemption_entry` of a preemption's parts: the nominated node (-1: none),
    its victims, PDB violations and tie set, how many candidates, the reason ("" none)
    and the error PostFilter returned ("" none)."""
    return {
        "nominatedNode": names[node] if node >= 0 else None,
        "victims": [
            {"namespace": p.namespace, "name": p.name, "priority": priority(p)} for p in victims
        ],
        "pdbViolations": pdb_violations,
        "ties": list(map(names.__getitem__, ties)),
        "candidates": candidates,
        **({"reason": reason} if reason else {}),
        **({"error": error} if error else {}),
    }


def mark_retried(entry: dict[str, Any], errors: list[str | None], row: int) -> None:
    """A preemptor tried again at once (``--retry-nominated``): its entry keeps the first
    cycle's error, and row ``row``'s error is the retry's to record."""
    entry["retried"], entry["firstError"] = True, errors[row]
    errors[row] = None
