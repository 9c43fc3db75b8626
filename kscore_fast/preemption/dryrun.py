"""Preemption on the plugins' compiled state: the reference port's
:class:`~.reference.Cluster` view over a sequential run whose batch holds every bound pod
of the snapshot (bound again with the plugins' ``assume`` kernels) and every pending pod.

A dry-run check removes the victims from their node with the plugins' ``remove`` kernels,
runs the profile's filter entry points for the preemptor on that node, and the pods go
back with ``assume``: what Go's ``SelectVictimsOnNode`` does to its copies of the node and
of the cycle state (``RemovePod``/``AddPod`` of the PreFilter extensions), at a few
microseconds a check. Between dry runs every pod is bound as the run has it.

Nominated pods count as ``RunFilterPluginsWithNominatedPods`` counts them: on a node
where pods of the preemptor's priority or higher are nominated (the preemptor aside), the
filters run first with those pods added (assumed, then removed again) and a failure there
is the node's status; else the verdict without them is.
"""

from __future__ import annotations

import copy
import dataclasses
import operator
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

import msgspec
import numpy as np

from .._native import PackedCall
from ..framework import gorand
from ..framework.runtime import Framework
from ..framework.search import ERROR_FLAG, fill_nodes, unpack
from ..framework.simulation import _Sequence
from ..model.disruption import BudgetRecord
from ..model.objects import NamespaceRecord, PodRecord
from ..model.selectors import label_selector_as_selector
from ..model.snapshot import Cluster, build_cluster
from ..model.times import start_ns
from . import fused, kernels
from .nodepods import NodePods
from .nominated import by_node, nominated_verdicts
from .reference import (
    ERROR,
    NO_CANDIDATE,
    NOT_ELIGIBLE,
    SUCCESS,
    UNSCHEDULABLE,
    UNSCHEDULABLE_AND_UNRESOLVABLE,
    Status,
    Victims,
    counting_budgets,
    no_candidate_outcome,
    priority,
)


def _all_pending(cluster: Cluster, listed: bool) -> Cluster:
    """``cluster`` with its bound pods pending again, before its pending pods (the dry
    runs bind them again): kept on the batch, so that the plugins' preparations of it are
    made once for the runs of the same cluster."""
    snap = cluster.snapshot
    if listed:  # (the snapshot's node order kept, as a Simulator's may differ from the tree's)
        nodes = list(snap.nodes)
    else:
        order = np.argsort(snap.node_input_order, kind="stable").tolist()
        nodes = [snap.nodes[i] for i in order]
    unbound = [msgspec.structs.replace(p, node_name="", deleting=False) for p in snap.pods]
    controllers = [c for kind in snap.controllers.values() for c in kind]
    namespaces = [NamespaceRecord(n, labels) for n, labels in snap.namespace_labels.items()]
    built = build_cluster(nodes, [*unbound, *cluster.batch.pods], snap.services, controllers,
                          namespaces, listed=listed, storage=snap.storage)  # fmt: skip
    assert len(built.batch) == len(unbound) + len(cluster.batch)
    return built


@dataclasses.dataclass(frozen=True)
class _Pods:
    """What the dry runs read of their pods (batch positions: the snapshot's bound pods,
    then the pending ones), made once per cluster (kept on its batch): the records, each
    one's position by identity, priority and start time (``kernels.NO_START``: none); the
    bound pods' nodes (``at``) and ``NodeInfo.Pods`` of each node as they are loaded."""

    records: list[PodRecord]
    position: dict[int, int]
    priority: np.ndarray
    start: np.ndarray
    at: np.ndarray
    on_node: NodePods
    #: budgets → the pods' budget lists (:meth:`DryRuns._budget_lists`), the last made
    budgets: list[tuple[Any, ...]] = dataclasses.field(default_factory=list)

    @classmethod
    def of_records(cls, records: list[PodRecord], at: np.ndarray | None = None,
                   on_node: NodePods | None = None) -> _Pods:  # fmt: skip
        starts = (start_ns(p.start_time) for p in records)
        return cls(records, {id(p): i for i, p in enumerate(records)},
                   np.array([priority(p) for p in records], dtype=np.int64),
                   np.array([kernels.NO_START if s is None else s for s in starts],
                            dtype=np.int64),
                   np.zeros(0, np.int64) if at is None else at,
                   NodePods(1) if on_node is None else on_node)  # fmt: skip

    @classmethod
    def of(cls, cluster: Cluster) -> _Pods:
        """The pods of ``cluster``: its bound pods, then its batch."""
        snap = cluster.snapshot
        bound = list(snap.pods)
        at = np.array([snap.node_index[p.node_name] for p in bound], dtype=np.int64)
        lists: dict[int, list[int]] = {}
        for i, node in enumerate(at.tolist()):
            lists.setdefault(node, []).append(i)
        return cls.of_records([*bound, *cluster.batch.pods], at,
                              NodePods.of(snap.n_nodes, lists))  # fmt: skip


class Walk(NamedTuple):
    """A preemptor's :meth:`DryRuns.preempt_walk`: how many nodes are potential, the
    others, the nodes walked with their status, victims and violations
    (:func:`.kernels.dry_run`), ``out`` (:mod:`.fused`'s fields), the candidates (walk
    positions) and the nodes of their tie set (:func:`.kernels.pick`)."""

    potential: int
    unhelpful: np.ndarray
    order: np.ndarray
    status: np.ndarray
    vptr: np.ndarray
    victims: np.ndarray
    violations: np.ndarray
    out: list[int]
    cands: np.ndarray
    ties: list[int]


class DryRuns:
    """One sequential state of a cluster for preemption: its bound pods and its pending
    pods in one batch (bound pods first, in input order, then the pending ones)."""

    def __init__(self, fw: Framework, cluster: Cluster, num_to_find: int | None = None,
                 explain: bool = False, listed: bool = False) -> None:  # fmt: skip
        snap = cluster.snapshot
        key = f"preemption.dry_runs.{'listed' if listed else 'tree'}"
        built = cluster.batch.prepared(key, snap, lambda: _all_pending(cluster, listed))
        fixed = cluster.batch.prepared(f"{key}.pods", snap, lambda: _Pods.of(cluster))
        # (the run sets its pods' nominations: a batch of its own, its preparations shared)
        batch = dataclasses.replace(built.batch, nominated=built.batch.nominated.copy())
        seq = _Sequence(fw, built.snapshot, batch, num_to_find or max(snap.n_nodes, 1),
                        explain)  # fmt: skip
        if len(fixed.at):
            seq.kernels.assume_pods(seq.add_ids, seq.table, seq.cache,
                                    np.arange(len(fixed.at), dtype=np.int64), fixed.at)  # fmt: skip
            seq.bound[: len(fixed.at)] = fixed.at
        self._setup(fw, seq, list(snap.node_names), fixed.records, len(fixed.at), fixed)
        self._on_node, self.tracking = fixed.on_node.copy(), True

    @classmethod
    def over(cls, fw: Framework, seq: _Sequence, names: Sequence[str],
             records: list[PodRecord]) -> DryRuns:  # fmt: skip
        """The dry runs on a sequential run that already holds every bound pod as a batch
        pod (a preempting :class:`~kscore_fast.Simulator`'s): ``records`` by batch
        position. The caller sets the nodes' pods (:meth:`set_pods`, while not
        :attr:`tracking`) and :attr:`nominated` before each use."""
        runs = cls.__new__(cls)
        runs._setup(fw, seq, list(names), records, 0)
        return runs

    def _setup(self, fw: Framework, seq: _Sequence, names: list[str],
               records: list[PodRecord], offset: int, pods: _Pods | None = None
               ) -> None:  # fmt: skip
        self.names = names
        self._index_of: dict[str, int] = {}
        n = max(len(names), 1)
        self.fw = fw
        self.seq = seq
        #: the pods as the input gives them, by batch position of :attr:`seq`; the first
        #: :attr:`offset` are the snapshot's bound pods
        self.records = records
        self.offset = offset
        pods = pods or _Pods.of_records(records)
        self._position, self._priority, self._start = pods.position, pods.priority, pods.start
        self._pods = pods
        #: ``NodeInfo.Pods`` of each node: batch positions, in Go's order; whether they
        #: are known (else :meth:`set_pods` first)
        self._on_node = NodePods(len(names))
        self.tracking = False
        #: the nominated pods (batch position → node)
        self.nominated: dict[int, int] = {}
        self._memo = np.zeros((1, n), dtype=np.int64)
        self._reps = np.zeros(1, dtype=np.int64)
        self._all = np.arange(len(names), dtype=np.int64)
        self._one = np.zeros(1, dtype=np.int64)
        #: verdict → status (reasons read only what a plugin keeps for the whole run)
        self._statuses: dict[int, Status] = {0: Status(SUCCESS)}
        #: the verdicts whose status is made (ascending), and whether it is
        #: UnschedulableAndUnresolvable (:meth:`split_by_code`)
        self._known_verdicts = np.zeros(0, dtype=np.int64)
        self._unresolvable = np.zeros(0, dtype=np.bool_)
        #: the pods removed for the node whose dry run is under way, and that node
        self._out: set[int] = set()
        self._node = -1
        self.pod = -1
        #: the dry runs decide the filters whose verdict for the pod does not change as
        #: pods come and go once per node (:meth:`_filters`); off: every filter each time
        self.narrow = True
        self._ignores: list[np.ndarray] | None = None
        self._ignores_of: list[Any] | None = None  # (the states they were read from)
        self._splits: dict[tuple[bool, ...], tuple[np.ndarray, ...]] = {}
        #: per twin group: its filters' split and the fixed verdicts (:meth:`_filters`)
        self._fixed: dict[int, tuple[np.ndarray, ...]] = {}
        self._slots = np.arange(len(seq.fids), dtype=np.int64)
        self._no_fixed = np.zeros(max(len(names), 1), dtype=np.int64)
        self._small = np.zeros(3, dtype=np.int64)
        self._no_lists = (np.zeros(len(names) + 1, dtype=np.int64), np.zeros(0, dtype=np.int64))
        self._no_grouped = (np.zeros(0, dtype=np.int64), np.zeros(1, dtype=np.int64),
                            np.zeros(0, dtype=np.int64))  # fmt: skip
        self._stack = np.zeros((kernels.SORT_STACK, 5), dtype=np.int64)
        self._go_rng = np.zeros(gorand.STATE_LEN, dtype=np.int64)  # (a draw not from Go's)
        #: :meth:`preempt_walk`'s buffers and packed call (:meth:`_walk_call`)
        self._walk_bufs: tuple[np.ndarray, ...] | None = None
        self._walk_scratch: tuple[np.ndarray, ...] | None = None
        self._walk_packed: PackedCall | None = None
        #: the walks keep each node's outcome while nothing changes it (:meth:`_known_for`);
        #: off: each walk finds every outcome afresh
        self.memo = True
        self._known: tuple[tuple[Any, ...], np.ndarray, np.ndarray] | None = None

    def rebased(self, seq: _Sequence) -> DryRuns:
        """These dry runs over ``seq`` (a copy of :attr:`seq`), with buffers of their own,
        the nodes' pods not known yet."""
        other = copy.copy(self)
        other.seq, other.nominated = seq, {}
        other._on_node, other.tracking = NodePods(len(self.names)), False  # (see set_pods)
        other._memo, other._reps = self._memo.copy(), self._reps.copy()
        other._one, other._out = self._one.copy(), set()
        other._small, other._stack = self._small.copy(), self._stack.copy()
        other._statuses = dict(self._statuses)
        other._ignores, other._splits, other._fixed = None, {}, {}
        other._known = None
        other._walk_bufs = other._walk_scratch = other._walk_packed = None
        return other

    def set_pods(self, on_node: Mapping[str, Sequence[str]], nodes: Mapping[str, int],
                 positions: Mapping[str, int]) -> None:  # fmt: skip
        """``NodeInfo.Pods`` of each node as a cache keeps it (``on_node``: node name →
        pod keys, in order), for the nodes of ``nodes`` (name → index) and the pods of
        ``positions`` (key → batch position); then :meth:`bound_to` and :meth:`leave`
        follow it."""
        lists: dict[int, list[int]] = {}
        for name, keys in on_node.items():
            node = nodes.get(name)
            if node is not None and keys:
                lists[node] = [positions[k] for k in keys]
        self._on_node, self.tracking = NodePods.of(len(self.names), lists), True

    def view(self, pod: int) -> DryRuns:
        """The view for batch position ``pod`` of :attr:`seq`, every pod bound again."""
        self.restore()
        self.pod = pod
        return self

    # -- the run's changes ----------------------------------------------------------------

    def bound_to(self, pod: int, node: int) -> None:
        """``pod`` was bound to ``node`` (``AddPod``: last on the node; it leaves the
        nominator)."""
        self._on_node.append(node, pod)
        self.nominated.pop(pod, None)

    def nominate(self, pod: int, chosen: int, reason: str) -> None:
        """``prepareCandidate`` and ``recordSchedulingFailure`` once PostFilter deleted the
        victims of ``pod`` nominated to ``chosen`` (-1: none, for ``reason``): the
        lower-priority nominations on the node cleared, the preemptor nominated; without
        a candidate the preemptor's nomination is cleared (``NominatedNodeName("")``),
        unless it was not eligible (no result: the nomination stays)."""
        if chosen < 0:
            if reason != NOT_ELIGIBLE:
                self.nominated.pop(pod, None)
            return
        if self.nominated:
            mine = priority(self.records[pod])
            for other, node in list(self.nominated.items()):
                if node == chosen and priority(self.records[other]) < mine:
                    del self.nominated[other]
        self.nominated[pod] = chosen

    def evict(self, pod: int) -> None:
        """Delete bound ``pod``: ``RemovePod`` of the plugins and of ``NodeInfo``."""
        self.evict_all((pod,))

    def evict_all(self, pods: Sequence[int]) -> None:
        """Delete bound ``pods`` in turn: ``RemovePod`` of the plugins and of ``NodeInfo``
        (:func:`.kernels.evict`)."""
        seq, on_node = self.seq, self._on_node
        kernels.evict(seq.aids, seq.table, seq.cache, seq.bound, on_node.table, on_node.count,
                      np.asarray(pods, dtype=np.int64))  # fmt: skip
        on_node.total -= len(pods)

    def leave(self, pod: int, node: int) -> None:
        """``NodeInfo.RemovePod`` of ``pod`` from ``node`` (the last pod takes its place;
        the nominator unchanged)."""
        self._on_node.remove(node, pod)

    def position(self, pod: PodRecord) -> int:
        return self._position[id(pod)]

    # -- the compiled walk ----------------------------------------------------------------

    def dry_run(self, pod: PodRecord, potential: list[int], offset: int, wanted: int,
                cluster: Any, budgets: Sequence[BudgetRecord]
                ) -> tuple[list[Victims], list[Victims], dict[int, Status]]:  # fmt: skip
        """:func:`.reference.dry_run_preemption` of the view's pod in one compiled call
        (:func:`.kernels.dry_run`)."""
        walk = self._walk(np.asarray(potential, dtype=np.int64), offset, wanted, budgets)
        order, status, vptr, victims, violations, walked = walk
        clean: list[Victims] = []
        dirty: list[Victims] = []
        for k in np.flatnonzero(status[:walked] == kernels.CANDIDATE).tolist():
            pods = [self.records[i] for i in victims[vptr[k] : vptr[k + 1]]]
            found = Victims(int(order[k]), pods, int(violations[k]))
            group = clean if found.pdb_violations == 0 else dirty
            if len(group) < wanted:
                group.append(found)
        return clean, dirty, self._walk_statuses(pod, order, status, walked)

    def _walk(self, potential: np.ndarray, offset: int, wanted: int,
              budgets: Sequence[BudgetRecord]) -> tuple[Any, ...]:  # fmt: skip
        """:func:`.kernels.dry_run` of the view's pod: (order, status, vptr, victims,
        violations, walked)."""
        self.restore()
        state, outputs, scratch = self._walk_arrays(len(potential), budgets)
        fids, slots, fixed, aids, *middle = state
        walked = kernels.dry_run(fids, slots, fixed, self.seq.table, aids, self.seq.cache,
                                 np.int64(self.pod), potential, np.int64(offset),
                                 np.int64(wanted), *middle, *outputs, *scratch)  # fmt: skip
        return *outputs, int(walked)

    def _walk_arrays(self, n: int, budgets: Sequence[BudgetRecord]) -> tuple[tuple[Any, ...], ...]:
        """The view's pod's walk over ``n`` nodes at most: (its filters and inputs,
        :func:`.kernels.dry_run`'s arguments from ``fids`` to ``fixed`` then from
        ``node_table`` to ``memo``; its outputs, new arrays; its scratch and memo)."""
        on_node = self._on_node
        pdb_ptr, pdb_idx, allowed = self._budget_lists(budgets)
        nom_ptr, nom_pods = self._nominated_lists()
        fids, slots, aids, fixed = self._filters()
        size = on_node.table.shape[1] + 1
        known, known_ctl = self._known_for((fids, slots, aids, fixed, pdb_ptr, allowed))
        state = (fids, slots, fixed, aids, on_node.table, on_node.count, self._priority,
                 self._start, pdb_ptr, pdb_idx, allowed, nom_ptr, nom_pods, self._memo)  # fmt: skip
        outputs = (np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64),
                   np.zeros(n + 1, dtype=np.int64), np.empty(on_node.total + 1, dtype=np.int64),
                   np.zeros(n, dtype=np.int64))  # fmt: skip
        scratch = (np.empty(size, np.int64), np.empty(size, np.int64),
                   np.empty(len(allowed), np.int64), self._small, self._stack, known,
                   known_ctl)  # fmt: skip
        return state, outputs, scratch

    def preempt_walk(self, verdicts: np.ndarray, mode: int, rng: np.ndarray | None,
                     seed: int, stream: int, percentage: int, absolute: int,
                     budgets: Sequence[BudgetRecord], evict: bool,
                     given: Callable[[int], int] | None = None) -> Walk:  # fmt: skip
        """The view's pod's split, offset draw, walk and pick in one
        :func:`.fused.preempt_walk` call (``mode``: its draw; ``given``: the offset for
        ``DRAW_GIVEN``); with ``evict``, the chosen candidate's victims deleted. The call
        goes through its arguments packed once (:meth:`_walk_call`), on buffers kept from
        walk to walk; what it returns is copied out of them."""
        got = self.walk_in_place(verdicts, mode, rng, seed, stream, percentage, absolute,
                                 budgets, evict, given)  # fmt: skip
        n, walked, found = got[fused.POTENTIAL], got[fused.WALKED], got[fused.CANDIDATES]
        _, _, unhelpful, order, status, vptr, victims, violations, cands, tie, _ = self._walk_bufs
        ties = order[cands[:found][tie[:found]]].tolist()
        return Walk(n, unhelpful[: len(verdicts) - n].copy(), order[:walked].copy(),
                    status[:walked].copy(), vptr[: walked + 1].copy(),
                    victims[: vptr[walked]].copy(), violations[:walked].copy(), got,
                    cands[:found].copy(), ties)  # fmt: skip

    def walk_in_place(self, verdicts: np.ndarray, mode: int, rng: np.ndarray | None,
                      seed: int, stream: int, percentage: int, absolute: int,
                      budgets: Sequence[BudgetRecord], evict: bool,
                      given: Callable[[int], int] | None = None) -> list[int]:  # fmt: skip
        """:meth:`preempt_walk` with its outputs left in the walk's buffers (valid until
        the next walk; :meth:`chosen` reads the chosen candidate): :mod:`.fused`'s
        ``out`` fields."""
        self.restore()
        call, bufs = self._walk_call(budgets, rng)
        verdicts_buf, vptr, cands, out = bufs[0], bufs[5], bufs[8], bufs[10]
        np.copyto(verdicts_buf, verdicts)
        out[fused.STAGE] = out[fused.KEPT] = 0
        values = (mode, seed % 2**64, stream % 2**64, percentage, absolute, self.pod, evict)
        while True:
            code = int(call(*values))
            if code == fused.NEED_OFFSET:
                assert given is not None
                out[fused.OFFSET], out[fused.STAGE] = given(int(out[fused.POTENTIAL])), 1
            elif code < 0:
                self._learn(int(verdicts[-1 - code]))
                call, bufs = self._walk_call(budgets, rng)
            else:
                break
        got = out.tolist()
        if evict and got[fused.CANDIDATES]:
            chosen = cands[got[fused.CHOSEN]]
            self._on_node.total -= int(vptr[chosen + 1] - vptr[chosen])
        return got

    def chosen(self, got: list[int]) -> tuple[int, list[int], int, list[int]]:
        """The chosen candidate of the last :meth:`walk_in_place` (``got``: its ``out``
        fields; some candidate found): (its node, its victims' batch positions, its PDB
        violations, the nodes of the tie set)."""
        _, _, _, order, _, vptr, victims, violations, cands, tie, _ = self._walk_bufs
        found = got[fused.CANDIDATES]
        k = int(cands[got[fused.CHOSEN]])
        ties = order[cands[:found][tie[:found]]].tolist()
        return (int(order[k]), victims[vptr[k] : vptr[k + 1]].tolist(), int(violations[k]),
                ties)  # fmt: skip

    def _walk_call(self, budgets: Sequence[BudgetRecord], rng: np.ndarray | None
                   ) -> tuple[PackedCall, tuple[np.ndarray, ...]]:  # fmt: skip
        """:func:`.fused.preempt_walk` for the view's pod, its arguments packed (again if
        one of its arrays is not the one packed), and its output buffers."""
        seq, on_node = self.seq, self._on_node
        n_nodes, width = max(len(self.names), 1), on_node.table.shape[1] + 1
        bufs = self._walk_bufs
        if bufs is None or len(bufs[0]) != len(self.names):
            n = len(self.names)
            bufs = self._walk_bufs = (
                *(np.zeros(n, dtype=np.int64) for _ in range(5)), np.zeros(n + 1, np.int64),
                np.zeros(len(self.records) + 1, dtype=np.int64), np.zeros(n, np.int64),
                np.zeros(n_nodes, np.int64), np.zeros(n_nodes, np.bool_),
                np.zeros(fused.OUT_FIELDS, np.int64),
            )  # fmt: skip
        verdicts, potential, unhelpful, order, status, vptr, victims, violations = bufs[:8]
        cands, tie, out = bufs[8:]
        pdb_ptr, pdb_idx, allowed = self._budget_lists(budgets)
        nom_ptr, nom_pods = self._nominated_lists()
        fids, slots, aids, fixed = self._filters()
        known, known_ctl = self._known_for((fids, slots, aids, fixed, pdb_ptr, allowed))
        scratch = self._walk_scratch
        if scratch is None or len(scratch[0]) != width or scratch[2] is not allowed:
            scratch = self._walk_scratch = (np.zeros(width, np.int64),
                                            np.zeros(width, np.int64), allowed,
                                            np.zeros(len(allowed), np.int64))  # fmt: skip
        rng = self._go_rng if rng is None else rng
        sources = (self._known_verdicts, self._unresolvable, rng, fids, slots, fixed,
                   seq.table, aids, seq.cache, on_node.table, on_node.count, pdb_ptr, pdb_idx,
                   allowed, nom_ptr, nom_pods, scratch[0], known, known_ctl, seq.aids,
                   seq.bound)  # fmt: skip
        call = self._walk_packed
        if call is None or not call.current(*sources):
            args = (
                verdicts, self._known_verdicts, self._unresolvable, potential, unhelpful,
                np.int64(0), rng, np.uint64(0), np.uint64(0), np.int64(0), np.int64(0), fids,
                slots, fixed, seq.table, aids, seq.cache, np.int64(0), on_node.table,
                on_node.count, self._priority, self._start, pdb_ptr, pdb_idx, allowed, nom_ptr,
                nom_pods, self._memo, order, status, vptr, victims, violations, scratch[0],
                scratch[1], scratch[3], self._small, self._stack, known, known_ctl, cands, tie,
                np.bool_(False), seq.aids, seq.bound, out,
            )  # fmt: skip
            call = self._walk_packed = PackedCall(
                fused.preempt_walk_packed, args, fused.WALK_ARGS, fused.WALK_SCALARS, sources,
                (fused.preempt_walk_address(),), call)  # fmt: skip
        return call, bufs

    def _known_for(self, inputs: tuple[np.ndarray, ...]) -> tuple[np.ndarray, np.ndarray]:
        """The memo of the nodes' outcomes that :func:`.kernels.dry_run` reads and keeps for
        the view's pod: the one of the last walk while that walk's pod was a twin of the
        same priority on the same filters, budgets, plugin states, cycle cache and nodes'
        pods (``inputs``: the walk's filters and budget arrays); else a memo that knows
        nothing. With :attr:`memo` off, each walk starts from nothing."""
        seq, on_node = self.seq, self._on_node
        twins = (int(seq.groups[self.pod]), int(self._priority[self.pod]))
        same = (*inputs, seq.table, seq.cache, seq.states, on_node.table)
        kept = self._known
        if kept is None or kept[0][0] != twins or not all(map(operator.is_, kept[0][1], same)):
            key = (twins, same)
            width = kernels.K_VICTIMS + on_node.table.shape[1]
            known = np.zeros((max(len(self.names), 1), width), dtype=np.int64)
            kept = self._known = (key, known, np.zeros(3, dtype=np.int64))
        if not self.memo:
            kept[2][kernels.KC_USED] = 0
        return kept[1], kept[2]

    def _filters(self) -> tuple[np.ndarray, ...]:
        return self.split_for(self.pod)

    def split_for(self, pod: int) -> tuple[np.ndarray, ...]:
        """The dry runs' filters for batch pod ``pod``: (rows, slots) of the filter plugins
        whose verdict may change as pods come and go, the ``assume``/``remove`` rows of
        those plugins (``add_ids``: Go's walk changes the node's pods, never what a Reserve
        did), and the other plugins' verdict on each node
        (:func:`.kernels.fixed_verdicts`: they read the pod's spec and the node only, so
        they are made once per twin group for as long as the run's states are the same;
        a node added or removed makes them again). With :attr:`narrow` off, every filter
        and every ``assume``: Go's walk as written."""
        seq = self.seq
        if not self.narrow:
            if len(self._slots) != len(seq.fids):  # (the filters chosen again)
                self._slots = np.arange(len(seq.fids), dtype=np.int64)
            return seq.fids, self._slots, seq.add_ids, self._no_fixed
        if self._ignores is None or self._ignores_of is not seq.states:
            self._ignores_of, self._splits, self._fixed = seq.states, {}, {}
            self._ignores = [np.broadcast_to(np.asarray(p.filter_ignores_pods(s), np.bool_),
                                             (len(seq.batch),))
                             for p, s in zip(seq.filter_slots,
                                             (seq.states[f] for f in seq.fids.tolist()),
                                             strict=True)]  # fmt: skip
        group = int(seq.groups[pod])
        found = self._fixed.get(group)
        if found is None:
            key = tuple(bool(m[pod]) for m in self._ignores)
            split = self._splits.get(key)
            if split is None:
                split = self._splits[key] = self._split(key)
            fids, slots, aids, fixed_ids, fixed_slots = split
            fixed = self._no_fixed
            if len(fixed_ids):
                fixed = np.zeros(len(self.names), dtype=np.int64)
                kernels.fixed_verdicts(fixed_ids, fixed_slots, seq.table, np.int64(pod),
                                       self._all, fixed)  # fmt: skip
            found = self._fixed[group] = (fids, slots, aids, fixed)
        return found

    def _split(self, ignores: tuple[bool, ...]) -> tuple[np.ndarray, ...]:
        """(rows, slots, assume rows, fixed rows, fixed slots) for the filters' split
        ``ignores`` (per slot: its verdict does not change as pods come and go)."""
        seq = self.seq
        moving = [k for k, fixed in enumerate(ignores) if not fixed]
        rows = seq.fids[moving]
        read = set(rows.tolist())
        aids = np.array([a for a in seq.add_ids.tolist() if a in read], dtype=np.int64)
        still = [k for k, fixed in enumerate(ignores) if fixed]
        slots = np.asarray(moving, dtype=np.int64)
        return rows, slots, aids, seq.fids[still], np.asarray(still, dtype=np.int64)

    def no_candidate(self, pod: PodRecord, order: np.ndarray, status: np.ndarray,
                     walked: int) -> tuple[str, str]:  # fmt: skip
        """The reason and error of a walk that found no candidate
        (``reference.no_candidate_outcome``; the statuses made only when some walked
        node's is an ``Error``)."""
        codes = status[:walked]
        failed = (codes == kernels.NO_VICTIM_NEEDED) | ((codes > 0) & ((codes & ERROR_FLAG) != 0))
        if not failed.any():
            return NO_CANDIDATE, ""
        statuses = self._walk_statuses(pod, order, status, walked)
        return no_candidate_outcome(statuses[n] for n in order[:walked].tolist()
                                    if n in statuses)  # fmt: skip

    def walk_no_candidate(self, pod: PodRecord, got: list[int]) -> tuple[str, str]:
        """:meth:`no_candidate` of the last :meth:`walk_in_place` (``got``: its ``out``
        fields), read from the walk's buffers."""
        order, status = self._walk_bufs[3], self._walk_bufs[4]
        return self.no_candidate(pod, order, status, got[fused.WALKED])

    def _walk_statuses(self, pod: PodRecord, order: np.ndarray, status: np.ndarray,
                       walked: int) -> dict[int, Status]:  # fmt: skip
        """The statuses of the nodes of a walk that gave no candidate."""
        statuses: dict[int, Status] = {}
        for node, code in zip(order[:walked].tolist(), status[:walked].tolist(), strict=True):
            if code == kernels.CANDIDATE:
                continue
            if code == kernels.NO_VICTIMS:
                statuses[node] = Status(UNSCHEDULABLE_AND_UNRESOLVABLE, (
                    f"No victims found on node {self.names[node]} for preemptor pod "
                    f"{pod.name}",))  # fmt: skip
            elif code == kernels.NO_VICTIM_NEEDED:
                statuses[node] = Status(ERROR, (f"expected at least one victim pod on node "
                                                f'"{self.names[node]}"',))  # fmt: skip
            else:
                statuses[node] = self._status(code)
        return statuses

    def split_by_code(self, verdicts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(the nodes where preemption might help, the others): the nodes whose status
        (from their ``verdicts``) is not ``UnschedulableAndUnresolvable``, and those whose
        status is, each ascending (:func:`.kernels.split_by_code`; each verdict's status
        made once)."""
        potential = np.empty(len(verdicts), dtype=np.int64)
        unhelpful = np.empty(len(verdicts), dtype=np.int64)
        while True:
            n = int(kernels.split_by_code(verdicts, self._known_verdicts, self._unresolvable,
                                          potential, unhelpful))  # fmt: skip
            if n >= 0:
                return potential[:n], unhelpful[: len(verdicts) - n]
            self._learn(int(verdicts[-1 - n]))

    def _learn(self, verdict: int) -> None:
        """Make ``verdict``'s status known to :func:`.kernels.split_by_code`."""
        code = self._status(verdict).code
        at = int(np.searchsorted(self._known_verdicts, verdict))
        self._known_verdicts = np.insert(self._known_verdicts, at, verdict)
        self._unresolvable = np.insert(self._unresolvable, at,
                                       code == UNSCHEDULABLE_AND_UNRESOLVABLE)  # fmt: skip

    def _nominated_lists(self) -> tuple[np.ndarray, np.ndarray]:
        """The nominated pods ``RunFilterPluginsWithNominatedPods`` adds for the view's pod,
        per node, as CSR over every node."""
        if not self.nominated:
            return self._no_lists
        listed, ptr, pods = self._nominated_grouped()
        if not len(listed):
            return self._no_lists
        sizes = np.zeros(len(self.names) + 1, dtype=np.int64)
        sizes[listed + 1] = np.diff(ptr)
        return np.cumsum(sizes), pods

    def _budget_lists(self, budgets: Sequence[BudgetRecord]
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
        """Per batch pod, the budgets that count it (``filterPodsWithPDBViolation``'s
        namespace, selector and disrupted-pods tests) as CSR, and the budgets'
        ``disruptionsAllowed`` (made once per list of budgets)."""
        kept = self._pods.budgets
        if kept and kept[0][0] is budgets:
            return kept[0][1]
        selectors = [label_selector_as_selector(b.selector) for b in budgets]
        rows = [counting_budgets(pod, budgets, selectors) for pod in self.records]
        ptr = np.zeros(len(rows) + 1, dtype=np.int64)
        np.cumsum([len(r) for r in rows], out=ptr[1:])
        flat = np.asarray([j for r in rows for j in r], dtype=np.int64)
        allowed = np.asarray([b.disruptions_allowed for b in budgets], dtype=np.int64)
        kept[:] = [(budgets, (ptr, flat, allowed))]
        return kept[0][1]

    # -- the reference's Cluster ----------------------------------------------------------

    def node_names(self) -> Sequence[str]:
        return self.names

    def node_index(self, name: str) -> int | None:
        """The index of node ``name``, None if absent."""
        if len(self._index_of) != len(self.names):
            self._index_of = {n: i for i, n in enumerate(self.names)}
        return self._index_of.get(name)

    def node_pods(self, node: int) -> Sequence[PodRecord]:
        return [self.records[i] for i in self._on_node.pods(node)]

    def filter(self, node: int, removed: Sequence[PodRecord]) -> Status:
        if node != self._node:
            self.restore()
            self._node = node
        want = {self._position[id(p)] for p in removed}
        for i in sorted(self._out - want):  # back on the node (AddPod)
            self._assume(i, node)
        for i in sorted(want - self._out):  # off the node (RemovePod)
            self.seq.remove(i, node)
        self._out = want
        one = self._one
        one[0] = node
        v = int(self.nominated_verdicts(one)[node]) if self.nominated else 0
        if v == 0:
            self._fill(one)
            v = int(self._memo[0, node])
        return self._status(v)

    def restore(self) -> None:
        """Every pod removed for a dry run bound again."""
        if not self._out:
            self._node = -1
            return
        for i in sorted(self._out):
            self._assume(i, self._node)
        self._out, self._node = set(), -1

    def statuses(self, nodes: np.ndarray | None = None) -> dict[int, Status]:
        """``RunFilterPluginsWithNominatedPods`` of the pod on ``nodes`` (default: every
        node) in the state as it is: the failing nodes' statuses."""
        nodes = self._all if nodes is None else nodes
        verdicts = self.verdicts(nodes)
        return {node: self._status(int(verdicts[node])) for node in nodes.tolist()
                if verdicts[node]}  # fmt: skip

    def verdicts(self, nodes: np.ndarray) -> np.ndarray:
        """int64[N]: the pod's verdict on each of ``nodes`` (0: it passes), nominated pods
        counted (see the module docstring)."""
        with_them = self.nominated_verdicts(nodes)
        self._fill(nodes)
        memo = self._memo[0].copy()
        failed = with_them != 0
        memo[failed] = with_them[failed]
        return memo

    def nominated_verdicts(self, nodes: np.ndarray | None = None) -> np.ndarray:
        """int64[N]: the pod's verdict with the node's nominated pods of its priority or
        higher added, on the nodes of ``nodes`` that have some (0 elsewhere)."""
        if not self.nominated:
            return np.zeros(len(self.names), dtype=np.int64)
        listed, ptr, pods = self._nominated_grouped()
        if not len(listed):
            return np.zeros(len(self.names), dtype=np.int64)
        if nodes is not None:
            keep = np.isin(listed, nodes)
            lengths = np.diff(ptr)
            pods = pods[np.repeat(keep, lengths)]
            listed, ptr = listed[keep], np.concatenate(([0], np.cumsum(lengths[keep])))
        split = self.split_for(self.pod) if self.narrow else None
        return nominated_verdicts(self.seq, self.pod, (listed, ptr, pods), self._memo, split)

    def _nominated_grouped(self) -> tuple[np.ndarray, ...]:
        """The nominated pods of the view's pod's priority or higher (itself aside), by
        node, each node's in nomination order: those ``addNominatedPods`` adds
        (:func:`.nominated.by_node`)."""
        if len(self.nominated) == 1 and self.pod in self.nominated:  # (itself only)
            return self._no_grouped
        pods = np.fromiter(self.nominated.keys(), dtype=np.int64, count=len(self.nominated))
        nodes = np.fromiter(self.nominated.values(), dtype=np.int64,
                            count=len(self.nominated))  # fmt: skip
        keep = (pods != self.pod) & (self._priority[pods] >= self._priority[self.pod])
        if not keep.any():
            return self._no_grouped
        return by_node(pods[keep], nodes[keep])

    def _fill(self, nodes: np.ndarray) -> None:
        seq = self.seq
        self._reps[0] = self.pod
        fill_nodes(seq.fids, seq.table, self._reps, np.int64(0), nodes, self._memo)

    def _status(self, verdict: int) -> Status:
        found = self._statuses.get(verdict)
        if found is None:
            found = self._statuses[verdict] = self._new_status(verdict)
        return found

    def _new_status(self, verdict: int) -> Status:
        slot, code = unpack(verdict)
        plugin = self.seq.filter_slots[slot]
        state = self.seq.states[int(self.seq.fids[slot])]
        reasons = tuple(plugin.reasons(state, code))
        if code & ERROR_FLAG:  # (RunFilterPlugins' Error status, its text the plugin's)
            return Status(ERROR, reasons)
        unresolvable = plugin.unresolvable(state, code)
        return Status(UNSCHEDULABLE_AND_UNRESOLVABLE if unresolvable else UNSCHEDULABLE,
                      reasons)  # fmt: skip

    def _assume(self, i: int, node: int) -> None:
        seq = self.seq
        seq.kernels.assume_pods(seq.add_ids, seq.table, seq.cache, np.array([i], np.int64),
                                np.array([node], np.int64))  # fmt: skip
