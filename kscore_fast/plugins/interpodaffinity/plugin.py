"""InterPodAffinity: required pod affinity and anti-affinity (Filter), preferred terms and
the existing pods' terms (Score).

Wiring of pkg/scheduler/framework/plugins/interpodaffinity onto the compiled plugin shape
(``framework/interface.py``); the kernels' vocabulary and state layout are in
``kernels``' docstring. ``prepare`` (cached per snapshot, batch and args):

* the topology keys of every term (existing pods' and pending pods') become domain ids
  per node, once;
* label selectors are compiled over the label keys they mention
  (:class:`~kscore_fast.model.selectors.SelectorSpace`), and each term's namespaces are
  resolved (``compile.resolve_namespaces``): equal terms are compiled once;
* existing pods are grouped by (namespace, label values the selectors read), and each
  counter (the pending pods' required terms ANDed, or one term, per topology key) is
  filled from those groups, not pod by pod;
* the terms existing pods carry are summed per domain, from the pods with affinity only
  (``NodeInfo.PodsWithAffinity``: the others carry none);
* pending pods are grouped into classes (namespace, label values), and the existing
  terms matching each class are listed once.

``assume`` then updates counters and existing terms in place, so a bound pod is never
looked for again. Raw scores do not depend on the scored node list (Go's ``PreScore``
only checks that the list is not empty); ``NormalizeScore`` is over the list.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ...errors import ConfigError
from ...framework.cluster_events import ADD, ALL, NODE, POD, UPDATE_NODE_LABEL, events
from ...framework.interface import Plugin
from ...model.labels import LabelInterner
from ...model.objects import PodAffinity, PodAffinityTerm, PodRecord
from ...model.rows import unique_rows
from ...model.selectors import Selector, SelectorSpace, label_selector_as_selector
from ...model.snapshot import ClusterSnapshot, PodBatch, build_cluster, pod_twins, twin_firsts
from ..helper import counter_table as ct
from ..helper.pod_fields import POD_AFFINITY
from ..helper.twins import Interner, shape_rows
from . import index
from . import kernels as k
from .compile import ANTI, SCORE, Registry, csr, domain_offsets, resolve_namespaces
from .reference import (
    DEFAULT_HARD_POD_AFFINITY_WEIGHT,
    ERR_REASON_AFFINITY,
    ERR_REASON_ANTI_AFFINITY,
    ERR_REASON_EXISTING_ANTI_AFFINITY,
    NAME,
)

_REASONS = {
    k.FAIL_AFFINITY: [ERR_REASON_AFFINITY],
    k.FAIL_ANTI_AFFINITY: [ERR_REASON_ANTI_AFFINITY],
    k.FAIL_EXISTING_ANTI_AFFINITY: [ERR_REASON_EXISTING_ANTI_AFFINITY],
}
#: codes whose status is UnschedulableAndUnresolvable (the others are Unschedulable)
UNRESOLVABLE_CODES = frozenset({k.FAIL_AFFINITY})
#: state entries ``assume`` changes (copied by ``prepare``)
_MUTABLE = (8, 9, 17)


def hard_pod_affinity_weight(args: Mapping[str, Any] | None) -> int:
    """``InterPodAffinityArgs.hardPodAffinityWeight`` (camelCase args; default 1),
    checked as ``ValidateInterPodAffinityArgs`` does."""
    w = (args or {}).get("hardPodAffinityWeight", DEFAULT_HARD_POD_AFFINITY_WEIGHT)
    if isinstance(w, bool) or not isinstance(w, int):
        raise ConfigError(f"hardPodAffinityWeight: expected an integer, got {w!r}")
    if not 0 <= w <= 100:
        raise ConfigError(f"hardPodAffinityWeight: Invalid value: {w}: not in valid range [0-100]")
    return w


def _lists(a: PodAffinity | None) -> tuple[tuple, tuple]:
    return (a.required, a.preferred) if a is not None else ((), ())


def _all_terms(pods: list[PodRecord]) -> list[PodAffinityTerm]:
    """The terms of the pods' distinct affinities (pods of one template share them)."""
    out = []
    by_id = {(id(p.pod_affinity), id(p.pod_anti_affinity)): p for p in pods}
    distinct = dict.fromkeys((p.pod_affinity, p.pod_anti_affinity) for p in by_id.values())
    for pair in distinct:
        for a in pair:
            required, preferred = _lists(a)
            out += required
            out += [w.term for w in preferred]
    return out


def node_domains(snapshot: ClusterSnapshot, keys: tuple[str, ...]) -> tuple[np.ndarray, ...]:
    """(int32[N, K] domain of each node per key, -1 without the key; int64[K] domains per
    key), cached on the snapshot."""
    cached = snapshot.cache.get((NAME, "domains", keys))
    if cached is not None:
        return cached
    cols = LabelInterner().table(snapshot.node_labels).columns(keys).values
    dom = np.full(cols.shape, -1, dtype=np.int32)
    n_dom = np.zeros(len(keys), dtype=np.int64)
    for j in range(len(keys)):
        present = cols[:, j] >= 0
        uniq, inv = np.unique(cols[present, j], return_inverse=True)
        dom[present, j] = inv.reshape(-1)
        n_dom[j] = len(uniq)
    snapshot.cache[(NAME, "domains", keys)] = (dom, n_dom)
    return dom, n_dom


def _existing_shapes(snapshot: ClusterSnapshot) -> tuple[np.ndarray, np.ndarray, list[PodRecord]]:
    """The bound pods with affinity terms (``pods_with_affinity``) grouped by shape
    (namespace, affinity, anti-affinity): (pods int64[E], shape of each int64[E], one pod
    per shape), once per snapshot, as the cache parses a pod's terms once when it adds
    the pod (framework/types.go ``NewPodInfo``)."""
    cached = snapshot.cache.get((NAME, "existing shapes"))
    if cached is not None:
        return cached
    pods = snapshot.pods_with_affinity()
    shape_of = Interner()
    reps: list[PodRecord] = []
    shape = np.empty(len(pods), dtype=np.int64)
    for j, i in enumerate(pods):
        p = snapshot.pods[i]
        shape[j] = sh = shape_of((p.namespace, p.pod_affinity, p.pod_anti_affinity))
        if sh == len(reps):
            reps.append(p)
    cached = (np.asarray(pods, dtype=np.int64).reshape(-1), shape, reps)
    snapshot.cache[(NAME, "existing shapes")] = cached
    return cached


def _pair_ids(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """int64[n]: equal ids for equal (a[i], b[i]) pairs."""
    if len(a) == 0:
        return np.zeros(0, dtype=np.int64)
    return unique_rows(np.stack([a, b], axis=1))[1].reshape(-1).astype(np.int64)


def _signatures(snapshot: ClusterSnapshot, space: SelectorSpace) -> tuple[np.ndarray, ...]:
    """Existing pods grouped by (namespace, local label values): (sig_ns, sig_vals,
    ent_ptr, ent_node, ent_count) with the groups' pod counts per node (CSR), kept on the
    snapshot per space (never written)."""
    return snapshot.kept((NAME, "signatures"), space.signature,
                         lambda: _build_signatures(snapshot, space))  # fmt: skip


def _build_signatures(snapshot: ClusterSnapshot, space: SelectorSpace
                      ) -> tuple[np.ndarray, ...]:  # fmt: skip
    local = space.project(snapshot.pod_labels.columns(space.keys))
    rows = np.empty((len(snapshot.pods), len(space.keys) + 1), dtype=np.int32)
    rows[:, 0] = snapshot.pod_ns
    rows[:, 1:] = local
    if len(rows) == 0:
        z = np.zeros(0, np.int64)
        return (np.zeros(0, np.int32), np.zeros((0, len(space.keys)), np.int32),
                np.zeros(1, np.int64), np.zeros(0, np.int32), z)  # fmt: skip
    sig_rows, pod_sig = unique_rows(rows)
    pod_sig = pod_sig.reshape(-1).astype(np.int64)
    n_nodes = max(snapshot.n_nodes, 1)
    pairs, count = np.unique(pod_sig * n_nodes + snapshot.pod_node, return_counts=True)
    ent_ptr = np.searchsorted(pairs // n_nodes, np.arange(len(sig_rows) + 1)).astype(np.int64)
    return (
        np.ascontiguousarray(sig_rows[:, 0]), np.ascontiguousarray(sig_rows[:, 1:]), ent_ptr,
        (pairs % n_nodes).astype(np.int32), count.astype(np.int64),
    )  # fmt: skip


def _counters_by_namespace(reg: Registry, n_ns: int) -> tuple[np.ndarray, ...]:
    """(ns_cnt_ptr, ns_cnt, all_cnt): the counters a pod of each namespace can match (its
    namespace accepted by every term), and those matching pods of any namespace."""
    by_ns: list[list[int]] = [[] for _ in range(n_ns)]
    every = []
    for c, rts in enumerate(reg.cnt_rts):
        explicit = [set(reg.rt_ns[rt][1]) for rt in rts if not reg.rt_ns[rt][0]]
        if not explicit:
            every.append(c)
            continue
        for ns in set.intersection(*explicit):
            by_ns[ns].append(c)
    return (*csr(by_ns), np.asarray(every, np.int64).reshape(-1))


class _Builder:
    """One (snapshot, batch, args) compiled: terms resolved and interned per pod shape."""

    def __init__(self, snapshot: ClusterSnapshot, batch: PodBatch, hard_weight: int,
                 enabled: bool) -> None:  # fmt: skip
        self.snapshot, self.batch = snapshot, batch
        self.hard_weight, self.enabled = hard_weight, enabled
        self.existing = _existing_shapes(snapshot)
        self.firsts, self.twins = twin_firsts(batch), pod_twins(batch)
        terms = _all_terms(self.existing[2] + [batch.pods[p] for p in self.firsts.tolist()])
        self.topology_keys = tuple(sorted({t.topology_key for t in terms}))
        self.selectors = {ls: label_selector_as_selector(ls)
                          for ls in dict.fromkeys(t.label_selector for t in terms)}  # fmt: skip
        reqs = [r for s in self.selectors.values() for r in s.requirements]
        self.space = SelectorSpace(sorted({r.key for r in reqs}), reqs)
        self.reg = Registry(self.topology_keys, self.space)
        self.rt_selector: dict[int, Selector] = {}
        self._rt_memo: dict[tuple, int] = {}

    def rt(self, term: PodAffinityTerm, pod_ns: str, incoming: bool) -> int:
        key = (term, pod_ns, incoming)
        rt = self._rt_memo.get(key)
        if rt is None:
            s = self.snapshot
            ns = resolve_namespaces(term, pod_ns, incoming, s.namespace_labels, s.namespaces,
                                    self.enabled)  # fmt: skip
            selector = self.selectors[term.label_selector]
            rt = self._rt_memo[key] = self.reg.rterm(selector, ns)
            self.rt_selector[rt] = selector
        return rt

    def own(self, pod: PodRecord) -> list[tuple[int, int]]:
        """The pod's terms as existing terms, and what each adds per domain (called once
        per shape: see :func:`_existing_shapes`)."""
        ns, reg = pod.namespace, self.reg
        aff_req, aff_pref = _lists(pod.pod_affinity)
        anti_req, anti_pref = _lists(pod.pod_anti_affinity)
        out = [(reg.existing(ANTI, self.rt(t, ns, False), t.topology_key), 1) for t in anti_req]
        if self.hard_weight > 0:
            out += [(reg.existing(SCORE, self.rt(t, ns, False), t.topology_key),
                     self.hard_weight) for t in aff_req]  # fmt: skip
        for prefs, sign in ((aff_pref, 1), (anti_pref, -1)):
            out += [(reg.existing(SCORE, self.rt(w.term, ns, False), w.term.topology_key),
                     sign * w.weight) for w in prefs]  # fmt: skip
        return out

    def incoming(self, pod: PodRecord) -> tuple[list[int], tuple[int, ...], list[int], list]:
        """(affinity counters per term, the ANDed resolved terms, anti-affinity counters,
        preferred (counter, signed weight))."""
        ns, reg = pod.namespace, self.reg
        aff_req, aff_pref = _lists(pod.pod_affinity)
        anti_req, anti_pref = _lists(pod.pod_anti_affinity)
        aff_rts = tuple(self.rt(t, ns, True) for t in aff_req)
        aff = [reg.counter(aff_rts, t.topology_key) for t in aff_req]
        anti = [reg.counter((self.rt(t, ns, True),), t.topology_key) for t in anti_req]
        pref = [(reg.counter((self.rt(w.term, ns, True),), w.term.topology_key), sign * w.weight)
                for prefs, sign in ((aff_pref, 1), (anti_pref, -1)) for w in prefs]  # fmt: skip
        return aff, aff_rts, anti, pref

    def matches_own_terms(self, pod: PodRecord, ns_id: int, rts: tuple[int, ...]) -> bool:
        """``podMatchesAllAffinityTerms`` of the pod's own (merged) affinity terms."""
        if not rts:
            return False
        for rt in rts:
            every, ids = self.reg.rt_ns[rt]
            if not (every or ns_id in ids) or not self.rt_selector[rt].matches(pod.labels):
                return False
        return True

    def _pending(self) -> tuple[list[tuple], np.ndarray, np.ndarray]:
        """The pending pods' shapes (namespace, affinity, anti-affinity: each met once, its
        :meth:`incoming` and :meth:`own` rows), each pod's shape, and ``pod_self`` (per
        group of twins)."""
        batch = self.batch
        shape_of: dict[tuple, int] = {}
        shapes: list[tuple] = []
        firsts = self.firsts.tolist()
        rep_shape = np.empty(len(firsts), dtype=np.int64)
        rep_self = np.zeros(len(firsts), dtype=np.bool_)
        for t, p in enumerate(firsts):  # twins get the same rows: once per group
            pod = batch.pods[p]
            key = (pod.namespace, pod.pod_affinity, pod.pod_anti_affinity)
            sh = shape_of.setdefault(key, len(shapes))
            if sh == len(shapes):
                shapes.append((*self.incoming(pod), self.own(pod)))
            rep_shape[t] = sh
            if shapes[sh][1]:
                rep_self[t] = self.matches_own_terms(pod, int(batch.ns[p]), shapes[sh][1])
        return shapes, rep_shape[self.twins], rep_self[self.twins]

    def _existing_terms(self, node_dom: np.ndarray, xt_key: np.ndarray, xt_off: np.ndarray,
                        xt_doff: np.ndarray, n_dense: int,
                        own_rows: list[list[tuple[int, int]]]
                        ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
        """The existing pods' terms (``own_rows``: :meth:`own` per shape) summed per
        domain: the dense terms' values (``xt_val``), and the wide ones' (pair ids past
        the counters', weights) for the table (``xt_doff``, ``n_dense``: the dense
        layout)."""
        pods, shape, _ = self.existing
        if len(pods) == 0:  # (no bound pod has terms)
            z = np.zeros(0, dtype=np.int64)
            return np.zeros(n_dense, dtype=np.int64), z, z.copy()
        ptr, (x, w) = shape_rows(own_rows, 2, shape)
        xt_val = np.zeros(n_dense, dtype=np.int64)
        nodes = np.repeat(self.snapshot.pod_node[pods], np.diff(ptr))
        d = node_dom[nodes, xt_key[x]]
        m = d >= 0
        x, d, w = x[m], d[m], w[m]
        dense = xt_doff[x] >= 0
        np.add.at(xt_val, xt_doff[x[dense]] + d[dense], w[dense])
        return xt_val, xt_off[x[~dense]] + d[~dense], w[~dense]

    def build(self) -> tuple:
        snapshot, batch, reg = self.snapshot, self.batch, self.reg
        n_pods = len(batch.pods)
        shapes, pod_shape, pod_self = self._pending()
        # before reg.terms(): the existing pods' terms are registered by own()
        own_rows = [self.own(p) for p in self.existing[2]]
        node_dom, n_dom = node_domains(snapshot, self.topology_keys)
        terms = reg.terms()
        # counters, filled from the existing pods' signatures
        cnt_ptr, cnt_rt = csr(reg.cnt_rts)
        cnt_key = np.asarray(reg.cnt_key, np.int64).reshape(-1)
        cnt_off = domain_offsets(reg.cnt_key, n_dom)
        xt_key = np.asarray(reg.xt_key, np.int64).reshape(-1)
        # the wide keys' values go to the table (see ``kernels``), the others are dense
        wide = ct.tabled(self.topology_keys, n_dom, np.concatenate((cnt_key, xt_key)))
        cnt_doff, n_dense = ct.dense_offsets(wide[: len(cnt_key)], n_dom[cnt_key])
        xt_doff, n_xt_dense = ct.dense_offsets(wide[len(cnt_key) :], n_dom[xt_key])
        cnt_val = np.zeros(n_dense, np.int64)
        cnt_total = np.zeros(len(cnt_key), dtype=np.int64)
        by_ns = _counters_by_namespace(reg, len(snapshot.namespaces))
        made_x, made_n, n_made = k.count_counters(
            terms, node_dom, cnt_ptr, cnt_rt, cnt_key, cnt_off, *by_ns,
            *_signatures(snapshot, self.space), cnt_val, cnt_total, cnt_doff)  # fmt: skip
        # existing terms, summed per domain
        xt_off = domain_offsets(reg.xt_key, n_dom)
        xt_val, wide_x, wide_w = self._existing_terms(node_dom, xt_key, xt_off, xt_doff,
                                                      n_xt_dense, own_rows)  # fmt: skip
        # pending pods' classes and the existing terms matching them
        pod_vals = np.ascontiguousarray(
            self.space.project(batch.labels.columns(self.space.keys)), dtype=np.int32
        )
        rows = np.empty((n_pods, pod_vals.shape[1] + 1), dtype=np.int32)
        rows[:, 0] = batch.ns
        rows[:, 1:] = pod_vals
        if n_pods:
            cls_rows, pod_cls = unique_rows(rows)
        else:
            cls_rows, pod_cls = rows, np.zeros(0, np.int64)
        pod_cls = pod_cls.reshape(-1).astype(np.int64)
        # the existing terms matching each class, found through their anchors
        cls_ns = np.ascontiguousarray(cls_rows[:, 0])
        cls_vals = np.ascontiguousarray(cls_rows[:, 1:])
        col_off, n_buckets = index.column_offsets(terms, cls_vals)
        buckets = index.class_buckets(cls_vals, col_off, n_buckets)
        xt_rt = np.asarray(reg.xt_rt, np.int64).reshape(-1)
        xt_ptr = np.arange(len(xt_rt) + 1, dtype=np.int64)
        qs, xs = index.matches(terms, xt_ptr, xt_rt, np.ones(len(xt_rt), np.bool_),
                               k.anchors(terms, xt_ptr, xt_rt), cls_ns, cls_vals, buckets,
                               col_off)  # fmt: skip
        lists = index.class_lists(qs, xs, np.asarray(reg.xt_anti, np.bool_).reshape(-1),
                                  len(cls_ns))  # fmt: skip
        filter_shape = Interner()
        shape_filter = np.array([filter_shape((tuple(sh[0]), tuple(sh[2]))) for sh in shapes],
                                dtype=np.int64).reshape(-1)  # fmt: skip
        filter_key = _pair_ids(pod_cls, shape_filter[pod_shape])
        pref_shape = Interner()
        shape_pref = np.array([pref_shape(tuple(sh[3])) for sh in shapes],
                              dtype=np.int64).reshape(-1)  # fmt: skip
        score_groups = _pair_ids(pod_cls, shape_pref[pod_shape])
        aff_ptr, (aff,) = shape_rows([sh[0] for sh in shapes], 1, pod_shape)
        anti_ptr, (anti,) = shape_rows([sh[2] for sh in shapes], 1, pod_shape)
        pref_ptr, (pref_c, pref_w) = shape_rows([sh[3] for sh in shapes], 2, pod_shape)
        own_ptr, (own_x, own_w) = shape_rows([sh[4] for sh in shapes], 2, pod_shape)
        # the table: the pairs the existing pods made, and those each pending pod's binding
        # may make (the wide counters of its class, its own wide terms)
        cnt_anchor = k.anchors(terms, cnt_ptr, cnt_rt)
        qs, _ = index.matches(terms, cnt_ptr, cnt_rt, cnt_doff < 0, cnt_anchor, cls_ns, cls_vals,
                              buckets, col_off)  # fmt: skip
        per_class = np.bincount(qs, minlength=len(cls_ns))
        pending = int(per_class[pod_cls].sum()) + int((xt_doff[own_x] < 0).sum())
        table = ct.new_table(n_made + len(wide_x) + pending)
        ct.fill(*table, made_x[:n_made], made_n[:n_made])
        ct.fill(*table, cnt_off[-1] + wide_x, wide_w)
        return (
            node_dom, terms, np.ascontiguousarray(batch.ns, dtype=np.int32), pod_vals,
            cnt_ptr, cnt_rt, cnt_key, cnt_off, cnt_val, cnt_total, aff_ptr, aff, pod_self,
            anti_ptr, anti, xt_key, xt_off, xt_val, pod_cls, *lists, pref_ptr, pref_c,
            pref_w, own_ptr, own_x, own_w, filter_key,
            *by_ns, score_groups, cnt_doff, xt_doff, table,
            *index.assume_index(cnt_anchor, by_ns, col_off, n_buckets),
        )  # fmt: skip


class InterPodAffinity(Plugin):
    """The InterPodAffinity plugin (PreFilter+Filter, PreScore+Score+NormalizeScore).

    ``args``: ``InterPodAffinityArgs`` as the camelCase mapping
    (``{"hardPodAffinityWeight": 1}``). ``enable_namespace_selector``: the
    ``PodAffinityNamespaceSelector`` feature gate (on in v1.23; some upstream tests turn
    it off).
    """

    name = NAME
    #: what ``prepare`` reads of a pod (a lone pod's state is kept by them)
    lone_fields = POD_AFFINITY
    events_to_register = events((POD, ALL), (NODE, ADD | UPDATE_NODE_LABEL))
    filters = True
    scores = True
    normalizes = True
    #: its interfaces in v1.23.6 (pkg/scheduler/framework/plugins/interpodaffinity)
    extension_points = frozenset({"preFilter", "filter", "preScore", "score"})
    kernels = k
    #: a pod's raw score on a node does not depend on the scored node list (twins on
    #: different lists may share rows of raw scores)
    row_independent = True
    #: min-max normalization gives 0 to every node of a list of equal scores
    constant_normalize = True

    def __init__(self, args: Mapping[str, Any] | None = None, *,
                 enable_namespace_selector: bool = True) -> None:  # fmt: skip
        self.hard_weight = hard_pod_affinity_weight(args)
        self.enabled = enable_namespace_selector

    def _pristine(self, snapshot: ClusterSnapshot, batch: PodBatch) -> tuple:
        key = (NAME, self.hard_weight, self.enabled)
        cached = batch.cache.get(key)
        if cached is None or cached[0] is not snapshot:
            state = _Builder(snapshot, batch, self.hard_weight, self.enabled).build()
            cached = batch.cache[key] = (snapshot, state)
        return cached[1]

    def prepare(self, snapshot: ClusterSnapshot, batch: PodBatch) -> tuple:
        """The kernels' state (built once per snapshot, batch and args)."""
        return self._pristine(snapshot, batch)

    def own_state(self, state: tuple) -> tuple:
        """Copies of the counts ``assume`` changes."""
        owned = tuple(a.copy() if i in _MUTABLE else a for i, a in enumerate(state[: k.TABLE]))
        return (*owned, ct.copy_table(state[k.TABLE]), *state[k.TABLE + 1 :])

    def empty_state(self) -> tuple:
        empty = build_cluster((), ())
        return self.prepare(empty.snapshot, empty.batch)

    @staticmethod
    def filter_ignores_pods(state: tuple) -> np.ndarray:
        """bool[B]: the pods ``filter_node`` passes whatever is bound: no required
        affinity or anti-affinity of their own, and no required anti-affinity term of an
        existing or pending pod matches them."""
        cls, anti_ptr = state[18], state[19]
        own = (np.diff(state[10]) == 0) & (np.diff(state[13]) == 0)
        return own & (anti_ptr[cls + 1] == anti_ptr[cls])

    @classmethod
    def passes_all(cls, state: tuple) -> bool:
        """Every pod of the batch passes whatever is bound (:meth:`filter_ignores_pods`:
        then ``filter_node`` reads nothing and passes)."""
        return bool(cls.filter_ignores_pods(state).all())

    @staticmethod
    def filter_key(state: tuple) -> np.ndarray:
        """Pods with equal (namespace, label values the selectors read, required affinity
        and anti-affinity) share a key."""
        return state[29]

    @staticmethod
    def score_groups(state: tuple) -> np.ndarray:
        """Pods with equal (namespace, label values the selectors read, preferred terms)
        get equal raw scores on every node (``Score`` reads nothing else of the pod)."""
        return state[33]

    @staticmethod
    def constant_scores(state: tuple) -> np.ndarray:
        """bool[B]: the pods that score 0 on every node whatever is bound: no preferred
        terms of their own, and no term of an existing or pending pod matches them."""
        cls, cls_ptr, pref_ptr = state[18], state[21], state[23]
        return (np.diff(pref_ptr) == 0) & (cls_ptr[cls + 1] == cls_ptr[cls])

    @staticmethod
    def reasons(state: tuple, code: int) -> list[str]:
        """``Status.Reasons()`` of a failure code."""
        return list(_REASONS[code])

    @staticmethod
    def unresolvable(state: tuple, code: int) -> bool:
        """The pod's own affinity rules unmatched (``ErrReasonAffinityRulesNotMatch``)."""
        return code in UNRESOLVABLE_CODES
