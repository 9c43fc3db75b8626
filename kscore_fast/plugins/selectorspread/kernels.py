"""numba kernels of SelectorSpread; the scalar specification is ``reference.py``.

Labels are value-id columns of the plugin's declared keys (the keys its selectors
mention), projected into a :class:`~kscore_fast.model.selectors.SelectorSpace`: per key,
local id 0 = absent, 1 = a value no selector mentions, 2.. = the mentioned values.
Shapes and dtypes (K = declared keys, C = pods in the chunk, E = scored entries):

* existing pods are aggregated into *signatures* (namespace, local ids), sorted by
  namespace: ``sig_ns_ptr`` (int64[n_ns+1]) delimits the signatures of a namespace in
  ``sig_vals`` (int32[S, K]); ``sig_ptr`` (int64[S+1]) delimits each signature's
  ``(ent_node, ent_count)`` entries (int32, int64): how many non-deleting pods of that
  signature each node holds;
* a pod's default selector is ``req`` (int32[K]: the local id its merged service/RC label
  set requires per key, -1 where it requires nothing), ``nonempty`` (the selector has
  requirements, i.e. not ``Selector.Empty()``) and ``ctrl`` (int32: a
  ReplicaSet/StatefulSet requirement list, -1 for none) whose requirements
  (``req_key``, ``req_op``: ``OP_*`` of ``model.selectors``, values
  ``req_vals[req_vptr[r]:req_vptr[r+1]]``) are delimited by ``req_ptr``;
* ``post_ptr``/``post_sig`` (int64) list, for every (key, local id ≥ 1) pair
  ``key_off[k] + local - 1``, the signatures carrying it, so that a selector only visits
  the signatures of its rarest requirement.

Selector groups are numbered over the whole batch (``grp_*`` arrays indexed by group);
a chunk passes its pods' group ids and the kernels group them again locally.
"""

from __future__ import annotations

import numpy as np

from ..._jit import dual_kernel, inline_kernel, kernel, prange
from ..helper.bisect import lower_bound
from ..helper.grouping import group_rows


@inline_kernel
def _matches_map(row, req):  # pragma: no cover - compiled
    """Every key ``req`` constrains (≥ 0) has that local id in ``row``."""
    for k in range(req.shape[0]):
        if req[k] >= 0 and row[k] != req[k]:
            return False
    return True


@inline_kernel
def _requirements_hold(row, lo, hi, req_key, req_op, req_vptr, req_vals):  # pragma: no cover
    """``Requirement.Matches`` for requirements ``lo:hi`` (In, NotIn, Exists,
    DoesNotExist: op codes 0-3), on a row of local ids."""
    for r in range(lo, hi):
        x = row[req_key[r]]
        op = req_op[r]
        if op == 2:
            ok = x != 0
        elif op == 3:
            ok = x == 0
        else:
            found = False
            for q in range(req_vptr[r], req_vptr[r + 1]):
                if req_vals[q] == x:
                    found = True
                    break
            ok = found if op == 0 else not found
        if not ok:
            return False
    return True


@kernel
def default_selectors(pod_ns, pod_vals, ctrl_kind, ctrl_idx, svc_ns_ptr, svc_req,
                      svc_nonempty, rc_req, rc_nonempty, ctrl_offset, ctrl_nonempty, all_ns,
                      out_req, out_nonempty, out_ctrl):  # pragma: no cover - compiled
    """``helper.DefaultSelector`` for each pod of a chunk, over local ids.

    ``pod_ns`` (int32[C]) indexes ``svc_ns_ptr`` (services grouped by namespace); a pod
    whose namespace index is ``all_ns`` (the empty namespace) sees every service.
    ``ctrl_kind`` uses the codes of ``model.snapshot`` (1 RC, 2 RS, 3 SS) and
    ``ctrl_offset[kind]`` turns ``ctrl_idx`` into a row of the compiled RS/SS
    requirement table.
    """
    n_keys = pod_vals.shape[1]
    for i in range(pod_ns.shape[0]):
        ns = pod_ns[i]
        lo = svc_ns_ptr[0] if ns == all_ns else svc_ns_ptr[ns]
        hi = svc_ns_ptr[svc_ns_ptr.shape[0] - 1] if ns == all_ns else svc_ns_ptr[ns + 1]
        nonempty = False
        out_req[i, :] = -1
        for s in range(lo, hi):
            if _matches_map(pod_vals[i], svc_req[s]):
                for k in range(n_keys):  # matching services agree with the pod's labels
                    if svc_req[s, k] >= 0:
                        out_req[i, k] = svc_req[s, k]
                nonempty = nonempty or svc_nonempty[s]
        ctrl = -1
        k = ctrl_kind[i]
        j = ctrl_idx[i]
        if j >= 0:
            if k == 1:  # ReplicationController: labels.Merge, the RC's values win
                for key in range(n_keys):
                    if rc_req[j, key] >= 0:
                        out_req[i, key] = rc_req[j, key]
                nonempty = nonempty or rc_nonempty[j]
            elif k == 2 or k == 3:  # ReplicaSet / StatefulSet: selector.Add(requirements)
                ctrl = ctrl_offset[k] + j
                nonempty = nonempty or ctrl_nonempty[ctrl]
        out_nonempty[i] = nonempty
        out_ctrl[i] = ctrl


@kernel
def selector_groups(pod_ns, pod_vals, ctrl_kind, ctrl_idx, skip, services, controllers,
                    all_ns):  # pragma: no cover - compiled
    """Every pod's ``DefaultSelector``, grouped: pods with equal (namespace, selector).

    ``services`` = (svc_ns_ptr, svc_req, svc_nonempty) and ``controllers`` =
    (rc_req, rc_nonempty, ctrl_offset, ctrl_nonempty), see ``default_selectors``.
    Returns ``group`` (int64[B], -1: the selector is empty, or the pod skips
    SelectorSpread) and per group its namespace, required local ids and requirement list
    (``grp_ns``, ``grp_req``, ``grp_ctrl``).
    """
    svc_ns_ptr, svc_req, svc_nonempty = services
    rc_req, rc_nonempty, ctrl_offset, ctrl_nonempty = controllers
    n, n_keys = pod_vals.shape
    req = np.empty((n, n_keys), dtype=np.int32)
    nonempty = np.empty(n, dtype=np.bool_)
    ctrl = np.empty(n, dtype=np.int32)
    default_selectors(pod_ns, pod_vals, ctrl_kind, ctrl_idx, svc_ns_ptr, svc_req,
                      svc_nonempty, rc_req, rc_nonempty, ctrl_offset, ctrl_nonempty, all_ns,
                      req, nonempty, ctrl)
    live = np.empty(n, dtype=np.int64)
    n_live = 0
    for i in range(n):
        if nonempty[i] and not skip[i]:
            live[n_live] = i
            n_live += 1
    keys = np.empty((n_live, n_keys + 2), dtype=np.uint64)
    for q in range(n_live):
        i = live[q]
        keys[q, 0] = pod_ns[i]
        for k in range(n_keys):
            keys[q, 1 + k] = req[i, k] + 1
        keys[q, n_keys + 1] = ctrl[i] + 1
    group_of, grp_ptr, members = group_rows(keys)
    group = np.full(n, -1, dtype=np.int64)
    for q in range(n_live):
        group[live[q]] = group_of[q]
    n_groups = grp_ptr.shape[0] - 1
    grp_ns = np.empty(n_groups, dtype=np.int64)
    grp_req = np.empty((n_groups, n_keys), dtype=np.int32)
    grp_ctrl = np.empty(n_groups, dtype=np.int64)
    for g in range(n_groups):
        rep = live[members[grp_ptr[g]]]
        grp_ns[g] = pod_ns[rep]
        for k in range(n_keys):  # (no slice assignment: see _jit)
            grp_req[g, k] = req[rep, k]
        grp_ctrl[g] = ctrl[rep]
    return group, grp_ns, grp_req, grp_ctrl


@inline_kernel
def _rarest_postings(req, c, key_off, post_ptr, req_ptr, req_key, req_op, req_vptr,
                     req_vals):  # pragma: no cover - compiled
    """The cheapest candidate list: (pair, -1) for one required (key, local id), (-1, r)
    for an ``In``/``Exists`` requirement ``r`` (union of its pairs), or (-1, -1): scan
    all."""
    best_len = -1
    best_pair = -1
    best_req = -1
    for k in range(req.shape[0]):
        if req[k] >= 0:
            pair = key_off[k] + req[k] - 1
            n = post_ptr[pair + 1] - post_ptr[pair]
            if best_len < 0 or n < best_len:
                best_len, best_pair, best_req = n, pair, -1
    if c >= 0:
        for r in range(req_ptr[c], req_ptr[c + 1]):
            k = req_key[r]
            if req_op[r] == 2:  # Exists: every pair of the key, one contiguous range
                n = post_ptr[key_off[k + 1]] - post_ptr[key_off[k]]
            elif req_op[r] == 0:  # In
                n = 0
                for q in range(req_vptr[r], req_vptr[r + 1]):
                    pair = key_off[k] + req_vals[q] - 1
                    n += post_ptr[pair + 1] - post_ptr[pair]
            else:
                continue
            if best_len < 0 or n < best_len:
                best_len, best_pair, best_req = n, -1, r
    return best_pair, best_req


@inline_kernel
def _add_signature(s, row, run, ns, req, c, index):  # pragma: no cover - compiled
    """Add signature ``s``'s pods to ``row`` if it matches the selector; returns the
    largest count it reached (0 when ``run`` is None).

    ``run`` None: ``row`` is indexed by node. Else ``run`` = (first, n_all, sums,
    node_zone): ``row`` is aligned with a run of consecutive nodes from node ``first`` on
    (wrapping after node ``n_all - 1``, see :func:`_is_run`): node ``n`` is counted at
    ``(n - first) mod n_all`` when that is inside the run (else it is not in the list),
    and its zone slot's count sum in ``sums[zone + 1]``."""
    (sig_ns, _, sig_vals, sig_ptr, ent_node, ent_count, _, _, _, req_ptr, req_key, req_op,
     req_vptr, req_vals) = index
    if sig_ns[s] != ns or not _matches_map(sig_vals[s], req):
        return 0
    if c >= 0 and not _requirements_hold(sig_vals[s], req_ptr[c], req_ptr[c + 1], req_key,
                                         req_op, req_vptr, req_vals):
        return 0
    top = 0
    lo, hi = sig_ptr[s], sig_ptr[s + 1]
    if run is None:
        for e in range(lo, hi):
            row[ent_node[e]] += ent_count[e]
        return top
    # the run's nodes first..end-1, wrapping after n_all - 1: the signature's entries are
    # sorted by node, so only theirs are visited (a short run of a large cluster)
    first, n_all, sums, node_zone = run
    end = first + row.shape[0]
    a = lower_bound(ent_node, lo, hi, first)
    top = _add_entries(a, lower_bound(ent_node, a, hi, end), -first, row, sums, node_zone,
                       ent_node, ent_count, top)  # fmt: skip
    if end > n_all:  # (wrapped: nodes 0..end - n_all - 1 follow)
        top = _add_entries(lo, lower_bound(ent_node, lo, a, end - n_all), n_all - first,
                           row, sums, node_zone, ent_node, ent_count, top)  # fmt: skip
    return top


@inline_kernel
def _add_entries(a, b, shift, row, sums, node_zone, ent_node, ent_count, top
                 ):  # fmt: skip  # pragma: no cover - compiled
    """Entries ``a:b`` counted at their nodes' positions (node + ``shift``) in ``row``,
    and in their zones' sums; returns the largest count reached (or ``top``)."""
    for e in range(a, b):
        node = ent_node[e]
        at = node + shift
        row[at] += ent_count[e]
        top = max(top, row[at])
        sums[node_zone[node] + 1] += ent_count[e]
    return top


@inline_kernel
def _add_postings(lo, hi, row, run, ns, req, c, index):  # pragma: no cover - compiled
    post_sig = index[8]
    top = 0
    for q in range(lo, hi):
        top = max(top, _add_signature(post_sig[q], row, run, ns, req, c, index))
    return top


@inline_kernel
def _count_matching(row, run, ns, req, c, index):  # pragma: no cover - compiled
    """Add to ``row`` the pods of every signature matching the selector (namespace
    ``ns``, required local ids ``req``, requirement list ``c``): the per-node
    ``countMatchingPods``, by node (``run`` None) or at the nodes' positions in a run
    (see :func:`_add_signature`; returns the largest count). Only the rarest candidate
    list of signatures is visited.

    ``index`` = (sig_ns, sig_ns_ptr, sig_vals, sig_ptr, ent_node, ent_count, key_off,
    post_ptr, post_sig, req_ptr, req_key, req_op, req_vptr, req_vals), see the module
    docstring.
    """
    (_, sig_ns_ptr, _, _, _, _, key_off, post_ptr, _, req_ptr, req_key, req_op, req_vptr,
     req_vals) = index
    pair, r = _rarest_postings(req, c, key_off, post_ptr, req_ptr, req_key, req_op, req_vptr,
                               req_vals)
    if pair >= 0:
        return _add_postings(post_ptr[pair], post_ptr[pair + 1], row, run, ns, req, c, index)
    top = 0
    if r >= 0:  # a signature has one value per key: the pairs' lists are disjoint
        k = req_key[r]
        if req_op[r] == 2:
            return _add_postings(post_ptr[key_off[k]], post_ptr[key_off[k + 1]], row, run, ns,
                                 req, c, index)
        for q in range(req_vptr[r], req_vptr[r + 1]):
            p = key_off[k] + req_vals[q] - 1
            top = max(top, _add_postings(post_ptr[p], post_ptr[p + 1], row, run, ns, req, c,
                                         index))
        return top
    for s in range(sig_ns_ptr[ns], sig_ns_ptr[ns + 1]):
        top = max(top, _add_signature(s, row, run, ns, req, c, index))
    return top


@inline_kernel
def _spread_score(count, max_count):  # pragma: no cover - compiled
    """selector_spread.go, both for nodes (``fScore``) and zones (``zoneScore``):
    ``MaxNodeScore * (float64(max - count) / float64(max))``, or ``MaxNodeScore`` when
    the maximum is 0."""
    f = 100.0
    if max_count > 0:
        f = 100.0 * (float(max_count - count) / float(max_count))
    return f


@inline_kernel
def _mix(f, zs):  # pragma: no cover - compiled
    """selector_spread.go: ``(fScore * (1.0 - zoneWeighting)) + (zoneWeighting * zoneScore)``."""
    zone_weighting = 2.0 / 3.0
    return (f * (1.0 - zone_weighting)) + (zone_weighting * zs)


@inline_kernel
def _score_table(sums, n_zones, max_node):  # pragma: no cover - compiled
    """The normalized score of every (zone slot, count ≤ ``max_node``): entry
    ``z * (max_node + 1) + count`` (zone slot ``z`` = zone + 1, 0: no zone), from the
    per-zone count sums ``sums[z]`` (0 for zones none of the pod's nodes is in: the
    maximum over the zones present is the maximum over all, the sums being ≥ 0). Every
    float is computed by the same expression as in Go, in the same order, once per
    distinct count and zone, which changes no bit of the result.

    Go mixes in the zone score when some scored node has a zone (``haveZones``) and the
    node has one: a node with a zone implies the first, so the slot alone decides."""
    zs = _zone_scores(sums, n_zones)
    width = max_node + 1
    table = np.empty((n_zones + 1) * width, dtype=np.int64)
    for s in range(width):
        f = _spread_score(s, max_node)
        table[s] = np.int64(f)
        for z in range(1, n_zones + 1):
            table[z * width + s] = np.int64(_mix(f, zs[z]))
    return table


@inline_kernel
def _zone_scores(sums, n_zones):  # pragma: no cover - compiled
    """float64[n_zones + 1]: ``zoneScore`` of each zone slot ≥ 1 (``sums`` as in
    :func:`_score_table`)."""
    max_zone = 0
    for z in range(1, n_zones + 1):
        max_zone = max(max_zone, sums[z])
    zs = np.empty(n_zones + 1, dtype=np.float64)
    for z in range(1, n_zones + 1):
        zs[z] = _spread_score(sums[z], max_zone)
    return zs


@inline_kernel
def _uses_table(max_node, n_zones, n):  # pragma: no cover - compiled
    """The table of :func:`_score_table` costs less than one float score per entry."""
    return (max_node + 1) * (n_zones + 1) <= 2 * n


@inline_kernel
def _node_score(count, z, max_node, zs):  # pragma: no cover - compiled
    """One node's normalized score (zone slot ``z``) without the table."""
    f = _spread_score(count, max_node)
    if z > 0:
        f = _mix(f, zs[z])
    return np.int64(f)


@inline_kernel
def _scorer(sums, n_zones, max_node, n):  # pragma: no cover - compiled
    """``(table, zs)`` for normalizing ``n`` entries: :func:`_score_table` when it pays
    (:func:`_uses_table`; ``zs`` empty), else the zone scores (``table`` empty)."""
    if _uses_table(max_node, n_zones, n):
        return _score_table(sums, n_zones, max_node), np.empty(0, dtype=np.float64)
    return np.empty(0, dtype=np.int64), _zone_scores(sums, n_zones)


@inline_kernel
def _finish_pod(lo, hi, raw, nodes, node_zone, n_zones, sums, max_node, out):  # pragma: no cover
    """``NormalizeScore`` of one pod once its maxima are known: ``out[lo:hi]`` (may alias
    ``raw``; ``sums`` as in :func:`_score_table`)."""
    table, zs = _scorer(sums, n_zones, max_node, hi - lo)
    width = np.uint64(max_node + 1)
    if table.shape[0] > 0:  # (unsigned indices: no negative-index check, ~2x faster)
        for e in range(lo, hi):
            z = np.uint64(node_zone[np.uint64(nodes[e])] + 1)
            out[e] = table[z * width + np.uint64(raw[e])]
    else:
        for e in range(lo, hi):
            out[e] = _node_score(raw[e], node_zone[nodes[e]] + 1, max_node, zs)


@inline_kernel
def _finish_aligned(counts, zones, table, zs, max_node, raw):  # pragma: no cover - compiled
    """:func:`_finish_pod` of entries whose nodes' zones are ``zones`` (aligned with
    ``counts``: no gather), with :func:`_scorer`'s ``table``/``zs``: each count to
    ``raw``, its normalized score in its place in ``counts``."""
    width = np.uint64(max_node + 1)
    if table.shape[0] > 0:  # (unsigned indices: no negative-index check, ~2x faster)
        for e in range(counts.shape[0]):
            c = counts[e]
            raw[e] = c
            counts[e] = table[np.uint64(zones[e] + 1) * width + np.uint64(c)]
    else:
        for e in range(counts.shape[0]):
            c = counts[e]
            raw[e] = c
            counts[e] = _node_score(c, zones[e] + 1, max_node, zs)


@inline_kernel
def _is_run(nodes, n_all):  # pragma: no cover - compiled
    """``nodes`` (non-empty) are consecutive from ``nodes[0]`` on, wrapping after node
    ``n_all - 1``: what the search gives when no filter rejects a node (compared without
    a branch: vectorized)."""
    first = np.int64(nodes[0])
    n = nodes.shape[0]
    if n > n_all:
        return False
    k = min(n, n_all - first)
    differ = np.int64(0)
    for e in range(k):
        differ |= np.int64(nodes[e]) ^ (first + e)
    for e in range(k, n):
        differ |= np.int64(nodes[e]) ^ (e - k)
    return differ == 0


@inline_kernel
def _normalize_pod(lo, hi, raw, nodes, node_zone, n_zones, out):  # pragma: no cover
    """``NormalizeScore`` of one pod: ``out[lo:hi]`` from ``raw[lo:hi]`` (may alias)."""
    sums = np.zeros(n_zones + 1, dtype=np.int64)  # slot 0: nodes without zone
    max_node = 0
    for e in range(lo, hi):
        s = raw[e]
        max_node = max(max_node, s)
        if s != 0:  # (most counts are 0: the branch is predicted)
            sums[node_zone[nodes[e]] + 1] += s
    _finish_pod(lo, hi, raw, nodes, node_zone, n_zones, sums, max_node, out)


@dual_kernel
def normalize(ptr, nodes, node_zone, n_zones, skip, scores):  # pragma: no cover - compiled
    """``NormalizeScore`` in place, pod by pod, over each pod's entries (skipping pods
    that skip SelectorSpread: their scores stay 0)."""
    for i in prange(ptr.shape[0] - 1):
        if not skip[i]:
            _normalize_pod(ptr[i], ptr[i + 1], scores, nodes, node_zone, n_zones, scores)


# -- the compiled plugin shape (framework/interface.py): one pod at a time ------------------
#
# state = (pod_group int64[B], skip bool[B], grp_ns int64[G], grp_req int32[G, K],
#          grp_ctrl int64[G], index (see above), node_zone int32[N], n_zones int64,
#          n_nodes int64, hot_row int64[G] (row of ``hot`` holding the group's counts on
#          every node, -1: counted per pod), hot int64[H, N])


@dual_kernel
def count_groups(groups, grp_ns, grp_req, grp_ctrl, index, out):  # pragma: no cover
    """``out[q]`` = the per-node ``countMatchingPods`` of selector group ``groups[q]``."""
    for q in prange(groups.shape[0]):
        g = groups[q]
        _count_matching(out[q], None, grp_ns[g], grp_req[g], grp_ctrl[g], index)


@inline_kernel
def score_pod(state, pod, nodes, out):  # pragma: no cover - compiled
    """Raw SelectorSpread scores of batch pod ``pod`` on ``nodes``: its group's hot row, or
    a row of its own, read at ``nodes``."""
    pod_group, _, grp_ns, grp_req, grp_ctrl, index, _, _, n_nodes, hot_row, hot = state
    g = pod_group[pod]
    if g < 0:
        out[:] = 0
        return
    r = hot_row[g]
    if r >= 0:
        row = hot[r]
        for e in range(nodes.shape[0]):
            out[e] = row[np.uint64(nodes[e])]  # (unsigned: no negative-index check)
        return
    row = np.zeros(max(n_nodes, 1), dtype=np.int64)
    _count_matching(row, None, grp_ns[g], grp_req[g], grp_ctrl[g], index)
    for e in range(nodes.shape[0]):
        out[e] = row[np.uint64(nodes[e])]


@inline_kernel
def score_normalize_pod(state, pod, nodes, raw, scores):  # pragma: no cover - compiled
    """:func:`score_pod` into ``raw`` and its :func:`normalize_pod` into ``scores`` (not
    aliasing ``raw``), for a pod whose group is counted per pod (no hot row) on a run of
    consecutive nodes (:func:`_is_run`: the batch's lists when no filter rejects a node):
    the pod's matching pods are counted in ``scores`` (the caller's scratch, in cache) at
    their nodes' positions, with the maxima, and one pass writes ``raw`` and ``scores``,
    reading the nodes' zones in order (``raw`` is written once: it may be the result's
    memory, out of cache). False (nothing written) for the other pods and lists."""
    pod_group, skip, grp_ns, grp_req, grp_ctrl, index, node_zone, n_zones, n_nodes, hot_row, _ = (
        state
    )
    n = nodes.shape[0]
    g = pod_group[pod]
    if skip[pod] or g < 0 or hot_row[g] >= 0 or n == 0 or not _is_run(nodes, n_nodes):
        return False
    for e in range(n):
        scores[e] = 0
    sums = np.zeros(n_zones + 1, dtype=np.int64)  # slot 0: nodes without zone
    first = np.int64(nodes[0])
    run = (first, n_nodes, sums, node_zone)
    max_node = _count_matching(scores, run, grp_ns[g], grp_req[g], grp_ctrl[g], index)
    table, zs = _scorer(sums, n_zones, max_node, n)
    k = min(n, n_nodes - first)  # (the run wraps after k entries)
    _finish_aligned(scores[:k], node_zone[first : first + k], table, zs, max_node, raw[:k])
    _finish_aligned(scores[k:], node_zone[: n - k], table, zs, max_node, raw[k:])
    return True


@inline_kernel
def normalize_pod(state, pod, nodes, scores):  # pragma: no cover - compiled
    """``NormalizeScore`` over the pod's nodes (0 for pods that skip SelectorSpread)."""
    skip = state[1]
    if skip[pod]:
        scores[:] = 0
        return
    _normalize_pod(0, scores.shape[0], scores, nodes, state[6], state[7], scores)
