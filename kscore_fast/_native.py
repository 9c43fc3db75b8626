"""Plugin states and compiled entry points as the framework's compiled loops reach them.

The framework's loops (search, scoring, the sequential loop) are compiled once, for every
profile, and know no plugin. They reach a plugin through one row of a *plugin table*
(``int64[P, 1 + entries]``, built by :mod:`kscore_fast.framework.entries`): the address
of the plugin's state and the addresses of its compiled entry points (filter a block of
nodes, score a list, assume, remove). This module provides the three pieces of that:

* :func:`pack`: a plugin's state (a tuple of NumPy arrays and scalars) written into a
  buffer in the memory layout numba gives that tuple type. Arrays are described by their
  data pointer, shape and strides, without a reference count (numba treats a null
  meminfo as borrowed): the :class:`Packed` object keeps the arrays alive, and the
  kernels write through to them (``assume`` updates the arrays in place);
* :func:`state_loader`: an intrinsic that reads such a buffer back as the typed tuple
  (one load, no reference counting), used at the top of a plugin's entry points;
* :func:`call`: an intrinsic that calls a compiled function at an address with numba's
  own calling convention, so that an exception raised inside it propagates as in any
  numba call.

Crossing from Python into a loop then costs the type check of one ``int64`` array, not
of every array of every plugin's state, and the loops' machine code is compiled once,
not once per profile with every plugin inlined into every loop.
"""

from __future__ import annotations

import ctypes
import functools
import hashlib
import operator
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import repeat
from typing import Any

import numba
import numpy as np
from llvmlite import ir
from numba.core import cgutils, types
from numba.core.errors import TypingError
from numba.core.registry import cpu_target
from numba.core.typeconv import Conversion
from numba.extending import intrinsic

from . import _jit

__all__ = [
    "Packed", "PackedCall", "call", "pack", "pack_compiled", "scalar_slot", "state_loader",
    "state_type",
]  # fmt: skip


def state_type(state: tuple[Any, ...]) -> types.Type:
    """numba's type of a plugin state (a tuple of arrays and NumPy scalars), found from a
    cheap key of its leaves (dtype, dimensions, layout, writability) after the first time."""
    return _typed(state, leaves(state))


def _typed(state: tuple[Any, ...], parts: list[Any]) -> types.Type:
    return _typed_laid_out(state, parts)[0]


def _typed_laid_out(state: tuple[Any, ...], parts: list[Any]) -> tuple[types.Type, _Layout]:
    """The state's numba type and its layout (found once per key: hashing a numba type
    walks it whole)."""
    key = (tuple(map(_leaf_key, parts)), _shape_key(state))
    found = _types.get(key)
    if found is None:
        ty = numba.typeof(state)
        found = _types[key] = (ty, _layout(ty))
    return found


_types: dict[Any, tuple[types.Type, _Layout]] = {}


def _leaf_key(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        f = value.flags
        layout = "C" if f.c_contiguous else "F" if f.f_contiguous else "A"
        return value.dtype, value.ndim, layout, f.writeable, f.aligned
    return type(value)


def _shape_key(value: Any) -> Any:
    """The nesting of a state's tuples."""
    return tuple(_shape_key(v) for v in value) if isinstance(value, tuple) else None


def leaves(value: Any) -> list[Any]:
    """The arrays and numbers of a (nested) state tuple, in order."""
    if not isinstance(value, tuple):
        return [value]
    out: list[Any] = []
    for v in value:  # (most states nest one level: their inner tuples are flat)
        if isinstance(v, tuple):
            if any(map(isinstance, v, repeat(tuple))):
                out += leaves(v)
            else:
                out += v
        else:
            out.append(v)
    return out


class Packed:
    """A plugin state in numba's memory layout (see :func:`pack`): ``address`` is what
    the compiled code reads; ``state`` and the buffer stay alive with this object."""

    __slots__ = ("address", "buffer", "layout", "nesting", "numba_type", "parts", "state")

    def __init__(self, state: tuple[Any, ...], numba_type: types.Type, buffer: np.ndarray,
                 parts: list[Any] | None, layout: _Layout, nesting: Any) -> None:  # fmt: skip
        self.state = state
        self.numba_type = numba_type
        self.buffer = buffer
        self.parts = parts
        self.layout = layout
        self.nesting = nesting  # (_shape_key)
        self.address = _data_pointer(buffer)


def scalar_slot(packed: Packed, leaf: int) -> tuple[np.ndarray, int]:
    """Where scalar leaf ``leaf`` of ``packed`` lives, as ``(view, index)``: ``view[index]
    = value`` rewrites it in place (the next call through the address reads the new
    value; a kernel's arguments packed once, and only their scalars changed between
    calls, cost one integer to pass)."""
    where = packed.layout.leaf_at[leaf]
    if isinstance(where, int):
        raise TypeError(f"leaf {leaf} is an array, not a scalar")
    off, dtype = where
    if off % dtype.itemsize:
        raise TypeError(f"leaf {leaf} is not aligned to its size")
    return packed.buffer.view(dtype), off // dtype.itemsize


class PackedCall:
    """A compiled kernel called from Python through its arguments packed once: ``entry``
    (compiled, taking one address, see :func:`state_loader`) unpacks ``args`` and calls
    the kernel. numba types every argument of a call from Python (~0.1 µs an array, more
    for a tuple); a call through here types one integer, after rewriting in place the
    scalars at positions ``scalars`` of ``args`` (``call(*values)``, in that order). The
    arrays are borrowed: ``sources`` are the objects whose identity the caller checks
    (:meth:`current`) before calling again, those it may replace between calls. ``head``:
    arguments of ``entry`` before the address (e.g. the kernel's own address, for an
    entry that calls it through :func:`call`). ``like``: the call these arguments replace
    (only the leaves that changed are written again, :func:`pack`)."""

    __slots__ = ("address", "entry", "entry_args", "packed", "slots", "sources")

    def __init__(self, entry: Any, args: tuple[Any, ...], numba_type: types.Type,
                 scalars: Sequence[int], sources: tuple[Any, ...],
                 head: tuple[int, ...] = (), like: PackedCall | None = None) -> None:  # fmt: skip
        self.packed = pack(args, None if like is None else like.packed)
        if self.packed.numba_type != numba_type:
            raise TypeError(f"arguments of type {self.packed.numba_type}, {numba_type} expected")
        self.entry, self.address, self.sources = entry, self.packed.address, sources
        self.entry_args = (*head, self.address)
        self.slots = [scalar_slot(self.packed, len(leaves(args[:i]))) for i in scalars]

    def current(self, *sources: Any) -> bool:
        """``sources`` are still the objects the arguments were packed from."""
        return all(map(operator.is_, sources, self.sources))

    def __call__(self, *values: Any) -> Any:
        for (view, i), value in zip(self.slots, values, strict=True):
            view[i] = value
        return self.entry(*self.entry_args)


def _array_words(a: np.ndarray) -> tuple[int, ...]:
    """An array's struct as numba lays it out: meminfo (none: borrowed), parent, nitems,
    itemsize, data, shape, strides."""
    return (0, 0, a.size, a.itemsize, _data_pointer(a), *a.shape, *a.strides)


def _interface_pointer(a: np.ndarray) -> int:
    return a.__array_interface__["data"][0]


def _field_pointer(a: np.ndarray) -> int:
    """The data pointer read from the array object itself: ``PyArrayObject``'s first field
    after the object header (NumPy's stable ABI), a tenth of building
    ``__array_interface__``; used once :func:`_choose_pointer` has checked it."""
    return _pointer_at(id(a) + _DATA_OFFSET).value or 0


_pointer_at = ctypes.c_void_p.from_address
#: where ``PyArrayObject.data`` lies: after ``ob_refcnt`` and ``ob_type``
_DATA_OFFSET = 2 * ctypes.sizeof(ctypes.c_void_p)


def _choose_pointer() -> Any:
    """:func:`_field_pointer` when it reads what NumPy's interface says on arrays of several
    kinds (views, strided, read-only, empty), else the interface."""
    base = np.arange(24, dtype=np.int64)
    samples = [base, base[3:], base[::5], base.reshape(4, 6).T, np.zeros(0), np.ones(3, np.bool_)]
    samples[-1].flags.writeable = False
    try:
        if all(_field_pointer(a) == _interface_pointer(a) for a in samples):
            return _field_pointer
    except Exception:  # (another interpreter's object layout: the interface, always right)
        pass
    return _interface_pointer


_data_pointer = _choose_pointer()


def _scalar_bytes(value: Any, dtype: np.dtype) -> np.ndarray:
    return np.array([value], dtype=dtype).view(np.uint8)


def pack(state: tuple[Any, ...], like: Packed | None = None,
         parts: list[Any] | None = None) -> Packed:  # fmt: skip
    """Write ``state`` in the data layout of its numba type (:func:`state_type`).
    ``like``: a state packed before, of the same type, whose leaves ``state`` shares in
    part (a plugin hands out its snapshot's arrays again with new batch arrays): only
    the leaves that differ are written, on a copy of its buffer. ``parts``: the state's
    :func:`leaves`, when the caller has them."""
    if parts is None:
        parts = leaves(state)
    if like is not None:
        again = _repack(state, parts, like)
        if again is not None:
            return again
    ty, layout = _typed_laid_out(state, parts)
    buffer = np.zeros(layout.words, dtype=np.int64)
    words: list[int] = []
    for i in layout.arrays:
        words += _array_words(parts[i])
    buffer[layout.array_words] = words
    raw = buffer.view(np.uint8)
    for i, off, dtype in layout.scalars:
        one = _scalar_bytes(parts[i], dtype)
        raw[off : off + one.size] = one
    return Packed(state, ty, buffer, parts, layout, _shape_key(state))


def _repack(state: tuple[Any, ...], parts: list[Any], like: Packed) -> Packed | None:
    """:func:`pack` from ``like``'s buffer, or None when the types may differ (another
    nesting, or a changed leaf of another kind)."""
    old = like.parts
    if old is None or len(parts) != len(old):
        return None
    changed = [i for i, (a, b) in enumerate(zip(parts, old, strict=True)) if a is not b]
    if any(_leaf_key(parts[i]) != _leaf_key(old[i]) for i in changed):
        return None
    nesting = _shape_key(state)
    if nesting != like.nesting:
        return None
    layout = like.layout
    buffer = like.buffer.copy()
    raw = buffer.view(np.uint8)
    for i in changed:
        where = layout.leaf_at[i]
        if isinstance(where, int):  # an array: its words from there
            words = _array_words(parts[i])
            buffer[where : where + len(words)] = words
        else:
            off, dtype = where
            one = _scalar_bytes(parts[i], dtype)
            raw[off : off + one.size] = one
    return Packed(state, like.numba_type, buffer, parts, layout, nesting)


def pack_compiled(state: tuple[Any, ...]) -> Packed:
    """:func:`pack` by the compiled :func:`_store`: one call (numba types the tuple from its
    C fingerprint and writes the struct as compiled code holds it, arrays borrowed), a
    few µs whatever the state holds, where :func:`pack` costs about 1 µs an array. Each
    state type is a compiled specialization of its own (compiled once, then loaded from
    the kernel cache): worth it for states packed many times in one process."""
    buffer = np.zeros(_WORDS, dtype=np.int64)
    try:
        type_id, words = _store(state, buffer)
        if words > _WORDS:
            buffer = np.zeros(words, dtype=np.int64)
            _store(state, buffer)
    except Exception:  # (not a tuple of arrays and numbers: typed here, with the reason)
        _typed_laid_out(state, leaves(state))
        raise TypeError(f"a plugin state of type {numba.typeof(state)} cannot be packed") from None
    found = _by_id.get(type_id)
    if found is None:
        found = _typed_laid_out(state, leaves(state))
        if _type_id(found[0]) != type_id:
            raise TypeError(f"a plugin state of type {found[0]}: packed as another type")
        _by_id[type_id] = found
    return Packed(state, found[0], buffer, None, found[1], None)


def compile_packer(state_type: types.Type) -> None:
    """Compile (or load from the kernel cache) :func:`pack_compiled`'s code for states of
    ``state_type``."""
    _store.compile((state_type, types.Array(types.int64, 1, "C")))


#: words of the buffer :func:`pack_compiled` tries first (most states fit in it; the
#: others are written again in one of their size)
_WORDS = 256
#: numba types and layouts by :func:`_type_id`
_by_id: dict[int, tuple[types.Type, _Layout]] = {}


def _type_id(ty: types.Type) -> int:
    """A stable 63-bit identity of a numba type, the same in every process (compiled code
    returns it, and the kernel cache keeps that code)."""
    digest = hashlib.blake2b(str(ty).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little") >> 1


def _check_leaf_types(ty: types.Type) -> None:
    try:
        _check_leaves(ty)
    except TypeError as exc:
        raise TypingError(str(exc)) from None


def _borrowed(context: Any, builder: Any, ty: types.Type, value: Any) -> Any:
    """``value`` (of type ``ty``) with every array's meminfo and parent null: borrowed,
    as :func:`state_loader` reads them back."""
    if isinstance(ty, types.Array):
        array = cgutils.create_struct_proxy(ty)(context, builder, value=value)
        array.meminfo = cgutils.get_null_value(array.meminfo.type)
        array.parent = cgutils.get_null_value(array.parent.type)
        return array._getvalue()
    if isinstance(ty, types.BaseTuple):
        for i, t in enumerate(ty.types):
            if isinstance(t, types.Array | types.BaseTuple):
                part = _borrowed(context, builder, t, builder.extract_value(value, i))
                value = builder.insert_value(value, part, i)
    return value


@intrinsic
def _state_words(typingctx: Any, state: types.Type) -> Any:
    """The int64 words ``state``'s struct fills (a constant of its type)."""
    _check_leaf_types(state)

    def codegen(context: Any, builder: Any, sig: Any, args: Sequence[Any]) -> Any:
        llty = context.data_model_manager[sig.args[0]].get_data_type()
        return context.get_constant(types.int64, -(-llty.get_abi_size(context.target_data) // 8))

    return types.int64(state), codegen


@intrinsic
def _state_type_id(typingctx: Any, state: types.Type) -> Any:
    """:func:`_type_id` of ``state``'s type (a constant)."""

    def codegen(context: Any, builder: Any, sig: Any, args: Sequence[Any]) -> Any:
        return context.get_constant(types.int64, _type_id(sig.args[0]))

    return types.int64(state), codegen


@intrinsic
def _store_at(typingctx: Any, state: types.Type, address: types.Type) -> Any:
    """Write ``state`` at ``address`` in its data layout, arrays borrowed."""
    _check_leaf_types(state)

    def codegen(context: Any, builder: Any, sig: Any, args: Sequence[Any]) -> Any:
        ty = sig.args[0]
        model = context.data_model_manager[ty]
        ptr = builder.inttoptr(args[1], model.get_data_type().as_pointer())
        builder.store(model.as_data(builder, _borrowed(context, builder, ty, args[0])), ptr)
        return context.get_dummy_value()

    return types.none(state, types.int64), codegen


@_jit.state_kernel
def _store(state, buffer):  # pragma: no cover - compiled
    """``state`` written into ``buffer`` when it fits; (its type's id, its words)."""
    words = _state_words(state)
    if words <= len(buffer):
        _store_at(state, buffer.ctypes.data)
    return _state_type_id(state), words


@dataclass(frozen=True)
class _Layout:
    """Where a state type's leaves go: ``words`` int64 words in all; the leaves that are
    arrays (their positions among the leaves) and the words their structs fill, in
    order; the scalars' positions, byte offsets and dtypes."""

    words: int
    arrays: list[int]
    array_words: np.ndarray
    scalars: list[tuple[int, int, np.dtype]]
    #: per leaf: the first word of an array's struct, or a scalar's (byte offset, dtype)
    leaf_at: list[Any]


@functools.cache
def _layout(ty: types.Type) -> _Layout:
    _check_leaves(ty)
    ctx = cpu_target.target_context
    llty = ctx.data_model_manager[ty].get_data_type()
    fields: list[tuple[int, np.dtype | None, int]] = []
    _walk(ty, llty, 0, ctx.target_data, fields)
    arrays = [i for i, (_, kind, _) in enumerate(fields) if kind is None]
    array_words = [w for off, kind, ndim in fields if kind is None
                   for w in range(off // 8, off // 8 + 5 + 2 * ndim)]  # fmt: skip
    scalars = [(i, off, kind) for i, (off, kind, _) in enumerate(fields) if kind is not None]
    leaf_at = [off // 8 if kind is None else (off, kind) for off, kind, _ in fields]
    size = llty.get_abi_size(ctx.target_data)
    return _Layout(max(1, -(-size // 8)), arrays, np.array(array_words, dtype=np.int64), scalars,
                   leaf_at)  # fmt: skip


def _check_leaves(ty: types.Type) -> None:
    if isinstance(ty, types.BaseTuple):
        for t in ty.types:
            _check_leaves(t)
    elif not isinstance(ty, types.Array | types.Integer | types.Float | types.Boolean):
        raise TypeError(f"a plugin state holds arrays and NumPy numbers, not {ty}")


def _walk(ty: types.Type, llty: ir.Type, off: int, td: Any,
          fields: list[tuple[int, np.dtype | None, int]]) -> None:  # fmt: skip
    """Each leaf's (byte offset, dtype or None for an array, dimensions)."""
    if isinstance(ty, types.Array):  # (its struct is pointer-aligned)
        fields.append((off, None, ty.ndim))
    elif isinstance(ty, types.BaseTuple):  # a UniTuple is an LLVM array, others structs
        uniform = isinstance(llty, ir.ArrayType)
        for i, t in enumerate(ty.types):
            if uniform:
                elem, at = llty.element, off + i * llty.element.get_abi_size(td)
            else:
                elem, at = llty.elements[i], off + llty.get_element_offset(td, i)
            _walk(t, elem, at, td, fields)
    elif isinstance(ty, types.Boolean):
        fields.append((off, np.dtype(np.uint8), 0))
    elif isinstance(ty, types.Integer | types.Float):
        fields.append((off, np.dtype(str(ty)), 0))
    else:
        raise TypeError(f"a plugin state holds arrays and NumPy numbers, not {ty}")


def state_loader(numba_type: types.Type) -> Any:
    """An intrinsic ``load(address) -> state``: the tuple of type ``numba_type`` that
    :func:`pack` wrote at ``address`` (borrowed: nothing is reference counted)."""

    @intrinsic
    def load(typingctx: Any, address: types.Type) -> Any:
        if not isinstance(address, types.Integer):
            raise TypingError(f"a state address is an integer, not {address}")

        def codegen(context: Any, builder: Any, sig: Any, args: Sequence[Any]) -> Any:
            model = context.data_model_manager[numba_type]
            ptr = builder.inttoptr(args[0], model.get_data_type().as_pointer())
            return model.load_from_data_pointer(builder, ptr)

        return numba_type(types.int64), codegen

    return load


def call(abi: Sequence[types.Type], restype: types.Type = types.int64) -> Any:
    """An intrinsic ``f(address, *args)``: call the compiled function at ``address``,
    whose numba signature is ``restype(*abi)``, with numba's calling convention (an
    exception it raises propagates). Scalars are cast to the ABI's types; arrays must
    have the ABI's dtype and dimensions (a C-contiguous array is passed where the ABI
    says any layout). A call that does not fit the ABI is refused when it is compiled."""
    abi = tuple(abi)

    @intrinsic
    def invoke(typingctx: Any, address: types.Type, *args: types.Type) -> Any:
        if not isinstance(address, types.Integer):
            raise TypingError(f"a function address is an integer, not {address}")
        if len(args) != len(abi):
            raise TypingError(f"the entry takes {len(abi)} arguments, {len(args)} given")
        for i, (got, want) in enumerate(zip(args, abi, strict=True)):
            if not _fits(got, want, typingctx):
                raise TypingError(f"argument {i} of the entry: {want} expected, {got} given")
        star = types.StarArgTuple.from_types(args)

        def codegen(context: Any, builder: Any, sig: Any, llargs: Sequence[Any]) -> Any:
            given = sig.args[1].types
            vals = cgutils.unpack_tuple(builder, llargs[1], len(given))
            # (arrays borrowed: the callee's reference counting of them is then a test of a
            # null pointer, not an atomic operation; the caller holds them for the call)
            vals = [
                _borrowed(context, builder, w, context.cast(builder, v, g, w))
                for v, g, w in zip(vals, given, abi, strict=True)
            ]
            fnty = context.call_conv.get_function_type(restype, abi)
            fn = builder.inttoptr(llargs[0], fnty.as_pointer())
            status, out = context.call_conv.call_function(builder, fn, restype, abi, vals)
            with cgutils.if_unlikely(builder, status.is_error):
                context.call_conv.return_status_propagate(builder, status)
            return out

        return restype(address, star), codegen

    return invoke


def _fits(got: types.Type, want: types.Type, typingctx: Any) -> bool:
    if got == want:
        return True
    if isinstance(want, types.Array):
        return (
            isinstance(got, types.Array)
            and got.dtype == want.dtype
            and got.ndim == want.ndim
            and want.layout == "A"
        )
    if not isinstance(want, types.Number | types.Boolean):
        return False
    conversion = typingctx.can_convert(got, want)  # (exact, promote or safe: no truncation)
    return conversion is not None and conversion <= Conversion.safe


def function_address(dispatcher: Any, signature: tuple[types.Type, ...]) -> int:
    """The address of ``dispatcher``'s compiled code for ``signature`` (compiled, or
    loaded from the kernel cache, first), in numba's calling convention."""
    dispatcher.compile(signature)
    cres = dispatcher.overloads[signature]
    return int(cres.library.get_pointer_to_function(cres.fndesc.llvm_func_name))


@intrinsic
def borrow(typingctx: Any, array: types.Type) -> Any:
    """``borrow(a)``: array ``a`` (or each array of tuple ``a``) with a null meminfo and
    parent, so that numba's reference counting of it and of every view taken from it is
    a test of a null pointer, not an atomic operation. Only for an array the caller keeps
    alive as long as the result and its views are used: a kernel's argument, or an array
    it allocated and names again after its last use of the borrowed one
    (:func:`keep_alive`)."""
    if not isinstance(array, types.Array | types.BaseTuple):
        raise TypingError(f"borrow takes an array or a tuple, not {array}")

    def codegen(context: Any, builder: Any, sig: Any, args: Sequence[Any]) -> Any:
        return _borrowed(context, builder, sig.args[0], args[0])

    return array(array), codegen


@intrinsic
def keep_alive(typingctx: Any, *arrays: types.Type) -> Any:
    """``keep_alive(a, ...)``: a use of the arrays, so that numba releases them no
    earlier (see :func:`borrow`)."""

    def codegen(context: Any, builder: Any, sig: Any, args: Sequence[Any]) -> Any:
        return context.get_dummy_value()

    return types.none(types.StarArgTuple.from_types(arrays)), codegen
