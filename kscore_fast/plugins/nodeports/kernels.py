"""NodePorts kernels over the state of ``plugin.NodePorts.prepare``, nine int64 arrays:

``(pod_ptr, pod_trip, pod_wtrip, pod_pp, pod_group, a_keys, b_keys, b_count, meta)``.

Host ports are interned: a *pair* (protocol, port) and a *triple* (ip, protocol, port) get
ids, ip and protocol sanitized as ``HostPortInfo`` does ("" is 0.0.0.0 and TCP), ports
``<= 0`` dropped (``Add`` ignores them and ``CheckConflict`` never finds them).

* pending pod ``p``'s host ports (every container's, in order) are entries
  ``pod_ptr[p]:pod_ptr[p+1]`` with their triple ``pod_trip``, the triple of the same pair
  on 0.0.0.0 ``pod_wtrip`` (equal to ``pod_trip`` for a 0.0.0.0 port) and the pair
  ``pod_pp``; ``pod_group`` numbers pods with equal sets of triples (``filter_key``);
* the nodes' ``UsedPorts``, for every node at once, are two open-addressing hash tables
  (linear probing, -1 empty, power-of-two sizes): the set ``a_keys`` of
  ``node * n_trip + triple``, and ``b_keys``/``b_count``: for ``node * n_pp + pair``, on
  how many IPs the node uses the pair (the 0.0.0.0 check asks whether it is any);
* ``meta``: ``n_trip``, ``n_pp``, and how many slots of each table are filled.

``assume`` adds a pod's triples to its node (a set, as ``HostPortInfo.Add``), ``remove``
takes them away (``HostPortInfo.Remove``: even a triple another pod still uses). The tables
are sized for the bound pods plus every pending pod assumed once, at most half full; a
table that would fill up raises instead of looping.
"""

from __future__ import annotations

import numpy as np

from ..._jit import inline_kernel, kernel

EMPTY = -1
#: the failure code (``ErrReason``)
CONFLICT = 1


@inline_kernel
def _home(key, mask):  # pragma: no cover - compiled
    """The slot where the probe for ``key`` starts."""
    # multiplicative hashing of each 32-bit half, folded: 32 × 32-bit products never
    # overflow uint64 (no wrap-around warnings when run without the JIT)
    k = np.uint64(key)
    h = ((k & np.uint64(0xFFFFFFFF)) * np.uint64(0x9E3779B1)) ^ (
        (k >> np.uint64(32)) * np.uint64(0x85EBCA77)
    )
    h ^= h >> np.uint64(32)
    return np.int64(h & np.uint64(mask))


@inline_kernel
def _slot(keys, key):  # pragma: no cover - compiled
    """Where ``key`` is in the table, or the empty slot where it would go."""
    mask = keys.shape[0] - 1
    i = _home(key, mask)
    while keys[i] != key and keys[i] != EMPTY:
        i = (i + 1) & mask
    return i


@inline_kernel
def _has(keys, key):  # pragma: no cover - compiled
    return keys[_slot(keys, key)] == key


@inline_kernel
def _insert(a_keys, b_keys, b_count, meta, node, trip, pp):  # pragma: no cover - compiled
    """``HostPortInfo.Add`` of one (sanitized, port > 0) triple to ``node``."""
    ka = node * meta[0] + trip
    i = _slot(a_keys, ka)
    if a_keys[i] == ka:
        return
    if meta[2] + 1 >= a_keys.shape[0]:
        raise RuntimeError("NodePorts: used-ports table full (a pod assumed twice?)")
    a_keys[i] = ka
    meta[2] += 1
    kb = node * meta[1] + pp
    j = _slot(b_keys, kb)
    if b_keys[j] != kb:
        if meta[3] + 1 >= b_keys.shape[0]:
            raise RuntimeError("NodePorts: used-ports table full (a pod assumed twice?)")
        b_keys[j] = kb
        meta[3] += 1
    b_count[j] += 1


@inline_kernel
def _erase(keys, i):  # pragma: no cover - compiled
    """Empty slot ``i`` of a linear-probing table, moving back the keys after it whose
    probe would otherwise cross the hole (backward-shift deletion: no tombstones)."""
    mask = keys.shape[0] - 1
    j = i
    while True:
        j = (j + 1) & mask
        if keys[j] == EMPTY:
            break
        h = _home(keys[j], mask)
        # keys[j] stays when its home lies cyclically in (i, j]
        stays = (i < h <= j) if i <= j else (h > i or h <= j)
        if not stays:
            keys[i] = keys[j]
            i = j
    keys[i] = EMPTY


@inline_kernel
def _discard(a_keys, b_keys, b_count, meta, node, trip, pp):  # pragma: no cover - compiled
    """``HostPortInfo.Remove`` of one triple from ``node``: gone from the set even when
    another pod on the node uses it too (the map is a set, as in Go)."""
    ka = node * meta[0] + trip
    i = _slot(a_keys, ka)
    if a_keys[i] != ka:
        return
    _erase(a_keys, i)
    meta[2] -= 1
    j = _slot(b_keys, node * meta[1] + pp)
    b_count[j] -= 1  # the pair stays in its table with one IP fewer (0: none)


@kernel
def build_tables(node, trip, pp, cap, n_trip, n_pp):  # pragma: no cover - compiled
    """The tables (``cap`` slots each) holding the bound pods' triples."""
    a_keys = np.full(cap, EMPTY, dtype=np.int64)
    b_keys = np.full(cap, EMPTY, dtype=np.int64)
    b_count = np.zeros(cap, dtype=np.int64)
    meta = np.zeros(4, dtype=np.int64)
    meta[0] = n_trip
    meta[1] = n_pp
    for k in range(node.shape[0]):
        _insert(a_keys, b_keys, b_count, meta, node[k], trip[k], pp[k])
    return a_keys, b_keys, b_count, meta


@inline_kernel
def filter_node(state, pod, node):  # pragma: no cover - compiled
    """``Filter`` (``fitsPorts`` with ``CheckConflict``): 0, or ``CONFLICT``."""
    pod_ptr, pod_trip, pod_wtrip, pod_pp, _, a_keys, b_keys, b_count, meta = state
    for k in range(pod_ptr[pod], pod_ptr[pod + 1]):
        if pod_wtrip[k] == pod_trip[k]:  # 0.0.0.0: the pair on any IP
            kb = node * meta[1] + pod_pp[k]
            j = _slot(b_keys, kb)
            if b_keys[j] == kb and b_count[j] > 0:
                return np.int64(CONFLICT)
        elif _has(a_keys, node * meta[0] + pod_wtrip[k]) or _has(
            a_keys, node * meta[0] + pod_trip[k]
        ):
            return np.int64(CONFLICT)
    return np.int64(0)


@inline_kernel
def assume(state, pod, node):  # pragma: no cover - compiled
    """``NodeInfo.AddPod``'s ``updateUsedPorts``: the pod's host ports become used."""
    pod_ptr, pod_trip, _, pod_pp, _, a_keys, b_keys, b_count, meta = state
    for k in range(pod_ptr[pod], pod_ptr[pod + 1]):
        _insert(a_keys, b_keys, b_count, meta, np.int64(node), pod_trip[k], pod_pp[k])


@inline_kernel
def remove(state, pod, node):  # pragma: no cover - compiled
    """``NodeInfo.RemovePod``'s ``updateUsedPorts(pod, false)``: the pod's host ports are
    released."""
    pod_ptr, pod_trip, _, pod_pp, _, a_keys, b_keys, b_count, meta = state
    for k in range(pod_ptr[pod], pod_ptr[pod + 1]):
        _discard(a_keys, b_keys, b_count, meta, np.int64(node), pod_trip[k], pod_pp[k])
