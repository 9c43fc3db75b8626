"""Each plugin's compiled entry points, and the plugin table of a profile.

A plugin's kernels (``filter_node``, ``score_pod``, ``normalize_pod``, ``assume``,
``remove``; see :mod:`.interface`) are wrapped into the entry points of :mod:`.abi`: the
framework's per-node filter loop (:func:`.search.filter_rows`) and per-pod scoring loop
(:func:`.scoring.plugin_pass`) with the plugin's kernels inlined, reading the plugin's
state from its packed address. Each entry point is compiled once per plugin and state
type, cached on disk like every kernel, and reached by address from the framework's
loops, which are compiled once for every profile: a new profile compiles nothing, a new
plugin compiles only its own entry points.

The entry points are the template functions below, each given its own globals (the
plugin's kernels, the state loader) and its own qualified name, so that numba's cache
keeps one file per plugin, entry and state type. Their cache stamp holds the package's
sources and, for an out-of-tree plugin, its own package's (:func:`_cache.module_stamp`).
"""

from __future__ import annotations

import builtins
import hashlib
import re
import threading
import types as pytypes
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numba.core import types

from .. import _cache, _jit, _native
from ..errors import PluginError
from . import abi
from .scoring import no_normalize, plugin_pass
from .search import filter_rows

#: the names the templates read, bound per plugin in each entry point's own globals
FILTER_NODE = SCORE_POD = NORMALIZE_POD = LOAD = BIND = None


def _filter_entry(state, k, rep, c, lo, hi, nodes, memo):  # pragma: no cover - compiled
    filter_rows(FILTER_NODE, LOAD(state), k, rep, c, lo, hi, nodes, memo)
    return np.int64(0)


def _score_entry(state, k, todo, pods, ptr, nodes, raw, base, norm, nptr, rows, row_raw, n_all,
                 row_const, const_ok, keep, cflag, cval, do_norm):  # fmt: skip  # pragma: no cover
    plugin_pass(SCORE_POD, NORMALIZE_POD, LOAD(state), k, todo, pods, ptr, nodes, raw, base,
                norm, nptr, rows, row_raw, n_all, row_const, const_ok, keep, cflag, cval,
                do_norm)  # fmt: skip
    return np.int64(0)


def _bind_entry(state, pod, node):  # pragma: no cover - compiled
    return np.int64(1) if BIND(LOAD(state), pod, node) else np.int64(0)


@dataclass(frozen=True)
class Entries:
    """The addresses of a plugin's entry points (0: it has none)."""

    filter: int = 0
    score: int = 0
    score_serial: int = 0
    assume: int = 0
    remove: int = 0


_built: dict[tuple[int, int], tuple[Any, types.Type, Entries]] = {}
_lock = threading.Lock()


def entries_for(plugin: Any, state_type: types.Type) -> Entries:
    """The entry points of ``plugin`` for states of ``state_type``, compiled (or loaded
    from the kernel cache) on first use in this process."""
    kernels = plugin.kernels
    key = (id(kernels), id(state_type))  # (both kept alive in the value)
    with _lock:
        found = _built.get(key)
        if found is None:
            found = _built[key] = (kernels, state_type, _build(plugin, kernels, state_type))
    return found[2]


def _build(plugin: Any, kernels: Any, state_type: types.Type) -> Entries:
    source = getattr(kernels, "__name__", None) or type(plugin).__module__
    digest = hashlib.sha256(f"{source}|{state_type}".encode()).hexdigest()[:12]
    base = {
        "__builtins__": builtins,
        "__name__": __name__,
        "__kscore_stamp__": _cache.module_stamp(source),
        "np": np,
        "filter_rows": filter_rows,
        "plugin_pass": plugin_pass,
        "LOAD": _native.state_loader(state_type),
    }
    allocates = bool(getattr(plugin, "kernels_allocate", False))

    def make(template: Callable[..., Any], entry: str, abi_types: Sequence[types.Type],
             **names: Any) -> int:  # fmt: skip
        qualname = f"{_identifier(plugin.name)}_{entry}_{digest}"
        fn = pytypes.FunctionType(template.__code__, {**base, **names}, qualname)
        fn.__qualname__ = qualname
        return _compile(plugin, entry, fn, tuple(abi_types), allocates)

    out: dict[str, int] = {}
    if plugin.filters:
        out["filter"] = make(_filter_entry, "filter", abi.FILTER_ABI,
                             FILTER_NODE=kernels.filter_node)  # fmt: skip
    if plugin.scores:
        normalize = kernels.normalize_pod if plugin.normalizes else no_normalize
        out["score"] = make(_score_entry, "score", abi.SCORE_ABI, SCORE_POD=kernels.score_pod,
                            NORMALIZE_POD=normalize)  # fmt: skip
        serial = getattr(kernels, "score_pod_serial", None)
        out["score_serial"] = out["score"] if serial is None else make(
            _score_entry, "score_serial", abi.SCORE_ABI, SCORE_POD=serial,
            NORMALIZE_POD=normalize,
        )  # fmt: skip
    for entry in ("assume", "remove"):
        bind = getattr(kernels, entry, None)
        if bind is not None:
            out[entry] = make(_bind_entry, entry, abi.BIND_ABI, BIND=bind)
    return Entries(**out)


def _compile(plugin: Any, entry: str, fn: Any, signature: tuple[types.Type, ...],
             allocates: bool) -> int:  # fmt: skip
    """The address of ``fn`` compiled for ``signature``: without numba's reference
    counting unless the plugin's kernels allocate (declared by ``kernels_allocate``, or
    found when the compiler asks for it)."""
    try:
        return _native.function_address(_jit.entry_kernel(fn, nrt=allocates), signature)
    except Exception as exc:
        if not allocates and "NRT required" in str(exc):
            return _compile(plugin, entry, fn, signature, True)
        raise PluginError(
            f"plugin {plugin.name!r}: its {entry} kernels do not compile for its state "
            f"({type(exc).__name__}: {_first_line(exc)})"
        ) from exc


def _identifier(name: str) -> str:
    return re.sub(r"\W", "_", name)


def _first_line(exc: BaseException) -> str:
    lines = [line for line in str(exc).splitlines() if line.strip()]
    return lines[0] if lines else ""


class PluginTable:
    """A profile's plugins as its compiled loops reach them: ``table`` (int64[P,
    ``abi.COLUMNS``]) holds, per plugin, its packed state's address and its entry points';
    the packed states keep the states' arrays alive."""

    def __init__(self, plugins: Sequence[Any], states: Sequence[tuple[Any, ...]]) -> None:
        self.plugins = list(plugins)
        self.states = list(states)
        self.packed = [_packed(s) for s in self.states]
        self.table = np.zeros((len(self.plugins), abi.COLUMNS), dtype=np.int64)
        for p, (plugin, packed) in enumerate(zip(self.plugins, self.packed, strict=True)):
            e = entries_for(plugin, packed.numba_type)
            self.table[p] = (packed.address, e.filter, e.score, e.score_serial, e.assume,
                             e.remove)  # fmt: skip

    def __len__(self) -> int:
        return len(self.plugins)


#: the states packed last (plugins hand out the same state again while its snapshot and
#: batch are unchanged: packed once)
_recent: OrderedDict[int, _native.Packed] = OrderedDict()
RECENT = 64


def _packed(state: tuple[Any, ...]) -> _native.Packed:
    with _lock:
        found = _recent.get(id(state))
        if found is not None and found.state is state:
            _recent.move_to_end(id(state))
            return found
    packed = _native.pack(state)
    with _lock:
        _recent[id(state)] = packed
        while len(_recent) > RECENT:
            _recent.popitem(last=False)
    return packed
