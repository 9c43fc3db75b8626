"""VolumeRestrictions kernels over the state of ``plugin.VolumeRestrictions.prepare``:

``(chk_ptr int64[B + 1], chk_key int64[E], chk_rw bool[E], add_ptr int64[B + 1],
add_key int64[F], add_rw bool[F], any_count int32[N, K], rw_count int32[N, K],
group int64[B])``.

Disks are interned as *keys*: a GCE PD by name, an EBS volume by ID, an iSCSI volume by
IQN, an RBD image by (pool, image, monitor), one key per monitor. ``any_count[n, k]``
counts the volumes of key ``k`` that the pods on node ``n`` hold, ``rw_count`` those not
read-only. Pending pod ``p`` conflicts with node ``n`` when one of its check entries
``chk_ptr[p]:chk_ptr[p+1]`` finds its key held: by any volume (``chk_rw`` False: an EBS
volume, or a volume the pod mounts read-write) or by a read-write one (``chk_rw`` True: a
read-only GCE PD, iSCSI or RBD volume). ``assume``/``remove`` add and take away the pod's
add entries ``add_ptr[p]:add_ptr[p+1]`` (``add_rw``: not read-only). ``group`` numbers the
pods with equal check entries (``filter_key``). Keys only the pending pods' checks name
are kept: with no pending pod holding a checked disk, ``K`` is 0 and so is every list.
"""

from __future__ import annotations

import numpy as np

from ..._jit import inline_kernel

#: the failure code (``ErrReasonDiskConflict``)
CONFLICT = 1


@inline_kernel
def filter_node(state, pod, node):  # pragma: no cover - compiled
    """``Filter``: 0, or ``CONFLICT``."""
    chk_ptr, chk_key, chk_rw, _, _, _, any_count, rw_count, _ = state
    for e in range(chk_ptr[pod], chk_ptr[pod + 1]):
        k = chk_key[e]
        held = rw_count[node, k] if chk_rw[e] else any_count[node, k]
        if held > 0:
            return np.int64(CONFLICT)
    return np.int64(0)


@inline_kernel
def _add(state, pod, node, delta):  # pragma: no cover - compiled
    _, _, _, add_ptr, add_key, add_rw, any_count, rw_count, _ = state
    for e in range(add_ptr[pod], add_ptr[pod + 1]):
        k = add_key[e]
        any_count[node, k] += delta
        if add_rw[e]:
            rw_count[node, k] += delta


@inline_kernel
def assume(state, pod, node):  # pragma: no cover - compiled
    """``NodeInfo.AddPod``: the pod's volumes are on the node."""
    _add(state, pod, node, np.int32(1))
    return False


@inline_kernel
def remove(state, pod, node):  # pragma: no cover - compiled
    """``NodeInfo.RemovePod``: ``assume`` undone."""
    _add(state, pod, node, np.int32(-1))
    return False
