"""The preempting run's chains (:mod:`.chain_kernel`) driven from Python: the pods a
chain may take, its buffers, and the result's rows and preemption entries made from
them once per call (what :func:`.simulate.simulate_preemption`'s per-pod loop records,
pod for pod)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from ..framework.gorand import GoRand
from ..framework.result import ScoreResult
from ..framework.simulation import _Sequence
from ..model.disruption import BudgetRecord
from . import chain_kernel as ck
from . import fused
from .dryrun import DryRuns
from .explain import OFFSET_STREAM, entry_of, mark_retried
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
        self.pool = np.zeros((rows, n_nodes), dtype=np.int64)
        self.cycles = np.zeros((CHAIN_PODS, 2, ck.CYCLE_FIELDS), dtype=np.int64)
        self.walks = np.zeros((CHAIN_PODS, ck.WALK_FIELDS), dtype=np.int64)
        self.vic_ptr = np.zeros(CHAIN_PODS + 1, dtype=np.int64)
        self.tie_ptr = np.zeros(CHAIN_PODS + 1, dtype=np.int64)
        self.vic = np.zeros(0, dtype=np.int64)
        #: the most nodes a tie set holds: the most candidates a walk keeps (as many as it
        #: wants without PDB violations, as many with)
        self.tie_room = 2 * num_candidates(len(runs.names), pct, absolute)
        self.ties = np.zeros(CHAIN_PODS * max(self.tie_room, 1), dtype=np.int64)

    def run(self, rows: Sequence[int], result: ScoreResult) -> tuple[int, np.ndarray | None]:
        """One chain over result ``rows`` (the next ones to schedule; no pod nominated):
        the rows it took, recorded in ``result``, and, if it stopped after the failed
        cycle of the row after them (recorded too), that cycle's verdicts (the caller runs
        its PostFilter)."""
        runs, seq = self.runs, self.seq
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
        made = _Made(self.cycles[:taken].tolist(), self.walks[:done].tolist(),
                     self.vic[: self.vic_ptr[done]].tolist(), self.vic_ptr[: done + 1].tolist(),
                     self.ties[: self.tie_ptr[done]].tolist(), self.tie_ptr[: done + 1].tolist(),
                     {})  # fmt: skip
        rows_l = rows_a[:taken].tolist()
        first = self.first
        for j in range(done):
            self._record(made, j, rows_l[j], rows_l[j] + first, result)
        if why == ck.STOP_ERROR:  # (the last pod's walk: its buffers still hold it)
            row = rows_l[done - 1]
            got = runs._walk_bufs[10].tolist()
            reason, error = runs.walk_no_candidate(runs.records[row + first], got)
            entry = result.preemptions[row]
            entry["reason"] = reason
            if error:
                entry["error"] = error
        stopped = None
        if why == ck.STOP_WALK:
            self._cycle(made, made.cycles[done][0], rows_l[done], rows_l[done] + first, result)
            stopped = self.pool[made.cycles[done][0][ck.ROW]]
        if taken:
            seq.last, seq.last_pod = seq.one, rows_l[taken - 1] + first
        return done, stopped

    def _record(self, made: _Made, j: int, row: int, pod: int, result: ScoreResult) -> None:
        """Chain pod ``j`` (result row ``row``, batch position ``pod``) into ``result``."""
        runs = self.runs
        if not self._cycle(made, made.cycles[j][0], row, pod, result):
            return
        walk = made.walks[j]
        if not walk[ck.WALKED]:
            return
        node = walk[ck.NODE]
        victims = made.vic[made.vic_ptr[j] : made.vic_ptr[j + 1]]
        ties = made.ties[made.tie_ptr[j] : made.tie_ptr[j + 1]]
        reason = "" if node >= 0 else NO_CANDIDATE if walk[ck.POTENTIAL] else NO_POTENTIAL
        records = runs.records
        entry = result.preemptions[row] = entry_of(
            node, map(records.__getitem__, victims), walk[ck.VIOLATIONS], ties,
            walk[ck.CANDIDATES], reason, result.node_names)  # fmt: skip
        runs._on_node.total -= len(victims)
        runs.nominate(pod, node, reason)
        if walk[ck.RETRIED]:
            mark_retried(entry, result.errors, row)
            self._cycle(made, made.cycles[j][1], row, pod, result)

    def _cycle(self, made: _Made, fields: list[int], row: int, pod: int,
               result: ScoreResult) -> bool:  # fmt: skip
        """A chain cycle of ``pod`` into row ``row`` of ``result`` (as
        :meth:`.simulation._Sequence.record_one`; bound: ``NodeInfo.Pods`` counts it and
        it leaves the nominator): whether it fit nowhere."""
        host, feasible, failed, at, bad_plugin, bad_value = fields
        result.feasible[row], result.evaluated[row] = feasible, feasible + failed
        if host >= 0:
            result.hosts[row] = host
            self.runs._on_node.total += 1
            self.runs.nominated.pop(pod, None)
            return False
        seq = self.seq
        if feasible == 0:
            error = made.errors.get(at)
            if error is None:
                error = made.errors[at] = seq.search_error(self.pool[at], failed)
        elif bad_plugin >= 0:
            error = seq.invalid_score(bad_plugin, bad_value)
        else:
            error = seq.prescore_errors.get(pod)
        seq.record_failure(result, row, error)
        return feasible == 0 and failed >= 0


class _Made(NamedTuple):
    """A chain's outputs as lists (see :func:`.chain_kernel.preempt_chain`), and the
    error of each pool row read so far."""

    cycles: list[list[list[int]]]
    walks: list[list[int]]
    vic: list[int]
    vic_ptr: list[int]
    ties: list[int]
    tie_ptr: list[int]
    errors: dict[int, str]


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
