"""numba kernels of InterPodAffinity; the scalar specification is ``reference.py``.

Vocabulary (built by ``plugin.prepare``, see its docstring for how):

* a *domain* is a value of a topology key on the nodes: ``node_dom[n, k]`` is node ``n``'s
  domain of key ``k`` (0, 1, ... per key; -1 when the node lacks the key);
* a *resolved term* (``rt``) is a pod affinity term's label selector plus the namespaces
  it accepts, resolved once: for the incoming pod's terms the namespace selector merged
  into the namespaces (``mergeAffinityTermNamespacesIfNotEmpty``), for an existing pod's
  terms the namespace selector evaluated on each namespace's labels (``Matches`` with the
  incoming pod's namespace labels). ``_rt_match`` is ``AffinityTerm.Matches``;
* a *counter* counts, per domain of one topology key, the existing pods that match all
  of a list of resolved terms (the incoming pod's required affinity terms, ANDed, as
  ``updateWithAffinityTerms`` does; or one anti-affinity or preferred term). Its
  ``cnt_total`` sums its domains: zero for all of a pod's affinity counters is
  ``len(affinityCounts) == 0``;
* an *existing term* (``xt``) is a term some existing (or assumed) pod carries, kept per
  (kind, resolved term, topology key): kind anti (required anti-affinity: how many pods
  carry it per domain, for ``satisfyExistingPodsAntiAffinity``) or score (required
  affinity × ``hardPodAffinityWeight``, preferred affinity +weight, preferred
  anti-affinity -weight: the weight summed per domain, ``processExistingPod``'s second
  half). Every pending pod's own terms are registered too, with nothing counted, so that
  ``assume`` only adds;
* a pending pod's *class* is its (namespace, label values the selectors read); the
  existing terms matching each class are listed once.

State (B pending pods, N nodes, K topology keys):

====  =====================  ==========================================================
 0    node_dom               int32[N, K]
 1    terms                  tuple: (sel_ptr int64[S+1], sel_key int32[R], sel_op int8[R],
                             sel_vptr int64[R+1], sel_vals int32[V]: compiled label
                             selectors over local value ids, see
                             ``model.selectors.CompiledRequirements``; rt_sel int64[T]
                             (-1: ``Nothing()``), rt_ns_all bool[T], rt_ns_ptr
                             int64[T+1], rt_ns int32[.]: sorted namespace ids)
 2    pod_ns                 int32[B]: namespace ids (``snapshot.namespaces``)
 3    pod_vals               int32[B, L]: local label value ids (selector space)
 4-5  cnt_ptr, cnt_rt         int64[C+1], int64[.]: the counter's resolved terms (ANDed)
 6    cnt_key                int64[C]
 7-8  cnt_off, cnt_val       int64[C+1], int64[.]: counter c's pairs are cnt_off[c] +
                             domain (pair ids); counts per domain of the dense counters
                             at cnt_doff[c] + domain (``assume`` adds)
 9    cnt_total              int64[C]
10-11 pod_aff_ptr, pod_aff   int64[B+1], int64[.]: per required affinity term, its counter
12    pod_self               bool[B]: the pod matches all its own affinity terms
13-14 pod_anti_ptr, pod_anti int64[B+1], int64[.]: per required anti-affinity term
15    xt_key                 int64[X]
16-17 xt_off, xt_val         int64[X+1], int64[.]: pair ids (after the counters':
                             cnt_off[C] + xt_off[x] + domain); per domain, the dense
                             ones at xt_doff[x] + domain (``assume`` adds)
18    pod_cls                int64[B]
19-20 cls_anti_ptr, cls_anti int64[Q+1], int64[.]: anti existing terms matching the class
21-22 cls_score_ptr,         int64[Q+1], int64[.]: score existing terms matching it
      cls_score
23-25 pod_pref_ptr,          int64[B+1], int64[.], int64[.]: the pod's preferred terms:
      pod_pref, pod_pref_w   counter and signed weight
26-28 pod_own_ptr, pod_own,  int64[B+1], int64[.], int64[.]: the pod's own terms as
      pod_own_w              existing terms, and what ``assume`` adds to each
29    filter_key             int64[B]
30-31 ns_cnt_ptr, ns_cnt     int64[NS+1], int64[.]: the counters that accept namespace
                             ``ns`` explicitly (every term of theirs lists it)
32    all_cnt                int64[.]: the counters whose terms accept every namespace
33    score_groups           int64[B]: equal (class, preferred terms), equal raw scores
                             (the framework's rows; no kernel reads it)
34    cnt_doff               int64[C]: the counter's offset in cnt_val; -1: a wide one
                             (a key of many domains, as hostname), in the table
35    xt_doff                int64[X]: the same for existing terms (xt_val)
36    table                  ``helper.counter_table`` (int64 counts): the wide counters'
                             and existing terms' values that are not 0, by pair id
37    col_off                int64[L]: bucket ids: col_off[column] + local value id
38-39 bucket_ptr, bucket_cnt int64[.], int64[.]: the counters anchored on each bucket (an
                             ``In`` requirement of theirs holds the value: ``anchors``)
40-42 un_ptr, un_cnt, all_un  as ns_cnt_ptr, ns_cnt, all_cnt, for the counters without
                             an anchor: ``assume`` tries those and the buckets of the
                             pod's values, not every counter
====  =====================  ==========================================================

Dense per-domain values would hold one int64 per (term, node) for hostname keys: with a
selector per Deployment, pods × nodes. The table holds the wide ones that are not 0 (and
those that were), sized once for every pair the pods can make non-zero.
"""

from __future__ import annotations

import numpy as np

from ..._jit import inline_kernel, kernel, unrefcounted_kernel
from ..helper import counter_table as ct
from ..selectorspread.kernels import _requirements_hold

#: ``filter_node`` codes: satisfyPodAffinity (UnschedulableAndUnresolvable),
#: satisfyPodAntiAffinity, satisfyExistingPodsAntiAffinity (both Unschedulable)
PASS, FAIL_AFFINITY, FAIL_ANTI_AFFINITY, FAIL_EXISTING_ANTI_AFFINITY = 0, 1, 2, 3

_INT64_MAX = np.int64(9223372036854775807)


@inline_kernel
def _rt_match(sel_ptr, sel_key, sel_op, sel_vptr, sel_vals, rt_sel, rt_ns_all, rt_ns_ptr, rt_ns,
              rt, ns, vals, row):  # pragma: no cover - compiled  # fmt: skip
    """``AffinityTerm.Matches`` of resolved term ``rt`` on a pod (namespace, labels); the
    arrays of ``terms`` are passed one by one (a tuple argument costs every array's
    reference count on each call)."""
    if not rt_ns_all[rt]:
        found = False
        for q in range(rt_ns_ptr[rt], rt_ns_ptr[rt + 1]):
            if rt_ns[q] == ns:
                found = True
                break
        if not found:
            return False
    s = rt_sel[rt]
    if s < 0:
        return False
    return _requirements_hold(vals[row], sel_ptr[s], sel_ptr[s + 1], sel_key, sel_op, sel_vptr,
                              sel_vals)  # fmt: skip


#: the state's entries added for the table, and for finding the counters a pod matches
CNT_DOFF, XT_DOFF, TABLE = 34, 35, 36
COL_OFF, BUCKET_PTR, BUCKET_CNT, UN_PTR, UN_CNT, ALL_UN = 37, 38, 39, 40, 41, 42


@inline_kernel
def _at(node_dom, key, off, doff, val, table, node):  # pragma: no cover - compiled
    """A counter's or an existing term's value in ``node``'s domain (0 without the key):
    ``off``: its pair ids' start, ``doff``: its dense values' (-1: in the table)."""
    d = node_dom[node, key]
    if d < 0:
        return np.int64(0)
    return val[doff + d] if doff >= 0 else ct.get(table[0], table[1], off + d)


@inline_kernel
def _all_match(sel_ptr, sel_key, sel_op, sel_vptr, sel_vals, rt_sel, rt_ns_all, rt_ns_ptr,
               rt_ns, rts, lo, hi, ns, vals, row):  # pragma: no cover - compiled  # fmt: skip
    """Every resolved term ``rts[lo:hi]`` matches the pod."""
    for j in range(lo, hi):
        if not _rt_match(sel_ptr, sel_key, sel_op, sel_vptr, sel_vals, rt_sel, rt_ns_all,
                         rt_ns_ptr, rt_ns, rts[j], ns, vals, row):  # fmt: skip
            return False
    return True


@inline_kernel
def filter_node(state, pod, node):  # pragma: no cover - compiled
    """``Filter``: the pod's affinity, its anti-affinity, existing pods' anti-affinity."""
    node_dom = state[0]
    cnt_key, cnt_off, cnt_val, cnt_total = state[6], state[7], state[8], state[9]
    cnt_doff, xt_doff, table = state[CNT_DOFF], state[XT_DOFF], state[TABLE]
    aff_ptr, aff = state[10], state[11]
    exists = True
    for i in range(aff_ptr[pod], aff_ptr[pod + 1]):
        c = aff[i]
        if node_dom[node, cnt_key[c]] < 0:
            return 1  # all topology labels must exist on the node
        if _at(node_dom, cnt_key[c], cnt_off[c], cnt_doff[c], cnt_val, table, node) <= 0:
            exists = False
    if not exists:
        total = 0
        for i in range(aff_ptr[pod], aff_ptr[pod + 1]):
            total += cnt_total[aff[i]]
        if total != 0 or not state[12][pod]:
            return 1
    anti_ptr, anti = state[13], state[14]
    for i in range(anti_ptr[pod], anti_ptr[pod + 1]):
        c = anti[i]
        if _at(node_dom, cnt_key[c], cnt_off[c], cnt_doff[c], cnt_val, table, node) > 0:
            return 2
    xt_key, xt_off, xt_val = state[15], state[16], state[17]
    xbase = cnt_off[cnt_off.shape[0] - 1]
    cls = state[18][pod]
    cls_ptr, cls_anti = state[19], state[20]
    for i in range(cls_ptr[cls], cls_ptr[cls + 1]):
        x = cls_anti[i]
        if _at(node_dom, xt_key[x], xbase + xt_off[x], xt_doff[x], xt_val, table, node) > 0:
            return 3
    return 0


@unrefcounted_kernel
def score_pod(state, pod, nodes, out):  # pragma: no cover - compiled
    """``Score``: the pod's preferred terms over the existing pods they match, and the
    existing pods' terms that match the pod, summed over each node's domains."""
    node_dom = state[0]
    cnt_key, cnt_off, cnt_val = state[6], state[7], state[8]
    xt_key, xt_off, xt_val = state[15], state[16], state[17]
    cnt_doff, xt_doff, table = state[CNT_DOFF], state[XT_DOFF], state[TABLE]
    xbase = cnt_off[cnt_off.shape[0] - 1]
    cls = state[18][pod]
    cls_ptr, cls_score = state[21], state[22]
    pref_ptr, pref, pref_w = state[23], state[24], state[25]
    for i in range(nodes.shape[0]):
        node = nodes[i]
        score = 0
        for j in range(pref_ptr[pod], pref_ptr[pod + 1]):
            c = pref[j]
            score += pref_w[j] * _at(node_dom, cnt_key[c], cnt_off[c], cnt_doff[c], cnt_val,
                                     table, node)  # fmt: skip
        for j in range(cls_ptr[cls], cls_ptr[cls + 1]):
            x = cls_score[j]
            score += _at(node_dom, xt_key[x], xbase + xt_off[x], xt_doff[x], xt_val, table, node)
        out[i] = score


@unrefcounted_kernel
def normalize_pod(state, pod, nodes, scores):  # pragma: no cover - compiled
    """``NormalizeScore``: min-max over the scored nodes, Go's float order, truncated (an
    empty ``topologyScore`` leaves zeros, which this also gives)."""
    min_count = _INT64_MAX
    max_count = -_INT64_MAX
    for i in range(scores.shape[0]):
        if scores[i] > max_count:
            max_count = scores[i]
        if scores[i] < min_count:
            min_count = scores[i]
    diff = max_count - min_count
    for i in range(scores.shape[0]):
        f_score = 0.0
        if diff > 0:
            f_score = 100.0 * (np.float64(scores[i] - min_count) / np.float64(diff))
        scores[i] = np.int64(f_score)


@inline_kernel
def _bump(t0, t1, t2, t3, t4, t5, t6, t7, t8, node_dom, cnt_ptr, cnt_rt, cnt_key, cnt_off,
          cnt_val, cnt_total, cnt_doff, tkeys, tvals, used, c, ns, vals, pod, node, sign
          ):  # pragma: no cover - compiled  # fmt: skip
    """Counter ``c`` counts the pod on ``node`` ``sign`` times more if its terms all
    match the pod and the node has its key; whether it did."""
    d = node_dom[node, cnt_key[c]]
    if d < 0 or not _all_match(t0, t1, t2, t3, t4, t5, t6, t7, t8, cnt_rt, cnt_ptr[c],
                               cnt_ptr[c + 1], ns, vals, pod):  # fmt: skip
        return False
    if cnt_doff[c] >= 0:
        cnt_val[cnt_doff[c] + d] += sign
    else:
        ct.add(tkeys, tvals, used, cnt_off[c] + d, sign)
    cnt_total[c] += sign
    return True


@inline_kernel
def _count(state, pod, node, sign):  # pragma: no cover - compiled
    """Add ``sign`` (1: bound, -1: deleted) times the pod on ``node`` to every counter
    whose terms it matches, and its own terms' weights to the existing terms. Whether
    anything changed (the verdicts and scores of other nodes may then change too)."""
    changed = False
    node_dom = state[0]
    t0, t1, t2, t3, t4, t5, t6, t7, t8 = state[1]
    ns, vals = state[2][pod], state[3]
    cnt_ptr, cnt_rt, cnt_key = state[4], state[5], state[6]
    cnt_off, cnt_val, cnt_total = state[7], state[8], state[9]
    cnt_doff, xt_doff, (tkeys, tvals, used) = state[CNT_DOFF], state[XT_DOFF], state[TABLE]
    col_off, b_ptr, b_cnt = state[COL_OFF], state[BUCKET_PTR], state[BUCKET_CNT]
    un_ptr, un, all_un = state[UN_PTR], state[UN_CNT], state[ALL_UN]
    # the counters the pod can match: those without an anchor its namespace can match,
    # and the anchored ones whose anchor holds one of the pod's values
    n_un = un_ptr[ns + 1] - un_ptr[ns]
    for i in range(n_un + all_un.shape[0]):
        c = un[un_ptr[ns] + i] if i < n_un else all_un[i - n_un]
        changed |= _bump(t0, t1, t2, t3, t4, t5, t6, t7, t8, node_dom, cnt_ptr, cnt_rt,
                         cnt_key, cnt_off, cnt_val, cnt_total, cnt_doff, tkeys, tvals, used,
                         c, ns, vals, pod, node, sign)  # fmt: skip
    for j in range(col_off.shape[0]):
        v = vals[pod, j]
        if v < 2:  # (absent, or a value no selector mentions)
            continue
        b = col_off[j] + v
        for i in range(b_ptr[b], b_ptr[b + 1]):
            changed |= _bump(t0, t1, t2, t3, t4, t5, t6, t7, t8, node_dom, cnt_ptr, cnt_rt,
                             cnt_key, cnt_off, cnt_val, cnt_total, cnt_doff, tkeys, tvals,
                             used, b_cnt[i], ns, vals, pod, node, sign)  # fmt: skip
    xt_key, xt_off, xt_val = state[15], state[16], state[17]
    xbase = cnt_off[cnt_off.shape[0] - 1]
    own_ptr, own, own_w = state[26], state[27], state[28]
    for j in range(own_ptr[pod], own_ptr[pod + 1]):
        x = own[j]
        d = node_dom[node, xt_key[x]]
        if d >= 0:
            if xt_doff[x] >= 0:
                xt_val[xt_doff[x] + d] += sign * own_w[j]
            else:
                ct.add(tkeys, tvals, used, xbase + xt_off[x] + d, sign * own_w[j])
            changed = True
    return changed


@unrefcounted_kernel
def assume(state, pod, node):  # pragma: no cover - compiled
    """Bind ``pod`` to ``node``: it counts for every counter whose terms it matches, and
    its own terms become existing terms. Whether anything changed (:func:`_count`)."""
    return _count(state, pod, node, np.int64(1))


@unrefcounted_kernel
def remove(state, pod, node):  # pragma: no cover - compiled
    """The pod bound to ``node`` is deleted (``NodeInfo.RemovePod``): ``assume`` undone."""
    return _count(state, pod, node, np.int64(-1))


# -- prepare ------------------------------------------------------------------------------


@kernel
def count_counters(  # pragma: no cover - compiled
    terms, node_dom, cnt_ptr, cnt_rt, cnt_key, cnt_off, ns_cnt_ptr, ns_cnt, all_cnt, sig_ns,
    sig_vals, ent_ptr, ent_node, ent_count, cnt_val, cnt_total, cnt_doff,
):  # fmt: skip
    """The existing pods (signatures ``s``: namespace, label values; ``ent_*``: their
    pod counts per node) into the counters their namespace can match; the wide counters'
    counts returned instead, for the table: (pair ids, counts, how many)."""
    t0, t1, t2, t3, t4, t5, t6, t7, t8 = terms
    xs = np.empty(16, dtype=np.int64)
    cs = np.empty(16, dtype=np.int64)
    n_out = 0
    for s in range(sig_ns.shape[0]):
        ns = sig_ns[s]
        n_ns = ns_cnt_ptr[ns + 1] - ns_cnt_ptr[ns]
        for i in range(n_ns + all_cnt.shape[0]):
            c = ns_cnt[ns_cnt_ptr[ns] + i] if i < n_ns else all_cnt[i - n_ns]
            if not _all_match(t0, t1, t2, t3, t4, t5, t6, t7, t8, cnt_rt, cnt_ptr[c],
                              cnt_ptr[c + 1], ns, sig_vals, s):  # fmt: skip
                continue
            key = cnt_key[c]
            for e in range(ent_ptr[s], ent_ptr[s + 1]):
                d = node_dom[ent_node[e], key]
                if d >= 0:
                    if cnt_doff[c] >= 0:
                        cnt_val[cnt_doff[c] + d] += ent_count[e]
                    else:
                        if n_out == xs.shape[0]:
                            xs, cs = ct.grown(xs), ct.grown(cs)
                        xs[n_out] = cnt_off[c] + d
                        cs[n_out] = ent_count[e]
                        n_out += 1
                    cnt_total[c] += ent_count[e]
    return xs, cs, n_out


@inline_kernel
def _anchor(sel_ptr, sel_op, rt_sel, item_rt, lo, hi):  # pragma: no cover - compiled
    """The first ``In`` requirement of the selectors of resolved terms ``item_rt[lo:hi]``
    (every pod matching them all holds one of its values), or -1."""
    for j in range(lo, hi):
        s = rt_sel[item_rt[j]]
        if s < 0:
            continue
        for r in range(sel_ptr[s], sel_ptr[s + 1]):
            if sel_op[r] == 0:
                return r
    return -1


@kernel
def anchors(terms, item_ptr, item_rt):  # pragma: no cover - compiled
    """Per item (resolved terms ``item_rt[item_ptr[x]:item_ptr[x+1]]``, ANDed): the column
    and the local value ids of its anchor (:func:`_anchor`): (key int64[I], -1 without
    one; vptr int64[I+1], vals int64[.])."""
    sel_ptr, sel_key, sel_op, sel_vptr, sel_vals, rt_sel = (
        terms[0], terms[1], terms[2], terms[3], terms[4], terms[5])
    n = item_ptr.shape[0] - 1
    key = np.full(n, -1, dtype=np.int64)
    vptr = np.zeros(n + 1, dtype=np.int64)
    req = np.full(n, -1, dtype=np.int64)
    for x in range(n):
        r = _anchor(sel_ptr, sel_op, rt_sel, item_rt, item_ptr[x], item_ptr[x + 1])
        req[x] = r
        vptr[x + 1] = vptr[x]
        if r >= 0:
            key[x] = sel_key[r]
            vptr[x + 1] += sel_vptr[r + 1] - sel_vptr[r]
    vals = np.empty(vptr[n], dtype=np.int64)
    for x in range(n):
        r = req[x]
        if r >= 0:
            for q in range(sel_vptr[r + 1] - sel_vptr[r]):
                vals[vptr[x] + q] = sel_vals[sel_vptr[r] + q]
    return key, vptr, vals


@kernel
def match_classes(terms, item_ptr, item_rt, item_on, anc_key, anc_vptr, anc_vals, cls_ns,
                  cls_vals, bucket_ptr, bucket_cls, col_off):  # pragma: no cover - compiled
    """The (class, item) pairs where a pod of the class matches every resolved term of
    the item (``item_on`` only), in no order: an anchored item is tried on the classes
    holding one of its anchor's values (``bucket_*``: classes by column and value id,
    ``col_off[column] + value``), the others on every class. (classes int64[.], items
    int64[.], how many)."""
    t0, t1, t2, t3, t4, t5, t6, t7, t8 = terms
    qs = np.empty(16, dtype=np.int64)
    xs = np.empty(16, dtype=np.int64)
    n = 0
    n_cls = cls_ns.shape[0]
    for x in range(item_on.shape[0]):
        if not item_on[x]:
            continue
        lo, hi = item_ptr[x], item_ptr[x + 1]
        k = anc_key[x]
        n_try = n_cls if k < 0 else anc_vptr[x + 1] - anc_vptr[x]
        for v in range(n_try):  # anchored: a bucket per anchor value; else each class
            b_lo, b_hi = np.int64(v), np.int64(v + 1)
            if k >= 0:
                b = col_off[k] + anc_vals[anc_vptr[x] + v]
                b_lo, b_hi = bucket_ptr[b], bucket_ptr[b + 1]
            for i in range(b_lo, b_hi):
                q = bucket_cls[i] if k >= 0 else i
                if _all_match(t0, t1, t2, t3, t4, t5, t6, t7, t8, item_rt, lo, hi, cls_ns[q],
                              cls_vals, q):  # fmt: skip
                    if n == qs.shape[0]:
                        qs, xs = ct.grown(qs), ct.grown(xs)
                    qs[n] = q
                    xs[n] = x
                    n += 1
    return qs, xs, n
