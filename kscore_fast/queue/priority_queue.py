"""kube-scheduler v1.23.6's ``PriorityQueue`` (pkg/scheduler/internal/queue/
scheduling_queue.go) on a simulated clock of integer nanoseconds.

Three sub-queues: ``activeQ`` (the profile's QueueSort order: PrioritySort, a higher
priority first, then the earlier ``Timestamp``), ``podBackoffQ`` (by the time the pod's
backoff ends) and ``unschedulableQ``. The replay stamps every pod at a distinct time
(docs/queue.md), so ``activeQ``'s order is total and any correct heap pops what Go's
``container/heap`` pops; ``podBackoffQ`` may hold equal backoff ends, but its pods are
only ever popped together into ``activeQ`` (``flushBackoffQCompleted`` pops every pod
whose backoff ended), where their order is total again. So Python's ``heapq`` stands in
for Go's heap, with lazy deletion.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from ..framework.cluster_events import (
    ASSIGNED_POD_ADD,
    UNSCHEDULABLE_TIMEOUT,
    ClusterEvent,
    pod_matches_event,
)

SECOND = 1_000_000_000
#: ``unschedulableQTimeInterval``: a constant in v1.23
UNSCHEDULABLE_TIME_INTERVAL = 60 * SECOND


@dataclass(eq=False, slots=True)
class QueuedPod:
    """``framework.QueuedPodInfo``: what the queue keeps of a pod."""

    key: str
    priority: int
    #: when the pod was added, or last failed (``AddUnschedulableIfNotPresent``), ns
    timestamp: int
    initial_attempt_timestamp: int
    attempts: int = 0
    unschedulable_plugins: frozenset[str] = frozenset()
    #: the pod has required pod-affinity terms (``RequiredAffinityTerms``, which
    #: ``AssignedPodAdded`` matches against a newly assigned pod)
    has_affinity_terms: bool = False
    where: str = ""  # "active", "backoff", "unschedulable" or "" (popped, or gone)
    _entry: list | None = field(default=None, repr=False)


class _Heap:
    """A heap of queued pods under ``key`` (lazy deletion: an entry whose pod left is
    skipped)."""

    def __init__(self, name: str, order: Callable[[QueuedPod], tuple[int, ...]]) -> None:
        self.name, self.order = name, order
        self.items: list[list] = []
        self.size = 0
        self._seq = 0

    def add(self, pod: QueuedPod) -> None:
        self._seq += 1
        entry = [*self.order(pod), self._seq, pod]
        pod._entry, pod.where = entry, self.name
        heapq.heappush(self.items, entry)
        self.size += 1

    def delete(self, pod: QueuedPod) -> None:
        assert pod.where == self.name and pod._entry is not None
        pod._entry[-1] = None
        pod._entry, pod.where = None, ""
        self.size -= 1

    def peek(self) -> QueuedPod | None:
        items = self.items
        while items and items[0][-1] is None:
            heapq.heappop(items)
        return items[0][-1] if items else None

    def pop(self) -> QueuedPod | None:
        pod = self.peek()
        if pod is not None:
            heapq.heappop(self.items)
            pod._entry, pod.where = None, ""
            self.size -= 1
        return pod


class PriorityQueue:
    """The scheduling queue; ``now`` is read from ``clock()`` (ns) whenever Go reads
    ``p.clock.Now()``."""

    def __init__(
        self,
        clock: Callable[[], int],
        events: Mapping[ClusterEvent, frozenset[str]],
        initial_backoff: int = SECOND,
        max_backoff: int = 10 * SECOND,
    ) -> None:
        self.clock = clock
        self.events = events
        self.initial_backoff, self.max_backoff = initial_backoff, max_backoff
        # PrioritySort.Less: p1 > p2, or equal and Timestamp before
        self.active = _Heap("active", lambda p: (-p.priority, p.timestamp))
        self.backoff = _Heap("backoff", lambda p: (self.backoff_time(p),))
        self.unschedulable: dict[str, QueuedPod] = {}
        self.pods: dict[str, QueuedPod] = {}
        self.scheduling_cycle = 0
        self.move_request_cycle = -1

    # -- Add, Pop, AddUnschedulableIfNotPresent, Delete ------------------------------------

    def add(self, key: str, priority: int, has_affinity_terms: bool = False) -> QueuedPod:
        """``Add``: a new pod into ``activeQ``, stamped now."""
        now = self.clock()
        pod = QueuedPod(key, priority, now, now, has_affinity_terms=has_affinity_terms)
        self._leave(key)
        self.pods[key] = pod
        self.active.add(pod)
        return pod

    def pop(self) -> QueuedPod | None:
        """``Pop`` (None instead of blocking): the head of ``activeQ``; its attempts and
        the scheduling cycle counted."""
        pod = self.active.pop()
        if pod is None:
            return None
        pod.attempts += 1
        self.scheduling_cycle += 1
        return pod

    def add_unschedulable_if_not_present(self, pod: QueuedPod, pod_cycle: int) -> str:
        """``AddUnschedulableIfNotPresent``: a pod that failed its cycle, stamped now,
        into ``podBackoffQ`` if a move request came since its cycle began, else
        ``unschedulableQ``; which of them."""
        if pod.where:
            raise ValueError(f"pod {pod.key} is already in the {pod.where} queue")
        pod.timestamp = self.clock()
        if self.move_request_cycle >= pod_cycle:
            self.backoff.add(pod)
        else:
            self.unschedulable[pod.key] = pod
            pod.where = "unschedulable"
        return pod.where

    def delete(self, key: str) -> None:
        """``Delete``: the pod leaves whichever sub-queue holds it."""
        self._leave(key)
        self.pods.pop(key, None)

    def _leave(self, key: str) -> None:
        pod = self.pods.get(key)
        if pod is None or not pod.where:
            return
        if pod.where == "unschedulable":
            del self.unschedulable[key]
            pod.where = ""
        else:
            (self.active if pod.where == "active" else self.backoff).delete(pod)

    def forget(self, key: str) -> None:
        """A pod bound (or gone): the queue no longer tracks it."""
        self.pods.pop(key, None)

    # -- backoff -------------------------------------------------------------------------

    def backoff_duration(self, pod: QueuedPod) -> int:
        """``calculateBackoffDuration``: the initial backoff doubled per attempt after the
        first, at most the maximum."""
        duration = self.initial_backoff
        for _ in range(1, pod.attempts):
            duration *= 2
            if duration > self.max_backoff:
                return self.max_backoff
        return duration

    def backoff_time(self, pod: QueuedPod) -> int:
        return pod.timestamp + self.backoff_duration(pod)

    def is_backing_off(self, pod: QueuedPod) -> bool:
        return self.backoff_time(pod) > self.clock()

    # -- flushes and moves -----------------------------------------------------------------

    def flush_backoff_completed(self) -> list[QueuedPod]:
        """``flushBackoffQCompleted``: pods whose backoff ended, into ``activeQ``."""
        moved = []
        now = self.clock()
        while True:
            pod = self.backoff.peek()
            if pod is None or self.backoff_time(pod) > now:
                return moved
            self.backoff.pop()
            self.active.add(pod)
            moved.append(pod)

    def flush_unschedulable_leftover(self) -> list[QueuedPod]:
        """``flushUnschedulableQLeftover``: pods in ``unschedulableQ`` for more than 60 s
        move (``UnschedulableTimeout``, which every pod matches)."""
        now = self.clock()
        stale = [p for p in self.unschedulable.values()
                 if now - p.timestamp > UNSCHEDULABLE_TIME_INTERVAL]  # fmt: skip
        if stale:
            return self._move(stale, UNSCHEDULABLE_TIMEOUT)
        return []

    def move_all(
        self, event: ClusterEvent, pre_check: Callable[[QueuedPod], bool] | None = None
    ) -> list[QueuedPod]:
        """``MoveAllToActiveOrBackoffQueue``."""
        if not self.unschedulable:  # (the common case: only the move request)
            return self._move((), event)
        pods = [p for p in self.unschedulable.values() if pre_check is None or pre_check(p)]
        return self._move(pods, event)

    def assigned_pod_added(self, matches: Callable[[QueuedPod], bool]) -> list[QueuedPod]:
        """``AssignedPodAdded``: the pods of ``unschedulableQ`` with a required affinity
        term the new pod matches (``matches``) move."""
        if not self.unschedulable:  # (the common case: only the move request)
            return self._move((), ASSIGNED_POD_ADD)
        pods = [p for p in self.unschedulable.values() if p.has_affinity_terms and matches(p)]
        return self._move(pods, ASSIGNED_POD_ADD)

    def _move(self, pods: Iterable[QueuedPod], event: ClusterEvent) -> list[QueuedPod]:
        """``movePodsToActiveOrBackoffQueue``; the pods moved."""
        self.move_request_cycle = self.scheduling_cycle
        moved = []
        for pod in pods:
            if pod.unschedulable_plugins and not pod_matches_event(
                pod.unschedulable_plugins, event, self.events
            ):
                continue
            del self.unschedulable[pod.key]
            pod.where = ""
            (self.backoff if self.is_backing_off(pod) else self.active).add(pod)
            moved.append(pod)
        return moved

    def pending(self) -> list[str]:
        """``PendingPods``: every pod in a sub-queue."""
        return [k for k, p in self.pods.items() if p.where]
