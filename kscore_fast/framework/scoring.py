"""``prioritizeNodes`` for one pod: every score plugin, normalized, weighted and summed.

Mirrors ``RunScorePlugins`` of pkg/scheduler/framework/runtime/framework.go: per plugin
``Score`` on each feasible node, ``NormalizeScore`` over the pod's feasible list, the
[0, 100] check of the normalized scores, × weight; ``prioritizeNodes`` sums the weighted
scores. An inlined helper taking the profile's score functions as arguments; the compiled
entry point lives with the plugin registry (``plugins/driver.py``).
"""

from __future__ import annotations

import numpy as np

from .._jit import inline_kernel


@inline_kernel
def score_pod(
    score_fn, normalize_fn, sids, weights, states, pod, nodes, raw, norm_u8, total
):  # pragma: no cover - compiled
    """Score ``pod`` on ``nodes``: ``raw[k]`` (int64[n]) and ``norm_u8[k]`` (uint8[n]) per
    plugin ``k`` of the profile, ``total`` (int64[n]) their weighted sum.

    Returns ``(best, count, bad_plugin, bad_value)``: the top total and how many nodes
    reach it (what ``selectHost`` needs), and for a normalized score outside [0, 100] the
    first such plugin and value (``bad_plugin`` -1: none). ``Score`` itself cannot fail.
    """
    n = nodes.shape[0]
    norm = np.empty(n, dtype=np.int64)
    total[:] = 0
    for k in range(sids.shape[0]):
        sid = sids[k]
        score_fn(sid, states, pod, nodes, raw[k])
        norm[:] = raw[k]
        normalize_fn(sid, states, pod, nodes, norm)
        w = weights[k]
        for e in range(n):
            v = norm[e]
            if v < 0 or v > 100:
                return np.int64(-1), np.int64(0), np.int64(k), v
            norm_u8[k, e] = v
            total[e] += v * w
    best = np.int64(-1)
    count = np.int64(0)
    for e in range(n):
        t = total[e]
        if t > best:
            best = t
            count = 1
        elif t == best:
            count += 1
    return best, count, np.int64(-1), np.int64(0)
