"""Host selection: a seeded, uniform choice among the nodes with the top total score.

Upstream ``selectHost`` (pkg/scheduler/generic_scheduler.go) does reservoir sampling
with Go's global ``math/rand``, which kube-scheduler seeds from the clock. kscore_fast
makes the choice reproducible instead: pod ``p`` of a run with seed ``s`` takes tie
number ``draw(s, p, count)`` (0-based, in score-list order), where ``draw`` is an
unbiased counter-based generator (SplitMix64 keyed by seed and pod position). Every pod
gets its own draw, identical pods included, and a pod's host does not depend on which
other pods are in the batch. The distribution over the tie set is uniform, as Go's.
"""

from __future__ import annotations

import numpy as np

from .._jit import dual_kernel, inline_kernel, prange

_MASK = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15


def _splitmix64_py(x: int) -> int:
    x = (x + _GOLDEN) & _MASK
    z = x
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return z ^ (z >> 31)


def draw(seed: int, stream: int, n: int) -> int:
    """Uniform integer in ``[0, n)`` for (seed, stream): the reference of ``_draw``."""
    key = _splitmix64_py(_splitmix64_py(seed & _MASK) ^ (stream & _MASK))
    threshold = ((1 << 64) - n) % n  # 2**64 mod n: reject below it (no modulo bias)
    counter = 0
    while True:
        x = _splitmix64_py((key + counter * _GOLDEN) & _MASK)
        if x >= threshold:
            return x % n
        counter += 1


@inline_kernel
def _splitmix64(x):  # pragma: no cover - compiled
    x = x + np.uint64(_GOLDEN)
    z = x
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@inline_kernel
def _draw(seed, stream, n):  # pragma: no cover - compiled
    key = _splitmix64(_splitmix64(seed) ^ stream)
    un = np.uint64(n)
    threshold = (np.uint64(0) - un) % un
    counter = np.uint64(0)
    while True:
        x = _splitmix64(key + counter * np.uint64(_GOLDEN))
        if x >= threshold:
            return np.int64(x % un)
        counter += np.uint64(1)


@dual_kernel
def select_hosts(ptr, nodes, scores, scale, best, count, seed, streams, out):  # pragma: no cover
    """For each pod: ``out[i]`` = the chosen node index among its top-total entries.

    An entry's total is ``scores[e] * scale`` (the totals with scale 1, or the one plugin's
    normalized scores with its weight). ``best[i]``/``count[i]``: the pod's top total and
    how many entries have it (see ``scoring.score_pod``); ``seed`` is uint64,
    ``streams`` (int64[C]) the pods' positions in the batch.
    """
    for i in prange(ptr.shape[0] - 1):
        pick(i, ptr, nodes, scores, scale, best, count, seed, streams, out)


@inline_kernel
def pick(i, ptr, nodes, scores, scale, best, count, seed, streams, out
          ):  # fmt: skip  # pragma: no cover - compiled
    """Pod ``i``'s host: its ``draw``-th entry with the top total, by scanning its list
    (the ties of 64 entries at a time counted without a branch, vectorized, until the
    block holding it). Entries are indexed unsigned: no negative-index check, which kept
    the compiler from loading a block's entries as a vector (it gathered them one by one)."""
    k = _draw(seed, np.uint64(streams[i]), count[i])
    b = best[i]
    lo, hi = np.uint64(ptr[i]), np.uint64(ptr[i + 1])
    end = lo
    while end < hi:
        lo, end = end, min(hi, end + np.uint64(64))
        ties = np.int64(0)
        for e in range(lo, end):
            ties += np.int64(scores[e] * scale == b)
        if k < ties:
            break
        k -= ties
    for e in range(lo, end):  # (one branch, taken once: predicted)
        tie = scores[e] * scale == b
        if tie and k == 0:
            out[i] = nodes[e]
            return
        k -= np.int64(tie)


@dual_kernel
def select_copies(ptr, nodes, scores, best, count, seed, streams, source, out
                  ):  # fmt: skip  # pragma: no cover - compiled
    """The hosts of the copies: pod ``i`` with ``source[i] = j ≥ 0`` has the node list and
    totals of pod ``j`` (a copy, ``sharing.copy_classes``), whose own entries may hold
    nothing; the other pods' hosts are already in ``out`` (``scoring.score_todo`` picks
    them). The ties of each copied pod are listed once, and a copy takes its ``draw``-th
    tie there (the same node as scanning an equal list would give)."""
    c = ptr.shape[0] - 1
    copied = np.zeros(c, dtype=np.bool_)
    for i in range(c):
        if source[i] >= 0:
            copied[source[i]] = True
    tie_ptr = np.zeros(c + 1, dtype=np.int64)
    for i in range(c):
        tie_ptr[i + 1] = tie_ptr[i] + (count[i] if copied[i] else 0)
    ties = np.empty(tie_ptr[c], dtype=np.int64)
    for i in prange(c):
        if not copied[i]:
            continue
        w = tie_ptr[i]
        for e in range(ptr[i], ptr[i + 1]):
            if scores[e] == best[i]:
                ties[w] = e - ptr[i]
                w += 1
    for i in prange(c):
        j = source[i]
        if j >= 0:
            k = _draw(seed, np.uint64(streams[i]), count[i])
            out[i] = nodes[ptr[i] + ties[tie_ptr[j] + k]]
