"""NodeResourcesFit kernels over the state of ``fit.NodeResourcesFit.prepare``.

The state tuple (N nodes, B pending pods, R resource columns as in :mod:`.resources`,
S configured scoring resources, K checked scalar requests):

====  ==============  ====================================================================
 0    alloc           int64[N, R]   ``NodeInfo.Allocatable`` per column
 1    used            int64[N, R+2] ``Requested`` per column, ``NonZeroRequested`` cpu,
                                    memory (``assume`` adds to it)
 2    pod_count       int64[N]      ``len(NodeInfo.Pods)`` (``assume`` adds to it)
 3    pod_add         int64[B, R+2] each pending pod's row of ``used``
 4    alloc_col       int64[S]      column of configured resource ``s``, -1: none
 5    used_col        int64[S]      its column of ``used`` (Fit: cpu and memory read the
                                    non-zero columns ``R``, ``R+1``)
 6    scalar          bool[S]       ``IsScalarResourceName``
 7    pod_req         int64[B, S]   ``calculatePodResourceRequest`` (non-zero defaults, no
                                    overhead: Fit's scorer never enables it)
 8    allowed         int64[N]      ``Allocatable.AllowedPodNumber``
 9    pod_empty       bool[B]       the pod requests nothing (fitsRequest's early return)
10    chk_ptr         int64[B+1]    pod ``p`` checks scalar columns
11    chk_col         int64[K]        ``chk_col[chk_ptr[p]:chk_ptr[p+1]]`` (not ignored)
12    col_bit         int64[R]      failure bit of each checked scalar column
13    weight          int64[S]      ``resourceToWeightMap``
14    strategy        int64         LEAST_ALLOCATED, MOST_ALLOCATED or RTCR
15    rtcr            int64[101]    the RTCR shape's broken-linear function (scores scaled
                                    by MaxNodeScore / MaxCustomPriorityScore) at 0..100
16    name_ptr        int64[R+1]    column ``r``'s name is the UTF-8 bytes
17    name_chars      uint8[...]      ``name_chars[name_ptr[r]:name_ptr[r+1]]`` (reasons)
====  ==============  ====================================================================

Failure codes are bitmasks: ``TOO_MANY_PODS``, ``INSUFFICIENT_CPU``, ``_MEMORY``,
``_EPHEMERAL_STORAGE``, then ``col_bit[c]`` (bits 4..62, given in column order, i.e. by
resource name) for each insufficient scalar resource; ``reasons`` lists them in that
order (Go lists the scalar ones in random map order).
"""

from __future__ import annotations

import numpy as np

from ..._jit import inline_kernel, kernel
from .allocation_kernels import (
    add_pod,
    go_div,
    go_float_to_int64,
    remove_pod,
    scored_resource,
    wadd,
    wmul,
    wsub,
)

TOO_MANY_PODS = 1
INSUFFICIENT_CPU = 2
INSUFFICIENT_MEMORY = 4
INSUFFICIENT_EPHEMERAL_STORAGE = 8
FIRST_SCALAR_BIT = 4
LEAST_ALLOCATED, MOST_ALLOCATED, RTCR = 0, 1, 2
MAX_UTILIZATION = 100


@inline_kernel
def filter_node(state, pod, node):  # pragma: no cover - compiled
    """fit.go ``fitsRequest``: 0 if ``pod`` fits ``node``, else the failure bits."""
    # one element at a time: slicing or unpacking the tuple costs reference counting
    alloc, used, pod_count, pod_add = state[0], state[1], state[2], state[3]
    allowed, pod_empty, chk_ptr, chk_col = state[8], state[9], state[10], state[11]
    col_bit = state[12]
    code = np.int64(0)
    if pod_count[node] + 1 > allowed[node]:
        code |= TOO_MANY_PODS
    # an empty request stops here (its scalar list is empty too); no early return: with
    # one, numba keeps reference counting of the arrays inside the caller's loops
    n_fixed = 0 if pod_empty[pod] else 3
    for r in range(n_fixed):  # cpu, memory, ephemeral-storage: bits 2, 4, 8
        if pod_add[pod, r] > wsub(alloc[node, r], used[node, r]):
            code |= np.int64(2) << r
    for k in range(chk_ptr[pod], chk_ptr[pod + 1]):
        c = chk_col[k]
        if pod_add[pod, c] > wsub(alloc[node, c], used[node, c]):
            code |= col_bit[c]
    return code


@inline_kernel
def broken_linear(shape_u, shape_s, p):  # pragma: no cover - compiled
    """helper/shape_score.go ``BuildBrokenLinearFunction`` evaluated at ``p``: the first
    point with ``p <= utilization``, interpolated from the one before it."""
    n = shape_u.shape[0]
    i = 0
    while i < n and p > shape_u[i]:
        i += 1
    score = shape_s[n - 1]
    if i == 0:
        score = shape_s[0]
    elif i < n:
        ds = shape_s[i] - shape_s[i - 1]
        du = shape_u[i] - shape_u[i - 1]
        score = shape_s[i - 1] + go_div(ds * (p - shape_u[i - 1]), du)
    return score


@kernel
def rtcr_table(shape_u, shape_s):  # pragma: no cover - compiled
    """The broken-linear function at utilizations 0..100 (int64[101]). Valid shapes have
    utilizations in [0, 100], so below 0 it is the value at 0 and above 100 the value at
    100: the table is the whole function."""
    out = np.empty(MAX_UTILIZATION + 1, dtype=np.int64)
    for p in range(MAX_UTILIZATION + 1):
        out[p] = broken_linear(shape_u, shape_s, np.int64(p))
    return out


@inline_kernel
def least_requested_score(requested, capacity):  # pragma: no cover - compiled
    """least_allocated.go ``leastRequestedScore``."""
    score = np.int64(0)
    if capacity != 0 and requested <= capacity:
        score = go_div(wmul(wsub(capacity, requested), 100), capacity)
    return score


@inline_kernel
def most_requested_score(requested, capacity):  # pragma: no cover - compiled
    """most_allocated.go ``mostRequestedScore``."""
    score = np.int64(0)
    if capacity != 0:
        score = go_div(wmul(min(requested, capacity), 100), capacity)
    return score


@inline_kernel
def utilization(requested, capacity):  # pragma: no cover - compiled
    """The argument of the RTCR resource function (``maxUtilization`` when over capacity),
    clamped to the table ``rtcr_table`` covers."""
    p = np.int64(MAX_UTILIZATION)
    if capacity != 0 and requested <= capacity:
        p = go_div(wmul(requested, MAX_UTILIZATION), capacity)
    return min(max(p, 0), MAX_UTILIZATION)


@inline_kernel
def _round_half_away(f):  # pragma: no cover - compiled
    """Go's ``math.Round`` (finite ``f``)."""
    t = np.float64(np.int64(f)) if abs(f) < 4.5e15 else f
    if abs(f - t) >= 0.5:
        t += 1.0 if f > 0 else -1.0
    return t


@inline_kernel
def score_pod(state, pod, nodes, out):  # pragma: no cover - compiled
    """``resourceAllocationScorer.score`` with the configured strategy, on each node
    (resources with allocatable 0 are dropped, as ``score`` drops them)."""
    alloc, used, alloc_col, used_col = state[0], state[1], state[4], state[5]
    scalar, pod_req, weight, strategy, rtcr = state[6], state[7], state[13], state[14], state[15]
    for i in range(nodes.shape[0]):
        node = nodes[i]
        node_score = np.int64(0)
        weight_sum = np.int64(0)
        for s in range(alloc_col.shape[0]):
            if not scored_resource(alloc_col, scalar, pod_req, pod, s):
                continue
            a = alloc[node, alloc_col[s]]
            if a == 0:
                continue
            r = wadd(used[node, used_col[s]], pod_req[pod, s])
            if strategy == LEAST_ALLOCATED:
                rs = least_requested_score(r, a)
            elif strategy == MOST_ALLOCATED:
                rs = most_requested_score(r, a)
            else:
                rs = rtcr[utilization(r, a)]
            if strategy != RTCR or rs > 0:
                node_score = wadd(node_score, wmul(rs, weight[s]))
                weight_sum = wadd(weight_sum, weight[s])
        if weight_sum == 0:
            out[i] = 0
        elif strategy == RTCR:
            out[i] = go_float_to_int64(
                _round_half_away(np.float64(node_score) / np.float64(weight_sum))
            )
        else:
            out[i] = go_div(node_score, weight_sum)


@inline_kernel
def assume(state, pod, node):  # pragma: no cover - compiled
    """``NodeInfo.AddPod``: the pod's requests, non-zero requests and one pod."""
    add_pod(state[1], state[2], state[3], pod, node)


@inline_kernel
def remove(state, pod, node):  # pragma: no cover - compiled
    """``NodeInfo.RemovePod``: ``assume`` undone."""
    remove_pod(state[1], state[2], state[3], pod, node)
