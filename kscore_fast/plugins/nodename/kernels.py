"""NodeName kernels over the state of ``plugin.NodeName.prepare``:

``(pod_target int64[B],)``: per pod, ``ANY_NODE`` (-1) when ``spec.nodeName`` is empty, the
index of the node it names, or ``NO_NODE`` (-2) when it names no node of the snapshot.
"""

from __future__ import annotations

import numpy as np

from ..._jit import inline_kernel

ANY_NODE, NO_NODE = -1, -2
#: the failure code (``ErrReason``)
MISMATCH = 1


@inline_kernel
def filter_node(state, pod, node):  # pragma: no cover - compiled
    """``Filter``: 0, or ``MISMATCH``."""
    target = state[0][pod]
    if target == ANY_NODE or target == node:  # noqa: SIM109 (numba: no tuple search)
        return np.int64(0)
    return np.int64(MISMATCH)
