"""The one place that configures numba.

Every kernel in kscore_fast is compiled through :func:`kernel`, :func:`dual_kernel` or
:func:`inline_kernel` (helpers inlined into kernels).
Policy:

* ``nopython``, ``nogil``; **fastmath off**: scores must equal Go's float64 arithmetic bit
  for bit, so LLVM may neither contract ``a*b+c`` into an FMA nor reassociate.
* ``cache=True`` unless ``KSCORE_NUMBA_CACHE=0``: the compiled code is kept in a per-user
  directory (``KSCORE_CACHE_DIR``; versioned by kscore_fast, numba and a hash of every
  package source, see :mod:`kscore_fast._cache`), never next to the sources, so only the
  first run of a machine pays compile time. ``kscore warmup`` fills the cache. When that
  directory cannot be written, caching is off for every kernel (one warning line), decided
  here before any kernel is decorated, so numba never falls back to ``__pycache__``.
* threads: numba's default (all cores) unless ``KSCORE_THREADS`` is set; numba's
  ``workqueue`` threading layer unless ``NUMBA_THREADING_LAYER`` says otherwise. Hot kernels are
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
from concurrent.futures import ThreadPoolExecutor
from itertools import pairwise
from typing import Any

import numba
import numpy as np
from numba.core import caching as _caching

from . import _cache

#: where kernels are cached this process (``directory`` None: not at all)
CACHE = _cache.prepare(numba.__version__)
_CACHE = CACHE.directory is not None


class PackageCacheLocator(_caching._CacheLocator):
    """numba cache locator for the kernels defined in kscore_fast: ``CACHE.directory``
    mirroring the package layout, stamped with the hash of the whole package's sources (a
    kernel calling a helper from another file is invalidated when that file changes)."""

    def __init__(self, py_func: Any, cache_path: str) -> None:
        self._lineno = py_func.__code__.co_firstlineno
        self._cache_path = cache_path
        self._py_file = py_func.__code__.co_filename  # (numba's warnings name it)
        #: a plugin's entry points (``framework.entries``) also depend on the plugin's
        #: own sources, outside the package for an out-of-tree plugin
        self._stamp = py_func.__globals__.get("__kscore_stamp__", "")

    def ensure_cache_path(self) -> None:
        os.makedirs(self._cache_path, exist_ok=True)  # writability: checked by prepare()

    def get_cache_path(self) -> str:
        return self._cache_path

    def get_source_stamp(self) -> str:
        return _cache.package_source_hash() + self._stamp

    def get_disambiguator(self) -> str:
        return str(self._lineno)

    @classmethod
    def from_function(cls, py_func: Any, py_file: str) -> PackageCacheLocator | None:
        path = _cache.kernel_cache_path(CACHE, py_file)
        return None if path is None else cls(py_func, path)


# first in line, ahead of numba's NUMBA_CACHE_DIR and __pycache__ locators (older numba
# names the class _CacheImpl); a reload of this module replaces its former locator
_impl = getattr(_caching, "CacheImpl", None) or _caching._CacheImpl
_impl._locator_classes[:] = [PackageCacheLocator] + [
    c for c in _impl._locator_classes if c.__module__ != __name__
]

# numba's OpenMP layer (libgomp) spends ~5 ms entering each parallel region on these
# machines, where its own workqueue layer takes ~0.1 ms (measured with a 262k-element
# loop); kernels never open parallel regions from several threads at once, which is what
# workqueue cannot do. NUMBA_THREADING_LAYER still decides when set.
if "NUMBA_THREADING_LAYER" not in os.environ:
    numba.config.THREADING_LAYER = "workqueue"

_threads = os.environ.get("KSCORE_THREADS")
if _threads:
    numba.set_num_threads(max(1, min(int(_threads), numba.config.NUMBA_NUM_THREADS)))

prange = numba.prange
PARALLEL_MIN_WORK = int(os.environ.get("KSCORE_PARALLEL_MIN_WORK", 1 << 15))

#: every kernel compiled so far, for ``warmup`` and the one-signature test
REGISTERED: list[Any] = []
#: every serial/parallel pair
DUALS: list[DualKernel] = []
#: every plugin entry point compiled so far (one per plugin, entry and state type)
ENTRIES: list[Any] = []


def kernel(fn: Callable[..., Any]) -> Any:
    """Compile ``fn`` as a serial nopython kernel (fastmath off)."""
    jitted = numba.njit(cache=_CACHE, nogil=True, fastmath=False)(fn)
    REGISTERED.append(jitted)
    return jitted


def unrefcounted_kernel(fn: Callable[..., Any]) -> Any:
    """Compile a kernel that allocates nothing without numba's reference counting (NRT).

    For the hot loops that take the plugins' state tuples: numba increments and decrements
    the reference count of every array it extracts from a tuple, on every call of every
    helper it is not able to prove the counts balanced for; with twenty arrays in a state
    that is ~200 ns per filtered node. Such a kernel must not create arrays (numba refuses
    to compile one that does)."""
    jitted = numba.njit(cache=_CACHE, nogil=True, fastmath=False, _nrt=False)(fn)
    REGISTERED.append(jitted)
    return jitted


def inline_kernel(fn: Callable[..., Any]) -> Any:
    """Compile a small helper that other kernels call (inlined by LLVM)."""
    return numba.njit(cache=_CACHE, nogil=True, fastmath=False)(fn)


def entry_kernel(fn: Callable[..., Any], nrt: bool) -> Any:
    """Compile a plugin's entry point (:mod:`kscore_fast.framework.entries`): with numba's
    reference counting when ``nrt`` (its kernels allocate), else without."""
    jitted = numba.njit(cache=_CACHE, nogil=True, fastmath=False, _nrt=nrt)(fn)
    ENTRIES.append(jitted)
    return jitted


def higher_order_kernel(fn: Callable[..., Any]) -> Any:
    """A helper taking kernels as arguments: inlined into its callers by numba."""
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


_pool: ThreadPoolExecutor | None = None


def threads() -> int:
    """How many threads the parallel paths use (numba's setting, ``KSCORE_THREADS``)."""
    return numba.get_num_threads()


def run_threaded(calls: list[Callable[[], Any]]) -> list[Any]:
    """Run ``calls`` (each a call into a ``nogil`` kernel) on the thread pool, at most
    :func:`threads` at a time; their results in order.

    For kernels whose arguments numba's ``prange`` cannot carry into its worker
    functions (tuples of plugin states): the caller splits the work and each part runs
    a serial kernel, in parallel since kernels release the GIL.
    """
    global _pool
    if len(calls) <= 1:
        return [c() for c in calls]
    if _pool is None:
        _pool = ThreadPoolExecutor(max_workers=max(2, threads()), thread_name_prefix="kscore")
    return [f.result() for f in [_pool.submit(c) for c in calls]]


def split_work(ptr: np.ndarray, work: int) -> list[tuple[int, int]]:
    """Ranges of items (item ``i`` spans ``ptr[i]:ptr[i+1]``) of about equal work, one
    per thread (:func:`run_threaded`), or a single range when the work is too small to
    share (below ``PARALLEL_MIN_WORK``)."""
    n = len(ptr) - 1
    k = threads() if work >= PARALLEL_MIN_WORK else 1
    if k == 1:
        return [(0, n)] if n > 0 else []
    total = int(ptr[-1])
    bounds = np.searchsorted(ptr, [total * j // k for j in range(1, k)]).tolist()
    edges = sorted({0, n, *(min(max(b, 0), n) for b in bounds)})
    return list(pairwise(edges))
