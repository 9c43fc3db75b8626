"""Kernels of the volume limits (NodeVolumeLimits, EBSLimits, GCEPDLimits,
AzureDiskLimits, CinderLimits) over the state of ``plugin.build_state``:

``(node_class int64[N], skip bool[N], ent_ptr int64[B * C + 1], ent_vol int64[E],
vol_key int64[V], ref_keys int64[H], ref_vals int64[H], ref_used int64[1],
count int32[N, L], limit int64[N, L], code int64[B], meta int64[2], group int64[B],
reasons' text table, holders int64[V], bad int64[N, 4], pod_bad int64[B])``.

Volumes are interned by unique name (CSI: ``driver/handle``; non-CSI: the in-tree id or
the claim's placeholder), each with its limit key (CSI: its driver's
``attachable-volumes-csi-*``; non-CSI: key 0). How a pod's claims resolve depends on the
node's CSINode (which in-tree plugins it says are migrated): nodes of one *class* resolve
them alike, and pod ``p``'s volumes on a node of class ``c`` are entries
``ent_ptr[p * C + c]:ent_ptr[p * C + c + 1]`` (distinct). ``ref``: how many pods on node
``n`` hold volume ``v``, a sparse table (:mod:`..helper.counter_table`) of key
``n * V + v`` holding the non-zero counts only (a node holds few of the volumes);
``count[n, l]``: how many distinct volumes of key ``l`` they hold; ``limit[n, l]``: the
node's limit (-1: none). ``skip[n]``: the non-CSI filter passes every pod (the node's
CSINode says the plugin is migrated). ``code[p]`` > 0: the pod fails everywhere with that
code (its claim lookup failed). ``meta``: (0 non-CSI or 1 CSI, ``C``). ``group``: the
filter key (pods of equal volumes per node class and code). ``holders[v]``: how many
nodes hold volume ``v`` (a volume no node holds needs no probe).

A pod on a node whose ephemeral volume's claim another owns makes Go's Filter return an
``Error`` status there (``VolumeIsForPod``, met while counting the node's pods) for every
pending pod that gets that far: one with volumes to count on the node (and, CSI, a node
with some volume limit). ``bad[n]``: how many such pods node ``n`` holds, the error codes
of the first two in ``NodeInfo.Pods`` order (the first one's error is Go's), and (CSI)
whether ``getVolumeLimits`` gives the node any limit; ``pod_bad[p]``: batch pod ``p``'s
error code as a pod on a node (0: none). ``filter_node`` returns such an error's code
with ``ERROR_FLAG`` (the search fails the cycle with it).
"""

from __future__ import annotations

import numpy as np

from ..._jit import inline_kernel
from ...framework.search import ERROR_FLAG
from ..helper import counter_table as table

#: the failure code of ``ErrReasonMaxVolumeCountExceeded``; lookup errors follow it
EXCEEDED = 1


@inline_kernel
def _held(state, node, v):  # pragma: no cover - compiled
    """Some pod on ``node`` holds volume ``v`` (no probe when no node holds it)."""
    vol_key, ref_keys, ref_vals, holders = state[4], state[5], state[6], state[15]
    if holders[v] == 0:
        return False
    return table.get(ref_keys, ref_vals, node * vol_key.shape[0] + v) > 0


@inline_kernel
def _csi_exceeded(state, s, e, node):  # pragma: no cover - compiled
    """Some limit key of the pod's volumes not on the node goes over its limit."""
    ent_vol, vol_key, count, limit = state[3], state[4], state[8], state[9]
    for j in range(s, e):
        v = ent_vol[j]
        k = vol_key[v]
        if _held(state, node, v) or limit[node, k] < 0:
            continue
        first, n = True, 0
        for i in range(s, e):
            w = ent_vol[i]
            if vol_key[w] == k and not _held(state, node, w):
                if i < j:
                    first = False
                    break
                n += 1
        if first and count[node, k] + n > limit[node, k]:
            return True
    return False


@inline_kernel
def filter_node(state, pod, node):  # pragma: no cover - compiled
    """``Filter``: 0, ``EXCEEDED``, the pod's lookup error code, or the error of a pod on
    the node (with ``ERROR_FLAG``)."""
    node_class, skip, ent_ptr, ent_vol = state[0], state[1], state[2], state[3]
    count, limit, code, meta, bad = state[8], state[9], state[10], state[11], state[16]
    if code[pod] != 0:
        return code[pod]
    row = pod * meta[1] + node_class[node]
    s, e = ent_ptr[row], ent_ptr[row + 1]
    if s == e or skip[node]:
        return np.int64(0)
    if bad[node, 0] > 0 and (meta[0] == 0 or bad[node, 3] != 0):  # (CSI: some limit first)
        return np.int64(ERROR_FLAG) | bad[node, 1]
    if meta[0] == 1:
        return np.int64(EXCEEDED) if _csi_exceeded(state, s, e, node) else np.int64(0)
    new = 0
    for j in range(s, e):
        if not _held(state, node, ent_vol[j]):
            new += 1
    return np.int64(EXCEEDED) if count[node, 0] + new > limit[node, 0] else np.int64(0)


@inline_kernel
def _attach(state, pod, node, delta):  # pragma: no cover - compiled
    """The pod's volumes attached to (``delta`` 1) or detached from (-1) the node."""
    node_class, _, ent_ptr, ent_vol, vol_key, ref_keys, ref_vals, ref_used = state[:8]
    count, meta, holders = state[8], state[11], state[15]
    row = pod * meta[1] + node_class[node]
    for j in range(ent_ptr[row], ent_ptr[row + 1]):
        v = ent_vol[j]
        x = node * vol_key.shape[0] + v
        after = table.add(ref_keys, ref_vals, ref_used, x, delta)
        if after == 0:  # (a volume the node loses: its key leaves the table)
            table.discard(ref_keys, ref_vals, ref_used, x)
        if after == 0 or after == delta:  # (a volume the node gains or loses)
            count[node, vol_key[v]] += delta
            holders[v] += delta


@inline_kernel
def _held_error(state, pod, node, delta):  # pragma: no cover - compiled
    """A pod whose ephemeral volume's claim another owns added to (``delta`` 1) or removed
    from (-1) the node's ``bad`` record: ``AddPod`` appends it to ``NodeInfo.Pods``;
    ``RemovePod`` moves the last pod to the removed one's place, so with two such pods
    the other one is the first left (with three or more, the second recorded is taken)."""
    bad, c = state[16], state[17][pod]
    if c == 0:
        return
    n = bad[node, 0]
    if delta > 0:
        if n < 2:
            bad[node, 1 + n] = c
        bad[node, 0] = n + 1
    else:
        bad[node, 0] = n - 1
        if n > 1 and bad[node, 1] == c:
            bad[node, 1] = bad[node, 2]


@inline_kernel
def assume(state, pod, node):  # pragma: no cover - compiled
    """``NodeInfo.AddPod``: the pod's volumes are attached to the node."""
    _attach(state, pod, node, np.int64(1))
    _held_error(state, pod, node, np.int64(1))
    return False


@inline_kernel
def remove(state, pod, node):  # pragma: no cover - compiled
    """``NodeInfo.RemovePod``: ``assume`` undone."""
    _attach(state, pod, node, np.int64(-1))
    _held_error(state, pod, node, np.int64(-1))
    return False
