"""numba kernels of PodTopologySpread; the scalar specification is ``reference.py``.

Topology keys are numbered (K keys); each key's values are *domains* ``0..D_k-1`` where
domain 0 is the value ``""`` (the pair Go builds from ``node.Labels[key]`` of a node
lacking the key, and of a node whose value is empty). Selectors (S) are distinct
(namespace, ``labels.Selector``) pairs; filter *entries* (E) are (PreFilter state, key):
one pair counter per domain, shared by the state's constraints of that key as Go shares
its ``TpPairToMatchNum``; score *groups* (G) are distinct PreScore inputs (soft
constraints, node affinity, ``requireAllTopologies``) and score entries (SE) are (group,
non-hostname key) counters over the group's eligible nodes. N nodes, B pending pods.

state = (topo, filt, score, upd, classes, scratch, table) (``classes``: the filter keys,
for ``plugin``; ``scratch``: ``SCRATCH``; ``table``: ``TABLE``)::

 topo  0 node_dom   int32[K, N]  domain of each node's value (-1: the node lacks the key)
       1 key_off    int64[K+1]   key k's domains are key_off[k]:key_off[k+1] (scratch)
 filt  0 fe_off     int64[E+1]   entry e's pairs are fe_off[e] + domain (pair ids: X)
       1 fe_cnt     int32[X']    matching pods per pair of the dense entries, at
                                 fe_doff[e] + domain (read where fe_exists)
       2 fe_exists  bool[X]      the pair exists (an eligible node holds that value)
       3 fe_min     int64[E]     criticalPaths[0].MatchNum (MaxInt32: no pair)
       4 fe_key     int64[E]
       5 pf_ptr     int64[B+1]   pod p's DoNotSchedule constraints pf_ptr[p]:pf_ptr[p+1]
       6 pf_key     int64[C]
       7 pf_entry   int64[C]
       8 pf_skew    int64[C]     maxSkew
       9 pf_self    bool[C]      the constraint's selector matches the pod's own labels
      10 fe_doff    int64[E]     the entry's offset in fe_cnt; -1: a wide entry (a key of
                                 many domains, as hostname), whose counters are in the
                                 table, keyed by pair id, for its existing pairs only
      11 fe_zero    int64[E]     a wide entry's existing pairs whose count is 0
 score 0 pod_sg     int64[B]     the pod's score group (-1: no soft constraint)
       1 sg_ptr     int64[G+1]   group g's constraints sg_ptr[g]:sg_ptr[g+1], in order
       2 sg_reqall  bool[G]      requireAllTopologies
       3 sg_aff     int64[G]     row of aff_match (-1: no nodeSelector/required affinity)
       4 sc_key     int64[SC]
       5 sc_skew    int64[SC]
       6 sc_idx     int64[SC]    score entry (host: row of hcnt)
       7 sc_host    bool[SC]     topologyKey is kubernetes.io/hostname
       8 se_off     int64[SE+1]
       9 se_cnt     int32[Y]     matching pods per domain over the group's eligible nodes
      10 se_group   int64[SE]
      11 se_key     int64[SE]
      12 aff_match  bool[A, N]   GetRequiredNodeAffinity(pod).Match per affinity group
 upd   0 psel_ptr   int64[B+1]   the selectors each pending pod matches (namespace included)
       1 psel       int64[M]
       2 use_ptr    int64[S+1]   where selector s counts: use_kind (0 filter entry, 1 score
       3 use_kind   int64[U]     entry, 2 hcnt row) and use_idx; one use per constraint
       4 use_idx    int64[U]     (two constraints of one key and selector count twice)
 scratch 0 seen     bool[D]      per domain of every key (D = key_off[K])
         1 size     int64[W]     per constraint of a score group (W: the widest group)
         2 weight   float64[W]
 table   (keys, vals, used)      ``helper.counter_table``: the wide entries' counters, and
                                 the matching pods per node of each selector of a hostname
                                 score constraint (row h: key X + h * N + node)

Dense (pairs × entries) counters would hold one int32 per (selector, node) for hostname
constraints: with a selector per Deployment, pods × nodes. The table holds only the
counters that are not 0 (and those that were), sized once for every counter the cluster's
pods can make non-zero.
"""

from __future__ import annotations

import numpy as np

from ..._jit import inline_kernel, kernel, unrefcounted_kernel
from ..helper import counter_table as ct
from ..nodeaffinity import kernels as na_kernels
from ..selectorspread.kernels import _requirements_hold
from .golog import go_log

#: ``filter_node`` codes: the node lacks a key (UnschedulableAndUnresolvable); skew
FAIL_LABEL, FAIL_SKEW = 1, 2
#: ``use_kind``
USE_FILTER, USE_SCORE, USE_HOST = 0, 1, 2
MAX_INT32 = 2**31 - 1
#: the state's scratch rows (:func:`score_pod_serial`), its counter table
SCRATCH, TABLE = 5, 6


@inline_kernel
def _dom(node_dom, k, node):  # pragma: no cover - compiled
    """The pair's domain: the node's value, or "" (domain 0) when it lacks the key."""
    return max(np.int64(node_dom[k, node]), 0)


@inline_kernel
def _has_all(node_dom, sc_key, lo, hi, node):  # pragma: no cover - compiled
    """``nodeLabelsMatchSpreadConstraints`` for constraints ``lo:hi``."""
    for c in range(lo, hi):
        if node_dom[sc_key[c], node] < 0:
            return False
    return True


@inline_kernel
def _eligible(node_dom, sg_ptr, sg_reqall, sg_aff, sc_key, aff_match, g, node):  # pragma: no cover
    """PreScore's ``processAllNode`` condition: affinity, then every key if required (the
    score state's arrays one by one: a tuple handed to a helper in a node loop is
    reference-counted member by member on every call)."""
    a = sg_aff[g]
    if a >= 0 and not aff_match[a, node]:
        return False
    return not sg_reqall[g] or _has_all(node_dom, sc_key, sg_ptr[g], sg_ptr[g + 1], node)


@inline_kernel
def _entry_min(filt, keys, vals, e):  # pragma: no cover - compiled
    """criticalPaths[0].MatchNum of entry ``e``: its least count over existing pairs."""
    fe_off, fe_cnt, fe_exists, fe_doff = filt[0], filt[1], filt[2], filt[10]
    m = np.int64(MAX_INT32)
    off = fe_doff[e]
    for d in range(fe_off[e + 1] - fe_off[e]):
        x = fe_off[e] + d
        if fe_exists[x]:
            c = np.int64(fe_cnt[off + d]) if off >= 0 else ct.get(keys, vals, x)
            if c < m:
                m = c
    return m


@inline_kernel
def filter_node(state, pod, node):  # pragma: no cover - compiled
    """``Filter``: each DoNotSchedule constraint in order; the first failure decides."""
    node_dom = state[0][0]
    fe_off, fe_cnt, fe_exists, fe_min = state[1][0], state[1][1], state[1][2], state[1][3]
    pf_ptr, pf_key, pf_entry, pf_skew, pf_self = (
        state[1][5], state[1][6], state[1][7], state[1][8], state[1][9])
    fe_doff, keys, vals = state[1][10], state[TABLE][0], state[TABLE][1]
    for c in range(pf_ptr[pod], pf_ptr[pod + 1]):
        d = node_dom[pf_key[c], node]
        if d < 0:
            return FAIL_LABEL
        e = pf_entry[c]
        x = fe_off[e] + d
        match = np.int64(0)
        if fe_exists[x]:
            off = fe_doff[e]
            match = np.int64(fe_cnt[off + d]) if off >= 0 else ct.get(keys, vals, x)
        self_match = 1 if pf_self[c] else 0
        if match + self_match - fe_min[e] > pf_skew[c]:
            return FAIL_SKEW
    return 0


@kernel
def score_pod(state, pod, nodes, out):  # pragma: no cover - compiled
    """``PreScore`` over ``nodes`` (ignored nodes, topology sizes, weights), then ``Score``
    of each node (scratch rows of its own: the batch runtime scores pods in parallel)."""
    key_off, pod_sg, sg_ptr = state[0][1], state[2][0], state[2][1]
    g = pod_sg[pod]
    width = sg_ptr[g + 1] - sg_ptr[g] if g >= 0 else 0
    seen = np.zeros(key_off[key_off.shape[0] - 1], dtype=np.bool_)
    _score(state, pod, nodes, out, seen, np.empty(width, dtype=np.int64),
           np.empty(width, dtype=np.float64))  # fmt: skip


@unrefcounted_kernel
def score_pod_serial(state, pod, nodes, out):  # pragma: no cover - compiled
    """:func:`score_pod` on the state's own scratch rows (``SCRATCH``; serial callers
    only, without reference counting: the sequential loop)."""
    seen, size, weight = state[SCRATCH]
    seen[:] = False
    _score(state, pod, nodes, out, seen, size, weight)


@inline_kernel
def _score(state, pod, nodes, out, seen, size, weight):  # pragma: no cover - compiled
    """:func:`score_pod` with scratch rows: ``seen`` all false (one per domain of every
    key), ``size``/``weight`` one entry per constraint of the pod's group at least."""
    node_dom, key_off = state[0][0], state[0][1]
    score = state[2]
    pod_sg, sg_ptr, sg_reqall = score[0], score[1], score[2]
    sc_key, sc_skew, sc_idx, sc_host = score[4], score[5], score[6], score[7]
    se_off, se_cnt = score[8], score[9]
    keys, vals = state[TABLE][0], state[TABLE][1]
    host_base, n_nodes = state[1][0][state[1][0].shape[0] - 1], node_dom.shape[1]
    g = pod_sg[pod]
    if g < 0:
        out[:] = 0
        return
    lo, hi = sg_ptr[g], sg_ptr[g + 1]
    reqall = sg_reqall[g]
    size[: hi - lo] = 0
    n_scored = 0
    for i in range(nodes.shape[0]):
        node = nodes[i]
        if reqall and not _has_all(node_dom, sc_key, lo, hi, node):
            continue
        n_scored += 1
        for c in range(lo, hi):
            if sc_host[c]:
                continue
            x = key_off[sc_key[c]] + _dom(node_dom, sc_key[c], node)
            if not seen[x]:  # the pair is new: the first constraint of its key counts it
                seen[x] = True
                size[c - lo] += 1
    for c in range(lo, hi):
        sz = n_scored if sc_host[c] else size[c - lo]
        weight[c - lo] = go_log(float(sz + 2))
    for i in range(nodes.shape[0]):
        node = nodes[i]
        if reqall and not _has_all(node_dom, sc_key, lo, hi, node):
            out[i] = 0
            continue
        s = 0.0
        for c in range(lo, hi):
            d = node_dom[sc_key[c], node]
            if d < 0:
                continue
            if sc_host[c]:
                cnt = ct.get(keys, vals, host_base + sc_idx[c] * n_nodes + node)
            else:
                cnt = se_cnt[se_off[sc_idx[c]] + d]
            s += float(cnt) * weight[c - lo] + float(sc_skew[c] - 1)
        out[i] = np.int64(s)


@unrefcounted_kernel
def normalize_pod(state, pod, nodes, scores):  # pragma: no cover - compiled
    """``NormalizeScore``: ignored nodes 0, the rest ``100 * (max + min - s) / max``."""
    node_dom = state[0][0]
    pod_sg, sg_ptr, sg_reqall, sc_key = state[2][0], state[2][1], state[2][2], state[2][4]
    g = pod_sg[pod]
    reqall = False
    lo = hi = np.int64(0)
    if g >= 0:
        reqall = sg_reqall[g]
        lo, hi = sg_ptr[g], sg_ptr[g + 1]
    min_score = np.int64(9223372036854775807)
    max_score = np.int64(0)
    for i in range(scores.shape[0]):
        if reqall and not _has_all(node_dom, sc_key, lo, hi, nodes[i]):
            scores[i] = -1
            continue
        min_score = min(min_score, scores[i])
        max_score = max(max_score, scores[i])
    for i in range(scores.shape[0]):
        if scores[i] == -1:
            scores[i] = 0
        elif max_score == 0:
            scores[i] = 100
        else:
            num = 100 * (max_score + min_score - scores[i])
            q = abs(num) // max_score
            scores[i] = q if num >= 0 else -q


@inline_kernel
def _count(state, pod, node, delta):  # pragma: no cover - compiled
    """Add ``delta`` (1: bound, -1: deleted) to every counter of a selector the pod matches
    on ``node``, and keep the filter entries' minima. Whether any counter was there to
    change (the verdicts and scores of other nodes may then change too)."""
    node_dom = state[0][0]
    filt, score = state[1], state[2]
    fe_off, fe_cnt, fe_exists, fe_min, fe_key = filt[0], filt[1], filt[2], filt[3], filt[4]
    fe_doff, fe_zero = filt[10], filt[11]
    se_off, se_cnt, se_group, se_key = score[8], score[9], score[10], score[11]
    sg_ptr, sg_reqall, sg_aff, sc_key, aff_match = score[1], score[2], score[3], score[4], score[12]
    keys, vals, used = state[TABLE]
    host_base, n_nodes = fe_off[fe_off.shape[0] - 1], node_dom.shape[1]
    psel_ptr, psel, use_ptr, use_kind, use_idx = state[3]
    for q in range(psel_ptr[pod], psel_ptr[pod + 1]):
        s = psel[q]
        for u in range(use_ptr[s], use_ptr[s + 1]):
            i = use_idx[u]
            if use_kind[u] == USE_FILTER:
                d = _dom(node_dom, fe_key[i], node)
                x = fe_off[i] + d
                off = fe_doff[i]
                if off >= 0:
                    fe_cnt[off + d] += delta
                    if not fe_exists[x]:
                        continue
                    new = np.int64(fe_cnt[off + d])
                elif not fe_exists[x]:
                    continue  # (a wide entry counts existing pairs only: the others are 0)
                else:
                    new = ct.add(keys, vals, used, x, delta)
                    if new - delta == 0:
                        fe_zero[i] -= 1
                    elif new == 0:
                        fe_zero[i] += 1
                    if fe_zero[i] > 0:
                        fe_min[i] = 0
                        continue
                if delta < 0 and new < fe_min[i]:
                    fe_min[i] = new
                elif delta > 0 and new - delta == fe_min[i]:
                    fe_min[i] = _entry_min(filt, keys, vals, i)
            elif use_kind[u] == USE_SCORE:
                if _eligible(node_dom, sg_ptr, sg_reqall, sg_aff, sc_key, aff_match,
                             se_group[i], node):  # fmt: skip
                    se_cnt[se_off[i] + _dom(node_dom, se_key[i], node)] += delta
            else:
                ct.add(keys, vals, used, host_base + i * n_nodes + node, delta)
    return psel_ptr[pod + 1] > psel_ptr[pod]


@unrefcounted_kernel
def assume(state, pod, node):  # pragma: no cover - compiled
    """The pod is bound to ``node``: every counter of a selector it matches (the next
    PreFilter/PreScore counts it), and the minima of the filter entries it raised.
    Whether a counter changed (:func:`_count`)."""
    return _count(state, pod, node, np.int64(1))


@unrefcounted_kernel
def remove(state, pod, node):  # pragma: no cover - compiled
    """The pod bound to ``node`` is deleted (``NodeInfo.RemovePod``; the next PreFilter
    and PreScore count without it): ``assume`` undone, the filter minima lowered."""
    return _count(state, pod, node, np.int64(-1))


# -- preparation (called once per state by ``plugin``) -----------------------------------


@kernel
def affinity_rows(na_state, reps, n_nodes):  # pragma: no cover - compiled
    """bool[A, N]: NodeAffinity's pod filter (no added affinity) of each representative."""
    out = np.zeros((reps.shape[0], n_nodes), dtype=np.bool_)
    for a in range(reps.shape[0]):
        for n in range(n_nodes):
            out[a, n] = na_kernels.filter_node(na_state, reps[a], n) == 0
    return out


@kernel
def match_pods(pod_ns, pod_vals, sel_ns_ptr, sel_nothing, comp):  # pragma: no cover
    """The selectors (sorted by namespace) each pod matches: CSR (ptr, sel)."""
    req_ptr, req_key, req_op, req_vptr, req_vals = comp
    n = pod_ns.shape[0]
    ptr = np.zeros(n + 1, dtype=np.int64)
    for rnd in range(2):
        out = np.empty(ptr[n], dtype=np.int64)
        for p in range(n):
            m = 0
            ns = pod_ns[p]
            for s in range(sel_ns_ptr[ns], sel_ns_ptr[ns + 1]):
                if not sel_nothing[s] and _requirements_hold(
                    pod_vals[p], req_ptr[s], req_ptr[s + 1], req_key, req_op, req_vptr, req_vals
                ):
                    if rnd == 1:
                        out[ptr[p] + m] = s
                    m += 1
            if rnd == 0:
                ptr[p + 1] = ptr[p] + m
    return ptr, out


@kernel
def self_matches(pf_ptr, pf_sel, psel_ptr, psel):  # pragma: no cover - compiled
    """bool[C]: constraint c's selector is among its pod's matched selectors."""
    out = np.zeros(pf_sel.shape[0], dtype=np.bool_)
    for p in range(pf_ptr.shape[0] - 1):
        for c in range(pf_ptr[p], pf_ptr[p + 1]):
            for q in range(psel_ptr[p], psel_ptr[p + 1]):
                if psel[q] == pf_sel[c]:
                    out[c] = True
    return out


@kernel
def fill_counts(state, sig, sel_ns, sel_nothing, comp, fe_aff, fe_keys_ptr, fe_keys
                ):  # pragma: no cover - compiled
    """The filter entries' pairs (eligible nodes' values); then every selector's existing
    pods per node, counted once and added to the dense counters that use it. The wide
    entries' and hostname rows' counts are returned instead, for the table: (keys,
    counts, how many).

    ``sig`` = (sig_ns_ptr, sig_vals, sig_ptr, ent_node, ent_count): signatures of the
    non-terminating existing pods (namespace, local label ids) and their pods per node.
    """
    node_dom = state[0][0]
    filt, score = state[1], state[2]
    fe_off, fe_cnt, fe_exists, fe_key = filt[0], filt[1], filt[2], filt[4]
    fe_doff, fe_zero = filt[10], filt[11]
    se_off, se_cnt, se_group, se_key, aff_match = (
        score[8], score[9], score[10], score[11], score[12])
    sg_ptr, sg_reqall, sg_aff, sc_key = score[1], score[2], score[3], score[4]
    use_ptr, use_kind, use_idx = state[3][2], state[3][3], state[3][4]
    sig_ns_ptr, sig_vals, sig_ptr, ent_node, ent_count = sig
    req_ptr, req_key, req_op, req_vptr, req_vals = comp
    n_nodes = node_dom.shape[1]
    host_base = fe_off[fe_off.shape[0] - 1]
    for e in range(fe_key.shape[0]):
        a = fe_aff[e]
        for n in range(n_nodes):
            if a >= 0 and not aff_match[a, n]:
                continue
            if _has_all(node_dom, fe_keys, fe_keys_ptr[e], fe_keys_ptr[e + 1], n):
                x = fe_off[e] + node_dom[fe_key[e], n]
                if not fe_exists[x]:
                    fe_exists[x] = True
                    fe_zero[e] += 1  # (its existing pairs, all at 0 so far)
    xs = np.empty(16, dtype=np.int64)
    cs = np.empty(16, dtype=np.int64)
    n_out = 0
    row = np.zeros(n_nodes, dtype=np.int64)
    touched = np.empty(n_nodes, dtype=np.int64)  # the nodes of row that are not 0
    for s in range(sel_ns.shape[0]):
        n_touched = 0
        if not sel_nothing[s]:
            ns = sel_ns[s]
            for g in range(sig_ns_ptr[ns], sig_ns_ptr[ns + 1]):
                if _requirements_hold(sig_vals[g], req_ptr[s], req_ptr[s + 1], req_key, req_op,
                                      req_vptr, req_vals):
                    for e in range(sig_ptr[g], sig_ptr[g + 1]):
                        n = ent_node[e]
                        if row[n] == 0 and ent_count[e] != 0:
                            touched[n_touched] = n
                            n_touched += 1
                        row[n] += ent_count[e]
        for u in range(use_ptr[s], use_ptr[s + 1]):
            i = use_idx[u]
            for t in range(n_touched):
                n = touched[t]
                x = np.int64(-1)
                if use_kind[u] == USE_FILTER:
                    d = _dom(node_dom, fe_key[i], n)
                    if fe_doff[i] >= 0:
                        fe_cnt[fe_doff[i] + d] += row[n]
                    elif fe_exists[fe_off[i] + d]:
                        x = fe_off[i] + d
                elif use_kind[u] == USE_SCORE:
                    if _eligible(node_dom, sg_ptr, sg_reqall, sg_aff, sc_key, aff_match,
                                 se_group[i], n):  # fmt: skip
                        se_cnt[se_off[i] + _dom(node_dom, se_key[i], n)] += row[n]
                else:
                    x = host_base + i * n_nodes + n
                if x >= 0:
                    if n_out == xs.shape[0]:
                        xs, cs = ct.grown(xs), ct.grown(cs)
                    xs[n_out] = x
                    cs[n_out] = row[n]
                    n_out += 1
        for t in range(n_touched):
            row[touched[t]] = 0
    return xs, cs, n_out


@kernel
def finish_minima(filt, table):  # pragma: no cover - compiled
    """Each filter entry's minimum over its existing pairs, the table filled with the wide
    entries' counts (``fe_zero`` then drops from their existing pairs to those at 0)."""
    fe_off, fe_min, fe_doff, fe_zero = filt[0], filt[3], filt[10], filt[11]
    keys, vals = table[0], table[1]
    host_base = fe_off[fe_off.shape[0] - 1]
    for j in range(keys.shape[0]):
        x = keys[j]
        if 0 <= x < host_base and vals[j] != 0:
            fe_zero[np.searchsorted(fe_off, x, side="right") - 1] -= 1
    for e in range(fe_min.shape[0]):
        if fe_doff[e] < 0 and fe_zero[e] > 0:
            fe_min[e] = 0
        else:
            fe_min[e] = _entry_min(filt, keys, vals, e)
