"""VolumeBinding (pkg/scheduler/framework/plugins/volumebinding, v1.23.6): PreFilter,
Filter and Score.

* PreFilter (:class:`PreFilterGate`): a missing, lost or deleting claim, or an unbound
  claim of an Immediate class, fails the pod on every node before any Filter runs
  (``findNodesThatFitPod`` gives every node that status). The framework builder runs it
  as the profile's first filter (``pre_filter_gate``): the same status on every node.
* Filter: the PersistentVolumes of the pod's bound claims must exist and their node
  affinity must match the node. Unbound claims of a WaitForFirstConsumer class (matching
  PersistentVolumes, dynamic provisioning, binding them on Reserve) are not simulated:
  such pods are counted and named by :func:`unsimulated_claims` (the runtimes report them)
  and their unbound claims are taken to fit every node.
* Score: 0 on every node (``VolumeCapacityPriority``, alpha, is off in 1.23; there is no
  ``NormalizeScore``).

A pod's verdicts depend on its namespace and claims, and on the node's labels that the
claimed volumes' node affinity reads: the plugin evaluates the scalar reference once per
pod class and node class and the kernels read the table. Nothing it reads changes when a
pod is bound (no claim is bound by the simulation).
"""

from __future__ import annotations

from operator import attrgetter
from typing import Any

import numpy as np

from ...framework.cluster_events import (
    ADD,
    CSI_NODE,
    NODE,
    PV,
    PVC,
    STORAGE_CLASS,
    UPDATE,
    events,
)
from ...model.objects import PodRecord
from ...model.snapshot import ClusterSnapshot, PodBatch
from ...model.storage import Storage
from ..helper.base import NoArgs
from ..helper.texts import text_at, text_table
from . import gate_kernels, kernels
from .reference import claims_to_bind, pod_claims, pre_filter
from .reference import filter as reference_filter

NAME = "VolumeBinding"
_claims = attrgetter("claims")
#: ``EventsToRegister`` (CSIDriver and CSIStorageCapacity: with the capacity check)
_EVENTS = events(
    (STORAGE_CLASS, ADD | UPDATE),
    (PVC, ADD | UPDATE),
    (PV, ADD | UPDATE),
    (NODE, ADD | UPDATE),
    (CSI_NODE, ADD | UPDATE),
    ("CSIDriver", ADD | UPDATE),
    ("CSIStorageCapacity", ADD | UPDATE),
)


class PreFilterGate(NoArgs):
    """VolumeBinding's PreFilter, run as the profile's first filter: a pod it fails gets
    that status on every node (what ``findNodesThatFitPod`` records), and no other
    filter is reached. Named as the plugin (Go's ``FailedPlugin``)."""

    name = NAME
    events_to_register = _EVENTS
    filters = True
    scores = False
    normalizes = False
    extension_points = frozenset({"preFilter"})
    #: ``PreFilter`` fails with ``UnschedulableAndUnresolvable``
    all_unresolvable = True
    kernels = gate_kernels
    bind_independent = True

    def prepare(self, snapshot: ClusterSnapshot, batch: PodBatch) -> tuple:
        return batch.prepared("VolumeBinding.preFilter", snapshot,
                              lambda: _gate_state(snapshot.storage, batch))  # fmt: skip

    def empty_state(self) -> tuple:
        return (np.zeros(0, np.int64), np.zeros(1, np.int64), np.zeros(0, np.uint8))

    def filter_key(self, state: tuple) -> np.ndarray:
        return state[0]

    def reasons(self, state: tuple, code: int) -> list[str]:
        return [text_at(state[1], state[2], code - 1)]


class VolumeBinding(NoArgs):
    """The VolumeBinding plugin (Filter and Score; PreFilter: :class:`PreFilterGate`)."""

    name = NAME
    events_to_register = _EVENTS
    filters = True
    scores = True
    normalizes = False
    #: its interfaces in v1.23.6 (pkg/scheduler/framework/plugins/volumebinding)
    extension_points = frozenset({"preFilter", "filter", "reserve", "preBind", "score"})
    #: the framework builder runs this PreFilter first among the filters
    pre_filter_gate = PreFilterGate
    #: every failure is UnschedulableAndUnresolvable
    all_unresolvable = True
    kernels = kernels
    #: a raw score depends on the pod and the node only
    row_independent = True
    #: nothing it reads changes when a pod is bound
    bind_independent = True

    def prepare(self, snapshot: ClusterSnapshot, batch: PodBatch) -> tuple:
        return batch.prepared(NAME, snapshot, lambda: _state(snapshot, batch))

    def empty_state(self) -> tuple:
        return (np.zeros(0, np.int32), np.zeros(0, np.int32), np.zeros((1, 1), np.int64),
                np.zeros(1, np.int64), np.zeros(0, np.uint8))  # fmt: skip

    def filter_key(self, state: tuple) -> np.ndarray:
        """Pods of one class get the same verdicts."""
        return state[1].astype(np.int64)

    def reasons(self, state: tuple, code: int) -> list[str]:
        return text_at(state[3], state[4], code - 1).split("\n")

    @staticmethod
    def constant_scores(state: tuple) -> bool:
        """Every pod scores 0 on every node."""
        return True


def unsimulated_claims(storage: Storage, pods: list[PodRecord]) -> list[PodRecord]:
    """The pods with unbound WaitForFirstConsumer claims that PreFilter passes: binding
    them (matching volumes, provisioning) is not simulated."""
    if not storage.claims:
        return []
    return [p for p in pods if p.claims and claims_to_bind(p, storage)]


def _gate_state(storage: Storage, batch: PodBatch) -> tuple:
    """:class:`PreFilterGate`'s state: each pod's PreFilter failure code, the reasons."""
    code = np.zeros(len(batch), dtype=np.int64)
    reasons: dict[str, int] = {}
    pods = batch.pods
    for i in [i for i, claims in enumerate(map(_claims, pods)) if claims]:
        reason = pre_filter(pods[i], storage)
        if reason is not None:
            code[i] = reasons.setdefault(reason, len(reasons)) + 1
    return (code, *text_table(list(reasons)))


def _state(snapshot: ClusterSnapshot, batch: PodBatch) -> tuple:
    """The plugin's state (see ``kernels``): the reference's verdict of each pod class on
    each node class."""
    storage = snapshot.storage
    pod_class, reps = _pod_classes(batch, storage)
    keys = _affinity_keys(reps, storage)
    node_class, node_labels = _node_classes(snapshot, keys)
    reasons: dict[str, int] = {}
    verdict = np.zeros((len(reps), len(node_labels)), dtype=np.int64)
    for p, pod in enumerate(reps):
        if pod is None:  # (class 0: no bound claim to check, fits everywhere)
            continue
        for c, labels in enumerate(node_labels):
            found = reference_filter(pod, labels, storage)
            if found:
                verdict[p, c] = reasons.setdefault("\n".join(found), len(reasons)) + 1
    return (node_class, pod_class, verdict, *text_table(list(reasons)))


def _pod_classes(batch: PodBatch, storage: Storage) -> tuple[np.ndarray, list[Any]]:
    """int32[B]: each pod's class (0: no claim, or PreFilter fails it; else one per
    namespace and claim names), and a pod of each class (None for class 0)."""
    ids: dict[tuple[str, tuple[str, ...]], int] = {}
    reps: list[Any] = [None]
    of_pod = np.zeros(len(batch), dtype=np.int32)
    pods = batch.pods
    for i in [i for i, claims in enumerate(map(_claims, pods)) if claims]:
        key = (pods[i].namespace, pods[i].claims)
        c = ids.get(key)
        if c is None:
            if pre_filter(pods[i], storage) is not None:  # (never filtered)
                c = ids[key] = 0
            else:
                c = ids[key] = len(reps)
                reps.append(pods[i])
        of_pod[i] = c
    return of_pod, reps


def _affinity_keys(reps: list[Any], storage: Storage) -> tuple[str, ...]:
    """The label keys the node affinity of the pods' bound volumes reads."""
    keys: set[str] = set()
    for pod in reps[1:]:
        for claim in pod_claims(pod, storage)[0]:
            volume = storage.volumes.get(claim.volume_name)
            for term in (volume.node_affinity or ()) if volume is not None else ():
                keys.update(r.key for r in term.match_expressions)
    return tuple(sorted(keys))


def _node_classes(snapshot: ClusterSnapshot, keys: tuple[str, ...]
                  ) -> tuple[np.ndarray, list[dict[str, str]]]:  # fmt: skip
    """int32[N]: each node's class (equal values of the label ``keys``, absent ones
    apart); each class's labels (those keys only)."""
    if not keys:
        return np.zeros(snapshot.n_nodes, dtype=np.int32), [{}]
    ids: dict[tuple[tuple[str, str], ...], int] = {}
    of_node = [ids.setdefault(tuple((k, labels[k]) for k in keys if k in labels), len(ids))
               for labels in snapshot.node_labels]  # fmt: skip
    return np.array(of_node, dtype=np.int32).reshape(-1), [dict(key) for key in ids] or [{}]
