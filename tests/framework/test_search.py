"""The compiled node search (kscore_fast/framework/search.py) == the scalar reference port
of Go's (kscore_fast/framework/reference.py), and FitError texts.

``search.search_chunk`` runs with a plugin table of test filter plugins that read a
verdict table (``TableFilter``, one per slot the verdicts name), on seeded random cases:
node counts 1..400, ``numFeasibleNodesToFind`` from random percentages (and any K),
verdict tables from all-pass to all-fail, nominated nodes that pass, fail or are absent,
consecutive pods carrying ``nextStartNodeIndex`` across chunks, memo blocks of several
sizes, kept for the run, per chunk or prefilled, and the explain mode's rejections.
Then upstream tables of generic_scheduler_test.go (v1.23.6),
and the runtime's FitError text against the reference, alone and through
``Framework.run`` with real filter plugins.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace

import msgspec
import numba
import numpy as np
import pytest

from kscore_fast.framework import abi, reference, runtime, search
from kscore_fast.framework.entries import PluginTable
from kscore_fast.framework.interface import Plugin
from kscore_fast.framework.nodeorder import num_feasible_nodes_to_find
from kscore_fast.framework.runtime import Framework, fit_error_text
from kscore_fast.model.objects import ContainerRecord, NodeRecord, PodRecord
from kscore_fast.model.quantity import parse_quantity
from kscore_fast.model.snapshot import Cluster, build_cluster
from kscore_fast.plugins.noderesources import NodeResourcesFit
from kscore_fast.plugins.nodeunschedulable import NodeUnschedulable
from kscore_fast.plugins.nodeunschedulable import reference as nodeunschedulable_ref
from kscore_fast.plugins.tainttoleration import TaintToleration
from kscore_fast.plugins.tainttoleration import reference as tainttoleration_ref

from ..plugins.tainttoleration.support import random_nodes, random_pods, upstream

#: an unfilled memo entry: read before its block is filled, it shows as a failure
GARBAGE = -(1 << 40)


@numba.njit
def _table_verdict(state, pod, node):  # pragma: no cover - compiled
    """A filter plugin's ``filter_node`` that reads class ``pod``'s verdict code from a
    table (``state``: the codes and a count of calls per class and node)."""
    codes, calls = state
    calls[pod, node] += 1
    return codes[pod, node]


class TableFilter(Plugin):
    """The search's test filter: fails where the verdict table says (Go's tables run fake
    filters the same way)."""

    name = "TableFilter"
    filters = True
    kernels = SimpleNamespace(filter_node=_table_verdict)

    def prepare(self, snapshot, batch):  # pragma: no cover - built by hand below
        raise AssertionError

    def reasons(self, state, code):
        return [ERR_REASON_FAKE]


def _plugin_table(case: Case, calls: np.ndarray) -> PluginTable:
    """The profile's filters: one per slot the table's verdicts name (0, 1, ...), each
    failing where a verdict names its slot, with that verdict's code."""
    slots = np.where(case.table != 0, case.table >> search.SLOT_SHIFT, 0)
    codes = case.table & search.CODE_MASK
    n_slots = max(int(slots.max(initial=0)), 1)
    states = [(np.where(slots == k + 1, codes, 0), calls[k]) for k in range(n_slots)]
    return PluginTable([TableFilter()] * n_slots, states, [abi.FILTER])


@dataclass
class Case:
    """Consecutive cycles: pod ``i`` of filter class ``classes[i]`` gets verdict
    ``table[classes[i], node]`` (0: passes) and has nominated node ``nominated[i]``."""

    table: np.ndarray
    classes: list[int]
    nominated: list[int]
    start: int
    num_to_find: int
    has_filters: bool = True

    @property
    def n_nodes(self) -> int:
        return self.table.shape[1]


@dataclass
class Got:
    """One pod's compiled search: feasible nodes, ``failed`` (the diagnosis' size) and,
    with explain, the rejected nodes and verdicts."""

    feasible: list[int]
    failed: int
    rejected: list[tuple[int, int]]


def reference_run(case: Case) -> list[reference.SearchResult]:
    """The reference's cycles, one after the other (``nextStartNodeIndex`` carried)."""
    out, start = [], case.start
    for c, nominated in zip(case.classes, case.nominated, strict=True):
        verdict = case.table[c].tolist().__getitem__
        out.append(
            reference.schedule(
                verdict, nominated, start, case.num_to_find, case.n_nodes, case.has_filters
            )
        )
        start = out[-1].next_start
    return out


def compiled_run(
    case: Case, *, explain: bool, block: int, chunks: list[int], memo_mode: str
) -> tuple[list[Got], list[int]]:
    """The compiled cycles (the real search and plugin table, :class:`TableFilter`),
    ``chunks[j]`` pods per ``search_chunk`` call; the verdicts
    kept for the whole run (``memo_mode`` "run"), fresh per chunk ("chunk") or filled
    before the run ("prefill"). Returns every pod's search and the start after each
    chunk."""
    n_classes, n_blocks = case.table.shape[0], -(-case.n_nodes // block)
    memo = np.full(case.table.shape, GARBAGE, dtype=np.int64)
    done = np.zeros((n_classes, n_blocks), dtype=np.bool_)
    if memo_mode == "prefill":
        memo[:], done[:] = case.table, True
    got: list[Got] = []
    starts, start, lo = [], case.start, 0
    for size in chunks:
        if memo_mode == "chunk":
            memo[:], done[:] = GARBAGE, False
        start = _run_chunk(case, range(lo, lo + size), start, memo, done, block, explain, got)
        starts.append(start)
        lo += size
    return got, starts


def _run_chunk(case, pods, start, memo, done, block, explain, got) -> int:
    """One ``search_chunk`` call for ``pods``; appends their searches to ``got``."""
    c, n, k = len(pods), case.n_nodes, case.num_to_find
    calls = np.zeros((max(int((case.table >> search.SLOT_SHIFT).max(initial=0)), 1),
                      *case.table.shape), dtype=np.int64)  # fmt: skip
    plugins = _plugin_table(case, calls)
    fids = np.arange(len(plugins) if case.has_filters else 0, dtype=np.int64)
    ptr, rej_ptr = np.zeros(c + 1, np.int64), np.zeros(c + 1, np.int64)
    feasible, failed = np.empty(c * max(k, 1), np.int32), np.zeros(c, np.int64)
    room = c * n if explain and case.has_filters else 0
    rej_node, rej_code = np.empty(room, np.int32), np.empty(room, np.int64)
    prefilled = np.repeat(done, block, axis=1)[:, :n].copy()
    # every other call leaves the lists it may (no filters) to the scoring: written below
    windows = np.full(c if len(got) % 2 else 0, -2, np.int64)
    start = search.search_chunk(
        fids, plugins.table, np.asarray(pods, np.int64),
        np.arange(case.table.shape[0], dtype=np.int64),
        np.asarray(case.classes, np.int64)[pods], np.asarray(case.nominated, np.int32)[pods],
        start, k, n, memo, done, block, explain, ptr, feasible, failed, rej_ptr, rej_node,
        rej_code, windows,
    )  # fmt: skip
    assert (windows >= -1).all()  # (each pod's: its first node, or -1: written)
    assert not case.has_filters or not (windows >= 0).any()
    for i in np.flatnonzero(windows >= 0).tolist():
        assert ptr[i + 1] - ptr[i] == k and k >= 2 and case.nominated[pods[i]] < 0
        feasible[ptr[i] : ptr[i + 1]] = (windows[i] + np.arange(k)) % n
    # each plugin filters a class on a node at most once, never on a prefilled block
    assert calls.max(initial=0) <= 1 and not calls[:, prefilled].any()
    for i in range(c):
        rej = range(rej_ptr[i], rej_ptr[i + 1])
        got.append(
            Got(
                feasible[ptr[i] : ptr[i + 1]].tolist(),
                int(failed[i]),
                [(int(rej_node[j]), int(rej_code[j])) for j in rej],
            )
        )
    return int(start)


def counts(got: Got) -> tuple[int, int]:
    """``(EvaluatedNodes, FeasibleNodes)`` as the runtime settles them (0, 0 on a
    FitError)."""
    n = len(got.feasible)
    return (n + got.failed, n) if n else (0, 0)


def check_case(case: Case, *, explain: bool, block: int, chunks: list[int], memo_mode: str):
    """Compiled == reference, pod by pod; returns the reference's searches."""
    want = reference_run(case)
    got, starts = compiled_run(
        case, explain=explain, block=block, chunks=chunks, memo_mode=memo_mode
    )
    assert len(got) == len(want)
    for i, (g, w) in enumerate(zip(got, want, strict=True)):
        if w.error is not None:  # (an Error status failed the cycle: no diagnosis read)
            assert (g.feasible, search.error_node(g.failed)) == ([], w.error), i
            continue
        assert search.error_node(g.failed) is None, i
        assert g.feasible == w.feasible, i
        assert g.failed == len(w.diagnosis), i
        assert counts(g) == (w.evaluated_nodes, w.feasible_nodes), i
        assert g.rejected == (list(w.diagnosis.items()) if explain else []), i
    ends = np.cumsum(chunks) - 1
    assert starts == [want[e].next_start for e in ends]
    return want


# -- seeded random cases --------------------------------------------------------------------

#: chance that a node passes, by kind of verdict row
PASS_RATES = {"all pass": 1.0, "all fail": 0.0, "sparse": 0.03, "half": 0.5, "dense": 0.95}


def random_row(rng: np.random.Generator, n: int, k: int) -> np.ndarray:
    """A class's verdicts: 0 or ``(slot + 1) << 48 | code`` as the driver packs them."""
    fails = ((rng.integers(0, 4, n) + 1) << search.SLOT_SHIFT) | rng.integers(1, 6, n)
    kind = rng.choice([*PASS_RATES, "k", "k+1", "few"])
    if kind in PASS_RATES:
        passing = rng.random(n) < PASS_RATES[kind]
    else:  # exactly K, K+1 or a few passing nodes, anywhere
        m = {"k": k, "k+1": k + 1, "few": int(rng.integers(1, 4))}[kind]
        passing = np.zeros(n, np.bool_)
        passing[rng.permutation(n)[: min(m, n)]] = True
    row = np.where(passing, 0, fails).astype(np.int64)
    if rng.random() < 0.2:  # a few nodes whose filter returns an Error status
        at = rng.permutation(n)[: int(rng.integers(1, 3))]
        row[at] = fails[at] | search.ERROR_FLAG
    return row


def random_nominated(rng: np.random.Generator, row: np.ndarray) -> int:
    """None (-1), a passing node, a failing node or any node."""
    kind = rng.choice(["none", "passing", "failing", "any"], p=[0.4, 0.2, 0.2, 0.2])
    pool = {"passing": np.flatnonzero(row == 0), "failing": np.flatnonzero(row != 0)}.get(
        kind, np.arange(len(row))
    )
    return -1 if kind == "none" or not len(pool) else int(rng.choice(pool))


def random_case(rng: np.random.Generator) -> Case:
    n = int(rng.choice([rng.integers(1, 12), rng.integers(12, 100), rng.integers(100, 401)]))
    pct = int(rng.choice([0, 100, rng.integers(1, 100)]))
    k = num_feasible_nodes_to_find(n, pct)
    if rng.random() < 0.3:  # any K: the search does not rely on Go's bounds of it
        k = int(rng.integers(1, n + 1))
    table = np.stack([random_row(rng, n, k) for _ in range(int(rng.integers(1, 4)))])
    classes = rng.integers(0, len(table), int(rng.integers(1, 12))).tolist()
    nominated = [random_nominated(rng, table[c]) for c in classes]
    has_filters = bool(rng.random() < 0.9)
    return Case(table, classes, nominated, int(rng.integers(0, n)), k, has_filters)


def random_chunks(rng: np.random.Generator, n_pods: int) -> list[int]:
    cuts = np.sort(rng.choice(np.arange(1, n_pods), int(rng.integers(0, n_pods)), False))
    return np.diff([0, *cuts.tolist(), n_pods]).tolist()


@pytest.mark.parametrize("seed", range(600))
def test_search_equals_reference(seed):
    rng = np.random.default_rng(seed)
    case = random_case(rng)
    for explain in (False, True):
        check_case(
            case,
            explain=explain,
            block=int(rng.choice([1, 3, 16, 64, search.BLOCK])),
            chunks=random_chunks(rng, len(case.classes)),
            memo_mode=str(rng.choice(["run", "chunk", "prefill"])),
        )


# -- generic_scheduler_test.go (v1.23.6) -----------------------------------------------------
# TestFindFitPredicateCallCounts' second case ("nominated pods have higher priority,
# predicate is called twice") runs the filters again with another pod nominated to the
# node (RunFilterPluginsWithNominatedPods): not a verdict table, not ported.
# TestNumFeasibleNodesToFind is in test_nodeorder.py.


def fake_failure(slot: int) -> int:
    """The verdict of a fake filter (st.ErrReasonFake) at ``slot`` of the profile."""
    return ((slot + 1) << search.SLOT_SHIFT) | 1


def go_table(case: Case) -> tuple[list[reference.SearchResult], list[int]]:
    """The case through the compiled search (every memo mode and block size, with and
    without explain, one chunk) == the reference; the reference's searches and its
    filter calls per cycle (``NumFilterCalled``)."""
    for memo_mode in ("run", "chunk", "prefill"):
        for block in (1, search.BLOCK):
            for explain in (False, True):
                check_case(case, explain=explain, block=block, chunks=[len(case.classes)],
                           memo_mode=memo_mode)  # fmt: skip
    g = reference.GenericScheduler(case.n_nodes, case.num_to_find, case.has_filters, case.start)
    calls, out = [], []
    for c, nominated in zip(case.classes, case.nominated, strict=True):
        row, called = case.table[c].tolist(), [0]

        def verdict(node: int, row=row, called=called) -> int:
            called[0] += 1
            return row[node]

        out.append(g.schedule(verdict, nominated))
        calls.append(called[0])
    return out, calls


def test_find_fit_all_error():
    """TestFindFitAllError: nodes "3", "2", "1"; TrueFilter, MatchFilter; pod "" fits none."""
    table = np.full((1, 3), fake_failure(1), dtype=np.int64)
    (got,), _ = go_table(Case(table, [0], [-1], 0, num_feasible_nodes_to_find(3, 0)))
    assert got.feasible == []
    assert got.diagnosis == {0: fake_failure(1), 1: fake_failure(1), 2: fake_failure(1)}
    assert {search.unpack(v)[0] for v in got.diagnosis.values()} == {1}  # MatchFilter


def test_find_fit_some_error():
    """TestFindFitSomeError: as above, pod "1" fits node "1" only (index 2)."""
    table = np.array([[fake_failure(1), fake_failure(1), 0]], dtype=np.int64)
    (got,), _ = go_table(Case(table, [0], [-1], 0, 3))
    assert got.feasible == [2]
    assert got.diagnosis == {0: fake_failure(1), 1: fake_failure(1)}


def test_find_fit_predicate_call_counts():
    """TestFindFitPredicateCallCounts "nominated pods have lower priority, predicate is
    called once": one node, FakeFilter passes."""
    _, calls = go_table(Case(np.zeros((1, 1), np.int64), [0], [-1], 0, 1))
    assert calls == [1]


def test_fair_evaluation_for_nodes():
    """TestFairEvaluationForNodes: 500 nodes, TrueFilter, 30% → 150 nodes a cycle, more
    than twice round the nodes."""
    n = 500
    k = num_feasible_nodes_to_find(n, 30)
    cycles = 2 * (n // k + 1)
    got, _ = go_table(Case(np.zeros((1, n), np.int64), [0] * cycles, [-1] * cycles, 0, k))
    for i, r in enumerate(got):
        assert len(r.feasible) == k
        assert r.next_start == (i + 1) * k % n


#: st.ErrReasonFake, the reason of FalseFilter, MatchFilter and noPodsFilter
ERR_REASON_FAKE = "Nodes failed the fake plugin"


@upstream(
    "fails,want_feasible,want_error",
    [
        # FalseFilter; machine1, machine2
        ("test 1", [0, 0], [], "0/2 nodes are available: 2 Nodes failed the fake plugin."),
        # TrueFilter
        ("test 2", [-1, -1], [0, 1], None),
        # MatchFilter, pod "machine2"
        ("test 3", [0, -1], [1], None),
        # TrueFilter (and score plugins); "3", "2", "1"
        ("test 4", [-1, -1, -1], [0, 1, 2], None),
        # MatchFilter, pod "2"
        ("test 5", [0, -1, 0], [1], None),
        ("test 6", [-1, -1, -1], [0, 1, 2], None),
        # TrueFilter, FalseFilter
        ("test 7", [1, 1, 1], [], "0/3 nodes are available: 3 Nodes failed the fake plugin."),
        # NoPodsFilter, MatchFilter; "1", "2" (holding a pod); pod "2"
        ("test 8", [1, 0], [], "0/2 nodes are available: 2 Nodes failed the fake plugin."),
    ],
)  # fmt: skip
def test_generic_scheduler(fails, want_feasible, want_error):
    """TestGenericScheduler, the cases decided by the filters: ``fails[node]`` is the
    position of the filter that fails (-1: none); the hosts of cases 4 to 6 are chosen
    by scoring (tests of the runtime)."""
    n = len(fails)
    table = np.array([[fake_failure(f) if f >= 0 else 0 for f in fails]], dtype=np.int64)
    (got,), _ = go_table(Case(table, [0], [-1], 0, num_feasible_nodes_to_find(n, 0)))
    assert got.feasible == want_feasible
    assert {node: search.unpack(v)[0] for node, v in got.diagnosis.items()} == {
        node: f for node, f in enumerate(fails) if f >= 0
    }
    if want_error is not None:
        reasons = {node: [ERR_REASON_FAKE] for node in got.diagnosis}
        assert reference.fit_error(n, reasons) == want_error
        assert fit_error_text(n, {ERR_REASON_FAKE: len(got.diagnosis)}) == want_error


@upstream(
    "nominated,row,expected_count",
    [
        ("Enable the feature, pod has the nominated node set, filter is called only once",
         0, [0, 0, 0], 1),
        # the feature off: Go ignores the nominated node, as if the pod had none
        ("Disable the feature, pod has the nominated node, filter is called for each node",
         -1, [0, 0, 0], 3),
        ("pod without the nominated pod, filter is called for each node", -1, [0, 0, 0], 3),
        ("nominated pod cannot pass the filter, filter is called for each node",
         0, [1, 0, 0], 4),
    ],
)  # fmt: skip
def test_prefer_nominated_node_filter_call_counts(nominated, row, expected_count):
    """TestPreferNominatedNodeFilterCallCounts: nodes node1..node3, FakeFilter failing
    where the table says (``FailedNodeReturnCodeMap``), default percentage."""
    table = np.array([[fake_failure(0) if x else 0 for x in row]], dtype=np.int64)
    _, calls = go_table(Case(table, [0], [nominated], 0, num_feasible_nodes_to_find(3, 0)))
    assert calls == [expected_count]


# -- FitError.Error() --------------------------------------------------------------------------

REASONS = ("Insufficient cpu", "Insufficient memory", "node(s) were unschedulable",
           "node(s) had taint {a: b}, that the pod didn't tolerate", "ü", "Z", "a", "")  # fmt: skip


@pytest.mark.parametrize("seed", range(200))
def test_fit_error_text_equals_reference(seed):
    """Random reasons per node (repeated within a node too; counts ≥ 10 sort before 9
    as strings): the runtime's text == the reference's."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 300))
    reasons = {
        node: [REASONS[int(j)] for j in rng.integers(0, len(REASONS), int(rng.integers(0, 4)))]
        for node in rng.permutation(n)[: int(rng.integers(0, n + 1))].tolist()
    }
    histogram: dict[str, int] = {}
    for node_reasons in reasons.values():
        for r in node_reasons:
            histogram[r] = histogram.get(r, 0) + 1
    assert fit_error_text(n, histogram) == reference.fit_error(n, reasons)


def test_scheduler_failed_scheduling_reasons():
    """scheduler_test.go TestSchedulerFailedSchedulingReasons: 100 nodes too small for
    the pod's cpu and memory, through ``Framework.run`` with NodeResourcesFit."""
    small = {"cpu": parse_quantity("2"), "memory": parse_quantity("100"),
             "pods": parse_quantity("10")}  # fmt: skip
    nodes = [NodeRecord(f"machine{i}", allocatable=small) for i in range(100)]
    big = {"cpu": parse_quantity("4"), "memory": parse_quantity("500")}
    pending = PodRecord("", "bar", containers=(ContainerRecord(requests=big),))
    c = build_cluster(nodes, [pending])
    r = Framework([], filter_plugins=[NodeResourcesFit()]).run(c.snapshot, c.batch)
    want = "0/100 nodes are available: 100 Insufficient cpu, 100 Insufficient memory."
    assert r.errors == [want]
    assert reference.fit_error(100, dict.fromkeys(range(100), REASONS[:2])) == want


# -- the runtime with real filter plugins == the reference --------------------------------------

FILTERS = {"NodeUnschedulable": (NodeUnschedulable, nodeunschedulable_ref.filter),
           "TaintToleration": (TaintToleration, tainttoleration_ref.filter)}  # fmt: skip


def random_run(rng: np.random.Generator) -> tuple[Cluster, Framework, list[str], dict]:
    """Tainted and unschedulable nodes, pods with tolerations and nominated nodes (known
    or not), both filters in either order, a random percentage and chunk size."""
    n = int(rng.choice([rng.integers(1, 20), rng.integers(100, 260)]))
    nodes = random_nodes(rng, n)
    names = [x.name for x in nodes] + ["absent"]
    pods = [
        msgspec.structs.replace(p, nominated_node_name=str(rng.choice(names)))
        if rng.random() < 0.3 else p
        for p in random_pods(rng, int(rng.integers(1, 25)))
    ]  # fmt: skip
    order = list(FILTERS) if rng.random() < 0.5 else list(FILTERS)[::-1]
    pct = int(rng.choice([0, 100, rng.integers(1, 100)]))
    fw = Framework([], pct, filter_plugins=[FILTERS[f][0]() for f in order])
    opts = {"explain": True, "chunk_size": int(rng.choice([1, 3, 1000]))}
    return build_cluster(nodes, pods), fw, order, opts


def reference_pods(c: Cluster, fw: Framework, order: list[str]):
    """The reference's search of every pod in turn, and the failures by verdict
    (``1 + i`` for failure ``i``: the filter's position and reason)."""
    nodes, index = c.snapshot.nodes, {name: i for i, name in enumerate(c.snapshot.node_names)}
    k = num_feasible_nodes_to_find(len(nodes), fw.percentage_of_nodes_to_score)
    g, failures, out = reference.GenericScheduler(len(nodes), k), [], []
    for pod in c.batch.pods:

        def verdict(node: int, pod=pod) -> int:
            for slot, name in enumerate(order):
                reason = FILTERS[name][1](pod, nodes[node])
                if reason is not None:
                    failures.append((slot, reason))
                    return len(failures)
            return 0

        nominated = index.get(pod.nominated_node_name, -1)
        out.append(g.schedule(verdict, nominated))
    return out, failures


@pytest.mark.parametrize("seed", range(60))
def test_runtime_equals_reference(seed, monkeypatch):
    """``Framework.run`` (the driver's search, settle, FitError, rejections) == the
    reference with the plugins' reference filters, verdicts kept per run or per chunk."""
    rng = np.random.default_rng(seed)
    if rng.random() < 0.3:
        monkeypatch.setattr(runtime, "MEMO_ENTRIES", 0)
    c, fw, order, opts = random_run(rng)
    r = fw.run(c.snapshot, c.batch, **opts)
    want, failures = reference_pods(c, fw, order)
    names = c.snapshot.node_names
    for i, w in enumerate(want):
        assert (r.evaluated[i], r.feasible[i]) == (w.evaluated_nodes, w.feasible_nodes), i
        kept = r.nodes[r.ptr[i] : r.ptr[i + 1]].tolist()
        assert kept == (w.feasible if len(w.feasible) > 1 else []), i
        assert r.hosts[i] in w.feasible or (r.hosts[i] == -1 and not w.feasible), i
        rejected = [failures[v - 1] for v in w.diagnosis.values()]
        assert r.rejected_of(i) == [
            {"node": names[node], "plugin": order[slot], "reason": reason}
            for node, (slot, reason) in zip(w.diagnosis, rejected, strict=True)
        ], i
        reasons = {node: [reason] for node, (_, reason) in zip(w.diagnosis, rejected, strict=True)}
        assert r.errors[i] == (None if w.feasible else reference.fit_error(len(names), reasons))
