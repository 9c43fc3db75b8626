"""NodeUnschedulable: nodes with ``spec.unschedulable`` take only pods tolerating
``node.kubernetes.io/unschedulable:NoSchedule``
(pkg/scheduler/framework/plugins/nodeunschedulable/node_unschedulable.go). State layout:
see ``kernels``; the toleration sets are :mod:`..helper.taints`'."""

from __future__ import annotations

import numpy as np

from ...framework.cluster_events import ADD, NODE, UPDATE_NODE_TAINT, events
from ...model.snapshot import ClusterSnapshot, PodBatch
from ..helper.base import NoArgs
from ..helper.pod_fields import TOLERATIONS
from ..helper.taints import EMPTY, NO_SCHEDULE, UNSCHEDULABLE_KEY, sets_tolerate, taint_columns
from . import kernels
from .kernels import UNSCHEDULABLE
from .reference import ERR_REASON_UNSCHEDULABLE

NAME = "NodeUnschedulable"


class NodeUnschedulable(NoArgs):
    """The NodeUnschedulable filter plugin."""

    name = NAME
    #: what ``prepare`` reads of a pod (a lone pod's state is kept by them)
    lone_fields = TOLERATIONS
    events_to_register = events((NODE, ADD | UPDATE_NODE_TAINT))
    filters = True
    scores = False
    normalizes = False
    #: its interfaces in v1.23.6 (pkg/scheduler/framework/plugins/nodeunschedulable)
    extension_points = frozenset({"filter"})
    #: every failure is UnschedulableAndUnresolvable
    all_unresolvable = True
    kernels = kernels
    #: no node aggregates: binding a pod changes nothing it reads
    bind_independent = True

    def prepare(self, snapshot: ClusterSnapshot, batch: PodBatch) -> tuple:
        cols = taint_columns(snapshot, batch)  # cached
        set_ok = sets_tolerate(cols.tols, UNSCHEDULABLE_KEY, EMPTY, NO_SCHEDULE)
        return (cols.node_unschedulable, np.ascontiguousarray(set_ok[cols.pod_set]))

    def empty_state(self) -> tuple:
        return (np.zeros(0, dtype=np.bool_), np.zeros(0, dtype=np.bool_))

    def filter_key(self, state: tuple) -> np.ndarray:
        """Pods tolerating the unschedulable taint, and the others."""
        return state[1].astype(np.int64)

    def passes_all(self, state: tuple) -> bool:
        """No node is unschedulable, or every pod of the batch tolerates it."""
        return not state[0].any() or bool(state[1].all())

    def reasons(self, state: tuple, code: int) -> list[str]:
        assert code == UNSCHEDULABLE, code
        return [ERR_REASON_UNSCHEDULABLE]
