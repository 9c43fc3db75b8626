"""numba kernels shared by NodeResourcesFit and NodeResourcesBalancedAllocation.

Two kinds: the preparation kernels that aggregate container tables into per-pod and
per-node columns (see :mod:`.resources` for the table layout), and inline helpers of the
per-pod kernels: Go's truncating int64 division, Go's amd64 float → int64 conversion,
``assume`` (``NodeInfo.AddPod``) and ``remove`` (``NodeInfo.RemovePod``).

Column ``r`` of every resource matrix: 0 cpu (millicores), 1 memory, 2 ephemeral-storage,
3.. the scalar resources (bytes or units). ``used`` rows have two more columns: ``R`` the
non-zero cpu and ``R + 1`` the non-zero memory (``NodeInfo.NonZeroRequested``).
int64 arithmetic that may overflow wraps as Go's does (``wadd``, ``wsub``, ``wmul``).
"""

from __future__ import annotations

import numpy as np

from ..._jit import inline_kernel, kernel

#: util/pod_resources.go DefaultMilliCPURequest, DefaultMemoryRequest
DEFAULT_MILLI_CPU = 100
DEFAULT_MEMORY = 200 * 1024 * 1024


@inline_kernel
def wadd(a, b):  # pragma: no cover - compiled
    """Go's int64 ``a + b``, wrapping. numba marks signed arithmetic ``nsw`` (overflow is
    undefined behaviour to LLVM, which then rewrites expressions freely), so every sum,
    difference and product that may overflow goes through uint64."""
    return np.int64(np.uint64(a) + np.uint64(b))


@inline_kernel
def wsub(a, b):  # pragma: no cover - compiled
    """Go's int64 ``a - b``, wrapping (see ``wadd``)."""
    return np.int64(np.uint64(a) - np.uint64(b))


@inline_kernel
def wmul(a, b):  # pragma: no cover - compiled
    """Go's int64 ``a * b``, wrapping (see ``wadd``)."""
    return np.int64(np.uint64(a) * np.uint64(b))


@inline_kernel
def go_div(a, b):  # pragma: no cover - compiled
    """Go's int64 ``a / b`` (``b != 0``): truncated toward zero (numba's ``//`` floors),
    ``MinInt64 / -1`` wrapping to ``MinInt64``; computed on magnitudes in uint64."""
    ua = np.uint64(a) if a >= 0 else np.uint64(0) - np.uint64(a)
    ub = np.uint64(b) if b >= 0 else np.uint64(0) - np.uint64(b)
    q = ua // ub
    if (a < 0) != (b < 0):
        q = np.uint64(0) - q
    return np.int64(q)


@inline_kernel
def go_float_to_int64(f):  # pragma: no cover - compiled
    """Go's ``int64(f)`` on amd64: truncation; ``MinInt64`` for NaN and out of range."""
    if f >= -9.223372036854775808e18 and f < 9.223372036854775808e18:
        return np.int64(f)
    return np.int64(-9223372036854775807 - 1)


@inline_kernel
def default_request(col, non_zero):  # pragma: no cover - compiled
    """What ``GetRequestForResource`` returns for a resource a container does not list."""
    if non_zero and col == 0:
        return np.int64(DEFAULT_MILLI_CPU)
    if non_zero and col == 1:
        return np.int64(DEFAULT_MEMORY)
    return np.int64(0)


@kernel
def pod_resources(ptr, init_start, val, has):  # pragma: no cover - compiled
    """types.go ``calculateResource`` (= fit.go ``computePodResourceRequest``) of every
    pod of a container table: (``res`` int64[P, R], ``present`` bool[P, R]: the resource
    is a key of the result, ``nonzero`` int64[P, 2])."""
    n_pods = ptr.shape[0] - 1
    n_res = val.shape[1]
    res = np.zeros((n_pods, n_res), dtype=np.int64)
    present = np.zeros((n_pods, n_res), dtype=np.bool_)
    nonzero = np.zeros((n_pods, 2), dtype=np.int64)
    for p in range(n_pods):
        ovh = ptr[p + 1] - 1
        cpu = np.int64(0)
        mem = np.int64(0)
        for c in range(ptr[p], ovh):
            init = c >= init_start[p]
            for r in range(n_res):
                if has[c, r]:
                    present[p, r] = True
                    if init:
                        res[p, r] = max(res[p, r], val[c, r])
                    else:
                        res[p, r] = wadd(res[p, r], val[c, r])
            c_cpu = val[c, 0] if has[c, 0] else default_request(0, True)
            c_mem = val[c, 1] if has[c, 1] else default_request(1, True)
            cpu = max(cpu, c_cpu) if init else wadd(cpu, c_cpu)
            mem = max(mem, c_mem) if init else wadd(mem, c_mem)
        for r in range(n_res):
            if has[ovh, r]:
                present[p, r] = True
                res[p, r] = wadd(res[p, r], val[ovh, r])
        if has[ovh, 0]:
            cpu = wadd(cpu, val[ovh, 0])
        if has[ovh, 1]:
            mem = wadd(mem, val[ovh, 1])
        nonzero[p, 0] = cpu
        nonzero[p, 1] = mem
    return res, present, nonzero


@kernel
def score_requests(
    ptr, init_start, val, has, ovh_units, cols, non_zero, overhead
):  # pragma: no cover - compiled
    """resource_allocation.go ``calculatePodResourceRequest`` of every pod for each
    configured resource (int64[P, S]; 0 where ``cols[s]`` < 0). ``non_zero``: missing
    cpu/memory requests count as the defaults; ``overhead``: add ``spec.overhead``'s
    ``Value()`` (cpu in whole cores: ``ovh_units``)."""
    n_pods = ptr.shape[0] - 1
    out = np.zeros((n_pods, cols.shape[0]), dtype=np.int64)
    for p in range(n_pods):
        ovh = ptr[p + 1] - 1
        for s in range(cols.shape[0]):
            col = cols[s]
            if col < 0:
                continue
            d = default_request(col, non_zero)
            v = np.int64(0)
            for c in range(ptr[p], init_start[p]):
                v = wadd(v, val[c, col] if has[c, col] else d)
            for c in range(init_start[p], ovh):
                x = val[c, col] if has[c, col] else d
                if v < x:
                    v = x
            if overhead and has[ovh, col]:
                v = wadd(v, ovh_units[p] if col == 0 else val[ovh, col])
            out[p, s] = v
    return out


@kernel
def node_sums(pod_node, res, nonzero, n_nodes):  # pragma: no cover - compiled
    """``NodeInfo.AddPod`` of every bound pod: ``used`` int64[N, R + 2] (Requested, then
    NonZeroRequested cpu and memory) and the pod count int64[N]."""
    n_res = res.shape[1]
    used = np.zeros((n_nodes, n_res + 2), dtype=np.int64)
    count = np.zeros(n_nodes, dtype=np.int64)
    for i in range(pod_node.shape[0]):
        n = pod_node[i]
        for r in range(n_res):
            used[n, r] = wadd(used[n, r], res[i, r])
        used[n, n_res] = wadd(used[n, n_res], nonzero[i, 0])
        used[n, n_res + 1] = wadd(used[n, n_res + 1], nonzero[i, 1])
        count[n] += 1
    return used, count


@inline_kernel
def scored_resource(alloc_col, scalar, pod_req, pod, s):  # pragma: no cover - compiled
    """Whether configured resource ``s`` can give ``calculateResourceAllocatableRequest``
    a non-(0, 0) pair for this pod on some node: it has a column, and is not a scalar
    resource the pod does not request (the scorers go through resources in configured
    order)."""
    return alloc_col[s] >= 0 and (pod_req[pod, s] != 0 or not scalar[s])


@inline_kernel
def add_pod(used, pod_count, pod_add, pod, node):  # pragma: no cover - compiled
    """``NodeInfo.AddPod`` of a pending pod (``pod_add``: its ``used`` row)."""
    for r in range(used.shape[1]):
        used[node, r] = wadd(used[node, r], pod_add[pod, r])
    pod_count[node] += 1


@inline_kernel
def remove_pod(used, pod_count, pod_add, pod, node):  # pragma: no cover - compiled
    """``NodeInfo.RemovePod`` of a pending pod bound earlier: ``add_pod`` undone."""
    for r in range(used.shape[1]):
        used[node, r] = wsub(used[node, r], pod_add[pod, r])
    pod_count[node] -= 1
