"""Sparse counters: a fixed-capacity hash table from non-negative int64 keys to counts,
for counters whose dense layout would be (selectors × nodes) while few of them are ever
non-zero (the per-node counters of hostname topology keys: PodTopologySpread's,
InterPodAffinity's).

``table = (keys, vals, used)``: ``keys`` int64[H] (-1: an empty slot), ``vals`` int64[H]
(a count of pods never nears the int32 bound of PodTopologySpread's Go counters),
``used`` int64[1] (slots taken); H a power of two. Open addressing with linear probing
and no deletion by :func:`add`: a key whose count falls back to 0 keeps its slot
(:func:`discard` removes one). The table is sized
once for every key it may ever hold (:func:`capacity_for`: at most half full), so a probe
always ends at the key or at an empty slot; :func:`add` refuses a key past that bound.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..._jit import inline_kernel, kernel

_EMPTY = -1
#: a topology key of a domain per node, whose counters are the ones to keep sparse
HOSTNAME = "kubernetes.io/hostname"
#: and any key of more domains than this
WIDE_DOMAINS = 64
#: counters of wide keys stay dense while all of them together are at most this many
#: (a probe costs more than an index: small clusters keep the faster layout)
DENSE_BUDGET = 1 << 20


def tabled(key_names: Sequence[str], key_sizes: np.ndarray, block_keys: np.ndarray
           ) -> np.ndarray:  # fmt: skip
    """bool[blocks]: the blocks of counters (one counter per domain of its key,
    ``block_keys``) that go to the table: those of wide keys (hostname, or more than
    :data:`WIDE_DOMAINS` domains), when together they hold more than
    :data:`DENSE_BUDGET` counters."""
    wide_key = np.array([name == HOSTNAME or int(size) > WIDE_DOMAINS
                         for name, size in zip(key_names, key_sizes, strict=True)],
                        dtype=np.bool_).reshape(-1)  # fmt: skip
    keys = np.asarray(block_keys, dtype=np.int64).reshape(-1)
    wide = wide_key[keys]
    if int(np.asarray(key_sizes, dtype=np.int64)[keys][wide].sum()) <= DENSE_BUDGET:
        wide[:] = False
    return wide


def dense_offsets(wide: np.ndarray, sizes: np.ndarray) -> tuple[np.ndarray, int]:
    """(int64[blocks] each block's offset among the dense ones, -1 for a block in the
    table; how many dense counters) for blocks of ``sizes`` counters."""
    dense = np.where(wide, 0, np.asarray(sizes, dtype=np.int64))
    return np.where(wide, -1, np.cumsum(dense) - dense).astype(np.int64), int(dense.sum())


def capacity_for(n_keys: int) -> int:
    """Slots for at most ``n_keys`` keys: a power of two, at least twice as many."""
    return 1 << max(3, (2 * max(n_keys, 1) - 1).bit_length())


def new_table(n_keys: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """An empty table for at most ``n_keys`` keys."""
    size = capacity_for(n_keys)
    return (np.full(size, _EMPTY, dtype=np.int64), np.zeros(size, dtype=np.int64),
            np.zeros(1, dtype=np.int64))  # fmt: skip


def copy_table(table: tuple[np.ndarray, ...]) -> tuple[np.ndarray, ...]:
    return tuple(a.copy() for a in table)


@inline_kernel
def _home(keys, x):  # pragma: no cover - compiled
    """The slot ``x`` hashes to, its probe's start (splitmix64's mix)."""
    z = np.uint64(x) + np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    return np.int64(z & np.uint64(keys.shape[0] - 1))


@inline_kernel
def _slot(keys, x):  # pragma: no cover - compiled
    """The slot holding ``x``, or the empty slot where it would go."""
    mask = keys.shape[0] - 1
    i = _home(keys, x)
    while keys[i] != x and keys[i] != _EMPTY:
        i = (i + 1) & mask
    return i


@inline_kernel
def get(keys, vals, x):  # pragma: no cover - compiled
    """The count of key ``x`` (0: never added)."""
    i = _slot(keys, x)
    return vals[i] if keys[i] == x else np.int64(0)


@inline_kernel
def add(keys, vals, used, x, delta):  # pragma: no cover - compiled
    """Add ``delta`` to the count of key ``x``; the new count."""
    i = _slot(keys, x)
    if keys[i] != x:
        if 2 * (used[0] + 1) > keys.shape[0]:
            raise RuntimeError("counter table full: more keys than it was sized for")
        keys[i] = x
        used[0] += 1
    vals[i] += delta
    return vals[i]


@kernel
def fill(keys, vals, used, xs, counts):  # pragma: no cover - compiled
    """Add ``counts[j]`` to key ``xs[j]`` for each ``j``."""
    for j in range(xs.shape[0]):
        add(keys, vals, used, xs[j], counts[j])


@inline_kernel
def grown(a):  # pragma: no cover - compiled
    """``a`` in an array twice as long (a buffer of pairs for :func:`fill`, grown)."""
    out = np.empty(2 * a.shape[0], dtype=a.dtype)
    for j in range(a.shape[0]):  # (no slice assignment: see _jit)
        out[j] = a[j]
    return out


@inline_kernel
def discard(keys, vals, used, x):  # pragma: no cover - compiled
    """Remove key ``x`` (if present), shifting the keys probed past its slot back, so the
    table holds only the keys added and not discarded (a table whose keys come and go)."""
    i = _slot(keys, x)
    if keys[i] != x:
        return
    mask = keys.shape[0] - 1
    j = i
    while True:
        j = (j + 1) & mask
        if keys[j] == _EMPTY:
            break
        h = _home(keys, keys[j])
        if (h <= i < j) or (j < h <= i) or (i < j < h):  # (h not cyclically in (i, j])
            keys[i], vals[i] = keys[j], vals[j]
            i = j
    keys[i], vals[i] = _EMPTY, 0
    used[0] -= 1
