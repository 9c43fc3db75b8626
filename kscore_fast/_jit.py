"""The one place that configures numba.

Every kernel in kscore_fast is compiled through :func:`kernel`, :func:`dual_kernel`,
:func:`inline_kernel` (helpers inlined into kernels by LLVM), :func:`plugin_kernel`
(``kscore_fast.kernel``), :func:`entry_kernel` (a plugin's entry points) or
:func:`inlined`/:func:`higher_order_kernel` (inlined by numba where they are called).
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
input is an argument. Kernels copy arrays in loops, never ``a[i:j] = b[k:l]``: an array
assigned to a slice makes numba compile its shape-mismatch message formatting, ~1 s on a
cold start, in every process.

* every kernel compiles under a lock file beside its cache entry (:class:`_Dispatcher`):
  processes compiling at once (``kscore warmup``'s, a cold start's helper) share the work.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import sys
import threading
import time
import types
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor, wait
from itertools import pairwise
from typing import Any

import numba
import numpy as np
from numba.core import caching as _caching
from numba.core import sigutils
from numba.core.compiler_lock import global_compiler_lock
from numba.core.registry import CPUDispatcher
from numba.core.runtime.nrt import rtsys

from . import _cache, _signals, _symbol_table

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


class _Dispatcher(CPUDispatcher):
    """numba's CPU dispatcher, each of whose compilations holds a lock file beside the
    kernel's cache entry: processes that need one kernel at once (``kscore warmup``'s
    workers, a cold start's helper, :mod:`kscore_fast.compiling`) compile it once, the
    others wait and load it from the cache. The call graph has no cycles, so neither do
    the waits."""

    #: the kernel cache is set up on first use (~0.3 ms a kernel, ~50 ms at import)
    cache_wanted = False

    def compile(self, sig: Any) -> Any:
        args, _ = sigutils.normalize_signature(sig)
        if tuple(args) in self.overloads:
            return super().compile(sig)
        path = self.index_path()
        outermost = getattr(_depth, "n", 0) == 0
        _depth.n = getattr(_depth, "n", 0) + 1
        try:
            # stop signals held while numba compiles or loads: one acted on inside it (in
            # LLVM's object-cache callbacks, say) is swallowed or leaves a broken library;
            # held, it is acted on when the kernel is ready (_signals.deferred)
            with (
                _signals.deferred() if outermost else contextlib.nullcontext(),
                contextlib.nullcontext() if path is None else _file_lock(path + ".lock"),
            ):
                entry = self._load_sound(sig, path) if path is not None else None
                entry = entry or self._compile(sig)
        finally:
            _depth.n -= 1
        if _depth.n == 0:  # (a kernel compiled inside another's compilation comes with it)
            COMPILED.append((self, tuple(args)))
        return entry

    def _compile(self, sig: Any) -> Any:
        """numba's ``compile``, the target context's registries loaded first (numba
        refreshes the typing context before the target's, whose loading registers the
        typing of NumPy's functions: after :meth:`_load` skipped it, they were missing)."""
        with global_compiler_lock:
            self.targetctx.refresh()
        return super().compile(sig)

    def _load_sound(self, sig: Any, path: str) -> Any:
        """:meth:`_load`, or None when the entry cannot be read (a crash or a full disk
        mid-write, bytes changed): the entry is discarded, to be compiled again, and the
        first of a process says so in one line."""
        try:
            with _cache.garbage_tolerant():
                return self._load(sig)
        except Exception as exc:  # (unpickling, LLVM, memory: whatever the bytes give)
            discard = _cache.discard_entry(path)
            if not _discarded:
                _discarded.append(path)
                print(f"kscore: warning: a kernel cache entry could not be read "
                      f"({os.path.basename(path)}: {type(exc).__name__}); "
                      f"{discard}, compiling again", file=sys.stderr)  # fmt: skip
            return None

    def _load(self, sig: Any) -> Any:
        """The kernel for ``sig`` loaded from the cache, as numba's ``compile`` loads it
        but without first refreshing the target context's registries (~0.15 s of imports
        once per process that only runs cached code; a compilation still refreshes them),
        or None: not cached (or numba's internals are not as expected)."""
        try:
            with global_compiler_lock:
                rtsys.initialize(self.targetctx)  # (what running the code needs of that)
                with _symbol_table.loading(self.targetctx.codegen(), CACHE.directory):
                    cres = self._cache._load_overload(sig, self.targetctx)
                if cres is None:
                    return None
                self._cache_hits[sig] += 1
                if not cres.objectmode:
                    self.targetctx.insert_user_function(cres.entry_point, cres.fndesc,
                                                        [cres.library])  # fmt: skip
                self.add_overload(cres)
                return cres.entry_point
        except AttributeError:
            return None

    def index_path(self) -> str | None:
        """The kernel's cache index file (None: not cached)."""
        if self.cache_wanted:
            self.cache_wanted = False
            self.enable_caching()
        return getattr(getattr(self._cache, "_cache_file", None), "_index_path", None)


#: the unreadable cache entries this process discarded (the first is reported)
_discarded: list[str] = []

#: every (kernel, signature) compiled or loaded from the cache in this process, in order,
#: when called from Python (not from another kernel's compilation)
COMPILED: list[tuple[Any, tuple[Any, ...]]] = []
_depth = threading.local()


#: how long a process waits for another's compilation before compiling itself
LOCK_WAIT = 600.0


@contextlib.contextmanager
def _file_lock(path: str) -> Iterator[None]:
    """An exclusive ``flock`` on ``path`` (created), given up after :data:`LOCK_WAIT`
    seconds of waiting (then the caller compiles anyway: the cache stays correct, numba
    replaces its files atomically); none where the file cannot be opened."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError:
        yield
        return
    try:
        deadline = time.monotonic() + LOCK_WAIT
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except OSError:
                if time.monotonic() > deadline:
                    break
                time.sleep(0.02)
        yield
    finally:
        os.close(fd)  # (releases the lock)


def _jitted(fn: Callable[..., Any], cache: bool = True, **options: Any) -> Any:
    """``numba.njit(fn)`` with the policy above (nogil, fastmath off, the kernel cache) and
    ``options``, as a :class:`_Dispatcher`."""
    targetoptions = {"nopython": True, "nogil": True, "fastmath": False, **options}
    disp = _Dispatcher(py_func=fn, locals={}, targetoptions=targetoptions)
    disp.cache_wanted = cache and _CACHE
    return disp


def kernel(fn: Callable[..., Any]) -> Any:
    """Compile ``fn`` as a serial nopython kernel (fastmath off)."""
    jitted = _jitted(fn)
    REGISTERED.append(jitted)
    return jitted


def unrefcounted_kernel(fn: Callable[..., Any]) -> Any:
    """Compile a kernel that allocates nothing without numba's reference counting (NRT).

    For the hot loops that handle tuples of arrays (a plugin's state, the sequential
    cache): numba increments and decrements the reference count of every array it
    extracts from a tuple, on every call of every helper it is not able to prove the
    counts balanced for; with twenty arrays in a state that was ~200 ns per filtered node.
    Such a kernel must not create arrays (numba refuses to compile one that does)."""
    jitted = _jitted(fn, _nrt=False)
    REGISTERED.append(jitted)
    return jitted


def state_kernel(fn: Callable[..., Any]) -> Any:
    """Compile a kernel taking a plugin's state tuple, without NRT (it must allocate
    nothing): one signature per state type, so it is not among ``REGISTERED`` (whose
    kernels have one each); ``kscore_fast.precompile`` compiles it with each plugin's entry
    points."""
    return _jitted(fn, _nrt=False)


def inline_kernel(fn: Callable[..., Any]) -> Any:
    """Compile a small helper that other kernels call (inlined by LLVM)."""
    return _jitted(fn)


def plugin_kernel(fn: Callable[..., Any]) -> Any:
    """``kscore_fast.kernel``: compile a plugin's kernel (``filter_node``, ``score_pod``,
    ``normalize_pod``, ``assume``, ``remove``) or a helper it calls, with kscore's policy
    (nopython, nogil, fastmath off, the kernel cache). Its entry points inline it."""
    return inline_kernel(fn)


def entry_kernel(fn: Callable[..., Any], nrt: bool, python: bool = False) -> Any:
    """Compile a plugin's entry point (:mod:`kscore_fast.framework.entries`): with numba's
    reference counting when ``nrt`` (its kernels allocate), else without. ``python``: it
    calls a plugin's Python functions (:mod:`kscore_fast.framework.python_kernels`): kept
    out of the kernel cache (it stands for functions of this process) and holding the GIL."""
    jitted = _jitted(fn, not python, _nrt=nrt or python, **({"nogil": False} if python else {}))
    ENTRIES.append(jitted)
    return jitted


def inlined(kernel_fn: Any) -> Any:
    """A copy of a compiled helper that numba inlines where it is called (no compiled
    code of its own): a plugin's kernels inside its entry points, used once each."""
    return _jitted(kernel_fn.py_func, cache=False, inline="always")


def higher_order_kernel(fn: Callable[..., Any]) -> Any:
    """A helper taking kernels as arguments: inlined into its callers by numba."""
    return _jitted(fn, cache=False, inline="always")


class DualKernel:
    """A kernel compiled serial and parallel; :meth:`pick` chooses by amount of work.

    Written with ``prange`` (a plain ``range`` in the serial variant); the loop bodies must
    be independent across iterations.
    """

    def __init__(self, fn: Callable[..., Any]) -> None:
        self.serial = _jitted(fn)
        # a twin function object: numba's on-disk cache is keyed by the function's
        # qualified name, and must not hand the serial machine code to the parallel variant
        twin = types.FunctionType(
            fn.__code__, fn.__globals__, fn.__name__ + "_parallel", fn.__defaults__,
            fn.__closure__,
        )  # fmt: skip
        twin.__qualname__ = fn.__qualname__ + "_parallel"
        twin.__doc__ = fn.__doc__
        self.parallel = _jitted(twin, parallel=True)
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
    a serial kernel, in parallel since kernels release the GIL. The calling thread runs
    the first call itself (no hand-over to a pool thread and back for it), and returns,
    or raises, once every call has ended.
    """
    global _pool
    if len(calls) <= 1:
        return [c() for c in calls]
    if _pool is None:
        _pool = ThreadPoolExecutor(max_workers=max(2, threads()), thread_name_prefix="kscore")
    others = [_pool.submit(c) for c in calls[1:]]
    try:
        first = calls[0]()
    except BaseException:
        wait(others)  # (no call may still write to the caller's buffers)
        raise
    return [first, *(f.result() for f in others)]


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
