"""Texts in a plugin state: UTF-8 bytes in one ``uint8`` array and their offsets, the way
a state (NumPy arrays only) carries names and reasons for ``reasons(state, code)``."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def text_table(texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """``(ptr int64[T + 1], chars uint8[...])``: text ``i`` is ``chars[ptr[i]:ptr[i + 1]]``."""
    data = [t.encode() for t in texts]
    ptr = np.zeros(len(data) + 1, dtype=np.int64)
    np.cumsum([len(d) for d in data], out=ptr[1:])
    return ptr, np.frombuffer(b"".join(data), dtype=np.uint8).copy()


def text_at(ptr: np.ndarray, chars: np.ndarray, i: int) -> str:
    """Text ``i`` of a :func:`text_table`."""
    return bytes(chars[ptr[i] : ptr[i + 1]]).decode()
