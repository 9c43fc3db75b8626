"""VolumeZone: the zone and region labels of the PersistentVolumes bound to a pod's
claims must match the node's (pkg/scheduler/framework/plugins/volumezone/volume_zone.go).

A pod's verdict depends only on its namespace and claim names and on the node's zone
and region labels, so the plugin evaluates the scalar reference once per pair of pod
class and node class and the kernel reads the table. The storage objects never change
during a run (VolumeBinding's Reserve claims volumes in its own state, as Go's assume
cache does, not in the claims VolumeZone reads): binding a pod changes nothing the plugin
reads.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...framework.cluster_events import (
    ADD,
    NODE,
    PV,
    PVC,
    STORAGE_CLASS,
    UPDATE,
    UPDATE_NODE_LABEL,
    events,
)
from ...model.rows import unique_rows
from ...model.snapshot import ClusterSnapshot, PodBatch
from ..helper.base import NoArgs
from ..helper.claims import claim_classes
from ..helper.pod_fields import VOLUMES
from ..helper.texts import text_at, text_table
from . import kernels
from .reference import filter as reference_filter
from .reference import node_constraints

NAME = "VolumeZone"


class VolumeZone(NoArgs):
    """The VolumeZone filter plugin."""

    name = NAME
    #: what ``prepare`` reads of a pod (a lone pod's state is kept by them)
    lone_fields = VOLUMES
    reads_storage = True
    events_to_register = events(
        (STORAGE_CLASS, ADD), (NODE, ADD | UPDATE_NODE_LABEL), (PVC, ADD), (PV, ADD | UPDATE)
    )
    filters = True
    scores = False
    normalizes = False
    #: its interfaces in v1.23.6 (pkg/scheduler/framework/plugins/volumezone)
    extension_points = frozenset({"filter"})
    #: every failure is UnschedulableAndUnresolvable
    all_unresolvable = True
    kernels = kernels
    #: no node aggregates: binding a pod changes nothing it reads
    bind_independent = True

    def prepare(self, snapshot: ClusterSnapshot, batch: PodBatch) -> tuple:
        return batch.prepared(NAME, snapshot, lambda: _state(snapshot, batch))

    def empty_state(self) -> tuple:
        return (np.zeros(0, np.int32), np.zeros(0, np.int32), np.zeros((1, 1), np.int64),
                np.zeros(1, np.int64), np.zeros(0, np.uint8))  # fmt: skip

    def filter_key(self, state: tuple) -> np.ndarray:
        """Pods whose classes have equal verdicts on every node class (pods whose volumes
        constrain the zones alike, whatever the volumes)."""
        return unique_rows(state[2])[1][state[1]]

    def passes_all(self, state: tuple) -> bool:
        """No pod of the batch has a claim."""
        return not state[1].any()

    def reasons(self, state: tuple, code: int) -> list[str]:
        return [text_at(state[3], state[4], code - 1)]


def _state(snapshot: ClusterSnapshot, batch: PodBatch) -> tuple:
    """The plugin's state (see ``kernels``): the reference's verdict of each pod class on
    each node class."""
    pod_class, pod_reps = _pod_classes(batch)
    if len(pod_reps) == 1:  # no pod has a claim: one node class, nodes' labels unread
        return (np.zeros(snapshot.n_nodes, np.int32), pod_class, np.zeros((1, 1), np.int64),
                *text_table([]))  # fmt: skip
    node_class, node_labels = _node_classes(snapshot)
    reasons: dict[str, int] = {}
    verdict = np.zeros((len(pod_reps), len(node_labels)), dtype=np.int64)
    storage = snapshot.storage
    for p, pod in enumerate(pod_reps):
        if pod is None:  # (class 0: no claim, fits everywhere)
            continue
        for c, labels in enumerate(node_labels):
            reason = reference_filter(pod, labels, storage)
            if reason is not None:
                verdict[p, c] = reasons.setdefault(reason, len(reasons)) + 1
    return (node_class, pod_class, verdict, *text_table(list(reasons)))


def _node_classes(snapshot: ClusterSnapshot) -> tuple[np.ndarray, list[dict[str, str]]]:
    """int32[N]: each node's class (equal zone and region labels); each class's labels.
    Cached on the snapshot."""
    found = snapshot.cache.get("volume_zone_nodes")
    if found is None:
        ids: dict[tuple[tuple[str, str], ...], int] = {}
        of_node = [ids.setdefault(tuple(sorted(node_constraints(labels).items())), len(ids))
                   for labels in snapshot.node_labels]  # fmt: skip
        found = snapshot.cache["volume_zone_nodes"] = (
            np.array(of_node, dtype=np.int32).reshape(-1),
            [dict(key) for key in ids] or [{}],
        )
    return found


def _pod_classes(batch: PodBatch) -> tuple[np.ndarray, list[Any]]:
    """int32[B]: each pod's class (0: no claim; else one per namespace and claim names),
    and a pod of each class (None for class 0). Cached on the batch."""
    found = batch.cache.get("volume_zone_pods")
    if found is None:
        found = batch.cache["volume_zone_pods"] = claim_classes(batch, ephemeral=False)
    return found
