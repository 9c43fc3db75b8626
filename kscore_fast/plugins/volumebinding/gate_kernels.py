"""The kernel of VolumeBinding's PreFilter (``prefilter.PreFilterGate``), over its state
``(code int64[B], reason_ptr int64[R + 1], reason_chars uint8[...])``: each pending pod's
PreFilter failure (0: none; ``k`` > 0: reason ``k - 1``), the same on every node."""

from __future__ import annotations

from ..._jit import inline_kernel


@inline_kernel
def filter_node(state, pod, node):  # pragma: no cover - compiled
    """The pod's PreFilter failure, on any node."""
    return state[0][pod]
