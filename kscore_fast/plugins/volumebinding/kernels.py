"""VolumeBinding kernels over the state of ``plugin.VolumeBinding.prepare`` (see
``state.STATE_FIELDS`` for its arrays): ``Filter`` is ``FindPodVolumes`` (bound claims
from a table per pod class and node class; claims to bind through their candidate volumes,
the volumes' claim owners and the claims' selected nodes), ``assume`` is ``Reserve`` →
``AssumePodVolumes`` (matched volumes get the claim as owner, provisioned claims the node
as selected node; the pod's slots of ``r_claim``/``r_vol`` record its PodVolumes: the
static bindings, then the claims to provision), ``remove`` changes nothing (a deleted
pod's volumes stay bound, as in Go). A verdict is a bit set of the reasons (``reference``'s
order): 1 volume node affinity conflict, 2 no volume to bind, 4 not enough storage, 8 a
bound volume absent.
``Score`` is 0 on every node.
"""

from __future__ import annotations

import numpy as np

from ..._jit import inline_kernel

NODE_CONFLICT, BIND_CONFLICT, NOT_ENOUGH_SPACE, PV_NOT_EXIST = 1, 2, 4, 8
#: a claim's selected node: none; a node not in the cluster
NO_NODE, OTHER_NODE = -1, -2
#: a volume's owner: free; bound to a claim no pending pod binds
FREE, TAKEN = -1, -2
#: a Reserve's record of a claim: provisioned on the host (else the volume's index)
PROVISIONED = -1


@inline_kernel
def is_chosen(v, chosen, n_chosen):  # pragma: no cover - compiled
    for j in range(n_chosen):
        if chosen[j] == v:
            return True
    return False


@inline_kernel
def find_volume(state, k, node, chosen, n_chosen):  # pragma: no cover - compiled
    """``FindMatchingVolume`` of claim ``k`` on ``node``, volumes ``chosen[:n_chosen]``
    excluded: a volume index, or -1. The first volume bound to the claim (by name) that
    is not excluded decides: it, or none."""
    cand_ptr, cand, aff_row, aff = state[6], state[7], state[8], state[9]
    owner, pre, n_bound = state[13], state[14], state[16]
    if n_bound[k] == 1 and not is_chosen(pre[k], chosen, n_chosen):
        return pre[k] if aff[aff_row[pre[k]], node] else -1
    if n_bound[k] > 1:  # (a claim listed twice in a pod gets a volume each time)
        for v in range(pre[k], owner.shape[0]):
            if owner[v] == k and not is_chosen(v, chosen, n_chosen):
                return v if aff[aff_row[v], node] else -1
    for i in range(cand_ptr[k], cand_ptr[k + 1]):
        v = cand[i]
        if owner[v] == FREE and aff[aff_row[v], node] and not is_chosen(v, chosen, n_chosen):
            return v
    return -1


@inline_kernel
def pod_volumes(state, c, node, chosen, provision):  # pragma: no cover - compiled
    """``FindPodVolumes``' claims to bind for pod class ``c`` on ``node``: the reason bits
    (2, 4), with the matched volumes in ``chosen`` (per claim of the class's sorted
    order, -1 none) and the claims to provision in ``provision`` (-1 ends)."""
    pc_ptr, pc_claims, pc_sorted = state[3], state[4], state[5]
    prov, topo_row, topo, selected = state[10], state[11], state[12], state[15]
    cap_row, cap = state[20], state[21]
    lo, hi = pc_ptr[c], pc_ptr[c + 1]
    for i in range(lo, hi):  # the fast path: a claim selected for another node
        s = selected[pc_claims[i]]
        if s != NO_NODE and s != node:
            return BIND_CONFLICT
    n_prov = 0
    for i in range(lo, hi):
        if selected[pc_claims[i]] != NO_NODE:
            provision[n_prov] = pc_claims[i]
            n_prov += 1
    matched_all = True
    for i in range(lo, hi):
        k = pc_sorted[i]
        chosen[i - lo] = -1
        if selected[k] != NO_NODE:
            continue
        v = find_volume(state, k, node, chosen[: hi - lo], i - lo)
        chosen[i - lo] = v
        if v < 0:
            matched_all = False
            provision[n_prov] = k
            n_prov += 1
    if n_prov < provision.shape[0]:
        provision[n_prov] = -1
    if n_prov == 0:
        return 0 if matched_all else BIND_CONFLICT
    for i in range(n_prov):  # checkVolumeProvisions: the first failing claim decides
        k = provision[i]
        if not prov[k] or not topo[topo_row[k], node]:
            return BIND_CONFLICT
        if not cap[cap_row[k], node]:  # hasEnoughCapacity
            return NOT_ENOUGH_SPACE
    return 0


@inline_kernel
def provisioned_anywhere(state, c, node):  # pragma: no cover - compiled
    """``pod_volumes``' verdict for pod class ``c`` on ``node`` when it does not depend on
    which volumes match: ``BIND_CONFLICT`` when a claim is selected for another node, 0
    when every claim to bind may be provisioned on the node, with room where its capacity
    is checked (whichever volumes match, those that do not are provisioned); else -1
    (matching decides)."""
    pc_ptr, pc_claims, prov, topo_row, topo = state[3], state[4], state[10], state[11], state[12]
    selected, cap_row, cap = state[15], state[20], state[21]
    verdict = 0
    for i in range(pc_ptr[c], pc_ptr[c + 1]):
        k = pc_claims[i]
        if selected[k] != NO_NODE and selected[k] != node:
            return BIND_CONFLICT
        if not prov[k] or not topo[topo_row[k], node] or not cap[cap_row[k], node]:
            verdict = -1
    return verdict


@inline_kernel
def filter_node(state, pod, node):  # pragma: no cover - compiled
    """``Filter``: the reason bits (0: fits)."""
    node_class, pod_class, bound_code, pc_ptr = state[0], state[1], state[2], state[3]
    c = pod_class[pod]
    if c == 0:
        return 0
    bits = bound_code[c, node_class[node]]
    n = pc_ptr[c + 1] - pc_ptr[c]
    if n == 0:
        return bits
    fast = provisioned_anywhere(state, c, node)
    if fast >= 0:
        return bits | fast
    chosen = np.empty(n, np.int64)
    provision = np.empty(n, np.int64)
    return bits | pod_volumes(state, c, node, chosen, provision)


@inline_kernel
def assume(state, pod, node):  # pragma: no cover - compiled
    """``AssumePodVolumes`` on the pod's host: True when a volume or claim changed."""
    pod_class, pc_ptr, pc_sorted = state[1], state[3], state[5]
    owner, pre, selected, n_bound = state[13], state[14], state[15], state[16]
    c = pod_class[pod]
    lo, hi = pc_ptr[c], pc_ptr[c + 1]
    if c == 0 or hi == lo:
        return False
    chosen = np.empty(hi - lo, np.int64)
    provision = np.empty(hi - lo, np.int64)
    if pod_volumes(state, c, node, chosen, provision) != 0:
        return False  # (not feasible there: nothing to reserve)
    changed = False
    slot = state[17][pod]  # (what Reserve decided, in PodVolumes' order: read after)
    r_claim, r_vol = state[18], state[19]
    for i in range(lo, hi):
        v, k = chosen[i - lo], pc_sorted[i]
        if v >= 0:
            r_claim[slot], r_vol[slot] = k, v
            slot += 1
        if v >= 0 and owner[v] != k:
            owner[v] = k
            n_bound[k] += 1
            if pre[k] < 0 or v < pre[k]:
                pre[k] = v
            changed = True
    for i in range(hi - lo):
        k = provision[i]
        if k < 0:
            break
        r_claim[slot], r_vol[slot] = k, PROVISIONED
        slot += 1
        if selected[k] != node:
            selected[k] = node
            changed = True
    return changed


@inline_kernel
def remove(state, pod, node):  # pragma: no cover - compiled
    """A deleted pod's volumes stay bound and its claims selected (nothing reverts)."""
    return False


@inline_kernel
def score_pod(state, pod, nodes, out):  # pragma: no cover - compiled
    out[:] = 0
