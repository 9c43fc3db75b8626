"""The Priority admission plugin (``model/priority.py``): the cases of upstream's
``plugin/pkg/admission/priority/admission_test.go`` (v1.23: ``TestPodAdmission``,
``TestDefaultPriority``, the validation of ``ValidatePriorityClass``), then what a loaded
cluster, ``simulate`` and the ``Simulator`` make of PriorityClasses."""

from __future__ import annotations

import json

import pytest

import kscore_fast as ks
from kscore_fast.errors import InputError
from kscore_fast.model.objects import PodRecord, PriorityClassRecord
from kscore_fast.model.priority import SYSTEM_CRITICAL_PRIORITY, Admission, class_problem

DEFAULT1 = PriorityClassRecord("default1", 1000, True)
DEFAULT2 = PriorityClassRecord("default2", 2000, True)
NONDEFAULT1 = PriorityClassRecord("nondefault1", 2000)
SYSTEM_CLUSTER_CRITICAL = PriorityClassRecord(
    "system-cluster-critical", SYSTEM_CRITICAL_PRIORITY, True
)  # fmt: skip (as upstream's test has it)
NEVER = PriorityClassRecord("nopreemptionpolicy", 2000, True, "Never")
LOWER = PriorityClassRecord("nopreemptionpolicy", 2000, True, "PreemptLowerPriority")


def _pod(name, ns="namespace", cls="", priority=None, policy=None):
    return PodRecord(ns, name, priority=priority, priority_class_name=cls,
                     preemption_policy=policy)  # fmt: skip


PODS = [
    _pod("pod-w-priorityclass", cls="default1"),
    _pod("pod-wo-priorityclass"),
    _pod("pod-w-non-existing-priorityclass", cls="non-existing"),
    _pod("pod-w-integer-priority", cls="default1", priority=1000),
    _pod("pod-w-system-priority", "kube-system", cls="system-cluster-critical"),
    _pod("mirror-pod-w-system-priority", "kube-system", cls="system-cluster-critical"),
    _pod("mirror-pod-w-integer-priority", cls="default1", priority=1000),
    _pod(
        "pod-w-system-priority-in-nonsystem-namespace",
        "non-system-namespace",
        cls="system-cluster-critical",
    ),
    _pod("pod-w-zero-priority-in-nonsystem-namespace", "non-system-namespace", priority=0),
    _pod("pod-w-priority-matching-default-priority", "non-system-namespace", priority=2000),
    _pod(
        "pod-w-priority-matching-resolved-default-priority",
        "kube-system",
        cls="system-cluster-critical",
        priority=SYSTEM_CRITICAL_PRIORITY,
    ),
    _pod(
        "pod-never-preemption-policy-matching-resolved-preemption-policy",
        "kube-system",
        cls="nopreemptionpolicy",
        priority=2000,
    ),
    _pod(
        "pod-preemption-policy-matching-resolved-preemption-policy",
        "kube-system",
        cls="nopreemptionpolicy",
        priority=2000,
        policy="PreemptLowerPriority",
    ),
    _pod(
        "pod-preemption-policy-not-matching-resolved-preemption-policy",
        "kube-system",
        cls="nopreemptionpolicy",
        priority=2000,
        policy="Never",
    ),
]

# (name, existing classes, pod, expected priority, expected error, expected policy)
POD_ADMISSION = [
    ("Pod with priority class", [DEFAULT1, NONDEFAULT1], 0, 1000, None, None),
    ("Pod without priority class", [DEFAULT1], 1, 1000, None, None),
    ("pod without priority class and no existing priority class", [], 1, 0, None, None),
    ("pod without priority class and no default class", [NONDEFAULT1], 1, 0, None, None),
    ("pod with a system priority class", [SYSTEM_CLUSTER_CRITICAL], 4,
     SYSTEM_CRITICAL_PRIORITY, None, None),
    ("Pod with non-existing priority class", [DEFAULT1, NONDEFAULT1], 2, 0,
     'pods "pod-w-non-existing-priorityclass" is forbidden: no PriorityClass with name '
     "non-existing was found", None),
    ("pod with integer priority", [], 3, 0,
     'pods "pod-w-integer-priority" is forbidden: no PriorityClass with name default1 was '
     "found", None),
    ("mirror pod with system priority class", [SYSTEM_CLUSTER_CRITICAL], 5,
     SYSTEM_CRITICAL_PRIORITY, None, None),
    ("mirror pod with integer priority", [], 6, 0, "no PriorityClass with name default1", None),
    ("pod with system critical priority in non-system namespace", [SYSTEM_CLUSTER_CRITICAL], 7,
     SYSTEM_CRITICAL_PRIORITY, None, None),
    ("pod with priority that matches computed priority", [NONDEFAULT1], 8, 0, None, None),
    ("pod with priority that matches default priority", [DEFAULT2], 9, 2000, None, None),
    ("pod with priority that matches resolved priority", [SYSTEM_CLUSTER_CRITICAL], 10,
     SYSTEM_CRITICAL_PRIORITY, None, None),
    ("pod with nil preemtpion policy", [LOWER], 11, 2000, None, None),
    ("pod with preemtpion policy that matches resolved preemtpion policy", [LOWER], 12, 2000,
     None, "PreemptLowerPriority"),
    ("pod with preemtpion policy that does't matches resolved preemtpion policy", [LOWER], 13,
     2000, "the string value of PreemptionPolicy (Never) must not be provided in pod spec; "
     "priority admission controller computed PreemptLowerPriority from the given "
     "PriorityClass name", None),
]  # fmt: skip


@pytest.mark.parametrize(("classes", "pod", "priority", "error", "policy"),
                         [case[1:] for case in POD_ADMISSION],
                         ids=[case[0] for case in POD_ADMISSION])  # fmt: skip
def test_pod_admission(classes, pod, priority, error, policy):
    made = Admission(classes).create(PODS[pod])
    if error is not None:
        assert isinstance(made, str) and error in made
        return
    assert not isinstance(made, str), made
    assert made.priority == priority
    if policy is not None:
        assert made.preemption_policy == policy


@pytest.mark.parametrize(("classes", "name", "value"), [
    ([], "", 0),  # no default class
    ([DEFAULT1], "default1", 1000),
    ([DEFAULT1, DEFAULT2], "default1", 1000),  # several: the minimum value
    ([DEFAULT2, DEFAULT1], "default1", 1000),
    ([NONDEFAULT1], "", 0),
])  # fmt: skip
def test_default_priority(classes, name, value):
    made = Admission(classes).create(_pod("p"))
    assert (made.priority_class_name, made.priority, made.preemption_policy) == (
        name,
        value,
        "PreemptLowerPriority",
    )


def test_a_priority_that_differs_from_the_class_is_refused_on_create():
    made = Admission([DEFAULT1]).create(_pod("p", cls="default1", priority=5))
    assert made == ('pods "p" is forbidden: the integer value of priority (5) must not be '
                    "provided in pod spec; priority admission controller computed 1000 from "
                    "the given PriorityClass name")  # fmt: skip
    # no class and no default: PreemptLowerPriority computed, Never given
    made = Admission().create(_pod("q", policy="Never"))
    assert isinstance(made, str) and "computed PreemptLowerPriority" in made


@pytest.mark.parametrize(("record", "problem"), [
    (PriorityClassRecord("system-test", 1_000_000_001),
     "reserved for system use only. error: system-test is not a known system priority class"),
    (PriorityClassRecord("system-node-critical", 5),
     "error: value of system-node-critical PriorityClass must be 2000001000"),
    (PriorityClassRecord("system-cluster-critical", SYSTEM_CRITICAL_PRIORITY, True),
     "error: globalDefault of system-cluster-critical PriorityClass must be False"),
    (PriorityClassRecord("high", 1_000_000_001),
     "maximum allowed value of a user defined priority is 1000000000"),
    (PriorityClassRecord("system-node-critical", SYSTEM_CRITICAL_PRIORITY + 1000), None),
    (PriorityClassRecord("high", 1_000_000_000), None),
    (PriorityClassRecord("negative", -5), None),
])  # fmt: skip
def test_priority_class_validation(record, problem):
    found = class_problem(record)
    assert (found is None) if problem is None else (problem in found[1])


# -- a loaded cluster --------------------------------------------------------------------

NODE = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
        "status": {"allocatable": {"cpu": "1", "memory": "1Gi", "pods": "10"}}}  # fmt: skip


def _class(name, value, **extra):
    return {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
            "metadata": {"name": name}, "value": value, **extra}  # fmt: skip


def _pod_object(name, cpu="600m", node="", **spec):
    body = {"containers": [{"name": "c", "image": "x",
                            "resources": {"requests": {"cpu": cpu}}}], **spec}  # fmt: skip
    if node:
        body["nodeName"] = node
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
            "spec": body}  # fmt: skip


def test_the_queue_orders_pods_by_their_class(tmp_path):
    """A pending pod with ``priorityClassName: high`` is queued before those without
    (issue 24's report: it was queued as priority 0, last), the class read from a file in
    the same input as a kubectl List."""
    items = [NODE, _pod_object("first"), _pod_object("urgent", priorityClassName="high"),
             _class("high", 1000)]  # fmt: skip
    path = tmp_path / "cluster.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
    cluster = ks.load_cluster([path])
    assert cluster.warning() is None  # (PriorityClass is read, not skipped)
    hosts = ks.simulate(cluster).to_dict()["results"]
    assert [(r["pod"], r["host"]) for r in hosts] == [("default/urgent", "n1"),
                                                     ("default/first", None)]  # fmt: skip


def test_the_global_default_class_and_the_system_classes():
    objs = [
        NODE,
        _class("low", 10, globalDefault=True, preemptionPolicy="Never"),
        _pod_object("plain"),
        _pod_object("critical", priorityClassName="system-node-critical"),
    ]
    pods = {p.name: p for p in ks.load_cluster(objects=objs).batch.pods}
    assert (pods["plain"].priority, pods["plain"].preemption_policy,
            pods["plain"].priority_class_name) == (10, "Never", "low")  # fmt: skip
    assert pods["critical"].priority == SYSTEM_CRITICAL_PRIORITY + 1000


def test_a_pod_whose_class_does_not_exist_is_refused_as_the_api_server_refuses_it():
    objs = [NODE, _pod_object("lost", priorityClassName="gone"), _pod_object("fine")]
    cluster = ks.load_cluster(objects=objs)
    message = 'pods "lost" is forbidden: no PriorityClass with name gone was found'
    assert message in cluster.warning()
    for run in (ks.score, ks.simulate):
        results = {r["pod"]: r for r in run(cluster).to_dict()["results"]}
        assert results["default/lost"]["host"] is None
        assert results["default/lost"]["error"] == message
        assert results["default/fine"]["host"] == "n1"
    sim = ks.Simulator(cluster)  # (as for a pod of no profile: the call is refused)
    for call in (sim.schedule_and_bind, sim.schedule):
        with pytest.raises(InputError, match="no PriorityClass with name gone"):
            call("default/lost")
    assert sim.run().host_names == ["n1"]  # (run leaves refused pods out)


def test_a_dump_pods_priority_is_kept_and_a_contradiction_reported():
    """Pods as ``kubectl get -o json`` prints them carry ``spec.priority``: kept, even
    when their class now has another value (reported in the warning line), and when the
    input holds no class at all (a dump of pods alone: nothing to report)."""
    objs = [
        NODE,
        _class("high", 1000),
        _pod_object("old", priorityClassName="high", priority=5),
        _pod_object("alone", priorityClassName="elsewhere", priority=7),
        _pod_object("bound", cpu="1m", node="n1", priorityClassName="high", priority=1000),
    ]
    cluster = ks.load_cluster(objects=objs)
    pods = {p.name: p.priority for p in cluster.batch.pods}
    assert pods == {"old": 5, "alone": 7}
    assert cluster.warning() == (
        "1 pods' spec.priority differs from the value of the PriorityClass they name (kept, "
        "as the scheduler reads spec.priority): default/old (5; class: 1000)"
    )


@pytest.mark.parametrize(("obj", "field", "message"), [
    (_class("high", "1000"), "value", "must be an integer, found str '1000'"),
    (_class("high", 2**31), "value", "must fit a 32-bit integer"),
    (_class("high", 1, globalDefault="yes"), "globalDefault", "must be true or false"),
    (_class("high", 1, preemptionPolicy="Sometimes"), "preemptionPolicy",
     'unsupported preemptionPolicy "Sometimes"'),
    (_class("high", 2_000_000_000), "value", "maximum allowed value of a user defined"),
    (_class("system-mine", 1), "metadata.name", "reserved for system use only"),
    (_class("Not_A_Name", 1), "metadata.name", "must be a DNS subdomain"),
    (_pod_object("p", priorityClassName="Bad_Name"), "spec.priorityClassName",
     "must be a DNS subdomain"),
    (_pod_object("p", preemptionPolicy="Always"), "spec.preemptionPolicy",
     'unsupported preemptionPolicy "Always"'),
])  # fmt: skip
def test_bad_priority_fields_name_the_object_and_field(obj, field, message, tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": [NODE, obj]}))
    with pytest.raises(InputError) as err:
        ks.load_cluster([path])
    assert err.value.field == field and message in str(err.value)
    assert "bad.json" in str(err.value) and obj["metadata"]["name"] in str(err.value)


def test_the_simulator_admits_the_pods_it_is_given():
    sim = ks.Simulator(ks.load_cluster(objects=[NODE, _class("high", 1000),
                                                _pod_object("waiting")]))  # fmt: skip
    key = sim.add_pod(_pod_object("late", priorityClassName="high"))
    assert sim.run().host_names == ["n1", None]  # (priority 1000 before 0)
    assert sim.host_of(key) == "n1"
    with pytest.raises(InputError, match='add_pod: pods "x" is forbidden: no PriorityClass '
                                         "with name gone was found"):  # fmt: skip
        sim.add_pod(_pod_object("x", priorityClassName="gone"))
    assert "default/x" not in sim.pods
