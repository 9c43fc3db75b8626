"""Scalar reference port of NodeResourcesFit (Filter and Score), line by line.

Mirrors, at kube-scheduler v1.23.6, pkg/scheduler/framework/plugins/noderesources/:

* fit.go: ``NewFit`` (the scorer of each strategy), ``computePodResourceRequest``,
  ``fitsRequest``, ``Filter``, ``Score``;
* least_allocated.go: ``leastResourceScorer``, ``leastRequestedScore``;
* most_allocated.go: ``mostResourceScorer``, ``mostRequestedScore``;
* requested_to_capacity_ratio.go: ``requestedToCapacityRatioScorer``,
  ``buildRequestedToCapacityRatioScorerFunction``;
* ../helper/shape_score.go: ``BuildBrokenLinearFunction``.

``Fit``'s own ``resourceAllocationScorer`` never gets ``enablePodOverhead`` (NewFit sets it
on ``Fit`` only, for PreFilter), so Fit's scores ignore the incoming pod's overhead.
Go lists the ``Insufficient <scalar>`` reasons in random map order; here they follow the
resource names' sorted order, as the kernels do.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ...goarith import MAX_NODE_SCORE, go_div, go_float_to_int64, go_round
from ...goarith import wrap_int64 as w
from ...model.objects import PodRecord
from .args import (
    LEAST_ALLOCATED,
    MAX_CUSTOM_PRIORITY_SCORE,
    MOST_ALLOCATED,
    REQUESTED_TO_CAPACITY_RATIO,
)
from .names import is_extended_resource_name
from .resources_reference import (
    NodeInfo,
    Resource,
    ResourceAllocationScorer,
    resources_to_weight_map,
)

#: requested_to_capacity_ratio.go maxUtilization
MAX_UTILIZATION = 100


def compute_pod_resource_request(pod: PodRecord) -> Resource:
    """``computePodResourceRequest`` (PodOverhead on)."""
    result = Resource()
    for c in pod.containers:
        result.add(c.requests)
    for ic in pod.init_containers:
        result.set_max_resource(ic.requests)
    if pod.overhead:
        result.add(pod.overhead)
    return result


def fits_request(
    pod_request: Resource, node_info: NodeInfo, ignored_extended: set[str], ignored_groups: set[str]
) -> list[str]:
    """``fitsRequest``: the reasons of every insufficient resource (empty: fits)."""
    reasons = []
    alloc, req = node_info.allocatable, node_info.requested
    if len(node_info.pods) + 1 > alloc.allowed_pod_number:
        reasons.append("Too many pods")
    if (
        pod_request.milli_cpu == 0
        and pod_request.memory == 0
        and pod_request.ephemeral_storage == 0
        and not pod_request.scalar_resources
    ):
        return reasons
    if pod_request.milli_cpu > w(alloc.milli_cpu - req.milli_cpu):
        reasons.append("Insufficient cpu")
    if pod_request.memory > w(alloc.memory - req.memory):
        reasons.append("Insufficient memory")
    if pod_request.ephemeral_storage > w(alloc.ephemeral_storage - req.ephemeral_storage):
        reasons.append("Insufficient ephemeral-storage")
    for name in sorted(pod_request.scalar_resources or {}):
        if is_extended_resource_name(name):
            prefix = name.split("/")[0] if ignored_groups else ""
            if name in ignored_extended or prefix in ignored_groups:
                continue
        if pod_request.scalar(name) > w(alloc.scalar(name) - req.scalar(name)):
            reasons.append(f"Insufficient {name}")
    return reasons


def least_requested_score(requested: int, capacity: int) -> int:
    """``leastRequestedScore``."""
    if capacity == 0 or requested > capacity:
        return 0
    return go_div(w(w(capacity - requested) * MAX_NODE_SCORE), capacity)


def most_requested_score(requested: int, capacity: int) -> int:
    """``mostRequestedScore``."""
    if capacity == 0:
        return 0
    if requested > capacity:
        requested = capacity
    return go_div(w(requested * MAX_NODE_SCORE), capacity)


def _weighted_scorer(weights: dict[str, int], resource_score: Callable[[int, int], int]):
    """``leastResourceScorer`` / ``mostResourceScorer``: weighted integer mean."""

    def scorer(requested: dict[str, int], allocatable: dict[str, int]) -> int:
        node_score = weight_sum = 0
        for resource in requested:
            weight = weights[resource]
            score = resource_score(requested[resource], allocatable[resource])
            node_score = w(node_score + w(score * weight))
            weight_sum = w(weight_sum + weight)
        if weight_sum == 0:
            return 0
        return go_div(node_score, weight_sum)

    return scorer


def build_broken_linear_function(shape: Sequence[tuple[int, int]]) -> Callable[[int], int]:
    """helper ``BuildBrokenLinearFunction`` over (utilization, score) points."""

    def f(p: int) -> int:
        for i, (u, s) in enumerate(shape):
            if p <= u:
                if i == 0:
                    return shape[0][1]
                u0, s0 = shape[i - 1]
                return w(s0 + go_div(w((s - s0) * w(p - u0)), w(u - u0)))
        return shape[-1][1]

    return f


def requested_to_capacity_ratio_scorer(
    weights: dict[str, int], shape: Sequence[tuple[int, int]]
) -> Callable[[dict[str, int], dict[str, int]], int]:
    """``requestedToCapacityRatioScorer``: shape scores scaled to MaxNodeScore, then
    ``buildRequestedToCapacityRatioScorerFunction``."""
    scale = MAX_NODE_SCORE // MAX_CUSTOM_PRIORITY_SCORE
    raw = build_broken_linear_function([(u, s * scale) for u, s in shape])

    def resource_scoring_function(requested: int, capacity: int) -> int:
        if capacity == 0 or requested > capacity:
            return raw(MAX_UTILIZATION)
        return raw(go_div(w(requested * MAX_UTILIZATION), capacity))

    def scorer(requested: dict[str, int], allocatable: dict[str, int]) -> int:
        node_score = weight_sum = 0
        for resource in requested:
            weight = weights[resource]
            score = resource_scoring_function(requested[resource], allocatable[resource])
            if score > 0:
                node_score = w(node_score + w(score * weight))
                weight_sum = w(weight_sum + weight)
        if weight_sum == 0:
            return 0
        return go_float_to_int64(go_round(float(node_score) / float(weight_sum)))

    return scorer


def new_scorer(
    strategy: str, resources: Sequence[tuple[str, int]], shape: Sequence[tuple[int, int]] = ()
) -> ResourceAllocationScorer:
    """``nodeResourceStrategyTypeMap[strategy](args)``."""
    weights = resources_to_weight_map(resources)
    if strategy == LEAST_ALLOCATED:
        fn = _weighted_scorer(weights, least_requested_score)
    elif strategy == MOST_ALLOCATED:
        fn = _weighted_scorer(weights, most_requested_score)
    elif strategy == REQUESTED_TO_CAPACITY_RATIO:
        fn = requested_to_capacity_ratio_scorer(weights, shape)
    else:
        raise ValueError(f"scoring strategy {strategy} is not supported")
    return ResourceAllocationScorer(strategy, False, fn, weights)


def filter_reasons(
    infos: Sequence[NodeInfo],
    pod: PodRecord,
    ignored_resources: Sequence[str] = (),
    ignored_groups: Sequence[str] = (),
) -> list[list[str]]:
    """``PreFilter`` + ``Filter`` of ``pod`` on every node: each node's reasons."""
    request = compute_pod_resource_request(pod)
    ignored, groups = set(ignored_resources), set(ignored_groups)
    return [fits_request(request, info, ignored, groups) for info in infos]


def score_nodes(
    infos: Sequence[NodeInfo],
    pod: PodRecord,
    nodes: Sequence[int],
    scorer: ResourceAllocationScorer,
) -> list[int]:
    """``Score`` of ``pod`` on each of ``nodes`` (indices into ``infos``)."""
    return [scorer.score(pod, infos[n]) for n in nodes]
