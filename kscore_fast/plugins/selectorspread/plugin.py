"""SelectorSpread: spread a pod's replicas over nodes and zones.

Wiring of pkg/scheduler/framework/plugins/selectorspread/selector_spread.go onto the
batch framework. Per snapshot (cached): existing pods are aggregated into signatures and
services/controllers compiled to bitmasks. Per chunk: every pod's ``DefaultSelector`` is
built as bitmasks, pods with equal selectors share one count vector
(``countMatchingPods`` on every node), then each pod gathers its raw scores and
normalizes them over its own scored nodes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ...framework.interface import Chunk
from ...model.objects import RC_KIND, RS_KIND, SS_KIND
from ...model.selectors import LabelSelector, compile_requirements, label_selector_as_selector
from ...model.snapshot import (
    RS_CONTROLLER,
    SS_CONTROLLER,
    ClusterSnapshot,
    PodBatch,
)
from . import kernels

NAME = "SelectorSpread"


@dataclass(frozen=True)
class _Prepared:
    """The snapshot compiled for SelectorSpread (see ``kernels`` for the layout)."""

    all_ns: int
    svc_ns_ptr: np.ndarray
    svc_allof: np.ndarray
    svc_ok: np.ndarray
    svc_nonempty: np.ndarray
    rc_allof: np.ndarray
    rc_keymask: np.ndarray
    rc_impossible: np.ndarray
    rc_nonempty: np.ndarray
    ctrl_offset: np.ndarray
    ctrl_nonempty: np.ndarray
    req_ptr: np.ndarray
    req_any: np.ndarray
    req_mask: np.ndarray
    sig_ns: np.ndarray
    sig_ns_ptr: np.ndarray
    sig_words: np.ndarray
    post_ptr: np.ndarray
    post_sig: np.ndarray

    @property
    def services(self) -> tuple[np.ndarray, ...]:
        return (self.svc_ns_ptr, self.svc_allof, self.svc_ok, self.svc_nonempty)

    @property
    def controllers(self) -> tuple[np.ndarray, ...]:
        return (
            self.rc_allof, self.rc_keymask, self.rc_impossible, self.rc_nonempty,
            self.ctrl_offset, self.ctrl_nonempty,
        )  # fmt: skip

    @property
    def index(self) -> tuple[np.ndarray, ...]:
        """The signature index, as the kernels take it (see ``kernels``)."""
        return (
            self.sig_ns, self.sig_ns_ptr, self.sig_words, self.sig_ptr, self.ent_node,
            self.ent_count, self.post_ptr, self.post_sig, self.req_ptr, self.req_any,
            self.req_mask,
        )  # fmt: skip

    sig_ptr: np.ndarray
    ent_node: np.ndarray
    ent_count: np.ndarray


@dataclass(frozen=True)
class _BatchState:
    """Every pending pod's default selector, grouped: pods of one group share counts.

    ``group`` (int64[B]) is -1 for pods whose selector matches nothing (empty or
    impossible) or that skip SelectorSpread; groups are described by ``grp_ns``,
    ``grp_allof`` and ``grp_ctrl`` (see ``kernels``).
    """

    group: np.ndarray
    skip: np.ndarray
    grp_ns: np.ndarray
    grp_allof: np.ndarray
    grp_ctrl: np.ndarray


@dataclass(frozen=True)
class _State:
    pod_group: np.ndarray
    skip: np.ndarray
    batch: _BatchState


def _map_mask(vocab: Any, selector: dict[str, str], n_words: int) -> tuple[np.ndarray, bool]:
    """(bits of the pairs, whether every pair has a bit)."""
    bits = [vocab.bit(k, v) for k, v in selector.items()]
    return vocab.mask([b for b in bits if b is not None], n_words), None not in bits


def _postings(words: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For every bit, the rows of ``words`` (uint64[S, W]) that carry it (CSR)."""
    n_rows, n_words = words.shape
    bits = np.unpackbits(
        np.ascontiguousarray(words).view(np.uint8).reshape(n_rows, n_words * 8),
        axis=1,
        bitorder="little",
    )
    rows, cols = np.nonzero(bits)
    order = np.argsort(cols, kind="stable")
    ptr = np.searchsorted(cols[order], np.arange(n_words * 64 + 1)).astype(np.int64)
    return ptr, rows[order].astype(np.int64)


def prepare(snapshot: ClusterSnapshot) -> _Prepared:
    """Compile ``snapshot`` for SelectorSpread (cached on the snapshot)."""
    cached = snapshot.cache.get(NAME)
    if cached is not None:
        return cached
    vocab, W = snapshot.vocab, snapshot.n_words

    # services grouped by namespace index (namespaces without pods get extra indices)
    ns_ids = {ns: i for i, ns in enumerate(snapshot.namespaces)}
    svcs = sorted(
        (s for s in snapshot.services if s.selector is not None),
        key=lambda s: ns_ids.setdefault(s.namespace, len(ns_ids)),
    )
    svc_ns = np.array([ns_ids[s.namespace] for s in svcs], dtype=np.int64)
    svc_ns_ptr = np.searchsorted(svc_ns, np.arange(len(ns_ids) + 1)).astype(np.int64)
    svc_allof = np.zeros((len(svcs), W), dtype=np.uint64)
    svc_ok = np.zeros(len(svcs), dtype=np.bool_)
    for i, s in enumerate(svcs):
        svc_allof[i], svc_ok[i] = _map_mask(vocab, s.selector or {}, W)
    svc_nonempty = np.array([bool(s.selector) for s in svcs], dtype=np.bool_)

    rcs = snapshot.controllers[RC_KIND]
    rc_allof = np.zeros((len(rcs), W), dtype=np.uint64)
    rc_keymask = np.zeros((len(rcs), W), dtype=np.uint64)
    rc_impossible = np.zeros(len(rcs), dtype=np.bool_)
    for i, rc in enumerate(rcs):
        sel = rc.selector if isinstance(rc.selector, dict) else {}
        rc_allof[i], ok = _map_mask(vocab, sel, W)
        rc_impossible[i] = not ok
        rc_keymask[i] = vocab.key_mask(sel, W)
    rc_nonempty = np.array([bool(rc.selector) for rc in rcs], dtype=np.bool_)

    # ReplicaSets then StatefulSets: requirement lists of LabelSelectorAsSelector
    ctrl_reqs = []
    for kind in (RS_KIND, SS_KIND):
        for c in snapshot.controllers[kind]:
            ls = c.selector if isinstance(c.selector, LabelSelector) else None
            ctrl_reqs.append(label_selector_as_selector(ls).requirements)
    compiled = compile_requirements(ctrl_reqs, vocab, W)
    ctrl_offset = np.zeros(4, dtype=np.int64)
    ctrl_offset[RS_CONTROLLER] = 0
    ctrl_offset[SS_CONTROLLER] = len(snapshot.controllers[RS_KIND])
    ctrl_nonempty = np.array([len(r) > 0 for r in ctrl_reqs], dtype=np.bool_)

    # signatures of the non-deleting existing pods; their label rows only carry keys the
    # spreading selectors mention (the snapshot's vocabulary, model.spread_selector_keys)
    live = ~snapshot.pod_deleting
    rows = np.empty((int(live.sum()), W + 1), dtype=np.uint64)
    rows[:, 0] = snapshot.pod_ns[live].astype(np.uint64)
    rows[:, 1:] = snapshot.pod_words[live]
    sig_rows, pod_sig = np.unique(rows, axis=0, return_inverse=True)
    pod_sig = pod_sig.reshape(-1).astype(np.int64)
    n_sig = sig_rows.shape[0]
    sig_ns = sig_rows[:, 0].astype(np.int64)
    sig_ns_ptr = np.searchsorted(sig_ns, np.arange(len(snapshot.namespaces) + 1)).astype(np.int64)
    sig_words = np.ascontiguousarray(sig_rows[:, 1:])
    post_ptr, post_sig = _postings(sig_words)
    pair = pod_sig * max(snapshot.n_nodes, 1) + snapshot.pod_node[live].astype(np.int64)
    pairs, ent_count = np.unique(pair, return_counts=True)
    ent_sig = pairs // max(snapshot.n_nodes, 1)
    prepared = _Prepared(
        all_ns=snapshot.namespaces.index("") if "" in snapshot.namespaces else -1,
        svc_ns_ptr=svc_ns_ptr,
        svc_allof=svc_allof,
        svc_ok=svc_ok,
        svc_nonempty=svc_nonempty,
        rc_allof=rc_allof,
        rc_keymask=rc_keymask,
        rc_impossible=rc_impossible,
        rc_nonempty=rc_nonempty,
        ctrl_offset=ctrl_offset,
        ctrl_nonempty=ctrl_nonempty,
        req_ptr=compiled.ptr,
        req_any=compiled.any_of,
        req_mask=compiled.mask,
        sig_ns=sig_ns,
        sig_ns_ptr=sig_ns_ptr,
        sig_words=sig_words,
        post_ptr=post_ptr,
        post_sig=post_sig,
        sig_ptr=np.searchsorted(ent_sig, np.arange(n_sig + 1)).astype(np.int64),
        ent_node=(pairs % max(snapshot.n_nodes, 1)).astype(np.int32),
        ent_count=ent_count.astype(np.int64),
    )
    snapshot.cache[NAME] = prepared
    return prepared


def batch_state(snapshot: ClusterSnapshot, batch: PodBatch) -> _BatchState:
    """``DefaultSelector`` of every pending pod, grouped (cached on the batch)."""
    cached = batch.cache.get(NAME)
    if cached is not None:
        return cached
    prep = prepare(snapshot)
    group, grp_ns, grp_allof, grp_ctrl = kernels.selector_groups(
        batch.ns, batch.words, batch.controller_kind, batch.controller_idx,
        batch.has_spread_constraints, prep.services, prep.controllers, prep.all_ns,
    )  # fmt: skip
    state = _BatchState(group, batch.has_spread_constraints, grp_ns, grp_allof, grp_ctrl)
    batch.cache[NAME] = state
    return state


class SelectorSpread:
    """The SelectorSpread score plugin (PreScore, Score, NormalizeScore)."""

    name = NAME
    normalizes = True

    def pre_score(self, snapshot: ClusterSnapshot, batch: PodBatch, chunk: Chunk) -> _State:
        bs = batch_state(snapshot, batch)
        return _State(bs.group[chunk.pods], bs.skip[chunk.pods], bs)

    def _score(self, state, snapshot, chunk, normalize_too, raw_out, norm_out) -> None:
        prep = prepare(snapshot)
        bs = state.batch
        kernels.score_chunk.pick(len(raw_out))(
            state.pod_group, state.skip, bs.grp_ns, bs.grp_allof, bs.grp_ctrl, prep.index,
            chunk.ptr, chunk.nodes, snapshot.node_zone, len(snapshot.zone_keys),
            snapshot.n_nodes, normalize_too, raw_out, norm_out,
        )  # fmt: skip

    def score(
        self, state: _State, snapshot: ClusterSnapshot, batch: PodBatch, chunk: Chunk,
        out: np.ndarray,
    ) -> None:  # fmt: skip
        self._score(state, snapshot, chunk, False, out, out)

    def normalize(
        self, state: _State, snapshot: ClusterSnapshot, batch: PodBatch, chunk: Chunk,
        scores: np.ndarray,
    ) -> None:  # fmt: skip
        kernels.normalize.pick(len(scores))(
            chunk.ptr,
            chunk.nodes,
            snapshot.node_zone,
            len(snapshot.zone_keys),
            state.skip,
            scores,
        )

    def score_normalize(
        self, state: _State, snapshot: ClusterSnapshot, batch: PodBatch, chunk: Chunk,
        raw_out: np.ndarray, norm_out: np.ndarray,
    ) -> None:  # fmt: skip
        """``score`` then ``normalize``, fused into one pass over each pod's nodes."""
        self._score(state, snapshot, chunk, True, raw_out, norm_out)
