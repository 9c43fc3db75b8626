"""The search for feasible nodes of one scheduling cycle, as Go runs it.

Mirrors pkg/scheduler/generic_scheduler.go ``findNodesThatFitPod`` (the nominated node
first, ``evaluateNominatedNode``), ``findNodesThatPassFilters`` and the ``Schedule``
counts, with ``parallelism: 1``:

* nodes are examined from ``nextStartNodeIndex`` on, wrapping; each runs the profile's
  filter plugins in order and stops at the first that fails (``RunFilterPlugins``);
* passing nodes are collected until ``numFeasibleNodesToFind`` of them are found; the
  next passing node cancels the search (it is examined but not kept), and the failures
  seen before it still count;
* ``processedNodes`` = feasible + failed (the ``Diagnosis`` map, which may already hold
  a failed nominated node) moves ``nextStartNodeIndex``;
* a nominated node that passes is the only feasible node (the one-node search leaves
  ``nextStartNodeIndex`` at 0; so does a failing one, before the full search).

Go's parallel search (``parallelism`` > 1) examines nodes in a racy order, so which nodes
are found, and the counts, vary from run to run; kscore_fast gives the deterministic
reading of ``parallelism: 1``, whatever the configuration says.

Verdicts are 0 (every filter passes) or ``(k + 1) << 48 | code`` (plugin ``k`` of the
profile's filter list failed first, with its code). A code with :data:`ERROR_FLAG` set is
the plugin's ``Error`` status (``RunFilterPlugins`` returns it at once): the node that
gives it stops the search and the cycle fails with that error (``SendErrorWithCancel``;
``processedNodes`` counts the nodes before it), except on the nominated node, whose error
``findNodesThatFitPod`` logs and ignores (the full search follows). The filter plugins
are rows ``fids`` of the profile's plugin table (:mod:`.abi`): each runs on a block of
nodes at a time, through its ``FILTER`` entry point (:func:`filter_rows` with its
``filter_node``).
"""

from __future__ import annotations

import numpy as np

from .._jit import higher_order_kernel, inline_kernel, unrefcounted_kernel
from .abi import FILTER, STATE, call_filter

#: a filter verdict packs the failing plugin's position in the profile above this shift
SLOT_SHIFT = 48
CODE_MASK = (1 << SLOT_SHIFT) - 1
#: a filter code with this bit: the plugin's ``Error`` status (not ``Unschedulable``)
ERROR_FLAG = 1 << 46
#: nodes whose verdicts are computed together (a block of a pod class's verdict row)
BLOCK = 256


@inline_kernel
def search_pod(fids, table, reps, cls, nominated, start, num_to_find, n_nodes, memo, done, block,
               feasible, rej_node, rej_code, rej_pos, override):  # fmt: skip  # pragma: no cover
    """One cycle's search. Writes the feasible nodes to ``feasible`` (in the order Go
    finds them) and, when ``rej_node`` has room, every failed node and its verdict in
    examination order (from ``rej_pos`` on).

    Verdicts of pod class ``cls`` are read from ``memo[cls]``, filled a block of
    ``block`` nodes at a time (:func:`fill_block`; the callers' ``BLOCK``) when
    ``done[cls, b]`` is false.

    ``override`` (int64[N], or empty: none): a node's verdict when it is not 0, whatever
    the class's: ``RunFilterPluginsWithNominatedPods``' failure with the node's nominated
    pods added, which Go reports before the verdict without them
    (:mod:`kscore_fast.preemption.simulate`).

    Returns ``(n_feasible, n_failed, next_start, rej_end)``; ``n_failed`` is
    ``len(diagnosis.NodeToStatusMap)``, or ``-1 - node`` when ``node``'s verdict was an
    ``Error`` (:data:`ERROR_FLAG`; then ``n_feasible`` is 0: the cycle failed with it).
    """
    keep = rej_node.shape[0] > 0
    overridden = override.shape[0] > 0
    start = start % n_nodes  # (Go: nodes[(nextStartNodeIndex+i)%len(nodes)], this cycle's)
    n_failed = 0
    nominated_failed = False
    if nominated >= 0:  # evaluateNominatedNode: a one-node findNodesThatPassFilters
        if not done[cls, nominated // block]:
            fill_block(fids, table, reps, cls, nominated // block, block, memo, done)
        v = memo[cls, nominated]
        if overridden and override[nominated] != 0:
            v = override[nominated]
        if v == 0:
            feasible[0] = nominated
            return 1, 0, 0, rej_pos
        start = 0
        if (v & ERROR_FLAG) == 0:  # (an Error: logged, not in the diagnosis)
            nominated_failed = True
            n_failed = 1
        if keep and nominated_failed:
            rej_node[rej_pos] = nominated
            rej_code[rej_pos] = v
            rej_pos += 1
    found = 0
    row = memo[cls]
    left = n_nodes  # nodes not examined yet, from ``lo`` on (wrapping)
    lo = start
    while left > 0:  # a run of nodes within one block at a time
        b = lo // block
        if not done[cls, b]:
            fill_block(fids, table, reps, cls, b, block, memo, done)
        hi = min((b + 1) * block, n_nodes, lo + left)
        left -= hi - lo
        for node in range(lo, hi):
            v = row[node]
            if overridden and override[node] != 0:
                v = override[node]
            if v == 0:
                if found == num_to_find:  # the (K+1)-th passing node cancels the search
                    left = -1
                    break
                feasible[found] = node
                found += 1
            elif (v & ERROR_FLAG) != 0:  # SendErrorWithCancel: the cycle fails
                return 0, -1 - node, (start + found + n_failed) % n_nodes, rej_pos
            elif not (nominated_failed and node == nominated):  # already in the map
                n_failed += 1
                if keep:
                    rej_node[rej_pos] = node
                    rej_code[rej_pos] = v
                    rej_pos += 1
        lo = 0 if hi == n_nodes else hi
    return found, n_failed, (start + found + n_failed) % n_nodes, rej_pos


@inline_kernel
def windows_pod(nominated, start, num_to_find, n_nodes, feasible):  # pragma: no cover
    """The ``!fwk.HasFilterPlugins()`` branch: the ``num_to_find`` nodes from ``start``
    (or the nominated node alone). Returns ``(n_feasible, next_start)``."""
    if nominated >= 0:
        feasible[0] = nominated
        return 1, 0
    start = start % n_nodes  # (as search_pod)
    fill_window(start, n_nodes, feasible[:num_to_find])
    return num_to_find, (start + num_to_find) % n_nodes


@inline_kernel
def fill_window(first, n_nodes, out):  # pragma: no cover - compiled
    """``out`` = the nodes from ``first`` on, wrapping after node ``n_nodes - 1``."""
    for j in range(out.shape[0]):
        node = first + j
        out[j] = node if node < n_nodes else node - n_nodes


@unrefcounted_kernel
def search_chunk(fids, table, pods, reps, classes, nominated, start, num_to_find, n_nodes, memo,
                 done, block, explain, ptr, feasible, failed, rej_ptr, rej_node, rej_code,
                 windows):  # fmt: skip  # pragma: no cover - compiled
    """Consecutive cycles for the chunk's pods (``nextStartNodeIndex`` carries over).

    ``fids`` empty: no filter plugins. Per pod ``i``: its feasible nodes
    ``feasible[ptr[i]:ptr[i+1]]``, ``failed[i]`` (failed nodes), and with ``explain`` its
    failed nodes and verdicts ``rej_node/rej_code[rej_ptr[i]:rej_ptr[i+1]]``. Returns the
    next start.

    ``windows`` (int64[C], or empty): without filters, a pod's list of two nodes or more
    is left unwritten, its first node kept as ``windows[i]`` (-1: written), for the
    scoring threads to write where they read it (:func:`fill_window`).
    """
    no_room = rej_node[:0]
    no_override = rej_code[:0]
    deferring = windows.shape[0] > 0 and num_to_find >= 2 and fids.shape[0] == 0
    for i in range(pods.shape[0]):
        lo = ptr[i]
        out = feasible[lo : lo + max(num_to_find, 1)]
        if windows.shape[0] > 0:
            windows[i] = -1
        if fids.shape[0] == 0:
            if deferring and nominated[i] < 0:  # (the list left to the caller)
                windows[i] = start % n_nodes
                n, start = num_to_find, (windows[i] + num_to_find) % n_nodes
            else:
                n, start = windows_pod(nominated[i], start, num_to_find, n_nodes, out)
            failed[i] = 0
            rej_ptr[i + 1] = rej_ptr[i]
        else:
            rn = rej_node if explain else no_room
            n, nf, start, end = search_pod(fids, table, reps, classes[i], nominated[i], start,
                                           num_to_find, n_nodes, memo, done, block, out, rn,
                                           rej_code, rej_ptr[i], no_override)  # fmt: skip
            failed[i] = nf
            rej_ptr[i + 1] = end
        ptr[i + 1] = lo + n
    return start


@inline_kernel
def clear_rows(c, lo, hi, nodes, memo):  # pragma: no cover - compiled
    """Verdicts 0 (nothing failed yet) for class ``c`` on nodes ``lo:hi``, or with
    ``nodes`` non-empty on ``nodes[lo:hi]`` (see :func:`filter_rows`)."""
    if nodes.shape[0] == 0:
        memo[c, lo:hi] = 0
    else:
        for j in range(lo, hi):
            memo[c, nodes[j]] = 0


@higher_order_kernel
def filter_rows(filter_fn, state, k, rep, c, lo, hi, nodes, memo):  # pragma: no cover - compiled
    """Filter plugin ``k`` of the profile (``filter_fn`` over its ``state``) on nodes
    ``lo:hi`` (or, ``nodes`` non-empty, ``nodes[lo:hi]``) for pod class ``c``
    (representative pod ``rep``), where no earlier plugin failed (``memo`` 0):
    ``RunFilterPlugins`` plugin by plugin instead of node by node, with the same first
    failure per node."""
    listed = nodes.shape[0] > 0
    for j in range(lo, hi):
        node = nodes[j] if listed else j
        if memo[c, node] == 0:
            v = np.int64(filter_fn(state, rep, node))
            if v != 0:
                memo[c, node] = ((k + 1) << SLOT_SHIFT) | v


@inline_kernel
def fill_verdicts(fids, table, rep, c, lo, hi, nodes, memo):  # pragma: no cover - compiled
    """``RunFilterPlugins`` for class ``c`` (representative pod ``rep``) on nodes ``lo:hi``,
    or with ``nodes`` non-empty on ``nodes[lo:hi]``: every profile filter in turn where no
    earlier one failed."""
    clear_rows(c, lo, hi, nodes, memo)
    for k in range(fids.shape[0]):
        p = fids[k]
        call_filter(table[p, FILTER], table[p, STATE], k, rep, c, lo, hi, nodes, memo)


@unrefcounted_kernel
def fill_block(fids, table, reps, c, b, block, memo, done):  # pragma: no cover - compiled
    """The verdicts of pod class ``c`` on the nodes of block ``b`` (``block`` nodes)."""
    lo = b * block
    hi = min(lo + block, memo.shape[1])
    fill_verdicts(fids, table, reps[c], c, lo, hi, memo[c, :0], memo)
    done[c, b] = True


@unrefcounted_kernel
def fill_nodes(fids, table, reps, c, nodes, memo):  # pragma: no cover - compiled
    """The verdicts of pod class ``c`` on the listed nodes (a node may come more than
    once) whatever their block: verdicts made afresh after those nodes changed."""
    fill_verdicts(fids, table, reps[c], c, 0, nodes.shape[0], nodes, memo)


def unpack(verdict: int) -> tuple[int, int]:
    """``(slot, code)`` of a failing verdict: the plugin's position in the profile's
    filter list and its failure code."""
    return (verdict >> SLOT_SHIFT) - 1, verdict & CODE_MASK


def error_node(failed: int) -> int | None:
    """The node whose ``Error`` failed the cycle, from the search's ``n_failed``
    (:func:`search_pod`), or None."""
    return -1 - failed if failed < 0 else None
