"""Ported upstream tables: pkg/scheduler/framework/plugins/noderesources/ (kube-scheduler
v1.23.6) fit_test.go ``TestFitScore``, least_allocated_test.go
``TestLeastAllocatedScoringStrategy``, most_allocated_test.go
``TestMostAllocatedScoringStrategy``, requested_to_capacity_ratio_test.go
``TestRequestedToCapacityRatioScoringStrategy``, ``TestBrokenLinearFunction``,
``TestResourceBinPackingSingleExtended``, ``TestResourceBinPackingMultipleExtended``.
Test ids are the Go case names.

The Go tests hand ``NewFit`` internal args, never defaulted, so the plugin is built with
``defaults=False`` (an empty resource list scores 0; a weight of 0 is invalid). Scores go
through the kernels and the reference port.
"""

from __future__ import annotations

import numpy as np
import pytest

from kscore_fast.errors import ConfigError
from kscore_fast.plugins.noderesources import NodeResourcesFit, fit_kernels, fit_reference

from ._build import capacity_node, cluster, fit_scores, milli_node, pod

DEFAULT = [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]
EXT = "abc.com/xyz"
EXT_SET = [*DEFAULT, {"name": EXT, "weight": 1}]


def _n(name, cpu, mem, **more):
    return capacity_node(name, {"cpu": cpu, "memory": mem, **more})


def _on(node, cpu, mem):
    return pod([{"cpu": cpu, "memory": mem}], node=node)


def _req(*containers):
    return pod(list(containers))


TWO_REQ = _req({"cpu": "1000", "memory": "2000"}, {"cpu": "2000", "memory": "3000"})
N4_10, N6_10 = _n("node1", "4000", "10000"), _n("node2", "6000", "10000")
N10_20 = [_n("node1", "10000", "20000"), _n("node2", "10000", "20000")]
BOUND_3_0 = [_on("node1", "3000", "0"), _on("node2", "3000", "5000")]
EXT_NODES = [_n("node1", "6000", "10000"), _n("node2", "6000", "10000", **{EXT: "4"})]
EXT_POD = _req({"cpu": "3000", "memory": "5000", EXT: "2"})
EXT_NODES_2 = [_n("node1", "6000", "10000", **{EXT: "4"}),
               _n("node2", "6000", "10000", **{EXT: "10"})]  # fmt: skip
W = {"memory": 2, "cpu": 1}


def _w(weights):
    return [{"name": k, "weight": v} for k, v in weights.items()]


# (name, pod, nodes, existing, resources, expected scores or the invalid field)
LEAST = [
    ("nothing scheduled, nothing requested", _req(), [N4_10, _n("node2", "4000", "10000")], [],
     DEFAULT, [100, 100]),
    ("nothing scheduled, resources requested, differently sized machines", TWO_REQ,
     [N4_10, N6_10], [], DEFAULT, [37, 50]),
    ("Resources not set, nothing scheduled, resources requested, differently sized machines",
     TWO_REQ, [N4_10, N6_10], [], None, [0, 0]),
    ("no resources requested, pods scheduled", _req(), [N4_10, _n("node2", "4000", "10000")],
     [pod(node="node1"), pod(node="node1"), pod(node="node2"), pod(node="node2")], DEFAULT,
     [100, 100]),
    ("no resources requested, pods scheduled with resources", _req(), N10_20,
     [_on("node1", "3000", "0"), _on("node1", "3000", "0"), _on("node2", "3000", "0"),
      _on("node2", "3000", "5000")], DEFAULT, [70, 57]),
    ("resources requested, pods scheduled with resources", TWO_REQ, N10_20, BOUND_3_0, DEFAULT,
     [57, 45]),
    ("resources requested, pods scheduled with resources, differently sized machines", TWO_REQ,
     [N10_20[0], _n("node2", "10000", "50000")], BOUND_3_0, DEFAULT, [57, 60]),
    ("requested resources exceed node capacity", _req({"cpu": "3000", "memory": "0"}),
     [N4_10, _n("node2", "4000", "10000")], BOUND_3_0, DEFAULT, [50, 25]),
    ("zero node resources, pods scheduled with resources", _req(),
     [capacity_node("node1"), capacity_node("node2")], BOUND_3_0, DEFAULT, [0, 0]),
    ("nothing scheduled, resources requested with different weight on CPU and memory, "
     "differently sized machines", TWO_REQ, [N4_10, N6_10], [], _w(W), [41, 50]),
    ("resource with negative weight", TWO_REQ, [N4_10], [], _w({"memory": -1, "cpu": 1}),
     "resources[0].weight"),
    ("resource with zero weight", TWO_REQ, [N4_10], [], _w({"memory": 1, "cpu": 0}),
     "resources[1].weight"),
    ("resource weight larger than MaxNodeScore", TWO_REQ, [N4_10], [],
     _w({"memory": 1, "cpu": 101}), "resources[1].weight"),
    ("bypass extended resource if the pod does not request", TWO_REQ, EXT_NODES, [], EXT_SET,
     [50, 50]),
    ("honor extended resource if the pod requests", EXT_POD, EXT_NODES_2, [], EXT_SET,
     [50, 60]),
]  # fmt: skip

MOST = [
    ("nothing scheduled, nothing requested", _req(), [N4_10, _n("node2", "4000", "10000")], [],
     DEFAULT, [0, 0]),
    ("nothing scheduled, resources requested, differently sized machines", TWO_REQ,
     [N4_10, N6_10], [], DEFAULT, [62, 50]),
    ("Resources not set, nothing scheduled, resources requested, differently sized machines",
     TWO_REQ, [N4_10, N6_10], [], None, [0, 0]),
    ("no resources requested, pods scheduled with resources", _req(), N10_20,
     [_on("node1", "3000", "0"), _on("node1", "3000", "0"), _on("node2", "3000", "0"),
      _on("node2", "3000", "5000")], DEFAULT, [30, 42]),
    ("resources requested, pods scheduled with resources", TWO_REQ, N10_20, BOUND_3_0, DEFAULT,
     [42, 55]),
    ("resources requested equal node capacity",
     _req({"cpu": "2000", "memory": "4000"}, {"cpu": "3000", "memory": "5000"}),
     [_n("node1", "5000", "10000"), _n("node2", "10000", "9000")], [], DEFAULT, [95, 75]),
    ("nothing scheduled, resources requested, differently sized machines", TWO_REQ,
     [N4_10, N6_10], [], _w(W), [58, 50]),
    ("no resources requested, pods scheduled, nonzero request for resource", _req(None),
     [_n("node1", "250m", "1000Mi"), _n("node2", "250m", "1000Mi")],
     [pod([None], node="node1"), pod([None], node="node1")], DEFAULT, [80, 30]),
    ("resource with negtive weight", TWO_REQ, [N4_10], [], _w({"memory": -1, "cpu": 1}),
     "resources[0].weight"),
    ("resource with zero weight", TWO_REQ, [N4_10], [], _w({"memory": 1, "cpu": 0}),
     "resources[1].weight"),
    ("resource weight larger than MaxNodeScore", TWO_REQ, [N4_10], [], _w({"memory": 101}),
     "resources[0].weight"),
    ("bypass extended resource if the pod does not request", TWO_REQ, EXT_NODES, [], EXT_SET,
     [50, 50]),
    ("honor extended resource if the pod request", EXT_POD, EXT_NODES_2, [], EXT_SET, [50, 40]),
]  # fmt: skip

SHAPE = [{"utilization": 0, "score": 10}, {"utilization": 100, "score": 0}]
RTCR = [
    ("nothing scheduled, nothing requested (default - least requested nodes have priority)",
     _req(), [N4_10, _n("node2", "4000", "10000")], [pod(node="node1"), pod(node="node1")],
     DEFAULT, [100, 100]),
    ("nothing scheduled, resources requested, differently sized machines (default - least "
     "requested nodes have priority)", TWO_REQ, [N4_10, N6_10],
     [pod(node="node1"), pod(node="node1")], DEFAULT, [38, 50]),
    ("no resources requested, pods scheduled with resources (default - least requested nodes "
     "have priority)", _req(), [N4_10, N6_10],
     [_on("node1", "3000", "5000"), _on("node2", "3000", "5000")], DEFAULT, [38, 50]),
]  # fmt: skip

FIT_REQ = _req({"cpu": "3000", "memory": "5000"})
FIT_REQ_SMALL = _req({"cpu": "1000", "memory": "2000"})
FIT_BOUND = [_on("node1", "2000", "4000"), _on("node2", "1000", "2000")]


def _rtcr(points):
    shape = [{"utilization": u, "score": s} for u, s in points]
    return {"type": "RequestedToCapacityRatio", "resources": DEFAULT,
            "requestedToCapacityRatio": {"shape": shape}}  # fmt: skip


FIT_SCORE = [
    ("test case for ScoringStrategy RequestedToCapacityRatio case1", FIT_REQ,
     _rtcr([(0, 10), (100, 0)]), [10, 32]),
    ("test case for ScoringStrategy RequestedToCapacityRatio case2", FIT_REQ,
     _rtcr([(0, 0), (100, 10)]), [95, 68]),
    ("test case for ScoringStrategy MostAllocated", FIT_REQ_SMALL,
     {"type": "MostAllocated", "resources": DEFAULT}, [67, 36]),
    ("test case for ScoringStrategy LeastAllocated", FIT_REQ_SMALL,
     {"type": "LeastAllocated", "resources": DEFAULT}, [32, 63]),
]  # fmt: skip


def _check(strategy, requested_pod, nodes, existing, want):
    if isinstance(want, str):
        with pytest.raises(ConfigError) as err:
            NodeResourcesFit({"scoringStrategy": strategy}, defaults=False)
        assert err.value.field.endswith(want)
        return
    plugin = NodeResourcesFit({"scoringStrategy": strategy}, defaults=False)
    got, ref = fit_scores(cluster(nodes, existing, requested_pod), plugin)
    assert got == want
    assert ref == want


def _ids(table):
    return [case[0] for case in table]


@pytest.mark.parametrize(("name", "pod_", "nodes", "existing", "resources", "want"), LEAST,
                         ids=_ids(LEAST))  # fmt: skip
def test_least_allocated_scoring_strategy(name, pod_, nodes, existing, resources, want):
    strategy = {"type": "LeastAllocated", "resources": resources}
    _check(strategy, pod_, nodes, existing, want)


@pytest.mark.parametrize(("name", "pod_", "nodes", "existing", "resources", "want"), MOST,
                         ids=_ids(MOST))  # fmt: skip
def test_most_allocated_scoring_strategy(name, pod_, nodes, existing, resources, want):
    strategy = {"type": "MostAllocated", "resources": resources}
    _check(strategy, pod_, nodes, existing, want)


@pytest.mark.parametrize(("name", "pod_", "nodes", "existing", "resources", "want"), RTCR,
                         ids=_ids(RTCR))  # fmt: skip
def test_requested_to_capacity_ratio_scoring_strategy(name, pod_, nodes, existing, resources,
                                                      want):  # fmt: skip
    strategy = {"type": "RequestedToCapacityRatio", "resources": resources,
                "requestedToCapacityRatio": {"shape": SHAPE}}  # fmt: skip
    _check(strategy, pod_, nodes, existing, want)


@pytest.mark.parametrize(("name", "pod_", "strategy", "want"), FIT_SCORE, ids=_ids(FIT_SCORE))
def test_fit_score(name, pod_, strategy, want):
    _check(strategy, pod_, [N4_10, N6_10], FIT_BOUND, want)


BROKEN_LINEAR = [
    ([(10, 1), (90, 9)], [(-10, 1), (0, 1), (9, 1), (10, 1), (15, 1), (19, 1), (20, 2),
                          (89, 8), (90, 9), (99, 9), (100, 9), (110, 9)]),
    ([(0, 2), (40, 10), (100, 0)], [(-10, 2), (0, 2), (20, 6), (30, 8), (40, 10), (70, 5),
                                    (100, 0), (110, 0)]),
    ([(0, 2), (40, 2), (100, 2)], [(-10, 2), (0, 2), (20, 2), (30, 2), (40, 2), (70, 2),
                                   (100, 2), (110, 2)]),
]  # fmt: skip


@pytest.mark.parametrize(("points", "assertions"), BROKEN_LINEAR,
                         ids=[f"case_{i}" for i in range(len(BROKEN_LINEAR))])  # fmt: skip
def test_broken_linear_function(points, assertions):
    f = fit_reference.build_broken_linear_function(points)
    u = np.array([p[0] for p in points], dtype=np.int64)
    s = np.array([p[1] for p in points], dtype=np.int64)
    for p, want in assertions:
        assert f(p) == want
        assert fit_kernels.broken_linear(u, s, np.int64(p)) == want


GI = 10000 * 1024 * 1024


def _bin_nodes(ext1, ext2):
    return [milli_node("machine1", 4000, GI, **ext1), milli_node("machine2", 4000, GI, **ext2)]


FOO, BAR = "intel.com/foo", "intel.com/bar"
SINGLE = _bin_nodes({FOO: 8}, {FOO: 4})
MULTI = _bin_nodes({FOO: 8, BAR: 4}, {FOO: 4, BAR: 8})
BIN_SHAPE = [(0, 0), (100, 1)]


def _bin_strategy(weights):
    strategy = _rtcr(BIN_SHAPE)
    strategy["resources"] = _w(weights)
    return strategy


# (name, pod, nodes, existing, expected)
SINGLE_EXTENDED = [
    ("nothing scheduled, nothing requested", _req(), [], [0, 0]),
    ("resources requested, pods scheduled with less resources", _req({FOO: "2"}), [pod()],
     [2, 5]),
    ("resources requested, pods scheduled with resources, on node with existing pod running ",
     _req({FOO: "2"}), [pod([{FOO: "2"}], node="machine2")], [2, 10]),
    ("resources requested, pods scheduled with more resources", _req({FOO: "4"}), [pod()],
     [5, 10]),
]  # fmt: skip

MULTIPLE_EXTENDED = [
    ("nothing scheduled, nothing requested", _req(), [], [0, 0]),
    ("resources requested, pods scheduled with less resources", _req({FOO: "2", BAR: "2"}),
     [pod()], [4, 3]),
    ("resources requested, pods scheduled with resources, on node with existing pod running ",
     _req({FOO: "2", BAR: "2"}), [pod([{FOO: "2", BAR: "2"}], node="machine2")], [4, 7]),
    ("resources requested, pods scheduled with more resources", _req({FOO: "4", BAR: "2"}),
     [pod()], [5, 5]),
]  # fmt: skip


@pytest.mark.parametrize(("name", "pod_", "existing", "want"), SINGLE_EXTENDED,
                         ids=_ids(SINGLE_EXTENDED))  # fmt: skip
def test_resource_bin_packing_single_extended(name, pod_, existing, want):
    _check(_bin_strategy({FOO: 1}), pod_, SINGLE, existing, want)


@pytest.mark.parametrize(("name", "pod_", "existing", "want"), MULTIPLE_EXTENDED,
                         ids=_ids(MULTIPLE_EXTENDED))  # fmt: skip
def test_resource_bin_packing_multiple_extended(name, pod_, existing, want):
    _check(_bin_strategy({FOO: 3, BAR: 5}), pod_, MULTI, existing, want)
