"""Scalar reference port of PodTopologySpread, function by function from the Go source.

Mirrors, at kube-scheduler v1.23.6 (pkg/scheduler/framework/plugins/podtopologyspread):

* common.go: ``buildDefaultConstraints``, ``nodeLabelsMatchSpreadConstraints``,
  ``filterTopologySpreadConstraints``, ``countPodsMatchSelector``;
* filtering.go: ``criticalPaths.update``, ``calPreFilterState`` (PreFilter), ``Filter``;
* scoring.go: ``initPreScoreState``, ``PreScore``, ``Score``, ``NormalizeScore``,
  ``topologyNormalizingWeight`` (Go's ``math.Log``: :mod:`.golog`), ``scoreForCount``;
* plugin.go: ``New`` (``systemDefaultConstraints``, ``args.py``);
* helper/spread.go ``DefaultSelector`` (SelectorSpread's reference port) and
  component-helpers nodeaffinity ``GetRequiredNodeAffinity`` (NodeAffinity's).

Go quirks kept: constraints sharing a topology key share one counter per (key, value)
pair (both in PreFilter and PreScore: their selectors' counts add up, and only the first
of them counts the pair in ``topoSize``); a node lacking a key counts towards the pair
(key, "") when that pair exists; ``criticalPaths[0]`` holds the minimum whatever the map
order. It walks records (``snapshot.pods``, ``node_labels``), not columns, and is the
specification the kernels are tested against.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ...goarith import MAX_NODE_SCORE, go_div, go_int64
from ...model.objects import PodRecord, TopologySpreadConstraint
from ...model.selectors import LabelSelector, Selector, label_selector_as_selector
from ...model.snapshot import ClusterSnapshot
from ..nodeaffinity.reference import get_required_node_affinity, required_match
from ..selectorspread.reference import default_selector
from .args import DO_NOT_SCHEDULE, LABEL_HOSTNAME, SCHEDULE_ANYWAY, spread_args
from .golog import topology_normalizing_weight

NAME = "PodTopologySpread"
#: plugin.go ``ErrReasonConstraintsNotMatch`` / ``ErrReasonNodeLabelNotMatch``
ERR_REASON_CONSTRAINTS_NOT_MATCH = "node(s) didn't match pod topology spread constraints"
ERR_REASON_NODE_LABEL_NOT_MATCH = ERR_REASON_CONSTRAINTS_NOT_MATCH + " (missing required label)"
#: framework.Code of the two failures
UNSCHEDULABLE, UNSCHEDULABLE_AND_UNRESOLVABLE = 2, 3
MAX_INT32 = 2**31 - 1
#: scoring.go ``invalidScore``
INVALID_SCORE = -1


@dataclass(frozen=True)
class Constraint:
    """common.go ``topologySpreadConstraint``."""

    max_skew: int
    topology_key: str
    selector: Selector


def filter_topology_spread_constraints(
    constraints: Sequence[TopologySpreadConstraint],
    action: str,
    as_selector: Callable[[LabelSelector | None], Selector] = label_selector_as_selector,
) -> list[Constraint]:
    """``filterTopologySpreadConstraints`` (selectors validated by the loader;
    ``as_selector``: ``metav1.LabelSelectorAsSelector``, or a memo of it)."""
    return [
        Constraint(c.max_skew, c.topology_key, as_selector(c.label_selector))
        for c in constraints
        if c.when_unsatisfiable == action
    ]


def node_labels_match_spread_constraints(labels: Mapping[str, str],
                                         constraints: Sequence[Constraint]) -> bool:  # fmt: skip
    """``nodeLabelsMatchSpreadConstraints``: every topology key is present."""
    return all(c.topology_key in labels for c in constraints)


def count_pods_match_selector(pods: Sequence[PodRecord], selector: Selector, ns: str) -> int:
    """``countPodsMatchSelector``: terminating pods and other namespaces are skipped."""
    return sum(
        1 for p in pods if not p.deleting and p.namespace == ns and selector.matches(p.labels)
    )


def _node_pods(snapshot: ClusterSnapshot) -> list[list[PodRecord]]:
    out: list[list[PodRecord]] = [[] for _ in range(snapshot.n_nodes)]
    for p, n in zip(snapshot.pods, snapshot.pod_node.tolist(), strict=True):
        out[n].append(p)
    return out


def update_critical_paths(paths: list[list[Any]], value: str, num: int) -> None:
    """filtering.go ``criticalPaths.update`` (``paths``: two [value, matchNum] lists)."""
    i = 0 if value == paths[0][0] else 1 if value == paths[1][0] else -1
    if i >= 0:
        paths[i][1] = num
        if paths[0][1] > paths[1][1]:
            paths[0], paths[1] = paths[1], paths[0]
    elif num < paths[0][1]:
        paths[1] = paths[0]
        paths[0] = [value, num]
    elif num < paths[1][1]:
        paths[1] = [value, num]


@dataclass
class PreFilterState:
    """filtering.go ``preFilterState`` (paths per key; pair counts)."""

    constraints: list[Constraint] = field(default_factory=list)
    critical_paths: dict[str, list[list[Any]]] = field(default_factory=dict)
    pair_counts: dict[tuple[str, str], int] = field(default_factory=dict)


@dataclass
class PreScoreState:
    """scoring.go ``preScoreState``."""

    constraints: list[Constraint] = field(default_factory=list)
    ignored_nodes: set[str] = field(default_factory=set)
    pair_counts: dict[tuple[str, str], int] = field(default_factory=dict)
    weights: list[float] = field(default_factory=list)


class PodTopologySpreadReference:
    """The plugin (``New`` with its args: the camelCase mapping, None for the defaults)."""

    def __init__(self, args: Mapping[str, Any] | None = None) -> None:
        self.default_constraints, self.system_defaulted = spread_args(args)

    def build_default_constraints(self, snapshot: ClusterSnapshot, pod: PodRecord,
                                  action: str) -> list[Constraint]:  # fmt: skip
        """``buildDefaultConstraints``."""
        constraints = filter_topology_spread_constraints(self.default_constraints, action)
        if not constraints:
            return []
        selector = default_selector(snapshot, pod)
        if selector.empty():
            return []
        return [replace(c, selector=selector) for c in constraints]

    def constraints(self, snapshot: ClusterSnapshot, pod: PodRecord, action: str
                    ) -> list[Constraint]:  # fmt: skip
        """The pod's own constraints of ``action``, or the defaults when it has none."""
        if pod.topology_spread_constraints:
            return filter_topology_spread_constraints(pod.topology_spread_constraints, action)
        return self.build_default_constraints(snapshot, pod, action)

    # -- PreFilter / Filter ---------------------------------------------------------------

    def pre_filter(self, snapshot: ClusterSnapshot, pod: PodRecord) -> PreFilterState:
        """``calPreFilterState``."""
        constraints = self.constraints(snapshot, pod, DO_NOT_SCHEDULE)
        if not constraints:
            return PreFilterState()
        s = PreFilterState(constraints)
        rna = get_required_node_affinity(pod)
        for node, labels in zip(snapshot.nodes, snapshot.node_labels, strict=True):
            if not required_match(rna, node):
                continue
            if not node_labels_match_spread_constraints(labels, constraints):
                continue
            for c in constraints:
                s.pair_counts[(c.topology_key, labels[c.topology_key])] = 0
        for labels, pods in zip(snapshot.node_labels, _node_pods(snapshot), strict=True):
            for c in constraints:
                pair = (c.topology_key, labels.get(c.topology_key, ""))
                if pair not in s.pair_counts:
                    continue
                s.pair_counts[pair] += count_pods_match_selector(pods, c.selector, pod.namespace)
        for c in constraints:
            s.critical_paths[c.topology_key] = [["", MAX_INT32], ["", MAX_INT32]]
        for (key, value), num in s.pair_counts.items():
            update_critical_paths(s.critical_paths[key], value, num)
        return s

    @staticmethod
    def filter(s: PreFilterState, pod: PodRecord, labels: Mapping[str, str]
               ) -> tuple[int, str] | None:  # fmt: skip
        """``Filter`` on a node's labels: None, or (framework code, reason)."""
        for c in s.constraints:
            if c.topology_key not in labels:
                return UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_NODE_LABEL_NOT_MATCH
            self_match = 1 if c.selector.matches(pod.labels) else 0
            min_match = s.critical_paths[c.topology_key][0][1]
            match = s.pair_counts.get((c.topology_key, labels[c.topology_key]), 0)
            if match + self_match - min_match > c.max_skew:
                return UNSCHEDULABLE, ERR_REASON_CONSTRAINTS_NOT_MATCH
        return None

    def filter_pod(self, snapshot: ClusterSnapshot, pod: PodRecord) -> list[tuple[int, str] | None]:
        """PreFilter, then Filter on every node (node-tree order)."""
        s = self.pre_filter(snapshot, pod)
        return [self.filter(s, pod, labels) for labels in snapshot.node_labels]

    # -- PreScore / Score / NormalizeScore ------------------------------------------------

    def pre_score(self, snapshot: ClusterSnapshot, pod: PodRecord, filtered: Sequence[int]
                  ) -> PreScoreState | None:  # fmt: skip
        """``PreScore`` (with ``initPreScoreState``) over the filtered node indices."""
        if not filtered or snapshot.n_nodes == 0:
            return None
        require_all = bool(pod.topology_spread_constraints) or not self.system_defaulted
        s = PreScoreState(self.constraints(snapshot, pod, SCHEDULE_ANYWAY))
        if not s.constraints:
            return s
        topo_size = [0] * len(s.constraints)
        for n in filtered:
            labels = snapshot.node_labels[n]
            if require_all and not node_labels_match_spread_constraints(labels, s.constraints):
                s.ignored_nodes.add(snapshot.node_names[n])
                continue
            for i, c in enumerate(s.constraints):
                if c.topology_key == LABEL_HOSTNAME:
                    continue
                pair = (c.topology_key, labels.get(c.topology_key, ""))
                if pair not in s.pair_counts:
                    s.pair_counts[pair] = 0
                    topo_size[i] += 1
        for i, c in enumerate(s.constraints):
            size = topo_size[i]
            if c.topology_key == LABEL_HOSTNAME:
                size = len(filtered) - len(s.ignored_nodes)
            s.weights.append(topology_normalizing_weight(size))
        rna = get_required_node_affinity(pod)
        node_pods = _node_pods(snapshot)
        for n, labels in enumerate(snapshot.node_labels):
            if not required_match(rna, snapshot.nodes[n]) or (
                require_all and not node_labels_match_spread_constraints(labels, s.constraints)
            ):
                continue
            for c in s.constraints:
                pair = (c.topology_key, labels.get(c.topology_key, ""))
                if pair in s.pair_counts:
                    s.pair_counts[pair] += count_pods_match_selector(
                        node_pods[n], c.selector, pod.namespace
                    )
        return s

    @staticmethod
    def score(snapshot: ClusterSnapshot, s: PreScoreState, pod: PodRecord, n: int) -> int:
        """``Score`` of node index ``n``."""
        if snapshot.node_names[n] in s.ignored_nodes:
            return 0
        labels = snapshot.node_labels[n]
        score = 0.0
        for i, c in enumerate(s.constraints):
            if c.topology_key in labels:
                if c.topology_key == LABEL_HOSTNAME:
                    pods = [p for p, m in zip(snapshot.pods, snapshot.pod_node, strict=True)
                            if m == n]  # fmt: skip
                    cnt = count_pods_match_selector(pods, c.selector, pod.namespace)
                else:
                    cnt = s.pair_counts[(c.topology_key, labels[c.topology_key])]
                score += score_for_count(cnt, c.max_skew, s.weights[i])
        return go_int64(score)

    @staticmethod
    def normalize(s: PreScoreState, names: Sequence[str], scores: Sequence[int]) -> list[int]:
        """``NormalizeScore`` over the scored nodes (``names[i]`` scored ``scores[i]``)."""
        out = list(scores)
        min_score, max_score = 2**63 - 1, 0
        for i, score in enumerate(out):
            if names[i] in s.ignored_nodes:
                out[i] = INVALID_SCORE
                continue
            min_score = min(min_score, score)
            max_score = max(max_score, score)
        for i, score in enumerate(out):
            if score == INVALID_SCORE:
                out[i] = 0
            elif max_score == 0:
                out[i] = MAX_NODE_SCORE
            else:
                out[i] = go_div(MAX_NODE_SCORE * (max_score + min_score - score), max_score)
        return out

    def score_pod(self, snapshot: ClusterSnapshot, pod: PodRecord, nodes: Sequence[int]
                  ) -> tuple[list[int], list[int]]:  # fmt: skip
        """Raw and normalized scores of ``pod`` on the filtered ``nodes`` (node indices)."""
        s = self.pre_score(snapshot, pod, nodes)
        assert s is not None, "no nodes to score"
        raw = [self.score(snapshot, s, pod, n) for n in nodes]
        return raw, self.normalize(s, [snapshot.node_names[n] for n in nodes], raw)


def score_for_count(cnt: int, max_skew: int, weight: float) -> float:
    """scoring.go ``scoreForCount``: ``float64(cnt)*tpWeight + float64(maxSkew-1)``."""
    return float(cnt) * weight + float(max_skew - 1)
