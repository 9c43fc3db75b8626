"""InterPodAffinity's terms compiled for the kernels (the vocabulary of ``kernels``).

:class:`Registry` interns, in the order met, compiled label selectors, resolved terms
(selector and accepted namespaces), counters (resolved terms ANDed, topology key) and
existing terms (kind, resolved term, topology key); :func:`resolve_namespaces` decides
which namespaces a term accepts, the two ways the Go plugin matches them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from ...model.objects import PodAffinityTerm
from ...model.selectors import Requirement, Selector, SelectorSpace, label_selector_as_selector
from .reference import term_namespaces

#: kinds of existing terms
ANTI, SCORE = True, False


def resolve_namespaces(
    term: PodAffinityTerm,
    pod_ns: str,
    incoming: bool,
    namespace_labels: Mapping[str, Mapping[str, str]],
    namespaces: Sequence[str],
    enabled: bool,
) -> tuple[bool, tuple[int, ...]]:
    """(every namespace, the ids in ``namespaces`` otherwise) a term of a pod in
    ``pod_ns`` accepts.

    ``incoming``: the scheduled pod's term, its namespace selector merged into the
    namespaces (``mergeAffinityTermNamespacesIfNotEmpty``: Namespace objects whose labels
    match; an empty selector matches every namespace). Otherwise an existing pod's term,
    matched against the incoming pod's namespace labels (``GetNamespaceLabelsSnapshot``:
    no labels for a namespace without object).
    """
    names = term_namespaces(pod_ns, term)
    selector = label_selector_as_selector(term.namespace_selector)
    if enabled and selector.empty():
        return True, ()
    ids = {i for i, ns in enumerate(namespaces) if ns in names}
    if enabled and not selector.nothing:
        if incoming:
            listed = {name for name, labels in namespace_labels.items() if selector.matches(labels)}
            ids.update(i for i, ns in enumerate(namespaces) if ns in listed)
        else:
            ids.update(
                i for i, ns in enumerate(namespaces)
                if selector.matches(namespace_labels.get(ns) or {})
            )  # fmt: skip
    return False, tuple(sorted(ids))


class Registry:
    """Selectors, resolved terms, counters and existing terms, each interned once."""

    def __init__(self, topology_keys: Sequence[str], space: SelectorSpace) -> None:
        self.key_col = {k: j for j, k in enumerate(topology_keys)}
        self.space = space
        self._sels: dict[tuple[Requirement, ...], int] = {}
        self._rts: dict[tuple, int] = {}
        self.rt_sel: list[int] = []
        self.rt_ns: list[tuple[bool, tuple[int, ...]]] = []
        self._counters: dict[tuple, int] = {}
        self.cnt_rts: list[tuple[int, ...]] = []
        self.cnt_key: list[int] = []
        self._xts: dict[tuple, int] = {}
        self.xt_rt: list[int] = []
        self.xt_key: list[int] = []
        self.xt_anti: list[bool] = []

    def rterm(self, selector: Selector, ns: tuple[bool, tuple[int, ...]]) -> int:
        if selector.nothing:
            sid = -1
        else:
            sid = self._sels.setdefault(selector.requirements, len(self._sels))
        key = (sid, ns)
        rt = self._rts.get(key)
        if rt is None:
            rt = self._rts[key] = len(self.rt_sel)
            self.rt_sel.append(sid)
            self.rt_ns.append(ns)
        return rt

    def counter(self, rts: tuple[int, ...], topology_key: str) -> int:
        key = (rts, self.key_col[topology_key])
        c = self._counters.get(key)
        if c is None:
            c = self._counters[key] = len(self.cnt_key)
            self.cnt_rts.append(rts)
            self.cnt_key.append(key[1])
        return c

    def existing(self, anti: bool, rt: int, topology_key: str) -> int:
        key = (anti, rt, self.key_col[topology_key])
        x = self._xts.get(key)
        if x is None:
            x = self._xts[key] = len(self.xt_rt)
            self.xt_rt.append(rt)
            self.xt_key.append(key[2])
            self.xt_anti.append(anti)
        return x

    def terms(self) -> tuple[np.ndarray, ...]:
        """The ``terms`` tuple of the kernels' state."""
        sels = [list(reqs) for reqs in self._sels]
        compiled = self.space.compile(sels)
        ns_ptr, ns_ids = csr([ids for _, ids in self.rt_ns], np.int32)
        return (
            compiled.ptr, compiled.key, compiled.op, compiled.vptr, compiled.vals,
            np.asarray(self.rt_sel, np.int64).reshape(-1),
            np.asarray([a for a, _ in self.rt_ns], np.bool_).reshape(-1), ns_ptr, ns_ids,
        )  # fmt: skip


def csr(rows: Sequence[Sequence[int]], dtype: type = np.int64) -> tuple[np.ndarray, np.ndarray]:
    """(ptr int64[n+1], flat values) of ragged rows."""
    ptr = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum(np.fromiter(map(len, rows), np.int64, len(rows)), out=ptr[1:])
    flat = np.fromiter((v for r in rows for v in r), dtype, int(ptr[-1]))
    return ptr, flat


def domain_offsets(keys: Sequence[int], n_dom: np.ndarray) -> np.ndarray:
    """int64[n+1]: offsets of per-domain blocks, one block per entry of ``keys``."""
    off = np.zeros(len(keys) + 1, dtype=np.int64)
    if len(keys):
        np.cumsum(n_dom[np.asarray(keys, dtype=np.int64)], out=off[1:])
    return off
