"""Plugin states packed in numba's data layout and read back by compiled code, and calls by
address (``kscore_fast._native``)."""

from __future__ import annotations

import numba
import numpy as np
import pytest
from numba.core import types

from kscore_fast import _native

_STATE = (
    np.arange(5, dtype=np.int64),
    np.int64(-7),
    np.bool_(True),
    np.arange(12, dtype=np.int32).reshape(3, 4),
    (np.float64(2.5), np.zeros(3, dtype=np.uint8)),
    np.int32(9),
    (np.arange(3, dtype=np.int64), np.arange(3, 6, dtype=np.int64)),  # a UniTuple
    np.arange(20, dtype=np.int64)[::4],  # not contiguous
    np.bool_(False),
)


def _load(ty):
    load = _native.state_loader(ty)

    @numba.njit
    def read(address):  # pragma: no cover - compiled
        s = load(address)
        a, neg, yes, m, (f, u8), i32, (x, y), strided, no = s
        u8[1] = 200  # writes reach the arrays
        return (a.sum(), neg, yes, m[2, 3], f, i32, x[2] + y[0], strided.sum(), strided.shape[0],
                no)  # fmt: skip

    return read


def test_a_packed_state_reads_back_in_compiled_code():
    packed = _native.pack(_STATE)
    assert packed.numba_type == numba.typeof(_STATE)
    got = _load(packed.numba_type)(packed.address)
    assert got == (10, -7, True, 11, 2.5, 9, 5, 0 + 4 + 8 + 12 + 16, 5, False)
    assert _STATE[4][1][1] == 200


def test_a_state_packed_like_another_writes_only_what_differs():
    """pack(state, like=...) (a plugin's next state shares most leaves with its last):
    the same bytes as a fresh pack, on a buffer of its own; a leaf of another kind, or
    another nesting, packs afresh."""
    first = _native.pack(_STATE)
    new = (np.arange(7, dtype=np.int64) * 3, np.int64(11), *_STATE[2:5], np.int32(-4),
           *_STATE[6:8], np.bool_(True))  # fmt: skip
    again = _native.pack(new, like=first)
    assert np.array_equal(again.buffer, _native.pack(new).buffer)
    assert again.buffer is not first.buffer and again.numba_type is first.numba_type
    assert _load(again.numba_type)(again.address)[:2] == (63, 11)
    other_kind = (new[0].astype(np.int32), *new[1:])
    assert _native.pack(other_kind, like=first).numba_type == numba.typeof(other_kind)
    nested = (new[0], (new[1], new[2]), *new[3:])
    assert _native.pack(nested, like=first).numba_type == numba.typeof(nested)


def test_a_state_packed_by_compiled_code_is_the_same_struct():
    """pack_compiled writes what pack writes (every array borrowed: no meminfo, no parent),
    read back alike; a state larger than its first buffer, and states of other types,
    alike; leaves that are not arrays or numbers are refused."""
    for state in (_STATE, (_STATE[0], (_STATE[1], (_STATE[2], _STATE[3]))),
                  tuple(np.arange(i + 1) for i in range(60))):  # fmt: skip
        slow, fast = _native.pack(state), _native.pack_compiled(state)
        assert fast.numba_type == slow.numba_type == numba.typeof(state)
        for i, where in enumerate(slow.layout.leaf_at):
            if isinstance(where, int):  # an array's struct
                words = slice(where, where + 5 + 2 * _native.leaves(state)[i].ndim)
                assert fast.buffer[words].tolist() == slow.buffer[words].tolist()
            else:
                off, dtype = where
                raw_fast, raw_slow = fast.buffer.view(np.uint8), slow.buffer.view(np.uint8)
                size = dtype.itemsize
                assert raw_fast[off : off + size].tolist() == raw_slow[off : off + size].tolist()
    fast = _native.pack_compiled(_STATE)
    assert _load(fast.numba_type)(fast.address)[:4] == (10, -7, True, 11)
    with pytest.raises(TypeError, match="arrays and NumPy numbers"):
        _native.pack_compiled((np.zeros(2), "text"))


def test_the_type_key_follows_layout_dtype_and_writability():
    a = np.zeros(4)
    assert _native.state_type((a,)) is _native.state_type((np.ones(4),))
    assert _native.state_type((a[::2],)).types[0].layout == "A"
    ro = np.zeros(4)
    ro.flags.writeable = False
    assert _native.state_type((ro,)).types[0].mutable is False
    assert _native.state_type((a.astype(np.int32),)) != _native.state_type((a,))


def test_unsupported_leaves_are_refused():
    with pytest.raises(TypeError, match="arrays and NumPy numbers"):
        _native.pack((np.zeros(2), "text"))


@numba.njit
def _add(x, arr):  # pragma: no cover - compiled
    if x < 0:
        raise ValueError("negative")
    return x + arr[0]


_CALL = _native.call((types.int64, types.Array(types.int64, 1, "C")))


@numba.njit
def _call_twice(address, x, arr):  # pragma: no cover - compiled
    return _CALL(address, x, arr) + _CALL(address, np.int32(x), arr)


def test_a_call_by_address_passes_arguments_and_exceptions():
    sig = (types.int64, types.Array(types.int64, 1, "C"))
    address = _native.function_address(_add, sig)
    arr = np.array([100], dtype=np.int64)
    assert _call_twice(address, 5, arr) == 210  # (an int32 is cast to the signature's int64)
    with pytest.raises(ValueError, match="negative"):
        _call_twice(address, -1, arr)


@numba.njit
def _bad_call(address, arr):  # pragma: no cover - compiled
    return _CALL(address, 1.5, arr)


def test_a_call_that_does_not_fit_the_signature_is_refused_when_compiled():
    with pytest.raises(numba.core.errors.TypingError, match="argument 0 of the entry"):
        _bad_call(0, np.zeros(1, dtype=np.int64))


def _packed_entry(ty):
    load = _native.state_loader(ty)

    @numba.njit
    def kernel(a, k, flag, seed, tail):  # pragma: no cover - compiled
        a[k] += 1
        return a.sum() + (1000 if flag else 0) + np.int64(seed % np.uint64(100)) + tail[0]

    @numba.njit
    def entry(address):  # pragma: no cover - compiled
        return kernel(*load(address))

    return entry


def test_a_packed_call_rewrites_its_scalars_and_borrows_its_arrays():
    """PackedCall: the arguments packed once; each call rewrites the scalars named (int64,
    bool, uint64: each its own width) and reaches the same arrays."""
    a, tail = np.zeros(4, np.int64), (np.array([5], np.int64),)
    args = (a, 0, False, np.uint64(7), tail)
    ty = numba.typeof(args)
    call = _native.PackedCall(_packed_entry(ty), args, ty, (1, 2, 3), (a,))
    assert call(2, True, np.uint64(2**64 - 1)) == 1 + 1000 + 15 + 5
    assert call(3, False, np.uint64(42)) == 2 + 42 + 5
    assert a.tolist() == [0, 0, 1, 1]
    assert call.current(a) and not call.current(a.copy())


def test_a_packed_call_refuses_arguments_of_another_type():
    args = (np.zeros(4, np.int64), 0, False, np.uint64(7), (np.array([5], np.int64),))
    ty = numba.typeof(args)
    other = (args[0].astype(np.int32), *args[1:])
    with pytest.raises(TypeError, match="expected"):
        _native.PackedCall(_packed_entry(ty), other, ty, (1,), ())
    with pytest.raises(TypeError, match="array"):
        _native.PackedCall(_packed_entry(ty), args, ty, (0,), ())


@numba.njit
def _window_sums(a, width, borrowed):  # pragma: no cover - compiled
    """Sums of each window of ``a``, through per-window views of ``a`` and of scratch this
    kernel allocates: borrowed (``_native.borrow``) or reference counted."""
    owned = (np.empty(width, dtype=np.int64), np.zeros(1, dtype=np.int64))
    if borrowed:
        a = _native.borrow(a)
        scratch, total = _native.borrow(owned)
    else:
        scratch, total = owned
    out = np.empty(a.shape[0] - width + 1, dtype=np.int64)
    for i in range(out.shape[0]):
        window = a[i : i + width]
        scratch[:] = window
        total[0] = scratch.sum()
        out[i] = total[0]
    _native.keep_alive(owned)
    return out


def test_borrowed_arrays_give_the_same_values_and_leak_nothing():
    """``borrow``: views of borrowed arguments and of borrowed scratch (kept alive to the
    end) read and write as the reference-counted ones, and every allocation is freed."""
    from numba.core.runtime import _nrt_python, rtsys

    a = np.arange(50, dtype=np.int64) ** 2
    expected = _window_sums(a, 7, False)
    _window_sums(a, 7, True)  # (compiled before counting)
    was_on = _nrt_python.memsys_stats_enabled()
    _nrt_python.memsys_enable_stats()
    try:
        before = rtsys.get_allocation_stats()
        got = _window_sums(a, 7, True)
        after = rtsys.get_allocation_stats()
    finally:
        if not was_on:
            _nrt_python.memsys_disable_stats()
    assert got.tolist() == expected.tolist() == [int(a[i : i + 7].sum()) for i in range(44)]
    # (the result array is the one allocation still alive)
    assert (after.alloc - before.alloc) - (after.free - before.free) == 1


@numba.njit
def _borrow_scalar(x):  # pragma: no cover - compiled
    return _native.borrow(x)


def test_borrow_takes_arrays_and_tuples_only():
    with pytest.raises(numba.core.errors.TypingError, match="array or a tuple"):
        _borrow_scalar(3)
