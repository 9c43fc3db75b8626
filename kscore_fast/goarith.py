"""Go's integer and float semantics, in one place.

Go and Python disagree in small ways that change scores:

* ``int64(f)`` truncates toward zero; Python's ``//`` and ``math.floor`` round toward minus
  infinity. ``int(f)`` in Python and ``np.int64(f)`` in numba truncate like Go.
* Go's integer ``/`` truncates toward zero; Python's ``//`` floors (they differ for negative
  operands).
* float64 expressions are evaluated in the order written, each operation rounded to
  nearest; no fused multiply-add on amd64. Python floats and numba kernels with
  fastmath off do the same, so the reference ports and kernels spell expressions exactly
  as the Go source does (``100.0 * (float64(a) / float64(b))``, not ``100.0 * a / b``).
* Go's int64 arithmetic wraps around on overflow (``wrap_int64``); Python integers do not.
  numba marks signed integer arithmetic no-signed-wrap (overflow is undefined behaviour to
  LLVM, which then rewrites expressions as if it could not happen) and its ``//`` floors:
  kernels whose sums may overflow compute through uint64 and divide with a truncating
  helper (``plugins/noderesources/allocation_kernels.py``: ``wadd``, ``wsub``, ``wmul``,
  ``go_div``), tested against the functions here.
"""

from __future__ import annotations

#: framework.MaxNodeScore / MinNodeScore (pkg/scheduler/framework/interface.go)
MAX_NODE_SCORE = 100
MIN_NODE_SCORE = 0
INT64_MAX = 2**63 - 1
INT64_MIN = -(2**63)


def go_int64(f: float) -> int:
    """Go's ``int64(f)`` for a finite float64 within range: truncation toward zero."""
    return int(f)


def wrap_int64(v: int) -> int:
    """Go's int64 ``+``, ``-``, ``*`` on overflow: two's-complement wrap-around."""
    v &= (1 << 64) - 1
    return v - (1 << 64) if v >> 63 else v


def go_div(a: int, b: int) -> int:
    """Go's int64 ``a / b`` (``b != 0``): truncation toward zero; ``MinInt64 / -1`` is
    ``MinInt64`` (the quotient wraps)."""
    q = abs(a) // abs(b)
    return wrap_int64(q if (a < 0) == (b < 0) else -q)


def go_float_to_int64(f: float) -> int:
    """Go's ``int64(f)`` on amd64 for any float64: truncation toward zero, and
    ``MinInt64`` (CVTTSD2SI's "integer indefinite") for NaN and values out of range."""
    if f != f or not -9.223372036854775808e18 <= f < 9.223372036854775808e18:
        return INT64_MIN
    return int(f)


def go_round(f: float) -> float:
    """Go's ``math.Round``: half away from zero (Python's ``round`` rounds half to even)."""
    if f != f or f in (float("inf"), float("-inf")):
        return f
    t = float(int(f))
    if abs(f - t) >= 0.5:
        t += 1.0 if f > 0 else -1.0
    return t
