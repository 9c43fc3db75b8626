"""NodeUnschedulable kernels == the scalar reference port, on seeded random clusters (the
TaintToleration generator: tolerations of every shape against the unschedulable taint)."""

from __future__ import annotations

import pytest

from kscore_fast.model.objects import NodeRecord, PodRecord, Toleration
from kscore_fast.model.snapshot import build_cluster
from kscore_fast.plugins.nodeunschedulable import NodeUnschedulable, kernels, reference

from ..tainttoleration.support import (
    UNSCHEDULABLE,
    check_records,
    check_shape,
    random_cluster,
    verdicts,
)


@pytest.mark.parametrize("seed", range(300))
def test_filter_equals_reference(seed):
    c = random_cluster(seed)
    check_records(NodeUnschedulable(), kernels, reference.filter, c.snapshot, c.batch)


@pytest.mark.parametrize(
    ("toleration", "tolerates"),
    [
        (Toleration(key=UNSCHEDULABLE, operator="Exists"), True),
        (Toleration(key=UNSCHEDULABLE, operator="Exists", effect="NoExecute"), False),
        (Toleration(operator="Exists"), True),
        (Toleration(operator="Exists", effect="NoSchedule"), True),
        (Toleration(key=UNSCHEDULABLE, value="x"), False),
        (Toleration(key=UNSCHEDULABLE, operator="Equal", effect="NoSchedule"), True),
        (Toleration(key=UNSCHEDULABLE, operator="Bogus", effect="NoSchedule"), False),
        # key "" matches any key, Equal compares values: "" == "" (API validation would
        # reject this toleration, ToleratesTaint does not)
        (Toleration(key=""), True),
        (Toleration(key="", value="x"), False),
        (Toleration(key="other", operator="Exists"), False),
    ],
)
def test_tolerations_of_the_unschedulable_taint(toleration, tolerates):
    pods = [PodRecord("", "p", tolerations=(toleration,))]
    c = build_cluster([NodeRecord("n", unschedulable=True)], pods)
    plugin = NodeUnschedulable()
    _, texts = verdicts(plugin, kernels, plugin.prepare(c.snapshot, c.batch), 1, 1)
    assert texts[0][0] == (None if tolerates else ["node(s) were unschedulable"])
    assert (reference.filter(pods[0], c.snapshot.nodes[0]) is None) == tolerates


def test_plugin_shape():
    plugin = NodeUnschedulable()
    c = random_cluster(2)
    assert plugin.name == "NodeUnschedulable"
    check_shape(plugin, plugin.prepare(c.snapshot, c.batch), (True, False, False))
