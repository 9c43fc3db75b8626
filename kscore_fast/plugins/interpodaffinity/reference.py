"""Scalar reference port of InterPodAffinity, function by function from the Go source.

Mirrors, at kube-scheduler v1.23.6 (feature gate ``PodAffinityNamespaceSelector`` on by
default, off with ``enable_namespace_selector=False`` as in some upstream tests):

* pkg/scheduler/framework/types.go: ``PodInfo.Update`` (``getAffinityTerms``,
  ``getWeightedAffinityTerms``, ``newAffinityTerm``, ``getNamespacesFromPodAffinityTerm``),
  ``AffinityTerm.Matches``, ``NodeInfo`` ``PodsWithAffinity`` /
  ``PodsWithRequiredAntiAffinity`` (``podWithAffinity``, ``podWithRequiredAntiAffinity``);
* pkg/scheduler/framework/plugins/interpodaffinity/plugin.go:
  ``mergeAffinityTermNamespacesIfNotEmpty``, ``GetNamespaceLabelsSnapshot``;
* .../interpodaffinity/filtering.go: ``PreFilter``, ``getExistingAntiAffinityCounts``,
  ``getIncomingAffinityAntiAffinityCounts``, ``topologyToMatchedTermCount`` (``update``,
  ``updateWithAffinityTerms``, ``updateWithAntiAffinityTerms``),
  ``podMatchesAllAffinityTerms``, ``preFilterState.updateWithPod`` (``AddPod``),
  ``satisfyPodAffinity``, ``satisfyPodAntiAffinity``, ``satisfyExistingPodsAntiAffinity``,
  ``Filter``;
* .../interpodaffinity/scoring.go: ``PreScore``, ``processExistingPod``, ``scoreMap``
  (``processTerm``, ``processTerms``), ``Score``, ``NormalizeScore``.

It walks records (``NodeRecord``, ``PodRecord``), not columns, and is the specification
the kernels are tested against. Go maps become dicts; "parallelizer" merges are sums, so
their order does not matter. Label selectors were validated by the loader, so
``PodInfo.ParseError`` never happens here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ...goarith import MAX_NODE_SCORE, go_int64
from ...model.objects import NodeRecord, PodAffinity, PodAffinityTerm, PodRecord
from ...model.selectors import Selector, label_selector_as_selector
from ...model.snapshot import ClusterSnapshot

NAME = "InterPodAffinity"
#: filtering.go ``ErrReasonExistingAntiAffinityRulesNotMatch``
ERR_REASON_EXISTING_ANTI_AFFINITY = "node(s) didn't satisfy existing pods anti-affinity rules"
#: filtering.go ``ErrReasonAffinityRulesNotMatch`` (UnschedulableAndUnresolvable)
ERR_REASON_AFFINITY = "node(s) didn't match pod affinity rules"
#: filtering.go ``ErrReasonAntiAffinityRulesNotMatch``
ERR_REASON_ANTI_AFFINITY = "node(s) didn't match pod anti-affinity rules"
#: v1.DefaultHardPodAffinitySymmetricWeight (InterPodAffinityArgs default)
DEFAULT_HARD_POD_AFFINITY_WEIGHT = 1

_INT64_MAX = 2**63 - 1


# -- framework/types.go ------------------------------------------------------------------


@dataclass
class AffinityTerm:
    """``framework.AffinityTerm``."""

    namespaces: set[str]
    selector: Selector
    topology_key: str
    namespace_selector: Selector

    def matches(self, pod: PodRecord, ns_labels: Mapping[str, str] | None,
                ns_selector_enabled: bool) -> bool:  # fmt: skip
        """``AffinityTerm.Matches`` (``nsLabels`` nil matches as an empty set)."""
        if pod.namespace in self.namespaces or (
            ns_selector_enabled and self.namespace_selector.matches(ns_labels or {})
        ):
            return self.selector.matches(pod.labels)
        return False


@dataclass
class WeightedAffinityTerm:
    term: AffinityTerm
    weight: int


def get_namespaces_from_pod_affinity_term(pod: PodRecord, term: PodAffinityTerm) -> set[str]:
    """``getNamespacesFromPodAffinityTerm``."""
    return term_namespaces(pod.namespace, term)


def term_namespaces(pod_namespace: str, term: PodAffinityTerm) -> set[str]:
    """``getNamespacesFromPodAffinityTerm`` for a pod of namespace ``pod_namespace``: that
    namespace when both ``namespaces`` and ``namespaceSelector`` are empty."""
    if len(term.namespaces) == 0 and term.namespace_selector is None:
        return {pod_namespace}
    return set(term.namespaces)


def new_affinity_term(pod: PodRecord, term: PodAffinityTerm) -> AffinityTerm:
    """``newAffinityTerm``."""
    return AffinityTerm(
        namespaces=get_namespaces_from_pod_affinity_term(pod, term),
        selector=label_selector_as_selector(term.label_selector),
        topology_key=term.topology_key,
        namespace_selector=label_selector_as_selector(term.namespace_selector),
    )


@dataclass
class PodInfo:
    """``framework.PodInfo`` (``NewPodInfo``)."""

    pod: PodRecord
    required_affinity_terms: list[AffinityTerm] = field(default_factory=list)
    required_anti_affinity_terms: list[AffinityTerm] = field(default_factory=list)
    preferred_affinity_terms: list[WeightedAffinityTerm] = field(default_factory=list)
    preferred_anti_affinity_terms: list[WeightedAffinityTerm] = field(default_factory=list)

    @staticmethod
    def new(pod: PodRecord) -> PodInfo:
        def required(a: PodAffinity | None) -> list[AffinityTerm]:
            return [new_affinity_term(pod, t) for t in (a.required if a else ())]

        def preferred(a: PodAffinity | None) -> list[WeightedAffinityTerm]:
            return [WeightedAffinityTerm(new_affinity_term(pod, w.term), w.weight)
                    for w in (a.preferred if a else ())]  # fmt: skip

        return PodInfo(
            pod,
            required(pod.pod_affinity),
            required(pod.pod_anti_affinity),
            preferred(pod.pod_affinity),
            preferred(pod.pod_anti_affinity),
        )


def pod_with_affinity(pod: PodRecord) -> bool:
    """``podWithAffinity``: ``spec.affinity.podAffinity`` or ``podAntiAffinity`` set."""
    return pod.pod_affinity is not None or pod.pod_anti_affinity is not None


def pod_with_required_anti_affinity(pod: PodRecord) -> bool:
    """``podWithRequiredAntiAffinity``."""
    return pod.pod_anti_affinity is not None and len(pod.pod_anti_affinity.required) != 0


@dataclass
class NodeInfo:
    """The parts of ``framework.NodeInfo`` the plugin reads."""

    node: NodeRecord
    pods: list[PodInfo] = field(default_factory=list)

    @property
    def pods_with_affinity(self) -> list[PodInfo]:
        return [p for p in self.pods if pod_with_affinity(p.pod)]

    @property
    def pods_with_required_anti_affinity(self) -> list[PodInfo]:
        return [p for p in self.pods if pod_with_required_anti_affinity(p.pod)]


# -- filtering.go ------------------------------------------------------------------------

TopologyPair = tuple[str, str]


class TopologyToMatchedTermCount(dict[TopologyPair, int]):
    """``topologyToMatchedTermCount``."""

    def append(self, other: Mapping[TopologyPair, int]) -> None:
        for pair, n in other.items():
            self[pair] = self.get(pair, 0) + n

    def update_node(self, node: NodeRecord, tk: str, value: int) -> None:
        """``update``: entries that reach zero are deleted."""
        if tk in node.labels:
            pair = (tk, node.labels[tk])
            self[pair] = self.get(pair, 0) + value
            if self[pair] == 0:
                del self[pair]

    def update_with_affinity_terms(
        self, terms: Sequence[AffinityTerm], pod: PodRecord, node: NodeRecord, value: int,
        enabled: bool,
    ) -> None:  # fmt: skip
        if pod_matches_all_affinity_terms(terms, pod, enabled):
            for t in terms:
                self.update_node(node, t.topology_key, value)

    def update_with_anti_affinity_terms(self, terms: Sequence[AffinityTerm], pod: PodRecord,
                                        ns_labels: Mapping[str, str] | None, node: NodeRecord,
                                        value: int, enabled: bool) -> None:  # fmt: skip
        for t in terms:
            if t.matches(pod, ns_labels, enabled):
                self.update_node(node, t.topology_key, value)


def pod_matches_all_affinity_terms(terms: Sequence[AffinityTerm], pod: PodRecord,
                                   enabled: bool) -> bool:  # fmt: skip
    """``podMatchesAllAffinityTerms`` (no terms: false)."""
    if len(terms) == 0:
        return False
    return all(t.matches(pod, None, enabled) for t in terms)


@dataclass
class PreFilterState:
    """``preFilterState``."""

    existing_anti_affinity_counts: TopologyToMatchedTermCount
    affinity_counts: TopologyToMatchedTermCount
    anti_affinity_counts: TopologyToMatchedTermCount
    pod_info: PodInfo
    namespace_labels: dict[str, str] | None
    enable_namespace_selector: bool

    def update_with_pod(self, p_info: PodInfo, node: NodeRecord, multiplier: int) -> None:
        """``updateWithPod`` (``AddPod`` with 1, ``RemovePod`` with -1)."""
        en = self.enable_namespace_selector
        self.existing_anti_affinity_counts.update_with_anti_affinity_terms(
            p_info.required_anti_affinity_terms, self.pod_info.pod, self.namespace_labels,
            node, multiplier, en,
        )  # fmt: skip
        self.affinity_counts.update_with_affinity_terms(
            self.pod_info.required_affinity_terms, p_info.pod, node, multiplier, en
        )
        self.anti_affinity_counts.update_with_anti_affinity_terms(
            self.pod_info.required_anti_affinity_terms, p_info.pod, None, node, multiplier, en
        )


@dataclass
class PreScoreState:
    """``preScoreState``: ``topology_score[key][value]``."""

    topology_score: dict[str, dict[str, int]]
    pod_info: PodInfo
    namespace_labels: dict[str, str] | None


class InterPodAffinityReference:
    """The plugin over a list of node infos (a scheduler snapshot).

    ``nodes[i]`` holds node ``i`` and the pods bound to it; ``namespace_labels`` are the
    namespace lister's objects (name → labels).
    """

    def __init__(
        self,
        nodes: Sequence[NodeInfo],
        namespace_labels: Mapping[str, Mapping[str, str]],
        hard_pod_affinity_weight: int = DEFAULT_HARD_POD_AFFINITY_WEIGHT,
        enable_namespace_selector: bool = True,
    ) -> None:
        self.nodes = list(nodes)
        self.namespace_labels = namespace_labels
        self.hard_pod_affinity_weight = hard_pod_affinity_weight
        self.enabled = enable_namespace_selector

    @staticmethod
    def from_snapshot(snapshot: ClusterSnapshot, **kwargs: object) -> InterPodAffinityReference:
        infos = [NodeInfo(n) for n in snapshot.nodes]
        for pod, n in zip(snapshot.pods, snapshot.pod_node.tolist(), strict=True):
            infos[n].pods.append(PodInfo.new(pod))
        return InterPodAffinityReference(infos, snapshot.namespace_labels, **kwargs)  # type: ignore[arg-type]

    def add_pod(self, node: int, pod: PodRecord) -> None:
        """The scheduler cache's ``AssumePod``: ``pod`` is bound to node ``node``."""
        self.nodes[node].pods.append(PodInfo.new(pod))

    # -- plugin.go --

    def merge_affinity_term_namespaces_if_not_empty(self, at: AffinityTerm) -> None:
        """``mergeAffinityTermNamespacesIfNotEmpty``: the namespaces the selector lists
        are added to ``namespaces`` and the selector becomes ``Nothing()``, unless it is
        ``Empty()`` (``Everything()``: it then matches every namespace)."""
        if at.namespace_selector.empty():
            return
        for name, labels in self.namespace_labels.items():
            if at.namespace_selector.matches(labels):
                at.namespaces.add(name)
        at.namespace_selector = Selector.nothing_selector()

    def get_namespace_labels_snapshot(self, ns: str) -> dict[str, str] | None:
        """``GetNamespaceLabelsSnapshot``: None when the namespace has no object."""
        labels = self.namespace_labels.get(ns)
        return None if labels is None else dict(labels)

    # -- filtering.go --

    def get_existing_anti_affinity_counts(self, pod: PodRecord, ns_labels: dict | None
                                          ) -> TopologyToMatchedTermCount:  # fmt: skip
        result = TopologyToMatchedTermCount()
        for info in self.nodes:
            with_anti = info.pods_with_required_anti_affinity
            if not with_anti:  # HavePodsWithRequiredAntiAffinityList
                continue
            topo_map = TopologyToMatchedTermCount()
            for existing in with_anti:
                topo_map.update_with_anti_affinity_terms(
                    existing.required_anti_affinity_terms, pod, ns_labels, info.node, 1,
                    self.enabled,
                )  # fmt: skip
            result.append(topo_map)
        return result

    def get_incoming_affinity_anti_affinity_counts(
        self, pod_info: PodInfo
    ) -> tuple[TopologyToMatchedTermCount, TopologyToMatchedTermCount]:
        affinity_counts = TopologyToMatchedTermCount()
        anti_affinity_counts = TopologyToMatchedTermCount()
        if not pod_info.required_affinity_terms and not pod_info.required_anti_affinity_terms:
            return affinity_counts, anti_affinity_counts
        for info in self.nodes:
            affinity = TopologyToMatchedTermCount()
            anti_affinity = TopologyToMatchedTermCount()
            for existing in info.pods:
                affinity.update_with_affinity_terms(
                    pod_info.required_affinity_terms, existing.pod, info.node, 1, self.enabled
                )
                anti_affinity.update_with_anti_affinity_terms(
                    pod_info.required_anti_affinity_terms, existing.pod, None, info.node, 1,
                    self.enabled,
                )  # fmt: skip
            affinity_counts.append(affinity)
            anti_affinity_counts.append(anti_affinity)
        return affinity_counts, anti_affinity_counts

    def pre_filter(self, pod: PodRecord) -> PreFilterState:
        """``PreFilter``."""
        pod_info = PodInfo.new(pod)
        ns_labels = None
        if self.enabled:
            for t in pod_info.required_affinity_terms:
                self.merge_affinity_term_namespaces_if_not_empty(t)
            for t in pod_info.required_anti_affinity_terms:
                self.merge_affinity_term_namespaces_if_not_empty(t)
            ns_labels = self.get_namespace_labels_snapshot(pod.namespace)
        existing = self.get_existing_anti_affinity_counts(pod, ns_labels)
        affinity, anti_affinity = self.get_incoming_affinity_anti_affinity_counts(pod_info)
        return PreFilterState(existing, affinity, anti_affinity, pod_info, ns_labels, self.enabled)

    def filter(self, state: PreFilterState, node: int) -> str | None:
        """``Filter``: None when the node passes, else the status' one reason."""
        labels = self.nodes[node].node.labels
        if not satisfy_pod_affinity(state, labels):
            return ERR_REASON_AFFINITY
        if not satisfy_pod_anti_affinity(state, labels):
            return ERR_REASON_ANTI_AFFINITY
        if not satisfy_existing_pods_anti_affinity(state, labels):
            return ERR_REASON_EXISTING_ANTI_AFFINITY
        return None

    def filter_pod(self, pod: PodRecord) -> list[str | None]:
        """PreFilter, then Filter on every node."""
        state = self.pre_filter(pod)
        return [self.filter(state, n) for n in range(len(self.nodes))]

    # -- scoring.go --

    def process_existing_pod(self, state: PreScoreState, existing: PodInfo, node: NodeRecord,
                             incoming: PodRecord, topo_score: dict) -> None:  # fmt: skip
        """``processExistingPod``."""
        if len(node.labels) == 0:
            return
        en = self.enabled
        process_terms(topo_score, state.pod_info.preferred_affinity_terms, existing.pod, None,
                      node, 1, en)  # fmt: skip
        process_terms(topo_score, state.pod_info.preferred_anti_affinity_terms, existing.pod,
                      None, node, -1, en)  # fmt: skip
        if self.hard_pod_affinity_weight > 0 and len(node.labels) != 0:
            for t in existing.required_affinity_terms:
                process_term(topo_score, t, self.hard_pod_affinity_weight, incoming,
                             state.namespace_labels, node, 1, en)  # fmt: skip
        process_terms(topo_score, existing.preferred_affinity_terms, incoming,
                      state.namespace_labels, node, 1, en)  # fmt: skip
        process_terms(topo_score, existing.preferred_anti_affinity_terms, incoming,
                      state.namespace_labels, node, -1, en)  # fmt: skip

    def pre_score(self, pod: PodRecord) -> PreScoreState:
        """``PreScore`` (for a non-empty node list)."""
        aff, anti = pod.pod_affinity, pod.pod_anti_affinity
        has_preferred = (aff is not None and len(aff.preferred) > 0) or (
            anti is not None and len(anti.preferred) > 0
        )
        pod_info = PodInfo.new(pod)
        ns_labels = None
        if self.enabled:
            for w in pod_info.preferred_affinity_terms:
                self.merge_affinity_term_namespaces_if_not_empty(w.term)
            for w in pod_info.preferred_anti_affinity_terms:
                self.merge_affinity_term_namespaces_if_not_empty(w.term)
            ns_labels = self.get_namespace_labels_snapshot(pod.namespace)
        state = PreScoreState({}, pod_info, ns_labels)
        for info in self.nodes:
            # all nodes and all their pods, or HavePodsWithAffinityList and PodsWithAffinity
            pods = info.pods if has_preferred else info.pods_with_affinity
            if not pods:
                continue
            topo_score: dict[str, dict[str, int]] = {}
            for existing in pods:
                self.process_existing_pod(state, existing, info.node, pod, topo_score)
            score_map_append(state.topology_score, topo_score)
        return state

    def score(self, state: PreScoreState, node: int) -> int:
        """``Score``: the node's value of every topology key, looked up."""
        labels = self.nodes[node].node.labels
        score = 0
        for tp_key, tp_values in state.topology_score.items():
            if tp_key in labels:
                score += tp_values.get(labels[tp_key], 0)
        return score

    def score_pod(self, pod: PodRecord, nodes: Sequence[int]) -> tuple[list[int], list[int]]:
        """Raw and normalized scores of ``pod`` on ``nodes`` (node indices)."""
        if not nodes:
            return [], []
        state = self.pre_score(pod)
        raw = [self.score(state, n) for n in nodes]
        return raw, normalize_score(state, raw)


def satisfy_existing_pods_anti_affinity(state: PreFilterState, labels: Mapping[str, str]
                                        ) -> bool:  # fmt: skip
    """``satisfyExistingPodsAntiAffinity``."""
    if len(state.existing_anti_affinity_counts) > 0:
        for key, value in labels.items():
            if state.existing_anti_affinity_counts.get((key, value), 0) > 0:
                return False
    return True


def satisfy_pod_anti_affinity(state: PreFilterState, labels: Mapping[str, str]) -> bool:
    """``satisfyPodAntiAffinity``."""
    if len(state.anti_affinity_counts) > 0:
        for term in state.pod_info.required_anti_affinity_terms:
            if term.topology_key in labels:
                pair = (term.topology_key, labels[term.topology_key])
                if state.anti_affinity_counts.get(pair, 0) > 0:
                    return False
    return True


def satisfy_pod_affinity(state: PreFilterState, labels: Mapping[str, str]) -> bool:
    """``satisfyPodAffinity``, with the rule for the first pod of a series that has
    affinity to itself."""
    pods_exist = True
    for term in state.pod_info.required_affinity_terms:
        if term.topology_key in labels:
            pair = (term.topology_key, labels[term.topology_key])
            if state.affinity_counts.get(pair, 0) <= 0:
                pods_exist = False
        else:
            return False  # all topology labels must exist on the node
    if not pods_exist:
        return len(state.affinity_counts) == 0 and pod_matches_all_affinity_terms(
            state.pod_info.required_affinity_terms, state.pod_info.pod,
            state.enable_namespace_selector,
        )  # fmt: skip
    return True


def process_term(m: dict[str, dict[str, int]], term: AffinityTerm, weight: int,
                 pod: PodRecord, ns_labels: Mapping[str, str] | None, node: NodeRecord,
                 multiplier: int, enabled: bool) -> None:  # fmt: skip
    """``scoreMap.processTerm``."""
    if term.matches(pod, ns_labels, enabled) and term.topology_key in node.labels:
        values = m.setdefault(term.topology_key, {})
        value = node.labels[term.topology_key]
        values[value] = values.get(value, 0) + weight * multiplier


def process_terms(m: dict[str, dict[str, int]], terms: Sequence[WeightedAffinityTerm],
                  pod: PodRecord, ns_labels: Mapping[str, str] | None, node: NodeRecord,
                  multiplier: int, enabled: bool) -> None:  # fmt: skip
    """``scoreMap.processTerms``."""
    for w in terms:
        process_term(m, w.term, w.weight, pod, ns_labels, node, multiplier, enabled)


def score_map_append(m: dict[str, dict[str, int]], other: dict[str, dict[str, int]]) -> None:
    """``scoreMap.append``."""
    for topology, o_scores in other.items():
        scores = m.get(topology)
        if scores is None:
            m[topology] = o_scores
            continue
        for k, v in o_scores.items():
            scores[k] = scores.get(k, 0) + v


def normalize_score(state: PreScoreState, scores: Sequence[int]) -> list[int]:
    """``NormalizeScore``: min-max scaling to [0, MaxNodeScore], truncated."""
    if len(state.topology_score) == 0:
        return list(scores)
    min_count, max_count = _INT64_MAX, -_INT64_MAX
    for s in scores:
        max_count = max(max_count, s)
        min_count = min(min_count, s)
    max_min_diff = max_count - min_count
    out = []
    for s in scores:
        f_score = 0.0
        if max_min_diff > 0:
            f_score = float(MAX_NODE_SCORE) * (float(s - min_count) / float(max_min_diff))
        out.append(go_int64(f_score))
    return out
