"""The static driver: one compiled per-pod loop over every in-tree plugin.

Every plugin has a fixed *slot*; a profile is a list of slots for its filter plugins (in
order) and for its score plugins (with weights). The kernels below dispatch on slot
numbers with a literal ``if`` chain (kube-scheduler's in-tree registry is closed and
literal too), so numba compiles one function for every profile: the framework's search
(:mod:`kscore_fast.framework.search`) and scoring (:mod:`kscore_fast.framework.scoring`)
helpers are inlined into these entry points with the dispatch functions as arguments.

``states`` is the tuple of every plugin's state, in slot order; a plugin that is not in
the profile contributes its ``empty_state()`` (same types, never read). The batch runtime
runs these kernels in parallel over pods; the simulator will run them pod by pod, with
the plugins' ``assume`` in between.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from itertools import pairwise
from typing import Any

import numpy as np

from .. import _jit
from .._jit import inline_kernel, kernel, run_threaded, threads, unrefcounted_kernel
from ..framework import scoring, search
from ..model.snapshot import ClusterSnapshot, PodBatch
from .helper.rows import unique_rows
from .imagelocality import ImageLocality
from .imagelocality import kernels as imagelocality
from .interpodaffinity import InterPodAffinity
from .interpodaffinity import kernels as interpodaffinity
from .nodeaffinity import NodeAffinity
from .nodeaffinity import kernels as nodeaffinity
from .nodename import NodeName
from .nodename import kernels as nodename
from .nodeports import NodePorts
from .nodeports import kernels as nodeports
from .noderesources import (
    NodeResourcesBalancedAllocation,
    NodeResourcesFit,
    balanced_kernels,
    fit_kernels,
)
from .nodeunschedulable import NodeUnschedulable
from .nodeunschedulable import kernels as nodeunschedulable
from .podtopologyspread import PodTopologySpread
from .podtopologyspread import kernels as podtopologyspread
from .selectorspread import SelectorSpread
from .selectorspread import kernels as selectorspread
from .tainttoleration import TaintToleration
from .tainttoleration import kernels as tainttoleration
from .volumebinding import VolumeBinding
from .volumebinding import kernels as volumebinding

#: plugin classes by slot (a plugin's slot is its position in ``states``)
CLASSES: tuple[Any, ...] = (
    SelectorSpread,
    NodeUnschedulable,
    NodeName,
    TaintToleration,
    NodeAffinity,
    NodePorts,
    NodeResourcesFit,
    NodeResourcesBalancedAllocation,
    ImageLocality,
    VolumeBinding,
    PodTopologySpread,
    InterPodAffinity,
)
(SELECTOR_SPREAD, NODE_UNSCHEDULABLE, NODE_NAME, TAINT_TOLERATION, NODE_AFFINITY, NODE_PORTS,
 NODE_RESOURCES_FIT, BALANCED_ALLOCATION, IMAGE_LOCALITY, VOLUME_BINDING, POD_TOPOLOGY_SPREAD,
 INTER_POD_AFFINITY) = range(len(CLASSES))  # fmt: skip
SLOTS: dict[str, int] = {cls.name: slot for slot, cls in enumerate(CLASSES)}


@unrefcounted_kernel
def fill_block(fids, states, reps, c, b, block, memo, done):  # pragma: no cover - compiled
    """``RunFilterPlugins`` for pod class ``c`` on the nodes of block ``b``: the first
    failing plugin per node and its code, packed (see ``framework.search``)."""
    lo = b * block
    hi = min(lo + block, memo.shape[1])
    _fill(fids, states, reps[c], c, lo, hi, memo[c, :0], memo)
    done[c, b] = True


@unrefcounted_kernel
def fill_nodes(fids, states, reps, c, nodes, memo):  # pragma: no cover - compiled
    """``RunFilterPlugins`` for pod class ``c`` on the listed nodes (a node may come more
    than once) whatever their block: verdicts made afresh after those nodes changed."""
    _fill(fids, states, reps[c], c, 0, nodes.shape[0], nodes, memo)


@inline_kernel
def _fill(fids, states, rep, c, lo, hi, nodes, memo):  # pragma: no cover - compiled
    """The verdicts of class ``c`` (representative pod ``rep``) on nodes ``lo:hi``, or
    with ``nodes`` non-empty on ``nodes[lo:hi]``: every profile filter in turn where no
    earlier one failed."""
    search.clear_rows(c, lo, hi, nodes, memo)
    for k in range(fids.shape[0]):
        f = fids[k]
        if f == NODE_UNSCHEDULABLE:
            search.filter_rows(nodeunschedulable.filter_node, states[NODE_UNSCHEDULABLE], k,
                               rep, c, lo, hi, nodes, memo)  # fmt: skip
        elif f == NODE_NAME:
            search.filter_rows(nodename.filter_node, states[NODE_NAME], k, rep, c, lo, hi, nodes,
                               memo)  # fmt: skip
        elif f == TAINT_TOLERATION:
            search.filter_rows(tainttoleration.filter_node, states[TAINT_TOLERATION], k, rep, c,
                               lo, hi, nodes, memo)  # fmt: skip
        elif f == NODE_AFFINITY:
            search.filter_rows(nodeaffinity.filter_node, states[NODE_AFFINITY], k, rep, c, lo,
                               hi, nodes, memo)  # fmt: skip
        elif f == NODE_PORTS:
            search.filter_rows(nodeports.filter_node, states[NODE_PORTS], k, rep, c, lo, hi,
                               nodes, memo)  # fmt: skip
        elif f == NODE_RESOURCES_FIT:
            search.filter_rows(fit_kernels.filter_node, states[NODE_RESOURCES_FIT], k, rep, c,
                               lo, hi, nodes, memo)  # fmt: skip
        elif f == POD_TOPOLOGY_SPREAD:
            search.filter_rows(podtopologyspread.filter_node, states[POD_TOPOLOGY_SPREAD], k,
                               rep, c, lo, hi, nodes, memo)  # fmt: skip
        elif f == INTER_POD_AFFINITY:
            search.filter_rows(interpodaffinity.filter_node, states[INTER_POD_AFFINITY], k,
                               rep, c, lo, hi, nodes, memo)  # fmt: skip


@unrefcounted_kernel
def search_chunk(
    fids,
    states,
    pods,
    reps,
    classes,
    nominated,
    start,
    num_to_find,
    n_nodes,
    memo,
    done,
    explain,
    ptr,
    feasible,
    failed,
    rej_ptr,
    rej_node,
    rej_code,
):  # pragma: no cover - compiled
    """Consecutive cycles' searches (:func:`kscore_fast.framework.search.search_chunk`)."""
    return search.search_chunk(
        fill_block, fids, states, pods, reps, classes, nominated, start, num_to_find,
        n_nodes, memo, done, search.BLOCK, explain, ptr, feasible, failed, rej_ptr, rej_node,
        rej_code,
    )  # fmt: skip


@kernel
def fill_classes(lo, hi, fids, states, reps, todo, memo, done):  # pragma: no cover - compiled
    """Every verdict of pod classes ``todo[lo:hi]`` (when every node is examined anyway)."""
    for q in range(lo, hi):
        c = todo[q]
        for b in range(done.shape[1]):
            if not done[c, b]:
                fill_block(fids, states, reps, c, b, search.BLOCK, memo, done)


@kernel
def score_todo(
    todo,
    sids,
    weights,
    states,
    pods,
    ptr,
    nodes,
    raw,
    norm_u8,
    base,
    total,
    best,
    count,
    bad_plugin,
    bad_value,
    rows,
    row_raw,
    n_all,
    row_const,
    const_ok,
    row_ok,
    keep,
):  # pragma: no cover - compiled
    """``prioritizeNodes`` for the chunk pods ``todo`` (≥ 2 feasible nodes each), plugin by
    plugin over the pods (:mod:`kscore_fast.framework.scoring`). ``raw``/``norm_u8`` are
    whole buffers (one compiled signature), the chunk's entries from column ``base``;
    ``rows`` (int64[K, C])/``row_raw``/``row_const``: shared raw scores on all ``n_all``
    nodes (see ``TwinRows``), for the plugins with ``row_ok[k]``; ``const_ok[k]``: plugin ``k``
    normalizes equal scores to equal scores;
    ``keep``: the per-plugin scores are kept (else only totals matter)."""
    nptr = np.zeros(todo.shape[0] + 1, dtype=np.int64)
    for q in range(todo.shape[0]):
        nptr[q + 1] = nptr[q] + ptr[todo[q] + 1] - ptr[todo[q]]
    norm = np.empty((sids.shape[0], nptr[-1]), dtype=np.int64)
    cflag = np.empty((sids.shape[0], todo.shape[0]), dtype=np.bool_)
    cval = np.empty((sids.shape[0], todo.shape[0]), dtype=np.int64)
    own_lists = np.full(rows.shape[1], -1, dtype=np.int64)
    for k in range(sids.shape[0]):
        pod_rows = rows[k] if row_ok[k] else own_lists
        _plugin_pass(sids[k], states, k, todo, pods, ptr, nodes, raw, base, norm, nptr,
                     pod_rows, row_raw, n_all, row_const, const_ok[k], keep, cflag, cval,
                     np.bool_(True))  # fmt: skip
    scoring.weigh_pods(weights, todo, ptr, norm, nptr, norm_u8, base, total, best, count,
                       bad_plugin, bad_value, cflag, cval, keep)  # fmt: skip


@kernel
def fill_rows(sids, states, reps, n_all, row_raw, row_ok, first, const
              ):  # pragma: no cover - compiled  # fmt: skip
    """Raw scores of pods ``reps`` on every node, into rows ``first``, ``first + 1``, ...:
    ``row_raw[k, (first + m) * n_all + node]``, and ``const[k, first + m]``: the row holds
    one value (plugins with ``row_ok[k]``; the others' rows are left alone)."""
    m = reps.shape[0]
    todo = np.arange(m)
    ptr = np.arange(m + 1) * n_all
    nodes = np.empty(m * n_all, dtype=np.int32)
    for r in range(m):
        for node in range(n_all):
            nodes[r * n_all + node] = node
    norm = np.empty((sids.shape[0], 0), dtype=np.int64)  # not normalized
    none = np.full(m, -1, dtype=np.int64)
    no_const = np.zeros((sids.shape[0], 1), dtype=np.bool_)
    cflag = np.empty((sids.shape[0], m), dtype=np.bool_)
    cval = np.empty((sids.shape[0], m), dtype=np.int64)
    base = first * n_all
    for k in range(sids.shape[0]):
        if not row_ok[k]:
            continue
        _plugin_pass(sids[k], states, k, todo, reps, ptr, nodes, row_raw, base, norm,
                     ptr, none, row_raw, n_all, no_const, np.bool_(False), np.bool_(True),
                     cflag, cval, np.bool_(False))  # fmt: skip
        for r in range(m):
            lo = base + r * n_all
            same = True
            for e in range(lo + 1, lo + n_all):
                if row_raw[k, e] != row_raw[k, lo]:
                    same = False
                    break
            const[k, first + r] = same


@kernel
def twins_of(twin, n_twin, ptr, nodes):  # pragma: no cover - compiled
    """The chunk pods to score (``todo``) and those that copy an earlier twin
    (``model.snapshot.pod_twins``) with the same node list (``copies``, from ``source``)."""
    leader = np.full(n_twin, -1, dtype=np.int64)
    n = twin.shape[0]
    todo = np.empty(n, dtype=np.int64)
    copies = np.empty(n, dtype=np.int64)
    source = np.empty(n, dtype=np.int64)
    n_todo = 0
    n_copies = 0
    for i in range(n):
        j = leader[twin[i]]
        if j >= 0 and _same_list(nodes, ptr[j], ptr[j + 1], ptr[i], ptr[i + 1]):
            copies[n_copies] = i
            source[n_copies] = j
            n_copies += 1
        else:
            leader[twin[i]] = i
            todo[n_todo] = i
            n_todo += 1
    return todo[:n_todo], copies[:n_copies], source[:n_copies]


@kernel
def copy_twins(
    copies, source, ptr, raw, norm_u8, base, keep, total, best, count, bad_plugin, bad_value
):  # pragma: no cover - compiled
    """Give each pod of ``copies`` the best total, its count and the failure of its twin
    ``source``; with ``keep``, its totals and per-plugin scores too (else its entries
    stay unwritten: the host is picked from the source's, ``selection.select_shared``)."""
    for q in range(copies.shape[0]):
        i = copies[q]
        j = source[q]
        n = ptr[i + 1] - ptr[i]
        dst = base + ptr[i]
        src = base + ptr[j]
        if keep:
            for k in range(raw.shape[0]):
                raw[k, dst : dst + n] = raw[k, src : src + n]
                norm_u8[k, dst : dst + n] = norm_u8[k, src : src + n]
            total[ptr[i] : ptr[i] + n] = total[ptr[j] : ptr[j] + n]
        best[i] = best[j]
        count[i] = count[j]
        bad_plugin[i] = bad_plugin[j]
        bad_value[i] = bad_value[j]


@inline_kernel
def _plugin_pass(
    sid, states, k, todo, pods, ptr, nodes, raw, base, norm, nptr, rows, row_raw, n_all,
    row_const, const_ok, keep, cflag, cval, do_norm,
):  # fmt: skip  # pragma: no cover - compiled
    """:func:`scoring.plugin_pass` of plugin slot ``sid``, with its kernels and state (callers
    pass typed values, never literals: one compiled signature for every caller):
    plugins whose kernels allocate (scratch rows) with numba's reference counting, the
    others without (see ``_jit.unrefcounted_kernel``: ~0.2 µs per pod and plugin)."""
    if sid == SELECTOR_SPREAD:
        scoring.plugin_pass(selectorspread.score_pod, selectorspread.normalize_pod,
                            states[SELECTOR_SPREAD], k, todo, pods, ptr, nodes, raw, base,
                            norm, nptr, rows, row_raw, n_all, row_const, const_ok, keep, cflag,
                            cval, do_norm)  # fmt: skip
    elif sid == POD_TOPOLOGY_SPREAD:
        scoring.plugin_pass(podtopologyspread.score_pod, podtopologyspread.normalize_pod,
                            states[POD_TOPOLOGY_SPREAD], k, todo, pods, ptr, nodes, raw, base,
                            norm, nptr, rows, row_raw, n_all, row_const, const_ok, keep, cflag,
                            cval, do_norm)  # fmt: skip
    else:
        _plain_pass(sid, states, k, todo, pods, ptr, nodes, raw, base, norm, nptr, rows,
                    row_raw, n_all, row_const, const_ok, keep, cflag, cval, do_norm)  # fmt: skip


@unrefcounted_kernel
def serial_pass(
    sid, states, k, todo, pods, ptr, nodes, raw, base, norm, nptr, rows, row_raw, n_all,
    row_const, const_ok, keep, cflag, cval, do_norm,
):  # fmt: skip  # pragma: no cover - compiled
    """:func:`_plugin_pass` for serial callers, without reference counting: every plugin
    but SelectorSpread (not run sequentially), PodTopologySpread on its state's scratch
    rows (``score_pod_serial``)."""
    if sid != POD_TOPOLOGY_SPREAD:
        _plain_pass(sid, states, k, todo, pods, ptr, nodes, raw, base, norm, nptr, rows,
                    row_raw, n_all, row_const, const_ok, keep, cflag, cval, do_norm)  # fmt: skip
        return
    spread = states[POD_TOPOLOGY_SPREAD]
    score, normalize = podtopologyspread.score_pod_serial, podtopologyspread.normalize_pod
    scoring.plugin_pass(score, normalize, spread, k, todo, pods, ptr, nodes, raw, base, norm,
                        nptr, rows, row_raw, n_all, row_const, const_ok, keep, cflag, cval,
                        do_norm)  # fmt: skip


@unrefcounted_kernel
def _plain_pass(
    sid, states, k, todo, pods, ptr, nodes, raw, base, norm, nptr, rows, row_raw, n_all,
    row_const, const_ok, keep, cflag, cval, do_norm,
):  # fmt: skip  # pragma: no cover - compiled
    """:func:`_plugin_pass` of the plugins whose kernels allocate nothing."""
    if sid == TAINT_TOLERATION:
        scoring.plugin_pass(tainttoleration.score_pod, tainttoleration.normalize_pod,
                            states[TAINT_TOLERATION], k, todo, pods, ptr, nodes, raw, base,
                            norm, nptr, rows, row_raw, n_all, row_const, const_ok, keep, cflag,
                            cval, do_norm)  # fmt: skip
    elif sid == NODE_AFFINITY:
        scoring.plugin_pass(nodeaffinity.score_pod, nodeaffinity.normalize_pod,
                            states[NODE_AFFINITY], k, todo, pods, ptr, nodes, raw, base,
                            norm, nptr, rows, row_raw, n_all, row_const, const_ok, keep, cflag,
                            cval, do_norm)  # fmt: skip
    elif sid == NODE_RESOURCES_FIT:
        scoring.plugin_pass(fit_kernels.score_pod, scoring.no_normalize,
                            states[NODE_RESOURCES_FIT], k, todo, pods, ptr, nodes, raw, base,
                            norm, nptr, rows, row_raw, n_all, row_const, const_ok, keep, cflag,
                            cval, do_norm)  # fmt: skip
    elif sid == BALANCED_ALLOCATION:
        scoring.plugin_pass(balanced_kernels.score_pod, scoring.no_normalize,
                            states[BALANCED_ALLOCATION], k, todo, pods, ptr, nodes, raw, base,
                            norm, nptr, rows, row_raw, n_all, row_const, const_ok, keep, cflag,
                            cval, do_norm)  # fmt: skip
    elif sid == IMAGE_LOCALITY:
        scoring.plugin_pass(imagelocality.score_pod, scoring.no_normalize,
                            states[IMAGE_LOCALITY], k, todo, pods, ptr, nodes, raw, base,
                            norm, nptr, rows, row_raw, n_all, row_const, const_ok, keep, cflag,
                            cval, do_norm)  # fmt: skip
    elif sid == INTER_POD_AFFINITY:
        scoring.plugin_pass(interpodaffinity.score_pod, interpodaffinity.normalize_pod,
                            states[INTER_POD_AFFINITY], k, todo, pods, ptr, nodes, raw, base,
                            norm, nptr, rows, row_raw, n_all, row_const, const_ok, keep, cflag,
                            cval, do_norm)  # fmt: skip
    elif sid == VOLUME_BINDING:
        scoring.plugin_pass(volumebinding.score_pod, scoring.no_normalize,
                            states[VOLUME_BINDING], k, todo, pods, ptr, nodes, raw, base,
                            norm, nptr, rows, row_raw, n_all, row_const, const_ok, keep, cflag,
                            cval, do_norm)  # fmt: skip


@inline_kernel
def _same_list(nodes, ja, jb, a, b):  # pragma: no cover - compiled
    """The entries ``[ja, jb)`` and ``[a, b)`` of ``nodes`` are equal (compared 64 at a
    time without a branch, on slices, which the compiler vectorizes: ~5x faster)."""
    n = b - a
    if jb - ja != n:
        return False
    x, y = nodes[ja:jb], nodes[a:b]
    for lo in range(0, n, 64):
        differ = 0
        for e in range(lo, min(n, lo + 64)):
            differ |= x[e] ^ y[e]
        if differ != 0:
            return False
    return True


def prefill(fids: np.ndarray, states: tuple[Any, ...], reps: np.ndarray, todo: np.ndarray,
            memo: np.ndarray, done: np.ndarray, keys: np.ndarray | None = None
            ) -> None:  # fmt: skip
    """Every verdict of the pod classes ``todo``, classes split across threads; with
    ``keys`` (:func:`plugin_keys`), plugin by plugin (:func:`_prefill_by_plugin`)."""
    todo = todo.astype(np.int64)
    by_plugin = keys is not None and len(fids) > 1 and len(todo) > 1
    if by_plugin and _prefill_by_plugin(fids, states, reps[todo], keys, todo, memo):
        done[todo] = True
        return
    work = np.arange(len(todo) + 1, dtype=np.int64) * memo.shape[1]
    run_threaded([partial(fill_classes, a, b, fids, states, reps, todo, memo, done)
                  for a, b in _split(work, int(work[-1]))])  # fmt: skip


#: verdict entries the plugins' rows may hold beyond twice the classes' (8 MB)
BY_PLUGIN_ENTRIES = 1 << 20


def _prefill_by_plugin(fids: np.ndarray, states: tuple[Any, ...], pods: np.ndarray,
                       keys: np.ndarray, todo: np.ndarray, memo: np.ndarray) -> bool:  # fmt: skip
    """``RunFilterPlugins``' first failure per node of the classes ``todo`` (representative
    ``pods``) from each plugin's own verdicts: plugin ``k`` filters every node once per
    distinct ``filter_key`` of its among the classes (pods with equal keys get equal
    verdicts from it), into one table of every plugin's rows; then each class's row takes,
    node by node, the first plugin's failure (:func:`first_failures`). Classes differ
    mostly by a few plugins' keys (resources, topology): each plugin runs for its own
    keys only, not once per combination. False (nothing done) when the plugins' rows
    would outnumber twice the classes' and hold more than ``BY_PLUGIN_ENTRIES``: the
    classes are then filled one by one."""
    n_plugins = len(fids)
    row_of = np.empty((len(pods), n_plugins), dtype=np.int64)  # each class's row per plugin
    firsts, offsets = [], [0]  # plugin k's rows: offsets[k]:offsets[k + 1]
    for k in range(n_plugins):
        _, first, key_of = np.unique(keys[pods, k], return_index=True, return_inverse=True)
        row_of[:, k] = key_of.reshape(-1) + offsets[k]
        firsts.append(first)
        offsets.append(offsets[k] + len(first))
    n = memo.shape[1]
    if offsets[-1] > 2 * len(todo) and offsets[-1] * n > BY_PLUGIN_ENTRIES:
        return False
    table = np.empty((offsets[-1], n), dtype=np.int64)
    done = np.zeros((offsets[-1], -(-n // search.BLOCK)), dtype=np.bool_)
    reps = pods[np.concatenate(firsts)].astype(np.int64)
    for k in range(n_plugins):
        rows = np.arange(offsets[k], offsets[k + 1], dtype=np.int64)
        prefill(fids[k : k + 1].copy(), states, reps, rows, table, done)
    work = np.arange(len(todo) + 1, dtype=np.int64) * n
    run_threaded([partial(first_failures, table, row_of[a:b], memo, todo[a:b])
                  for a, b in _split(work, int(work[-1]))])  # fmt: skip
    return True


@kernel
def first_failures(table, row_of, memo, todo):  # pragma: no cover - compiled
    """Row ``todo[q]`` of ``memo``: on each node, the first plugin ``k`` whose verdict row
    ``row_of[q, k]`` of ``table`` fails there (its failure moved to slot ``k``: the rows
    hold a one-plugin profile's verdicts), else 0."""
    shift = np.int64(search.SLOT_SHIFT)
    for q in range(todo.shape[0]):
        c = todo[q]
        for node in range(memo.shape[1]):
            v = np.int64(0)
            for k in range(row_of.shape[1]):
                x = table[row_of[q, k], node]
                if x != 0:
                    v = x + (np.int64(k) << shift)
                    break
            memo[c, node] = v


def score_chunk(sids: np.ndarray, weights: np.ndarray, states: tuple[Any, ...],
                pods: np.ndarray, twins: np.ndarray, rows: TwinRows, ptr: np.ndarray,
                nodes: np.ndarray, raw: np.ndarray, norm_u8: np.ndarray, base: int,
                keep: bool, total: np.ndarray, *per_pod: np.ndarray) -> np.ndarray:  # fmt: skip
    """``prioritizeNodes`` for the chunk's pods: pods of one copy class (``twins``: the
    pods' ``copy_classes``) on the same node list are scored once and copied, twins on
    other lists take their raw scores from ``rows``; the pods to score are split across
    threads by entries (``raw``, ``norm_u8``: whole buffers, the chunk's entries from
    column ``base``; ``keep``: copies get the totals and the per-plugin scores, else only
    ``per_pod``: best, count, bad_plugin, bad_value). Returns int64[C]: the chunk pod each
    pod copies (-1: scored itself), whose entries hold its totals when not ``keep``."""
    if len(pods) > 1:
        local, twin = np.unique(twins, return_inverse=True)
        twin = twin.reshape(-1).astype(np.int64)
        todo, copies, source = twins_of(twin, len(local), ptr, nodes)
    else:  # (a lone pod: nothing to copy)
        todo, copies, source = np.arange(len(pods), dtype=np.int64), _NONE, _NONE
    row_of = rows.rows_for(states, pods, todo)
    work = np.zeros(len(todo) + 1, dtype=np.int64)
    np.cumsum(ptr[todo + 1] - ptr[todo], out=work[1:])
    run_threaded([partial(score_todo, todo[a:b], sids, weights, states, pods, ptr, nodes, raw,
                          norm_u8, base, total, *per_pod, row_of, rows.raw, rows.n_all,
                          rows.const, rows.const_ok, rows.row_ok, keep)
                  for a, b in _split(work, int(work[-1]))])  # fmt: skip
    if len(copies):
        copy_twins(copies, source, ptr, raw, norm_u8, base, keep, total, *per_pod)
    source_of = np.full(len(pods), -1, dtype=np.int64)
    source_of[copies] = source
    return source_of


_NONE = np.zeros(0, dtype=np.int64)


def copy_classes(sids: np.ndarray, states: tuple[Any, ...], twins: np.ndarray,
                 spec: np.ndarray | None = None) -> np.ndarray:  # fmt: skip
    """int64[B]: pods of one class get equal raw and normalized scores from every score
    plugin of ``sids`` on equal node lists, so ``score_chunk`` scores one of them per list
    and copies. Twins (``pod_twins``) always do; so do pods of one ``spec`` group
    (``spec_twins``) for a ``spec_only`` plugin; a plugin with ``copy_groups(state)``
    (int64[B]: equal ids ≥ 0 score and normalize equally whatever else differs; -1: the
    pod's twins only) lets pods that differ elsewhere share too (SelectorSpread: pods with
    one default selector)."""
    if len(twins) < 2:
        return twins
    columns: list[np.ndarray] = []
    for s in sids.tolist():
        groups = getattr(CLASSES[s], "copy_groups", None)
        if spec is not None and getattr(CLASSES[s], "spec_only", False):
            column = spec
        elif groups is None:
            column = twins
        else:
            g = np.asarray(groups(states[s]), dtype=np.int64)
            column = np.where(g >= 0, g, -1 - twins)
        if not any(c is column or np.array_equal(c, column) for c in columns):
            columns.append(column)
    if len(columns) < 2:  # (any ids do: score_chunk ranks them)
        return columns[0] if columns else twins
    return unique_rows(np.column_stack(columns))[1]


#: raw scores of twins on every node kept for a run up to this many entries (64 MB)
ROW_ENTRIES = 1 << 23
#: see ``TwinRows``
ROW_SHARE = 2


def normalizes_equal_equally(sids: np.ndarray) -> np.ndarray:
    """bool[K]: score plugin ``sids[k]`` gives equal normalized scores to equal raw scores,
    whatever the list (no NormalizeScore, or ``constant_normalize``)."""
    return np.array(
        [not CLASSES[s].normalizes or getattr(CLASSES[s], "constant_normalize", False)
         for s in sids.tolist()], dtype=np.bool_,
    ).reshape(-1)  # fmt: skip


class TwinRows:
    """Raw scores on every node of the batch's pods that share them, filled as they are
    first needed and kept for the run (nothing is assumed in a batch run): pods on
    different node lists (rotating windows) are each normalized over their own list from
    the same row. Per plugin, pods share a row when they are twins or, for a plugin with
    ``score_groups(state)`` (int64[B]: equal ids, equal raw scores on every node; -1: the
    pod's scores depend on its node list), when their groups are equal; for a
    ``spec_only`` plugin, when they are of one ``spec`` group (``spec_twins``)."""

    def __init__(self, sids: np.ndarray, twins: np.ndarray, n_nodes: int,
                 states: tuple[Any, ...] | None = None, num_to_find: int | None = None,
                 spec: np.ndarray | None = None) -> None:  # fmt: skip
        self.sids, self.n_all = sids, max(n_nodes, 1)
        #: a group gets a row when its pods' lists hold ROW_SHARE times the row's entries
        need = 2 if num_to_find is None else max(2, -(-ROW_SHARE * self.n_all // num_to_find))
        #: per *family* of plugins sharing their groups (the twins, or one plugin's own
        #: ``score_groups``): the plugins (bool[K]), each pod's group (-1: no row), the
        #: groups given a row (≥ ``need`` pods) and each one's row once filled (in filling order:
        #: the rows a chunk needs are consecutive, filled in place)
        self.members: list[np.ndarray] = []
        self.groups: list[np.ndarray] = []
        for k, s in enumerate(sids.tolist() if len(twins) >= need else ()):  # (else no row)
            cls = CLASSES[s]
            if hasattr(cls, "score_groups") and states is not None:
                self._family(k, np.asarray(cls.score_groups(states[s]), dtype=np.int64))
            elif spec is not None and getattr(cls, "spec_only", False):
                self._family(k, spec, joined=True)
            elif getattr(cls, "row_independent", True):
                self._family(k, twins, shared=True)
        cap = ROW_ENTRIES // (self.n_all * max(len(sids), 1))
        self.shared, self.row_of = [], []
        for g in self.groups:
            counts = np.bincount(g[g >= 0], minlength=int(g.max(initial=-1)) + 1)
            shared = np.zeros(len(counts), dtype=np.bool_)
            shared[np.flatnonzero(counts >= need)[:cap]] = True
            self.shared.append(shared)
            self.row_of.append(np.full(len(counts), -1, dtype=np.int64))
        n_rows = max((int(sh.sum()) for sh in self.shared), default=0)
        self.n_filled = [0] * len(self.groups)
        self.raw = np.empty((len(sids), n_rows * self.n_all), dtype=np.int64)
        #: bool[K, rows]: the row holds one value on every node
        self.const = np.zeros((len(sids), max(n_rows, 1)), dtype=np.bool_)
        #: bool[K]: the plugin gives equal normalized scores to equal raw scores, whatever
        #: the list (no NormalizeScore, or ``constant_normalize``): a pod whose row is
        #: constant is normalized once (``scoring.plugin_pass``)
        self.const_ok = normalizes_equal_equally(sids)
        #: bool[K]: some pods take the plugin's raw scores from rows
        self.row_ok = np.zeros(len(sids), dtype=np.bool_)
        for members in self.members:
            self.row_ok |= members

    def _family(self, k: int, groups: np.ndarray, shared: bool = False,
                joined: bool = False) -> None:  # fmt: skip
        """Plugin ``k`` into the family of ``groups``: the twins' one when ``shared`` (kept
        first), one family for every plugin given these very groups when ``joined``, else
        a family of its own."""
        if shared or joined:
            for members, mine in zip(self.members, self.groups, strict=True):
                if mine is groups:
                    members[k] = True
                    return
        members = np.zeros(len(self.sids), dtype=np.bool_)
        members[k] = True
        if shared:  # the twins' family first
            self.members.insert(0, members)
            self.groups.insert(0, groups)
        else:
            self.members.append(members)
            self.groups.append(groups)

    def rows_for(self, states: tuple[Any, ...], pods: np.ndarray, todo: np.ndarray
                 ) -> np.ndarray:  # fmt: skip
        """int64[K, C]: the row of each chunk pod per plugin (-1: scored on its own list),
        with the rows the chunk's pods to score need filled."""
        out = np.full((len(self.sids), len(pods)), -1, dtype=np.int64)
        for f, members in enumerate(self.members):
            shared, row_of = self.shared[f], self.row_of[f]
            if not shared.any():
                continue
            groups = self.groups[f][pods]
            has = groups >= 0
            has[has] = shared[groups[has]]
            groups = np.where(has, groups, 0)
            missing = has[todo] & (row_of[groups[todo]] < 0)
            need, first = np.unique(groups[todo][missing], return_index=True)
            if len(need):
                self._fill(states, f, need, pods[todo[missing][first]])
            rows = np.where(has, row_of[groups], -1)
            out[members] = rows
        return out

    def _fill(self, states: tuple[Any, ...], f: int, need: np.ndarray, reps: np.ndarray) -> None:
        """Rows of family ``f``'s groups ``need`` (representative pods ``reps``)."""
        start = self.n_filled[f]
        self.row_of[f][need] = start + np.arange(len(need))
        self.n_filled[f] += len(need)
        members = self.members[f]
        work = np.arange(len(need) + 1, dtype=np.int64) * self.n_all * int(members.sum())
        run_threaded([partial(fill_rows, self.sids, states, reps[a:b], self.n_all, self.raw,
                              members, np.int64(start + a), self.const)
                      for a, b in _split(work, int(work[-1]))])  # fmt: skip


def _split(ptr: np.ndarray, work: int) -> list[tuple[int, int]]:
    """Ranges of items (item ``i`` spans ``ptr[i]:ptr[i+1]``) of about equal work, one
    per thread, or a single range when the work is too small to share."""
    n = len(ptr) - 1
    k = threads() if work >= _jit.PARALLEL_MIN_WORK else 1
    if k == 1:
        return [(0, n)] if n > 0 else []
    total = int(ptr[-1])
    bounds = np.searchsorted(ptr, [total * j // k for j in range(1, k)]).tolist()
    edges = sorted({0, n, *(min(max(b, 0), n) for b in bounds)})
    return list(pairwise(edges))


#: the empty state of each plugin class, built once (never read, never written)
_EMPTY_STATES: dict[Any, tuple[Any, ...]] = {}


def states_for(
    plugins: Sequence[Any], snapshot: ClusterSnapshot, batch: PodBatch
) -> tuple[Any, ...]:
    """Every slot's state: ``prepare`` for the profile's ``plugins``, else empty."""
    by_slot = {SLOTS[p.name]: p for p in plugins}
    return tuple(
        by_slot[s].prepare(snapshot, batch) if s in by_slot else _empty(cls)
        for s, cls in enumerate(CLASSES)
    )


def _empty(cls: Any) -> tuple[Any, ...]:
    state = _EMPTY_STATES.get(cls)
    if state is None:
        state = _EMPTY_STATES[cls] = cls().empty_state()
    return state


def plugin_keys(filters: Sequence[Any], states: tuple[Any, ...], n_pods: int) -> np.ndarray:
    """int64[B, F]: each pod's ``filter_key`` per filter plugin of the profile."""
    if not filters:
        return np.zeros((n_pods, 0), dtype=np.int64)
    keys = [np.asarray(f.filter_key(states[SLOTS[f.name]]), dtype=np.int64) for f in filters]
    return np.stack(keys, axis=1)


def filter_keys(filters: Sequence[Any], states: tuple[Any, ...], n_pods: int) -> np.ndarray:
    """int64[B]: pods with equal class get equal verdicts on every node (the profile's
    filter plugins' ``filter_key``s combined)."""
    if not filters:
        return np.zeros(n_pods, dtype=np.int64)
    _, cls = unique_rows(plugin_keys(filters, states, n_pods))
    return cls.reshape(-1).astype(np.int64)
