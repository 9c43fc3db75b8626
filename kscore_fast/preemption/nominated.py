"""``RunFilterPluginsWithNominatedPods``' first pass on a sequential run's state: a pod's
filter verdict on a node once the node's nominated pods of its priority or higher are
added (``addNominatedPods``: the plugins' ``assume`` kernels, then ``remove`` again).
A failure there is the node's status; elsewhere the verdict without them stands (the
caller's ``override``).

Given the dry runs' split of the pod's filters (:meth:`.dryrun.DryRuns.split_for`), only
the filters whose verdict may change as pods come and go run with the nominated pods
added (and only their plugins' ``assume``/``remove``); the others' verdict, the same with
or without them, is taken as it is (the earlier failing filter wins)."""

from __future__ import annotations

import numpy as np

from ..framework.simulation import _Sequence
from . import kernels


def by_node(pods: np.ndarray, nodes: np.ndarray) -> tuple[np.ndarray, ...]:
    """The nominated ``pods`` (batch positions, in nomination order) grouped by their
    ``nodes``: (the nodes, ascending; CSR pointer; the pods, each node's in order)."""
    order = np.argsort(nodes, kind="stable")
    listed, first = np.unique(nodes[order], return_index=True)
    ptr = np.append(first, len(nodes)).astype(np.int64)
    return listed.astype(np.int64), ptr, pods[order].astype(np.int64)


def nominated_verdicts(seq: _Sequence, pod: int, grouped: tuple[np.ndarray, ...],
                       memo: np.ndarray,
                       split: tuple[np.ndarray, ...] | None = None) -> np.ndarray:  # fmt: skip
    """int64[N]: the verdict of batch pod ``pod`` of ``seq`` on each node of ``grouped``
    (:func:`by_node`) with that node's nominated pods added; 0 elsewhere, in one compiled
    call (:func:`.kernels.with_nominated`). ``memo`` (int64[1, N]) is scratch; ``split``:
    (rows, slots, assume rows, fixed verdicts) of the pod's filters, default every filter
    at each node."""
    out = np.zeros(seq.n_nodes, dtype=np.int64)
    listed, ptr, pods = grouped
    if not len(listed):
        return out
    if split is None:
        fids, slots = seq.fids, np.arange(len(seq.fids), dtype=np.int64)
        add, aids, fixed = seq.add_ids, seq.aids, np.zeros(seq.n_nodes, dtype=np.int64)
    else:
        fids, slots, aids, fixed = split
        add = aids[np.isin(aids, seq.add_ids)]
    kernels.with_nominated(fids, slots, fixed, seq.table, add, aids, seq.cache, np.int64(pod),
                           listed, ptr, pods, memo, out)  # fmt: skip
    return out
