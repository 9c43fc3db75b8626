"""Kernels of the runtime: the weight phase of ``RunScorePlugins`` and top-K selection."""

from __future__ import annotations

import numpy as np

from .._jit import dual_kernel, prange


@dual_kernel
def apply_weight(ptr, norm, weight, first, store_total, total, out_u8, bad, best, count):
    """Range check, × weight and sum, for one plugin (framework.go ``RunScorePlugins``).

    For every entry of pod ``i``: a normalized score outside [0, 100] records its entry
    index in ``bad[i]`` (first one only); otherwise it is stored in ``out_u8`` and the
    running total becomes (``first``: 0, else ``total``) + score × weight, written back to
    ``total`` if ``store_total`` (a one-plugin profile selects on the scores themselves).
    ``best[i]`` and ``count[i]`` receive the pod's top total and how many entries reach it
    (meaningful after the last plugin: what ``selectHost`` needs).
    """  # pragma: no cover - compiled
    for i in prange(ptr.shape[0] - 1):
        top = np.int64(-1)
        n_top = 0
        for e in range(ptr[i], ptr[i + 1]):
            v = norm[e]
            if v < 0 or v > 100:
                if bad[i] < 0:
                    bad[i] = e
                continue
            out_u8[e] = v
            t = v * weight
            if not first:
                t += total[e]
            if store_total:
                total[e] = t
            if t > top:
                top = t
                n_top = 1
            elif t == top:
                n_top += 1
        best[i] = top
        count[i] = n_top


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
