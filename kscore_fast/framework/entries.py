"""Each plugin's compiled entry points, and the plugin table of a profile.

A plugin's kernels (``filter_node``, ``score_pod``, ``normalize_pod``, ``assume``,
``remove``; see :mod:`.interface`) are wrapped into the entry points of :mod:`.abi`,
reading the plugin's state from its packed address: the framework's per-node filter loop
over a block of nodes (:func:`.search.filter_rows`) with ``filter_node`` inlined, and each
of the other kernels alone. Each entry point is compiled once per plugin and state type,
cached on disk like every kernel, and reached by address from the framework's loops,
which are compiled once for every profile: a new profile compiles nothing, a new plugin
compiles only its own entry points.

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
from . import abi, python_kernels
from .search import filter_rows

#: the names the templates read, bound per plugin in each entry point's own globals
FILTER_NODE = KERNEL = LOAD = None


def _filter_entry(state, k, rep, c, lo, hi, nodes, memo):  # pragma: no cover - compiled
    filter_rows(FILTER_NODE, LOAD(state), k, rep, c, lo, hi, nodes, memo)
    return np.int64(0)


def _list_entry(state, pod, nodes, out):  # pragma: no cover - compiled
    KERNEL(LOAD(state), pod, nodes, out)
    return np.int64(0)


def _pair_entry(state, pod, nodes, raw, scores):  # pragma: no cover - compiled
    return np.int64(1) if KERNEL(LOAD(state), pod, nodes, raw, scores) else np.int64(0)


def _bind_entry(state, pod, node):  # pragma: no cover - compiled
    return np.int64(1) if KERNEL(LOAD(state), pod, node) else np.int64(0)


@dataclass(frozen=True)
class _Column:
    """How a column of the plugin table is made: its template, signature, and the
    kernels the template's name stands for (the first the plugin has)."""

    name: str
    template: Callable[..., Any]
    signature: tuple[types.Type, ...]
    name_kernels: tuple[str, tuple[str, ...]]
    #: the extension point the column serves (its plugins only have it)
    point: str


COLUMNS: dict[int, _Column] = {
    abi.FILTER: _Column("filter", _filter_entry, abi.FILTER_ABI,
                        ("FILTER_NODE", ("filter_node",)), "filters"),
    abi.SCORE: _Column("score", _list_entry, abi.SCORE_ABI, ("KERNEL", ("score_pod",)), "scores"),
    abi.SCORE_SERIAL: _Column("score_serial", _list_entry, abi.SCORE_ABI,
                              ("KERNEL", ("score_pod_serial", "score_pod")), "scores"),
    abi.NORMALIZE: _Column("normalize", _list_entry, abi.SCORE_ABI,
                           ("KERNEL", ("normalize_pod",)), "normalizes"),
    abi.SCORE_NORMALIZE: _Column("score_normalize", _pair_entry, abi.SCORE_NORMALIZE_ABI,
                                 ("KERNEL", ("score_normalize_pod",)), "normalizes"),
    abi.ASSUME: _Column("assume", _bind_entry, abi.BIND_ABI, ("KERNEL", ("assume",)), ""),
    abi.REMOVE: _Column("remove", _bind_entry, abi.BIND_ABI, ("KERNEL", ("remove",)), ""),
}  # fmt: skip

_built: dict[tuple[int, int, int], tuple[Any, types.Type, int]] = {}
_lock = threading.RLock()


def entry_address(plugin: Any, state_type: types.Type, column: int) -> int:
    """The address of ``plugin``'s entry point of ``column`` (:mod:`.abi`) for states of
    ``state_type``, compiled (or loaded from the kernel cache) on first use in this
    process; 0 when the plugin has none."""
    kernels = plugin.kernels
    key = (id(kernels), id(state_type), column)  # (both kept alive in the value)
    with _lock:
        found = _built.get(key)
        if found is None:
            found = _built[key] = (kernels, state_type, _build(plugin, state_type, column))
    return found[2]


def entry_row(plugin: Any, packed: Any, columns: tuple[int, ...]) -> list[int]:
    """A plugin table row: the packed state's address and, for ``columns``, the plugin's
    entry points for states of its type (the others 0)."""
    key = (id(plugin.kernels), id(packed.numba_type), columns)
    found = _rows.get(key)
    if found is None or found[0] is not plugin.kernels or found[1] is not packed.numba_type:
        row = [0] * abi.COLUMNS
        for c in columns:
            row[c] = entry_address(plugin, packed.numba_type, c)
        found = _rows[key] = (plugin.kernels, packed.numba_type, row)
    row = list(found[2])
    row[abi.STATE] = packed.address
    return row


#: plugin table rows by (kernels, state type, columns), both kept alive in the value
_rows: dict[tuple[int, int, tuple[int, ...]], tuple[Any, Any, list[int]]] = {}


def _table(plugins: list[Any], packed: list[Any], columns: tuple[int, ...]) -> np.ndarray:
    """The plugin table of ``plugins`` on their ``packed`` states (see
    :class:`PluginTable`): the entry points of the last tables kept by the plugins' kernels
    and state types (a profile runs again and again on states of the same types), the
    states' addresses written in."""
    kernels, state_types = [p.kernels for p in plugins], [p.numba_type for p in packed]
    key = (*map(id, kernels), *map(id, state_types), columns)
    found = _tables.get(key)
    if found is None:
        table = np.array([entry_row(plugin, state, columns)
                          for plugin, state in zip(plugins, packed, strict=True)],
                         dtype=np.int64).reshape(len(plugins), abi.COLUMNS)  # fmt: skip
        with _lock:
            _tables[key] = (kernels, state_types, table)
            while len(_tables) > RECENT:
                del _tables[next(iter(_tables))]
        return table.copy()
    table = found[2].copy()
    for row, state in enumerate(packed):  # (item by item: a list would be made an array)
        table[row, abi.STATE] = state.address
    return table


#: the last plugin tables by their plugins' kernels, state types and columns (kernels and
#: types kept alive in the value, so an identity in the key is never another object's)
_tables: dict[tuple[Any, ...], tuple[list[Any], list[Any], np.ndarray]] = {}


def built_column(plugin: Any, column: int) -> int:
    """The column whose entry point serves ``column`` for ``plugin``: a plugin without a
    ``score_pod_serial`` kernel scores serially through its ``SCORE`` entry point."""
    if column == abi.SCORE_SERIAL and getattr(plugin.kernels, "score_pod_serial", None) is None:
        return abi.SCORE
    return column


def _build(plugin: Any, state_type: types.Type, column: int) -> int:
    if built_column(plugin, column) != column:
        return entry_address(plugin, state_type, built_column(plugin, column))
    made = entry_kernel(plugin, state_type, column)
    if made is None:
        return 0
    dispatcher, name = made
    signature = COLUMNS[column].signature
    try:
        return _native.function_address(dispatcher, signature)
    except Exception as exc:
        error = exc
    if not dispatcher.targetoptions.get("_nrt", True):  # an allocation not declared?
        try:
            return _native.function_address(_jit.entry_kernel(dispatcher.py_func, True), signature)
        except Exception as exc:
            error = exc
    raise PluginError(
        f"plugin {plugin.name!r}: its {name} kernels do not compile for its state "
        f"({type(error).__name__}: {_first_line(error)})"
    ) from error


def entry_kernel(plugin: Any, state_type: types.Type, column: int) -> tuple[Any, str] | None:
    """The compiled function (not compiled yet) of ``plugin``'s entry point of ``column``
    for states of ``state_type``, and the column's name; None when the plugin has none."""
    key = (id(plugin.kernels), id(state_type), column)
    with _lock:
        if key not in _kernels:
            _kernels[key] = (plugin.kernels, state_type, _entry_kernel(plugin, state_type, column))
        return _kernels[key][2]


_kernels: dict[tuple[int, int, int], tuple[Any, types.Type, tuple[Any, str] | None]] = {}


def _entry_kernel(plugin: Any, state_type: types.Type, column: int) -> tuple[Any, str] | None:
    spec = COLUMNS[column]
    kernels = plugin.kernels
    if spec.point and not getattr(plugin, spec.point):
        return None
    name, choices = spec.name_kernels
    found = [c for c in choices if getattr(kernels, c, None) is not None]
    if not found:
        return None  # (no assume/remove: nothing to update on bind)
    kernel = found[0]
    source = getattr(kernels, "__name__", None) or type(plugin).__module__
    digest = hashlib.sha256(f"{source}|{state_type}".encode()).hexdigest()[:12]
    qualname = f"{_identifier(plugin.name)}_{spec.name}_{digest}"
    python = python_kernels.is_python(plugin)
    glob = {
        "__builtins__": builtins,
        "__name__": __name__,
        "__kscore_stamp__": _cache.module_stamp(source),
        "np": np,
        "filter_rows": filter_rows,
        "LOAD": python_kernels.handle_of if python else _native.state_loader(state_type),
        # (inlined: used once, here; a Python kernel is called through its wrapper)
        name: python_kernels.compiled_call(plugin, kernel) if python
        else _jit.inlined(getattr(kernels, kernel)),
    }  # fmt: skip
    fn = pytypes.FunctionType(spec.template.__code__, glob, qualname)
    fn.__qualname__ = qualname
    # without numba's reference counting unless the kernel allocates (``kernels_allocate``;
    # an undeclared one makes the compilation fail, and _build compiles it with them)
    return _jit.entry_kernel(fn, kernel in set(plugin.kernels_allocate), python), spec.name


def _identifier(name: str) -> str:
    return re.sub(r"\W", "_", name)


def _first_line(exc: BaseException) -> str:
    lines = [line for line in str(exc).splitlines() if line.strip()]
    return lines[0] if lines else ""


class PluginTable:
    """A profile's plugins as its compiled loops reach them: ``table`` (int64[P,
    ``abi.COLUMNS``]) holds, per plugin, its packed state's address and the addresses of
    its entry points of ``columns`` (the others 0: a batch run needs ``FILTER``, ``SCORE``
    and ``NORMALIZE``, the sequential loop ``FILTER``, ``SCORE_SERIAL``, ``NORMALIZE``,
    ``ASSUME`` and ``REMOVE``); the packed states keep the states' arrays alive."""

    def __init__(self, plugins: Sequence[Any], states: Sequence[tuple[Any, ...]],
                 columns: Sequence[int]) -> None:  # fmt: skip
        self.plugins = list(plugins)
        self.states = list(states)
        self.packed = [
            python_kernels.Handle(s) if python_kernels.is_python(p) else _packed(s, p)
            for p, s in zip(self.plugins, self.states, strict=True)
        ]
        self.table = _table(self.plugins, self.packed, tuple(columns))

    def __len__(self) -> int:
        return len(self.plugins)


#: the states packed last, by the identity of their arrays and numbers: plugins hand out
#: the same arrays again (often in a new tuple) while their snapshot and batch are
#: unchanged, and a packed state is valid as long as its arrays are (it keeps them alive,
#: so an identity here is never another object's)
_recent: OrderedDict[tuple[int, ...], _native.Packed] = OrderedDict()
RECENT = 64


def _packed(state: tuple[Any, ...], plugin: Any) -> _native.Packed:
    same = _same.get(id(state))
    if same is not None and same.state is state:  # (a state kept on its batch, again)
        return same
    packed = _pack(state, plugin)
    with _lock:
        _same[id(state)] = packed
        while len(_same) > RECENT:
            del _same[next(iter(_same))]
    return packed


#: the states packed last, by the identity of the state tuple itself (a plugin's state
#: kept on its batch comes back as the same tuple: found without reading its leaves);
#: the packed state holds its tuple, so a hit's ``state is`` check is never fooled
_same: dict[int, _native.Packed] = {}


def _pack(state: tuple[Any, ...], plugin: Any) -> _native.Packed:
    last = _last.get(id(plugin.kernels))
    if last is not None and last[2] >= COMPILED_AFTER and last[0] is plugin.kernels:
        # (packing costs what finding it in ``_recent`` would)
        return _native.pack_compiled(state)
    parts = _native.leaves(state)
    key = tuple(map(id, parts))
    with _lock:
        found = _recent.get(key)
        if found is not None:
            _recent.move_to_end(key)
            return found
        last = _last.get(id(plugin.kernels))
    packed = _native.pack(state, like=None if last is None else last[1], parts=parts)
    with _lock:
        _recent[key] = packed
        while len(_recent) > RECENT:
            _recent.popitem(last=False)
        _last[id(plugin.kernels)] = (plugin.kernels, packed, 1 if last is None else last[2] + 1)
    return packed


#: a plugin's states are packed by compiled code (``_native.pack_compiled``) once this
#: process has packed that many of them: a compiled packer per state type, loaded from the
#: kernel cache, costs a few ms a process, and then a few µs a state where Python costs
#: about 1 µs an array (a lone pod's default profile packs ~150 arrays)
COMPILED_AFTER = 8

#: per plugin's kernels (kept alive here): the state it packed last, which the next state
#: of the plugin shares most leaves with (its snapshot's), written again only in part, and
#: how many states it packed
_last: dict[int, tuple[Any, _native.Packed, int]] = {}
