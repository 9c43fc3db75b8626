"""A scheduler over time: kube-scheduler v1.23.6's scheduling queue and scheduling loop on
a simulated clock, around a :class:`~kscore_fast.Simulator` (docs/queue.md).

Pods arrive and leave, nodes come and go; the queue (:mod:`.priority_queue`) decides
which pod the next cycle takes and when a pod that fit nowhere is tried again: after a
cluster event its rejecting plugins registered for, after its backoff, or after 60 s.
Every cycle is a row of :attr:`TimedSimulator.attempts`.

The loop (docs/queue.md): at each instant, the events due, then the backoff flush (every
1 s) and the unschedulable-leftover flush (every 30 s) when due, then one cycle if the
active queue holds a pod; else the clock moves to the next event or flush. Stamping a pod
(an arrival, a cycle) takes 1 ns, so no two queue timestamps are equal.
"""

from __future__ import annotations

import contextlib
import copy
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from decimal import Decimal
from typing import Any

from .. import params
from ..errors import InputError
from ..framework.cluster_events import (
    ASSIGNED_POD_DELETE,
    CAPACITY_ADD,
    CAPACITY_DELETE,
    CAPACITY_UPDATE,
    NODE_ADD,
    PV_ADD,
    PV_UPDATE,
    PVC_ADD,
    PVC_UPDATE,
    ClusterEvent,
    event_map,
    handled,
)
from ..model.objects import NodeRecord, PodRecord, object_key
from ..model.snapshot import Cluster
from ..plugins.interpodaffinity.reference import AffinityTerm, PodInfo
from ..plugins.noderesources.fit_reference import compute_pod_resource_request
from ..plugins.noderesources.resources import columns
from ..simulator import Simulator
from .events_file import NS, TimedEvent, time_ns, timed_events
from .precheck import pre_check_for_node
from .priority_queue import SECOND, PriorityQueue, QueuedPod
from .result import TimedResult

BACKOFF_FLUSH = SECOND
LEFTOVER_FLUSH = 30 * SECOND
GPU = "nvidia.com/gpu"
#: the timeline's columns: the clock, the three sub-queues' sizes, the bound pods and
#: their requests summed (CPU millicores, memory bytes, GPUs)
TIMELINE = ("timeNs", "active", "backoff", "unschedulable", "boundPods", "cpuMilli",
            "memoryBytes", "gpus")  # fmt: skip
#: the nodes table's columns: each node present at the end, its allocatable CPU
#: (millicores), memory (bytes) and GPUs, and the pods bound there and their requests summed
NODES = ("node", "cpuMilliAllocatable", "memoryBytesAllocatable", "gpusAllocatable",
         "pods", "cpuMilli", "memoryBytes", "gpus")  # fmt: skip


class TimedSimulator:
    """The scheduler over time. ``later``: pending pods of ``cluster`` that arrive by an
    ``addPod`` event (not queued at the start); the other pending pods are queued at time
    0 in input order. ``preemption``: a pod that fits nowhere preempts, as
    ``scheduleOne`` has it (docs/preemption.md): back in the queue, its victims' deletions
    are cluster events. Other arguments as :class:`~kscore_fast.Simulator`'s."""

    def __init__(self, cluster: Cluster, *, config: Any = None, plugins: Any = None,
                 seed: int = 0, tie_break: str = "uniform",
                 percentage_of_nodes_to_score: int | None = None,
                 notice: Callable[[str], None] | None = None,
                 later: Iterable[str] = (), preemption: bool = False) -> None:  # fmt: skip
        if not isinstance(cluster, Cluster):
            raise params.fail("TimedSimulator", "cluster", "a Cluster (kscore_fast.load_cluster)",
                              cluster)  # fmt: skip
        self.sim = Simulator(cluster, config=config, plugins=plugins, seed=seed,
                             tie_break=tie_break, notice=notice, preemption=preemption,
                             percentage_of_nodes_to_score=percentage_of_nodes_to_score)  # fmt: skip
        if self.sim._nominated is not None:  # (nominated as they are queued: _enqueue)
            self.sim._nominated.clear()
        fw = self.sim.framework
        plugs = [*fw.filter_plugins, *(wp.plugin for wp in fw.score_plugins)]
        initial, maximum = _backoff(config)
        self.now = 0
        self.queue = PriorityQueue(lambda: self.now, event_map(
            (p.name, p.events_to_register) for p in plugs), initial, maximum)  # fmt: skip
        self.next_backoff = self.next_leftover = 0
        #: the latest event time (or ``until``) replayed: later events may not be earlier
        #: (events due before the clock, as at time 0, apply at once: docs/queue.md)
        self._horizon = 0
        #: one row per scheduling cycle (docs/queue.md), as kept (:attr:`attempts`)
        self._attempts: list[tuple[Any, ...]] = []
        self._later = set(later)
        self._ops = {"addPod": self._addPod, "delete": self._delete, "addNode": self._addNode,
                     "removeNode": self._removeNode, "addCapacity": self._addCapacity,
                     "updateCapacity": self._updateCapacity,
                     "deleteCapacity": self._deleteCapacity}  # fmt: skip
        #: per pod that entered the queue: [arrival ns, attempts, bound ns, host, state]
        self._story: dict[str, list[Any]] = {}
        #: the cluster over time: a row (:data:`TIMELINE`) after each event and attempt
        self._rows: list[tuple[int, ...]] = []
        #: bound pods (the input's, added, bound by a cycle) and their requests summed:
        #: [pods, CPU millicores, memory bytes, GPUs]; each bound pod's requests
        self._usage = [0, 0, 0, 0]
        self._requests: dict[str, tuple[int, int, int]] = {}
        #: the batch's resource columns, and each pending pod's requests from them
        self._batch_requests: tuple[Any, list[tuple[int, int, int]]] = (None, [])
        self._terms: dict[str, list[AffinityTerm]] = {}
        #: the victims of preemption so far: key → the preemptor's
        self._victims: dict[str, str] = {}
        self._ns_labels = {ns.name: dict(ns.labels) for ns in self.sim._cache.namespaces}
        cache = self.sim._cache
        for key, record in cache.existing.items():
            self._count(key, record, 1)
        for key in list(cache.pending):
            if key not in self._later and key not in cache.bound and key not in self.sim._refused:
                self._enqueue(key)

    # -- the loop ----------------------------------------------------------------------------

    def replay(self, events: Iterable[Any] | Sequence[TimedEvent], until: float | None = None,
               progress: Callable[[int], None] | None = None) -> None:  # fmt: skip
        """Apply ``events`` (:func:`.events_file.timed_events`' forms; none before the
        clock) at their times, scheduling in between, until nothing is left to do (the
        active and backoff queues empty; pods may stay unschedulable) or, with ``until``
        (seconds), until the next thing due is later than that. ``progress(k)``: ``k``
        more whole seconds of simulated time have passed."""
        todo = deque(events if _all_timed(events) else timed_events(events))
        if todo and todo[0].time_ns < self._horizon:
            raise InputError(f"{todo[0].where}: time {todo[0].time_ns / NS:g} s is before "
                             f"the time already replayed ({self._horizon / NS:g} s)")  # fmt: skip
        limit = None if until is None else time_ns(until, "replay: until")
        with self._atomic("replay"):
            if todo:
                self._horizon = todo[-1].time_ns
            if limit is not None:
                self._horizon = max(self._horizon, limit)
            self._run(todo, limit, progress)

    def advance(self, seconds: float) -> None:
        """:meth:`run_until` ``seconds`` after the clock."""
        self.run_until(Decimal(self.now) / NS + Decimal(repr(seconds) if isinstance(
            seconds, float) else seconds))  # fmt: skip

    def run_until(self, seconds: float) -> None:
        """Schedule and flush as the clock runs to ``seconds``; the clock is then there."""
        limit = time_ns(seconds, "run_until: seconds")
        with self._atomic("run_until"):
            self._run(deque(), limit, None)
            self.now = max(self.now, limit)
            self._horizon = max(self._horizon, limit)

    @contextlib.contextmanager
    def _atomic(self, name: str) -> Iterator[None]:
        """The block runs holding the simulator's lock (the loop calls its unserialized
        methods); an exception in it (a bad event, a plugin's error, Ctrl-C, a raising
        ``progress``) leaves everything as it was before."""
        with self.sim._exclusive(name):
            kept = self._kept()
            try:
                yield
            except BaseException:
                self._restore(kept)
                raise

    def _kept(self) -> tuple[Any, ...]:
        """What :meth:`_restore` needs to undo a call: a branch of the simulator, copies
        of the queue and of the bookkeeping (the rows so far only counted: rows are
        appended, never changed)."""
        scalars = (self.now, self.next_backoff, self.next_leftover, self._horizon)
        books = copy.deepcopy((self.queue, self._story, self._usage, self._requests))
        return (
            self.sim._copy(),
            scalars,
            books,
            set(self._later),
            (dict(self._terms), dict(self._victims)),
            len(self._attempts),
            len(self._rows),
        )

    def _restore(self, kept: tuple[Any, ...]) -> None:
        sim, scalars, books, later, terms, n_attempts, n_rows = kept
        self.sim._become(sim)
        self.now, self.next_backoff, self.next_leftover, self._horizon = scalars
        self.queue, self._story, self._usage, self._requests = books
        self.queue.clock = lambda: self.now
        self._later, (self._terms, self._victims) = later, terms
        del self._attempts[n_attempts:]
        del self._rows[n_rows:]

    def _run(self, todo: deque[TimedEvent], until: int | None,
             progress: Callable[[int], None] | None) -> None:  # fmt: skip
        queue = self.queue
        shown = self.now // NS
        while True:
            while todo and todo[0].time_ns <= self.now:
                self._apply(todo.popleft())
                self._record_timeline()
            if progress is not None and self.now // NS > shown:
                progress(self.now // NS - shown)
                shown = self.now // NS
            if self.next_backoff <= self.now:
                if queue.backoff.size:  # (a flush of an empty sub-queue finds nothing)
                    queue.flush_backoff_completed()
                self.next_backoff += BACKOFF_FLUSH
            if self.next_leftover <= self.now:
                if queue.unschedulable:
                    queue.flush_unschedulable_leftover()
                self.next_leftover += LEFTOVER_FLUSH
            if queue.active.size:
                self._cycle()
                continue
            if not todo and not queue.backoff.size and until is None:
                return
            # idle: the clock moves to the next thing that can change something. A flush
            # tick of an empty sub-queue finds nothing: those ticks are skipped (the loop
            # of docs/queue.md visits them; nothing differs but the time spent)
            due = [todo[0].time_ns] if todo else []
            if queue.backoff.size:
                due.append(self.next_backoff)
            if queue.unschedulable:
                due.append(self.next_leftover)
            following = min(due) if due else None
            if until is not None and (following is None or following > until):
                # the last backoff tick (every second) up to ``until`` ends the run
                last = until // BACKOFF_FLUSH * BACKOFF_FLUSH
                if last > self.now:
                    self._skip_ticks(last + 1)
                    self.now = last
                return
            assert following is not None
            self._skip_ticks(following)
            self.now = following

    def _skip_ticks(self, t: int) -> None:
        """The flush ticks before ``t`` passed (they found their sub-queue empty): the next
        ones are the first at or after ``t``."""
        if self.next_backoff < t:
            self.next_backoff = -(-t // BACKOFF_FLUSH) * BACKOFF_FLUSH
        if self.next_leftover < t:
            self.next_leftover = -(-t // LEFTOVER_FLUSH) * LEFTOVER_FLUSH

    def _cycle(self) -> None:
        queue = self.queue
        pod = queue.pop()
        assert pod is not None
        tried = self.sim._attempt(pod.key)
        where = None
        story = self._story[pod.key]
        story[1] = pod.attempts
        if tried.host is not None:
            story[2:] = [self.now, tried.host, "bound"]
            queue.forget(pod.key)
            record = self.sim._cache.pending[pod.key]
            self._count(pod.key, record, 1)
            if tried.volume_bindings:
                self._volumes_written(tried.volume_bindings)
            self._assigned(record)
        else:
            if tried.rejecting is not None:
                pod.unschedulable_plugins = tried.rejecting
            where = queue.add_unschedulable_if_not_present(pod, queue.scheduling_cycle)
            if tried.preemption is not None:  # the victims' deletions reach the queue after
                for victim in tried.preemption.victims:
                    self._deleted_bound(victim)
                    self._victims[victim] = pod.key
                where = pod.where  # (moved, perhaps, to podBackoffQ)
        # (a tuple: rows are made dicts when asked for, :attr:`attempts`)
        self._attempts.append((self.now, pod.key, pod.attempts, queue.scheduling_cycle, tried,
                               pod.unschedulable_plugins, where))  # fmt: skip
        self._record_timeline()
        self.now += 1

    # -- events ------------------------------------------------------------------------------

    def _apply(self, ev: TimedEvent) -> None:
        try:
            self._ops[ev.op](ev.arg)
        except InputError as exc:
            raise InputError(f"{ev.where}: {ev.op}: {exc}") from None

    def _addPod(self, obj: dict[str, Any]) -> None:
        spec = obj.get("spec") if isinstance(obj.get("spec"), dict) else {}
        key = object_key(obj)
        if spec.get("nodeName") or key not in self._later:
            key = self.sim._add_pod(obj)
            created = self.sim._claims_created
            record = self.sim._cache.existing.get(key)
            if record is not None:  # a bound pod: the informer's add
                self._count(key, record, 1)
                self._assigned(record)
                self._claims_added(created)
                return
        else:  # (loaded with the cluster: it arrives now, its claims are made now)
            claims = self.sim._controller_claims(obj, self.sim._cache.pending[key])
            self.sim._add_claims(claims)
            created = len(claims)
        self._later.discard(key)
        if key not in self.sim._refused:
            self._enqueue(key)
        self._claims_added(created)

    def _claims_added(self, created: int) -> None:
        """The ephemeral volume controller created ``created`` claims for the pod just
        added (after the pod's own event): ``PvcAdd``, once (the same event again moves
        no other pod)."""
        if created:
            self._storage_event(PVC_ADD)

    def _storage_event(self, event: ClusterEvent) -> None:
        """A storage object's event: the informer's handler (registered when some
        plugin registered for its action, ``addAllEventHandlers``) moves the pods it may
        help (``MoveAllToActiveOrBackoffQueue``)."""
        if handled(event, self.queue.events):
            self.queue.move_all(event)

    def _addCapacity(self, obj: dict[str, Any]) -> None:
        self.sim._add_capacity(obj)
        self._storage_event(CAPACITY_ADD)

    def _updateCapacity(self, obj: dict[str, Any]) -> None:
        self.sim._update_capacity(obj)
        self._storage_event(CAPACITY_UPDATE)

    def _deleteCapacity(self, key: str) -> None:
        self.sim._delete_capacity(key)
        self._storage_event(CAPACITY_DELETE)

    def _delete(self, key: str) -> None:
        if key in self._later:
            raise InputError(f"pod {key} has not arrived yet")
        cache = self.sim._cache
        if key in self._victims and key not in cache.pending and key not in cache.existing:
            raise InputError(f"pod {key} was deleted before: a victim of the preemption by "
                             f"{self._victims[key]}")  # fmt: skip
        bound = key in cache.existing or key in cache.bound
        self.sim._delete(key)
        if bound:
            self._deleted_bound(key)
            return
        self.queue.delete(key)
        self._terms.pop(key, None)
        if key in self._story:
            self._story[key][4] = "deleted"

    def _deleted_bound(self, key: str) -> None:
        """A bound pod deleted from the simulator (an event, or a victim of preemption):
        ``deletePodFromCache``'s queue move, and the usage and the pod's story."""
        self._count(key, None, -1)
        self._terms.pop(key, None)
        if key in self._story:
            self._story[key][4] = "deleted"
        self.queue.move_all(ASSIGNED_POD_DELETE)

    def _addNode(self, obj: dict[str, Any]) -> None:
        name = self.sim._add_node(obj)
        cache = self.sim._cache
        node = cache.tree.records[name]
        pods = [p for p in cache.existing.values() if p.node_name == name]
        pods += [cache.pending[k] for k, n in cache.bound.items() if n == name]
        check = pre_check_for_node(node, pods, cache.ports.get(name))
        self.queue.move_all(NODE_ADD, lambda p: check(cache.pending[p.key]))

    def _removeNode(self, name: str) -> None:
        self.sim._remove_node(name)

    # -- the queue's view of pods --------------------------------------------------------------

    def _enqueue(self, key: str) -> None:
        record = self.sim._cache.pending[key]
        terms = _required_affinity_terms(record)
        if terms:
            self._terms[key] = terms
        self.queue.add(key, record.priority or 0, bool(terms))
        if self.sim._nominated is not None:  # (the queue's Add nominates)
            self.sim._nominated.nominate(key, record.nominated_node_name)
        self._story[key] = [self.now, 0, None, None, "pending"]
        self.now += 1

    def _volumes_written(self, bindings: list[dict[str, Any]]) -> None:
        """The cluster events of a pod's bindings as they complete (docs/volume-bindings.md),
        before the pod's own: a static binding updates its volume and its claim, a
        provisioning creates the volume and updates the claim, an in-tree provisioner's
        claim gets its selected node (an update). The informers' handlers (those the
        profile's plugins registered for: ``addAllEventHandlers``) move the pods the
        event may help (``MoveAllToActiveOrBackoffQueue``); the same event again moves
        no other pod."""
        seen = []
        for b in bindings:
            if not b["provisioned"]:
                seen += [PV_UPDATE, PVC_UPDATE]
            else:
                seen += [PV_ADD, PVC_UPDATE] if b["volume"] is not None else [PVC_UPDATE]
        for event in dict.fromkeys(seen):
            if handled(event, self.queue.events):
                self.queue.move_all(event)

    def _assigned(self, pod: PodRecord) -> None:
        """``AssignedPodAdded``: pods waiting on a required affinity term ``pod`` matches."""
        labels = self._ns_labels.get(pod.namespace)

        def matches(waiting: QueuedPod) -> bool:
            return any(t.matches(pod, labels, True) for t in self._terms.get(waiting.key, ()))

        self.queue.assigned_pod_added(matches)

    # -- the cluster over time ---------------------------------------------------------------

    def _count(self, key: str, pod: PodRecord | None, sign: int) -> None:
        """A pod bound (``sign`` 1, ``pod`` its record) or a bound pod deleted (-1): the
        usage totals."""
        request = self._request(key, pod) if pod is not None else self._requests.pop(key)
        if sign > 0:
            self._requests[key] = request
        usage = self._usage
        usage[0] += sign
        usage[1] += sign * request[0]
        usage[2] += sign * request[1]
        usage[3] += sign * request[2]

    def _request(self, key: str, pod: PodRecord) -> tuple[int, int, int]:
        """The pod's requested CPU (millicores), memory and GPUs (``computePodResourceRequest``):
        a pending pod's from the resource columns its batch keeps, another's computed."""
        sim = self.sim
        i = sim._index.get(key)
        if i is None or sim._stale:
            return requested(pod)
        cols = columns(sim._cluster.snapshot, sim._cluster.batch)
        if self._batch_requests[0] is not cols:  # (the batch's, once per batch)
            gpu = cols.column(GPU)
            add = cols.pod_add
            rows = zip(
                add[:, 0].tolist(),
                add[:, 1].tolist(),
                add[:, gpu].tolist() if gpu >= 0 else [0] * len(add),
                strict=True,
            )
            self._batch_requests = (cols, list(rows))
        return self._batch_requests[1][i]

    def _record_timeline(self) -> None:
        queue, usage = self.queue, self._usage
        self._rows.append((self.now, queue.active.size, queue.backoff.size,
                           len(queue.unschedulable), *usage))  # fmt: skip

    # -- results -------------------------------------------------------------------------------

    @property
    def attempts(self) -> list[dict[str, Any]]:
        """One row per scheduling cycle so far (docs/queue.md), in order."""
        return [
            {"time": now / NS, "timeNs": now, "pod": key, "attempt": attempt, "cycle": cycle,
             "host": tried.host, "error": tried.error, "feasibleNodes": tried.feasible,
             "evaluatedNodes": tried.evaluated,
             "unschedulablePlugins": [] if tried.host else sorted(plugins), "queue": where,
             **({} if tried.preemption is None else {"preemption": tried.preemption.entry}),
             **({} if tried.volume_bindings is None
                else {"volumeBindings": tried.volume_bindings})}
            for now, key, attempt, cycle, tried, plugins, where in self._attempts
        ]  # fmt: skip

    def result(self) -> TimedResult:
        """The attempts so far, each pod's story, the pods still queued, the clock."""
        pods = [{"pod": key, "arrivalNs": s[0], "attempts": s[1], "boundNs": s[2],
                 "host": s[3], "state": s[4]} for key, s in self._story.items()]  # fmt: skip
        columns_ = list(zip(*self._rows, strict=True)) or [()] * len(TIMELINE)
        timeline = {name: list(values) for name, values in zip(TIMELINE, columns_, strict=True)}
        return TimedResult(self.attempts, pods, sorted(self.queue.pending()), self.now,
                           timeline, self._nodes())  # fmt: skip

    def _nodes(self) -> dict[str, list[Any]]:
        """The nodes present now (node-tree order) as :data:`NODES` columns: allocatable,
        and the bound pods' requests summed per node."""
        cache = self.sim._cache
        rows = {name: [name, *allocatable(node), 0, 0, 0, 0]
                for name, node in ((n.name, n) for n in cache.tree.feed())}  # fmt: skip
        hosts = {key: pod.node_name for key, pod in cache.existing.items()}
        hosts.update(cache.bound)
        for key, request in self._requests.items():
            row = rows.get(hosts.get(key, ""))
            if row is not None:  # (not a pod bound to a removed node)
                row[4] += 1
                for k in range(3):
                    row[5 + k] += request[k]
        columns_ = list(zip(*rows.values(), strict=True)) or [()] * len(NODES)
        return {name: list(values) for name, values in zip(NODES, columns_, strict=True)}


def requested(pod: PodRecord) -> tuple[int, int, int]:
    """A pod's requested CPU (millicores), memory (bytes) and GPUs
    (``computePodResourceRequest``)."""
    request = compute_pod_resource_request(pod)
    return request.milli_cpu, request.memory, request.scalar(GPU)


def allocatable(node: NodeRecord) -> tuple[int, int, int]:
    """A node's allocatable CPU (millicores), memory (bytes) and GPUs."""
    alloc = node.allocatable
    cpu, memory, gpus = alloc.get("cpu"), alloc.get("memory"), alloc.get(GPU)
    return (0 if cpu is None else cpu.milli_value(), 0 if memory is None else memory.value(),
            0 if gpus is None else gpus.value())  # fmt: skip


def _required_affinity_terms(pod: PodRecord) -> list[AffinityTerm]:
    """``PodInfo.RequiredAffinityTerms`` (none when a term does not parse, as Go's
    ``NewPodInfo`` leaves them)."""
    if pod.pod_affinity is None or not pod.pod_affinity.required:
        return []
    try:
        return PodInfo.new(pod).required_affinity_terms
    except Exception:  # (an invalid selector: Go records a parse error, no terms)
        return []


def _backoff(config: Any) -> tuple[int, int]:
    """``podInitialBackoffSeconds`` and ``podMaxBackoffSeconds`` of ``config``, in ns."""
    if config is None:
        return SECOND, 10 * SECOND
    from ..config.load import load_config
    from ..config.types import SchedulerConfiguration

    cfg = config if isinstance(config, SchedulerConfiguration) else load_config(config)
    return cfg.pod_initial_backoff_seconds * SECOND, cfg.pod_max_backoff_seconds * SECOND


def _all_timed(events: Any) -> bool:
    return isinstance(events, list | tuple) and all(isinstance(e, TimedEvent) for e in events)
