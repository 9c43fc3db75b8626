"""Kernels of the runtime: settling a searched chunk, top-K selection of the scores kept."""

from __future__ import annotations

import numpy as np

from .._jit import dual_kernel, kernel, prange


@dual_kernel
def top_k(ptr, nodes, total, hosts, k, order_out, lengths_out):  # pragma: no cover - compiled
    """Per pod, its host's entry first, then the entries of the next highest totals
    (descending, ties in list order): ``k`` entries in all (fewer if the list is shorter).

    ``hosts[i]`` is pod ``i``'s chosen node (one of its top totals, so the list is still its
    ``k`` best totals); a host absent from the pod's list (-1) leaves plain top-``k``.
    Writes entry indices to ``order_out`` (pod after pod) and their count per pod to
    ``lengths_out``; returns the number written.
    """
    n_pods = ptr.shape[0] - 1
    out_ptr = np.zeros(n_pods + 1, dtype=np.int64)
    for i in range(n_pods):
        lengths_out[i] = min(k, ptr[i + 1] - ptr[i])
        out_ptr[i + 1] = out_ptr[i] + lengths_out[i]
    for i in prange(n_pods):
        lo = ptr[i]
        hi = ptr[i + 1]
        pos = out_ptr[i]
        n = lengths_out[i]
        host = -1
        for e in range(lo, hi):
            if nodes[e] == hosts[i]:
                host = e
                break
        j = 0
        if host >= 0 and n > 0:
            order_out[pos] = host
            j = 1
        # selection by repeated scan is O(n·k); a stable argsort is O(n log n)
        if k * 8 < hi - lo:
            taken = np.zeros(hi - lo, dtype=np.bool_)
            if host >= 0:
                taken[host - lo] = True
            while j < n:
                best = -1
                for e in range(lo, hi):
                    if not taken[e - lo] and (best < 0 or total[e] > total[best]):
                        best = e
                taken[best - lo] = True
                order_out[pos + j] = best
                j += 1
        else:
            idx = np.argsort(-total[lo:hi], kind="mergesort")
            for m in range(hi - lo):
                if j >= n:
                    break
                e = lo + idx[m]
                if e != host:
                    order_out[pos + j] = e
                    j += 1
    return out_ptr[n_pods]


@kernel
def settle_chunk(pods, ptr, nodes, failed, blocked, feasible, evaluated, hosts, keep_idx,
                 keep_ptr):  # fmt: skip  # pragma: no cover - compiled
    """A searched chunk settled: chunk pod ``i`` (batch pod ``pods[i]``) found the nodes
    ``nodes[ptr[i]:ptr[i+1]]`` and failed ``failed[i]``. Its counts go to ``feasible`` and
    ``evaluated`` (batch-indexed); with one feasible node that node is its host
    (``hosts``); with two or more, unless ``blocked`` (its PreScore failed), it is kept
    for scoring: ``keep_idx[:m]`` are the kept chunk positions and their lists are moved
    to the front of ``nodes`` (in place), ``keep_ptr[:m+1]``. Returns ``m``, the pods
    without a feasible node and the blocked pods with two or more."""
    m = 0
    zero = 0
    n_blocked = 0
    keep_ptr[0] = 0
    for i in range(pods.shape[0]):
        pod = pods[i]
        lo = ptr[i]
        n = ptr[i + 1] - lo
        feasible[pod] = n
        evaluated[pod] = n + failed[i]
        if n == 0:
            zero += 1
        elif n == 1:
            hosts[pod] = nodes[lo]
        elif blocked[pod]:
            n_blocked += 1
        else:
            start = keep_ptr[m]
            if start != lo:
                for e in range(n):
                    nodes[start + e] = nodes[lo + e]
            keep_idx[m] = i
            keep_ptr[m + 1] = start + n
            m += 1
    return m, zero, n_blocked
