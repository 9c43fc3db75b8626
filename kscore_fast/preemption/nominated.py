"""``RunFilterPluginsWithNominatedPods``' first pass on a sequential run's state: a pod's
filter verdict on a node once the node's nominated pods of its priority or higher are
added (``addNominatedPods``: the plugins' ``assume`` kernels, then ``remove`` again).
A failure there is the node's status; elsewhere the verdict without them stands (the
caller's ``override``)."""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence

import numpy as np

from ..framework.simulation import _Sequence
from . import kernels


def nominated_verdicts(seq: _Sequence, pod: int, by_node: Mapping[int, Sequence[int]],
                       memo: np.ndarray, reps: np.ndarray,
                       nodes: set[int] | None = None) -> np.ndarray:  # fmt: skip
    """int64[N]: the verdict of batch pod ``pod`` of ``seq`` on each node of ``by_node``
    (node → the batch positions of the nominated pods to add there, in nomination order;
    only the nodes of ``nodes`` when given) with those pods added; 0 elsewhere, in one
    compiled call (:func:`.kernels.with_nominated`). ``memo`` (int64[1, N]) is scratch;
    ``reps``, unused, is kept for the callers."""
    out = np.zeros(seq.n_nodes, dtype=np.int64)
    listed = sorted(n for n in by_node if nodes is None or n in nodes)
    if not listed:
        return out
    sizes = [len(by_node[n]) for n in listed]
    ptr = np.zeros(len(listed) + 1, dtype=np.int64)
    np.cumsum(sizes, out=ptr[1:])
    pods = np.fromiter(itertools.chain.from_iterable(by_node[n] for n in listed),
                       dtype=np.int64, count=int(ptr[-1]))  # fmt: skip
    kernels.with_nominated(seq.fids, seq.table, seq.add_ids, seq.aids, seq.cache, np.int64(pod),
                           np.asarray(listed, dtype=np.int64), ptr, pods, memo, out)  # fmt: skip
    return out
