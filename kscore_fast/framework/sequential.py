"""The sequential scheduling loop: one compiled kernel runs many cycles, each pod scheduled
against the state the previous ones left (kube-scheduler's ``scheduleOne`` then
``assume``), with no Python between pods.

Per pod (``Schedule`` in pkg/scheduler/generic_scheduler.go, then scheduler.go's
``assume``): the search over the nodes from ``nextStartNodeIndex`` (the filter verdicts
kept for the pod's twin group, made current on the nodes changed since, see
:mod:`.cycle_cache`), then, with two feasible nodes or more, PreScore errors,
Score/NormalizeScore/weights and the host choice, and at last the pod is assumed on its
host by every plugin of the profile that keeps node aggregates (``assume`` kernels). A pod
that fits nowhere, or whose PreScore or scores fail, changes nothing.

The plugins are rows of the profile's plugin table (:mod:`.abi`): the loop reaches their
filters, scores and ``assume``/``remove`` through their entry points.

The kernel fills per-chunk buffers (entries, rejections, failed pods' verdict rows) and
returns to Python once per chunk of pods, which records them in the result.
"""

from __future__ import annotations

import functools

import numba
import numpy as np
from numba.core import types

from .._jit import inline_kernel, kernel, unrefcounted_kernel
from .._native import call, function_address, state_loader
from . import cached_scoring, cycle_cache, gorand, scoring, search
from .abi import ASSUME, REMOVE, STATE, call_bind
from .selection import _draw

#: tie-break modes (``kscore simulate --tie-break``)
TIE_UNIFORM, TIE_GO_RAND = 0, 1


@inline_kernel
def _pick(tie, total, lo, hi, best, count, seed, stream, rng):  # pragma: no cover - compiled
    """The host's entry among ``total[lo:hi]``: seeded uniform among the top totals, or
    Go's ``selectHost`` with the global ``math/rand`` source ``rng``."""
    if tie == TIE_GO_RAND:
        return lo + gorand.go_select_host(total[lo:hi], rng)
    k = _draw(seed, np.uint64(stream), count)
    for e in range(lo, hi):
        if total[e] == best:
            if k == 0:
                return e
            k -= 1
    return lo


@unrefcounted_kernel
def _search(fids, table, cache, pod, g, nominated, start, num_to_find, n_nodes, out, rej_node,
            rej_code, rej_pos, override):  # fmt: skip  # pragma: no cover - compiled
    """One cycle's search (``framework.search.search_pod``) on the verdicts the cache holds
    for twin group ``g``, made current (:func:`.cycle_cache.slot_for`): ``(slot,
    n_feasible, n_failed, next_start, rej_end)``. Without reference counting: numba would
    count the cache's and states' arrays up and down per node."""
    s = cycle_cache.slot_for(fids, table, cache, pod, g)
    n, nf, start, end = search.search_pod(
        fids, table, cache[2], s, nominated, start, num_to_find, n_nodes, cache[0], cache[1],
        search.BLOCK, out, rej_node, rej_code, rej_pos, override,
    )  # fmt: skip
    return s, n, nf, start, end


@unrefcounted_kernel
def _choose(weights, todo, one_ptr, norm, nptr, norm_u8, lo, n, total, bp, bv, cflag, cval, keep,
            tie, seed, stream, rng):  # fmt: skip  # pragma: no cover - compiled
    """The host's entry among the pod's ``n`` feasible nodes from ``lo`` on, from its
    normalized scores (``weigh_pods``; no score plugins: every node scores 1, as
    ``prioritizeNodes`` gives), or -1 when a score is outside [0, 100] (``bp``/``bv``: the
    plugin and value). Without reference counting (Go's ``selectHost`` draws per node)."""
    if weights.shape[0] == 0:
        for e in range(lo, lo + n):
            total[e] = 1
        return _pick(tie, total, lo, lo + n, np.int64(1), np.int64(n), seed, stream, rng)
    best = bp[1:2]
    count = bv[1:2]
    scoring.weigh_pods(weights, todo, one_ptr, norm, nptr, norm_u8, lo, total[lo : lo + n], best,
                       count, bp, bv, cflag, cval, keep)  # fmt: skip
    if bp[0] >= 0:
        return np.int64(-1)
    return _pick(tie, total, lo, lo + n, best[0], count[0], seed, stream, rng)


@unrefcounted_kernel
def _pick_host(tie, total, lo, hi, best, count, seed, stream, rng):  # pragma: no cover
    """:func:`_pick` without reference counting (Go's ``selectHost`` draws per node)."""
    return _pick(tie, total, lo, hi, best, count, seed, stream, rng)


@unrefcounted_kernel
def _score_all(
    sids, weights, table, pod, sub, lo, n, raw, norm, norm_u8, total, todo, one, one_ptr, nptr,
    no_rows, no_row_raw, no_const, cflag, cval, bp, bv, keep, tie, seed, stream, rng,
):  # fmt: skip  # pragma: no cover - compiled
    """Every score plugin's ``Score`` and ``NormalizeScore`` on the pod's feasible nodes
    ``sub`` (entries from ``lo`` on), then :func:`_choose`: the host's entry, or -1.
    Without reference counting."""
    one_ptr[1] = n
    nptr[1] = n
    todo[0] = 0
    for k in range(sids.shape[0]):
        one[0] = pod
        scoring.serial_pass(table, sids[k], k, todo, one, one_ptr, sub, raw, lo, norm, nptr,
                            no_rows, no_row_raw, np.int64(1), no_const, np.bool_(False),
                            np.bool_(True), cflag, cval, np.bool_(True))  # fmt: skip
    return _choose(weights, todo, one_ptr, norm, nptr, norm_u8, lo, n, total, bp, bv, cflag, cval,
                   keep, tie, seed, stream, rng)  # fmt: skip


#: ``simulate_chunk`` ops: a scheduling cycle (then assume if ``commit``); a deletion
OP_SCHEDULE, OP_DELETE = 0, 1


@kernel
def simulate_chunk(
    fids, sids, weights, kinds, const_ok, aids, table, cache, groups, pods, ops, bound,
    nominated, streams, prescore_bad, start, num_to_find, n_nodes, tie, seed, rng, explain, keep,
    commit,
    hosts, feasible, failed, bad_plugin, bad_value, ptr, nodes, raw, norm_u8, total,
    rej_ptr, rej_node, rej_code, fail_row, fail_rows, override,
):  # pragma: no cover - compiled  # fmt: skip
    """Schedule ``pods`` one after the other (see the module docstring). Returns the next
    ``nextStartNodeIndex``.

    Per chunk pod ``i``: ``hosts[i]`` (-1: none), ``feasible[i]``/``failed[i]`` (the search's
    counts), ``bad_plugin/bad_value[i]`` (a score outside [0, 100]: the first plugin and value,
    else -1), its feasible nodes ``nodes[ptr[i]:ptr[i+1]]`` with per-plugin ``raw``/``norm_u8``
    and ``total`` when it was scored (``keep``; else every pod's entries are scratch from entry
    0 on: the buffers need room for one pod, and a run touches no fresh memory per pod), its
    rejections ``rej_node/rej_code[rej_ptr[i]:rej_ptr[i+1]]`` (with ``explain``), and for a pod
    that fits nowhere (``fail_row[i]`` ≥ 0) its verdict on every node,
    ``fail_rows[fail_row[i]]``. ``prescore_bad[i]``: PreScore fails. ``commit`` false: the pods
    are not assumed (each is scheduled against the same state). ``ops[i]`` ``OP_DELETE``: pod
    ``pods[i]`` is deleted instead (``RemovePod`` from ``bound[pod]``, the node it is bound to,
    if any: -1 none), an entry with no node and no cycle (no draw); ``bound`` gets the host of
    every pod assumed.

    Verdicts come from ``cache`` (:mod:`.cycle_cache`; ``groups``: each batch pod's twin
    group), made current for each cycle and told of every change; without ``keep``, so do
    the raw scores of the plugins ``kinds`` marks kept for the pod (:mod:`.cached_scoring`;
    ``const_ok``: the plugin normalizes equal raw scores equally). ``override``: verdicts
    that replace the cache's on some nodes (``search.search_pod``; empty: none).
    """
    memo = cache[0]
    n_plugins = sids.shape[0]
    cap = max(num_to_find, 1)
    norm = np.empty((n_plugins, cap), dtype=np.int64)
    nptr = np.zeros(2, dtype=np.int64)
    todo = np.zeros(1, dtype=np.int64)
    one = np.zeros(1, dtype=np.int64)
    one_ptr = np.zeros(2, dtype=np.int64)
    no_rows = np.full(1, -1, dtype=np.int64)
    rows = np.zeros(1, dtype=np.int64)
    fptr = np.zeros(2, dtype=np.int64)
    tmp = np.empty((n_plugins, cap), dtype=np.int64)
    miss = np.empty(cap, dtype=nodes.dtype)
    where = np.empty(cap, dtype=np.int64)
    row_const = np.zeros((n_plugins, memo.shape[0]), dtype=np.bool_)
    no_row_raw = np.empty((n_plugins, 1), dtype=np.int64)
    no_const = np.zeros((n_plugins, 1), dtype=np.bool_)
    cflag = np.empty((n_plugins, 1), dtype=np.bool_)
    cval = np.empty((n_plugins, 1), dtype=np.int64)
    bp = np.empty(2, dtype=np.int64)  # (first bad plugin, best total)
    bv = np.empty(2, dtype=np.int64)  # (its value, how many nodes reach the best)
    no_room = rej_node[:0]
    n_fail = 0
    s = np.int64(0)  # the pod's slot in the cache
    for i in range(pods.shape[0]):
        pod = pods[i]
        lo = ptr[i]
        at = lo if keep else np.int64(0)  # (where the pod's entries go)
        hosts[i] = -1
        bad_plugin[i] = -1
        bad_value[i] = 0
        fail_row[i] = -1
        if ops[i] == OP_DELETE:
            if bound[pod] >= 0:
                _change(aids, table, cache, pod, np.int64(bound[pod]), np.bool_(False))
                bound[pod] = -1
            feasible[i] = failed[i] = 0
            ptr[i + 1] = lo
            rej_ptr[i + 1] = rej_ptr[i]
            continue
        if tie == TIE_GO_RAND:  # scheduleOne: SetRecordPluginMetrics(rand.Intn(100) < 10)
            gorand.go_intn(rng, 100)
        out = nodes[at : at + cap]
        if fids.shape[0] == 0:
            n, start = search.windows_pod(nominated[i], start, num_to_find, n_nodes, out)
            failed[i] = 0
            rej_ptr[i + 1] = rej_ptr[i]
        else:
            rn = rej_node if explain else no_room
            s, n, nf, start, end = _search(fids, table, cache, pod, groups[pod], nominated[i],
                                           start, num_to_find, n_nodes, out, rn, rej_code,
                                           rej_ptr[i], override)  # fmt: skip
            failed[i] = nf
            rej_ptr[i + 1] = end
        feasible[i] = n
        ptr[i + 1] = lo + n
        if n == 0:
            fail_row[i] = n_fail
            for node in range(memo.shape[1]):  # (no slice assignment: see _jit)
                fail_rows[n_fail, node] = memo[s, node]
            for node in range(override.shape[0]):  # (the verdicts the search read)
                if override[node] != 0:
                    fail_rows[n_fail, node] = override[node]
            n_fail += 1
            continue
        if n == 1:  # Schedule returns before PreScore: no scoring, no draw
            hosts[i] = out[0]
        elif prescore_bad[i]:
            continue
        else:
            sub = nodes[at : at + n]
            e = cached_scoring.FALLBACK  # (-1: a score out of range)
            if not keep and fids.shape[0] > 0:
                e = cached_scoring.score_cycle(
                    sids, weights, kinds, const_ok, table, cache, s, pod, sub, total[at : at + n],
                    n_nodes, todo, one, one_ptr, tmp, norm, nptr, fptr, rows, row_const, no_rows,
                    cflag, cval, miss, where, bp, bv,
                )  # fmt: skip
                if e == 0:
                    e = _pick_host(tie, total, at, at + n, bp[1], bv[1], seed, streams[i], rng)
            if e == cached_scoring.FALLBACK:
                e = _score_all(sids, weights, table, pod, sub, at, n, raw, norm, norm_u8, total,
                               todo, one, one_ptr, nptr, no_rows, no_row_raw, no_const, cflag,
                               cval, bp, bv, keep, tie, seed, streams[i], rng)  # fmt: skip
            if e < 0:
                bad_plugin[i] = bp[0]
                bad_value[i] = bv[0]
                continue
            hosts[i] = nodes[e]
        if commit:
            _change(aids, table, cache, pod, hosts[i], np.bool_(True))
            bound[pod] = hosts[i]
    return start


def _array(dtype: types.Type, ndim: int = 1) -> types.Array:
    return types.Array(dtype, ndim, "C")


_I64, _I32, _B = types.int64, types.int32, types.boolean
_CACHE = numba.typeof(cycle_cache.new_cache(0, 0, 0))
#: :func:`simulate_chunk`'s arguments as one tuple: the type :func:`simulate_packed`
#: reads (``_native.pack`` of the argument tuple must give exactly this type)
CHUNK_ARGS = types.Tuple((
    _array(_I64), _array(_I64), _array(_I64), _array(_I64, 2), _array(_B), _array(_I64),
    _array(_I64, 2), _CACHE, _array(_I64), _array(_I64),
    _array(types.int8), _array(_I32), _array(_I32), _array(_I64), _array(_B),
    _I64, _I64, _I64, _I64, types.uint64, _array(_I64), _B, _B, _B,
    _array(_I64), _array(_I64), _array(_I64), _array(_I64), _array(_I64), _array(_I64),
    _array(_I32), _array(_I64, 2), _array(types.uint8, 2), _array(_I64), _array(_I64),
    _array(_I32), _array(_I64), _array(_I64), _array(_I64, 2), _array(_I64),
))  # fmt: skip
_load_chunk_args = state_loader(CHUNK_ARGS)
_call_chunk = call(CHUNK_ARGS.types)


@kernel
def simulate_packed(function, address):  # pragma: no cover - compiled
    """:func:`simulate_chunk`, compiled at ``function`` (:func:`simulate_chunk_address`),
    on its arguments packed at ``address``: a step of the ``Simulator`` passes two
    integers from Python instead of 39 arguments, which numba would type one by one at
    every call. (Called by address, so that this kernel's compiled code does not hold a
    copy of the whole loop: ~1 s of compilation and 45 ms of loading.)"""
    return _call_chunk(function, *_load_chunk_args(address))


@functools.cache  # (the code stays where it is: a run packs its calls with it)
def simulate_chunk_address() -> int:
    """The address of :func:`simulate_chunk`'s compiled code for :data:`CHUNK_ARGS`."""
    return function_address(simulate_chunk, CHUNK_ARGS.types)


@unrefcounted_kernel
def _change(aids, table, cache, pod, node, bind):  # pragma: no cover - compiled
    """``pod`` bound to ``node`` (``bind``), or deleted from it, in the state of every plugin
    of rows ``aids`` (those with ``assume``/``remove`` entry points); the cache told what
    may have changed."""
    wide = False
    col = ASSUME if bind else REMOVE
    ctl = cache[3]  # the change in flight, for an undo if a plugin raises (in_flight)
    ctl[cycle_cache.POD], ctl[cycle_cache.NODE], ctl[cycle_cache.BIND] = pod, node, bind
    for a in range(aids.shape[0]):
        ctl[cycle_cache.AT] = a
        p = aids[a]
        wide |= call_bind(table[p, col], table[p, STATE], pod, node) != 0
    ctl[cycle_cache.AT] = -1
    cycle_cache.touch(cache, node, wide)


@kernel
def assume_pods(aids, table, cache, pods, nodes):  # pragma: no cover - compiled
    """Bind each pod ``pods[i]`` to ``nodes[i]`` in the state of every plugin of rows
    ``aids``."""
    for i in range(pods.shape[0]):
        _change(aids, table, cache, pods[i], nodes[i], np.bool_(True))


@kernel
def remove_pod(aids, table, cache, pod, node):  # pragma: no cover - compiled
    """Delete ``pod``, bound to ``node``, from the state of every plugin of rows ``aids``."""
    _change(aids, table, cache, pod, node, np.bool_(False))


#: :func:`remove_pod`'s arguments as one tuple (see :data:`CHUNK_ARGS`)
REMOVE_ARGS = types.Tuple((_array(_I64), _array(_I64, 2), _CACHE, _I64, _I64))
_load_remove_args = state_loader(REMOVE_ARGS)


@kernel
def remove_packed(address):  # pragma: no cover - compiled
    """:func:`remove_pod` on its arguments packed at ``address``."""
    remove_pod(*_load_remove_args(address))
    return np.int64(0)
