"""Scalar reference port of DefaultPreemption's PostFilter (kube-scheduler v1.23.6), run
with ``parallelism: 1``:

* pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go:
  ``PodEligibleToPreemptOthers``, ``calculateNumCandidates``,
  ``GetOffsetAndNumCandidates``, ``SelectVictimsOnNode``, ``filterPodsWithPDBViolation``;
* pkg/scheduler/framework/preemption/preemption.go: ``Evaluator.Preempt``,
  ``findCandidates``, ``nodesWherePreemptionMightHelp``, ``DryRunPreemption``,
  ``SelectCandidate``, ``pickOneNodeForPreemption``;
* pkg/scheduler/util/utils.go: ``MoreImportantPod``, ``GetPodStartTime``,
  ``GetEarliestPodStartTime``.

What the plugin asks of the scheduler goes through a :class:`Cluster` view: the pods
of a node in ``NodeInfo.Pods`` order, and ``RunFilterPluginsWithNominatedPods`` of the
preemptor on one node once given pods are removed from it (the dry run's node copy,
whose pod changes the PreFilter extensions replay). ``rand.Int31n`` for the candidates'
offset is the caller's draw.

Two readings of Go's nondeterminism, documented here and in the output:

* a pod without ``status.startTime`` has ``time.Now()`` as its start time in Go, read at
  each comparison: later than any start time the input gives (those are in the past),
  and each reading later than the one before. ``MoreImportantPod`` then says, of two
  such pods of one priority, that the one asked about first is the more important; the
  victims' order is what Go's ``sort.Slice`` makes of those answers (:mod:`..framework.
  gosort`);
* ``pickOneNodeForPreemption`` walks a Go map, in an order Go randomizes: when nodes are
  still tied after its last criterion, any of them may be picked. Every node that some
  walk would pick is the *tie set*; kscore takes the first of them in the dry run's
  candidate order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from ..framework.gosort import sort_slice
from ..model.disruption import BudgetRecord
from ..model.objects import PodRecord
from ..model.selectors import Selector, label_selector_as_selector
from ..model.times import start_ns

#: framework.Code values the plugin reads
SUCCESS, ERROR, UNSCHEDULABLE, UNSCHEDULABLE_AND_UNRESOLVABLE = 0, 1, 2, 3
MAX_INT32 = 2**31 - 1
NOT_HELPFUL = "Preemption is not helpful for scheduling"
#: the reason of a PostFilter that returned no result (``PodEligibleToPreemptOthers``
#: said no): the only outcome that leaves the pod's nomination as it was
NOT_ELIGIBLE = "not eligible to preempt"
#: the reasons of a PostFilter that nominated no node: no potential node; no candidate,
#: without and with nodes whose ``SelectVictimsOnNode`` gave an ``Error`` status (then
#: ``Preempt`` returns that ``Error``, :attr:`Preemption.error`, instead of the FitError)
NO_POTENTIAL, NO_CANDIDATE = "no node where preemption might help", "no candidate node"
DRY_RUN_ERROR = "dry run error"


@dataclass(frozen=True)
class Status:
    """A ``framework.Status``: its code and reasons."""

    code: int
    reasons: tuple[str, ...] = ()


class Cluster(Protocol):
    """What SelectVictimsOnNode and its callers read of the scheduler (for one preemptor)."""

    def node_names(self) -> Sequence[str]:
        """``NodeInfos().List()``: every node, in the snapshot's order."""

    def node_pods(self, node: int) -> Sequence[PodRecord]:
        """``nodeInfo.Pods`` of ``node``, in order."""

    def filter(self, node: int, removed: Sequence[PodRecord]) -> Status:
        """``RunFilterPluginsWithNominatedPods`` of the preemptor on ``node`` without the
        pods ``removed`` from it."""


def priority(pod: PodRecord) -> int:
    """``corev1helpers.PodPriority``: ``spec.priority``, 0 when absent."""
    return pod.priority if pod.priority is not None else 0


class _Clock:
    """``time.Now()`` readings: each later than every start time given and than the
    readings before (see the module docstring)."""

    def __init__(self) -> None:
        self.readings = 0

    def start_time(self, pod: PodRecord) -> tuple[int, int]:
        """``GetPodStartTime`` as a comparable (given times before every reading)."""
        started = start_ns(pod.start_time)
        if started is not None:
            return (0, started)
        self.readings += 1
        return (1, self.readings)


def more_important(clock: _Clock, a: PodRecord, b: PodRecord) -> bool:
    """``util.MoreImportantPod(a, b)``."""
    pa, pb = priority(a), priority(b)
    if pa != pb:
        return pa > pb
    return clock.start_time(a) < clock.start_time(b)


def earliest_start(clock: _Clock, victims: Sequence[PodRecord]) -> tuple[int, int]:
    """``util.GetEarliestPodStartTime``: of the victims of the highest priority."""
    earliest = clock.start_time(victims[0])
    top = priority(victims[0])
    for pod in victims:
        p = priority(pod)
        if p == top:
            t = clock.start_time(pod)
            if t < earliest:
                earliest = t
        elif p > top:
            top, earliest = p, clock.start_time(pod)
    return earliest


def eligible(pod: PodRecord, nominated_status: Status | None,
             cluster: Cluster) -> bool:  # fmt: skip
    """``PodEligibleToPreemptOthers``: not ``preemptionPolicy: Never``; a pod nominated
    to a node where lower-priority pods are terminating waits for them (unless that
    node is now ``UnschedulableAndUnresolvable`` for it)."""
    if pod.preemption_policy == "Never":
        return False
    if pod.nominated_node_name:
        if nominated_status is not None and nominated_status.code == UNSCHEDULABLE_AND_UNRESOLVABLE:
            return True
        names = list(cluster.node_names())
        if pod.nominated_node_name in names:
            node = names.index(pod.nominated_node_name)
            p = priority(pod)
            for other in cluster.node_pods(node):
                if other.deleting and priority(other) < p:
                    return False
    return True


def num_candidates(num_nodes: int, percentage: int, absolute: int) -> int:
    """``calculateNumCandidates``."""
    n = (num_nodes * percentage) // 100  # (int32 arithmetic: no overflow for real counts)
    if n < absolute:
        n = absolute
    if n > num_nodes:
        n = num_nodes
    return n


def counting_budgets(pod: PodRecord, budgets: Sequence[BudgetRecord],
                     selectors: Sequence[Selector]) -> list[int]:  # fmt: skip
    """The budgets ``filterPodsWithPDBViolation`` counts ``pod`` against (positions, in
    order; ``selectors``: the budgets' ``LabelSelectorAsSelector``): a pod with labels, in
    the budget's namespace, matched by its non-empty selector, not among its disrupted
    pods."""
    if not pod.labels:
        return []
    return [i for i, (b, sel) in enumerate(zip(budgets, selectors, strict=True))
            if b.namespace == pod.namespace and not sel.empty() and sel.matches(pod.labels)
            and pod.name not in b.disrupted_pods]  # fmt: skip


def pdb_violations(pods: Sequence[PodRecord], budgets: Sequence[BudgetRecord]
                   ) -> tuple[list[PodRecord], list[PodRecord]]:  # fmt: skip
    """``filterPodsWithPDBViolation``: (violating, non-violating), each in order."""
    allowed = [b.disruptions_allowed for b in budgets]
    selectors = [label_selector_as_selector(b.selector) for b in budgets]
    violating, fine = [], []
    for pod in pods:
        violated = False
        for i in counting_budgets(pod, budgets, selectors):
            allowed[i] -= 1
            if allowed[i] < 0:
                violated = True
        (violating if violated else fine).append(pod)
    return violating, fine


@dataclass
class Victims:
    """A candidate: ``extenderv1.Victims`` on a node."""

    node: int
    pods: list[PodRecord]
    pdb_violations: int


def select_victims_on_node(pod: PodRecord, node: int, cluster: Cluster,
                           budgets: Sequence[BudgetRecord], clock: _Clock,
                           node_name: str) -> tuple[Victims | None, Status]:  # fmt: skip
    """``SelectVictimsOnNode``: every lower-priority pod removed, the preemptor must fit;
    then the pods are reprieved one by one (PDB-violating ones first, each group by
    importance) while it still fits."""
    p = priority(pod)
    potential = [other for other in cluster.node_pods(node) if priority(other) < p]
    if not potential:
        return None, Status(UNSCHEDULABLE_AND_UNRESOLVABLE,
                            (f"No victims found on node {node_name} for preemptor pod "
                             f"{pod.name}",))  # fmt: skip
    removed = list(potential)
    status = cluster.filter(node, removed)
    if status.code != SUCCESS:
        return None, status
    sort_slice(potential, lambda a, b: more_important(clock, a, b))
    violating, fine = pdb_violations(potential, budgets)
    victims: list[PodRecord] = []
    n_violating = 0
    for group, counts in ((violating, True), (fine, False)):
        for other in group:
            removed.remove(other)  # addPod: back on the node
            if cluster.filter(node, removed).code != SUCCESS:
                removed.append(other)  # removePod: a victim
                victims.append(other)
                n_violating += counts
    return Victims(node, victims, n_violating), Status(SUCCESS)


@dataclass
class Preemption:
    """What ``Preempt`` decided: the nominated node (-1 none) and its victims, the tie set
    of ``pickOneNodeForPreemption``, every candidate, the dry run's node statuses, and
    whether ``rand.Int31n`` was drawn (the caller's ``draw`` was called)."""

    node: int = -1
    victims: list[PodRecord] = field(default_factory=list)
    pdb_violations: int = 0
    ties: list[int] = field(default_factory=list)
    candidates: list[Victims] = field(default_factory=list)
    statuses: dict[int, Status] = field(default_factory=dict)
    drew: bool = False
    #: why no node was nominated ("" when one was)
    reason: str = ""
    #: the message of the ``Error`` status ``Preempt`` returned ("" when it returned
    #: none): the dry runs found no candidate and some node's status was an ``Error``
    error: str = ""


DryRun = Callable[
    [PodRecord, list[int], int, int, Cluster, Sequence[BudgetRecord]],
    tuple[list[Victims], list[Victims], dict[int, Status]],
]


def dry_run_preemption(pod: PodRecord, potential: list[int], offset: int, wanted: int,
                       cluster: Cluster, budgets: Sequence[BudgetRecord]
                       ) -> tuple[list[Victims], list[Victims], dict[int, Status]]:  # fmt: skip
    """``DryRunPreemption`` with one worker: ``SelectVictimsOnNode`` on the potential
    nodes from ``offset`` on, until ``wanted`` candidates with one at least free of PDB
    violations. (candidates free of violations, those with, the failed nodes' statuses),
    each list capped at ``wanted`` as Go's ``candidateList``."""
    names = list(cluster.node_names())
    clean: list[Victims] = []
    violating: list[Victims] = []
    statuses: dict[int, Status] = {}
    clock = _Clock()
    for i in range(len(potential)):  # ParallelizeUntil with one worker, cancelled early
        node = potential[(offset + i) % len(potential)]
        victims, status = select_victims_on_node(pod, node, cluster, budgets, clock,
                                                 names[node])  # fmt: skip
        if victims is not None and victims.pods:
            group = clean if victims.pdb_violations == 0 else violating
            if len(group) < wanted:
                group.append(victims)
            if clean and len(clean) + len(violating) >= wanted:
                break
            continue
        if victims is not None:  # (success with no victims: Go's internal error)
            status = Status(ERROR, (f'expected at least one victim pod on node "{names[node]}"',))
        statuses[node] = status
    return clean, violating, statuses


def preempt(pod: PodRecord, statuses: dict[int, Status], cluster: Cluster,
            budgets: Sequence[BudgetRecord], draw: Callable[[int], int],
            percentage: int = 10, absolute: int = 100,
            dry_run: DryRun | None = None) -> Preemption:  # fmt: skip
    """``Evaluator.Preempt`` of ``pod`` after its FitError (``statuses``: the diagnosis,
    node → status, for the nodes the filters rejected). ``draw(n)`` is
    ``rand.Int31n(n)``; ``dry_run``: the walk over the candidates (default: the scalar
    :func:`dry_run_preemption`). Nothing is applied: the victims are the caller's to
    delete."""
    names = list(cluster.node_names())
    nominated = None
    if pod.nominated_node_name in names:
        nominated = statuses.get(names.index(pod.nominated_node_name))
    if not eligible(pod, nominated, cluster):
        return Preemption(reason=NOT_ELIGIBLE)
    out = Preemption()
    potential = []
    for node in range(len(names)):
        status = statuses.get(node)
        if status is not None and status.code == UNSCHEDULABLE_AND_UNRESOLVABLE:
            out.statuses[node] = Status(UNSCHEDULABLE_AND_UNRESOLVABLE, (NOT_HELPFUL,))
            continue
        potential.append(node)
    if not potential:
        out.reason = NO_POTENTIAL
        return out
    out.drew = True
    offset = draw(len(potential))
    wanted = num_candidates(len(potential), percentage, absolute)
    walk = dry_run or dry_run_preemption
    clean, violating, statuses = walk(pod, potential, offset, wanted, cluster, budgets)
    out.statuses.update(statuses)
    out.candidates = clean + violating
    if not out.candidates:
        no_candidate(out, statuses.values())
        return out
    ties = pick_ties(out.candidates, _Clock())
    best = next(c for c in out.candidates if c.node in ties)
    out.node, out.victims, out.pdb_violations = best.node, best.pods, best.pdb_violations
    out.ties = [c.node for c in out.candidates if c.node in ties]
    return out


def no_candidate(out: Preemption, walked: Iterable[Status]) -> None:
    """``Preempt`` when ``DryRunPreemption`` found no candidate, given the statuses of the
    nodes it walked in its order (one worker): see :func:`no_candidate_outcome`."""
    out.reason, out.error = no_candidate_outcome(walked)


def no_candidate_outcome(walked: Iterable[Status]) -> tuple[str, str]:
    """The reason and error of a PostFilter whose dry runs found no candidate (the
    statuses of the nodes walked, in order): ``findCandidates``' error (the ``Error``
    statuses' aggregate) is returned as an ``Error`` status when there is one, else the
    FitError (an ``Unschedulable`` status, no error)."""
    errors = [", ".join(s.reasons) for s in walked if s.code == ERROR]
    return (DRY_RUN_ERROR if errors else NO_CANDIDATE), aggregate_error(errors)


def aggregate_error(messages: Sequence[str]) -> str:
    """``utilerrors.NewAggregate(errs).Error()`` of errors with these messages: one is
    itself, several are their distinct messages in order, joined by ``, `` in brackets
    (k8s.io/apimachinery/pkg/util/errors/errors.go, ``aggregate.Error``)."""
    if len(messages) <= 1:
        return "".join(messages)
    seen = list(dict.fromkeys(messages))
    return seen[0] if len(seen) == 1 else "[" + ", ".join(seen) + "]"


def pick_ties(candidates: Sequence[Victims], clock: _Clock) -> set[int]:
    """``SelectCandidate`` → ``pickOneNodeForPreemption``: the nodes some walk of Go's map
    would return (one candidate: itself)."""
    if len(candidates) == 1:
        return {candidates[0].node}
    # the criteria in order: PDB violations, the first victim's priority, the sum of the
    # victims' priorities (each + MaxInt32 + 1), the number of victims
    keys = {v.node: (v.pdb_violations, priority(v.pods[0]),
                     sum(priority(p) for p in v.pods) + len(v.pods) * (MAX_INT32 + 1),
                     len(v.pods)) for v in candidates}  # fmt: skip
    left = list(candidates)
    for step in range(4):
        low = min(keys[v.node][step] for v in left)
        left = [v for v in left if keys[v.node][step] == low]
        if len(left) == 1:
            return {left[0].node}
    # the latest earliest start: "now" readings (pods without a start time) grow along
    # the walk, so the last such node walked wins, and any of them can be last
    starts = {v.node: earliest_start(clock, v.pods) for v in left}
    now = [node for node, t in starts.items() if t[0] == 1]
    if now:
        return set(now)
    latest = max(starts.values())
    return {node for node, t in starts.items() if t == latest}
