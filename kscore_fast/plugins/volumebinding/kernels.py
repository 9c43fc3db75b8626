"""VolumeBinding's Score kernel: 0 everywhere (see ``plugin``)."""

from __future__ import annotations

from ..._jit import inline_kernel


@inline_kernel
def score_pod(state, pod, nodes, out):  # pragma: no cover - compiled
    out[:] = 0
