"""Ported upstream tables: pkg/scheduler/framework/plugins/selectorspread/selector_spread_test.go
(kube-scheduler v1.23.0 = v1.23.6 for this file): ``TestSelectorSpreadScore`` and
``TestZoneSelectorSpreadPriority``. Test ids are the Go case names.

As in Go, the plugin is called directly (PreScore, Score per node, NormalizeScore) on all
nodes, pods of the table without namespace keep the empty namespace, and an empty
namespace makes the service lister return every namespace's services.
"""

from __future__ import annotations

import pytest

from kscore_fast.model.objects import RC_KIND, RS_KIND, SS_KIND
from kscore_fast.plugins.selectorspread import SelectorSpread, reference

from ...builders import (
    ZONE,
    cluster,
    controller_ref,
    full_chunk,
    node,
    pod,
    rc,
    rs,
    run_plugin,
    service,
    ss,
)

MAX = 100
L1 = {"foo": "bar", "baz": "blah"}
L2 = {"bar": "foo", "baz": "blah"}
DEF = "default"


def _z1(labels=None, ns="", owner=()):
    return pod(node="machine1", labels=labels, ns=ns, owner=owner)


def _z2(labels=None, ns="", owner=()):
    return pod(node="machine2", labels=labels, ns=ns, owner=owner)


RCK, RSK, SSK = RC_KIND, RS_KIND, SS_KIND

# (name, pod, existing pods, services, controllers, expected {node: score})
SELECTOR_SPREAD_SCORE = [
    ("nothing scheduled", pod(), [], [], [], {"machine1": MAX, "machine2": MAX}),
    ("no services", pod(labels=L1), [_z1()], [], [], {"machine1": MAX, "machine2": MAX}),
    ("different services", pod(labels=L1), [_z1(L2)], [service({"key": "value"}, name="s1")], [],
     {"machine1": MAX, "machine2": MAX}),
    ("two pods, one service pod", pod(labels=L1), [_z1(L2), _z2(L1)],
     [service(L1, name="s1")], [], {"machine1": MAX, "machine2": 0}),
    ("five pods, one service pod in no namespace", pod(labels=L1),
     [_z1(L2), _z1(L1, DEF), _z1(L1, "ns1"), _z2(L1), _z2(L2)],
     [service(L1, name="s1")], [], {"machine1": MAX, "machine2": 0}),
    ("four pods, one service pod in default namespace", pod(labels=L1, ns=DEF),
     [_z1(L1), _z1(L1, "ns1"), _z2(L1, DEF), _z2(L2)],
     [service(L1, name="s1")], [], {"machine1": MAX, "machine2": 0}),
    ("five pods, one service pod in specific namespace", pod(labels=L1, ns="ns1"),
     [_z1(L1), _z1(L1, DEF), _z1(L1, "ns2"), _z2(L1, "ns1"), _z2(L2)],
     [service(L1, ns="ns1", name="")], [], {"machine1": MAX, "machine2": 0}),
    ("three pods, two service pods on different machines", pod(labels=L1),
     [_z1(L2), _z1(L1), _z2(L1)], [service(L1, name="s1")], [], {"machine1": 0, "machine2": 0}),
    ("four pods, three service pods", pod(labels=L1),
     [_z1(L2), _z1(L1), _z2(L1), _z2(L1)], [service(L1, name="s1")], [],
     {"machine1": 50, "machine2": 0}),
    ("service with partial pod label matches", pod(labels=L1),
     [_z1(L2), _z1(L1), _z2(L1)], [service({"baz": "blah"}, name="s1")], [],
     {"machine1": 0, "machine2": 50}),
    ("service with partial pod label matches with service and replication controller",
     pod(labels=L1, ns=DEF, owner=controller_ref("rc1", RCK)),
     [_z1(L2, DEF), _z1(L1, DEF), _z2(L1, DEF)], [service({"baz": "blah"}, name="s1")],
     [rc("rc1", {"foo": "bar"}), rc("rc2", {"bar": "foo"})], {"machine1": 0, "machine2": 0}),
    ("service with partial pod label matches with service and replica set",
     pod(labels=L1, ns=DEF, owner=controller_ref("rs1", RSK)),
     [_z1(L2, DEF), _z1(L1, DEF), _z2(L1, DEF)], [service({"baz": "blah"}, name="s1")],
     [rs("rs1", {"foo": "bar"}), rs("rs2", {"bar": "foo"})], {"machine1": 0, "machine2": 0}),
    ("service with partial pod label matches with service and statefulset",
     pod(labels=L1, ns=DEF, owner=controller_ref("ss1", SSK)),
     [_z1(L2, DEF), _z1(L1, DEF), _z2(L1, DEF)], [service({"baz": "blah"}, name="s1")],
     [ss("ss1", {"foo": "bar"}), ss("ss2", {"bar": "foo"})], {"machine1": 0, "machine2": 0}),
    ("disjoined service and replication controller matches no pods",
     pod(labels={"foo": "bar", "bar": "foo"}, ns=DEF, owner=controller_ref("rc3", RCK)),
     [_z1(L2, DEF, controller_ref("rc2", RCK)), _z1(L1, DEF, controller_ref("rc1", RCK)),
      _z2(L1, DEF, controller_ref("rc1", RCK))],
     [service({"bar": "foo"}, name="s1")], [rc("rc3", {"foo": "bar"})],
     {"machine1": MAX, "machine2": MAX}),
    ("disjoined service and replica set matches no pods",
     pod(labels={"foo": "bar", "bar": "foo"}, ns=DEF, owner=controller_ref("rs3", RSK)),
     [_z1(L2, DEF, controller_ref("rs2", RSK)), _z1(L1, DEF, controller_ref("rs1", RSK)),
      _z2(L1, DEF, controller_ref("rs1", RSK))],
     [service({"bar": "foo"}, name="s1")], [rs("rs3", {"foo": "bar"})],
     {"machine1": MAX, "machine2": MAX}),
    ("disjoined service and stateful set matches no pods",
     pod(labels={"foo": "bar", "bar": "foo"}, ns=DEF, owner=controller_ref("ss3", SSK)),
     [_z1(L2, DEF, controller_ref("ss2", SSK)), _z1(L1, DEF, controller_ref("ss1", SSK)),
      _z2(L1, DEF, controller_ref("ss1", SSK))],
     [service({"bar": "foo"}, name="s1")], [ss("ss3", {"foo": "bar"})],
     {"machine1": MAX, "machine2": MAX}),
    ("Replication controller with partial pod label matches",
     pod(labels=L1, ns=DEF, owner=controller_ref("rc1", RCK)),
     [_z1(L2, DEF, controller_ref("rc2", RCK)), _z1(L1, DEF, controller_ref("rc1", RCK)),
      _z2(L1, DEF, controller_ref("rc1", RCK))],
     [], [rc("rc1", {"foo": "bar"})], {"machine1": 0, "machine2": 0}),
    ("Replica set with partial pod label matches",
     pod(labels=L1, ns=DEF, owner=controller_ref("rs1", RSK)),
     [_z1(L2, DEF, controller_ref("rs2", RSK)), _z1(L1, DEF, controller_ref("rs1", RSK)),
      _z2(L1, DEF, controller_ref("rs1", RSK))],
     [], [rs("rs1", {"foo": "bar"})], {"machine1": 0, "machine2": 0}),
    ("StatefulSet with partial pod label matches",
     pod(labels=L1, ns=DEF, owner=controller_ref("ss1", SSK)),
     [_z1(L2, DEF, controller_ref("ss2", SSK)), _z1(L1, DEF, controller_ref("ss1", SSK)),
      _z2(L1, DEF, controller_ref("ss1", SSK))],
     [], [ss("ss1", {"foo": "bar"})], {"machine1": 0, "machine2": 0}),
    ("Another replication controller with partial pod label matches",
     pod(labels=L1, ns=DEF, owner=controller_ref("rc3", RCK)),
     [_z1(L2, DEF, controller_ref("rc2", RCK)), _z1(L1, DEF, controller_ref("rc1", RCK)),
      _z2(L1, DEF, controller_ref("rc1", RCK))],
     [], [rc("rc3", {"baz": "blah"})], {"machine1": 0, "machine2": 50}),
    ("Another replication set with partial pod label matches",
     pod(labels=L1, ns=DEF, owner=controller_ref("rs3", RSK)),
     [_z1(L2, DEF, controller_ref("rs2", RSK)), _z1(L1, DEF, controller_ref("rs1", RSK)),
      _z2(L1, DEF, controller_ref("rs1", RSK))],
     [], [rs("rs3", {"baz": "blah"})], {"machine1": 0, "machine2": 50}),
    ("Another stateful set with partial pod label matches",
     pod(labels=L1, ns=DEF, owner=controller_ref("ss3", SSK)),
     [_z1(L2, DEF, controller_ref("ss2", SSK)), _z1(L1, DEF, controller_ref("ss1", SSK)),
      _z2(L1, DEF, controller_ref("ss1", SSK))],
     [], [ss("ss3", {"baz": "blah"})], {"machine1": 0, "machine2": 50}),
    ("Another statefulset with TopologySpreadConstraints set in pod",
     pod(labels=L1, ns=DEF, owner=controller_ref("ss1", SSK), tsc=1),
     [_z1(L2, DEF, controller_ref("ss2", SSK)), _z1(L1, DEF, controller_ref("ss1", SSK)),
      _z2(L1, DEF, controller_ref("ss1", SSK))],
     [], [ss("ss1", {"baz": "blah"})], {"machine1": 0, "machine2": 0}),
]  # fmt: skip


def _scores(pending, existing, services, controllers, nodes):
    c = cluster(nodes, [pending, *existing], services, controllers)
    assert len(c.batch) == 1
    chunk = full_chunk(c)
    _, norm = run_plugin(SelectorSpread(), c, chunk)
    names = c.snapshot.node_names
    got = {names[n]: int(s) for n, s in zip(chunk.nodes, norm, strict=True)}
    _, norm_ref = reference.score_pod(c.snapshot, c.batch.pods[0], list(range(len(names))))
    assert got == dict(zip(names, norm_ref, strict=True)), "kernel differs from reference"
    return got


@pytest.mark.parametrize(
    "pending,existing,services,controllers,expected",
    [case[1:] for case in SELECTOR_SPREAD_SCORE],
    ids=[case[0] for case in SELECTOR_SPREAD_SCORE],
)
def test_selector_spread_score(pending, existing, services, controllers, expected):
    nodes = [node("machine1"), node("machine2")]
    assert _scores(pending, existing, services, controllers, nodes) == expected


# TestZoneSelectorSpreadPriority
ZL1 = {"label1": "l1", "baz": "blah"}
ZL2 = {"label2": "l2", "baz": "blah"}
M1Z1, M1Z2, M2Z2 = "machine1.zone1", "machine1.zone2", "machine2.zone2"
M1Z3, M2Z3, M3Z3 = "machine1.zone3", "machine2.zone3", "machine3.zone3"
ZONE_NODES = {M1Z1: "zone1", M1Z2: "zone2", M2Z2: "zone2", M1Z3: "zone3", M2Z3: "zone3",
              M3Z3: "zone3"}  # fmt: skip


def _bp(node_name, labels, owner=()):
    """``buildPod``: namespace default."""
    return pod(node=node_name, labels=labels, ns=DEF, owner=owner)


def _all(score):
    return dict.fromkeys(ZONE_NODES, score)


ZONE_SELECTOR_SPREAD = [
    ("nothing scheduled", pod(), [], [], [], _all(MAX)),
    ("no services", _bp("", ZL1), [_bp(M1Z1, None)], [], [], _all(MAX)),
    ("different services", _bp("", ZL1), [_bp(M1Z1, ZL2)],
     [service({"key": "value"}, name="s1")], [], _all(MAX)),
    ("two pods, 0 matching", _bp("", ZL1), [_bp(M1Z1, ZL2), _bp(M1Z2, ZL2)],
     [service(ZL1, name="s1")], [], _all(MAX)),
    ("two pods, 1 matching (in z2)", _bp("", ZL1), [_bp(M1Z1, ZL2), _bp(M1Z2, ZL1)],
     [service(ZL1, name="s1")], [],
     {M1Z1: MAX, M1Z2: 0, M2Z2: 33, M1Z3: MAX, M2Z3: MAX, M3Z3: MAX}),
    ("five pods, 3 matching (z2=2, z3=1)", _bp("", ZL1),
     [_bp(M1Z1, ZL2), _bp(M1Z2, ZL1), _bp(M2Z2, ZL1), _bp(M1Z3, ZL2), _bp(M2Z3, ZL1)],
     [service(ZL1, name="s1")], [],
     {M1Z1: MAX, M1Z2: 0, M2Z2: 0, M1Z3: 66, M2Z3: 33, M3Z3: 66}),
    ("four pods, 3 matching (z1=1, z2=1, z3=1)", _bp("", ZL1),
     [_bp(M1Z1, ZL1), _bp(M1Z2, ZL1), _bp(M2Z2, ZL2), _bp(M1Z3, ZL1)],
     [service(ZL1, name="s1")], [],
     {M1Z1: 0, M1Z2: 0, M2Z2: 33, M1Z3: 0, M2Z3: 33, M3Z3: 33}),
    ("five pods, 4 matching (z1=1, z2=2, z3=1)", _bp("", ZL1),
     [_bp(M1Z1, ZL1), _bp(M1Z2, ZL1), _bp(M2Z2, ZL1), _bp(M2Z2, ZL2), _bp(M1Z3, ZL1)],
     [service(ZL1, name="s1")], [],
     {M1Z1: 33, M1Z2: 0, M2Z2: 0, M1Z3: 33, M2Z3: 66, M3Z3: 66}),
    ("Replication controller spreading (z1=0, z2=1, z3=2)",
     _bp("", ZL1, controller_ref("rc1", RCK)),
     [_bp(M1Z3, ZL1), _bp(M1Z2, ZL1), _bp(M1Z3, ZL1)], [], [rc("rc1", ZL1)],
     {M1Z1: MAX, M1Z2: 50, M2Z2: 66, M1Z3: 0, M2Z3: 33, M3Z3: 33}),
]  # fmt: skip


@pytest.mark.parametrize(
    "pending,existing,services,controllers,expected",
    [case[1:] for case in ZONE_SELECTOR_SPREAD],
    ids=[case[0] for case in ZONE_SELECTOR_SPREAD],
)
def test_zone_selector_spread_priority(pending, existing, services, controllers, expected):
    nodes = [node(name, {ZONE: z}) for name, z in ZONE_NODES.items()]
    assert _scores(pending, existing, services, controllers, nodes) == expected
