"""numba kernels of NodeAffinity; the scalar specification is ``reference.py``.

The state (built by ``plugin.prepare``) is one tuple; N nodes (node-tree order), K
declared label keys (those the batch's and the args' terms and nodeSelectors mention),
B pending pods:

====  ===================  ===============================================================
 0    node_vals            int32[N, K]: local value ids of a
                           :class:`~kscore_fast.model.selectors.SelectorSpace` (0 absent,
                           1 a value no requirement mentions, 2.. the mentioned values)
 1    node_int             int64[N, K]: the label value parsed by ``strconv.ParseInt(v,
                           10, 64)`` (Gt/Lt)
 2    node_int_ok          bool[N, K]: that parse succeeded
 3    node_named           bool[N]: the node's name is not empty (``extractNodeFields``
                           gives no fields otherwise, and ``matchFields`` is skipped)
 4    req_op               int8[R]: ``OP_*`` below
 5    req_col              int32[R]: the label column of a label requirement
 6    req_num              int64[R]: Gt/Lt operand; for ``OP_FIELD_*`` the node whose name
                           the field requirement names (-1: none)
 7-8  req_vptr, req_vals   int64[R+1], int32[V]: In/NotIn local value ids
 9    term_ptr             int64[T+1]: term ``t`` is its requirements ANDed (a term that
                           failed to parse is one ``OP_NEVER``)
10-11 sel_ptr, sel_term    int64[S+1], int64[ST]: selector ``s`` is its terms ORed
12    pod_group            int64[B]: the pod's (nodeSelector, required affinity) group
13    grp_map_term         int64[G]: the group's nodeSelector as a term (-1: none)
14    grp_sel              int64[G]: its required node selector (-1: none)
15    added_sel            int64: ``addedAffinity`` required selector (-1: none)
16-18 pref_ptr, pref_term, int64[B+1], int64[P], int64[P]: the pod's preferred terms
      pref_weight          (none when its PreScore fails)
19-20 added_pref_term,     int64[A], int64[A]: ``addedAffinity`` preferred terms
      added_pref_weight
====  ===================  ===============================================================
"""

from __future__ import annotations

from ..._jit import inline_kernel, unrefcounted_kernel

#: requirement operators (``req_op``)
OP_IN, OP_NOT_IN, OP_EXISTS, OP_DOES_NOT_EXIST, OP_GT, OP_LT = 0, 1, 2, 3, 4, 5
#: ``metadata.name`` is / is not the node ``req_num``, or the node has no name
OP_FIELD_EQ, OP_FIELD_NE = 6, 7
#: a term that failed to parse
OP_NEVER = 8

#: ``filter_node`` codes
PASS, FAIL_ENFORCED, FAIL_POD = 0, 1, 2


@inline_kernel
def _requirement_holds(st, r, node):  # pragma: no cover - compiled
    """``Requirement.Matches`` (labels) or a field term's ``Matches`` (fields)."""
    node_vals, node_int, node_int_ok, node_named = st[0], st[1], st[2], st[3]
    op, col, num, vptr, vals = st[4][r], st[5][r], st[6][r], st[7], st[8]
    if op == 6:
        return not node_named[node] or node == num
    if op == 7:
        return not node_named[node] or node != num
    if op == 8:
        return False
    x = node_vals[node, col]
    if op == 2:
        return x != 0
    if op == 3:
        return x == 0
    if op == 4:
        return x != 0 and node_int_ok[node, col] and node_int[node, col] > num
    if op == 5:
        return x != 0 and node_int_ok[node, col] and node_int[node, col] < num
    found = False
    for q in range(vptr[r], vptr[r + 1]):
        if vals[q] == x:
            found = True
            break
    return found if op == 0 else not found


@inline_kernel
def _term_holds(st, t, node):  # pragma: no cover - compiled
    term_ptr = st[9]
    for r in range(term_ptr[t], term_ptr[t + 1]):
        if not _requirement_holds(st, r, node):
            return False
    return True


@inline_kernel
def _selector_holds(st, s, node):  # pragma: no cover - compiled
    """Terms ORed (no term: no match)."""
    sel_ptr, sel_term = st[10], st[11]
    for i in range(sel_ptr[s], sel_ptr[s + 1]):
        if _term_holds(st, sel_term[i], node):
            return True
    return False


@inline_kernel
def filter_node(state, pod, node):  # pragma: no cover - compiled
    """``Filter``: the added affinity first, then nodeSelector AND required affinity."""
    added = state[15]
    if added >= 0 and not _selector_holds(state, added, node):
        return 1
    g = state[12][pod]
    t = state[13][g]
    if t >= 0 and not _term_holds(state, t, node):
        return 2
    s = state[14][g]
    if s >= 0 and not _selector_holds(state, s, node):
        return 2
    return 0


@unrefcounted_kernel
def score_pod(state, pod, nodes, out):  # pragma: no cover - compiled
    """``Score``: the weights of the added and the pod's preferred terms that match."""
    pref_ptr, pref_term, pref_weight = state[16], state[17], state[18]
    added_term, added_weight = state[19], state[20]
    for i in range(nodes.shape[0]):
        node = nodes[i]
        count = 0
        for a in range(added_term.shape[0]):
            if _term_holds(state, added_term[a], node):
                count += added_weight[a]
        for p in range(pref_ptr[pod], pref_ptr[pod + 1]):
            if _term_holds(state, pref_term[p], node):
                count += pref_weight[p]
        out[i] = count


@inline_kernel
def _go_div(a, b):  # pragma: no cover - compiled
    """Go's int64 ``a / b`` (truncation toward zero) for ``b > 0``."""
    q = a // b
    if q < 0 and q * b != a:
        q += 1
    return q


@unrefcounted_kernel
def normalize_pod(state, pod, nodes, scores):  # pragma: no cover - compiled
    """``helper.DefaultNormalizeScore(MaxNodeScore, false, scores)``."""
    max_count = 0
    for i in range(scores.shape[0]):
        if scores[i] > max_count:
            max_count = scores[i]
    if max_count == 0:
        return
    for i in range(scores.shape[0]):
        scores[i] = _go_div(100 * scores[i], max_count)
