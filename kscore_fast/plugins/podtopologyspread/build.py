"""The kernels' state (layout: ``kernels``) from a snapshot and a batch.

Per pending pod, its DoNotSchedule and ScheduleAnyway constraints (its own, or the
default ones with its ``DefaultSelector``) are interned: selectors as (namespace,
``Selector``), PreFilter states as (constraints' keys and selectors, node affinity
group), PreScore groups as (constraints, affinity group, ``requireAllTopologies``); pods
with equal inputs share them. Then, in compiled code: each selector's matching existing
pods per node, counted once over pod *signatures* (namespace, label values the selectors
can tell apart) and added to every counter that uses the selector; each pending pod's
matched selectors (for ``assume`` and the self-match of Filter).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import numpy as np

from ...model.rows import unique_rows
from ...model.selectors import Selector, SelectorSpace, label_selector_as_selector
from ...model.snapshot import ClusterSnapshot, PodBatch, pod_twins, twin_firsts
from ..helper import counter_table as ct
from ..helper.twins import Interner, shape_rows
from ..nodeaffinity.plugin import NodeAffinity
from . import kernels as k
from .args import DO_NOT_SCHEDULE, LABEL_HOSTNAME, SCHEDULE_ANYWAY
from .defaults import default_selectors
from .reference import Constraint, filter_topology_spread_constraints

I64 = np.int64
I32 = np.int32


class _Builder:
    """Collects the interned constraints of the batch, pod by pod."""

    def __init__(self, system_defaulted: bool) -> None:
        self.system_defaulted = system_defaulted
        self.keys, self.selectors = Interner(), Interner()
        self.fstates, self.sgroups = Interner(), Interner()
        # filter entries: (state, key) → entry; per entry its key, affinity and key set
        self.entries: dict[tuple[int, int], int] = {}
        self.fe_key: list[int] = []
        self.fe_aff: list[int] = []
        self.fe_keys: list[tuple[int, ...]] = []
        self.uses: list[tuple[int, int, int]] = []  # (selector, kind, index)
        self.sg_rows: list[list[tuple[int, int, int, bool]]] = []  # (key, skew, idx, host)
        self.sg_reqall: list[bool] = []
        self.sg_aff: list[int] = []
        self.se_group: list[int] = []
        self.se_key: list[int] = []
        self.hrows: dict[int, int] = {}

    def filter_rows(self, ns: int, cs: Sequence[Constraint], aff: int) -> list[tuple]:
        """The pod's (key, entry, skew, selector) rows of its DoNotSchedule constraints."""
        rows = [(self.keys(c.topology_key), self.selectors((ns, c.selector)), c.max_skew)
                for c in cs]  # fmt: skip
        n_states = len(self.fstates)
        f = self.fstates((tuple((key, sid) for key, sid, _ in rows), aff))
        if f == n_states:  # a new PreFilter state: its entries and their selectors' uses
            key_set = tuple(dict.fromkeys(key for key, _, _ in rows))
            for key in key_set:
                self.entries[(f, key)] = len(self.fe_key)
                self.fe_key.append(key)
                self.fe_aff.append(aff)
                self.fe_keys.append(key_set)
            self.uses += [(sid, k.USE_FILTER, self.entries[(f, key)]) for key, sid, _ in rows]
        return [(key, self.entries[(f, key)], skew, sid) for key, sid, skew in rows]

    def score_group(self, ns: int, cs: Sequence[Constraint], aff: int, reqall: bool) -> int:
        rows = [(self.keys(c.topology_key), self.selectors((ns, c.selector)), c.max_skew,
                 c.topology_key == LABEL_HOSTNAME) for c in cs]  # fmt: skip
        n_groups = len(self.sgroups)
        g = self.sgroups((tuple(rows), aff, reqall))
        if g < n_groups:
            return g
        entry: dict[int, int] = {}
        out = []
        for key, sid, skew, host in rows:
            if host:
                idx = self.hrows.get(sid)
                if idx is None:
                    idx = self.hrows[sid] = len(self.hrows)
                    self.uses.append((sid, k.USE_HOST, idx))
            else:
                idx = entry.get(key)
                if idx is None:
                    idx = entry[key] = len(self.se_key)
                    self.se_group.append(g)
                    self.se_key.append(key)
                self.uses.append((sid, k.USE_SCORE, idx))
            out.append((key, skew, idx, host))
        self.sg_rows.append(out)
        self.sg_reqall.append(reqall)
        self.sg_aff.append(aff)
        return g


@functools.lru_cache(maxsize=16)
def _filtered_defaults(constraints: tuple) -> dict[str, list]:
    """The default constraints of each ``whenUnsatisfiable`` action (once per args; never
    written)."""
    return {a: filter_topology_spread_constraints(constraints, a)
            for a in (DO_NOT_SCHEDULE, SCHEDULE_ANYWAY)}  # fmt: skip


class _Shapes:
    """The pending pods' *shapes*: equal (constraints or default selector, namespace,
    node affinity group) give equal rows, built once per shape."""

    def __init__(self, builder: _Builder, ref: Any, snapshot: ClusterSnapshot, batch: PodBatch
                 ) -> None:  # fmt: skip
        self.builder = builder
        need_defaults = bool(ref.default_constraints) and not batch.has_spread_constraints.all()
        self.dgroup, self.dsel = default_selectors(snapshot, batch) if need_defaults else (None, [])
        self.defaults = _filtered_defaults(ref.default_constraints)
        self.selectors: dict[Any, Selector] = {}
        #: per shape: the filter rows (key, entry, skew, selector) and the score group
        self.filter_rows: list[list[tuple[int, int, int, int]]] = []
        self.group: list[int] = []

    def _selector(self, ls: Any) -> Selector:
        got = self.selectors.get(ls)
        if got is None:
            got = self.selectors[ls] = label_selector_as_selector(ls)
        return got

    def add(self, own: Sequence[Any], default: int, ns: int, aff: int) -> None:
        """A new shape: the pod's own constraints, else those of default selector group
        ``default`` (-1: none)."""
        if own:
            hard, soft = (filter_topology_spread_constraints(own, a, self._selector)
                          for a in (DO_NOT_SCHEDULE, SCHEDULE_ANYWAY))  # fmt: skip
        elif default >= 0:
            sel = self.dsel[default]
            hard, soft = ([Constraint(c.max_skew, c.topology_key, sel) for c in self.defaults[a]]
                          for a in (DO_NOT_SCHEDULE, SCHEDULE_ANYWAY))  # fmt: skip
        else:
            hard = soft = []
        b = self.builder
        reqall = bool(own) or not b.system_defaulted
        self.filter_rows.append(b.filter_rows(ns, hard, aff) if hard else [])
        self.group.append(b.score_group(ns, soft, aff, reqall) if soft else -1)


def _affinity_groups(na_state: tuple, firsts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each representative's affinity group (NodeAffinity's filter group, numbered in order
    of appearance; -1 where the pod has no nodeSelector nor required affinity) and the
    first representative pod of each group."""
    na_group, grp_map_term, grp_sel = na_state[12], na_state[13], na_state[14]
    g = na_group[firsts]
    has = (grp_map_term[g] >= 0) | (grp_sel[g] >= 0)
    aff = np.full(len(firsts), -1, dtype=I64)
    if not has.any():
        return aff, np.zeros(0, dtype=I64)
    _, first, inverse = np.unique(g[has], return_index=True, return_inverse=True)
    rank = np.empty(len(first), dtype=I64)
    rank[np.argsort(first)] = np.arange(len(first))
    aff[has] = rank[inverse.reshape(-1)]
    return aff, firsts[has][np.sort(first)]


def _pod_constraints(builder: _Builder, ref: Any, snapshot: ClusterSnapshot, batch: PodBatch
                     ) -> tuple[_Shapes, np.ndarray, np.ndarray]:  # fmt: skip
    """The shapes, each pod's shape, and ``aff_match`` (a row per affinity group)."""
    na_state = NodeAffinity().prepare(snapshot, batch)
    firsts, twins = twin_firsts(batch), pod_twins(batch)
    aff, aff_reps = _affinity_groups(na_state, firsts)
    shapes = _Shapes(builder, ref, snapshot, batch)
    dgroup = shapes.dgroup
    defaults = [-1] * len(firsts) if dgroup is None else dgroup[firsts].tolist()
    shape_of: dict[tuple, int] = {}
    rep_shape = []
    pods = batch.pods
    for p, ns, a, d in zip(firsts.tolist(), batch.ns[firsts].tolist(), aff.tolist(), defaults,
                           strict=True):  # twins get the same rows: once per group  # fmt: skip
        own = pods[p].topology_spread_constraints
        key = (own, ns, a) if own else (d, ns, a)
        sh = shape_of.setdefault(key, len(shape_of))
        if sh == len(shapes.group):
            shapes.add(own, d, ns, a)
        rep_shape.append(sh)
    pod_shape = np.asarray(rep_shape, dtype=I64).reshape(-1)[twins]
    aff_match = k.affinity_rows(na_state, aff_reps, I64(snapshot.n_nodes))
    return shapes, pod_shape, aff_match


def _topology(snapshot: ClusterSnapshot, keys: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """node_dom (domain 0: the value "") and key_off, once per snapshot and keys (never
    written)."""
    cache_key = ("PodTopologySpread.topology", tuple(keys))
    cached = snapshot.cache.get(cache_key)
    if cached is None:
        cached = snapshot.cache[cache_key] = _build_topology(snapshot, keys)
    return cached


def _build_topology(snapshot: ClusterSnapshot, keys: Sequence[str]
                    ) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    node_dom = np.full((len(keys), snapshot.n_nodes), -1, dtype=np.int32)
    sizes = []
    for j, key in enumerate(keys):
        ids = {"": 0}
        for n, labels in enumerate(snapshot.node_labels):
            v = labels.get(key)
            if v is not None:
                node_dom[j, n] = ids.setdefault(v, len(ids))
        sizes.append(len(ids))
    key_off = np.zeros(len(keys) + 1, dtype=I64)
    np.cumsum(sizes, out=key_off[1:])
    return node_dom, key_off


def _space(selectors: Sequence[tuple[int, Selector]]) -> SelectorSpace:
    reqs = [r for _, s in selectors for r in s.requirements]
    return SelectorSpace(sorted({r.key for r in reqs}), reqs)


def _signatures(snapshot: ClusterSnapshot, space: SelectorSpace) -> tuple[np.ndarray, ...]:
    """(sig_ns_ptr, sig_vals, sig_ptr, ent_node, ent_count) of the non-terminating pods,
    kept on the snapshot per space (never written)."""
    return snapshot.kept("PodTopologySpread.signatures", space.signature,
                         lambda: _build_signatures(snapshot, space))  # fmt: skip


def _build_signatures(snapshot: ClusterSnapshot, space: SelectorSpace
                      ) -> tuple[np.ndarray, ...]:  # fmt: skip
    live = ~snapshot.pod_deleting
    local = space.project(snapshot.pod_labels.columns(space.keys))
    rows = np.empty((int(live.sum()), len(space.keys) + 1), dtype=np.int32)
    rows[:, 0] = snapshot.pod_ns[live]
    rows[:, 1:] = local[live]
    sig_rows, pod_sig = unique_rows(rows)
    pod_sig = pod_sig.reshape(-1).astype(I64)
    n_ns = len(snapshot.namespaces)
    sig_ns_ptr = np.searchsorted(sig_rows[:, 0], np.arange(n_ns + 1)).astype(I64)
    n = max(snapshot.n_nodes, 1)
    pairs, count = np.unique(pod_sig * n + snapshot.pod_node[live], return_counts=True)
    sig_ptr = np.searchsorted(pairs // n, np.arange(len(sig_rows) + 1)).astype(I64)
    vals = np.ascontiguousarray(sig_rows[:, 1:])
    return sig_ns_ptr, vals, sig_ptr, (pairs % n).astype(np.int32), count.astype(I64)


def _csr(rows: Sequence[Sequence[Any]], width: int) -> tuple[np.ndarray, list[np.ndarray]]:
    ptr = np.zeros(len(rows) + 1, dtype=I64)
    np.cumsum([len(r) for r in rows], out=ptr[1:])
    flat = np.array([x for r in rows for x in r], dtype=I64).reshape(-1, width)
    return ptr, [np.ascontiguousarray(flat[:, j]) for j in range(width)]


def build_state(ref: Any, snapshot: ClusterSnapshot, batch: PodBatch) -> tuple[tuple, np.ndarray]:
    """The kernels' state and each pod's filter class (``filter_key``)."""
    b = _Builder(ref.system_defaulted)
    shapes, pod_shape, aff_match = _pod_constraints(b, ref, snapshot, batch)
    pod_sg = np.ascontiguousarray(np.asarray(shapes.group, dtype=I64).reshape(-1)[pod_shape])
    keys = list(b.keys.ids)
    node_dom, key_off = _topology(snapshot, keys)
    dom_size = np.diff(key_off)

    fe_key = np.array(b.fe_key, dtype=I64)
    fe_off = np.zeros(len(fe_key) + 1, dtype=I64)
    np.cumsum(dom_size[fe_key], out=fe_off[1:])
    pf_ptr, (pf_key, pf_entry, pf_skew, pf_sel) = shape_rows(shapes.filter_rows, 4, pod_shape)
    sg_ptr, (sc_key, sc_skew, sc_idx, sc_host) = _csr(b.sg_rows, 4)
    se_key = np.array(b.se_key, dtype=I64)
    se_off = np.zeros(len(se_key) + 1, dtype=I64)
    np.cumsum(dom_size[se_key], out=se_off[1:])

    # selectors sorted by namespace (pods match those of their own namespace)
    sel_items = list(b.selectors.ids)
    order = sorted(range(len(sel_items)), key=lambda s: sel_items[s][0])
    new_id = np.empty(len(sel_items), dtype=I64)
    new_id[order] = np.arange(len(sel_items))
    sel_items = [sel_items[s] for s in order]
    sel_ns = np.array([ns for ns, _ in sel_items], dtype=I64)
    sel_nothing = np.array([s.nothing for _, s in sel_items], dtype=np.bool_)
    sel_ns_ptr = np.searchsorted(sel_ns, np.arange(len(snapshot.namespaces) + 1)).astype(I64)
    space = _space(sel_items)
    comp = space.compile([s.requirements for _, s in sel_items])
    comp = (comp.ptr, comp.key, comp.op, comp.vptr, comp.vals)
    pod_vals = space.project(batch.labels.columns(space.keys))
    psel_ptr, psel = k.match_pods(batch.ns.astype(I64), pod_vals, sel_ns_ptr, sel_nothing, comp)
    uses = sorted((int(new_id[s]), kind, i) for s, kind, i in b.uses)
    use_ptr = np.searchsorted(np.array([u[0] for u in uses], dtype=I64),
                              np.arange(len(sel_items) + 1)).astype(I64)  # fmt: skip
    pf_sel = new_id[pf_sel] if len(pf_sel) else pf_sel
    pf_self = k.self_matches(pf_ptr, pf_sel, psel_ptr, psel)

    topo = (node_dom, key_off)
    n_pairs = int(fe_off[-1])
    # the wide entries' counters go to the table (see ``kernels``), the others are dense
    fe_doff, n_dense = ct.dense_offsets(ct.tabled(keys, dom_size, fe_key), dom_size[fe_key])
    # matching pods per pair/domain/node: int32, as Go's counters (``*int32``, ``int32``)
    filt = (fe_off, np.zeros(n_dense, I32), np.zeros(n_pairs, np.bool_),
            np.zeros(len(fe_key), I64), fe_key, pf_ptr, pf_key, pf_entry, pf_skew, pf_self,
            fe_doff, np.zeros(len(fe_key), I64))  # fmt: skip
    score = (pod_sg, sg_ptr, np.array(b.sg_reqall, np.bool_), np.array(b.sg_aff, I64),
             sc_key, sc_skew, sc_idx, sc_host.astype(np.bool_), se_off,
             np.zeros(se_off[-1], I32), np.array(b.se_group, I64), se_key, aff_match)  # fmt: skip
    use = np.array(uses, dtype=I64).reshape(-1, 3)
    use_kind, use_idx = np.ascontiguousarray(use[:, 1]), np.ascontiguousarray(use[:, 2])
    upd = (psel_ptr, psel, use_ptr, use_kind, use_idx)
    fe_keys_ptr, (fe_keys,) = _csr(b.fe_keys, 1)
    xs, counts, n_made = k.fill_counts((topo, filt, score, upd), _signatures(snapshot, space),
                                       sel_ns, sel_nothing, comp, np.array(b.fe_aff, I64),
                                       fe_keys_ptr, fe_keys)  # fmt: skip
    # the table: the counters the existing pods made, and one for each counter a pending
    # pod's binding may make (a wide entry's or a hostname row's use of a selector it matches)
    tabled = use_kind == k.USE_HOST
    filters = use_kind == k.USE_FILTER
    tabled[filters] = fe_doff[use_idx[filters]] < 0
    per_selector = np.zeros(len(sel_items), I64)
    np.add.at(per_selector, use[:, 0], tabled.astype(I64))
    pending = int(per_selector[psel].sum())
    table = ct.new_table(n_made + pending)
    ct.fill(*table, xs[:n_made], counts[:n_made])
    k.finish_minima(filt, table)
    classes = _filter_classes(pf_ptr, _filter_shapes(shapes.filter_rows)[pod_shape], pf_self)
    return (topo, filt, score, upd, table), classes


def _filter_shapes(rows: Sequence[Sequence[tuple[int, int, int, int]]]) -> np.ndarray:
    """int64[shapes]: shapes with equal (entry, maxSkew) rows share an id."""
    ids = Interner()
    return np.array([ids(tuple((e, skew) for _, e, skew, _ in r)) for r in rows],
                    dtype=I64).reshape(-1)  # fmt: skip


def _filter_classes(pf_ptr: np.ndarray, filter_shape: np.ndarray, self_: np.ndarray
                    ) -> np.ndarray:  # fmt: skip
    """int64[B]: pods with equal (entry, maxSkew, self-match) rows filter alike: equal
    filter shapes (``_filter_shapes``) and self-matches (bits, 62 constraints a word)."""
    lengths = np.diff(pf_ptr)
    n = len(lengths)
    words = max(1, -(-int(lengths.max(initial=0)) // 62))
    rows = np.zeros((n, words + 1), dtype=I64)
    rows[:, 0] = filter_shape
    pod = np.repeat(np.arange(n), lengths)
    pos = np.arange(len(self_)) - pf_ptr[pod]
    np.add.at(rows, (pod, 1 + pos // 62), self_.astype(I64) << (pos % 62))
    return unique_rows(rows)[1].reshape(-1).astype(I64)
