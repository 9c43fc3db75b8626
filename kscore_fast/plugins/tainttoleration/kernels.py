"""TaintToleration kernels over the state of ``plugin.TaintToleration.prepare``:

``(taint_ptr, taint_key, taint_value, taint_effect, pod_set, set_ptr, tol_op, tol_key,
tol_value, tol_effect, str_bytes, str_ptr)``: the node taints, toleration sets and string
table of :class:`..helper.taints.TaintColumns` (see that module for the layout).

A failing ``Filter`` returns 1 + the position ``e`` of the first untolerated
NoSchedule/NoExecute taint in the flat taint columns (its key and value make the reason).
"""

from __future__ import annotations

import numpy as np

from ..._jit import inline_kernel
from ...goarith import MAX_NODE_SCORE
from ..helper.taints import NO_EXECUTE, NO_SCHEDULE, PREFER_NO_SCHEDULE, set_tolerates


@inline_kernel
def filter_node(state, pod, node):  # pragma: no cover - compiled
    """``Filter``: 0, or 1 + the flat position of the first untolerated taint."""
    taint_ptr, taint_key, taint_value, taint_effect, pod_set = state[:5]
    tols = state[5:10]
    s = pod_set[pod]
    for e in range(taint_ptr[node], taint_ptr[node + 1]):
        effect = taint_effect[e]
        if effect != NO_SCHEDULE and effect != NO_EXECUTE:
            continue
        if not set_tolerates(tols, s, taint_key[e], taint_value[e], effect, False):
            return np.int64(e + 1)
    return np.int64(0)


@inline_kernel
def score_pod(state, pod, nodes, out):  # pragma: no cover - compiled
    """``Score``: PreferNoSchedule taints of each node that the pod's tolerations of effect
    "" or PreferNoSchedule (PreScore's list) do not tolerate."""
    taint_ptr, taint_key, taint_value, taint_effect, pod_set = state[:5]
    tols = state[5:10]
    s = pod_set[pod]
    for i in range(nodes.shape[0]):
        n = nodes[i]
        count = np.int64(0)
        for e in range(taint_ptr[n], taint_ptr[n + 1]):
            if taint_effect[e] != PREFER_NO_SCHEDULE:
                continue
            if not set_tolerates(tols, s, taint_key[e], taint_value[e], PREFER_NO_SCHEDULE, True):
                count += 1
        out[i] = count


@inline_kernel
def default_normalize_score(max_priority, reverse, scores):  # pragma: no cover - compiled
    """helper/normalize_score.go ``DefaultNormalizeScore``, in place."""
    max_count = np.int64(0)
    for i in range(scores.shape[0]):
        if scores[i] > max_count:
            max_count = scores[i]
    if max_count == 0:
        if reverse:
            scores[:] = max_priority
        return
    for i in range(scores.shape[0]):
        p = max_priority * scores[i]
        score = p // max_count if p >= 0 else -((-p) // max_count)  # truncating, as Go
        if reverse:
            score = max_priority - score
        scores[i] = score


@inline_kernel
def normalize_pod(state, pod, nodes, scores):  # pragma: no cover - compiled
    """``NormalizeScore``: ``DefaultNormalizeScore(MaxNodeScore, reverse=true)``."""
    default_normalize_score(np.int64(MAX_NODE_SCORE), True, scores)
