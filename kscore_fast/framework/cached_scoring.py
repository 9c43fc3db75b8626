"""Scores of a sequential cycle from raw scores kept across cycles (``--scores none``).

A plugin whose raw score depends on the pod and the node only (``row_independent``:
every default score plugin but PodTopologySpread, whose PreScore reads the node list,
except for the pods its ``score_groups`` gives a group: those without soft constraints)
gives twins the same raw score on a node until that node changes, or, for
InterPodAffinity, until its counters do, which starts a new epoch of the cache
(:mod:`.cycle_cache`). So the cache keeps, per slot (twin group) and node:

* the raw score of each such plugin (``raw``: the row of plugin ``k``, slot ``s`` is
  ``raw[k, s * N : (s + 1) * N]``), computed the first time a cycle of the group finds the
  node feasible after it changed (``ok``);
* ``sums``: the weighted sum of those plugins that have no ``NormalizeScore`` (their
  normalized score is the raw score), or ``BAD`` when one of them is outside [0, 100];
* per slot and plugin, whether every raw score it kept since the slot was emptied is one
  value (``uniform``, ``UNI_ONE``): a cycle's feasible nodes all hold kept scores, so the
  plugin then gives them all that value without looking.

A plugin that declares the pods whose raw score is one value on every node in every
state of a run (``constant_scores(state)``: bool[B], or one bool for every pod) scores
and normalizes such a pod on the first feasible node alone, when it normalizes equal
scores equally whatever the list (``constant_normalize``, or no ``NormalizeScore``): one
value for the whole list, kept nowhere.

A cycle then adds, per feasible node, that sum; for each kept plugin with
``NormalizeScore``, the normalization over the feasible list of the kept raw scores (one
value for the whole list when every node has the same raw score and the plugin
normalizes equal scores equally, ``const_ok``); for the other plugins, ``Score`` and
``NormalizeScore`` as :func:`kscore_fast.framework.scoring.plugin_pass` does. Totals,
the out-of-range check (first plugin in profile order, first node) and the host choice
are those of the scoring of every plugin afresh; a ``BAD`` sum falls back to it.

The plugins run through their ``SCORE_SERIAL`` entry points (:mod:`.abi`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .._jit import inline_kernel, unrefcounted_kernel
from . import cycle_cache, scoring

#: what a score plugin's kept row is, per pod: summed (no NormalizeScore), normalized per
#: cycle, not kept (scored afresh every cycle), or not needed (one raw score on every
#: node in every state: scored and normalized on a one-node list, ``constant_scores``)
KIND_SUM, KIND_NORM, KIND_LIVE, KIND_CONST = 0, 1, 2, 3
#: ``sums`` of a node where a summed plugin's raw score is outside [0, 100]
BAD = np.int64(-(1 << 62))
#: ``score_cycle``'s answer when it cannot score the pod (a ``BAD`` sum)
FALLBACK = -2
UNI_NONE, UNI_ONE, UNI_MANY = cycle_cache.UNI_NONE, cycle_cache.UNI_ONE, cycle_cache.UNI_MANY


def kinds(plugins: Sequence[Any], states: Sequence[tuple[Any, ...]], n_pods: int) -> np.ndarray:
    """int64[K, B]: the kind of each score plugin of the profile (``plugins`` and their
    ``states``, in order) for each pod of the batch: a plugin whose raw scores depend on
    the node list is kept for the pods its ``score_groups`` gives a group (≥ 0: their raw
    scores depend on the pod's group and the node only), live for the others; the pods
    whose raw score is one value on every node in every state (``constant_scores``) need
    no row where the plugin normalizes equal scores equally whatever the list."""
    out = np.empty((len(plugins), n_pods), dtype=np.int64)
    for k, (c, state) in enumerate(zip(plugins, states, strict=True)):
        kept = KIND_NORM if c.normalizes else KIND_SUM
        groups = None if c.row_independent else c.score_groups(state)
        if c.row_independent:
            out[k] = kept
        elif groups is not None:
            out[k] = np.where(np.asarray(groups) >= 0, kept, KIND_LIVE)
        else:
            out[k] = KIND_LIVE
        constant = c.constant_scores(state)
        if constant is not None and (not c.normalizes or c.constant_normalize):
            const = np.broadcast_to(np.asarray(constant, bool), (n_pods,))
            out[k, const] = KIND_CONST
    return out


@unrefcounted_kernel
def score_cycle(
    sids, weights, kind, const_ok, table, cache, s, pod, sub, total, n_all, todo, one, one_ptr,
    tmp, norm, nptr, fptr, rows, row_const, no_rows, cflag, cval, miss, at, bp, bv,
):  # fmt: skip  # pragma: no cover - compiled
    """Totals of the feasible nodes ``sub`` for ``pod`` (cache slot ``s``) into ``total``,
    from the kept raw scores (filled where missing). Returns -1 when a normalized score is
    outside [0, 100] (``bp``/``bv``: first plugin and value), :data:`FALLBACK` when a kept
    summed score is, else 0 with ``bp[1]``/``bv[1]``: the top total and how many nodes
    reach it. When every plugin is summed or constant for the pod, ``total`` and the top
    leave out the constant plugins' part (one value on every node: it changes no choice),
    and an out-of-range constant score falls back too. Scratch: ``tmp``/``norm`` [K, n],
    ``miss``/``at`` [n], ``row_const`` [K, slots] (all false), the rest of one entry or
    two."""
    one[0] = pod
    todo[0] = 0
    fast = True
    for k in range(sids.shape[0]):
        if kind[k, pod] != KIND_SUM and kind[k, pod] != KIND_CONST:
            fast = False
    if fast and not _constants_in_range(sids, kind, const_ok, table, pod, sub, todo, one,
                                        one_ptr, tmp, norm, nptr, no_rows, cache[10], n_all,
                                        row_const, cflag, cval):  # fmt: skip
        return FALLBACK
    m = _kept_sums(cache, s, sub, total, miss, at, bp, bv)
    if m < 0:
        return FALLBACK
    if m > 0:
        _fill(sids, weights, kind, table, cache, s, pod, miss[:m], n_all, todo, one, tmp, norm,
              nptr, fptr, no_rows, row_const, cflag, cval)  # fmt: skip
        sums = cache[11]
        for j in range(m):
            v = sums[s, miss[j]]
            if v == BAD:
                return FALLBACK
            total[at[j]] = v
            bp[1], bv[1] = scoring.top_count(v, bp[1], bv[1])
    if fast:
        bp[0] = -1
        return 0
    return _normalized(sids, weights, kind, const_ok, table, cache, s, pod, sub, total, n_all,
                       todo, one, one_ptr, tmp, norm, nptr, rows, row_const, no_rows, cflag, cval,
                       bp, bv)  # fmt: skip


@inline_kernel
def _kept_sums(cache, s, sub, total, miss, at, bp, bv):  # pragma: no cover - compiled
    """``total[e]`` = the kept sum of node ``sub[e]`` where slot ``s`` holds it, their top
    and its count into ``bp[1]``/``bv[1]``; the other nodes into ``miss`` (their positions
    into ``at``). Returns how many, or -1 at a ``BAD`` sum."""
    sums, ok = cache[11], cache[12]
    m = 0
    top = np.int64(-1)
    n_top = np.int64(0)
    for e in range(sub.shape[0]):
        node = sub[e]
        if ok[s, node]:
            v = sums[s, node]
            if v == BAD:
                return -1
            total[e] = v
            top, n_top = scoring.top_count(v, top, n_top)
        else:
            miss[m] = node
            at[m] = e
            m += 1
    bp[1] = top
    bv[1] = n_top
    return m


@inline_kernel
def _constants_in_range(sids, kind, const_ok, table, pod, sub, todo, one, one_ptr, tmp, norm,
                        nptr, no_rows, raw, n_all, row_const, cflag, cval):  # fmt: skip
    """Whether every plugin constant for ``pod`` (``KIND_CONST``) scores it within [0, 100]
    (each scored and normalized on the first feasible node alone)."""
    for k in range(sids.shape[0]):
        if kind[k, pod] != KIND_CONST:
            continue
        one_ptr[1] = nptr[1] = 1
        scoring.serial_pass(table, sids[k], k, todo, one, one_ptr, sub[:1], tmp, np.int64(0), norm,
                      nptr, no_rows, raw, n_all, row_const, const_ok[k], np.bool_(False), cflag,
                      cval, np.bool_(True))  # fmt: skip
        if scoring.out_of_range(norm[k, 0]):
            return False
    return True


@inline_kernel
def _normalized(sids, weights, kind, const_ok, table, cache, s, pod, sub, total, n_all, todo,
                one, one_ptr, tmp, norm, nptr, rows, row_const, no_rows, cflag, cval, bp,
                bv):  # fmt: skip  # pragma: no cover - compiled
    """The plugins with ``NormalizeScore`` or scored live added to the kept sums in
    ``total`` (see :func:`score_cycle`): -1 at the first normalized score outside [0, 100],
    else 0 with the top total and its count in ``bp[1]``/``bv[1]``."""
    raw, uniform = cache[10], cache[13]
    n = sub.shape[0]
    rows[0] = s
    one_ptr[1] = n
    nptr[1] = n
    offset = np.int64(0)
    bp[0] = -1
    for k in range(sids.shape[0]):
        if kind[k, pod] == KIND_SUM:
            continue
        if kind[k, pod] == KIND_CONST:  # one raw score everywhere: a one-node list's
            one_ptr[1] = nptr[1] = 1
            scoring.serial_pass(table, sids[k], k, todo, one, one_ptr, sub[:1], tmp, np.int64(0),
                          norm, nptr, no_rows, raw, n_all, row_const, const_ok[k],
                          np.bool_(False), cflag, cval, np.bool_(True))  # fmt: skip
            one_ptr[1] = nptr[1] = n
            cflag[k, 0] = True
            cval[k, 0] = norm[k, 0]
        elif kind[k, pod] == KIND_NORM:
            row_const[k, s] = uniform[k, s] == UNI_ONE or _uniform(raw, k, s * n_all, sub)
            scoring.serial_pass(table, sids[k], k, todo, one, one_ptr, sub, tmp, np.int64(0), norm,
                          nptr, rows, raw, n_all, row_const, const_ok[k], np.bool_(False),
                          cflag, cval, np.bool_(True))  # fmt: skip
            row_const[k, s] = False
        else:
            scoring.serial_pass(table, sids[k], k, todo, one, one_ptr, sub, tmp, np.int64(0), norm,
                          nptr, no_rows, raw, n_all, row_const, const_ok[k], np.bool_(False),
                          cflag, cval, np.bool_(True))  # fmt: skip
        # (nothing kept: ``keep`` false, ``cval`` only stands in for the kept rows)
        add, bad, v = scoring.weigh_plugin(k, weights[k], cflag[k, 0], cval[k, 0], norm, 0, n,
                                           0, total, False, cval, 0)  # fmt: skip
        offset += add
        if bad and bp[0] < 0:
            bp[0], bv[0] = k, v
    if bp[0] >= 0:
        return -1
    bp[1], bv[1] = scoring.offset_top(total, 0, n, offset)
    return 0


@unrefcounted_kernel
def _fill(sids, weights, kind, table, cache, s, pod, miss, n_all, todo, one, tmp, norm, nptr,
          ptr, no_rows, row_const, cflag, cval):  # fmt: skip  # pragma: no cover - compiled
    """The kept raw scores and sums of slot ``s`` (twin group of ``pod``) on the nodes
    ``miss`` (``ptr``: scratch for the one pod's list, ``miss[0:m]``)."""
    raw, sums, ok, uniform, value = cache[10], cache[11], cache[12], cache[13], cache[14]
    m = miss.shape[0]
    ptr[0] = 0
    ptr[1] = m
    off = s * n_all
    for j in range(m):
        sums[s, miss[j]] = 0
    for k in range(sids.shape[0]):
        if kind[k, pod] != KIND_SUM and kind[k, pod] != KIND_NORM:
            continue
        scoring.serial_pass(table, sids[k], k, todo, one, ptr, miss, tmp, np.int64(0), norm, nptr,
                      no_rows, raw, n_all, row_const, np.bool_(False), np.bool_(True), cflag,
                      cval, np.bool_(False))  # fmt: skip
        if uniform[k, s] == UNI_NONE:
            uniform[k, s] = UNI_ONE
            value[k, s] = tmp[k, 0]
        for j in range(m):
            node = miss[j]
            v = tmp[k, j]
            raw[k, off + node] = v
            if v != value[k, s]:
                uniform[k, s] = UNI_MANY
            if kind[k, pod] == KIND_SUM and sums[s, node] != BAD:
                sums[s, node] = BAD if scoring.out_of_range(v) else sums[s, node] + v * weights[k]
    for j in range(m):
        ok[s, miss[j]] = True


@inline_kernel
def _uniform(raw, k, off, sub):  # pragma: no cover - compiled
    """Whether plugin ``k``'s kept raw scores (row at ``off``) are one value on ``sub``."""
    v = raw[k, off + sub[0]]
    for e in range(1, sub.shape[0]):
        if raw[k, off + sub[e]] != v:
            return False
    return True
