"""The one place that configures numba.

Every kernel in kscore_fast is compiled through :func:`kernel`, :func:`dual_kernel` or
:func:`inline_kernel` (helpers inlined into kernels).
Policy:

* ``nopython``, ``nogil``; **fastmath off**: scores must equal Go's float64 arithmetic bit
  for bit, so LLVM may neither contract ``a*b+c`` into an FMA nor reassociate.
* ``cache=True`` unless ``KSCORE_NUMBA_CACHE=0``: the compiled code is kept in numba's
  cache directory (``NUMBA_CACHE_DIR`` or ``__pycache__``), so only the first run of a
  machine pays compile time. ``kscore warmup`` fills the cache.
* threads: numba's default (all cores) unless ``KSCORE_THREADS`` is set. Hot kernels are
  compiled twice (:func:`dual_kernel`), serial and parallel, and the parallel variant runs
  only when the work is large enough to pay for waking the thread pool
  (``KSCORE_PARALLEL_MIN_WORK`` entries, default 32768).

Kernels never read mutable module globals (numba freezes them at compile time); every
input is an argument.
"""

from __future__ import annotations

import os
import types
from collections.abc import Callable
from typing import Any

import numba

_CACHE = os.environ.get("KSCORE_NUMBA_CACHE", "1") not in ("0", "false", "no")

_threads = os.environ.get("KSCORE_THREADS")
if _threads:
    numba.set_num_threads(max(1, min(int(_threads), numba.config.NUMBA_NUM_THREADS)))

prange = numba.prange
PARALLEL_MIN_WORK = int(os.environ.get("KSCORE_PARALLEL_MIN_WORK", 1 << 15))

#: every kernel compiled so far, for ``warmup`` and the one-signature test
REGISTERED: list[Any] = []
#: every serial/parallel pair
DUALS: list[DualKernel] = []


def kernel(fn: Callable[..., Any]) -> Any:
    """Compile ``fn`` as a serial nopython kernel (fastmath off)."""
    jitted = numba.njit(cache=_CACHE, nogil=True, fastmath=False)(fn)
    REGISTERED.append(jitted)
    return jitted


def inline_kernel(fn: Callable[..., Any]) -> Any:
    """Compile a small helper that other kernels call (inlined by LLVM)."""
    return numba.njit(cache=_CACHE, nogil=True, fastmath=False, inline="always")(fn)


class DualKernel:
    """A kernel compiled serial and parallel; :meth:`pick` chooses by amount of work.

    Written with ``prange`` (a plain ``range`` in the serial variant); the loop bodies must
    be independent across iterations.
    """

    def __init__(self, fn: Callable[..., Any]) -> None:
        self.serial = numba.njit(cache=_CACHE, nogil=True, fastmath=False)(fn)
        # a twin function object: numba's on-disk cache is keyed by the function's
        # qualified name, and must not hand the serial machine code to the parallel variant
        twin = types.FunctionType(
            fn.__code__, fn.__globals__, fn.__name__ + "_parallel", fn.__defaults__,
            fn.__closure__,
        )  # fmt: skip
        twin.__qualname__ = fn.__qualname__ + "_parallel"
        twin.__doc__ = fn.__doc__
        self.parallel = numba.njit(cache=_CACHE, nogil=True, fastmath=False, parallel=True)(twin)
        self.py_func = fn
        REGISTERED.extend((self.serial, self.parallel))
        DUALS.append(self)

    def pick(self, work: int) -> Any:
        if work >= PARALLEL_MIN_WORK and numba.get_num_threads() > 1:
            return self.parallel
        return self.serial


def dual_kernel(fn: Callable[..., Any]) -> DualKernel:
    """Compile ``fn`` both serial and parallel (see :class:`DualKernel`)."""
    return DualKernel(fn)
