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

Integer division helpers join this module with the first plugin that divides integers
(NodeResourcesFit); SelectorSpread only truncates floats.
"""

from __future__ import annotations

#: framework.MaxNodeScore / MinNodeScore (pkg/scheduler/framework/interface.go)
MAX_NODE_SCORE = 100
MIN_NODE_SCORE = 0
INT64_MAX = 2**63 - 1


def go_int64(f: float) -> int:
    """Go's ``int64(f)`` for a finite float64 within range: truncation toward zero."""
    return int(f)
