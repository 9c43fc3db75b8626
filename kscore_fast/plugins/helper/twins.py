"""Per-pod preparation done once per group of twins (``model.snapshot.pod_twins``).

Pending pods of one workload are mostly twins (records equal but for the name): a plugin
builds its per-pod rows for one representative of each group
(``model.snapshot.twin_representatives``) and hands every pod its group's row.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np


def expand_rows(ptr: np.ndarray, twins: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rows ``ptr`` (CSR: row ``r`` is entries ``ptr[r]:ptr[r+1]``) of the representatives
    → rows of every pod, pod ``i`` holding row ``twins[i]``: ``(pod_ptr, take)``, the pods'
    entries being ``entries[take]``."""
    if len(twins) == 1:  # (a lone pod: its row as it is)
        r = int(twins[0])
        start, end = int(ptr[r]), int(ptr[r + 1])
        return np.array([0, end - start], dtype=np.int64), np.arange(start, end, dtype=np.int64)
    lengths = np.diff(ptr)[twins]
    pod_ptr = np.zeros(len(twins) + 1, dtype=np.int64)
    np.cumsum(lengths, out=pod_ptr[1:])
    take = np.repeat(ptr[:-1][twins] - pod_ptr[:-1], lengths) + np.arange(pod_ptr[-1])
    return pod_ptr, take.astype(np.int64)


def shape_rows(rows: Sequence[Sequence[Any]], width: int, of: np.ndarray
               ) -> tuple[np.ndarray, list[np.ndarray]]:  # fmt: skip
    """Ragged rows of ``width``-tuples (or of ints, ``width`` 1), one row per *shape* (the
    distinct inputs of a plugin's per-pod preparation) → the rows of every pod, pod ``i``
    holding row ``of[i]``: ``(pod_ptr int64[B+1], [int64 column] * width)``."""
    ptr = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum(np.fromiter(map(len, rows), np.int64, len(rows)), out=ptr[1:])
    flat = np.array([x for r in rows for x in r], dtype=np.int64).reshape(-1, width)
    pod_ptr, take = expand_rows(ptr, of)
    return pod_ptr, [np.ascontiguousarray(flat[take, j]) for j in range(width)]


class Interner:
    """Ids of equal things, in order of first appearance."""

    def __init__(self) -> None:
        self.ids: dict[Any, int] = {}

    def __call__(self, item: Any) -> int:
        return self.ids.setdefault(item, len(self.ids))

    def __len__(self) -> int:
        return len(self.ids)
