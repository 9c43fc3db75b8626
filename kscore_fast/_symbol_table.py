"""Cached kernels loaded without parsing their linking bitcode.

A numba cache entry holds a kernel's object code and, for linking it into kernels
compiled later, its LLVM bitcode. numba's loader parses that bitcode on every load
(``JITCodeLibrary._unserialize``), only to learn which symbols the library defines: ~1.5 ms
a kernel with the symbol walk, ~70 ms of a warm ``kscore simulate``'s 47 kernels.

While :func:`loading` is in effect (:meth:`kscore_fast._jit._Dispatcher._load`, under
numba's compiler lock), an entry loads from its object code alone: the bitcode is parsed
when a later compilation first links the kernel, and the names of the symbols it defines
come from a table in the kernel cache directory (``symbols.json``), keyed by a hash of the
bitcode, so an entry is never matched to another's names. An entry missing from the table
is parsed as numba does and its names added; the table is written when the process ends.
An unreadable table counts as empty and is written anew.
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import json
import os
import threading
from collections.abc import Iterator
from typing import Any

import llvmlite.binding as ll

#: the table's file name in the versioned cache directory
FILE = "symbols.json"

_table: dict[str, list[str]] | None = None
_added: dict[str, list[str]] = {}
_directory: str | None = None
_lock = threading.Lock()


class _LazyModule:
    """An LLVM module parsed from ``bitcode`` on first use."""

    __slots__ = ("_bitcode", "_module")

    def __init__(self, bitcode: bytes) -> None:
        self._bitcode = bitcode
        self._module: Any = None

    def __getattr__(self, name: str) -> Any:
        if self._module is None:
            self._module = ll.parse_bitcode(self._bitcode)
        return getattr(self._module, name)


def _defined(module: Any) -> list[str]:
    """The symbols ``module`` defines (what numba's engine records on a load)."""
    return [g.name for gs in (module.functions, module.global_variables) for g in gs
            if not g.is_declaration]  # fmt: skip


def _read(directory: str) -> dict[str, list[str]]:
    try:
        with open(os.path.join(directory, FILE), encoding="utf-8") as f:
            table = json.load(f)
    except (OSError, ValueError):
        return {}
    if not isinstance(table, dict):
        return {}
    return {k: v for k, v in table.items()
            if isinstance(v, list) and all(isinstance(s, str) for s in v)}  # fmt: skip


def save() -> None:
    """Add this process's new entries to the table file (merged with what other
    processes wrote meanwhile; replaced whole, so a reader never sees half of it)."""
    with _lock:
        if not _added or _directory is None:
            return
        table = {**_read(_directory), **_added}
        path = os.path.join(_directory, FILE)
        tmp = f"{path}.{os.getpid()}.tmp"
        with contextlib.suppress(OSError):
            with open(tmp, "w", encoding="utf-8") as f:
                json.dump(table, f, separators=(",", ":"))
            os.replace(tmp, path)
            _added.clear()
        with contextlib.suppress(OSError):
            os.unlink(tmp)


def _unserialize(cls: Any, codegen: Any, state: tuple[Any, str, Any]) -> Any:
    """numba's ``_unserialize`` of an ``object`` entry, the bitcode parsed lazily."""
    name, kind, data = state
    if kind != "object":
        return _numba_unserialize(cls, codegen, state)
    object_code, bitcode = data
    library = codegen.create_library(name)
    library.enable_object_caching()
    library._set_compiled_object(object_code)
    library._shared_module = module = _LazyModule(bitcode)
    library._finalize_final_module()
    key = hashlib.blake2b(bitcode, digest_size=16).hexdigest()
    assert _table is not None
    names = _table.get(key)
    if names is None:
        names = _table[key] = _added[key] = _defined(module)
    codegen._engine._defined_symbols.update(names)
    return library


_numba_unserialize: Any = None


_registered: list[bool] = []


@contextlib.contextmanager
def loading(codegen: Any, directory: str | None) -> Iterator[None]:
    """Cache entries unserialized by ``codegen`` within the block load lazily (the caller
    holds numba's compiler lock: no other thread unserializes meanwhile). ``directory``:
    the kernel cache's (None: caching is off). Outside numba's expected shape (another
    version's internals), the block runs numba's own loader."""
    global _table, _directory, _numba_unserialize
    cls = getattr(codegen, "_library_class", None)
    numba_unserialize = getattr(getattr(cls, "_unserialize", None), "__func__", None)
    engine = getattr(codegen, "_engine", None)
    if directory is None or numba_unserialize is None or not hasattr(engine, "_defined_symbols"):
        yield
        return
    with _lock:
        if _table is None or _directory != directory:
            _table, _directory = _read(directory), directory
        if not _registered:
            _registered.append(atexit.register(save) is not None)
    own = "_unserialize" in cls.__dict__
    original = cls.__dict__.get("_unserialize")
    _numba_unserialize = numba_unserialize
    cls._unserialize = classmethod(_unserialize)
    try:
        yield
    finally:
        if own:
            cls._unserialize = original
        else:
            del cls._unserialize


def forget() -> None:
    """Drop the table read into memory (tests): the next load reads the file again."""
    global _table
    with _lock:
        _table = None
        _added.clear()
