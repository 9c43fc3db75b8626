"""numba kernels of SelectorSpread; the scalar specification is ``reference.py``.

Shapes and dtypes (W = label words, C = pods in the chunk, E = scored entries):

* existing pods are aggregated into *signatures* (namespace, labels projected on the keys
  any selector can mention), sorted by namespace: ``sig_ns_ptr`` (int64[n_ns+1]) delimits
  the signatures of a namespace in ``sig_words`` (uint64[S, W]); ``sig_ptr`` (int64[S+1])
  delimits each signature's ``(ent_node, ent_count)`` entries (int32, int64): how many
  non-deleting pods of that signature each node holds;
* a pod's default selector is ``allof`` (uint64[W]: the ``key=value`` bits its merged
  service/RC label set requires), flags ``impossible`` (a required pair no pod carries)
  and ``nonempty`` (the selector has requirements, i.e. not ``Selector.Empty()``), and
  ``ctrl`` (int32: a ReplicaSet/StatefulSet requirement list, -1 for none) whose
  requirements are ``(req_any, req_mask)`` rows delimited by ``req_ptr``.
"""

from __future__ import annotations

import numpy as np

from ..._jit import inline_kernel, kernel, parallel_kernel, prange


@inline_kernel
def _contains_all(row, mask):  # pragma: no cover - compiled
    for w in range(mask.shape[0]):
        if row[w] & mask[w] != mask[w]:
            return False
    return True


@inline_kernel
def _requirements_hold(row, lo, hi, req_any, req_mask):  # pragma: no cover - compiled
    for r in range(lo, hi):
        hit = False
        for w in range(row.shape[0]):
            if row[w] & req_mask[r, w] != 0:
                hit = True
                break
        if hit != req_any[r]:
            return False
    return True


@kernel
def default_selectors(
    pod_ns,
    pod_words,
    ctrl_kind,
    ctrl_idx,
    svc_ns_ptr,
    svc_allof,
    svc_ok,
    svc_nonempty,
    rc_allof,
    rc_keymask,
    rc_impossible,
    rc_nonempty,
    ctrl_offset,
    ctrl_nonempty,
    all_ns,
    out_allof,
    out_impossible,
    out_nonempty,
    out_ctrl,
):  # pragma: no cover - compiled
    """``helper.DefaultSelector`` for each pod of a chunk, as bitmasks.

    ``pod_ns`` (int32[C]) indexes ``svc_ns_ptr`` (services grouped by namespace); a pod
    whose namespace index is ``all_ns`` (the empty namespace) sees every service.
    ``ctrl_kind`` uses the codes of ``model.snapshot`` (1 RC, 2 RS, 3 SS) and
    ``ctrl_offset[kind]`` turns ``ctrl_idx`` into a row of the compiled RS/SS
    requirement table.
    """
    n_words = pod_words.shape[1]
    for i in range(pod_ns.shape[0]):
        ns = pod_ns[i]
        lo = svc_ns_ptr[0] if ns == all_ns else svc_ns_ptr[ns]
        hi = svc_ns_ptr[svc_ns_ptr.shape[0] - 1] if ns == all_ns else svc_ns_ptr[ns + 1]
        nonempty = False
        for w in range(n_words):
            out_allof[i, w] = 0
        for s in range(lo, hi):
            if svc_ok[s] and _contains_all(pod_words[i], svc_allof[s]):
                for w in range(n_words):
                    out_allof[i, w] |= svc_allof[s, w]
                nonempty = nonempty or svc_nonempty[s]
        impossible = False
        ctrl = -1
        k = ctrl_kind[i]
        j = ctrl_idx[i]
        if j >= 0:
            if k == 1:  # ReplicationController: labels.Merge, the RC's values win
                for w in range(n_words):
                    out_allof[i, w] = (out_allof[i, w] & ~rc_keymask[j, w]) | rc_allof[j, w]
                impossible = rc_impossible[j]
                nonempty = nonempty or rc_nonempty[j]
            elif k == 2 or k == 3:  # ReplicaSet / StatefulSet: selector.Add(requirements)
                ctrl = ctrl_offset[k] + j
                nonempty = nonempty or ctrl_nonempty[ctrl]
        out_impossible[i] = impossible
        out_nonempty[i] = nonempty
        out_ctrl[i] = ctrl


@parallel_kernel
def count_matching(
    grp_ns,
    grp_allof,
    grp_ctrl,
    grp_live,
    sig_ns_ptr,
    sig_words,
    sig_ptr,
    ent_node,
    ent_count,
    req_ptr,
    req_any,
    req_mask,
    n_nodes,
):  # pragma: no cover - compiled
    """``countMatchingPods`` on every node for each selector group: int64[G, N].

    Groups that are not ``live`` (empty selector, impossible requirement, or a pod that
    skips SelectorSpread) count 0 everywhere.
    """
    n_groups = grp_ns.shape[0]
    counts = np.zeros((n_groups, n_nodes), dtype=np.int64)
    for g in prange(n_groups):
        if not grp_live[g]:
            continue
        ns = grp_ns[g]
        c = grp_ctrl[g]
        for s in range(sig_ns_ptr[ns], sig_ns_ptr[ns + 1]):
            if not _contains_all(sig_words[s], grp_allof[g]):
                continue
            if c >= 0 and not _requirements_hold(
                sig_words[s], req_ptr[c], req_ptr[c + 1], req_any, req_mask
            ):
                continue
            for e in range(sig_ptr[s], sig_ptr[s + 1]):
                counts[g, ent_node[e]] += ent_count[e]
    return counts


@parallel_kernel
def gather_scores(ptr, nodes, pod_group, counts, out):  # pragma: no cover - compiled
    """Raw score of every entry: the count of its pod's group on its node."""
    for i in prange(ptr.shape[0] - 1):
        g = pod_group[i]
        for e in range(ptr[i], ptr[i + 1]):
            out[e] = counts[g, nodes[e]]


@parallel_kernel
def normalize(ptr, nodes, node_zone, n_zones, skip, scores):  # pragma: no cover - compiled
    """``NormalizeScore`` in place, pod by pod, over each pod's entries.

    The float expressions are written exactly as in selector_spread.go; numba keeps
    their order and rounding (fastmath off).
    """
    zone_weighting = 2.0 / 3.0
    max_score = 100.0
    n_pods = ptr.shape[0] - 1
    zone_sum = np.zeros((n_pods, max(n_zones, 1)), dtype=np.int64)
    zone_seen = np.zeros((n_pods, max(n_zones, 1)), dtype=np.bool_)
    for i in prange(n_pods):
        if skip[i]:
            continue
        lo = ptr[i]
        hi = ptr[i + 1]
        max_node = 0
        have_zones = False
        for e in range(lo, hi):
            s = scores[e]
            if s > max_node:
                max_node = s
            z = node_zone[nodes[e]]
            if z >= 0:
                zone_sum[i, z] += s
                zone_seen[i, z] = True
                have_zones = True
        max_zone = 0
        for z in range(n_zones):
            if zone_seen[i, z] and zone_sum[i, z] > max_zone:
                max_zone = zone_sum[i, z]
        max_node_f = float(max_node)
        max_zone_f = float(max_zone)
        for e in range(lo, hi):
            s = scores[e]
            f = max_score
            if max_node > 0:
                f = max_score * (float(max_node - s) / max_node_f)
            z = node_zone[nodes[e]]
            if have_zones and z >= 0:
                zs = max_score
                if max_zone > 0:
                    zs = max_score * (float(max_zone - zone_sum[i, z]) / max_zone_f)
                f = (f * (1.0 - zone_weighting)) + (zone_weighting * zs)
            scores[e] = np.int64(f)
