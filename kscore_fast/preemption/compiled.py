"""``Evaluator.Preempt`` on the compiled walk: :func:`.reference.preempt` step for step,
with the diagnosis' statuses as verdict arrays (the nodes where preemption might help
found vectorized), the dry runs in one :func:`.kernels.dry_run` call and
``SelectCandidate`` in one :func:`.kernels.pick` call; only the chosen candidate's victims
become records. The nodes' statuses, which nothing prints, are made when read
(:class:`LazyStatuses`). Tested equal to :func:`.reference.preempt`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence

import numpy as np

from ..model.disruption import BudgetRecord
from ..model.objects import PodRecord
from . import kernels
from .dryrun import DryRuns
from .reference import (
    NOT_ELIGIBLE,
    NOT_HELPFUL,
    UNSCHEDULABLE_AND_UNRESOLVABLE,
    Preemption,
    Status,
    Victims,
    eligible,
    num_candidates,
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
                     verdicts: np.ndarray | None = None) -> Preemption:  # fmt: skip
    """:func:`.reference.preempt` of the view's pod (``pod``: its record as the nominator
    has it) after its FitError in the state as it is: the same :class:`Preemption`.
    ``verdicts``: the pod's verdict on every node in that state, nominated pods counted,
    as its failed cycle found them (the diagnosis Go's PostFilter reads); default: found
    again."""
    if verdicts is None:
        verdicts = view.verdicts(view._all)
    nominated = None
    node = view.node_index(pod.nominated_node_name) if pod.nominated_node_name else None
    if node is not None and verdicts[node] != 0:
        nominated = view._status(int(verdicts[node]))
    if not eligible(pod, nominated, view):
        return Preemption(reason=NOT_ELIGIBLE)
    out = Preemption()
    potential, unhelpful = view.split_by_code(verdicts)
    if not len(potential):
        out.statuses = LazyStatuses(lambda: _not_helpful(unhelpful))  # type: ignore[assignment]
        out.reason = "no node where preemption might help"
        return out
    out.drew = True
    offset = draw(len(potential))
    wanted = num_candidates(len(potential), percentage, absolute)
    order, status, vptr, victims, violations, walked = view._walk(potential, offset, wanted,
                                                                  budgets)  # fmt: skip

    def statuses() -> dict[int, Status]:
        made = _not_helpful(unhelpful)
        made.update(view._walk_statuses(pod, order, status, walked))
        return made

    out.statuses = LazyStatuses(statuses)  # type: ignore[assignment]
    cands = np.empty(max(walked, 1), dtype=np.int64)
    tie = np.zeros(max(walked, 1), dtype=np.bool_)
    n = int(kernels.pick(status, vptr, victims, violations, np.int64(walked), np.int64(wanted),
                         view._priority, view._start, cands, tie))  # fmt: skip
    if n == 0:
        out.reason = "no candidate node"
        return out
    found = _Candidates(view, cands[:n], order, vptr, victims, violations)
    out.candidates = found  # type: ignore[assignment]
    ties = cands[:n][tie[:n]]
    out.ties = order[ties].tolist()
    best = found[int(np.flatnonzero(tie[:n])[0])]
    out.node, out.victims, out.pdb_violations = best.node, best.pods, best.pdb_violations
    return out


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
