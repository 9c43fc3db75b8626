"""The preempting run's chains (:mod:`.chain_kernel`) driven from Python: the pods a
chain may take, its buffers, and the result's rows and preemption entries made from
them once per call (what :func:`.simulate.simulate_preemption`'s per-pod loop records,
pod for pod)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, NamedTuple

import numpy as np

from ..framework.gorand import GoRand
from ..framework.result import ScoreResult
from ..framework.simulation import _Sequence
from ..model.disruption import BudgetRecord
from ..model.objects import PodRecord
from . import chain_kernel as ck
from . import fused
from .dryrun import DryRuns
from .entries import LazyEntries
from .explain import OFFSET_STREAM, entry_fields, retried, victim_entry
from .reference import NO_CANDIDATE, NO_POTENTIAL, num_candidates

#: pods per chain call (its buffers' size)
CHAIN_PODS = 256
#: verdict entries a chain's pool of failed cycles' rows holds at most (8 MB: a large
#: cluster's chains keep fewer rows, not more memory)
POOL_ENTRIES = 1 << 20


class Chain:
    """Chains over the pods of ``runs`` (a preempting run with retries, whose cycles keep
    no scores and complete no bindings); ``first``: the batch position of result row 0."""

    def __init__(self, runs: DryRuns, first: int, tie: int, seed: int, rng: np.ndarray,
                 source: GoRand | None, budgets: Sequence[BudgetRecord], pct: int,
                 absolute: int) -> None:  # fmt: skip
        self.runs, self.seq, self.first = runs, runs.seq, first
        self.tie, self.seed, self.rng, self.source = tie, seed, rng, source
        self.budgets, self.pct, self.absolute = budgets, pct, absolute
        self.simple = _simple(runs, first)
        n_nodes = max(len(runs.names), 1)
        # (rows of failed cycles' verdicts, the same row kept once for consecutive pods: at
        # most POOL_ENTRIES entries, a chain stopping when they are used up)
        rows = max(4, min(2 * CHAIN_PODS, POOL_ENTRIES // n_nodes))
        # (the pool and the tie sets are large and read only where a chain wrote them: not
        # zeroed, a run of a large cluster pays no memset of megabytes)
        self.pool = np.empty((rows, n_nodes), dtype=np.int64)
        self.cycles = np.zeros((CHAIN_PODS, 2, ck.CYCLE_FIELDS), dtype=np.int64)
        self.walks = np.zeros((CHAIN_PODS, ck.WALK_FIELDS), dtype=np.int64)
        self.vic_ptr = np.zeros(CHAIN_PODS + 1, dtype=np.int64)
        self.tie_ptr = np.zeros(CHAIN_PODS + 1, dtype=np.int64)
        self.vic = np.zeros(0, dtype=np.int64)
        #: the most nodes a tie set holds: the most candidates a walk keeps (as many as it
        #: wants without PDB violations, as many with)
        self.tie_room = 2 * num_candidates(len(runs.names), pct, absolute)
        self.ties = np.empty(CHAIN_PODS * max(self.tie_room, 1), dtype=np.int64)

    def run(self, rows: Sequence[int], result: ScoreResult) -> tuple[int, np.ndarray | None]:
        """One chain over result ``rows`` (the next ones to schedule; no pod nominated):
        the rows it took, recorded in ``result``, and, if it stopped after the failed
        cycle of the row after them (recorded too), that cycle's verdicts (the caller runs
        its PostFilter)."""
        runs, seq = self.runs, self.seq
        assert not runs.nominated  # (see _record)
        rows_a = np.asarray(rows[:CHAIN_PODS], dtype=np.int64)
        pods = rows_a + self.first
        pod = int(pods[0])
        if not self.simple[pod]:
            return 0, None
        runs.view(pod)
        on_node = runs._on_node
        if int(on_node.count.max()) >= on_node.table.shape[1] - 1:  # (room for a bind)
            on_node.widen()
        walk, _ = runs._walk_call(self.budgets, None if self.source is None else self.rng)
        step = seq.step_call(self.tie, self.seed, self.rng)
        table = on_node.table
        if len(self.vic) < table.shape[1] + 1:
            self.vic = np.zeros(max(4 * CHAIN_PODS, 2 * table.shape[1]), dtype=np.int64)
        mode = fused.DRAW_GO if self.source is not None else fused.DRAW_SEEDED
        start, done, why = ck.preempt_chain(
            *step.entry_args, *walk.entry_args, pods, seq.groups, runs._priority,
            self.simple, np.int64(seq.groups[pod]), np.int64(runs._priority[pod]),
            np.int64(seq.start), np.int64(self.tie), np.uint64(self.seed % 2**64),
            np.int64(mode), np.uint64(self.seed % 2**64), np.uint64(OFFSET_STREAM), rows_a,
            np.int64(self.pct), np.int64(self.absolute), np.int64(self.tie_room),
            seq.batch.nominated, table,
            on_node.count, self.pool, self.cycles, self.walks, self.vic_ptr, self.vic,
            self.tie_ptr, self.ties,
        )  # fmt: skip
        seq.start = int(start)
        done, why = int(done), int(why)
        taken = done + (why == ck.STOP_WALK)
        if taken:
            self._record(rows_a[:taken], done, why, result)
            seq.last, seq.last_pod = seq.one, int(rows_a[taken - 1]) + self.first
        if why == ck.STOP_WALK:  # (its PostFilter to run from Python on its verdicts)
            return done, self.pool[self.cycles[done, 0, ck.ROW]]
        return done, None

    def _record(self, rows: np.ndarray, done: int, why: int, result: ScoreResult) -> None:
        """The chain's pods (result ``rows``; the first ``done`` finished, the one after
        them stopped before its walk if ``why`` is ``STOP_WALK``) into ``result``, as
        :meth:`.simulation._Sequence.record_one` and the per-pod loop record each: the
        last cycle of each row (the retry's if any) in the rows' counts, host and error,
        ``NodeInfo.Pods``' count, the nominations, and the preemption entries (deferred:
        :class:`.entries.LazyEntries`)."""
        runs, taken = self.runs, len(rows)
        cycles, walks = self.cycles[:taken], self.walks[:taken]
        walked = walks[:, ck.WALKED] != 0  # (``RETRIED`` is stale where no walk ran)
        retried = walked & (walks[:, ck.RETRIED] != 0)
        last = cycles[np.arange(taken), retried.astype(np.intp)]
        host = last[:, ck.HOST]
        bound = host >= 0
        result.hosts[rows[bound]] = host[bound]
        result.feasible[rows] = last[:, ck.FEASIBLE]
        result.evaluated[rows] = last[:, ck.FEASIBLE] + last[:, ck.FAILED]
        errors: dict[tuple[int, int], str] = {}
        for j in np.flatnonzero(~bound).tolist():
            row = int(rows[j])
            self.seq.record_failure(result, row, self._error(last[j], row, errors))
        runs._on_node.total += int(bound.sum()) - int(self.vic_ptr[done])
        # (the chain starts with no pod nominated and stops after a pod left nominated:
        # only its last pod's PostFilter may leave a nomination)
        if done and walked[done - 1]:
            node, pod = int(walks[done - 1, ck.NODE]), int(rows[done - 1]) + self.first
            runs.nominate(pod, node, _reason(node, int(walks[done - 1, ck.POTENTIAL])))
            if bound[done - 1]:
                runs.nominated.pop(pod)
        picked = np.flatnonzero(walked)
        if not len(picked):
            return
        firsts = self._first_errors(cycles[picked, 0], retried[picked], errors)
        override = None
        if why == ck.STOP_ERROR:  # (the last pod's walk: its buffers still hold it)
            got = runs._walk_bufs[10].tolist()
            override = runs.walk_no_candidate(runs.records[int(rows[done - 1]) + self.first],
                                              got)  # fmt: skip
        entries = result.preemptions
        if not isinstance(entries, LazyEntries):
            entries = result.preemptions = LazyEntries(dict(entries))
        entries.defer(_ChainEntries(
            rows[picked].tolist(), walks[picked].copy(), retried[picked].tolist(), firsts,
            self.vic[: self.vic_ptr[done]].copy(), self.vic_ptr[picked].copy(),
            self.vic_ptr[picked + 1].copy(), self.ties[: self.tie_ptr[done]].copy(),
            self.tie_ptr[picked].copy(), self.tie_ptr[picked + 1].copy(), override,
            result.node_names, runs.records))  # fmt: skip

    def _first_errors(self, cycles: np.ndarray, retried: np.ndarray,
                      made: dict[tuple[int, int], str]) -> list[str | None]:  # fmt: skip
        """The FitError of each first cycle of ``cycles`` whose pod was ``retried`` (None
        for the others: their error is the row's): see :meth:`_error`."""
        keys = list(zip(cycles[:, ck.ROW].tolist(), cycles[:, ck.FAILED].tolist(), strict=True))
        for key in set(keys).difference(made):
            made[key] = self.seq.search_error(self.pool[key[0]], key[1])
        return [made[key] if again else None
                for key, again in zip(keys, retried.tolist(), strict=True)]  # fmt: skip

    def _error(self, fields: np.ndarray, row: int, made: dict[tuple[int, int], str]
               ) -> str | None:  # fmt: skip
        """The error of a chain cycle that did not bind (``fields``: its ``cycles``
        entry) of result row ``row``; ``made``: the FitErrors made so far, by (pool row,
        failed count): one text for a run of failures alike."""
        _, feasible, failed, at, bad_plugin, bad_value = fields.tolist()
        if feasible == 0:
            error = made.get((at, failed))
            if error is None:
                error = made[at, failed] = self.seq.search_error(self.pool[at], failed)
            return error
        if bad_plugin >= 0:
            return self.seq.invalid_score(bad_plugin, bad_value)
        return self.seq.prescore_errors.get(row + self.first)


def _reason(node: int, potential: int) -> str:
    """Why a chain pod's walk nominated no node (``node`` -1; ``potential``: its potential
    nodes), "" if it nominated ``node``."""
    if node >= 0:
        return ""
    return NO_CANDIDATE if potential else NO_POTENTIAL


class _ChainEntries(NamedTuple):
    """The preemption entries of a chain's pods that ran PostFilter, made when read
    (:class:`.entries.LazyEntries`): their result rows, ``walks`` rows, whether retried
    and the first cycle's error, their victims (``vic[vic_lo[k]:vic_hi[k]]``, batch
    positions) and tie sets (``ties[tie_lo[k]:tie_hi[k]]``, nodes), the (reason, error)
    of the last one when its walk met an ``Error`` status (None: as the walk says), the
    node names and the pods' records."""

    rows: list[int]
    walks: np.ndarray
    retried: list[bool]
    firsts: list[str | None]
    vic: np.ndarray
    vic_lo: np.ndarray
    vic_hi: np.ndarray
    ties: np.ndarray
    tie_lo: np.ndarray
    tie_hi: np.ndarray
    override: tuple[str, str] | None
    names: Sequence[str]
    records: Sequence[PodRecord]

    def entries(self) -> Iterator[tuple[int, dict[str, Any]]]:
        names, records = self.names, self.records
        victims = [victim_entry(records[v]) for v in self.vic.tolist()]
        ties = np.asarray(names, dtype=object)[self.ties].tolist()
        bounds = zip(self.vic_lo.tolist(), self.vic_hi.tolist(), self.tie_lo.tolist(),
                     self.tie_hi.tolist(), strict=True)  # fmt: skip
        last = len(self.rows) - 1
        for k, (row, walk, (v0, v1, t0, t1)) in enumerate(zip(self.rows, self.walks.tolist(),
                                                              bounds, strict=True)):  # fmt: skip
            node = walk[ck.NODE]
            reason, error = (self.override if k == last and self.override is not None
                             else (_reason(node, walk[ck.POTENTIAL]), ""))  # fmt: skip
            entry = entry_fields(names[node] if node >= 0 else None, victims[v0:v1],
                                 walk[ck.VIOLATIONS], ties[t0:t1], walk[ck.CANDIDATES],
                                 reason, error)  # fmt: skip
            if self.retried[k]:
                retried(entry, self.firsts[k])
            yield row, entry


def _simple(runs: DryRuns, first: int) -> np.ndarray:
    """bool[B]: the batch pods a chain may take: pending, eligible to preempt without
    reading a status (not ``preemptionPolicy: Never``, no ``nominatedNodeName`` of their
    own), no PreScore error, no PreFilter failure (their nomination is the one they
    get)."""
    seq: _Sequence = runs.seq
    simple = np.zeros(len(seq.batch), dtype=np.bool_)
    simple[first:] = [p.preemption_policy != "Never" and not p.nominated_node_name
                      for p in runs.records[first:]]  # fmt: skip
    for pod in seq.prescore_errors:
        simple[pod] = False
    for k in seq.pre_filter_slots:
        plugin, state = seq.filter_slots[k], seq.states[int(seq.fids[k])]
        simple &= ~np.asarray(plugin.pre_filter_failures(state), dtype=np.bool_)
    return simple


def chain_for(runs: DryRuns, first: int, retry: bool, stepped: bool, **args: Any) -> Chain | None:
    """The chains of a preempting run, when they may take its pods: with retries, cycles
    that keep no scores (``stepped``) and no bindings to complete; else None."""
    if not retry or not stepped or runs.seq.completing is not None:
        return None
    return Chain(runs, first, **args)
