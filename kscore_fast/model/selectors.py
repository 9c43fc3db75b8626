"""Label selectors with apimachinery's semantics, and their bitmask compilation.

Mirrors ``k8s.io/apimachinery/pkg/labels/selector.go`` (``internalSelector``,
``Requirement.Matches``, ``Nothing``, ``SelectorFromSet``, ``Add``) and
``k8s.io/apimachinery/pkg/apis/meta/v1/helpers.go`` (``LabelSelectorAsSelector``).
The Kubernetes subtleties are decided here, once:

* a nil *map* selector and an empty one both become ``Everything()`` (``SelectorFromSet``);
* a nil ``LabelSelector`` is ``Nothing()`` (matches nothing, ``Requirements()`` not ok),
  an empty one ``Everything()``;
* ``Empty()`` means "no requirements": ``Everything()`` is empty, ``Nothing()`` is not;
* ``Add`` on ``Nothing()`` stays ``Nothing()``.

:func:`compile_requirements` turns requirement lists into ``(any_of, mask)`` rows over a
:class:`~kscore_fast.model.labels.LabelVocab`: ``In``/``=`` and ``Exists`` need *any* bit
of their mask, ``NotIn`` and ``DoesNotExist`` need *none*.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from .labels import LabelVocab

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


@dataclass(frozen=True)
class CompiledRequirements:
    """Requirement lists as bitmask rows, one list per selector.

    ``ptr`` (int64[n+1]) delimits the requirements of selector ``i`` in ``any_of``
    (bool[R]) and ``mask`` (uint64[R, W]).
    """

    ptr: np.ndarray
    any_of: np.ndarray
    mask: np.ndarray


def compile_requirements(
    selectors: Sequence[Sequence[Requirement]], vocab: LabelVocab, n_words: int
) -> CompiledRequirements:
    """Compile requirement lists against ``vocab`` (see module docstring)."""
    ptr = np.zeros(len(selectors) + 1, dtype=np.int64)
    rows: list[np.ndarray] = []
    any_of: list[bool] = []
    for i, reqs in enumerate(selectors):
        for r in reqs:
            if r.op in (IN, EQUALS, NOT_IN):
                bits = [b for b in (vocab.bit(r.key, v) for v in r.values) if b is not None]
                rows.append(vocab.mask(bits, n_words))
            elif r.op in (EXISTS, DOES_NOT_EXIST):
                rows.append(vocab.key_mask([r.key], n_words))
            else:
                raise ValueError(f"unsupported selector operator {r.op!r}")
            any_of.append(r.op in (IN, EQUALS, EXISTS))
        ptr[i + 1] = len(rows)
    mask = np.stack(rows) if rows else np.zeros((0, n_words), dtype=np.uint64)
    return CompiledRequirements(ptr, np.asarray(any_of, dtype=np.bool_), mask)
