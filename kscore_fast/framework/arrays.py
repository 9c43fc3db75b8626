"""Small-array helpers without NumPy's Python-level wrappers.

``np.full``, ``np.diff`` and ``np.cumsum`` are Python functions around the C calls
(1-3 µs each); a lone pod's run makes about twenty such calls, where the compiled work is
a few tens of µs. These do the same through the array methods and ufuncs directly.
"""

from __future__ import annotations

import numpy as np


def full(shape: int | tuple[int, ...], value: int, dtype: type | np.dtype) -> np.ndarray:
    """``np.full(shape, value, dtype)``."""
    out = np.empty(shape, dtype=dtype)
    out.fill(value)
    return out


def diff(ptr: np.ndarray) -> np.ndarray:
    """``np.diff(ptr)`` of a 1-D array: the lengths of a CSR pointer's rows."""
    return np.subtract(ptr[1:], ptr[:-1])


def offsets(lengths: np.ndarray) -> np.ndarray:
    """int64[n + 1]: the CSR pointer of rows of ``lengths`` (0, then the running sums)."""
    ptr = np.empty(len(lengths) + 1, dtype=np.int64)
    ptr[0] = 0
    lengths.cumsum(out=ptr[1:])
    return ptr
