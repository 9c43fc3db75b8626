"""Compiled dry runs of DefaultPreemption: ``DryRunPreemption``'s walk over the candidate
nodes, each node's ``SelectVictimsOnNode``, in one kernel call per preemptor, on the
plugins' state of a sequential run (:mod:`.dryrun`). The scalar specification is
:mod:`.reference` (``select_victims_on_node``, ``pdb_violations``, ``preempt``'s walk);
the victims' sort is :mod:`kscore_fast.framework.gosort` step for step, with
``MoreImportantPod``'s reading of missing start times (a clock of readings, see
``reference._Clock``), and without recursion (an explicit stack runs the smaller part
first, as Go's recursive call does).

Per batch pod: ``prio`` (int64), ``start`` (int64; ``NO_START``: none, read as "now"),
``pdb_ptr``/``pdb_idx``: the budgets that count the pod (its namespace, a non-empty
selector matching it, not among their disrupted pods). Per node: its first
``node_count[node]`` pods of row ``node_table[node]``: ``NodeInfo.Pods`` in order
(:class:`.nodepods.NodePods`); ``nom_ptr``/``nom_pods``: the pods nominated
there that ``RunFilterPluginsWithNominatedPods`` adds for this preemptor.
"""

from __future__ import annotations

import numpy as np

from .._jit import inline_kernel, kernel, unrefcounted_kernel
from ..framework.abi import FILTER, STATE, call_filter
from ..framework.sequential import _change

#: a pod without ``status.startTime``
NO_START = np.iinfo(np.int64).max
#: ``status`` of a node without lower-priority pods (``No victims found on node ...``)
NO_VICTIMS = -1
#: the ``status`` of a node that gave a candidate
CANDIDATE = -2
#: the ``status`` of a node where the pod fits with every pod back (Go's internal error
#: ``expected at least one victim pod on node``)
NO_VICTIM_NEEDED = -3


@inline_kernel
def _time(pod, start, clock):  # pragma: no cover - compiled
    """``GetPodStartTime`` as (kind, value): a given time, or the next reading of now."""
    if start[pod] != NO_START:
        return 0, start[pod]
    clock[0] += 1
    return 1, clock[0]


@inline_kernel
def _less(a, b, prio, start, clock):  # pragma: no cover - compiled
    """``util.MoreImportantPod(a, b)`` (a's start read first, as Go does)."""
    if prio[a] != prio[b]:
        return prio[a] > prio[b]
    ka, va = _time(a, start, clock)
    kb, vb = _time(b, start, clock)
    return ka < kb or (ka == kb and va < vb)


@inline_kernel
def _lt(x, i, j, prio, start, clock):  # pragma: no cover - compiled
    return _less(x[i], x[j], prio, start, clock)


@inline_kernel
def _swap(x, i, j):  # pragma: no cover - compiled
    t = x[i]
    x[i] = x[j]
    x[j] = t


@inline_kernel
def _insertion(x, a, b, prio, start, clock):  # pragma: no cover - compiled
    for i in range(a + 1, b):
        j = i
        while j > a and _lt(x, j, j - 1, prio, start, clock):
            _swap(x, j, j - 1)
            j -= 1


@inline_kernel
def _sift_down(x, lo, hi, first, prio, start, clock):  # pragma: no cover - compiled
    root = lo
    while True:
        child = 2 * root + 1
        if child >= hi:
            return
        if child + 1 < hi and _lt(x, first + child, first + child + 1, prio, start, clock):
            child += 1
        if not _lt(x, first + root, first + child, prio, start, clock):
            return
        _swap(x, first + root, first + child)
        root = child


@inline_kernel
def _heap_sort(x, a, b, prio, start, clock):  # pragma: no cover - compiled
    first = a
    hi = b - a
    for i in range((hi - 1) // 2, -1, -1):
        _sift_down(x, i, hi, first, prio, start, clock)
    for i in range(hi - 1, -1, -1):
        _swap(x, first, first + i)
        _sift_down(x, 0, i, first, prio, start, clock)


@inline_kernel
def _median(x, a, b, c, swaps, prio, start, clock):  # pragma: no cover - compiled
    if _lt(x, b, a, prio, start, clock):
        swaps[0] += 1
        a, b = b, a
    if _lt(x, c, b, prio, start, clock):
        swaps[0] += 1
        b, c = c, b
    if _lt(x, b, a, prio, start, clock):
        swaps[0] += 1
        a, b = b, a
    return b


@inline_kernel
def _choose_pivot(x, a, b, swaps, prio, start, clock):  # pragma: no cover - compiled
    """(pivot, hint: 0 increasing, 1 decreasing, 2 unknown)."""
    n = b - a
    swaps[0] = 0
    i = a + n // 4 * 1
    j = a + n // 4 * 2
    k = a + n // 4 * 3
    if n >= 8:
        if n >= 50:
            i = _median(x, i - 1, i, i + 1, swaps, prio, start, clock)
            j = _median(x, j - 1, j, j + 1, swaps, prio, start, clock)
            k = _median(x, k - 1, k, k + 1, swaps, prio, start, clock)
        j = _median(x, i, j, k, swaps, prio, start, clock)
    if swaps[0] == 0:
        return j, 0
    if swaps[0] == 12:
        return j, 1
    return j, 2


@inline_kernel
def _partial_insertion(x, a, b, prio, start, clock):  # pragma: no cover - compiled
    i = a + 1
    for _ in range(5):
        while i < b and not _lt(x, i, i - 1, prio, start, clock):
            i += 1
        if i == b:
            return True
        if b - a < 50:
            return False
        _swap(x, i, i - 1)
        if i - a >= 2:
            for j in range(i - 1, 0, -1):
                if not _lt(x, j, j - 1, prio, start, clock):
                    break
                _swap(x, j, j - 1)
        if b - i >= 2:
            for j in range(i + 1, b):
                if not _lt(x, j, j - 1, prio, start, clock):
                    break
                _swap(x, j, j - 1)
    return False


@inline_kernel
def _break_patterns(x, a, b):  # pragma: no cover - compiled
    length = b - a
    if length >= 8:
        random = np.uint64(length)
        bits = 0
        while (1 << bits) <= length:
            bits += 1
        modulus = np.uint64(1) << np.uint64(bits)
        for idx in range(a + (length // 4) * 2 - 1, a + (length // 4) * 2 + 2):
            random ^= random << np.uint64(13)
            random ^= random >> np.uint64(7)
            random ^= random << np.uint64(17)
            other = np.int64(random & (modulus - np.uint64(1)))
            if other >= length:
                other -= length
            _swap(x, idx, a + other)


@inline_kernel
def _partition(x, a, b, pivot, prio, start, clock):  # pragma: no cover - compiled
    _swap(x, a, pivot)
    i, j = a + 1, b - 1
    while i <= j and _lt(x, i, a, prio, start, clock):
        i += 1
    while i <= j and not _lt(x, j, a, prio, start, clock):
        j -= 1
    if i > j:
        _swap(x, j, a)
        return j, True
    _swap(x, i, j)
    i += 1
    j -= 1
    while True:
        while i <= j and _lt(x, i, a, prio, start, clock):
            i += 1
        while i <= j and not _lt(x, j, a, prio, start, clock):
            j -= 1
        if i > j:
            break
        _swap(x, i, j)
        i += 1
        j -= 1
    _swap(x, j, a)
    return j, False


@inline_kernel
def _partition_equal(x, a, b, pivot, prio, start, clock):  # pragma: no cover - compiled
    _swap(x, a, pivot)
    i, j = a + 1, b - 1
    while True:
        while i <= j and not _lt(x, a, i, prio, start, clock):
            i += 1
        while i <= j and _lt(x, a, j, prio, start, clock):
            j -= 1
        if i > j:
            return i
        _swap(x, i, j)
        i += 1
        j -= 1


#: rows of :func:`go_sort`'s stack: enough for any int64 length
SORT_STACK = 2 * 64 + 8


@inline_kernel
def go_sort(x, prio, start, clock, stack, swaps):  # pragma: no cover - compiled
    """``sort.Slice`` of ``x`` (batch positions) by ``MoreImportantPod``: Go's
    ``pdqsort_func`` with its recursion on the smaller part kept on a stack of
    continuations (each frame: a, b, limit, wasBalanced, wasPartitioned; ``stack``:
    int64[SORT_STACK, 5], ``swaps``: int64[1], scratch)."""
    n = x.shape[0]
    bits = 0
    while (1 << bits) <= n:
        bits += 1
    top = 0
    stack[0, 0], stack[0, 1], stack[0, 2], stack[0, 3], stack[0, 4] = 0, n, bits, 1, 1
    top = 1
    while top > 0:
        top -= 1
        a, b, limit = stack[top, 0], stack[top, 1], stack[top, 2]
        balanced, partitioned = stack[top, 3] == 1, stack[top, 4] == 1
        while True:  # one call of pdqsort_func, from where it resumes
            length = b - a
            if length <= 12:
                _insertion(x, a, b, prio, start, clock)
                break
            if limit == 0:
                _heap_sort(x, a, b, prio, start, clock)
                break
            if not balanced:
                _break_patterns(x, a, b)
                limit -= 1
            pivot, hint = _choose_pivot(x, a, b, swaps, prio, start, clock)
            if hint == 1:
                i, j = a, b - 1
                while i < j:
                    _swap(x, i, j)
                    i += 1
                    j -= 1
                pivot = (b - 1) - (pivot - a)
                hint = 0
            likely_sorted = balanced and partitioned and hint == 0
            if likely_sorted and _partial_insertion(x, a, b, prio, start, clock):
                break
            if a > 0 and not _lt(x, a - 1, pivot, prio, start, clock):
                a = _partition_equal(x, a, b, pivot, prio, start, clock)
                continue
            mid, partitioned = _partition(x, a, b, pivot, prio, start, clock)
            left, right = mid - a, b - mid
            threshold = length // 8
            if left < right:
                balanced = left >= threshold
                # the continuation (a = mid + 1), then the recursive call on a:mid
                stack[top, 0], stack[top, 1], stack[top, 2] = mid + 1, b, limit
                stack[top, 3], stack[top, 4] = balanced, partitioned
                top += 1
                b = mid
            else:
                balanced = right >= threshold
                stack[top, 0], stack[top, 1], stack[top, 2] = a, mid, limit
                stack[top, 3], stack[top, 4] = balanced, partitioned
                top += 1
                a = mid + 1
            balanced = partitioned = True  # (the recursive call starts afresh)


@inline_kernel
def _first(a, b):  # pragma: no cover - compiled
    """The verdict of the earlier failing slot of two (0: passes)."""
    if a == 0:
        return b
    if b == 0:
        return a
    return min(a, b)


@inline_kernel
def _fill_slots(fids, slots, table, pod, one, memo):  # pragma: no cover - compiled
    """``RunFilterPlugins`` of ``pod`` on node ``one[0]`` with the filter plugins of rows
    ``fids`` only, each at its slot ``slots[j]`` of the profile's filters."""
    memo[0, one[0]] = 0
    for j in range(fids.shape[0]):
        p = fids[j]
        call_filter(table[p, FILTER], table[p, STATE], slots[j], pod, np.int64(0), 0, 1, one,
                    memo)  # fmt: skip


@inline_kernel
def _check(fids, slots, table, aids, cache, pod, node, one, nom_ptr, nom_pods, memo, fixed
           ):  # fmt: skip  # pragma: no cover - compiled
    """``RunFilterPluginsWithNominatedPods`` of ``pod`` on ``node`` in the state as it is:
    with the node's nominated pods added first (a failure there is the verdict), then
    without them. ``fids``/``slots``: the filters whose verdict may change as pods come
    and go; ``fixed``: the others' verdict on the node (the earlier failing slot wins)."""
    one[0] = node
    lo, hi = nom_ptr[node], nom_ptr[node + 1]
    if hi > lo:
        for e in range(lo, hi):
            _change(aids, table, cache, nom_pods[e], node, np.bool_(True))
        _fill_slots(fids, slots, table, pod, one, memo)
        for e in range(lo, hi):
            _change(aids, table, cache, nom_pods[e], node, np.bool_(False))
        v = _first(fixed, memo[0, node])
        if v != 0:
            return v
    _fill_slots(fids, slots, table, pod, one, memo)
    return _first(fixed, memo[0, node])


@kernel
def fixed_verdicts(fids, slots, table, pod, nodes, out):  # pragma: no cover - compiled
    """``out[node]`` for each of ``nodes``: the verdict of ``pod`` with the filter plugins
    of rows ``fids`` only (at their ``slots``), those whose verdict does not change as
    pods come and go (decided once per node)."""
    memo = np.zeros((1, out.shape[0]), dtype=np.int64)
    for j in range(fids.shape[0]):
        p = fids[j]
        call_filter(table[p, FILTER], table[p, STATE], slots[j], pod, np.int64(0), 0,
                    nodes.shape[0], nodes, memo)  # fmt: skip
    for k in range(nodes.shape[0]):
        out[nodes[k]] = memo[0, nodes[k]]


#: columns of a dry-run memo row (:func:`dry_run`'s ``known``): whether the row holds the
#: node's outcome, its status, PDB violations and victim count; the victims follow
KNOWN, K_STATUS, K_VIOLATIONS, K_COUNT, K_VICTIMS = 0, 1, 2, 3, 4
#: a dry-run memo's ``known_ctl``: whether it was used, and the cycle cache's epoch and
#: log length when its rows were last made current
KC_USED, KC_EPOCH, KC_LOG = 0, 1, 2


@inline_kernel
def _select_victims(fids, slots, fixed, table, aids, cache, pod, node, node_table, node_count,
                    prio, start, pdb_ptr, pdb_idx, pdb_allowed, nom_ptr, nom_pods, memo, out,
                    scratch, late, allowed, one, clock, stack, swaps
                    ):  # fmt: skip  # pragma: no cover - compiled
    """``SelectVictimsOnNode`` of ``pod`` on ``node``: its victims written in ``out`` (Go's
    order); returns (status, victims, PDB violations), status ``CANDIDATE``,
    ``NO_VICTIMS``, ``NO_VICTIM_NEEDED`` or the failing verdict with every lower-priority
    pod removed. The node's pods are all bound again after."""
    p = prio[pod]
    cnt = 0
    for e in range(node_count[node]):
        q = node_table[node, e]
        if prio[q] < p:
            scratch[cnt] = q
            cnt += 1
    if cnt == 0:
        return NO_VICTIMS, 0, 0
    for e in range(cnt):
        _change(aids, table, cache, scratch[e], node, np.bool_(False))
    v = _check(fids, slots, table, aids, cache, pod, node, one, nom_ptr, nom_pods, memo, fixed)
    if v != 0:
        for e in range(cnt):
            _change(aids, table, cache, scratch[e], node, np.bool_(True))
        return v, 0, 0
    sorted_pods = scratch[:cnt]
    go_sort(sorted_pods, prio, start, clock, stack, swaps)
    for b in range(allowed.shape[0]):
        allowed[b] = pdb_allowed[b]
    n_first = n_late = 0
    for e in range(cnt):  # filterPodsWithPDBViolation: violating first, in order
        q = sorted_pods[e]
        violated = False
        for r in range(pdb_ptr[q], pdb_ptr[q + 1]):
            allowed[pdb_idx[r]] -= 1
            if allowed[pdb_idx[r]] < 0:
                violated = True
        if violated:
            sorted_pods[n_first] = q
            n_first += 1
        else:
            late[n_late] = q
            n_late += 1
    for e in range(n_late):
        sorted_pods[n_first + e] = late[e]
    w = violations = 0
    for e in range(cnt):  # reprievePod: back on the node while the pod still fits
        q = sorted_pods[e]
        _change(aids, table, cache, q, node, np.bool_(True))
        if _check(fids, slots, table, aids, cache, pod, node, one, nom_ptr, nom_pods, memo,
                  fixed) != 0:  # fmt: skip
            _change(aids, table, cache, q, node, np.bool_(False))
            out[w] = q
            w += 1
            if e < n_first:
                violations += 1
    for e in range(w):  # (the victims bound again: the state as before)
        _change(aids, table, cache, out[e], node, np.bool_(True))
    if w == 0:
        return NO_VICTIM_NEEDED, 0, 0
    return CANDIDATE, w, violations


@inline_kernel
def _known_current(cache, known, known_ctl):  # pragma: no cover - compiled
    """Forget the memo rows of the nodes changed since they were made (the cycle cache's
    log; a new epoch, or a log shorter than when they were made, forgets every row)."""
    ctl, log = cache[3], cache[4]
    a, b = known_ctl[KC_LOG], ctl[0]
    if known_ctl[KC_USED] == 0 or known_ctl[KC_EPOCH] != ctl[1] or b < a:
        for node in range(known.shape[0]):
            known[node, KNOWN] = 0
    else:
        for j in range(a, b):
            known[log[j], KNOWN] = 0
    known_ctl[KC_USED] = 1


@unrefcounted_kernel
def dry_run(fids, slots, fixed, table, aids, cache, pod, potential, offset, wanted, node_table,
            node_count, prio, start, pdb_ptr, pdb_idx, pdb_allowed, nom_ptr, nom_pods, memo, order,
            status, vptr, victims, violations, scratch, late, allowed, small, stack, known,
            known_ctl):  # fmt: skip  # pragma: no cover - compiled
    """``DryRunPreemption`` of ``pod`` with one worker: the ``potential`` nodes from
    ``offset`` on, each ``SelectVictimsOnNode`` in turn (:func:`_select_victims`), until
    ``wanted`` candidates with at least one free of PDB violations. Per node walked
    (``order[k]``): ``status[k]`` (``CANDIDATE``, ``NO_VICTIMS``, or the failing verdict
    with every lower-priority pod removed), its victims ``victims[vptr[k]:vptr[k+1]]`` in
    Go's order and ``violations[k]``. Returns how many nodes were walked. Every pod is
    bound again after (the plugins' state is as before, and so is the cycle cache's log:
    those changes were all undone).

    Each check runs the filter plugins of rows ``fids`` (at their ``slots``) and takes
    ``fixed[node]``, the verdict of the others, as it is: given every filter plugin
    (``fixed`` 0) it is Go's walk as written; given only those whose verdict for the pod
    may change as pods come and go, with ``aids`` the plugins whose state they read, it
    is the same walk with less work (the others' verdicts decided once per node).

    ``known`` (int64[N, K_VICTIMS + width of ``node_table``]) and ``known_ctl``
    (int64[3]): each node's outcome from earlier walks (``KNOWN`` … columns), which the
    caller keeps only for pods with the same outcome on the same state (twins of one
    priority, the same filters, budgets and nodes' pods). A node's outcome depends on its
    own pods and plugin aggregates only (a change that may move other nodes' verdicts is
    a new epoch of the cycle cache), so it is taken as known while the node is unchanged
    and no pod is nominated there (``known_ctl`` 0: none known); the start times' clock
    (``reference._Clock``) orders readings within a node only, so a known node's sort
    reads none.

    Scratch, allocated by the caller (the kernel allocates nothing, so it runs without
    numba's reference counting): ``scratch`` and ``late`` as long as a row of
    ``node_table``,
    ``allowed`` as ``pdb_allowed``, ``small`` int64[3], ``stack`` int64[SORT_STACK, 5]."""
    n = potential.shape[0]
    one = small[0:1]
    clock = small[1:2]
    clock[0] = 0
    swaps = small[2:3]
    ctl = cache[3]
    epoch, logged = ctl[1], ctl[0]
    _known_current(cache, known, known_ctl)
    clean = dirty = 0
    vptr[0] = 0
    walked = 0
    at = offset % n if n > 0 else 0  # (the walk's position: offset + i, modulo n)
    for _ in range(n):
        node = potential[at]
        at += 1
        if at == n:
            at = 0
        order[walked] = node
        w = vptr[walked]
        alone = nom_ptr[node + 1] == nom_ptr[node]  # (no nominated pod counted there)
        if alone and known[node, KNOWN] == 1:
            s, cnt, bad = known[node, K_STATUS], known[node, K_COUNT], known[node, K_VIOLATIONS]
            for e in range(cnt):
                victims[w + e] = known[node, K_VICTIMS + e]
        else:
            s, cnt, bad = _select_victims(
                fids, slots, fixed[node], table, aids, cache, pod, node, node_table, node_count,
                prio, start, pdb_ptr, pdb_idx, pdb_allowed, nom_ptr, nom_pods, memo,
                victims[w:], scratch, late, allowed, one, clock, stack, swaps,
            )  # fmt: skip
            if alone:
                known[node, KNOWN], known[node, K_STATUS] = 1, s
                known[node, K_COUNT], known[node, K_VIOLATIONS] = cnt, bad
                for e in range(cnt):
                    known[node, K_VICTIMS + e] = victims[w + e]
        status[walked], violations[walked], vptr[walked + 1] = s, bad, w + cnt
        walked += 1
        if s == CANDIDATE:
            if bad == 0:
                clean = min(clean + 1, wanted)
            else:
                dirty = min(dirty + 1, wanted)
            if clean > 0 and clean + dirty >= wanted:
                break
    if ctl[1] == epoch:  # (no wide change: the log's first entries are as they were)
        ctl[0] = logged
    known_ctl[KC_EPOCH], known_ctl[KC_LOG] = ctl[1], ctl[0]
    return walked


#: ``pickOneNodeForPreemption``'s sum of priorities adds this per victim
_SHIFT = np.int64(2**31)


#: rows of :func:`_criteria`'s keys: the four criteria, then ``GetEarliestPodStartTime``'s
#: reading (1: "now", no victim of the highest priority has a start time; else 0) and
#: the earliest start time
_CRITERIA, _NOW, _EARLIEST = 4, 4, 5


@inline_kernel
def _criteria(cands, n, vptr, victims, violations, prio, start, keys
              ):  # fmt: skip  # pragma: no cover - compiled
    """``keys[step, e]``: candidate ``cands[e]``'s key at ``pickOneNodeForPreemption``'s
    criterion ``step`` (each lowest wins): PDB violations, the first victim's priority, the
    sum of the victims' priorities (each shifted by MaxInt32 + 1), the number of victims;
    and ``GetEarliestPodStartTime`` of its victims (rows ``_NOW``, ``_EARLIEST``): the
    earliest given start among the victims of the highest priority, or "now" (later than
    any given, see ``reference._Clock``) if none has one. One pass over the victims."""
    for e in range(n):
        k = cands[e]
        lo, hi = vptr[k], vptr[k + 1]
        total = np.int64(0)
        top = prio[victims[lo]]
        now, earliest = True, np.int64(0)
        for f in range(lo, hi):
            q = victims[f]
            p = prio[q]
            total += p + _SHIFT
            if p > top:  # (a higher priority: its victims' times alone count)
                top, now, earliest = p, True, np.int64(0)
            if p == top and start[q] != NO_START and (now or start[q] < earliest):
                now, earliest = False, start[q]
        keys[0, e], keys[1, e] = violations[k], prio[victims[lo]]
        keys[2, e], keys[3, e] = total, hi - lo
        keys[_NOW, e], keys[_EARLIEST, e] = now, earliest


@kernel
def pick(status, vptr, victims, violations, walked, wanted, prio, start, cands, tie
         ):  # fmt: skip  # pragma: no cover - compiled
    """``SelectCandidate`` on :func:`dry_run`'s walk: the candidates in ``cands`` (walk
    positions: those free of PDB violations first, then the others, each in walk order
    and capped at ``wanted``, as Go's ``candidateList``), and ``tie[e]``: whether some
    walk of Go's map returns candidate ``e`` (:func:`.reference.pick_ties`). Returns how
    many candidates."""
    n = 0
    for k in range(walked):
        if status[k] == CANDIDATE and violations[k] == 0 and n < wanted:
            cands[n] = k
            n += 1
    clean = n
    for k in range(walked):
        if status[k] == CANDIDATE and violations[k] != 0 and n - clean < wanted:
            cands[n] = k
            n += 1
    for e in range(n):
        tie[e] = True
    if n <= 1:
        return n
    keys = np.empty((_EARLIEST + 1, n), dtype=np.int64)
    _criteria(cands, n, vptr, victims, violations, prio, start, keys)
    for step in range(_CRITERIA):
        low = np.iinfo(np.int64).max
        for e in range(n):
            if tie[e]:
                low = min(low, keys[step, e])
        left = 0
        for e in range(n):
            if tie[e]:
                if keys[step, e] != low:
                    tie[e] = False
                else:
                    left += 1
        if left == 1:
            return n
    # GetEarliestPodStartTime of each (rows _NOW, _EARLIEST): "now" wins, else the latest
    any_now = False
    latest = np.iinfo(np.int64).min
    for e in range(n):
        if tie[e]:
            any_now = any_now or keys[_NOW, e] == 1
            latest = max(latest, keys[_EARLIEST, e])
    for e in range(n):
        if tie[e]:
            tie[e] = keys[_NOW, e] == 1 if any_now else keys[_EARLIEST, e] == latest
    return n


@kernel
def with_nominated(fids, slots, fixed, table, add_ids, aids, cache, pod, nodes, ptr, pods, memo,
                   out):  # fmt: skip  # pragma: no cover - compiled
    """``RunFilterPluginsWithNominatedPods``' first pass for ``pod`` on each of ``nodes``:
    the node's nominated pods ``pods[ptr[k]:ptr[k+1]]`` added in order (the ``assume`` of
    the plugins of ``add_ids``: no Reserve), the filters of rows ``fids`` run (at their
    ``slots``; ``fixed[node]``: the others' verdict, see :func:`_check`), the pods removed
    again in the same order (``remove`` of ``aids``); the verdict in ``out[node]``."""
    one = np.zeros(1, dtype=np.int64)
    for k in range(nodes.shape[0]):
        node = nodes[k]
        for e in range(ptr[k], ptr[k + 1]):
            _change(add_ids, table, cache, pods[e], node, np.bool_(True))
        one[0] = node
        _fill_slots(fids, slots, table, pod, one, memo)
        for e in range(ptr[k], ptr[k + 1]):
            _change(aids, table, cache, pods[e], node, np.bool_(False))
        out[node] = _first(fixed[node], memo[0, node])


@kernel
def split_by_code(verdicts, known, unresolvable, potential, unhelpful
                  ):  # fmt: skip  # pragma: no cover - compiled
    """``nodesWherePreemptionMightHelp`` on the nodes' ``verdicts`` (0: passes): the nodes
    whose status is not ``UnschedulableAndUnresolvable`` into ``potential``, the others
    into ``unhelpful``, each in node order. ``known``: the verdicts whose status is known
    (ascending), ``unresolvable[k]``: whether ``known[k]``'s is. Returns how many nodes
    are potential, or ``-1 - node`` for the first node whose verdict is not known (the
    caller adds it and calls again)."""
    n = m = 0
    last, k = np.int64(0), np.int64(-1)  # (neighbours often fail alike)
    for node in range(verdicts.shape[0]):
        if k < 0 or verdicts[node] != last:
            last = verdicts[node]
            k = np.searchsorted(known, last)
            if k == known.shape[0] or known[k] != last:
                return -1 - node
        if unresolvable[k]:
            unhelpful[m] = node
            m += 1
        else:
            potential[n] = node
            n += 1
    return n


@kernel
def evict(aids, table, cache, bound, node_table, node_count, pods
          ):  # fmt: skip  # pragma: no cover - compiled
    """``prepareCandidate``'s deletions: each of ``pods`` in turn deleted from the node it
    is ``bound`` to (then unbound): ``RemovePod`` of the plugins of rows ``aids`` and of
    ``NodeInfo`` (the node's last pod takes its place, :meth:`.nodepods.NodePods.remove`)."""
    for i in range(pods.shape[0]):
        pod = pods[i]
        node = np.int64(bound[pod])
        _change(aids, table, cache, pod, node, np.bool_(False))
        bound[pod] = -1
        last = node_count[node] - 1
        at = 0
        while at <= last and node_table[node, at] != pod:
            at += 1
        if at > last:
            raise ValueError("a victim is not among its node's pods")
        node_table[node, at] = node_table[node, last]
        node_count[node] = last
