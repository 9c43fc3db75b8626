"""Pieces of the noderesources plugins: Go arithmetic in the kernels (== goarith), resource
name classes, failure reasons, args and their defaults, the 1.23 overhead quirks, and the
state types (one compiled signature, ``empty_state`` included)."""

from __future__ import annotations

import math

import numba
import numpy as np
import pytest

from kscore_fast import goarith
from kscore_fast.errors import ConfigError, UnsupportedError
from kscore_fast.plugins.noderesources import (
    NodeResourcesBalancedAllocation,
    NodeResourcesFit,
    allocation_kernels,
    fit_kernels,
    fit_reference,
    names,
)

from ._build import balanced_scores, cluster, fit_filter, fit_scores, milli_node, node, pod

I64 = [0, 1, -1, 2, -2, 3, 7, -7, 100, -100, 1000, 2**62, -(2**62), 2**63 - 1, -(2**63),
       -(2**63) + 1, 123456789123, -987654321987]  # fmt: skip


@pytest.mark.parametrize("a", I64)
def test_kernel_integer_arithmetic_is_gos(a):
    for b in I64:
        x, y = np.int64(a), np.int64(b)
        assert allocation_kernels.wadd(x, y) == goarith.wrap_int64(a + b)
        assert allocation_kernels.wsub(x, y) == goarith.wrap_int64(a - b)
        assert allocation_kernels.wmul(x, y) == goarith.wrap_int64(a * b)
        if b != 0:
            assert allocation_kernels.go_div(x, y) == goarith.go_div(a, b), (a, b)


SHAPE = [(0, 10), (30, 2), (65, 9), (100, 4)]


@pytest.mark.parametrize("a", I64)
def test_kernel_resource_scores_equal_reference(a):
    """Least/Most/RTCR per-resource scores, overflowing products included."""
    u = np.array([p[0] for p in SHAPE], dtype=np.int64)
    table = fit_kernels.rtcr_table(u, np.array([p[1] * 10 for p in SHAPE], dtype=np.int64))
    rtcr = fit_reference.requested_to_capacity_ratio_scorer({"x": 1}, SHAPE)
    for b in I64:
        r, c = np.int64(a), np.int64(b)
        assert fit_kernels.least_requested_score(r, c) == fit_reference.least_requested_score(a, b)
        assert fit_kernels.most_requested_score(r, c) == fit_reference.most_requested_score(a, b)
        if b != 0:
            assert table[fit_kernels.utilization(r, c)] == rtcr({"x": a}, {"x": b}), (a, b)


def test_go_div_truncates_toward_zero():
    assert goarith.go_div(-7, 2) == -3
    assert goarith.go_div(7, -2) == -3
    assert goarith.go_div(-(2**63), -1) == -(2**63)


FLOATS = [0.0, -0.0, 0.5, -0.5, 1.5, 2.5, -2.5, 99.99999999999999, 0.49999999999999994,
          9.223372036854775e18, 9.223372036854775808e18, -9.223372036854775808e18, -1e19,
          1e300, math.inf, -math.inf, math.nan, 4503599627370497.0]  # fmt: skip


@pytest.mark.parametrize("f", FLOATS)
def test_kernel_float_conversions_are_gos(f):
    assert allocation_kernels.go_float_to_int64(f) == goarith.go_float_to_int64(f)
    if math.isfinite(f):
        assert fit_kernels._round_half_away(f) == goarith.go_round(f)


def test_go_round_is_half_away_from_zero():
    assert [goarith.go_round(x) for x in (0.5, 1.5, 2.5, -0.5, -2.5, 0.49999999999999994)] == [
        1.0, 2.0, 3.0, -1.0, -3.0, 0.0,
    ]  # fmt: skip


SCALAR = {
    "cpu": False, "memory": False, "pods": False, "ephemeral-storage": False, "foo": False,
    "example.com/gpu": True, "nvidia.com/gpu": True, "kubernetes.io/batch": True,
    "subdomain.kubernetes.io/something": True, "hugepages-2Mi": True,
    "attachable-volumes-aws-ebs": True, "requests.example.com/x": False, "example.com/": False,
    "a/b/c": False, "Example.com/gpu": False, "example.com/-x": False,
}  # fmt: skip


@pytest.mark.parametrize(("name", "scalar"), SCALAR.items())
def test_scalar_resource_names(name, scalar):
    assert names.is_scalar_resource_name(name) is scalar


def test_extended_resource_names():
    assert names.is_extended_resource_name("example.com/gpu")
    assert not names.is_extended_resource_name("kubernetes.io/batch")
    assert not names.is_extended_resource_name("hugepages-2Mi")


def _state_with_scalars(n):
    extra = {f"example.com/r{i:02d}": 1 for i in range(n)}
    return cluster([node("n", {"pods": 1})], [pod([{"cpu": "1"}], node="n")], pod([extra]))


def test_reasons_texts_in_gos_order():
    c = _state_with_scalars(3)
    plugin = NodeResourcesFit()
    got, ref = fit_filter(c, plugin)
    # the bound pod overcommits cpu: a pending pod asking 0 cpu no longer fits either
    want = ["Too many pods", "Insufficient cpu", "Insufficient example.com/r00",
            "Insufficient example.com/r01", "Insufficient example.com/r02"]  # fmt: skip
    assert got == ref == [want]
    state = plugin.prepare(c.snapshot, c.batch)
    assert plugin.reasons(state, 2 | 4 | 8) == [
        "Insufficient cpu", "Insufficient memory", "Insufficient ephemeral-storage",
    ]  # fmt: skip
    assert plugin.reasons(state, 1 << 5) == ["Insufficient example.com/r01"]


def test_too_many_scalar_resources_for_the_failure_bits():
    c = _state_with_scalars(60)
    with pytest.raises(UnsupportedError, match="60 scalar resources"):
        NodeResourcesFit().prepare(c.snapshot, c.batch)
    ignored = NodeResourcesFit({"ignoredResources": ["example.com/r00"]})
    assert ignored.reasons(ignored.prepare(c.snapshot, c.batch), 1 << 62) == [
        "Insufficient example.com/r59"
    ]


def test_fit_args_defaults():
    plugin = NodeResourcesFit()
    assert (plugin.strategy, plugin.weights, plugin.shape) == (
        "LeastAllocated", {"cpu": 1, "memory": 1}, [],
    )  # fmt: skip
    most = NodeResourcesFit(
        {
            "scoringStrategy": {
                "type": "MostAllocated",
                "resources": [
                    {"name": "memory"},
                    {"name": "cpu", "weight": 3},
                    {"name": "memory", "weight": 5},
                ],
            }
        }
    )
    assert most.weights == {"memory": 5, "cpu": 3}  # first position, last weight
    empty = NodeResourcesFit({"scoringStrategy": {"type": "MostAllocated", "resources": []}})
    assert empty.weights == {"cpu": 1, "memory": 1}
    shaped = NodeResourcesFit(
        {
            "scoringStrategy": {
                "type": "RequestedToCapacityRatio",
                "requestedToCapacityRatio": {
                    "shape": [{"utilization": 0}, {"utilization": 50, "score": 10}]
                },
            }
        }
    )
    assert shaped.shape == [(0, 0), (50, 10)]


@pytest.mark.parametrize(("args", "field"), [
    ({"scoringStrategy": {"resources": []}}, "scoringStrategy.type"),
    ({"scoringStrategy": {"type": "Balanced"}}, "scoringStrategy.type"),
    ({"scoringStrategy": {"type": "RequestedToCapacityRatio"}},
     "scoringStrategy.requestedToCapacityRatio"),
    ({"scoringStrategy": {"type": "RequestedToCapacityRatio",
                          "requestedToCapacityRatio": {"shape": []}}},
     "scoringStrategy.requestedToCapacityRatio.shape"),
    ({"scoringStrategy": {"type": "RequestedToCapacityRatio", "requestedToCapacityRatio": {
        "shape": [{"utilization": 50}, {"utilization": 50}]}}},
     "scoringStrategy.requestedToCapacityRatio.shape[1].utilization"),
    ({"scoringStrategy": {"type": "MostAllocated", "requestedToCapacityRatio": {
        "shape": [{"utilization": 0, "score": 11}]}}},
     "scoringStrategy.requestedToCapacityRatio.shape[0].score"),
    ({"scoringStrategy": {"type": "LeastAllocated",
                          "resources": [{"name": "cpu", "weight": 101}]}},
     "scoringStrategy.resources[0].weight"),
    ({"scoringStrategy": {"type": "LeastAllocated", "resources": [{"name": "cpu",
                                                                   "weight": "1"}]}},
     "scoringStrategy.resources[0].weight"),
    ({"ignoredResourceGroups": ["example.com/x"]}, "ignoredResourceGroups[0]"),
])  # fmt: skip
def test_fit_args_errors(args, field):
    with pytest.raises(ConfigError) as err:
        NodeResourcesFit(args)
    assert err.value.field == field


def test_fit_without_scoring_strategy_as_internal_args():
    with pytest.raises(ConfigError, match="scoring strategy not specified"):
        NodeResourcesFit({}, defaults=False)


def test_balanced_args_defaults():
    assert NodeResourcesBalancedAllocation().resources == ["cpu", "memory"]
    assert NodeResourcesBalancedAllocation({"resources": []}).resources == ["cpu", "memory"]
    assert NodeResourcesBalancedAllocation({"resources": []}, defaults=False).resources == []
    three = NodeResourcesBalancedAllocation({"resources": [{"name": "example.com/gpu"},
                                                           {"name": "cpu"}]})  # fmt: skip
    assert three.resources == ["example.com/gpu", "cpu"]


def test_overhead_quirks_of_1_23():
    """Fit's score ignores the pod's overhead; BalancedAllocation adds it through
    ``Value()``: overhead cpu 1500m adds 2 millicores; bound pods' overhead counts in
    full (NonZeroRequested, Requested)."""
    nodes = [milli_node("n1", 1000, 1000)]
    pending = pod([{"cpu": "500m", "memory": "500"}], overhead={"cpu": "1500m"})
    c = cluster(nodes, [], pending)
    assert fit_scores(c, NodeResourcesFit()) == ([50], [50])
    assert balanced_scores(c, NodeResourcesBalancedAllocation()) == ([99], [99])
    bound = [pod([{"cpu": "100m", "memory": "100"}], overhead={"cpu": "100m"}, node="n1")]
    c = cluster(nodes, bound, pending)
    # Fit: cpu (1000 - 700) * 100 / 1000 = 30, memory (1000 - 600) / 10 = 40 → 35
    assert fit_scores(c, NodeResourcesFit()) == ([35], [35])
    # Balanced: cpu (200 + 502) / 1000, memory 600 / 1000: 100 * (1 - 0.051) → 94
    assert balanced_scores(c, NodeResourcesBalancedAllocation()) == ([94], [94])


def test_empty_state_has_the_prepared_types():
    c = _state_with_scalars(2)
    for plugin in (NodeResourcesFit(), NodeResourcesBalancedAllocation()):
        prepared = numba.typeof(plugin.prepare(c.snapshot, c.batch))
        assert numba.typeof(plugin.empty_state()) == prepared
