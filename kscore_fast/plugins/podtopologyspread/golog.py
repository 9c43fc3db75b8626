"""Go's ``math.Log``, bit for bit, as a function numba compiles and Python calls.

Go (src/math/log.go ``log``; on amd64 ``archLog`` in log_amd64.s is the same algorithm,
instruction for instruction, for every normal input) does not call libm: its result
differs from C's ``log`` in the last bit for some inputs, and PodTopologySpread's
``topologyNormalizingWeight`` (``math.Log(float64(size + 2))``) feeds scores that are
truncated to integers. This is the FreeBSD ``e_log.c`` reduction and polynomial in Go's
order of operations (``math.frexp`` is C's ``frexp``, equal to Go's ``Frexp`` on every
finite input). Tested against values printed by the Go toolchain.
"""

from __future__ import annotations

import math

from ..._jit import inline_kernel

_LN2_HI = 6.93147180369123816490e-01  # 3fe62e42 fee00000
_LN2_LO = 1.90821492927058770002e-10  # 3dea39ef 35793c76
_L1 = 6.666666666666735130e-01  # 3FE55555 55555593
_L2 = 3.999999999940941908e-01  # 3FD99999 9997FA04
_L3 = 2.857142874366239149e-01  # 3FD24924 94229359
_L4 = 2.222219843214978396e-01  # 3FCC71C5 1D8E78AF
_L5 = 1.818357216161805012e-01  # 3FC74664 96CB03DE
_L6 = 1.531383769920937332e-01  # 3FC39A09 D078C69F
_L7 = 1.479819860511658591e-01  # 3FC2F112 DF3E5244
_HALF_SQRT2 = 7.07106781186547524401e-01  # Sqrt2/2


@inline_kernel
def go_log(x: float) -> float:  # pragma: no cover - compiled (tested through .py_func too)
    """Go's ``math.Log(x)``."""
    if x != x or x == math.inf:
        return x
    if x < 0.0:
        return math.nan
    if x == 0.0:
        return -math.inf
    f1, ki = math.frexp(x)
    if f1 < _HALF_SQRT2:
        f1 *= 2.0
        ki -= 1
    f = f1 - 1.0
    k = float(ki)
    s = f / (2.0 + f)
    s2 = s * s
    s4 = s2 * s2
    t1 = s2 * (_L1 + s4 * (_L3 + s4 * (_L5 + s4 * _L7)))
    t2 = s4 * (_L2 + s4 * (_L4 + s4 * _L6))
    r = t1 + t2
    hfsq = 0.5 * f * f
    return k * _LN2_HI - ((hfsq - (s * (hfsq + r) + k * _LN2_LO)) - f)


def topology_normalizing_weight(size: int) -> float:
    """scoring.go ``topologyNormalizingWeight``: ``math.Log(float64(size + 2))``."""
    return go_log.py_func(float(size + 2))
