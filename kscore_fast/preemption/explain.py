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
    return entry_fields(names[node] if node >= 0 else None, list(map(victim_entry, victims)),
                        pdb_violations, [names[t] for t in ties], candidates, reason,
                        error)  # fmt: skip


def entry_fields(nominated: str | None, victims: list[dict[str, Any]], pdb_violations: int,
                 ties: list[str], candidates: int, reason: str, error: str = ""
                 ) -> dict[str, Any]:  # fmt: skip
    """:func:`entry_of` of parts already named: the nominated node's name (None: none),
    the victims' objects (:func:`victim_entry`) and the tie set's node names."""
    entry = {
        "nominatedNode": nominated,
        "victims": victims,
        "pdbViolations": pdb_violations,
        "ties": ties,
        "candidates": candidates,
    }
    if reason:
        entry["reason"] = reason
    if error:
        entry["error"] = error
    return entry


def victim_entry(pod: PodRecord) -> dict[str, Any]:
    """A victim's object in a preemption entry: namespace, name, priority."""
    return {"namespace": pod.namespace, "name": pod.name, "priority": priority(pod)}


def mark_retried(entry: dict[str, Any], errors: list[str | None], row: int) -> None:
    """A preemptor tried again at once (``--retry-nominated``): its entry keeps the first
    cycle's error, and row ``row``'s error is the retry's to record."""
    retried(entry, errors[row])
    errors[row] = None


def retried(entry: dict[str, Any], first_error: str | None) -> None:
    """:func:`mark_retried`'s fields of the entry: retried, and the first cycle's error."""
    entry["retried"], entry["firstError"] = True, first_error
