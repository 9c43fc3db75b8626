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
from .allocation_kernels import add_pod, go_float_to_int64, scored_resources, wadd


@inline_kernel
def score_pod(state, pod, nodes, out):  # pragma: no cover - compiled
    """balanced_allocation.go ``balancedResourceScorer`` on each node: fractions in the
    configured order (Go: random map order), std of them, ``int64((1 - std) * 100)``.
    """
    alloc, used, alloc_col, used_col = state[0], state[1], state[4], state[5]
    pod_req = state[7]
    scored = scored_resources(alloc_col, state[6], pod_req, pod)
    fractions = np.empty(scored.shape[0], dtype=np.float64)
    for i in range(nodes.shape[0]):
        node = nodes[i]
        count = 0
        total = 0.0
        for k in range(scored.shape[0]):
            s = scored[k]
            a = alloc[node, alloc_col[s]]
            if a == 0:
                continue
            f = np.float64(wadd(used[node, used_col[s]], pod_req[pod, s])) / np.float64(a)
            if f > 1:
                f = 1.0
            total += f
            fractions[count] = f
            count += 1
        std = 0.0
        if count == 2:
            std = abs((fractions[0] - fractions[1]) / 2)
        elif count > 2:
            mean = total / np.float64(count)
            acc = 0.0
            for k in range(count):
                acc = acc + (fractions[k] - mean) * (fractions[k] - mean)
            std = np.sqrt(acc / np.float64(count))
        out[i] = go_float_to_int64((1 - std) * 100.0)


@inline_kernel
def assume(state, pod, node):  # pragma: no cover - compiled
    """``NodeInfo.AddPod``: the pod's requests, non-zero requests and one pod."""
    add_pod(state[1], state[2], state[3], pod, node)
