"""Group equal rows: pods whose score-relevant keys are equal share one computation."""

from __future__ import annotations

import numpy as np

from ..._jit import kernel


@kernel
def group_rows(keys):  # pragma: no cover - compiled
    """Group the rows of ``keys`` (uint64[n, m]) that are equal.

    Returns ``(group_of int64[n], ptr int64[G+1], members int64[n])``: groups are
    numbered in order of first appearance, and ``members[ptr[g]:ptr[g+1]]`` lists the
    rows of group ``g`` in increasing order (its first member is its representative).
    """
    n, m = keys.shape
    cap = 1
    while cap < 2 * n:
        cap <<= 1
    table = np.full(cap, -1, dtype=np.int64)
    group_of = np.empty(n, dtype=np.int64)
    sizes = np.zeros(n + 1, dtype=np.int64)
    n_groups = 0
    for i in range(n):
        h = np.uint64(0xCBF29CE484222325)
        for j in range(m):
            h = (h ^ keys[i, j]) * np.uint64(0x100000001B3)
            h ^= h >> np.uint64(29)
        slot = np.int64(h & np.uint64(cap - 1))
        while True:
            r = table[slot]
            if r == -1:
                table[slot] = i
                group_of[i] = n_groups
                n_groups += 1
                break
            same = True
            for j in range(m):
                if keys[r, j] != keys[i, j]:
                    same = False
                    break
            if same:
                group_of[i] = group_of[r]
                break
            slot = (slot + 1) & (cap - 1)
        sizes[group_of[i] + 1] += 1
    ptr = np.cumsum(sizes[: n_groups + 1])
    fill = ptr[:-1].copy()
    members = np.empty(n, dtype=np.int64)
    for i in range(n):
        g = group_of[i]
        members[fill[g]] = i
        fill[g] += 1
    return group_of, ptr, members
