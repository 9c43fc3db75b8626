"""Filter verdicts kept from one scheduling cycle to the next (sequential mode).

A verdict depends on the pod and on the node's aggregates only (NodeResourcesFit's
requests, NodePorts' ports, ...), except for PodTopologySpread and InterPodAffinity,
whose counters are shared by every node of a domain and whose filter reads the global
minimum. So between two cycles of twins (:func:`kscore_fast.model.snapshot.pod_twins`:
same verdicts on the same state), only the verdicts on the nodes an ``assume`` or a
``remove`` touched can have changed, unless one of those two plugins' counters changed,
which may change any verdict.

The cache holds verdict rows (``memo``, filled a block of nodes at a time as the search
reaches them, ``done``) for up to ``S`` twin groups, in slots reused least recently used
first, and a log of the nodes changed since: a slot replays the log entries it has not
seen (those nodes' verdicts made afresh) before its cycle; a wide change (the counters
above, or a full log) starts a new epoch, in which every slot starts empty.

The cache is a tuple, ``(memo, done, reps, ctl, log, seen, epoch, group, slot_of, used,
raw, sums, ok, uniform, value)``:

* ``memo`` int64[S, N], ``done`` bool[S, blocks]: the verdict rows (``framework.search``);
* ``reps`` int64[S]: the pod whose verdicts a slot holds (any of its twins);
* ``ctl`` int64[7]: log length, epoch, clock, and the change in flight (written by
  ``sequential._change``, undone by ``simulation._Sequence.undo_in_flight``): the plugins
  of ``aids`` it has reached (-1: none in flight), its pod, node and direction (1: bind);
* ``log`` int64[L]: the nodes changed in this epoch, in order;
* ``seen`` int64[S]: the log length a slot has replayed; ``epoch`` int64[S]: its epoch;
* ``group`` int64[S]: the twin group a slot holds (-1: none); ``slot_of`` int64[G]: the
  slot of each group (-1: none); ``used`` int64[S]: the clock of a slot's last cycle;
* ``raw`` int64[K, S * N], ``sums`` int64[S, N], ``ok`` bool[S, N]: the raw scores kept
  per slot and node, made invalid with the verdicts (see :mod:`.cached_scoring`);
* ``uniform`` int8[K, S], ``value`` int64[K, S]: whether the raw scores a slot kept for a
  plugin since it was emptied are none yet, all ``value``, or several values
  (``UNI_*``).
"""

from __future__ import annotations

import numpy as np

from .._jit import inline_kernel
from . import search

_LOG, _EPOCH, _CLOCK = 0, 1, 2
#: ``ctl``: the change in flight (plugins reached, pod, node, bind)
AT, POD, NODE, BIND = 3, 4, 5, 6
#: bytes of verdict and score rows a cache may hold (its slots: at least one, at most one
#: per group)
BUDGET = 64 << 20
#: log entries (nodes changed) an epoch may hold
LOG_SIZE = 1 << 16
#: ``uniform``: no raw score kept yet, one value only, several
UNI_NONE, UNI_ONE, UNI_MANY = 0, 1, 2


def new_cache(n_groups: int, n_nodes: int, n_scores: int) -> tuple[np.ndarray, ...]:
    """An empty cache for ``n_groups`` twin groups on ``n_nodes`` nodes, with raw score
    rows for ``n_scores`` score plugins."""
    per_slot = n_nodes * (8 * (2 + n_scores) + 1)
    slots = max(1, min(n_groups, BUDGET // max(per_slot, 1)))
    blocks = -(-n_nodes // search.BLOCK)
    return (
        np.empty((slots, n_nodes), dtype=np.int64),
        np.zeros((slots, blocks), dtype=np.bool_),
        np.zeros(slots, dtype=np.int64),
        np.array([0, 0, 0, -1, 0, 0, 0], dtype=np.int64),
        np.empty(LOG_SIZE, dtype=np.int64),
        np.zeros(slots, dtype=np.int64),
        np.full(slots, -1, dtype=np.int64),
        np.full(slots, -1, dtype=np.int64),
        np.full(max(n_groups, 1), -1, dtype=np.int64),
        np.zeros(slots, dtype=np.int64),
        np.empty((n_scores, slots * n_nodes), dtype=np.int64),
        np.empty((slots, n_nodes), dtype=np.int64),
        np.zeros((slots, n_nodes), dtype=np.bool_),
        np.zeros((n_scores, slots), dtype=np.int8),
        np.zeros((n_scores, slots), dtype=np.int64),
    )


@inline_kernel
def touch(cache, node, wide):  # pragma: no cover - compiled
    """``node``'s aggregates changed (``wide``: possibly every node's verdicts did)."""
    ctl, log = cache[3], cache[4]
    if wide or ctl[_LOG] == log.shape[0]:
        ctl[_EPOCH] += 1
        ctl[_LOG] = 0
    else:
        log[ctl[_LOG]] = node
        ctl[_LOG] += 1


@inline_kernel
def slot_for(fids, table, cache, pod, g):  # pragma: no cover - compiled
    """The slot of twin group ``g`` for a cycle of ``pod``, its verdicts made current:
    the group's slot, else the least recently used one (emptied); entries of the log it
    has not seen replayed (a slot that missed more than a quarter of the nodes' worth,
    or an epoch, starts empty)."""
    memo, done, reps, ctl, log, seen, epoch, group, slot_of, used, _, _, ok, uniform, _ = cache
    ctl[_CLOCK] += 1
    s = slot_of[g]
    if s < 0:
        s = 0
        for t in range(1, used.shape[0]):
            if used[t] < used[s]:
                s = t
        if group[s] >= 0:
            slot_of[group[s]] = -1
        group[s] = g
        slot_of[g] = s
        epoch[s] = -1
    used[s] = ctl[_CLOCK]
    reps[s] = pod
    a, b = seen[s], ctl[_LOG]
    if epoch[s] != ctl[_EPOCH] or 4 * (b - a) > memo.shape[1]:
        done[s, :] = False
        ok[s, :] = False
        uniform[:, s] = UNI_NONE
        epoch[s] = ctl[_EPOCH]
    elif b > a:
        search.fill_nodes(fids, table, reps, s, log[a:b], memo)
        for j in range(a, b):
            ok[s, log[j]] = False
    seen[s] = b
    return s
