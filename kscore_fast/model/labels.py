"""Label sets, columnar: interned keys and values, and per-key value-id columns.

A cluster's label strings are interned once (:class:`LabelInterner`: key ids and value
ids, shared by every table of the cluster). The label sets of a group of objects are one
:class:`LabelTable`: for object ``i`` the entries ``ptr[i]:ptr[i+1]`` of ``key`` and
``value`` (int32 ids), so memory is linear in the number of labels whatever their values
(a StatefulSet's ``statefulset.kubernetes.io/pod-name`` is unique per pod, a ReplicaSet's
``pod-template-hash`` per ReplicaSet: neither multiplies anything).

A plugin reads labels through :meth:`LabelTable.columns` for the keys it *declares*:
``int32[n, K]``, one value id per (object, key), :data:`ABSENT` where the object lacks the
key (an object has at most one value per key). Selectors are compiled against such
columns (:mod:`kscore_fast.model.selectors`), and compiling a selector that mentions an
undeclared key raises :class:`UndeclaredLabelKey` instead of reading it as absent.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import chain, count, islice

import numpy as np

#: value id of a key an object does not carry
ABSENT = -1


class UndeclaredLabelKey(LookupError):
    """A selector mentions a label key its columns were not built for (a plugin bug:
    every key a plugin reads must be declared when it asks for columns)."""


class LabelInterner:
    """Ids of label keys and of label values (values are interned across keys)."""

    __slots__ = ("key_id", "keys", "value_id", "values")

    def __init__(self) -> None:
        self.key_id: dict[str, int] = {}
        self.keys: list[str] = []
        self.value_id: dict[str, int] = {}
        self.values: list[str] = []

    def table(self, label_sets: Iterable[Mapping[str, str]]) -> LabelTable:
        """Intern every label of ``label_sets`` (one mapping per object).

        Written with C-level iteration (``chain``, ``map``; the values with a comprehension,
        faster than chaining ``values()`` views; each string's id looked up, or given the
        next one, in one pass): this runs once per label of the cluster.
        """
        sets = list(label_sets)
        keys = list(chain.from_iterable(sets))
        values = [v for labels in sets for v in labels.values()]
        ptr = np.zeros(len(sets) + 1, dtype=np.int64)
        np.cumsum(np.fromiter(map(len, sets), np.int64, len(sets)), out=ptr[1:])
        return LabelTable(
            self, ptr, _ids(self.keys, self.key_id, keys), _ids(self.values, self.value_id, values)
        )


def _ids(strings: list[str], ids: dict[str, int], new: list[str]) -> np.ndarray:
    """int32 ids of the strings of ``new``, those without one given the next ids in order
    of first appearance (``strings`` and ``ids`` grow)."""
    n = len(strings)
    growing = defaultdict(count(n).__next__, ids)  # (a copy: ids never grow unasked)
    got = np.fromiter(map(growing.__getitem__, new), np.int32, len(new))
    fresh = list(islice(growing, n, None))
    ids.update(zip(fresh, range(n, n + len(fresh)), strict=True))
    strings.extend(fresh)
    return got


@dataclass(frozen=True, eq=False)
class LabelColumns:
    """``values[i, j]``: the value id of ``keys[j]`` on object ``i`` (:data:`ABSENT`)."""

    interner: LabelInterner
    keys: tuple[str, ...]
    values: np.ndarray

    def column(self, key: str) -> int:
        """The column of ``key``; raises :class:`UndeclaredLabelKey` if not declared."""
        try:
            return self.keys.index(key)
        except ValueError:
            raise UndeclaredLabelKey(
                f"label key {key!r} was not declared (declared: {', '.join(self.keys)})"
            ) from None


@dataclass(frozen=True, eq=False)
class LabelTable:
    """The label sets of ``n`` objects as interned (key, value) entries (CSR by object).

    Immutable: ids never change as the interner grows, so columns are kept once built.
    """

    interner: LabelInterner
    ptr: np.ndarray
    key: np.ndarray
    value: np.ndarray
    _columns: dict[tuple[str, ...], LabelColumns] = field(default_factory=dict, repr=False)

    def __len__(self) -> int:
        return len(self.ptr) - 1

    def columns(self, keys: Sequence[str]) -> LabelColumns:
        """``int32[n, len(keys)]`` value ids of the declared ``keys`` (built once)."""
        keys = tuple(keys)
        cached = self._columns.get(keys)
        if cached is None:
            cached = self._columns[keys] = self._build_columns(keys)
        return cached

    def _build_columns(self, keys: tuple[str, ...]) -> LabelColumns:
        n_ids = len(self.interner.keys)
        col_of = np.full(n_ids + 1, -1, dtype=np.int64)  # +1: never empty
        for j, k in enumerate(keys):
            kid = self.interner.key_id.get(k)
            if kid is not None:
                col_of[kid] = j
        out = np.full((len(self), len(keys)), ABSENT, dtype=np.int32)
        if keys:
            cols = col_of[self.key]
            hit = cols >= 0
            rows = np.repeat(np.arange(len(self), dtype=np.int64), np.diff(self.ptr))
            out[rows[hit], cols[hit]] = self.value[hit]
        return LabelColumns(self.interner, keys, out)
