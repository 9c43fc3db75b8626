"""Label selectors with apimachinery's semantics, and their compilation for the kernels.

Mirrors ``k8s.io/apimachinery/pkg/labels/selector.go`` (``internalSelector``,
``Requirement.Matches``, ``Nothing``, ``SelectorFromSet``, ``Add``) and
``k8s.io/apimachinery/pkg/apis/meta/v1/helpers.go`` (``LabelSelectorAsSelector``).
The Kubernetes subtleties are decided here, once:

* a nil *map* selector and an empty one both become ``Everything()`` (``SelectorFromSet``);
* a nil ``LabelSelector`` is ``Nothing()`` (matches nothing, ``Requirements()`` not ok),
  an empty one ``Everything()``;
* ``Empty()`` means "no requirements": ``Everything()`` is empty, ``Nothing()`` is not;
* ``Add`` on ``Nothing()`` stays ``Nothing()``.

:class:`SelectorSpace` compiles requirement lists for the kernels: over the label columns
of the keys they mention (:mod:`kscore_fast.model.labels`), in a space of local value ids
that only tells the mentioned values apart.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from .labels import ABSENT, LabelColumns, UndeclaredLabelKey

IN = "in"
NOT_IN = "notin"
EQUALS = "="
EXISTS = "exists"
DOES_NOT_EXIST = "!"

#: metav1.LabelSelectorOperator → selection.Operator (LabelSelectorAsSelector)
LABEL_SELECTOR_OPERATORS = {
    "In": IN,
    "NotIn": NOT_IN,
    "Exists": EXISTS,
    "DoesNotExist": DOES_NOT_EXIST,
}


@dataclass(frozen=True)
class Requirement:
    """One ``key op values`` requirement (labels.Requirement)."""

    key: str
    op: str
    values: tuple[str, ...] = ()

    def matches(self, labels: Mapping[str, str]) -> bool:
        """``Requirement.Matches`` for the operators pod selectors use."""
        if self.op in (IN, EQUALS):
            return self.key in labels and labels[self.key] in self.values
        if self.op == NOT_IN:
            return self.key not in labels or labels[self.key] not in self.values
        if self.op == EXISTS:
            return self.key in labels
        if self.op == DOES_NOT_EXIST:
            return self.key not in labels
        raise ValueError(f"unsupported selector operator {self.op!r}")


@dataclass(frozen=True)
class Selector:
    """``labels.Selector``: requirements ANDed, or ``Nothing()``."""

    requirements: tuple[Requirement, ...] = ()
    nothing: bool = False

    @staticmethod
    def everything() -> Selector:
        return Selector()

    @staticmethod
    def nothing_selector() -> Selector:
        return Selector(nothing=True)

    @staticmethod
    def from_set(labels: Mapping[str, str] | None) -> Selector:
        """``labels.SelectorFromSet`` / ``Set.AsSelector``: one ``=`` per pair, sorted."""
        if not labels:
            return Selector()
        return Selector(tuple(Requirement(k, EQUALS, (labels[k],)) for k in sorted(labels)))

    def add(self, reqs: Iterable[Requirement]) -> Selector:
        """``internalSelector.Add``: append and sort by key (stable); no-op on Nothing."""
        if self.nothing:
            return self
        return Selector(tuple(sorted((*self.requirements, *reqs), key=lambda r: r.key)))

    def empty(self) -> bool:
        """``Selector.Empty()``."""
        return not self.nothing and not self.requirements

    def matches(self, labels: Mapping[str, str]) -> bool:
        """``Selector.Matches``."""
        if self.nothing:
            return False
        return all(r.matches(labels) for r in self.requirements)


@dataclass(frozen=True)
class LabelSelector:
    """``metav1.LabelSelector`` (already validated by the loader)."""

    match_labels: tuple[tuple[str, str], ...] = ()
    match_expressions: tuple[tuple[str, str, tuple[str, ...]], ...] = ()

    def as_selector(self) -> Selector:
        """``metav1.LabelSelectorAsSelector`` for a non-nil selector."""
        if not self.match_labels and not self.match_expressions:
            return Selector.everything()
        reqs = [Requirement(k, EQUALS, (v,)) for k, v in self.match_labels]
        reqs += [
            Requirement(key, LABEL_SELECTOR_OPERATORS[op], tuple(values))
            for key, op, values in self.match_expressions
        ]
        return Selector().add(reqs)


def label_selector_as_selector(ls: LabelSelector | None) -> Selector:
    """``metav1.LabelSelectorAsSelector``: nil → ``Nothing()``."""
    return Selector.nothing_selector() if ls is None else ls.as_selector()


#: operator codes of compiled requirements (``CompiledRequirements.op``)
OP_IN, OP_NOT_IN, OP_EXISTS, OP_DOES_NOT_EXIST = 0, 1, 2, 3
_OP_CODES = {IN: OP_IN, EQUALS: OP_IN, NOT_IN: OP_NOT_IN, EXISTS: OP_EXISTS,
             DOES_NOT_EXIST: OP_DOES_NOT_EXIST}  # fmt: skip
#: local value ids of a :class:`SelectorSpace` (mentioned values are 2, 3, ...)
LOCAL_ABSENT, LOCAL_OTHER = 0, 1
#: "no requirement on this key" in the rows of :meth:`SelectorSpace.map_rows`
UNCONSTRAINED = -1


@dataclass(frozen=True)
class CompiledRequirements:
    """Requirement lists over a :class:`SelectorSpace`, one list per selector.

    Selector ``i`` has the requirements ``ptr[i]:ptr[i+1]``; requirement ``r`` tests the
    local value id in column ``key[r]`` with operator ``op[r]`` (``OP_*``) against the
    local ids ``vals[vptr[r]:vptr[r+1]]`` (``In``/``NotIn`` only).
    """

    ptr: np.ndarray
    key: np.ndarray
    op: np.ndarray
    vptr: np.ndarray
    vals: np.ndarray


class SelectorSpace:
    """Local value ids for a set of selectors over declared label keys.

    For each declared key (a column of ``keys``): :data:`LOCAL_ABSENT` (0) when an object
    lacks the key, :data:`LOCAL_OTHER` (1) for any value no selector mentions, and 2, 3,
    ... for the mentioned values (sorted). Selectors can only tell mentioned values apart,
    so projecting label columns into this space loses nothing they can see, and the
    space's size is bounded by the selectors, not by the objects.

    Raises :class:`~kscore_fast.model.labels.UndeclaredLabelKey` for a requirement on a
    key outside ``keys``.
    """

    def __init__(self, keys: Sequence[str], mentioned: Iterable[Requirement]) -> None:
        self.keys = tuple(keys)
        self._col = {k: j for j, k in enumerate(self.keys)}
        values: list[set[str]] = [set() for _ in self.keys]
        for r in mentioned:
            values[self.column(r.key)].update(r.values)
        self._local = [{v: 2 + i for i, v in enumerate(sorted(vs))} for vs in values]
        self._projected: dict[int, tuple[LabelColumns, np.ndarray]] = {}

    def column(self, key: str) -> int:
        j = self._col.get(key)
        if j is None:
            raise UndeclaredLabelKey(
                f"label key {key!r} was not declared (declared: {', '.join(self.keys) or 'none'})"
            )
        return j

    @property
    def signature(self) -> tuple:
        """What determines :meth:`project` (keys and mentioned values): spaces of equal
        signatures project label columns alike."""
        return (self.keys, tuple(tuple(local) for local in self._local))

    @property
    def sizes(self) -> np.ndarray:
        """int64[K]: how many local ids each key has (absent, other, mentioned values)."""
        return np.array([2 + len(m) for m in self._local], dtype=np.int64)

    def local(self, key: str, value: str) -> int:
        """The local id of a mentioned ``key=value`` (:data:`LOCAL_OTHER` otherwise)."""
        return self._local[self.column(key)].get(value, LOCAL_OTHER)

    def project(self, columns: LabelColumns) -> np.ndarray:
        """int32[n, K] local ids of label columns built for this space's keys (kept once
        computed: spaces and columns never change)."""
        cached = self._projected.get(id(columns))
        if cached is not None:
            return cached[1]
        out = self._project(columns)
        self._projected[id(columns)] = (columns, out)  # (holding columns keeps its id)
        return out

    def _project(self, columns: LabelColumns) -> np.ndarray:
        if columns.keys != self.keys:
            raise UndeclaredLabelKey(
                f"label columns for {columns.keys} do not match the selectors' keys {self.keys}"
            )
        vid = columns.interner.value_id
        out = np.where(columns.values == ABSENT, LOCAL_ABSENT, LOCAL_OTHER).astype(np.int32)
        for j, local in enumerate(self._local):
            known = [(vid[v], loc) for v, loc in local.items() if v in vid]
            if not known:
                continue
            ids, locs = np.array(sorted(known), dtype=np.int64).T
            col = columns.values[:, j]
            pos = np.minimum(np.searchsorted(ids, col), len(ids) - 1)
            hit = ids[pos] == col
            out[hit, j] = locs[pos[hit]]
        return out

    def compile(self, selectors: Sequence[Sequence[Requirement]]) -> CompiledRequirements:
        """Compile requirement lists (every value must have been mentioned)."""
        ptr = np.zeros(len(selectors) + 1, dtype=np.int64)
        key: list[int] = []
        op: list[int] = []
        vptr = [0]
        vals: list[int] = []
        for i, reqs in enumerate(selectors):
            for r in reqs:
                code = _OP_CODES.get(r.op)
                if code is None:
                    raise ValueError(f"unsupported selector operator {r.op!r}")
                j = self.column(r.key)
                key.append(j)
                op.append(code)
                if code in (OP_IN, OP_NOT_IN):
                    vals.extend(self._local[j][v] for v in r.values)
                vptr.append(len(vals))
            ptr[i + 1] = len(key)
        return CompiledRequirements(
            ptr,
            np.asarray(key, dtype=np.int32),
            np.asarray(op, dtype=np.int8),
            np.asarray(vptr, dtype=np.int64),
            np.asarray(vals, dtype=np.int32),
        )

    def map_rows(self, selectors: Sequence[Mapping[str, str]]) -> np.ndarray:
        """int32[n, K]: the local id each ``labels.Set`` selector requires per key
        (:data:`UNCONSTRAINED` where it has none); every pair must have been mentioned."""
        out = np.full((len(selectors), len(self.keys)), UNCONSTRAINED, dtype=np.int32)
        for i, sel in enumerate(selectors):
            for k, v in sel.items():
                j = self.column(k)
                out[i, j] = self._local[j][v]
        return out


def set_requirements(labels: Mapping[str, str]) -> tuple[Requirement, ...]:
    """The requirements of ``labels.SelectorFromSet(labels)`` (``=`` per pair)."""
    return Selector.from_set(labels).requirements
