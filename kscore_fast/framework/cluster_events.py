"""Cluster events and the plugins that registered for them (v1.23.6).

``ClusterEvent`` and ``ActionType`` as ``pkg/scheduler/framework/types.go`` defines them;
the events the queue's callers raise (``pkg/scheduler/internal/queue/events.go``);
``fillEventToPluginMap`` (``framework/runtime/framework.go``): a plugin's
``EventsToRegister`` (:attr:`Plugin.events_to_register`, each in-tree plugin's as in
v1.23.6), or every event for a plugin that declares none; and ``podMatchesEvent``
(``scheduling_queue.go``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

# ActionType bits (framework/types.go): Add, Delete, then the node updates
ADD, DELETE = 1, 2
UPDATE_NODE_ALLOCATABLE, UPDATE_NODE_LABEL, UPDATE_NODE_TAINT, UPDATE_NODE_CONDITION = 4, 8, 16, 32
ALL = 63
UPDATE = UPDATE_NODE_ALLOCATABLE | UPDATE_NODE_LABEL | UPDATE_NODE_TAINT | UPDATE_NODE_CONDITION

WILDCARD = "*"
POD, NODE, CSI_NODE = "Pod", "Node", "CSINode"
PV, PVC, STORAGE_CLASS = "PersistentVolume", "PersistentVolumeClaim", "StorageClass"
SERVICE = "Service"
CSI_STORAGE_CAPACITY = "CSIStorageCapacity"


@dataclass(frozen=True)
class ClusterEvent:
    resource: str
    action: int
    label: str = ""

    def is_wildcard(self) -> bool:
        return self.resource == WILDCARD and self.action == ALL


ASSIGNED_POD_ADD = ClusterEvent(POD, ADD, "AssignedPodAdd")
ASSIGNED_POD_DELETE = ClusterEvent(POD, DELETE, "AssignedPodDelete")
NODE_ADD = ClusterEvent(NODE, ADD, "NodeAdd")
UNSCHEDULABLE_TIMEOUT = ClusterEvent(WILDCARD, ALL, "UnschedulableTimeout")
PV_ADD = ClusterEvent(PV, ADD, "PvAdd")
PV_UPDATE = ClusterEvent(PV, UPDATE, "PvUpdate")
PVC_ADD = ClusterEvent(PVC, ADD, "PvcAdd")
PVC_UPDATE = ClusterEvent(PVC, UPDATE, "PvcUpdate")
#: ``buildEvtResHandler``'s events of CSIStorageCapacity objects
CAPACITY_ADD = ClusterEvent(CSI_STORAGE_CAPACITY, ADD, "CSIStorageCapacityAdd")
CAPACITY_UPDATE = ClusterEvent(CSI_STORAGE_CAPACITY, UPDATE, "CSIStorageCapacityUpdate")
CAPACITY_DELETE = ClusterEvent(CSI_STORAGE_CAPACITY, DELETE, "CSIStorageCapacityDelete")

#: ``allClusterEvents``: what a plugin without ``EventsToRegister`` is registered for
ALL_CLUSTER_EVENTS: tuple[ClusterEvent, ...] = tuple(
    ClusterEvent(r, ALL) for r in (POD, NODE, CSI_NODE, PV, PVC, STORAGE_CLASS)
)


def events(*pairs: tuple[str, int]) -> tuple[ClusterEvent, ...]:
    """``EventsToRegister``'s list, from (resource, action types) pairs."""
    return tuple(ClusterEvent(r, a) for r, a in pairs)


def registered(declared: Iterable[ClusterEvent] | None) -> tuple[ClusterEvent, ...]:
    """The events a plugin is registered for: ``declared`` (its ``events_to_register``),
    or every event when it declares none (``fillEventToPluginMap``)."""
    return ALL_CLUSTER_EVENTS if declared is None else tuple(declared)


def event_map(plugins: Iterable[tuple[str, Iterable[ClusterEvent] | None]]
              ) -> dict[ClusterEvent, frozenset[str]]:  # fmt: skip
    """``clusterEventMap``: each event, the plugins registered for it (every profile's
    plugins in one map, as the scheduler passes one to the queue)."""
    out: dict[ClusterEvent, set[str]] = {}
    for name, declared in plugins:
        for event in registered(declared):
            out.setdefault(ClusterEvent(event.resource, event.action), set()).add(name)
    return {k: frozenset(v) for k, v in out.items()}


def handled(event: ClusterEvent, events: Mapping[ClusterEvent, frozenset[str]]) -> bool:
    """The scheduler has a handler for ``event`` (``addAllEventHandlers`` registers one
    for the action types some plugin registered for on the event's resource: gvkMap)."""
    return any(e.resource == event.resource and e.action & event.action for e in events)


def pod_matches_event(unschedulable: frozenset[str], event: ClusterEvent,
                      events: Mapping[ClusterEvent, frozenset[str]]) -> bool:  # fmt: skip
    """``podMatchesEvent``: whether ``event`` may help a pod that ``unschedulable``
    plugins rejected."""
    if event.is_wildcard():
        return True
    for registered_event, names in events.items():
        match = registered_event.is_wildcard() or (
            registered_event.resource == event.resource
            and registered_event.action & event.action != 0
        )
        if match and not names.isdisjoint(unschedulable):
            return True
    return False
