"""The scheduling queue (``kscore_fast/queue/priority_queue.py``) against v1.23.6's
``scheduling_queue.go``: pop order, backoff, the two flushes, moves filtered by the
events each plugin registered for, and ``AssignedPodAdded``."""

from __future__ import annotations

import pytest

from kscore_fast.framework.cluster_events import (
    ADD,
    ALL,
    ASSIGNED_POD_DELETE,
    DELETE,
    NODE,
    NODE_ADD,
    POD,
    PV,
    PV_ADD,
    PV_UPDATE,
    PVC,
    PVC_UPDATE,
    UPDATE,
    UPDATE_NODE_ALLOCATABLE,
    event_map,
    events,
    handled,
    pod_matches_event,
)
from kscore_fast.queue.priority_queue import SECOND, PriorityQueue

FIT = events((POD, DELETE), (NODE, ADD | UPDATE_NODE_ALLOCATABLE))
NODE_NAME = events((NODE, ADD))
IPA = events((POD, ALL), (NODE, ADD))
EVENTS = event_map([("NodeResourcesFit", FIT), ("NodeName", NODE_NAME), ("InterPodAffinity", IPA)])


class Clock:
    def __init__(self) -> None:
        self.now = 0

    def __call__(self) -> int:
        return self.now


def _queue() -> tuple[PriorityQueue, Clock]:
    clock = Clock()
    return PriorityQueue(clock, EVENTS), clock


def _failed(q: PriorityQueue, clock: Clock, key: str, plugins: frozenset[str]) -> str:
    """``key`` popped and failed by ``plugins``: the sub-queue it went to."""
    pod = q.pop()
    assert pod is not None and pod.key == key
    pod.unschedulable_plugins = plugins
    clock.now += 1
    return q.add_unschedulable_if_not_present(pod, q.scheduling_cycle)


def test_pop_takes_the_highest_priority_then_the_earliest():
    q, clock = _queue()
    for key, prio in [("a", 0), ("b", 5), ("c", 5), ("d", -1)]:
        q.add(key, prio)
        clock.now += 1
    assert [q.pop().key for _ in range(4)] == ["b", "c", "a", "d"]
    assert q.pop() is None and q.scheduling_cycle == 4


@pytest.mark.parametrize(
    ("attempts", "seconds"), [(1, 1), (2, 2), (3, 4), (4, 8), (5, 10), (9, 10)]
)
def test_backoff_doubles_per_attempt_up_to_the_maximum(attempts, seconds):
    q, _ = _queue()
    pod = q.add("a", 0)
    pod.attempts = attempts
    assert q.backoff_duration(pod) == seconds * SECOND


def test_a_failure_goes_to_unschedulable_unless_a_move_came_during_its_cycle():
    q, clock = _queue()
    q.add("a", 0)
    q.add("b", 0)
    assert _failed(q, clock, "a", frozenset({"NodeResourcesFit"})) == "unschedulable"
    pod = q.pop()  # b's cycle: a move request arrives before it fails
    q.move_all(NODE_ADD, lambda p: False)  # (moves nothing; still a move request)
    assert q.move_request_cycle == q.scheduling_cycle == 2
    assert q.add_unschedulable_if_not_present(pod, 2) == "backoff"
    with pytest.raises(ValueError, match="already in the backoff queue"):
        q.add_unschedulable_if_not_present(pod, 2)


def test_moves_follow_the_events_the_rejecting_plugins_registered_for():
    q, clock = _queue()
    for key in "abc":
        q.add(key, 0)
    _failed(q, clock, "a", frozenset({"NodeResourcesFit"}))
    _failed(q, clock, "b", frozenset({"NodeName"}))
    _failed(q, clock, "c", frozenset())  # (not a FitError: moved by any event)
    clock.now += 5 * SECOND  # every backoff over
    moved = q.move_all(ASSIGNED_POD_DELETE)
    assert sorted(p.key for p in moved) == ["a", "c"]  # NodeName ignores pod deletions
    assert q.unschedulable.keys() == {"b"}
    moved = q.move_all(NODE_ADD)
    assert [p.key for p in moved] == ["b"] and [q.pop().key for _ in range(3)] == ["a", "b", "c"]


def test_a_pod_still_backing_off_moves_to_the_backoff_queue_then_flushes():
    q, clock = _queue()
    q.add("a", 0)
    _failed(q, clock, "a", frozenset({"NodeResourcesFit"}))
    failed_at = clock.now
    clock.now += SECOND // 2
    assert [p.key for p in q.move_all(ASSIGNED_POD_DELETE)] == ["a"]
    assert q.pods["a"].where == "backoff"
    clock.now = failed_at + SECOND - 1
    assert q.flush_backoff_completed() == []
    clock.now = failed_at + SECOND  # boTime.After(now) is false: done
    assert [p.key for p in q.flush_backoff_completed()] == ["a"] and q.pop().key == "a"


def test_unschedulable_pods_return_after_more_than_60_seconds():
    q, clock = _queue()
    q.add("a", 0)
    _failed(q, clock, "a", frozenset({"NodeName"}))
    clock.now += 60 * SECOND
    assert q.flush_unschedulable_leftover() == []  # (not more than 60 s)
    clock.now += 1
    assert [p.key for p in q.flush_unschedulable_leftover()] == ["a"]
    assert q.pods["a"].where == "active"


def test_assigned_pod_added_moves_only_pods_with_matching_affinity_terms():
    q, clock = _queue()
    q.add("with-terms", 0, has_affinity_terms=True)
    q.add("without", 0)
    _failed(q, clock, "with-terms", frozenset({"InterPodAffinity"}))
    _failed(q, clock, "without", frozenset({"InterPodAffinity"}))
    clock.now += 5 * SECOND
    assert q.assigned_pod_added(lambda p: False) == []
    assert q.move_request_cycle == q.scheduling_cycle  # (a move request all the same)
    moved = q.assigned_pod_added(lambda p: True)
    assert [p.key for p in moved] == ["with-terms"]
    assert q.unschedulable.keys() == {"without"}


def test_delete_takes_a_pod_out_of_any_sub_queue():
    q, clock = _queue()
    for key in "abc":
        q.add(key, 0)
    _failed(q, clock, "a", frozenset({"NodeName"}))
    q.delete("a")
    q.delete("b")
    assert q.pending() == ["c"] and q.pop().key == "c" and q.pop() is None


def test_pod_matches_event():
    fit = frozenset({"NodeResourcesFit"})
    assert pod_matches_event(fit, NODE_ADD, EVENTS)
    assert pod_matches_event(frozenset({"Unknown"}), NODE_ADD, EVENTS) is False
    legacy = event_map([("Legacy", None)])  # every event, as a Go plugin without them
    assert pod_matches_event(frozenset({"Legacy"}), ASSIGNED_POD_DELETE, legacy)
    assert events((POD, ALL))[0].action & DELETE


def test_handled_events_are_those_of_the_resources_action_types():
    """``addAllEventHandlers``' handlers: per resource, the union of the action types the
    plugins registered for (VolumeZone's PVC Add gives no PvcUpdate handler)."""
    zone = event_map([("VolumeZone", events((PVC, ADD), (PV, ADD | UPDATE)))])
    assert handled(PV_ADD, zone) and handled(PV_UPDATE, zone)
    assert not handled(PVC_UPDATE, zone) and not handled(NODE_ADD, zone)
    both = event_map([("VolumeZone", events((PVC, ADD))), ("Other", events((PVC, UPDATE)))])
    assert handled(PVC_UPDATE, both)
    assert handled(PVC_UPDATE, event_map([("Legacy", None)]))  # (every event)
