"""Work shared between pods of a batch: scores computed once and copied, raw scores kept
in rows on every node. The rules come from the plugins' declared capabilities
(:class:`.interface.Plugin`), never from their names:

* pods of one *copy class* (:func:`copy_classes`) get equal raw and normalized scores from
  every score plugin of the profile on equal node lists: one of them is scored per list,
  the others copy (:func:`score_chunk`);
* pods of one *row group* of a plugin (:class:`TwinRows`) get equal raw scores from it on
  every node, whatever their lists: the plugin scores the group once on every node, and
  each pod is normalized over its own list.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import Any

import numpy as np

from .. import _jit
from .._jit import inline_kernel, kernel, run_threaded, split_work
from ..model.rows import unique_rows
from . import arrays
from .scoring import fill_rows, score_todo
from .selection import select_copies

#: no pods (an empty int64 array, never written)
_NONE = np.zeros(0, dtype=np.int64)


@kernel
def twins_of(twin, n_twin, ptr, nodes):  # pragma: no cover - compiled
    """The chunk pods to score (``todo``) and those that copy an earlier twin
    (``model.snapshot.pod_twins``) with the same node list (``copies``, from ``source``)."""
    leader = np.full(n_twin, -1, dtype=np.int64)
    n = twin.shape[0]
    todo = np.empty(n, dtype=np.int64)
    copies = np.empty(n, dtype=np.int64)
    source = np.empty(n, dtype=np.int64)
    n_todo = 0
    n_copies = 0
    for i in range(n):
        j = leader[twin[i]]
        if j >= 0 and _same_list(nodes, ptr[j], ptr[j + 1], ptr[i], ptr[i + 1]):
            copies[n_copies] = i
            source[n_copies] = j
            n_copies += 1
        else:
            leader[twin[i]] = i
            todo[n_todo] = i
            n_todo += 1
    return todo[:n_todo], copies[:n_copies], source[:n_copies]


@kernel
def copy_twins(
    copies, source, ptr, raw, norm_u8, base, keep, total, best, count, bad_plugin, bad_value
):  # pragma: no cover - compiled
    """Give each pod of ``copies`` the best total, its count and the failure of its twin
    ``source``; with ``keep``, its totals and per-plugin scores too (else its entries
    stay unwritten: the host is picked from the source's, ``selection.select_copies``)."""
    for q in range(copies.shape[0]):
        i = copies[q]
        j = source[q]
        n = ptr[i + 1] - ptr[i]
        dst = base + ptr[i]
        src = base + ptr[j]
        if keep:
            for k in range(raw.shape[0]):
                _copy(raw[k, dst : dst + n], raw[k, src : src + n])
                _copy(norm_u8[k, dst : dst + n], norm_u8[k, src : src + n])
            _copy(total[ptr[i] : ptr[i] + n], total[ptr[j] : ptr[j] + n])
        best[i] = best[j]
        count[i] = count[j]
        bad_plugin[i] = bad_plugin[j]
        bad_value[i] = bad_value[j]


@inline_kernel
def _copy(dst, src):  # pragma: no cover - compiled
    """``dst[:] = src`` (one loop the compiler vectorizes; a slice assignment would make
    numba compile its shape-error formatting, see ``_jit``)."""
    for e in range(src.shape[0]):
        dst[e] = src[e]


@inline_kernel
def _same_list(nodes, ja, jb, a, b):  # pragma: no cover - compiled
    """The entries ``[ja, jb)`` and ``[a, b)`` of ``nodes`` are equal (compared 64 at a
    time without a branch, on slices, which the compiler vectorizes: ~5x faster)."""
    n = b - a
    if jb - ja != n:
        return False
    x, y = nodes[ja:jb], nodes[a:b]
    for lo in range(0, n, 64):
        differ = 0
        for e in range(lo, min(n, lo + 64)):
            differ |= x[e] ^ y[e]
        if differ != 0:
            return False
    return True


def score_chunk(sids: np.ndarray, weights: np.ndarray, table: np.ndarray,
                pods: np.ndarray, twins: np.ndarray, rows: TwinRows, ptr: np.ndarray,
                nodes: np.ndarray, raw: np.ndarray, norm_u8: np.ndarray, base: int,
                keep: bool, total: np.ndarray, best: np.ndarray, count: np.ndarray,
                bad_plugin: np.ndarray, bad_value: np.ndarray, seed: np.uint64,
                hosts: np.ndarray, totals_read: bool = True,
                windows: np.ndarray = _NONE) -> np.ndarray:  # fmt: skip
    """``prioritizeNodes`` and ``selectHost`` for the chunk's pods: pods of one copy
    class (``twins``: the pods' :func:`copy_classes`) on the same node list are scored
    once and copied, twins on other lists take their raw scores from ``rows``; the pods
    to score are split across threads by entries (``raw``, ``norm_u8``: whole buffers,
    the chunk's entries from column ``base``; ``keep``: copies get the totals and the
    per-plugin scores, else only ``best``, ``count``, ``bad_plugin``, ``bad_value``).
    Every pod whose scores are in range gets its host in ``hosts`` (tie ``draw(seed,
    pods[i], ...)``). ``total`` is written only when the caller reads it after
    (``totals_read``: the top K are kept) or copies need it. Returns int64[C]: the chunk
    pod each pod copies (-1: scored itself), whose entries hold its totals when not
    ``keep``. ``windows``: the lists the search left unwritten (``search.search_chunk``),
    which ``score_todo`` writes: none when pods copy others (their lists are compared)."""
    if len(pods) > 1 and not len(windows):
        local, twin = np.unique(twins, return_inverse=True)
        twin = twin.reshape(-1).astype(np.int64)
        todo, copies, source = twins_of(twin, len(local), ptr, nodes)
    else:  # (a lone pod, or lists left to the scoring: no pod copies another)
        todo, copies, source = np.arange(len(pods), dtype=np.int64), _NONE, _NONE
    row_of = rows.rows_for(table, pods, todo)
    per_pod = (best, count, bad_plugin, bad_value)
    args = (sids, weights, table, pods, ptr, nodes, raw, norm_u8, base, total, *per_pod,
            row_of, rows.raw, rows.n_all, rows.const, rows.const_ok, rows.row_ok, keep, seed,
            hosts, not totals_read and not len(copies), windows)  # fmt: skip
    if int(ptr[-1]) < _jit.PARALLEL_MIN_WORK:  # (one thread: no split)
        score_todo(todo, *args)
        work_done = int(ptr[-1])
    else:
        work = np.zeros(len(todo) + 1, dtype=np.int64)
        np.cumsum(ptr[todo + 1] - ptr[todo], out=work[1:])
        work_done = int(work[-1])
        run_threaded([partial(score_todo, todo[a:b], *args)
                      for a, b in split_work(work, work_done)])  # fmt: skip
    source_of = arrays.full(len(pods), -1, np.int64)
    if len(copies):
        copy_twins(copies, source, ptr, raw, norm_u8, base, keep, total, *per_pod)
        source_of[copies] = source
        select_copies.pick(len(copies) + work_done // 4)(
            ptr, nodes, total, best, count, seed, pods, source_of, hosts
        )
    return source_of


def copy_classes(plugins: Sequence[Any], states: Sequence[tuple[Any, ...]], twins: np.ndarray,
                 spec: np.ndarray | None = None) -> np.ndarray:  # fmt: skip
    """int64[B]: pods of one class get equal raw and normalized scores from every score
    plugin (``plugins``, with their ``states``) on equal node lists, so ``score_chunk``
    scores one of them per list and copies. Twins (``pod_twins``) always do; so do pods of
    one ``spec`` group (``spec_twins``) for a ``spec_only`` plugin; a plugin whose
    ``copy_groups(state)`` gives groups (int64[B]: equal ids ≥ 0 score and normalize
    equally whatever else differs; -1: the pod's twins only) lets pods that differ
    elsewhere share too (SelectorSpread: pods with one default selector)."""
    if len(twins) < 2:
        return twins
    columns: list[np.ndarray] = []
    for plugin, state in zip(plugins, states, strict=True):
        groups = plugin.copy_groups(state)
        if spec is not None and plugin.spec_only:
            column = spec
        elif groups is None:
            column = twins
        else:
            g = np.asarray(groups, dtype=np.int64)
            column = np.where(g >= 0, g, -1 - twins)
        if not any(c is column or np.array_equal(c, column) for c in columns):
            columns.append(column)
    if len(columns) < 2:  # (any ids do: score_chunk ranks them)
        return columns[0] if columns else twins
    return unique_rows(np.column_stack(columns))[1]


#: raw scores of twins on every node kept for a run up to this many entries (64 MB)
ROW_ENTRIES = 1 << 23
#: see ``TwinRows``
ROW_SHARE = 2


def normalizes_equal_equally(plugins: Sequence[Any]) -> np.ndarray:
    """bool[K]: score plugin ``plugins[k]`` gives equal normalized scores to equal raw
    scores, whatever the list (no NormalizeScore, or ``constant_normalize``)."""
    return np.array([not p.normalizes or p.constant_normalize for p in plugins],
                    dtype=np.bool_).reshape(-1)  # fmt: skip


class TwinRows:
    """Raw scores on every node of the batch's pods that share them, filled as they are
    first needed and kept for the run (nothing is assumed in a batch run): pods on
    different node lists (rotating windows) are each normalized over their own list from
    the same row. Per score plugin (rows ``sids`` of the plugin table; ``plugins`` and
    ``states`` in the same order), pods share a row when they are twins and the plugin is
    ``row_independent``, when its ``score_groups(state)`` gives them one group (int64[B]:
    equal ids, equal raw scores on every node; -1: the pod's scores depend on its node
    list), or, for a ``spec_only`` plugin, when they are of one ``spec`` group
    (``spec_twins``). ``const_ok``: ``normalizes_equal_equally(plugins)``, when known."""

    def __init__(self, sids: np.ndarray, plugins: Sequence[Any], states: Sequence[tuple],
                 twins: np.ndarray, n_nodes: int, num_to_find: int | None = None,
                 spec: np.ndarray | None = None, const_ok: np.ndarray | None = None
                 ) -> None:  # fmt: skip
        self.sids, self.n_all = sids, max(n_nodes, 1)
        #: a group gets a row when its pods' lists hold ROW_SHARE times the row's entries
        need = 2 if num_to_find is None else max(2, -(-ROW_SHARE * self.n_all // num_to_find))
        #: per *family* of plugins sharing their groups (the twins, or one plugin's own
        #: ``score_groups``): the plugins (bool[K]), each pod's group (-1: no row), the
        #: groups given a row (≥ ``need`` pods) and each one's row once filled (in filling order:
        #: the rows a chunk needs are consecutive, filled in place)
        self.members: list[np.ndarray] = []
        self.groups: list[np.ndarray] = []
        pairs = zip(plugins, states, strict=True) if len(twins) >= need else ()  # (else no row)
        for k, (plugin, state) in enumerate(pairs):
            groups = plugin.score_groups(state)
            if groups is not None:
                self._family(k, np.asarray(groups, dtype=np.int64))
            elif spec is not None and plugin.spec_only:
                self._family(k, spec, joined=True)
            elif plugin.row_independent:
                self._family(k, twins, shared=True)
        cap = ROW_ENTRIES // (self.n_all * max(len(sids), 1))
        self.shared, self.row_of = [], []
        for g in self.groups:
            counts = np.bincount(g[g >= 0], minlength=int(g.max(initial=-1)) + 1)
            shared = np.zeros(len(counts), dtype=np.bool_)
            shared[np.flatnonzero(counts >= need)[:cap]] = True
            self.shared.append(shared)
            self.row_of.append(np.full(len(counts), -1, dtype=np.int64))
        n_rows = max((int(sh.sum()) for sh in self.shared), default=0)
        self.n_filled = [0] * len(self.groups)
        self.raw = np.empty((len(sids), n_rows * self.n_all), dtype=np.int64)
        #: bool[K, rows]: the row holds one value on every node
        self.const = np.zeros((len(sids), max(n_rows, 1)), dtype=np.bool_)
        #: bool[K]: the plugin gives equal normalized scores to equal raw scores, whatever
        #: the list (no NormalizeScore, or ``constant_normalize``): a pod whose row is
        #: constant is normalized once (``scoring.plugin_pass``)
        self.const_ok = normalizes_equal_equally(plugins) if const_ok is None else const_ok
        #: bool[K]: some pods take the plugin's raw scores from rows
        self.row_ok = np.zeros(len(sids), dtype=np.bool_)
        for members in self.members:
            self.row_ok |= members

    def _family(self, k: int, groups: np.ndarray, shared: bool = False,
                joined: bool = False) -> None:  # fmt: skip
        """Plugin ``k`` into the family of ``groups``: the twins' one when ``shared`` (kept
        first), one family for every plugin given these very groups when ``joined``, else
        a family of its own."""
        if shared or joined:
            for members, mine in zip(self.members, self.groups, strict=True):
                if mine is groups:
                    members[k] = True
                    return
        members = np.zeros(len(self.sids), dtype=np.bool_)
        members[k] = True
        if shared:  # the twins' family first
            self.members.insert(0, members)
            self.groups.insert(0, groups)
        else:
            self.members.append(members)
            self.groups.append(groups)

    def rows_for(self, table: np.ndarray, pods: np.ndarray, todo: np.ndarray) -> np.ndarray:
        """int64[K, C]: the row of each chunk pod per plugin (-1: scored on its own list),
        with the rows the chunk's pods to score need filled."""
        out = arrays.full((len(self.sids), len(pods)), -1, np.int64)
        if not self.members:  # (no plugin shares rows this run)
            return out
        for f, members in enumerate(self.members):
            shared, row_of = self.shared[f], self.row_of[f]
            if not shared.any():
                continue
            groups = self.groups[f][pods]
            has = groups >= 0
            has[has] = shared[groups[has]]
            groups = np.where(has, groups, 0)
            missing = has[todo] & (row_of[groups[todo]] < 0)
            need, first = np.unique(groups[todo][missing], return_index=True)
            if len(need):
                self._fill(table, f, need, pods[todo[missing][first]])
            rows = np.where(has, row_of[groups], -1)
            out[members] = rows
        return out

    def _fill(self, table: np.ndarray, f: int, need: np.ndarray, reps: np.ndarray) -> None:
        """Rows of family ``f``'s groups ``need`` (representative pods ``reps``)."""
        start = self.n_filled[f]
        self.row_of[f][need] = start + np.arange(len(need))
        self.n_filled[f] += len(need)
        members = self.members[f]
        work = np.arange(len(need) + 1, dtype=np.int64) * self.n_all * int(members.sum())
        run_threaded([partial(fill_rows, self.sids, table, reps[a:b], self.n_all, self.raw,
                              members, np.int64(start + a), self.const)
                      for a, b in split_work(work, int(work[-1]))])  # fmt: skip
