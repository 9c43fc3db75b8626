"""A chain of consecutive pods of a preempting run (``simulate --preemption
--retry-nominated``) in one kernel call: per pod, its scheduling cycle (the step's
packed :func:`.sequential.simulate_chunk`), and after a FitError its PostFilter with the
victims' deletions (the walk's packed :func:`.fused.preempt_walk`), the preemptor
nominated, then its retry, nominated node first, and its bind (``NodeInfo.Pods``
appended). What Python records of each pod stays in buffers (:mod:`.chain`), read once
after the call. The scalar specification is the per-pod loop of
:func:`.simulate.simulate_preemption`, which :mod:`.chain` is tested equal to.

The chain runs while no pod is nominated (so no cycle counts nominated pods and no walk
adds any), on pods whose twin group and priority are those the walk's arguments were
packed for; it stops before a pod it cannot take (``STOP_BEFORE``: Python schedules it),
after a failed cycle whose walk meets a verdict whose status Python has not made yet
(``STOP_WALK``), after a pod left nominated (its retry failed: ``STOP_NOMINATED``), and
after a walk that found no candidate where some node's dry run gave an ``Error`` status
(``STOP_ERROR``: Python reads PostFilter's error from the walk's buffers).
"""

from __future__ import annotations

import numpy as np

from .._jit import inline_kernel, kernel
from ..framework.search import ERROR_FLAG
from ..framework.sequential import _call_chunk, _load_chunk_args
from . import fused
from .kernels import NO_VICTIM_NEEDED

#: why the chain stopped: every pod done; before pod ``done`` (not started); after pod
#: ``done``'s failed cycle (its walk to run from Python); after pod ``done - 1``, left
#: nominated; after pod ``done - 1``, whose walk met an ``Error`` status and no candidate
STOP_END, STOP_BEFORE, STOP_WALK, STOP_NOMINATED, STOP_ERROR = 0, 1, 2, 3, 4
#: a cycle's fields in ``cycles[j, c]`` (c: 0 the first cycle, 1 the retry)
HOST, FEASIBLE, FAILED, ROW, BAD_PLUGIN, BAD_VALUE = range(6)
CYCLE_FIELDS = 6
#: a PostFilter's fields in ``walks[j]`` (``WALKED`` 0: none ran)
WALKED, POTENTIAL, CANDIDATES, NODE, VIOLATIONS, RETRIED = range(6)
WALK_FIELDS = 6


@kernel
def preempt_chain(
    step_fn, step_at, walk_fn, walk_at, pods, groups, prio, simple, group, priority, start,
    tie, seed, mode, walk_seed, stream0, rows, percentage, absolute, tie_room, batch_nominated,
    node_table, node_count, pool, cycles, walks, vic_ptr, vic, tie_ptr, ties,
):  # fmt: skip  # pragma: no cover - compiled
    """Schedule ``pods`` (batch positions; result ``rows``) in turn, as the module docstring
    says: returns ``(start, done, why)`` (``nextStartNodeIndex``, pods taken, ``STOP_*``).
    ``simple[pod]``: the chain may take it; ``group``/``priority``: the twin group and
    priority the walk's arguments are packed for; ``tie_room``: the most candidates a walk
    keeps. A failed cycle's verdicts go to a row of
    ``pool`` (``cycles[j, c, ROW]``); pod ``j``'s victims are ``vic[vic_ptr[j]:vic_ptr[j +
    1]]`` and its tie set's nodes ``ties[tie_ptr[j]:tie_ptr[j + 1]]``."""
    a = _load_chunk_args(step_at)
    w = fused._load_walk_args(walk_at)
    one_pods, one_nom, one_bad = a[9], a[12], a[14]
    hosts, feasible, failed, bad_plugin, bad_value = a[24], a[25], a[26], a[27], a[28]
    fail_row, fail_rows = a[37], a[38]
    verdicts, order, vptr, victims, violations, cands, tie_set, out = (
        w[0], w[28], w[30], w[31], w[32], w[40], w[41], w[45])  # fmt: skip
    width = node_table.shape[1]
    most = np.int64(0)
    for node in range(node_count.shape[0]):
        most = max(most, node_count[node])
    n_rows = np.int64(0)
    split_row = np.int64(-1)  # (the pool row of the last walk's verdicts, in this call)
    vic_ptr[0] = tie_ptr[0] = 0
    for j in range(pods.shape[0]):
        pod = pods[j]
        room = (n_rows + 2 <= pool.shape[0] and vic_ptr[j] + width <= vic.shape[0]
                and tie_ptr[j] + tie_room <= ties.shape[0])  # fmt: skip
        if (not simple[pod] or groups[pod] != group or prio[pod] != priority or most >= width
                or not room):  # fmt: skip
            return start, j, STOP_BEFORE
        vic_ptr[j + 1], tie_ptr[j + 1] = vic_ptr[j], tie_ptr[j]
        walks[j, WALKED] = 0
        cycles[j, 1, HOST] = -1
        batch_nominated[pod] = -1
        one_pods[0], one_nom[0], one_bad[0] = pod, -1, False
        start = _step(step_fn, a, start, tie, seed)
        n_rows = _record(cycles[j, 0], hosts, feasible, failed, bad_plugin, bad_value, fail_row,
                         fail_rows, pool, n_rows)  # fmt: skip
        host = hosts[0]
        if host >= 0:
            most = _append(node_table, node_count, host, pod, most)
            continue
        if feasible[0] != 0 or failed[0] < 0:  # (no FitError: no PostFilter)
            continue
        if cycles[j, 0, ROW] == split_row:  # (the same verdicts: the walk's split kept)
            out[fused.KEPT] = 1
        else:
            for node in range(verdicts.shape[0]):
                verdicts[node] = fail_rows[0, node]
            out[fused.KEPT] = 0
        out[fused.STAGE] = 0
        stream = stream0 + np.uint64(rows[j])
        given = (w[:5] + (mode,) + w[6:7] + (walk_seed, stream, percentage, absolute)  # noqa: RUF005
                 + w[11:17] + (pod,) + w[18:42] + (True,) + w[43:])  # fmt: skip
        code = fused._call_walk(walk_fn, *given)
        if code != fused.DONE:
            return start, j, STOP_WALK
        split_row = cycles[j, 0, ROW]
        walks[j, WALKED], walks[j, POTENTIAL] = 1, out[fused.POTENTIAL]
        found = out[fused.CANDIDATES]
        walks[j, CANDIDATES], walks[j, NODE], walks[j, VIOLATIONS] = found, -1, 0
        walks[j, RETRIED] = 0
        if found == 0:
            if _met_error(w[29], out[fused.WALKED]):  # (the walk's status)
                return start, j + 1, STOP_ERROR
            continue
        k = cands[out[fused.CHOSEN]]
        chosen = order[k]
        walks[j, NODE], walks[j, VIOLATIONS] = chosen, violations[k]
        at = vic_ptr[j]
        for v in range(vptr[k], vptr[k + 1]):
            vic[at] = victims[v]
            at += 1
        vic_ptr[j + 1] = at
        at = tie_ptr[j]
        for e in range(found):
            if tie_set[e]:
                ties[at] = order[cands[e]]
                at += 1
        tie_ptr[j + 1] = at
        if vic_ptr[j + 1] == vic_ptr[j]:  # (no victims: not retried, left nominated)
            return start, j + 1, STOP_NOMINATED
        walks[j, RETRIED] = 1
        batch_nominated[pod] = chosen
        one_pods[0], one_nom[0], one_bad[0] = pod, chosen, False
        start = _step(step_fn, a, start, tie, seed)
        n_rows = _record(cycles[j, 1], hosts, feasible, failed, bad_plugin, bad_value, fail_row,
                         fail_rows, pool, n_rows)  # fmt: skip
        if hosts[0] < 0:
            return start, j + 1, STOP_NOMINATED
        most = _append(node_table, node_count, hosts[0], pod, most)
    return start, pods.shape[0], STOP_END


@inline_kernel
def _met_error(status, walked):  # pragma: no cover - compiled
    """Some node of the walk's first ``walked`` got an ``Error`` status from its dry run
    (``SelectVictimsOnNode``: no victim needed, or a filter's ``Error``)."""
    for e in range(walked):
        code = status[e]
        if code == NO_VICTIM_NEEDED or (code > 0 and (code & ERROR_FLAG) != 0):
            return True
    return False


@inline_kernel
def _step(step_fn, a, start, tie, seed):  # pragma: no cover - compiled
    """One cycle of the step's packed :func:`.sequential.simulate_chunk` (``a``: its
    arguments; committed) from ``start``: the next ``start``. (Its scalars given by tuple
    concatenation, which numba compiles; a starred display it does not.)"""
    given = a[:15] + (start,) + a[16:18] + (tie, seed) + a[20:23] + (True,) + a[24:]  # noqa: RUF005
    return _call_chunk(step_fn, *given)


@inline_kernel
def _record(into, hosts, feasible, failed, bad_plugin, bad_value, fail_row, fail_rows, pool,
            n_rows):  # fmt: skip  # pragma: no cover - compiled
    """A step's outputs into ``into`` (its verdicts, if it fit nowhere, into row ``n_rows``
    of ``pool``, or the row before when they are the same: a FitError's text is made once
    for a run of failures alike): the rows used."""
    into[HOST], into[FEASIBLE], into[FAILED] = hosts[0], feasible[0], failed[0]
    into[BAD_PLUGIN], into[BAD_VALUE], into[ROW] = bad_plugin[0], bad_value[0], -1
    if fail_row[0] < 0:
        return n_rows
    row = fail_rows[fail_row[0]]
    if n_rows > 0:
        same = True
        for node in range(pool.shape[1]):
            if pool[n_rows - 1, node] != row[node]:
                same = False
                break
        if same:
            into[ROW] = n_rows - 1
            return n_rows
    for node in range(pool.shape[1]):
        pool[n_rows, node] = row[node]
    into[ROW] = n_rows
    return n_rows + 1


@inline_kernel
def _append(node_table, node_count, node, pod, most):  # pragma: no cover - compiled
    """``AddPod``: ``pod`` last on ``node`` (:meth:`.nodepods.NodePods.append`; the caller
    checked there is room); the most pods of a node."""
    k = node_count[node]
    node_table[node, k] = pod
    node_count[node] = k + 1
    return max(most, k + 1)
