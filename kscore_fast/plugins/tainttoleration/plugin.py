"""TaintToleration: Filter on NoSchedule/NoExecute taints, Score by untolerated
PreferNoSchedule taints (pkg/scheduler/framework/plugins/tainttoleration). State layout:
see ``kernels``."""

from __future__ import annotations

import numpy as np

from ...framework.cluster_events import ADD, NODE, UPDATE_NODE_TAINT, events
from ...model.objects import Taint
from ...model.snapshot import ClusterSnapshot, PodBatch
from ..helper.base import NoArgs
from ..helper.pod_fields import TOLERATIONS
from ..helper.taints import (
    NO_EXECUTE,
    NO_SCHEDULE,
    PREFER_NO_SCHEDULE,
    string_at,
    taint_columns,
)
from . import kernels
from .reference import reason

NAME = "TaintToleration"


class TaintToleration(NoArgs):
    """The TaintToleration plugin (Filter, PreScore, Score, NormalizeScore)."""

    name = NAME
    #: what ``prepare`` reads of a pod (a lone pod's state is kept by them)
    lone_fields = TOLERATIONS
    events_to_register = events((NODE, ADD | UPDATE_NODE_TAINT))
    filters = True
    scores = True
    normalizes = True
    #: its interfaces in v1.23.6 (pkg/scheduler/framework/plugins/tainttoleration)
    extension_points = frozenset({"filter", "preScore", "score"})
    #: every failure is UnschedulableAndUnresolvable
    all_unresolvable = True
    kernels = kernels
    #: a raw score depends on the pod and the node only
    row_independent = True
    #: no node aggregates: binding a pod changes nothing it reads
    bind_independent = True
    #: reads only the pod's spec: pods of one ``spec_twins`` group score alike
    spec_only = True
    #: ``DefaultNormalizeScore`` gives equal scores for equal scores, whatever the list
    constant_normalize = True

    def prepare(self, snapshot: ClusterSnapshot, batch: PodBatch) -> tuple:
        c = taint_columns(snapshot, batch)
        return (c.taint_ptr, c.taint_key, c.taint_value, c.taint_effect, c.pod_set, *c.tols,
                c.str_bytes, c.str_ptr)  # fmt: skip

    def empty_state(self) -> tuple:
        i64, i32 = np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.int32)
        return (i64, i32, i32, i32, i64[:0], i64, i32, i32, i32, i32,
                np.zeros(0, dtype=np.uint8), i64)  # fmt: skip

    def passes_all(self, state: tuple) -> bool:
        """No node has a NoSchedule or NoExecute taint (the only ones Filter reads)."""
        effect = state[3]
        return not ((effect == NO_SCHEDULE) | (effect == NO_EXECUTE)).any()

    def filter_key(self, state: tuple) -> np.ndarray:
        """The pod's toleration set."""
        return state[4].copy()

    @staticmethod
    def constant_scores(state: tuple) -> bool:
        """Every pod scores 0 on every node when no node has a PreferNoSchedule taint."""
        return not bool((state[3] == PREFER_NO_SCHEDULE).any())

    def reasons(self, state: tuple, code: int) -> list[str]:
        e = code - 1
        key, value = (string_at(state[10], state[11], int(state[col][e])) for col in (1, 2))
        return [reason(Taint(key=key, value=value))]
