"""``prioritizeNodes`` for a range of pods: every score plugin, normalized, weighted and
summed.

Mirrors ``RunScorePlugins`` of pkg/scheduler/framework/runtime/framework.go: per plugin
``Score`` on each feasible node, ``NormalizeScore`` over the pod's feasible list, the
[0, 100] check of the normalized scores, × weight; ``prioritizeNodes`` sums the weighted
scores. :func:`plugin_pass` is one plugin's part, calling its ``SCORE`` (or
``SCORE_SERIAL``) and ``NORMALIZE`` entry points pod by pod (:mod:`.abi`); :func:`score_todo`
runs it for every score plugin of the profile (rows ``sids`` of the plugin table), then
:func:`weigh_pods`.
"""

from __future__ import annotations

import numpy as np

from .._jit import inline_kernel, kernel
from .._native import borrow, keep_alive
from ..goarith import MAX_NODE_SCORE, MIN_NODE_SCORE
from .abi import (
    NORMALIZE,
    SCORE,
    SCORE_NORMALIZE,
    SCORE_SERIAL,
    STATE,
    call_score,
    call_score_normalize,
)
from .search import fill_window
from .selection import pick


@inline_kernel
def plugin_pass(table, p, col, k, todo, pods, ptr, nodes, raw, base, norm, nptr, rows, row_raw,
                n_all, row_const, const_ok, keep, cflag, cval,
                do_norm):  # fmt: skip  # pragma: no cover - compiled
    """Plugin ``k``'s ``Score`` (into ``raw[k, base + ptr[i]:base + ptr[i+1]]``) and
    ``NormalizeScore`` (into ``norm[k, nptr[q]:nptr[q+1]]``, int64, unchecked; skipped
    when not ``do_norm``) for the chunk pods ``i = todo[q]``, whose nodes are
    ``nodes[ptr[i]:ptr[i+1]]``: the plugin in row ``p`` of the plugin ``table``, its
    score entry point in column ``col`` (``SCORE``, or ``SCORE_SERIAL`` in the sequential
    loop).

    A pod with ``rows[i] >= 0`` takes its raw scores from the row of its twins,
    ``row_raw[k, rows[i] * n_all + node]`` (every node scored once for all of them: a raw
    score depends on the pod and the node only), and is normalized over its own list.
    When that row holds one value on every node (``row_const[k, rows[i]]``) and the
    plugin normalizes equal scores to equal scores whatever the list (``const_ok``), the
    pod's normalized score is that of a one-node list, kept as ``cval[k, q]``
    (``cflag[k, q]`` set) for :func:`weigh_pods`, and ``raw`` is written only if ``keep``.
    """
    state, score_fn, normalize_fn = table[p, STATE], table[p, col], table[p, NORMALIZE]
    both_fn = table[p, SCORE_NORMALIZE] if do_norm else 0
    for q in range(todo.shape[0]):
        i = todo[q]
        a = ptr[i]
        b = ptr[i + 1]
        cflag[k, q] = False
        out = raw[k, base + a : base + b]
        r = rows[i]
        if r >= 0:
            off = r * n_all
            if const_ok and row_const[k, r]:
                v = row_raw[k, off + nodes[a]]
                if keep:
                    for e in range(b - a):
                        out[e] = v
                one = norm[k, nptr[q] : nptr[q] + 1]
                one[0] = v
                if normalize_fn != 0:
                    call_score(normalize_fn, state, pods[i], nodes[a : a + 1], one)
                cflag[k, q] = True
                cval[k, q] = one[0]
                continue
            for e in range(b - a):
                out[e] = row_raw[k, off + nodes[a + e]]
        elif _scored_both(both_fn, state, pods[i], nodes[a:b], out, norm[k, nptr[q] : nptr[q + 1]]):
            continue
        else:
            call_score(score_fn, state, pods[i], nodes[a:b], out)
        if do_norm:
            scores = norm[k, nptr[q] : nptr[q + 1]]
            if scores.ctypes.data != out.ctypes.data:  # (else scored in place)
                for e in range(b - a):
                    scores[e] = out[e]
            if normalize_fn != 0:
                call_score(normalize_fn, state, pods[i], nodes[a:b], scores)


@inline_kernel
def _scored_both(both_fn, state, pod, nodes, raw, scores):  # pragma: no cover - compiled
    """The plugin's ``SCORE_NORMALIZE`` entry (``both_fn``, 0: none) scored the pod into
    ``raw`` and normalized it into ``scores`` (not when they alias: raw scores scored in
    place; nor for a pod it leaves to ``SCORE`` and ``NORMALIZE``)."""
    if both_fn == 0 or scores.ctypes.data == raw.ctypes.data:
        return False
    return call_score_normalize(both_fn, state, pod, nodes, raw, scores) != 0


@inline_kernel
def top_count(v, top, n_top):  # pragma: no cover - compiled
    """The top total and how many entries reach it, after one more entry ``v``."""
    if v > top:
        return v, np.int64(1)
    if v == top:
        return top, n_top + 1
    return top, n_top


@inline_kernel
def offset_top(total, lo, hi, offset):  # pragma: no cover - compiled
    """``offset`` added to ``total[lo:hi]``; the top total and how many entries reach it
    (two branch-free passes, which the compiler vectorizes)."""
    part = total[lo:hi]
    top = np.int64(-1)
    if offset != 0:
        for e in range(hi - lo):
            part[e] += offset
    for e in range(hi - lo):
        top = max(top, part[e])
    n_top = np.int64(0)
    for e in range(hi - lo):
        n_top += np.int64(part[e] == top)
    return top, n_top


@inline_kernel
def out_of_range(v):  # pragma: no cover - compiled
    """A normalized score outside [MinNodeScore, MaxNodeScore] (RunScorePlugins' check)."""
    return v < MIN_NODE_SCORE or v > MAX_NODE_SCORE


@inline_kernel
def weigh_plugin(k, w, const, v_const, norm, lo, hi, shift, total, keep, norm_u8,
                 base):  # fmt: skip  # pragma: no cover - compiled
    """Plugin ``k``'s normalized scores of one pod (``norm[k, e + shift]`` for its entries
    ``e`` in ``lo:hi``, or one value ``v_const`` on every node where ``const``), checked
    and × weight ``w``: added to ``total[lo:hi]``, kept into ``norm_u8[k, base + e]`` with
    ``keep``. Returns ``(offset, bad, value)``: what the constant adds to every total, and
    whether a score is outside [0, 100] (the first such value), which then adds nothing."""
    if const:
        return weigh_constant(k, v_const, lo, hi, keep, norm_u8, base, w)
    bad, value, _ = weigh_scores(k, w, norm, lo, hi, shift, total, keep, norm_u8, base, False,
                                 np.int64(0))  # fmt: skip
    return np.int64(0), bad, value


@inline_kernel
def weigh_constant(k, v, lo, hi, keep, norm_u8, base, w):  # pragma: no cover - compiled
    """:func:`weigh_plugin` of a plugin scoring ``v`` on every node of the pod."""
    if out_of_range(v):
        return np.int64(0), True, v
    if keep:
        for e in range(lo, hi):
            norm_u8[k, base + e] = v
    return v * w, False, np.int64(0)


@inline_kernel
def weigh_scores(k, w, norm, lo, hi, shift, total, keep, norm_u8, base, first, offset
                 ):  # fmt: skip  # pragma: no cover - compiled
    """:func:`weigh_plugin` of a plugin's scores on each node, in one pass: × weight
    ``w`` added to ``total[lo:hi]`` (``first``: written, as ``offset`` + the weighted
    score), kept into ``norm_u8`` with ``keep``. Returns ``(bad, value, top)``: a score
    outside [0, 100] (the first such value; those add nothing) and the top total after."""
    scores = norm[k, lo + shift : hi + shift]
    low = np.int64(MIN_NODE_SCORE)
    high = np.int64(MAX_NODE_SCORE)
    out = total[lo:hi]
    top = np.int64(-(2**63))
    # (branch-free but for conditions the compiler takes out of the loop, which it then
    # vectorizes; a score out of range is rare, and its entries are taken back and checked
    # one by one)
    kept = norm_u8[k, base + lo : base + hi]
    for e in range(hi - lo):
        v = scores[e]
        low, high = min(low, v), max(high, v)
        if keep:
            kept[e] = v
        t = (offset if first else out[e]) + v * w
        out[e] = t
        top = max(top, t)
    if low < MIN_NODE_SCORE or high > MAX_NODE_SCORE:
        for e in range(hi - lo):
            out[e] = offset if first else out[e] - scores[e] * w
        bad, value = _weigh_checked(k, w, scores, lo, hi, total, keep, norm_u8, base)
        top = np.int64(-(2**63))
        for e in range(hi - lo):
            top = max(top, out[e])
        return bad, value, top
    return False, np.int64(0), top


@inline_kernel
def _weigh_checked(k, w, scores, lo, hi, total, keep, norm_u8, base
                   ):  # fmt: skip  # pragma: no cover - compiled
    """:func:`weigh_scores` of scores some of which are out of range, one by one."""
    bad = False
    value = np.int64(0)
    for e in range(hi - lo):
        v = scores[e]
        if out_of_range(v):
            if not bad:
                bad, value = True, v
            continue
        if keep:
            norm_u8[k, base + lo + e] = v
        total[lo + e] += v * w
    return bad, value


@inline_kernel
def count_top(total, lo, hi, top):  # pragma: no cover - compiled
    """How many of ``total[lo:hi]`` equal ``top`` (branch-free: vectorized)."""
    part = total[lo:hi]
    n_top = np.int64(0)
    for e in range(hi - lo):
        n_top += np.int64(part[e] == top)
    return n_top


@inline_kernel
def weigh_pods(
    weights, todo, ptr, norm, nptr, norm_u8, base, total, best, count, bad_plugin, bad_value,
    cflag, cval, keep,
):  # fmt: skip  # pragma: no cover - compiled
    """:func:`weigh_plugin` of every plugin, per pod of ``todo`` (normalized scores at
    ``nptr``, or one value ``cval`` where ``cflag``, see :func:`plugin_pass`): ``total``,
    the top total and how many nodes reach it (what ``selectHost`` needs), and for a
    normalized score outside [0, 100] the first such plugin and value (``bad_plugin`` -1:
    none); with ``keep``, the checked scores into ``norm_u8`` (columns from ``base``, as
    ``raw``'s in :func:`plugin_pass`)."""
    for q in range(todo.shape[0]):
        i = todo[q]
        lo, hi = ptr[i], ptr[i + 1]
        bad_plugin[i] = -1
        bad_value[i] = 0
        offset = np.int64(0)  # the plugins with one score on every node, first
        for k in range(weights.shape[0]):
            if cflag[k, q]:
                add, bad, v = weigh_constant(k, cval[k, q], lo, hi, keep, norm_u8, base,
                                             weights[k])  # fmt: skip
                offset += add
                if bad and bad_plugin[i] < 0:
                    bad_plugin[i] = k
                    bad_value[i] = v
        first = True  # the first plugin scoring per node writes the totals
        top = offset
        for k in range(weights.shape[0]):
            if not cflag[k, q]:
                bad, v, top = weigh_scores(k, weights[k], norm, lo, hi, nptr[q] - lo, total,
                                           keep, norm_u8, base, first, offset)  # fmt: skip
                first = False
                if bad and (bad_plugin[i] < 0 or k < bad_plugin[i]):  # (the first plugin's)
                    bad_plugin[i] = k
                    bad_value[i] = v
        if first:  # (every plugin scores one value on every node)
            part = total[lo:hi]
            for e in range(hi - lo):
                part[e] = offset
        best[i], count[i] = top, count_top(total, lo, hi, top)


@inline_kernel
def _todo_scratch(n_plugins, longest, n_rows, keep, own_total):  # pragma: no cover - compiled
    """:func:`score_todo`'s scratch: normalized scores (``norm``, from column 0), their
    ``nptr``, ``cflag``/``cval`` (see :func:`plugin_pass`), the rows of a pod scoring on
    its own (none), raw scores apart (when not ``keep``: plugins with a ``SCORE_NORMALIZE``
    entry), one pod's totals (with ``own_total``) and its position (0)."""
    return (
        np.empty((n_plugins, longest), dtype=np.int64),
        np.zeros(2, dtype=np.int64),
        np.empty((n_plugins, 1), dtype=np.bool_),
        np.empty((n_plugins, 1), dtype=np.int64),
        np.full(n_rows, -1, dtype=np.int64),
        np.empty((n_plugins, 0 if keep else longest), dtype=np.int64),
        np.empty(longest if own_total else 0, dtype=np.int64),
        np.zeros(1, dtype=np.int64),
    )


@kernel
def score_todo(todo, sids, weights, table, pods, ptr, nodes, raw, norm_u8, base, total, best,
               count, bad_plugin, bad_value, rows, row_raw, n_all, row_const, const_ok,
               row_ok, keep, seed, hosts, own_total, windows
               ):  # fmt: skip  # pragma: no cover - compiled
    """``prioritizeNodes`` and ``selectHost`` for the chunk pods ``todo`` (≥ 2 feasible
    nodes each), pod by pod, so that a pod's raw and normalized scores stay in cache
    from its first plugin to its host. ``raw``/``norm_u8`` are whole buffers (one
    compiled signature), the chunk's entries from column ``base``, written only with
    ``keep`` (the per-plugin scores are kept; else only totals matter and each plugin
    scores in place of its normalized scores, or apart from them through its
    ``SCORE_NORMALIZE`` entry); ``rows`` (int64[K, C])/``row_raw``/
    ``row_const``: shared raw scores on all ``n_all`` nodes (see ``sharing.TwinRows``),
    for the plugins with ``row_ok[k]``; ``const_ok[k]``: plugin ``k`` normalizes equal
    scores to equal scores.
    Every pod whose scores are all in range gets its host in ``hosts`` (the chunk's
    ``selection.pick`` with ``seed``, streams ``pods``). With ``own_total`` (no caller
    reads ``total`` after: no copies, no top K), each pod's totals go to one pod-sized
    place, which stays in cache, instead of its entries of ``total``. ``windows`` (int64[C]
    or empty): a pod with ``windows[i] >= 0`` has its node list written here first, the
    nodes from that one on (``search.search_chunk`` left it), so it is read from cache."""
    n_plugins = sids.shape[0]
    longest = 0
    for q in range(todo.shape[0]):
        longest = max(longest, ptr[todo[q] + 1] - ptr[todo[q]])
    # (every array borrowed, the arguments and the scratch this call allocates, which it
    # keeps alive to its end: the views taken per pod and plugin cost no atomic operation)
    todo, sids, weights, table, pods, ptr, nodes, raw, norm_u8, total = borrow(
        (todo, sids, weights, table, pods, ptr, nodes, raw, norm_u8, total)
    )
    best, count, bad_plugin, bad_value, rows, row_raw, row_const, const_ok, row_ok, hosts = (
        borrow((best, count, bad_plugin, bad_value, rows, row_raw, row_const, const_ok, row_ok,
                hosts)))  # fmt: skip
    windows = borrow(windows)
    owned = _todo_scratch(n_plugins, longest, rows.shape[1], keep, own_total)
    norm, nptr, cflag, cval, own_lists, apart, tot, pod0 = borrow(owned)
    for q in range(todo.shape[0]):
        i = todo[q]
        one = todo[q : q + 1]
        nptr[1] = ptr[i + 1] - ptr[i]
        if windows.shape[0] > 0 and windows[i] >= 0:
            fill_window(windows[i], n_all, nodes[ptr[i] : ptr[i + 1]])
        for k in range(n_plugins):
            pod_rows = rows[k] if row_ok[k] else own_lists
            if keep:
                plugin_pass(table, sids[k], SCORE, k, one, pods, ptr, nodes, raw, base, norm,
                            nptr, pod_rows, row_raw, n_all, row_const, const_ok[k], keep,
                            cflag, cval, True)  # fmt: skip
            else:
                into = apart if table[sids[k], SCORE_NORMALIZE] != 0 else norm
                plugin_pass(table, sids[k], SCORE, k, one, pods, ptr, nodes, into, -ptr[i],
                            norm, nptr, pod_rows, row_raw, n_all, row_const, const_ok[k], keep,
                            cflag, cval, True)  # fmt: skip
        # the pod's entries seen from 0 (its ``nptr``; columns from base + ptr[i]); its
        # totals in its own place, or in its entries of ``total``
        j, lo = slice(i, i + 1), ptr[i]
        place = tot if own_total else total[lo : ptr[i + 1]]
        weigh_pods(weights, pod0, nptr, norm, nptr, norm_u8, base + lo, place, best[j], count[j],
                   bad_plugin[j], bad_value[j], cflag, cval, keep)  # fmt: skip
        if bad_plugin[i] < 0:
            pick(0, nptr, nodes[lo : ptr[i + 1]], place, 1, best[j], count[j], seed, pods[j],
                 hosts[j])  # fmt: skip
    keep_alive(owned)


@kernel
def fill_rows(sids, table, reps, n_all, row_raw, row_ok, first, const
              ):  # pragma: no cover - compiled  # fmt: skip
    """Raw scores of pods ``reps`` on every node, into rows ``first``, ``first + 1``, ...:
    ``row_raw[k, (first + m) * n_all + node]``, and ``const[k, first + m]``: the row holds
    one value (plugins with ``row_ok[k]``; the others' rows are left alone)."""
    m = reps.shape[0]
    todo = np.arange(m)
    ptr = np.arange(m + 1) * n_all
    nodes = np.empty(m * n_all, dtype=np.int32)
    for r in range(m):
        for node in range(n_all):
            nodes[r * n_all + node] = node
    norm = np.empty((sids.shape[0], 0), dtype=np.int64)  # not normalized
    none = np.full(m, -1, dtype=np.int64)
    no_const = np.zeros((sids.shape[0], 1), dtype=np.bool_)
    cflag = np.empty((sids.shape[0], m), dtype=np.bool_)
    cval = np.empty((sids.shape[0], m), dtype=np.int64)
    base = first * n_all
    for k in range(sids.shape[0]):
        if not row_ok[k]:
            continue
        p = sids[k]
        plugin_pass(table, p, SCORE, k, todo, reps, ptr, nodes, row_raw, base, norm, ptr, none,
                    row_raw, n_all, no_const, False, True, cflag, cval, False)  # fmt: skip
        for r in range(m):
            lo = base + r * n_all
            same = True
            for e in range(lo + 1, lo + n_all):
                if row_raw[k, e] != row_raw[k, lo]:
                    same = False
                    break
            const[k, first + r] = same


@inline_kernel
def serial_pass(table, p, k, todo, pods, ptr, nodes, raw, base, norm, nptr, rows, row_raw, n_all,
                row_const, const_ok, keep, cflag, cval, do_norm):  # fmt: skip  # pragma: no cover
    """:func:`plugin_pass` of the score plugin in row ``p`` of the plugin table, through its
    ``SCORE_SERIAL`` entry point (the sequential loop's: it may use scratch in its state)."""
    plugin_pass(table, p, SCORE_SERIAL, k, todo, pods, ptr, nodes, raw, base, norm, nptr, rows,
                row_raw, n_all, row_const, const_ok, keep, cflag, cval, do_norm)  # fmt: skip
