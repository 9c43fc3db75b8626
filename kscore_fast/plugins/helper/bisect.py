"""Bisection in compiled kernels."""

from __future__ import annotations

from ..._jit import inline_kernel


@inline_kernel
def lower_bound(values, lo, hi, x):  # pragma: no cover - compiled
    """The first position of ``values[lo:hi]`` (ascending) whose value is ``x`` or more
    (``hi``: none)."""
    while lo < hi:
        mid = (lo + hi) >> 1
        if values[mid] < x:
            lo = mid + 1
        else:
            hi = mid
    return lo
