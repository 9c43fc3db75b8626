"""The slower path: plugins whose kernels are plain Python functions, without numba.

Such a plugin registers like any other (:mod:`.registry` checks its kernels' parameters)
and runs in the same compiled loops, through entry points of its own
(:mod:`.entries`) whose kernels leave compiled code for Python at each call (numba's
``objmode``): ``filter_node`` once per pod and node examined, ``score_pod``,
``normalize_pod`` once per pod and node list, ``assume``/``remove`` once per bind and
deletion. Its state, whatever ``prepare`` returns (any Python objects, not only arrays),
is not packed: the plugin table holds a handle that the entry points pass back to Python,
where :func:`_run` finds the state. The arrays a kernel is given (``nodes``, ``out``,
``scores``) are views of the loops' own buffers: the kernel writes its scores into them.

Every call crosses into Python and back (a few µs), and holds the GIL, so the batch
runtime's threads take turns in it: the price of skipping numba. What a kernel raises
reaches the caller as a :class:`~kscore_fast.errors.PluginError` naming the plugin and
the kernel; a filter code that is not a non-negative integer is refused the same way.
"""

from __future__ import annotations

import builtins
import itertools
import threading
import types as pytypes
from collections.abc import Callable
from typing import Any

import numba
import numpy as np
from numba.core import types

from .. import _jit
from ..errors import PluginError

#: what the plugin table's state column holds for a Python plugin: a handle
HANDLE_TYPE = types.int64

_states: dict[int, Any] = {}
_handles = itertools.count(1)
_lock = threading.Lock()


def is_python(plugin: Any) -> bool:
    """The plugin's kernels are plain Python (not all of them compiled)."""
    kernels = plugin.kernels
    known = _python.get(id(kernels))
    if known is None or known[0] is not kernels:
        from .registry import KERNELS

        found = [getattr(kernels, k, None) for k in KERNELS]
        python = any(fn is not None and getattr(fn, "py_func", None) is None for fn in found)
        known = _python[id(kernels)] = (kernels, python)
    return known[1]


#: per plugin's kernels (kept alive here): whether they are plain Python
_python: dict[int, tuple[Any, bool]] = {}


class Handle:
    """A Python plugin's state as the compiled loops reach it (a :class:`_native.Packed`
    stand-in): ``address`` is a handle of ``state``, valid while this object lives."""

    __slots__ = ("__weakref__", "address", "numba_type", "state")

    def __init__(self, state: Any) -> None:
        self.state = state
        self.numba_type = HANDLE_TYPE
        with _lock:
            self.address = next(_handles)
            _states[self.address] = state

    def __del__(self) -> None:
        _states.pop(self.address, None)


def _run(key: int, handle: int, *args: Any) -> Any:
    """Call the Python kernel registered as ``key`` on the state of ``handle``."""
    fn, what = _kernels[key]
    try:
        return fn(_states[handle], *args)
    except Exception as exc:
        raise PluginError(f"{what} raised {type(exc).__name__}: {exc}") from exc


def _code(key: int, handle: int, pod: int, node: int) -> int:
    got = _run(key, handle, pod, node)
    if isinstance(got, bool | np.bool_):
        got = int(got)
    if not isinstance(got, int | np.integer) or got < 0:
        what = _kernels[key][1]
        raise PluginError(f"{what} returned {got!r}: 0 (fits) or a failure code > 0 expected")
    return int(got)


def _flag(key: int, handle: int, pod: int, node: int) -> int:
    return 1 if _run(key, handle, pod, node) else 0


#: each wrapped Python kernel by its key: (the function, how errors name it)
_kernels: dict[int, tuple[Callable[..., Any], str]] = {}

# The compiled side of each kernel: templates given their kernel's key as KEY (a local
# reaches the object-mode block; a global there would be read from this module).
KEY = 0


def _filter_node(state, pod, node):  # pragma: no cover - compiled
    key = KEY
    with numba.objmode(v="int64"):
        v = _code(key, state, pod, node)
    return v


def _list_kernel(state, pod, nodes, out):  # pragma: no cover - compiled
    key = KEY
    with numba.objmode():
        _run(key, state, pod, nodes, out)


def _pair_kernel(state, pod, nodes, raw, scores):  # pragma: no cover - compiled
    key = KEY
    with numba.objmode(v="int64"):
        v = 1 if _run(key, state, pod, nodes, raw, scores) else 0
    return v != 0


def _bind_kernel(state, pod, node):  # pragma: no cover - compiled
    key = KEY
    with numba.objmode(v="int64"):
        v = _flag(key, state, pod, node)
    return v != 0


_TEMPLATES = {"filter_node": _filter_node, "score_pod": _list_kernel,
              "score_pod_serial": _list_kernel, "normalize_pod": _list_kernel,
              "score_normalize_pod": _pair_kernel, "assume": _bind_kernel,
              "remove": _bind_kernel}  # fmt: skip


def compiled_call(plugin: Any, kernel: str) -> Any:
    """A compiled function calling ``plugin``'s Python ``kernel`` on a state handle, for
    its entry points (not cached on disk: it stands for a Python function)."""
    template = _TEMPLATES[kernel]
    with _lock:
        key = next(_handles)
        what = f"plugin {plugin.name!r}: kernels.{kernel}"
        _kernels[key] = (getattr(plugin.kernels, kernel), what)
    glob = {"__builtins__": builtins, "__name__": __name__, "numba": numba, "_run": _run,
            "_code": _code, "_flag": _flag, "KEY": key}  # fmt: skip
    wrapper = pytypes.FunctionType(template.__code__, glob, f"{template.__name__}_py")
    return _jit._jitted(wrapper, cache=False, nogil=False)


def _handle_of(state):  # pragma: no cover - compiled
    """The entry points' ``LOAD`` for a Python plugin: the state is its handle."""
    return state


handle_of = _jit._jitted(_handle_of, cache=False, inline="always")
