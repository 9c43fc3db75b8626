"""Per-pod preparation done once per group of twins (``model.snapshot.pod_twins``).

Pending pods of one workload are mostly twins (records equal but for the name): a plugin
builds its per-pod rows for one representative of each group
(``model.snapshot.twin_representatives``) and hands every pod its group's row.
"""

from __future__ import annotations

import numpy as np


def expand_rows(ptr: np.ndarray, twins: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rows ``ptr`` (CSR: row ``r`` is entries ``ptr[r]:ptr[r+1]``) of the representatives
    → rows of every pod, pod ``i`` holding row ``twins[i]``: ``(pod_ptr, take)``, the pods'
    entries being ``entries[take]``."""
    lengths = np.diff(ptr)[twins]
    pod_ptr = np.zeros(len(twins) + 1, dtype=np.int64)
    np.cumsum(lengths, out=pod_ptr[1:])
    take = np.repeat(ptr[:-1][twins] - pod_ptr[:-1], lengths) + np.arange(pod_ptr[-1])
    return pod_ptr, take.astype(np.int64)
