"""GpuPacking's compiled kernels. The state: ``(gpus int64[N], used int64[N], want
int64[B])``: each node's allocatable GPUs, the GPUs its pods request (updated by
``assume``/``remove``), each pending pod's GPUs."""

import numpy as np

from kscore_fast import kernel

MAX_NODE_SCORE = 100


@kernel
def score_pod(state, pod, nodes, out):  # pragma: no cover - compiled
    """A GPU pod: 100 − the share of the node's GPUs it leaves idle, in percent (a node it
    fills scores 100); a pod without GPUs: 100 on nodes without GPUs, 0 on the others
    (keep GPU nodes for GPU pods)."""
    gpus, used, want = state
    g = want[pod]
    for i in range(nodes.shape[0]):
        n = nodes[i]
        if gpus[n] == 0:
            out[i] = MAX_NODE_SCORE if g == 0 else 0
        elif g == 0:
            out[i] = 0
        else:
            idle = max(gpus[n] - used[n] - g, 0)
            out[i] = MAX_NODE_SCORE - MAX_NODE_SCORE * idle // gpus[n]


@kernel
def assume(state, pod, node):  # pragma: no cover - compiled
    state[1][node] += state[2][pod]
    return False  # (only this node's scores change)


@kernel
def remove(state, pod, node):  # pragma: no cover - compiled
    state[1][node] -= state[2][pod]
    return False


def empty() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    z = np.zeros(0, dtype=np.int64)
    return z, z.copy(), z.copy()
