"""``Evaluator.Preempt`` on the compiled walk: :func:`.reference.preempt` step for step,
with the diagnosis' statuses as verdict arrays: the nodes where preemption might help, the
offset's draw, the dry runs (:func:`.kernels.dry_run`) and ``SelectCandidate``
(:func:`.kernels.pick`) in one :func:`.fused.preempt_walk` call; only the chosen
candidate's victims become records. The nodes' statuses, which nothing prints, are made when read
(:class:`LazyStatuses`). Tested equal to :func:`.reference.preempt`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import NamedTuple

import numpy as np

from ..model.disruption import BudgetRecord
from ..model.objects import PodRecord
from . import fused
from .dryrun import DryRuns
from .offset import OffsetDraw
from .reference import (
    NO_POTENTIAL,
    NOT_ELIGIBLE,
    NOT_HELPFUL,
    UNSCHEDULABLE_AND_UNRESOLVABLE,
    Preemption,
    Status,
    Victims,
    eligible,
)


class LazyStatuses(Mapping[int, Status]):
    """node → status, made by ``make`` at the first read."""

    def __init__(self, make: Callable[[], dict[int, Status]]) -> None:
        self._make: Callable[[], dict[int, Status]] | None = make
        self._made: dict[int, Status] = {}

    def _all(self) -> dict[int, Status]:
        if self._make is not None:
            self._made, self._make = self._make(), None
        return self._made

    def __getitem__(self, node: int) -> Status:
        return self._all()[node]

    def __iter__(self) -> Iterator[int]:
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Mapping) and dict(self._all()) == dict(other)

    __hash__ = None  # type: ignore[assignment]


def preempt_compiled(view: DryRuns, pod: PodRecord, budgets: Sequence[BudgetRecord],
                     draw: Callable[[int], int], percentage: int = 10, absolute: int = 100,
                     verdicts: np.ndarray | None = None, evict: bool = False
                     ) -> Preemption:  # fmt: skip
    """:func:`.reference.preempt` of the view's pod (``pod``: its record as the nominator
    has it) after its FitError in the state as it is: the same :class:`Preemption`.
    ``verdicts``: the pod's verdict on every node in that state, nominated pods counted,
    as its failed cycle found them (the diagnosis Go's PostFilter reads); default: found
    again. The split, the offset's draw (an :class:`.offset.OffsetDraw` is drawn in the
    kernel; another ``draw`` is asked), the walk and the pick are one kernel call
    (:meth:`.dryrun.DryRuns.preempt_walk`); with ``evict``, the chosen candidate's victims
    are deleted in it too (``prepareCandidate``'s deletions: the view's dry-run state)."""
    if verdicts is None:
        verdicts = view.verdicts(view._all)
    if not _eligible(view, pod, verdicts):
        return Preemption(reason=NOT_ELIGIBLE)
    out = Preemption()
    if isinstance(draw, OffsetDraw):
        mode = fused.DRAW_GO if draw.rng is not None else fused.DRAW_SEEDED
        walk = view.preempt_walk(verdicts, mode, draw.rng, draw.seed, draw.stream, percentage,
                                 absolute, budgets, evict)  # fmt: skip
    else:
        walk = view.preempt_walk(verdicts, fused.DRAW_GIVEN, None, 0, 0, percentage, absolute,
                                 budgets, evict, draw)  # fmt: skip
    unhelpful = walk.unhelpful
    if not walk.potential:
        out.statuses = LazyStatuses(lambda: _not_helpful(unhelpful))  # type: ignore[assignment]
        out.reason = NO_POTENTIAL
        return out
    out.drew = True
    order, status, walked = walk.order, walk.status, walk.out[fused.WALKED]

    def statuses() -> dict[int, Status]:
        made = _not_helpful(unhelpful)
        made.update(view._walk_statuses(pod, order, status, walked))
        return made

    out.statuses = LazyStatuses(statuses)  # type: ignore[assignment]
    if not len(walk.cands):
        out.reason, out.error = view.no_candidate(pod, order, status, walked)
        return out
    found = _Candidates(view, walk.cands, order, walk.vptr, walk.victims, walk.violations)
    out.candidates = found  # type: ignore[assignment]
    out.ties = walk.ties
    best = found[walk.out[fused.CHOSEN]]  # (the first of the tie set)
    out.node, out.victims, out.pdb_violations = best.node, best.pods, best.pdb_violations
    return out


class Brief(NamedTuple):
    """What a run applies and reports of a PostFilter (:func:`preempt_brief`): the
    nominated node (-1: none) and its victims (batch positions), PDB violations and tie
    set, how many candidates, why no node was nominated ("" when one was)."""

    node: int
    victims: list[int]
    pdb_violations: int
    ties: list[int]
    candidates: int
    reason: str
    #: the error PostFilter returned ("" none: see ``reference.no_candidate_outcome``)
    error: str = ""


def preempt_brief(view: DryRuns, pod: PodRecord, budgets: Sequence[BudgetRecord],
                  draw: OffsetDraw, percentage: int, absolute: int,
                  verdicts: np.ndarray | None) -> Brief:  # fmt: skip
    """:func:`preempt_compiled` with ``evict`` for a run that applies it at once: only
    what :class:`Brief` holds, read from the walk's buffers (no statuses, candidates or
    copies kept)."""
    if verdicts is None:
        verdicts = view.verdicts(view._all)
    if not _eligible(view, pod, verdicts):
        return Brief(-1, [], 0, [], 0, NOT_ELIGIBLE)
    mode = fused.DRAW_GO if draw.rng is not None else fused.DRAW_SEEDED
    got = view.walk_in_place(verdicts, mode, draw.rng, draw.seed, draw.stream, percentage,
                             absolute, budgets, True)  # fmt: skip
    if not got[fused.POTENTIAL]:
        return Brief(-1, [], 0, [], 0, NO_POTENTIAL)
    if not got[fused.CANDIDATES]:
        return Brief(-1, [], 0, [], 0, *view.walk_no_candidate(pod, got))
    node, victims, violations, ties = view.chosen(got)
    return Brief(node, victims, violations, ties, got[fused.CANDIDATES], "")


def _eligible(view: DryRuns, pod: PodRecord, verdicts: np.ndarray) -> bool:
    """``PodEligibleToPreemptOthers`` of ``pod`` (its ``verdicts``: its failed cycle's)."""
    if pod.preemption_policy != "Never" and not pod.nominated_node_name:
        return True  # (what eligible says of it, without a status)
    nominated = None
    node = view.node_index(pod.nominated_node_name) if pod.nominated_node_name else None
    if node is not None and verdicts[node] != 0:
        nominated = view._status(int(verdicts[node]))
    return eligible(pod, nominated, view)


def _not_helpful(nodes: np.ndarray) -> dict[int, Status]:
    status = Status(UNSCHEDULABLE_AND_UNRESOLVABLE, (NOT_HELPFUL,))
    return dict.fromkeys(nodes.tolist(), status)


class _Victims(Victims):
    """A candidate whose victims become records when read."""

    def __init__(self, node: int, positions: list[int], violations: int,
                 records: list[PodRecord]) -> None:  # fmt: skip
        self.node, self.pdb_violations = node, violations
        self._positions, self._records = positions, records

    @property  # type: ignore[override]
    def pods(self) -> list[PodRecord]:
        return [self._records[i] for i in self._positions]


class _Candidates(Sequence[Victims]):
    """The candidates (walk positions ``cands``) as :class:`Victims`, each made when
    read (the output counts them; only the chosen one's victims are needed)."""

    def __init__(self, view: DryRuns, cands: np.ndarray, order: np.ndarray, vptr: np.ndarray,
                 victims: np.ndarray, violations: np.ndarray) -> None:  # fmt: skip
        self._view, self._cands, self._order = view, cands, order
        self._vptr, self._victims, self._violations = vptr, victims, violations

    def __len__(self) -> int:
        return len(self._cands)

    def __getitem__(self, e: int) -> Victims:  # type: ignore[override]
        k = int(self._cands[e])
        lo, hi = int(self._vptr[k]), int(self._vptr[k + 1])
        return _Victims(int(self._order[k]), self._victims[lo:hi].tolist(),
                        int(self._violations[k]), self._view.records)  # fmt: skip

    def __iter__(self) -> Iterator[Victims]:
        return (self[e] for e in range(len(self)))
