"""NodeName: a pod naming a node in ``spec.nodeName`` fits that node only
(pkg/scheduler/framework/plugins/nodename/node_name.go). State layout: see ``kernels``.

Pending pods have no ``spec.nodeName`` (build_cluster binds those that do), so in a batch
every pod passes; the comparison is kept for any pod the plugin is given."""

from __future__ import annotations

import numpy as np

from ...framework.cluster_events import ADD, NODE, events
from ...model.snapshot import ClusterSnapshot, PodBatch
from ..helper.base import NoArgs
from . import kernels
from .kernels import ANY_NODE, MISMATCH, NO_NODE
from .reference import ERR_REASON

NAME = "NodeName"


class NodeName(NoArgs):
    """The NodeName filter plugin."""

    name = NAME
    #: what ``prepare`` reads of a pod (a lone pod's state is kept by them)
    lone_fields = ("node_name",)
    events_to_register = events((NODE, ADD))
    filters = True
    scores = False
    normalizes = False
    #: its interfaces in v1.23.6 (pkg/scheduler/framework/plugins/nodename)
    extension_points = frozenset({"filter"})
    #: every failure is UnschedulableAndUnresolvable
    all_unresolvable = True
    kernels = kernels
    #: no node aggregates: binding a pod changes nothing it reads
    bind_independent = True

    def prepare(self, snapshot: ClusterSnapshot, batch: PodBatch) -> tuple:
        return batch.prepared(NAME, snapshot, lambda: _state(snapshot, batch))

    def empty_state(self) -> tuple:
        return (np.zeros(0, dtype=np.int64),)

    def filter_key(self, state: tuple) -> np.ndarray:
        """The node a pod names (or none)."""
        return state[0].copy()

    def passes_all(self, state: tuple) -> bool:
        """No pod of the batch names a node."""
        return bool((state[0] == ANY_NODE).all())

    def reasons(self, state: tuple, code: int) -> list[str]:
        assert code == MISMATCH, code
        return [ERR_REASON]


def _state(snapshot: ClusterSnapshot, batch: PodBatch) -> tuple:
    """Each pending pod's ``spec.nodeName`` as a node index (``ANY_NODE``: none given,
    ``NO_NODE``: a node the snapshot lacks)."""
    index = snapshot.node_index
    target = np.fromiter(
        (index.get(p.node_name, NO_NODE) if p.node_name else ANY_NODE for p in batch.pods),
        dtype=np.int64,
        count=len(batch.pods),
    )
    return (target,)
