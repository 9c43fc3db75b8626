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

The scalar helpers serve the reference ports; the ``_nb`` variants are inlined into kernels.
"""

from __future__ import annotations

from ._jit import inline_kernel

#: framework.MaxNodeScore / MinNodeScore (pkg/scheduler/framework/interface.go)
MAX_NODE_SCORE = 100
MIN_NODE_SCORE = 0
INT64_MAX = 2**63 - 1
INT64_MIN = -(2**63)


def go_int64(f: float) -> int:
    """Go's ``int64(f)`` for a finite float64 within range: truncation toward zero."""
    return int(f)


def go_div(a: int, b: int) -> int:
    """Go's integer ``a / b``: the quotient truncated toward zero."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


@inline_kernel
def go_div_nb(a, b):  # pragma: no cover - compiled
    """Go's integer ``a / b`` inside kernels (int64 operands)."""
    q = abs(a) // abs(b)
    if (a >= 0) == (b >= 0):
        return q
    return -q
