"""Label sets as bitmasks.

Every distinct ``key=value`` pair of the pods in a snapshot whose key some selector can
mention gets one bit; a label set is a row of ``uint64`` words. (A StatefulSet's
``statefulset.kubernetes.io/pod-name`` label, unique per pod and mentioned by no selector,
would otherwise cost one bit per pod.) Each key also has a *key mask*, the bits of all
its values, so ``Exists`` is "any bit of the key mask". Values never seen on any pod need no bit: a
requirement that wants one can never be satisfied, which the selector compiler encodes
without a bit (see :mod:`kscore_fast.model.selectors`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Set

import numpy as np

WORD_BITS = 64


class LabelVocab:
    """Dictionary-encodes ``(key, value)`` pairs to bit positions.

    Bits are given in order of first appearance; :meth:`freeze` fixes the word count.
    """

    def __init__(self) -> None:
        self._bit: dict[tuple[str, str], int] = {}
        self._key_bits: dict[str, list[int]] = {}

    def __len__(self) -> int:
        return len(self._bit)

    def add(self, labels: Mapping[str, str], keys: Set[str] | None = None) -> None:
        """Give a bit to every pair of ``labels`` that has none yet (only pairs whose key
        is in ``keys``, when given: labels no selector mentions need no bit)."""
        for kv in labels.items():
            if kv not in self._bit and (keys is None or kv[0] in keys):
                bit = len(self._bit)
                self._bit[kv] = bit
                self._key_bits.setdefault(kv[0], []).append(bit)

    @property
    def n_words(self) -> int:
        """Words per label row (at least one, so arrays never have a zero-size axis)."""
        return max(1, -(-len(self._bit) // WORD_BITS))

    def bit(self, key: str, value: str) -> int | None:
        """The bit of ``key=value``, or None if no pod carries that pair."""
        return self._bit.get((key, value))

    def key_bits(self, key: str) -> list[int]:
        """All bits of ``key`` (one per value seen)."""
        return self._key_bits.get(key, [])

    def keys(self) -> Iterable[str]:
        return self._key_bits.keys()

    def mask(self, bits: Iterable[int], n_words: int | None = None) -> np.ndarray:
        """A ``uint64[n_words]`` row with ``bits`` set."""
        row = np.zeros(n_words or self.n_words, dtype=np.uint64)
        for b in bits:
            row[b // WORD_BITS] |= np.uint64(1) << np.uint64(b % WORD_BITS)
        return row

    def key_mask(self, keys: Iterable[str], n_words: int | None = None) -> np.ndarray:
        """A row with every bit of every key in ``keys`` set."""
        return self.mask((b for k in keys for b in self.key_bits(k)), n_words)

    def encode(self, labels: Mapping[str, str], n_words: int | None = None) -> np.ndarray:
        """The row of a label set; pairs without a bit are ignored."""
        return self.mask(
            (b for b in (self._bit.get(kv) for kv in labels.items()) if b is not None), n_words
        )

    def encode_many(self, label_sets: Iterable[Mapping[str, str]]) -> np.ndarray:
        """``uint64[n, n_words]`` rows of many label sets."""
        bit_of = self._bit
        rows: list[int] = []
        bits: list[int] = []
        n = 0
        for i, labels in enumerate(label_sets):
            n = i + 1
            for kv in labels.items():
                b = bit_of.get(kv)
                if b is not None:
                    rows.append(i)
                    bits.append(b)
        out = np.zeros((n, self.n_words), dtype=np.uint64)
        if bits:
            b_arr = np.asarray(bits, dtype=np.uint64)
            np.bitwise_or.at(
                out,
                (np.asarray(rows, dtype=np.intp), (b_arr // np.uint64(WORD_BITS)).astype(np.intp)),
                np.uint64(1) << (b_arr % np.uint64(WORD_BITS)),
            )
        return out
