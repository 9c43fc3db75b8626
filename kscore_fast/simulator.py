"""The embedding API for simulator authors: a cluster whose pods are scheduled, bound and
deleted step by step, and whose nodes come and go, with kube-scheduler v1.23.6's
semantics (see ``framework/simulation``).

>>> sim = Simulator(load_cluster(["data/embedded"]), tie_break="go-rand", seed=1)  # doctest: +SKIP
>>> sim.schedule_and_bind("shop/frontend-6pw9pzsgwm-7lrvz")   # the host's name  # doctest: +SKIP
>>> what_if = sim.copy()                 # an independent branch       # doctest: +SKIP
>>> what_if.delete("shop/frontend-6pw9pzsgwm-7lrvz")                  # doctest: +SKIP
>>> result = sim.run()                   # the other pending pods, in queue order  # doctest: +SKIP

Pods are named ``namespace/name``. Scheduling, binding and deleting a pending pod run
compiled code over the plugins' states, which they update in place (the scheduler
cache's ``AssumePod``/``RemovePod``); ``run`` schedules many pods with no Python between
them. Events the kernels do not update incrementally (a node added or removed, a pod
added, a pod of the input's bound pods deleted) are applied to the cache's records
(``framework/cluster_cache``); the plugins' states are then prepared again from them at
the next scheduling call, which costs what preparing the cluster once costs. (With
``preemption`` the run holds the input's bound pods as pods of its batch: deleting one,
as preemption does, is incremental too.)

A Simulator may be shared between threads: each call takes the simulator's lock, so calls
run one after the other (the lock costs ~0.5 µs a call). A call made from inside another's
``progress`` callback is refused (it would change the states under the running loop). A
call that raises leaves the simulator as it was.

With ``preemption=True`` a pod that fits nowhere preempts as ``scheduleOne`` has it
(:mod:`kscore_fast.preemption.stepwise`): :meth:`Simulator.schedule_one` returns what
PostFilter did, and nominated pods count in every cycle's filters.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import functools
import itertools
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from . import params
from .errors import InputError
from .framework import gorand
from .framework.cluster_cache import ClusterCache
from .framework.nodeorder import num_feasible_nodes_to_find
from .framework.result import ScoreResult, ScoresMode, parse_scores_mode, result_entry
from .framework.runtime import ERR_NO_NODES
from .framework.sequential import OP_DELETE, OP_SCHEDULE, TIE_GO_RAND
from .framework.simulation import _Sequence, queue_order, random_source
from .io.ephemeral import created_claims
from .model.objects import NodeRecord, PodRecord
from .model.snapshot import TERMINATED_PHASES, Cluster
from .model.storage import CapacityRecord, ClaimRecord, Storage

if TYPE_CHECKING:
    from .preemption.stepwise import Nominations, Outcome


def _serialized(method: Callable[..., Any]) -> Callable[..., Any]:
    """A Simulator method that takes the simulator's lock: calls from several threads run
    one after the other; a call made while another of the same thread runs (from a
    ``progress`` callback) is refused, as it would change the states under the loop."""

    @functools.wraps(method)
    def call(self: Simulator, *args: Any, **kwargs: Any) -> Any:
        self._acquire(method.__name__)  # (not a generator context: ~1 µs a call less)
        try:
            return method(self, *args, **kwargs)
        finally:
            self._release()

    return call


class Simulator:
    """Step-by-step scheduling of a cluster (see the module docstring).

    ``config``/``plugins``/``percentage_of_nodes_to_score`` as :func:`kscore_fast.score`;
    ``tie_break``: ``"uniform"`` (seeded, per pod position) or ``"go-rand"`` (Go's
    ``selectHost`` on Go's ``math/rand`` after ``rand.Seed(seed)``, with scheduleOne's
    per-cycle draw: the draws follow the calls in order, as they would in kube-scheduler).
    ``preemption``: a pod that fits nowhere runs the profile's DefaultPreemption, applied
    (its victims deleted, the pod nominated), and nominated pods count in every cycle's
    filters (docs/preemption.md); without a DefaultPreemption in the profile, nothing.
    """

    def __init__(self, cluster: Cluster, *, config: Any = None, plugins: Any = None,
                 seed: int = 0, tie_break: str = "uniform",
                 percentage_of_nodes_to_score: int | None = None,
                 notice: Callable[[str], None] | None = None,
                 preemption: bool = False) -> None:  # fmt: skip
        if not isinstance(cluster, Cluster):
            raise params.fail("Simulator", "cluster", "a Cluster (kscore_fast.load_cluster)",
                              cluster)  # fmt: skip
        options = {"config": config, "plugins": plugins, "seed": seed, "tie_break": tie_break,
                   "percentage_of_nodes_to_score": percentage_of_nodes_to_score,
                   "notice": notice, "preemption": preemption}  # fmt: skip
        params.run_options("Simulator", options)
        self._tie, self._rng = random_source(tie_break, seed, "Simulator: seed")
        self._seed = seed
        #: one call at a time (:func:`_serialized`): the call running and its thread
        self._lock, self._running = threading.Lock(), None
        self._spec = (plugins, config, percentage_of_nodes_to_score)
        self._cache = ClusterCache.of(cluster)
        self._start = 0  # nextStartNodeIndex
        self._seq: _Sequence | None = None
        self._preempts = preemption
        #: pending pod → what VolumeBinding's Reserve decided when a cycle bound it
        #: (kept after the pod is deleted: its claims stay bound, as in Go)
        self._reserved: dict[str, list[dict[str, Any]]] = {}
        self._adopt(cluster, notice)
        #: the nominator (with preemption and a profile that preempts; else None): the
        #: pending pods' own ``status.nominatedNodeName``, as the queue's ``Add`` takes it
        self._nominated: Nominations | None = None
        if preemption and self.framework.preemption is not None:
            from .preemption.stepwise import Nominations

            self._nominated = Nominations()
            for key, record in self._cache.pending.items():
                if key not in self._refused:
                    self._nominated.nominate(key, record.nominated_node_name)

    @contextlib.contextmanager
    def _exclusive(self, name: str) -> Iterator[None]:
        """The simulator's lock held for call ``name`` (see :func:`_serialized`); a
        caller holding it (:class:`kscore_fast.queue.TimedSimulator`) may use the
        unserialized methods within."""
        self._acquire(name)
        try:
            yield
        finally:
            self._release()

    def _acquire(self, name: str) -> None:
        """Take the lock for call ``name``: refused from inside another call of this
        thread (a callback), else waiting for another thread's call."""
        me = threading.get_ident()
        if not self._lock.acquire(blocking=False):
            running = self._running
            if running is not None and running[1] == me:
                raise InputError(f"Simulator.{name}: called while its {running[0]}() "
                                 "runs (from a callback); a Simulator takes one call at a "
                                 "time")  # fmt: skip
            self._lock.acquire()
        self._running = (name, me)

    def _release(self) -> None:
        self._running = None
        self._lock.release()

    # -- the plugins' states -------------------------------------------------------------

    def _adopt(self, cluster: Cluster, notice: Callable[[str], None] | None = None) -> None:
        """Prepare the profile's states for ``cluster`` (the cache's records) and bind in
        them the pending pods the simulator bound to present nodes; the simulator changed
        only once all is done (a plugin's error leaves it as it was)."""
        from .api import _framework

        plugins, config, pct = self._spec
        framework, refused = _framework(cluster, plugins, config, pct, notice)
        snap, batch = cluster.snapshot, cluster.batch
        index = {name: i for i, name in enumerate(batch.names)}
        seq, rows, runs, made_on = None, {}, None, cluster
        if snap.n_nodes > 0:
            num = num_feasible_nodes_to_find(snap.n_nodes, framework.percentage_of_nodes_to_score)
            held = self._preempts and framework.preemption is not None
            if held:  # every bound pod a batch pod of the run, after the pending ones
                from .preemption.dryrun import DryRuns
                from .preemption.stepwise import with_bound_pods

                held_cluster, existing = with_bound_pods(cluster)
                made_on = held_cluster
                seq = _Sequence(framework, held_cluster.snapshot, held_cluster.batch, num,
                                explain=False)  # fmt: skip
                rows = {p.key: len(batch) + k for k, p in enumerate(existing)}
                runs = DryRuns.over(framework, seq, snap.node_names, [*batch.pods, *existing])
            else:
                seq = _Sequence(framework, snap, batch, num, explain=False)
            # nextStartNodeIndex as Go keeps it: taken modulo the node count inside a cycle
            # only (nodes removed since the last cycle may leave it past the count)
            seq.start = self._start
            where = snap.node_index
            bound = [(index[k], where[n]) for k, n in self._cache.bound.items() if n in where]
            bound += [(row, where[self._cache.existing[k].node_name]) for k, row in rows.items()]
            if bound:
                pods, nodes = (np.array(col, dtype=np.int64) for col in zip(*bound, strict=True))
                counted = [p.counts_bound_pending(snap) for p in seq.plugins]
                # (what Reserve assumed is in the cache's storage: _carry_storage)
                aids = seq.add_ids[~np.array(counted, dtype=np.bool_)[seq.add_ids]]
                seq.kernels.assume_pods(aids, seq.table, seq.cache, pods, nodes)
                seq.bound[pods] = nodes
        self._cluster, self.framework, self._seq = cluster, framework, seq
        #: the cluster the run's states were made from (with preemption: the bound pods
        #: in its batch, :func:`.preemption.stepwise.with_bound_pods`)
        self._made_on = made_on
        self._refused = {batch.names[i]: error for i, error in refused.items()}
        self._index = index
        #: with preemption: the batch position of each bound pod of the input (or of
        #: ``add_pod``) on a present node, held by the run to be deleted incrementally
        self._rows: dict[str, int] = rows
        #: with preemption: the dry runs over the run (:mod:`.preemption.stepwise`)
        self._runs = runs
        self._stale = False
        #: how many claims the last ``_add_pod`` created (:meth:`_add_claims`)
        self._claims_created = 0

    def _carry_storage(self, seq: _Sequence) -> None:
        """Keep what the plugins assumed of the storage objects (VolumeBinding's volumes
        and selected nodes, ``assumed_storage``) in the cache the states are made again
        from: in Go those stay in the binder's assume cache."""
        for plugin, state in zip(seq.plugins, seq.states, strict=True):
            carry = getattr(plugin, "assumed_storage", None)
            if carry is not None:
                self._cache.storage = carry(state, seq.snapshot, seq.batch, seq.storage)

    def _sync_storage(self) -> None:
        """After bindings completed in the run (its snapshot's storage objects changed):
        the cache's records and :attr:`cluster` hold the storage objects as they are."""
        seq = self._seq
        if seq is None or seq.storage is self._cluster.snapshot.storage:
            return
        self._cache.storage = seq.storage
        was = self._cluster.snapshot
        snapshot = dataclasses.replace(was, storage=seq.storage, cache=dict(was.cache))
        self._cluster = dataclasses.replace(self._cluster, snapshot=snapshot)

    def _fresh(self) -> _Sequence | None:
        """The run, its states prepared again first if an event made them stale."""
        if self._stale:
            if self._seq is not None:
                self._start = self._seq.start
                self._carry_storage(self._seq)
            self._adopt(self._cache.cluster())
        return self._seq

    def __repr__(self) -> str:
        fw = self.framework
        tie = ("uniform", "go-rand")[self._tie]
        cache = self._cache
        return (f"Simulator({len(cache.tree.records)} nodes, {len(cache.pending)} pending pods "
                f"({len(cache.bound)} bound), {len(set(fw.filter_names))} filter and "
                f"{len(fw.score_plugins)} score plugins, tie_break={tie!r})")  # fmt: skip

    # -- lookups -------------------------------------------------------------------------

    @property
    @_serialized
    def pods(self) -> list[str]:
        """The pending pods (``namespace/name``), bound by the simulator or not, in the
        order they were queued."""
        return list(self._cache.pending)

    @property
    @_serialized
    def nodes(self) -> list[str]:
        """The nodes present, in the order the next cycle's snapshot lists them (the node
        tree's, ``nodeTree.list()``, since the last change of the set of names)."""
        return list(self._current().snapshot.node_names)

    @_serialized
    def host_of(self, pod: str) -> str | None:
        """The node the pending pod ``pod`` is bound to (it may have been removed since),
        or None."""
        params.pod_name("host_of", "pod", pod)
        self._pending(pod)
        return self._cache.bound.get(pod)

    @property
    @_serialized
    def cluster(self) -> Cluster:
        """The cluster as it stands (nodes present, bound pods, pending pods)."""
        return self._current()

    def _current(self) -> Cluster:
        self._fresh()
        return self._cluster

    def _pending(self, pod: str) -> PodRecord:
        record = self._cache.pending.get(pod) if isinstance(pod, str) else None
        if record is None:
            bound = self._cache.existing.get(pod) if isinstance(pod, str) else None
            if bound is not None:
                raise InputError(f"pod {pod} is bound to {bound.node_name} in the input, "
                                 "not pending")  # fmt: skip
            raise InputError(f"unknown pending pod {pod!r}")
        return record

    def _waiting(self, pod: str) -> int:
        """The batch position of pending pod ``pod``, which must not be bound."""
        self._pending(pod)
        if pod in self._cache.bound:
            raise InputError(f"pod {pod} is already bound to {self._cache.bound[pod]}")
        self._fresh()
        if pod in self._refused:
            raise InputError(f"pod {pod!r}: {self._refused[pod]}")
        return self._index[pod]

    def _node(self, node: str) -> int:
        n = self._current().snapshot.node_index.get(node) if isinstance(node, str) else None
        if n is None:
            raise InputError(f"unknown node {node!r}")
        return n

    # -- scheduling ----------------------------------------------------------------------

    def _cycles(self, rows: list[int], commit: bool, scores: ScoresMode,
                progress: Callable[[int], None] | None = None) -> ScoreResult:  # fmt: skip
        """Scheduling cycles of pods ``rows`` (batch positions) in order, assumed on their
        hosts if ``commit``: their results."""
        names = self._cluster.batch.names
        result = self._result([names[i] for i in rows], len(rows), scores)
        result.mode = "simulate" if commit else "score"
        self._steps(result, 0, rows, commit, progress)
        result.finish()
        return result

    def _result(self, pods: list[str], cycles: int, scores: ScoresMode) -> ScoreResult:
        """An empty result for ``cycles`` cycles of ``pods``, room reserved."""
        fw, snap = self.framework, self._cluster.snapshot
        result = ScoreResult.empty(
            pod_names=pods, node_names=snap.node_names, plugin_names=fw.plugin_names,
            weights=[wp.weight for wp in fw.score_plugins], scores=scores,
            filter_names=fw.filter_names, explained=False,
        )  # fmt: skip
        num = 0 if self._seq is None else self._seq.num_to_find
        result.reserve(cycles * (num if result.keep is None else min(result.keep, num)))
        return result

    def _steps(self, result: ScoreResult, first: int, rows: list[int], commit: bool,
               progress: Callable[[int], None] | None = None,
               ops: np.ndarray | None = None) -> None:  # fmt: skip
        """Cycles of pods ``rows`` (batch positions) in order, recorded in ``result`` from
        row ``first`` on, assumed on their hosts if ``commit``; with ``ops``, the pods
        ``OP_DELETE`` marks are deleted instead (no row)."""
        snap, names = self._cluster.snapshot, self._cluster.batch.names
        cycles = [r for k, r in enumerate(rows) if ops is None or ops[k] == OP_SCHEDULE]
        out = np.arange(first, first + len(cycles))
        if cycles:  # UpdateSnapshot: the node list the next cycles start from
            self._cache.listed = snap.node_names
        if self._seq is None:  # Schedule: ErrNoNodesAvailable, after scheduleOne's draw
            for r in out.tolist():
                result.errors[r] = ERR_NO_NODES
            if self._tie == TIE_GO_RAND:
                for _ in cycles:
                    gorand.go_intn(self._rng, 100)
        else:
            pods = np.asarray(rows, dtype=np.int64)
            undo = self._undo_point(pods)
            try:
                self._seq.many(pods, out, self._tie, self._seed, self._rng, result, commit,
                               progress, ops)  # fmt: skip
            except BaseException:  # (a callback raised, Ctrl-C, a plugin's error)
                self._rollback(pods, *undo)
                raise
        if commit:  # the cache's records, event by event (host ports are order-sensitive)
            hosts = iter(zip(out.tolist(), result.hosts[out].tolist(), strict=True))
            for k, i in enumerate(rows):
                if ops is None or ops[k] == OP_SCHEDULE:
                    row, h = next(hosts)
                    if h >= 0:
                        self._bind_record(names[i], i, h)
                        if names[i] in self._reserved:
                            result.volume_bindings[row] = self._reserved[names[i]]
                else:
                    self._leave(names[i], i)
                    self._cache.drop_pending(names[i])
                    del self._index[names[i]]
            self._sync_storage()

    def _undo_point(self, pods: np.ndarray) -> tuple[Any, ...]:
        """What :meth:`_rollback` restores: where ``pods`` are bound in the kernels' states,
        the node rotation, the random source, the last cycle's node list."""
        assert self._seq is not None
        return (self._seq.bound[pods].copy(), self._seq.start, self._rng.copy(),
                self._cache.listed, self._seq.reserve_point(),
                (self._seq.snapshot, self._seq.storage), dict(self._seq.decided))  # fmt: skip

    def _rollback(self, pods: np.ndarray, bound: np.ndarray, start: int, rng: np.ndarray,
                  listed: list[str] | None, reserved: list[Any], made: tuple[Any, Any],
                  decided: dict[int, Any]) -> None:  # fmt: skip
        """Undo a loop over ``pods`` that stopped with an exception: each pod it bound is
        removed from the plugins' states and each it deleted assumed again (binding is
        undone exactly by ``remove``), what Reserve changed put back (``remove`` keeps a
        deleted pod's volumes bound: ``reserved``, :meth:`_Sequence.reserve_point`), the
        bindings that completed undone (the snapshot and storage of ``made`` again), the
        rotation and the random source restored; the cache's records were not touched
        yet."""
        seq = self._seq
        assert seq is not None
        seq.undo_in_flight()
        for pod, was, now in zip(pods.tolist(), bound.tolist(), seq.bound[pods].tolist(),
                                 strict=True):  # fmt: skip
            if now == was:
                continue
            if now >= 0:
                seq.kernels.remove_pod(seq.aids, seq.table, seq.cache, pod, np.int64(now))
            if was >= 0:
                one, node = np.array([pod], np.int64), np.array([was], np.int64)
                seq.kernels.assume_pods(seq.aids, seq.table, seq.cache, one, node)
        seq.restore_reserved(reserved)
        seq.bound[pods] = bound
        snapshot, storage = made
        if seq.snapshot is not snapshot:
            seq.restorage(snapshot)
        seq.storage, seq.decided = storage, decided
        seq.start = start
        self._rng[:] = rng
        self._cache.listed = listed

    @_serialized
    def schedule(self, pod: str, *, scores: ScoresMode = "all") -> dict[str, Any]:
        """One scheduling cycle of ``pod`` against the current state, nothing bound: its
        JSON object (host, counts, error, scores). Like kube-scheduler's ``Schedule``, the
        cycle moves ``nextStartNodeIndex`` and (go-rand) draws from the random source."""
        params.pod_name("schedule", "pod", pod)
        _scores("schedule", scores)
        i = self._waiting(pod)
        if self._nominated is not None and self._seq is not None:
            from .preemption.stepwise import end_cycle, prepare_cycle

            before = prepare_cycle(self, i, pod)
            try:
                return self._schedule(i, pod, scores)
            finally:
                end_cycle(self, i, before)
        return self._schedule(i, pod, scores)

    def _schedule(self, i: int, pod: str, scores: ScoresMode) -> dict[str, Any]:
        if self._seq is None or parse_scores_mode(scores) != 0:
            return self._cycles([i], False, scores).to_dict()["results"][0]
        host = self._step(i)
        if host < 0:  # (the error's message: recorded as any cycle's)
            result = self._result([pod], 1, scores)
            self._seq.record_one(result)
            result.finish()
            return result.to_dict()["results"][0]
        feasible, evaluated = self._seq.one.counts()
        return result_entry(pod, self._cluster.snapshot.node_names[host], feasible, evaluated,
                            None, [])  # fmt: skip

    @_serialized
    def bind(self, pod: str, node: str) -> None:
        """Bind ``pod`` to ``node``: every later cycle sees it there (requested
        resources, host ports, spread and affinity counts). Not checked against the
        filters, as a binding made by someone else is not."""
        params.pod_name("bind", "pod", pod)
        params.node_name("bind", "node", node)
        i, n = self._waiting(pod), self._node(node)
        seq = self._seq
        assert seq is not None  # a node exists
        one, at = np.array([i], dtype=np.int64), np.array([n], dtype=np.int64)
        try:  # (no Reserve: the binding was made elsewhere)
            seq.kernels.assume_pods(seq.add_ids, seq.table, seq.cache, one, at)
        except BaseException:  # (a plugin's error)
            seq.undo_in_flight()
            raise
        seq.bound[i] = n
        self._bind_record(pod, i, n)
        if self._nominated is not None:  # (bound: it leaves the nominator)
            self._nominated.pop(pod, None)

    @_serialized
    def schedule_and_bind(self, pod: str) -> str | None:
        """Schedule ``pod`` and bind it to its host: the host's name, or None (the pod
        fits nowhere; nothing changes)."""
        params.pod_name("schedule_and_bind", "pod", pod)
        i = self._waiting(pod)
        if self._nominated is not None:
            return self._attempt_guarded(pod).host
        if self._seq is None:
            return self._cycles([i], True, "none").host_names[0]
        host = self._step(i, pod)
        return None if host < 0 else self._cluster.snapshot.node_names[host]

    @_serialized
    def schedule_one(self, pod: str) -> dict[str, Any]:
        """One cycle of ``pod`` as kube-scheduler's ``scheduleOne`` runs it: bound to its
        host if it fits; else, with ``preemption``, PostFilter applied (its victims
        deleted, the pod nominated). Its JSON object: host, counts, error (no scores),
        and after a FitError with ``preemption`` the ``preemption`` object (the nominated
        node, the victims with namespace, name and priority, the PDB violations, the tie
        set; docs/contract.md)."""
        params.pod_name("schedule_one", "pod", pod)
        self._waiting(pod)
        tried = self._attempt_guarded(pod)
        entry = result_entry(pod, tried.host, tried.feasible, tried.evaluated, tried.error, [])
        if tried.volume_bindings is not None:
            entry["volumeBindings"] = tried.volume_bindings
        if tried.preemption is not None:
            entry["preemption"] = tried.preemption.entry
        return entry

    @property
    @_serialized
    def volume_bindings(self) -> dict[str, list[dict[str, Any]]]:
        """What VolumeBinding's Reserve decided for each pending pod a scheduling cycle
        bound (``namespace/name`` → its ``volumeBindings`` objects: claim, volume,
        provisioned, selectedNode; docs/volume-bindings.md), in bind order. A pod deleted
        since keeps its entry: its claims stay bound to their volumes and provisioned
        claims pinned to their nodes, as in Go's assume cache."""
        return {pod: [dict(b) for b in entries] for pod, entries in self._reserved.items()}

    @property
    @_serialized
    def nominations(self) -> dict[str, str]:
        """The nominated pending pods (``namespace/name`` → node name), in nomination
        order; empty without ``preemption``."""
        return dict(self._nominated or {})

    def _attempt_guarded(self, pod: str) -> Attempt:
        """:meth:`_attempt` of ``pod``, the simulator as it was if it raises."""
        if self._nominated is not None and self._seq is not None:
            return self._attempt(pod, guard=True)
        return self._guarded(lambda: self._attempt(pod))

    def _guarded(self, call: Callable[[], Any]) -> Any:
        """``call()``, the simulator restored as it was if it raises (with preemption: a
        cycle and its PostFilter change the state in several places)."""
        if self._nominated is None:
            return call()
        from .preemption.guard import Checkpoint

        before = Checkpoint(self)
        try:
            return call()
        except BaseException:
            before.restore(self)
            raise

    def _attempt(self, pod: str, guard: bool = False) -> Attempt:
        """One cycle of pending pod ``pod``, bound to its host if it fits (what the timed
        replay's scheduling loop runs, holding the lock: :mod:`kscore_fast.queue`), with
        preemption PostFilter applied after a FitError; an exception leaves the step half
        done: the caller restores a copy it kept, or drops the simulator. With ``guard``
        (preemption, at least one node) it leaves the simulator as it was: the cycle undoes
        itself (:meth:`_step`), and a checkpoint is kept before PostFilter only
        (:class:`~.preemption.guard.Checkpoint`)."""
        i = self._waiting(pod)
        if self._nominated is None or self._seq is None:
            tried = self._tried(i, pod)
            if self._nominated is not None:  # (no node: clearNominatedNode)
                self._nominated.pop(pod, None)
            return tried
        from .preemption.stepwise import end_cycle, post_filter, prepare_cycle

        before = prepare_cycle(self, i, pod)
        seq = self._seq
        at = (seq.start, self._rng.copy(), self._cache.listed) if guard else None
        try:
            tried = self._tried(i, pod, undo=guard)
        finally:
            end_cycle(self, i, before)
        if tried.host is None and tried.rejecting is not None:  # a FitError: PostFilter
            if not guard:
                return tried._replace(preemption=post_filter(self, pod))
            from .preemption.guard import Checkpoint

            kept = Checkpoint(self)
            try:
                return tried._replace(preemption=post_filter(self, pod))
            except BaseException:
                kept.restore(self)
                assert at is not None
                seq.start, self._rng, self._cache.listed = at  # (the failed cycle's)
                raise
        self._nominated.pop(pod, None)  # bound (assume), or clearNominatedNode
        return tried

    def _tried(self, i: int, pod: str, undo: bool = False) -> Attempt:
        """One cycle of batch pod ``i`` (``pod``), bound to its host if it fits (``undo``:
        see :meth:`_step`)."""
        seq = self._seq
        if seq is None:  # (no node: Schedule's ErrNoNodesAvailable, not a FitError)
            entry = self._cycles([i], True, "none").to_dict()["results"][0]
            return Attempt(None, 0, 0, entry["error"], None)
        # (with preemption and no ``undo`` the caller keeps a checkpoint to restore)
        host = self._step(i, pod, undo=undo or self._nominated is None)
        feasible, evaluated = seq.one.counts()
        if host >= 0:
            return Attempt(self._cluster.snapshot.node_names[host], feasible, evaluated,
                           None, None, None, self._reserved.get(pod))  # fmt: skip
        if feasible == 0:  # a FitError (no result: no counts, as any failed cycle)
            error, rejecting = seq.fit_failure()
            return Attempt(None, 0, 0, error, rejecting)
        # an error after filtering (PreScore, a score out of range): the set stays
        result = self._result([pod], 1, "none")
        seq.record_one(result)
        result.finish()
        entry = result.to_dict()["results"][0]
        return Attempt(None, entry["feasibleNodes"], entry["evaluatedNodes"], entry["error"],
                       None)  # fmt: skip

    def _step(self, i: int, bind: str | None = None, undo: bool = True) -> int:
        """One cycle of batch pod ``i`` on the step buffers (:meth:`_Sequence.step`), the
        pod bound to its host under the name ``bind`` if given: the host, or -1. An
        exception (a plugin's, inside the loop; Ctrl-C) leaves everything as before;
        without ``undo``, the caller restores a copy it kept (nothing is kept to undo)."""
        seq, cache = self._seq, self._cache
        assert seq is not None
        before = (np.array([seq.bound[i]], np.int64), seq.start, self._rng.copy(),
                  cache.listed, seq.reserve_point(), (seq.snapshot, seq.storage),
                  dict(seq.decided)) if undo else None  # fmt: skip
        try:
            cache.listed = self._cluster.snapshot.node_names  # UpdateSnapshot
            host = seq.step(i, self._tie, self._seed, self._rng, bind is not None)
            if bind is not None and host >= 0:
                self._bind_record(bind, i, host)
                self._sync_storage()
        except BaseException:
            if before is not None:
                if bind is not None:
                    cache.bound.pop(bind, None)
                    self._reserved.pop(bind, None)
                self._rollback(np.array([i], np.int64), *before)
            raise
        return host

    @_serialized
    def run(self, pods: Sequence[str] | None = None, *, scores: ScoresMode = "none",
            progress: Callable[[int], None] | None = None,
            retry_nominated: bool = False) -> ScoreResult:  # fmt: skip
        """Schedule and bind ``pods`` in the order given (default: every pending pod not
        bound yet, in kube-scheduler's queue order), one compiled loop for all of them;
        their results in that order. With ``preemption`` each pod's cycle is
        :meth:`schedule_one`'s (a failed pod's result holds its ``preemption``);
        ``retry_nominated``: a pod whose PostFilter nominated a node is tried again at
        once, its nominated node first, as ``simulate --preemption --retry-nominated``
        does (its row holds that second cycle, its ``preemption`` the first one's error,
        ``firstError``)."""
        _scores("run", scores)
        params.function("run", "progress", progress)
        params.boolean("run", "retry_nominated", retry_nominated)
        if retry_nominated and self._nominated is None:
            raise InputError("run: retry_nominated needs a Simulator with preemption (and a "
                             "profile with DefaultPreemption)")  # fmt: skip
        if pods is not None:
            pods = params.names("run", "pods", pods, params.pod_name)
        if pods is None:
            self._fresh()
            batch, cache = self._cluster.batch, self._cache
            rows = [i for i in queue_order(batch.pods)
                    if batch.names[i] in cache.pending and batch.names[i] not in cache.bound
                    and batch.names[i] not in self._refused]  # fmt: skip
        else:
            if len(set(pods)) != len(pods):
                raise InputError("run: a pod is listed twice")
            rows = [self._waiting(p) for p in pods]
        if self._nominated is not None:
            names = self._cluster.batch.names
            plan = [(OP_SCHEDULE, names[i]) for i in rows]
            return self._guarded(lambda: self._preempting(plan, scores, progress,
                                                          retry_nominated))  # fmt: skip
        return self._cycles(rows, True, scores, progress)

    def _preempting(self, plan: list[tuple[int, str]], scores: ScoresMode,
                    progress: Callable[[int], None] | None,
                    retry: bool = False) -> ScoreResult:  # fmt: skip
        """:meth:`run` and :meth:`replay` with preemption: the events of ``plan`` one at a
        time, each cycle as :meth:`schedule_one`'s, its scores kept as ``scores`` says;
        ``retry``: see :meth:`run`."""
        from .preemption.explain import mark_retried

        cycles = [key for op, key in plan if op == OP_SCHEDULE]
        result = self._result(cycles, len(cycles), scores)
        result.mode = "simulate"
        row = 0
        for op, key in plan:
            self._fresh()
            if op != OP_SCHEDULE:
                self._delete(key)
                continue
            entry = self._preempting_cycle(result, row, key)
            if retry and entry is not None and entry["victims"]:  # (a node nominated)
                mark_retried(entry, result.errors, row)
                self._fresh()
                self._preempting_cycle(result, row, key, again=True)
            row += 1
            if progress is not None:
                progress(1)
        result.finish()
        return result

    def _preempting_cycle(self, result: ScoreResult, row: int, key: str,
                          again: bool = False) -> dict[str, Any] | None:  # fmt: skip
        """One cycle of pending pod ``key`` into ``result``'s ``row``, PostFilter run and
        applied after a FitError: its ``preemption`` object (also in the result), or
        None. ``again``: the retry of a pod that just preempted (as ``simulate
        --retry-nominated`` has it: bound, it leaves the nominator; else nothing more)."""
        from .preemption.stepwise import end_cycle, post_filter, prepare_cycle

        i, seq = self._index[key], self._seq
        before = None if seq is None else prepare_cycle(self, i, key)
        try:
            if seq is not None and result.keep == 0 and not seq.explain:  # (step buffers)
                if self._step(i, key) >= 0 and key in self._reserved:
                    result.volume_bindings[row] = self._reserved[key]
                seq.record_one(result, row)
            else:
                self._steps(result, row, [i], True, None, np.zeros(1, dtype=np.int8))
        finally:
            if before is not None:
                end_cycle(self, i, before)
        assert self._nominated is not None
        fit_error = result.feasible[row] == 0 and (result.errors[row] or "").startswith("0/")
        if again:
            if result.hosts[row] >= 0:
                self._nominated.pop(key, None)
            return None
        if result.hosts[row] < 0 and fit_error:
            entry = result.preemptions[row] = post_filter(self, key).entry
            return entry
        self._nominated.pop(key, None)  # bound (assume), or clearNominatedNode
        return None

    @_serialized
    def replay(self, events: Iterable[tuple[str, str]], *, scores: ScoresMode = "none",
               progress: Callable[[int], None] | None = None) -> ScoreResult:  # fmt: skip
        """Apply ``events`` in order, each ``("schedule", pod)`` (:meth:`schedule_and_bind`)
        or ``("delete", pod)`` (:meth:`delete`), in one compiled loop: no Python between
        them (a deletion of a bound pod of the input prepares the states again, and splits
        the loop there). The results of the schedule events, in order. A pod is scheduled
        at most once per replay (retry one that fit nowhere in a later call). With
        ``preemption`` each schedule event is :meth:`schedule_one`'s."""
        _scores("replay", scores)
        params.function("replay", "progress", progress)
        if isinstance(events, str | bytes) or not isinstance(events, Iterable):
            raise params.fail("replay", "events", "an iterable of (op, pod) pairs", events)
        self._fresh()
        plan = self._plan(events)
        if self._nominated is not None:
            return self._guarded(lambda: self._preempting(plan, scores, progress))
        cycles = [key for op, key in plan if op == OP_SCHEDULE]
        result = self._result(cycles, len(cycles), scores)
        result.mode = "simulate"
        segments = _segments(plan, self._cache.existing)
        # several segments: the earlier ones are committed when a later one stops, so the
        # whole simulator is kept to come back to (one segment undoes itself: _steps)
        before = self._copy() if len(segments) > 1 else None
        first = 0
        try:
            for lo, hi in segments:
                if plan[lo][1] in self._cache.existing:  # a segment of its own
                    self._delete(plan[lo][1])
                    continue
                self._fresh()
                ops = np.array([op for op, _ in plan[lo:hi]], dtype=np.int8)
                rows = [self._index[key] for _, key in plan[lo:hi]]
                self._steps(result, first, rows, True, progress, ops)
                first += int((ops == OP_SCHEDULE).sum())
        except BaseException:
            if before is not None:
                self._become(before)
            raise
        result.finish()
        return result

    def _plan(self, events: Iterable[tuple[str, str]]) -> list[tuple[int, str]]:
        """``events`` as (op code, pod), checked against the cache as they would run."""
        cache = self._cache
        scheduled: set[str] = set()
        gone: set[str] = set()
        plan = []
        for k, event in enumerate(events):
            if not (isinstance(event, tuple | list) and len(event) == 2):
                raise InputError(f"replay event {k}: expected (op, pod), got {event!r}")
            op, key = event
            where = f"replay event {k} ({op!r}, {key!r})"
            if key in gone:
                raise InputError(f"{where}: the pod was deleted before")
            if op == "schedule":
                if key not in cache.pending:
                    raise InputError(f"{where}: unknown pending pod")
                if key in cache.bound or key in scheduled:
                    raise InputError(f"{where}: the pod was scheduled before")
                if key in self._refused:
                    raise InputError(f"{where}: {self._refused[key]}")
                scheduled.add(key)
                plan.append((OP_SCHEDULE, key))
            elif op == "delete":
                if key not in cache.pending and key not in cache.existing:
                    raise InputError(f"{where}: unknown pod")
                gone.add(key)
                plan.append((OP_DELETE, key))
            else:
                raise InputError(f"{where}: expected 'schedule' or 'delete'")
        return plan

    # -- events --------------------------------------------------------------------------

    @_serialized
    def delete(self, pod: str) -> None:
        """Delete ``pod`` (``namespace/name``): a pending pod (bound by the simulator: it
        leaves every aggregate, as the cache's ``RemovePod``; waiting: it leaves the
        queue), or a bound pod of the input or of :meth:`add_pod`."""
        params.pod_name("delete", "pod", pod)
        self._delete(pod)

    def _delete(self, pod: str) -> None:
        cache = self._cache
        if pod in cache.existing:
            row, seq = self._rows.pop(pod, None), self._seq
            if row is not None and not self._stale and seq is not None and seq.bound[row] >= 0:
                self._unbind(seq, row)
                self._leave(pod, row)
            else:
                self._stale = True
            cache.drop_existing(pod)
            return
        self._pending(pod)
        i, seq = self._index.get(pod), self._seq
        # (a pod on a node that is absent counts nowhere: bound[i] is -1)
        if not self._stale and seq is not None and i is not None and seq.bound[i] >= 0:
            self._unbind(seq, i)
        if i is not None:
            self._leave(pod, i)
        cache.drop_pending(pod)
        self._index.pop(pod, None)
        if self._nominated is not None:  # (the queue's Delete: DeleteNominatedPodIfExists)
            self._nominated.pop(pod, None)

    def _bind_record(self, pod: str, i: int, node: int) -> None:
        """The cache's record of pending pod ``pod`` (batch pod ``i``) bound to ``node``
        (and the dry runs' ``NodeInfo.Pods``, with preemption)."""
        name = self._cluster.snapshot.node_names[node]
        self._cache.bind(pod, name)
        assert self._seq is not None
        found = self._seq.volume_bindings_of(i, name)
        if found is not None:
            self._reserved[pod] = found
        if self._runs is not None and self._runs.tracking and not self._stale:
            self._runs.bound_to(i, node)

    def _leave(self, pod: str, i: int) -> None:
        """Before the cache drops ``pod`` (batch pod ``i``): with preemption, it leaves
        the dry runs' ``NodeInfo.Pods`` of its node (the node's last pod takes its place)."""
        cache, runs = self._cache, self._runs
        name = cache.existing[pod].node_name if pod in cache.existing else cache.bound.get(pod)
        node = None if name is None else self._cluster.snapshot.node_index.get(name)
        if runs is not None and runs.tracking and not self._stale and node is not None:
            runs.leave(i, node)

    @staticmethod
    def _unbind(seq: _Sequence, i: int) -> None:
        """Batch pod ``i`` deleted from every plugin's state (``RemovePod``)."""
        try:
            seq.remove(i, int(seq.bound[i]))
        except BaseException:  # (a plugin's error)
            seq.undo_in_flight()
            raise
        seq.bound[i] = -1

    @_serialized
    def add_pod(self, pod: dict[str, Any] | PodRecord) -> str:
        """Add a Pod (an object as ``json.load`` gives it, or a record): without
        ``spec.nodeName`` a pending pod queued after the others, with it a pod bound there
        (an informer's add; its node need not be present). Its ``namespace/name``. A pod
        without ``spec.priority`` is created: the Priority admission plugin resolves its
        priority from its PriorityClass (the input's), or refuses it (InputError)."""
        return self._add_pod(pod)

    def _add_pod(self, pod: dict[str, Any] | PodRecord) -> str:
        record = pod if isinstance(pod, PodRecord) else _record(pod, "Pod", "add_pod")
        key, cache = record.key, self._cache
        if key in cache.pending or key in cache.existing:
            raise InputError(f"add_pod: pod {key} exists")
        claims = [] if isinstance(pod, PodRecord) else self._controller_claims(pod, record)
        if record.priority is None:  # created now: the Priority admission plugin's turn
            made = cache.admission.create(record)
            if isinstance(made, str):
                raise InputError(f"add_pod: {made}")
            record = made
        if record.phase in TERMINATED_PHASES:
            raise InputError(f"add_pod: pod {key} is {record.phase}; the scheduler's cache "
                             "holds no terminated pod")  # fmt: skip
        self._reserved.pop(key, None)  # (a pod of that name deleted before: another pod)
        if record.node_name:
            cache.add_existing(record)
        elif record.deleting:
            raise InputError(f"add_pod: pending pod {key} is being deleted "
                             "(metadata.deletionTimestamp); kube-scheduler skips it")  # fmt: skip
        else:
            cache.pending[key] = record
            if self._nominated is not None:  # (the queue's Add)
                self._nominated.nominate(key, record.nominated_node_name)
        self._add_claims(claims)
        self._stale = True
        return key

    def _controller_claims(self, pod: dict[str, Any], record: PodRecord) -> list[ClaimRecord]:
        """The claims the ephemeral volume controller creates for the added pod
        (:mod:`.io.ephemeral`), validated as input is."""
        from .io.load import read_inputs

        made = created_claims(pod, record, self._cache.storage)
        if not made:
            return []
        try:
            objs, _ = read_inputs([], made)
        except InputError as e:
            raise InputError(f"add_pod: pod {record.key}: its ephemeral volume's claim: {e}"
                             ) from None  # fmt: skip
        return [r for r in objs.storage if isinstance(r, ClaimRecord)]

    def _add_claims(self, claims: list[ClaimRecord]) -> None:
        """``claims`` created (by the ephemeral volume controller): in the cache's storage
        objects and the run's (whose states are made again before the next cycle); how
        many were created is :attr:`_claims_created` (the timed queue's ``PvcAdd``)."""
        self._claims_created = len(claims)
        if not claims:
            return
        made = {(c.namespace, c.name): c for c in claims}
        self._change_storage(lambda s: dataclasses.replace(s, claims={**s.claims, **made}))

    def _change_storage(self, change: Callable[[Storage], Storage]) -> None:
        """The storage objects changed by an event (``change`` of the objects as they
        are): in the cache's and the run's, whose states are made again before the next
        cycle."""
        self._sync_storage()
        self._cache.storage = change(self._cache.storage)
        if self._seq is not None:
            self._seq.storage = change(self._seq.storage)
        self._stale = True

    # -- CSIStorageCapacity objects ------------------------------------------------------

    @_serialized
    def add_capacity(self, capacity: dict[str, Any]) -> str:
        """Add a CSIStorageCapacity (an object as ``json.load`` gives it): VolumeBinding's
        capacity check reads it from the next cycle on. Its ``namespace/name``."""
        return self._add_capacity(capacity)

    def _add_capacity(self, capacity: dict[str, Any]) -> str:
        record = _capacity_record(capacity, "add_capacity")
        key = (record.namespace, record.name)
        if key in self._cache.storage.capacities:
            raise InputError(f"add_capacity: CSIStorageCapacity {'/'.join(key)} exists")
        self._change_storage(lambda s: dataclasses.replace(
            s, capacities={**s.capacities, key: record}))  # fmt: skip
        return "/".join(key)

    @_serialized
    def update_capacity(self, capacity: dict[str, Any]) -> str:
        """Replace the CSIStorageCapacity of the object's ``namespace/name`` by it."""
        return self._update_capacity(capacity)

    def _update_capacity(self, capacity: dict[str, Any]) -> str:
        record = _capacity_record(capacity, "update_capacity")
        key = (record.namespace, record.name)
        if key not in self._cache.storage.capacities:
            raise InputError(f"update_capacity: no CSIStorageCapacity {'/'.join(key)}")
        self._change_storage(lambda s: dataclasses.replace(
            s, capacities={**s.capacities, key: record}))  # fmt: skip
        return "/".join(key)

    @_serialized
    def delete_capacity(self, capacity: str) -> None:
        """Delete the CSIStorageCapacity ``namespace/name``."""
        self._delete_capacity(capacity)

    def _delete_capacity(self, capacity: str) -> None:
        params.string("delete_capacity", "capacity", capacity)
        namespace, _, name = capacity.rpartition("/")
        key = (namespace or "default", name)
        if key not in self._cache.storage.capacities:
            raise InputError(f"delete_capacity: no CSIStorageCapacity {'/'.join(key)}")
        self._change_storage(lambda s: dataclasses.replace(
            s, capacities={k: v for k, v in s.capacities.items() if k != key}))  # fmt: skip

    @_serialized
    def add_node(self, node: dict[str, Any] | NodeRecord) -> str:
        """Add a Node (an object as ``json.load`` gives it, or a record), as the cache's
        ``AddNode``: last of its zone in the node tree. Pods bound to a node of that name
        count again. Its name."""
        return self._add_node(node)

    def _add_node(self, node: dict[str, Any] | NodeRecord) -> str:
        record = node if isinstance(node, NodeRecord) else _record(node, "Node", "add_node")
        if record.name in self._cache.tree.records:
            raise InputError(f"add_node: node {record.name} exists")
        self._cache.add_node(record)
        self._stale = True
        return record.name

    @_serialized
    def remove_node(self, node: str) -> None:
        """Remove a node, as the cache's ``RemoveNode``: its pods stay bound to it but
        count nowhere while it is absent."""
        params.node_name("remove_node", "node", node)
        self._remove_node(node)

    def _remove_node(self, node: str) -> None:
        if node not in self._cache.tree.records:
            raise InputError(f"unknown node {node!r}")
        self._cache.remove_node(node)
        self._stale = True

    @_serialized
    def copy(self) -> Simulator:
        """An independent branch: same cluster, own copies of every state the calls change
        (plugin aggregates, bindings, the records, the node rotation, the random source)."""
        return self._copy()

    def _become(self, other: Simulator) -> None:
        """Take ``other``'s state (a :meth:`_copy` of this simulator), keeping the lock."""
        lock, running = self._lock, self._running
        self.__dict__.update(other.__dict__)
        self._lock, self._running = lock, running

    def _copy(self) -> Simulator:
        other = Simulator.__new__(Simulator)
        other.__dict__.update(self.__dict__)
        other._cache = self._cache.copy()
        other._lock, other._running = threading.Lock(), None
        other._index, other._rows = dict(self._index), dict(self._rows)
        other._reserved = dict(self._reserved)
        if self._seq is not None:
            seq = _Sequence.__new__(_Sequence)
            seq.__dict__.update(self._seq.__dict__)
            seq.adopt_states(seq.owned(self._seq.states))  # (what binds change: copied)
            seq.cache = seq.empty_cache()  # (verdicts kept across cycles: made again)
            seq.bound = self._seq.bound.copy()
            seq.override = self._seq.override.copy()
            seq.decided = dict(self._seq.decided)
            seq.one = seq.last = None  # (buffers of its own)
            other._seq = seq
            if self._runs is not None:
                other._runs = self._runs.rebased(seq)
        other._rng = self._rng.copy()
        if self._nominated is not None:
            other._nominated = copy.copy(self._nominated)
        return other


def _segments(plan: list[tuple[int, str]], existing: dict[str, PodRecord]
              ) -> list[tuple[int, int]]:  # fmt: skip
    """``plan`` cut before and after each deletion of a bound pod of the input (a
    segment of its own)."""
    cuts = [k for k, (op, key) in enumerate(plan) if op == OP_DELETE and key in existing]
    bounds = sorted({0, len(plan), *cuts, *(k + 1 for k in cuts)})
    return [(a, b) for a, b in itertools.pairwise(bounds) if a < b]


class Attempt(NamedTuple):
    """One scheduling cycle of :meth:`Simulator._attempt`."""

    host: str | None
    feasible: int
    evaluated: int
    error: str | None
    #: the filter plugins that rejected a node, when the pod fit none (a FitError)
    rejecting: frozenset[str] | None
    #: what PostFilter did after a FitError (with preemption)
    preemption: Outcome | None = None
    #: what VolumeBinding's Reserve decided for the pod bound (``volumeBindings``)
    volume_bindings: list[dict[str, Any]] | None = None


def _record(obj: dict[str, Any], kind: str, call: str) -> Any:
    """The record of one object of ``kind``, validated as input is."""
    from .io.load import read_inputs

    if not isinstance(obj, dict) or obj.get("kind") != kind:
        raise params.fail(call, kind.lower(), f"a {kind} object (a dict with kind: {kind})",
                          obj)  # fmt: skip
    objs, _ = read_inputs([], [obj])
    (record,) = objs.nodes if kind == "Node" else objs.pods
    return record


def _capacity_record(obj: Any, call: str) -> CapacityRecord:
    """The CSIStorageCapacity ``obj`` is, validated as input is."""
    from .io.load import read_inputs

    if not isinstance(obj, dict) or obj.get("kind") != "CSIStorageCapacity":
        raise params.fail(call, "capacity", "a CSIStorageCapacity object (a dict with kind: "
                          "CSIStorageCapacity)", obj)  # fmt: skip
    objs, _ = read_inputs([], [obj])
    (record,) = objs.storage
    return record


def _scores(call: str, scores: Any) -> None:
    params.string(call, "scores", scores)
    parse_scores_mode(scores, f"{call}: scores")
