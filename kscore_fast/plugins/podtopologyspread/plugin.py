"""PodTopologySpread: spread constraints as a filter (DoNotSchedule) and a score
(ScheduleAnyway, and the default constraints of pods without their own).

Wiring of pkg/scheduler/framework/plugins/podtopologyspread onto the compiled plugin shape
(``framework/interface.py``); the state and its layout: ``build`` and ``kernels``.

Unlike the other score plugins, a pod's raw score on a node depends on the list of nodes
it is scored on (PreScore's topology sizes and ignored nodes come from the filtered
nodes): ``row_independent = False`` tells the framework not to share rows of raw scores
between twins scored on different node lists; only the pods without soft constraints,
which score 0 everywhere whatever the list, share one row (``score_groups``). Filter
verdicts depend only on the pod's ``filter_key`` and the node (until an ``assume``
changes the counts).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ...framework.cluster_events import ADD, ALL, DELETE, NODE, POD, UPDATE_NODE_LABEL, events
from ...framework.interface import Plugin
from ...model.snapshot import ClusterSnapshot, PodBatch, build_cluster
from ..helper.counter_table import copy_table
from ..helper.pod_fields import SPREAD
from . import kernels
from .build import build_state
from .reference import (
    ERR_REASON_CONSTRAINTS_NOT_MATCH,
    ERR_REASON_NODE_LABEL_NOT_MATCH,
    NAME,
    PodTopologySpreadReference,
)

_REASONS = {kernels.FAIL_LABEL: [ERR_REASON_NODE_LABEL_NOT_MATCH],
            kernels.FAIL_SKEW: [ERR_REASON_CONSTRAINTS_NOT_MATCH]}  # fmt: skip
#: the position of the filter classes, appended to the kernels' state
_KEYS = 4


class PodTopologySpread(Plugin):
    """The PodTopologySpread plugin (PreFilter+Filter, PreScore+Score+NormalizeScore).

    ``args``: ``PodTopologySpreadArgs`` as the camelCase mapping
    (``{"defaultConstraints": [...], "defaultingType": "List"}``; None: System defaults).
    """

    name = NAME
    #: what ``prepare`` reads of a pod (a lone pod's state is kept by them)
    lone_fields = SPREAD
    events_to_register = events((POD, ALL), (NODE, ADD | DELETE | UPDATE_NODE_LABEL))
    filters = True
    scores = True
    normalizes = True
    #: its interfaces in v1.23.6 (pkg/scheduler/framework/plugins/podtopologyspread)
    extension_points = frozenset({"preFilter", "filter", "preScore", "score"})
    kernels = kernels
    #: ``score_pod`` has scratch rows of its own (``score_pod_serial`` uses the state's)
    kernels_allocate = ("score_pod",)
    #: raw scores depend on the scored node list (see the module docstring), but for the
    #: pods without soft constraints (``score_groups``)
    row_independent = False
    #: the pods given rows (``score_groups``) have no ignored nodes: equal raw scores
    #: normalize to 100 whatever the list
    constant_normalize = True

    def __init__(self, args: Mapping[str, Any] | None = None) -> None:
        self._ref = PodTopologySpreadReference(args)

    def prepare(self, snapshot: ClusterSnapshot, batch: PodBatch) -> tuple:
        """(topo, filt, score, upd, filter classes, scratch, table): built once per (snapshot,
        batch, args) and kept on the batch, the same for every call (see
        :meth:`own_state`)."""
        key = (NAME, self._ref.default_constraints, self._ref.system_defaulted)
        cached = batch.cache.get(key)
        if cached is None or cached[0] is not snapshot:
            (topo, filt, score, upd, table), classes = build_state(self._ref, snapshot, batch)
            width = int(np.diff(score[1]).max(initial=0))
            seen = np.zeros(int(topo[1][-1]), dtype=np.bool_)
            scratch = (seen, np.zeros(width, dtype=np.int64), np.zeros(width, dtype=np.float64))
            state = (topo, filt, score, upd, classes, scratch, table)
            cached = batch.cache[key] = (snapshot, state)
        return cached[1]

    def passes_all(self, state: tuple) -> bool:
        """No pod of the batch has a DoNotSchedule constraint (its own or a default)."""
        return int(state[1][5][-1]) == 0

    def own_state(self, state: tuple) -> tuple:
        """Copies of the counters ``assume`` updates in place, and scratch rows of its own
        (``kernels.SCRATCH``)."""
        topo, filt, score, upd, classes, scratch, table = state
        filt = (*filt[:1], filt[1].copy(), filt[2], filt[3].copy(), *filt[4:11], filt[11].copy())
        score = (*score[:9], score[9].copy(), *score[10:])
        scratch = tuple(a.copy() for a in scratch)
        return topo, filt, score, upd, classes, scratch, copy_table(table)

    def empty_state(self) -> tuple:
        empty = build_cluster((), ())
        return self.prepare(empty.snapshot, empty.batch)

    @staticmethod
    def filter_ignores_pods(state: tuple) -> np.ndarray:
        """The pods without DoNotSchedule constraints (``filter_node`` checks none)."""
        return np.diff(state[1][5]) == 0

    @staticmethod
    def filter_key(state: tuple) -> np.ndarray:
        """Pods with equal DoNotSchedule constraints (PreFilter state: namespace, keys,
        selectors, node affinity; maxSkew; self-match) share a key."""
        return state[_KEYS]

    @staticmethod
    def score_groups(state: tuple) -> np.ndarray:
        """int64[B]: the pods without soft constraints score 0 on every node, whatever the
        list (one group); the others' scores depend on their node list (-1)."""
        return np.where(state[2][0] < 0, 0, -1).astype(np.int64)

    @staticmethod
    def constant_scores(state: tuple) -> np.ndarray:
        """bool[B]: the pods without soft constraints score 0 on every node."""
        return state[2][0] < 0

    @staticmethod
    def reasons(state: tuple, code: int) -> list[str]:
        """``Status.Reasons()``: code 1 UnschedulableAndUnresolvable, 2 Unschedulable."""
        return list(_REASONS[code])

    @staticmethod
    def unresolvable(state: tuple, code: int) -> bool:
        """The node lacks a constraint's topology key."""
        return code == kernels.FAIL_LABEL
