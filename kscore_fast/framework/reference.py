"""Scalar reference port of the framework's node search and of ``FitError.Error()``.

Ported function by function from kube-scheduler v1.23.6 with ``parallelism: 1``:

* pkg/scheduler/generic_scheduler.go: ``Schedule`` (its counts), ``findNodesThatFitPod``,
  ``evaluateNominatedNode``, ``findNodesThatPassFilters``;
* pkg/scheduler/framework/parallelize/parallelism.go ``Parallelizer.Until`` and
  client-go util/workqueue/parallelizer.go ``ParallelizeUntil`` (one worker);
* pkg/scheduler/framework/types.go ``FitError.Error``.

Nodes are indices ``0..N-1`` in node-tree order (the snapshot's). The filter plugins are
one function, ``verdict(node)``: 0 when ``RunFilterPluginsWithNominatedPods`` succeeds,
else any nonzero int standing for its failure status, an ``Error`` status when
:func:`is_error` says so (the first one met cancels the search and fails the cycle; on
the nominated node it is logged and ignored). Not modelled (outside the search):
PreFilter, extenders (none), nominated pods of other pods. The ``PreferNominatedNode``
feature gate is on (its v1.23 default); with it off Go ignores the nominated node, which
is passing ``nominated=-1`` here.

This is the slow, obvious port the compiled search (:mod:`.search`) is tested against.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

#: a node's filter verdict: 0 (success) or nonzero (the failure status)
Verdict = Callable[[int], int]
#: types.go ``NoNodeAvailableMsg``
NO_NODE_AVAILABLE_MSG = "0/{} nodes are available"
#: ``numFeasibleNodesToFind(1)``: fewer than ``minFeasibleNodesToFind`` (100) nodes are
#: all searched, so the nominated node's one-node search looks for one feasible node
ONE_NODE_TO_FIND = 1
#: a verdict with this bit stands for an ``Error`` status (as the compiled search's)
ERROR_BIT = 1 << 46


def is_error(status: int) -> bool:
    """The verdict stands for a filter ``Error`` status (not ``Unschedulable``)."""
    return status != 0 and (status & ERROR_BIT) != 0


class SearchResult(NamedTuple):
    """One scheduling cycle's search: the feasible nodes in the order Go finds them, the
    ``Diagnosis.NodeToStatusMap`` (node → verdict, in insertion order), the
    ``nextStartNodeIndex`` after the cycle, and ``ScheduleResult``'s ``EvaluatedNodes``
    and ``FeasibleNodes`` (both 0 on a ``FitError`` or an error: ``Schedule`` returns no
    result); ``error``: the node whose ``Error`` status failed the cycle, or None."""

    feasible: list[int]
    diagnosis: dict[int, int]
    next_start: int
    evaluated_nodes: int
    feasible_nodes: int
    error: int | None = None


class FilterError(Exception):
    """``findNodesThatPassFilters`` returned the error of ``node``'s filter status."""

    def __init__(self, node: int) -> None:
        super().__init__(node)
        self.node = node


class _Context:
    """``context.WithCancel``: ``cancel()`` closes ``Done()``."""

    def __init__(self) -> None:
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


def parallelize_until(ctx: _Context, pieces: int, do_work_piece: Callable[[int], None]) -> None:
    """parallelism.go ``Parallelizer.Until`` → parallelizer.go ``ParallelizeUntil`` with one
    worker: the pieces
    in order (chunking does not reorder them for a single worker); before each piece the
    worker returns if ``ctx`` is done (``select`` on ``stop`` with a ``default``)."""
    for p in range(pieces):
        if ctx.cancelled:
            return
        do_work_piece(p)


@dataclass
class GenericScheduler:
    """``genericScheduler`` with its profile: ``nodeInfoSnapshot.NumNodes()``,
    ``numFeasibleNodesToFind`` of them, ``fwk.HasFilterPlugins()``, and the search state
    carried from cycle to cycle."""

    n_nodes: int
    num_to_find: int
    has_filter_plugins: bool = True
    next_start_node_index: int = 0

    def find_nodes_that_pass_filters(
        self,
        verdict: Verdict,
        diagnosis: dict[int, int],
        nodes: Sequence[int],
        num_nodes_to_find: int,
    ) -> list[int]:
        """generic_scheduler.go ``findNodesThatPassFilters``; ``num_nodes_to_find`` is
        ``g.numFeasibleNodesToFind(int32(len(nodes)))``; raises :class:`FilterError`
        after a node's ``Error`` status (``errCh.ReceiveError``)."""
        feasible_nodes = [-1] * num_nodes_to_find  # make([]*v1.Node, numNodesToFind)
        if not self.has_filter_plugins:
            length = len(nodes)
            for i in range(len(feasible_nodes)):
                feasible_nodes[i] = nodes[(self.next_start_node_index + i) % length]
            self.next_start_node_index = (self.next_start_node_index + len(feasible_nodes)) % length
            return feasible_nodes
        ctx = _Context()
        feasible_nodes_len = 0
        err: list[int] = []  # (errCh: a buffer of one, the first error kept)

        def check_node(i: int) -> None:
            nonlocal feasible_nodes_len
            node = nodes[(self.next_start_node_index + i) % len(nodes)]
            status = verdict(node)
            if is_error(status):  # errCh.SendErrorWithCancel
                if not err:
                    err.append(node)
                ctx.cancel()
                return
            if status == 0:
                feasible_nodes_len += 1  # atomic.AddInt32
                length = feasible_nodes_len
                if length > num_nodes_to_find:
                    ctx.cancel()
                    feasible_nodes_len -= 1
                else:
                    feasible_nodes[length - 1] = node
            else:
                diagnosis[node] = status  # NodeToStatusMap[name] = status

        parallelize_until(ctx, len(nodes), check_node)
        processed_nodes = feasible_nodes_len + len(diagnosis)
        self.next_start_node_index = (self.next_start_node_index + processed_nodes) % len(nodes)
        if err:
            raise FilterError(err[0])
        return feasible_nodes[:feasible_nodes_len]

    def evaluate_nominated_node(
        self, verdict: Verdict, diagnosis: dict[int, int], nominated: int
    ) -> list[int]:
        """generic_scheduler.go ``evaluateNominatedNode``: a one-node
        ``findNodesThatPassFilters`` (no extenders)."""
        return self.find_nodes_that_pass_filters(verdict, diagnosis, [nominated], ONE_NODE_TO_FIND)

    def find_nodes_that_fit_pod(
        self, verdict: Verdict, nominated: int
    ) -> tuple[list[int], dict[int, int]]:
        """generic_scheduler.go ``findNodesThatFitPod`` after a successful PreFilter: the
        nominated node first (when the pod has one), then every node."""
        diagnosis: dict[int, int] = {}
        if nominated >= 0:
            try:
                feasible = self.evaluate_nominated_node(verdict, diagnosis, nominated)
            except FilterError:  # (klog.ErrorS "Evaluation failed on nominated node")
                feasible = []
            if len(feasible) != 0:
                return feasible, diagnosis
        all_nodes = range(self.n_nodes)
        feasible = self.find_nodes_that_pass_filters(
            verdict, diagnosis, all_nodes, self.num_to_find
        )
        return feasible, diagnosis

    def schedule(self, verdict: Verdict, nominated: int) -> SearchResult:
        """generic_scheduler.go ``Schedule`` up to the choice of a host: the search and
        the result's counts (``ErrNoNodesAvailable`` when there are no nodes, before any
        search)."""
        if self.n_nodes == 0:
            raise ValueError("no nodes available to schedule pods")
        try:
            feasible, diagnosis = self.find_nodes_that_fit_pod(verdict, nominated)
        except FilterError as e:  # the cycle's error: no ScheduleResult
            return SearchResult([], {}, self.next_start_node_index, 0, 0, e.node)
        start = self.next_start_node_index
        if len(feasible) == 0:  # FitError: no ScheduleResult
            return SearchResult(feasible, diagnosis, start, 0, 0)
        if len(feasible) == 1:  # the only node is the host, nothing is scored
            return SearchResult(feasible, diagnosis, start, 1 + len(diagnosis), 1)
        evaluated = len(feasible) + len(diagnosis)
        return SearchResult(feasible, diagnosis, start, evaluated, len(feasible))


def schedule(
    verdict: Verdict,
    nominated: int,
    next_start: int,
    num_to_find: int,
    n_nodes: int,
    has_filter_plugins: bool = True,
) -> SearchResult:
    """One cycle from ``nextStartNodeIndex`` = ``next_start``: ``nominated`` is the node
    index of the pod's ``status.nominatedNodeName`` (-1: none), ``num_to_find`` is
    ``numFeasibleNodesToFind(n_nodes)``."""
    g = GenericScheduler(n_nodes, num_to_find, has_filter_plugins, next_start)
    return g.schedule(verdict, nominated)


def fit_error(num_all_nodes: int, reasons: Mapping[int, Sequence[str]]) -> str:
    """types.go ``FitError.Error()``: ``reasons`` maps each node of ``Diagnosis.NodeToStatusMap``
    to its status' ``Reasons()``; each reason is counted once per occurrence, and the
    ``"%v %v"`` (count, reason) entries are sorted as strings (``sort.Strings``: bytes of
    UTF-8, which is code-point order)."""
    histogram: dict[str, int] = {}
    for node_reasons in reasons.values():
        for reason in node_reasons:
            histogram[reason] = histogram.get(reason, 0) + 1
    reason_strings = sorted(f"{v} {k}" for k, v in histogram.items())
    return (NO_NODE_AVAILABLE_MSG + ": {}.").format(num_all_nodes, ", ".join(reason_strings))
