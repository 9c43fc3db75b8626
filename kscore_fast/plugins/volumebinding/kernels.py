"""VolumeBinding kernels over the state of ``plugin.VolumeBinding.prepare``:

``(node_class int32[N], pod_class int32[B], verdict int64[P, C], reason_ptr int64[R + 1],
reason_chars uint8[...])``: each node's class (nodes with equal values of the labels the
claimed PersistentVolumes' node affinity reads), each pending pod's class (pods of one
namespace with the same claims; class 0: no claim), the verdict of every pod class on
every node class (0: fits; ``k`` > 0: reason list ``k - 1``), and the reason lists' texts
(UTF-8, reasons joined by newlines). ``Score`` is 0 on every node (see ``plugin``).
"""

from __future__ import annotations

from ..._jit import inline_kernel


@inline_kernel
def filter_node(state, pod, node):  # pragma: no cover - compiled
    """``Filter``: 0, or 1 + the index of the reason list."""
    node_class, pod_class, verdict, _, _ = state
    return verdict[pod_class[pod], node_class[node]]


@inline_kernel
def score_pod(state, pod, nodes, out):  # pragma: no cover - compiled
    out[:] = 0
