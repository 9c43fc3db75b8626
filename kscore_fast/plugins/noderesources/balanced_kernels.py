"""NodeResourcesBalancedAllocation kernels over the state of
``balanced.NodeResourcesBalancedAllocation.prepare``: the first eight arrays of the
NodeResourcesFit state (see :mod:`.fit_kernels`), read with ``useRequested``:

``(alloc, used, pod_count, pod_add, alloc_col, used_col, scalar, pod_req)``, where
``used_col`` reads ``Requested`` for every resource (cpu and memory included) and
``pod_req`` is ``calculatePodResourceRequest`` without non-zero defaults, plus the pod's
``spec.overhead`` through ``quantity.Value()`` (cpu in whole cores, rounded up: the 1.23
code adds that to a millicore sum).
"""

from __future__ import annotations

import numpy as np

from ..._jit import inline_kernel
from .allocation_kernels import add_pod, go_float_to_int64, remove_pod, scored_resource, wadd


@inline_kernel
def _fraction(alloc, used, alloc_col, used_col, scalar, pod_req, pod, node, s):  # pragma: no cover
    """(counted, fraction): resource ``s``'s requested/allocatable fraction on ``node``,
    capped at 1; not counted when the resource is not scored for this pod
    (``scored_resource``) or its allocatable is 0."""
    if not scored_resource(alloc_col, scalar, pod_req, pod, s):
        return False, 0.0
    a = alloc[node, alloc_col[s]]
    if a == 0:
        return False, 0.0
    f = np.float64(wadd(used[node, used_col[s]], pod_req[pod, s])) / np.float64(a)
    return True, (1.0 if f > 1 else f)


@inline_kernel
def score_pod(state, pod, nodes, out):  # pragma: no cover - compiled
    """balanced_allocation.go ``balancedResourceScorer`` on each node: fractions in the
    configured order (Go: random map order), std of them, ``int64((1 - std) * 100)``.
    """
    alloc, used, alloc_col, used_col = state[0], state[1], state[4], state[5]
    scalar, pod_req = state[6], state[7]
    for i in range(nodes.shape[0]):
        node = nodes[i]
        # the fractions are computed again for the second pass (same operations, same
        # bits) instead of being kept: the kernel allocates nothing
        count = 0
        total = 0.0
        f0 = f1 = 0.0
        for s in range(alloc_col.shape[0]):
            counted, f = _fraction(alloc, used, alloc_col, used_col, scalar, pod_req, pod, node, s)
            if not counted:
                continue
            total += f
            if count == 0:
                f0 = f
            elif count == 1:
                f1 = f
            count += 1
        std = 0.0
        if count == 2:
            std = abs((f0 - f1) / 2)
        elif count > 2:
            mean = total / np.float64(count)
            acc = 0.0
            for s in range(alloc_col.shape[0]):
                counted, f = _fraction(alloc, used, alloc_col, used_col, scalar, pod_req, pod,
                                       node, s)  # fmt: skip
                if counted:
                    acc = acc + (f - mean) * (f - mean)
            std = np.sqrt(acc / np.float64(count))
        out[i] = go_float_to_int64((1 - std) * 100.0)


@inline_kernel
def assume(state, pod, node):  # pragma: no cover - compiled
    """``NodeInfo.AddPod``: the pod's requests, non-zero requests and one pod."""
    add_pod(state[1], state[2], state[3], pod, node)


@inline_kernel
def remove(state, pod, node):  # pragma: no cover - compiled
    """``NodeInfo.RemovePod``: ``assume`` undone."""
    remove_pod(state[1], state[2], state[3], pod, node)
