"""The one place that configures numba.

Every kernel in kscore_fast is compiled through :func:`kernel` or :func:`parallel_kernel`.
Policy:

* ``nopython``, ``nogil``; **fastmath off**: scores must equal Go's float64 arithmetic bit
  for bit, so LLVM may neither contract ``a*b+c`` into an FMA nor reassociate.
* ``cache=True`` unless ``KSCORE_NUMBA_CACHE=0``: the compiled code is kept in numba's
  cache directory (``NUMBA_CACHE_DIR`` or ``__pycache__``), so only the first run of a
  machine pays compile time. ``kscore warmup`` fills the cache.
* threads: numba's default (all cores) unless ``KSCORE_THREADS`` is set.

Kernels never read mutable module globals (numba freezes them at compile time); every
input is an argument.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import numba

_CACHE = os.environ.get("KSCORE_NUMBA_CACHE", "1") not in ("0", "false", "no")

_threads = os.environ.get("KSCORE_THREADS")
if _threads:
    numba.set_num_threads(max(1, min(int(_threads), numba.config.NUMBA_NUM_THREADS)))

prange = numba.prange

#: every kernel compiled so far, for ``warmup`` and the one-signature test
REGISTERED: list[Any] = []


def kernel(fn: Callable[..., Any]) -> Any:
    """Compile ``fn`` as a serial nopython kernel (fastmath off)."""
    jitted = numba.njit(cache=_CACHE, nogil=True, fastmath=False)(fn)
    REGISTERED.append(jitted)
    return jitted


def parallel_kernel(fn: Callable[..., Any]) -> Any:
    """Compile ``fn`` as a nopython kernel whose ``prange`` loops run on all threads."""
    jitted = numba.njit(cache=_CACHE, nogil=True, fastmath=False, parallel=True)(fn)
    REGISTERED.append(jitted)
    return jitted


def inline_kernel(fn: Callable[..., Any]) -> Any:
    """Compile a small helper that other kernels call (inlined by LLVM)."""
    return numba.njit(cache=_CACHE, nogil=True, fastmath=False, inline="always")(fn)
