"""The scheduling fields of pods and nodes (resources, ports, taints, tolerations, node
selectors and affinity, priority, images, PVC volumes): read from kubectl's JSON and YAML
through every path (typed JSON, parsed YAML, Python objects, the one-pass path of common
pods, streamed and parallel Lists) into the same records, shared between pods of one
template; bad values refused as the API server's validation (pkg/apis/core/validation,
v1.23.6) refuses them, named by file, object and field."""

from __future__ import annotations

import copy
from typing import Any

import msgspec
import pytest

from kscore_fast.io import parallel
from kscore_fast.io.load import read_inputs
from kscore_fast.model.objects import (
    ContainerImage,
    ContainerPort,
    ContainerRecord,
    NodeAffinity,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    PodAffinity,
    PodRecord,
    PreferredSchedulingTerm,
    Taint,
    Toleration,
)
from kscore_fast.model.quantity import parse_quantity

from ..builders import node, pod, resources
from .kubectl_io import (
    cli_error_line,
    error,
    file_label,
    read,
    read_three_ways,
    watch_common_pods,
    write,
)

ZONE = "topology.kubernetes.io/zone"


def _kubectl_pod(name: str = "web-0", **spec: Any) -> dict[str, Any]:
    """A pod as ``kubectl get -o json`` prints it, every field the scheduler reads set."""
    term = {
        "matchExpressions": [
            {"key": ZONE, "operator": "In", "values": ["z1", "z2"]},
            {"key": "cores", "operator": "Gt", "values": ["4"]},
        ],
        "matchFields": [{"key": "metadata.name", "operator": "NotIn", "values": ["n9"]}],
    }
    base = {
        "containers": [
            {
                "name": "app",
                "image": "registry.example.com/web:1.0",
                "imagePullPolicy": "IfNotPresent",
                "ports": [
                    {"containerPort": 8080, "name": "http", "protocol": "TCP"},
                    {
                        "containerPort": 53,
                        "hostPort": 5353,
                        "hostIP": "10.0.0.1",
                        "protocol": "UDP",
                    },
                ],
                "resources": {
                    "limits": {"cpu": "1", "memory": "256Mi"},
                    "requests": {"cpu": "250m", "memory": "128Mi", "example.com/gpu": "1"},
                },
                "volumeMounts": [{"mountPath": "/data", "name": "data"}],
            },
            {"name": "sidecar", "image": "busybox", "resources": {}},
        ],
        "initContainers": [
            {"name": "init", "image": "busybox", "resources": {"requests": {"cpu": "1"}}}
        ],
        "overhead": {"cpu": "10m"},
        "nodeSelector": {"disktype": "ssd"},
        "affinity": {
            "nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [term]},
                "preferredDuringSchedulingIgnoredDuringExecution": [
                    {
                        "weight": 20,
                        "preference": {"matchExpressions": [{"key": "gpu", "operator": "Exists"}]},
                    },
                ],
            },
            "podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": []},
        },
        "tolerations": [
            {"key": "dedicated", "operator": "Equal", "value": "web", "effect": "NoSchedule"},
            {
                "effect": "NoExecute",
                "key": "node.kubernetes.io/not-ready",
                "operator": "Exists",
                "tolerationSeconds": 300,
            },
            {"operator": "Exists"},
        ],
        "volumes": [
            {"name": "data", "persistentVolumeClaim": {"claimName": f"data-{name}"}},
            {"name": "kube-api-access-x1b2c", "projected": {"defaultMode": 420}},
            {"name": "scratch", "emptyDir": {}},
        ],
        "priority": 1000,
        "priorityClassName": "high",
        "schedulerName": "my-scheduler",
        "restartPolicy": "Always",
    }
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default", "labels": {"app": "web"}},
        "spec": {**base, **spec},
        "status": {"phase": "Pending", "qosClass": "Burstable"},
    }


def _kubectl_node(name: str = "n1", **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {ZONE: "z1"}},
        "spec": {
            "podCIDR": "10.0.1.0/24",
            "taints": [
                {"key": "dedicated", "value": "web", "effect": "NoSchedule"},
                {
                    "key": "node.kubernetes.io/unreachable",
                    "effect": "NoExecute",
                    "timeAdded": "2022-09-14T09:24:12Z",
                },
            ],
            "unschedulable": True,
            **spec,
        },
        "status": {
            "allocatable": {"cpu": "3800m", "memory": "14770984Ki", "pods": "110"},
            "capacity": {"cpu": "4", "memory": "15921384Ki", "pods": "110"},
            "images": [
                {
                    "names": ["registry.example.com/web@sha256:ab", "registry.example.com/web:1.0"],
                    "sizeBytes": 71296001,
                },
                {"names": ["busybox:latest"], "sizeBytes": 1000},
            ],
        },
    }


_TERM = NodeSelectorTerm(
    (
        NodeSelectorRequirement(ZONE, "In", ("z1", "z2")),
        NodeSelectorRequirement("cores", "Gt", ("4",)),
    ),
    (NodeSelectorRequirement("metadata.name", "NotIn", ("n9",)),),
)
EXPECTED_POD = pod(
    "web-0",
    ns="default",
    labels={"app": "web"},
    phase="Pending",
    containers=[
        ContainerRecord(
            "registry.example.com/web:1.0",
            resources({"cpu": "250m", "memory": "128Mi", "example.com/gpu": "1"}),
            (ContainerPort(8080), ContainerPort(53, 5353, "UDP", "10.0.0.1")),
        ),
        ContainerRecord("busybox"),
    ],
    overhead={"cpu": "10m"},
    node_selector={"disktype": "ssd"},
    node_affinity=NodeAffinity(
        (_TERM,),
        (
            PreferredSchedulingTerm(
                20, NodeSelectorTerm((NodeSelectorRequirement("gpu", "Exists"),))
            ),
        ),
    ),
    tolerations=[
        Toleration("dedicated", "Equal", "web", "NoSchedule"),
        Toleration("node.kubernetes.io/not-ready", "Exists", "", "NoExecute", 300),
        Toleration(operator="Exists"),
    ],
    scheduler_name="my-scheduler",
    priority=1000,
    claims=("data-web-0",),
    pod_anti_affinity=PodAffinity(),  # (present, with no terms)
)
EXPECTED_POD = msgspec.structs.replace(  # (the builder's init containers have no image)
    EXPECTED_POD,
    init_containers=(ContainerRecord("busybox", resources({"cpu": "1"})),),
    priority_class_name="high",
)
EXPECTED_NODE = node(
    "n1",
    {ZONE: "z1"},
    allocatable={"cpu": "3800m", "memory": "14770984Ki", "pods": "110"},
    taints=[
        Taint("dedicated", "web", "NoSchedule"),
        Taint("node.kubernetes.io/unreachable", "", "NoExecute"),
    ],
    images=[
        ContainerImage(
            ("registry.example.com/web@sha256:ab", "registry.example.com/web:1.0"), 71296001
        ),
        ContainerImage(("busybox:latest",), 1000),
    ],
    unschedulable=True,
)


HOW = ["json", "yaml", "objects"]


@pytest.mark.parametrize("how", HOW)
def test_every_field(how, tmp_path):
    got = read([_kubectl_node(), _kubectl_pod()], how, tmp_path)
    assert got.nodes == [EXPECTED_NODE]
    assert got.pods == [EXPECTED_POD]


def test_record_fields_are_the_ones_the_reader_fills_in_order():
    """The reader passes PodRecord's fields positionally (``pod_fields``, then the two of
    ``status`` it reads after them)."""
    assert PodRecord.__struct_fields__[9:] == (
        "scheduler_name", "priority", "containers", "init_containers", "overhead",
        "node_selector", "node_affinity", "tolerations", "claims", "pod_affinity",
        "pod_anti_affinity", "priority_class_name", "preemption_policy", "disks", "ephemeral",
        "start_time", "ready", "uid",
    )  # fmt: skip


@pytest.mark.parametrize("how", HOW)
def test_defaults(how, tmp_path):
    """What the API server defaults (schedulerName, a port's protocol) and what stays
    absent (priority, node affinity, its required terms)."""
    bare = {
        "kind": "Pod",
        "metadata": {"name": "a"},
        "spec": {"containers": [{"name": "c", "ports": [{"containerPort": 80}]}]},
    }
    empty_name = copy.deepcopy(bare)
    empty_name["metadata"]["name"] = "b"
    empty_name["spec"].update(schedulerName="", affinity={}, tolerations=None, volumes=[])
    preferred_only = _kubectl_pod("c")
    del preferred_only["spec"]["affinity"]["nodeAffinity"][
        "requiredDuringSchedulingIgnoredDuringExecution"
    ]
    nodes = {"kind": "Node", "metadata": {"name": "n"}}
    got = read([bare, empty_name, preferred_only, nodes], how, tmp_path)
    a, b, c = got.pods
    assert a == pod("a", ns="default", ports=[ContainerPort(80, 0, "TCP", "")])
    assert a.scheduler_name == "default-scheduler" and a.priority is None
    assert a.node_affinity is None and a.tolerations == () and a.pvc_volumes == 0
    assert b == msgspec.structs.replace(a, name="b")
    assert c.node_affinity.required is None and len(c.node_affinity.preferred) == 1
    assert got.nodes == [node("n")]


@pytest.mark.parametrize("how", HOW)
def test_requests_default_to_limits(how, tmp_path):
    """The API server's SetDefaults_Pod: a resource a container limits but does not
    request is requested at its limit (containers and init containers; a request given
    stays); the quantities as parsed from the limits."""

    def with_resources(name: str, res: dict[str, Any], init: bool = False) -> dict[str, Any]:
        container = {"name": "c", "image": "i", "resources": res}
        group = "initContainers" if init else "containers"
        return {"kind": "Pod", "metadata": {"name": name}, "spec": {group: [container]}}

    limits = {"cpu": "3", "memory": "1Gi", "example.com/gpu": "1"}
    got = read(
        [with_resources("only-limits", {"limits": limits}),
         with_resources("some", {"requests": {"cpu": "500m"}, "limits": limits}),
         with_resources("init", {"requests": None, "limits": {"memory": "2Gi"}}, init=True),
         with_resources("none", {"requests": {"cpu": "1"}})],
        how, tmp_path,
    ).pods  # fmt: skip
    q = parse_quantity
    want = {"cpu": q("3"), "memory": q("1Gi"), "example.com/gpu": q("1")}
    assert got[0].containers[0].requests == want
    assert got[1].containers[0].requests == {**want, "cpu": q("500m")}
    assert got[2].init_containers[0].requests == {"memory": q("2Gi")}
    assert got[3].containers[0].requests == {"cpu": q("1")}


def test_one_pass_path_gives_the_general_paths_records(monkeypatch, tmp_path):
    """The first pod (new label keys) goes through the general path, the others through
    ``_common_pod``: the same records."""
    seen = watch_common_pods(monkeypatch)
    pods = [_kubectl_pod(f"web-{i}") for i in range(3)]
    for how in ("json", "yaml"):
        seen.clear()
        got = read(pods, how, tmp_path).pods
        assert seen == [False, True, True]
        assert got == [msgspec.structs.replace(EXPECTED_POD, name=f"web-{i}",
                                               claims=(f"data-web-{i}",))
                       for i in range(3)]  # fmt: skip


def test_pods_of_a_template_share_their_records(tmp_path):
    pods = [_kubectl_pod(f"web-{i}") for i in range(4)]
    nodes = [_kubectl_node(f"n{i}") for i in range(3)]
    for how in HOW:
        got = read(nodes + pods, how, tmp_path)
        first = got.pods[0]
        for p in got.pods[1:]:
            assert p.containers[0] is first.containers[0]
            assert p.init_containers[0] is first.init_containers[0]
            assert p.tolerations is first.tolerations and p.node_affinity is first.node_affinity
            assert p.node_selector is first.node_selector and p.overhead is first.overhead
        for n in got.nodes[1:]:
            assert n.allocatable is got.nodes[0].allocatable and n.taints is got.nodes[0].taints
        # one parsed quantity per distinct text, whatever holds it ("1" gpu, "1" cpu)
        gpu, cpu = first.containers[0].requests["example.com/gpu"], first.init_containers[0]
        assert gpu is cpu.requests["cpu"] and gpu == parse_quantity("1")


def _varied(n_pods: int) -> list[dict[str, Any]]:
    """Nodes and pods of several templates, some fields absent, a quantity past 64 bits."""
    items: list[dict[str, Any]] = [_kubectl_node(f"n{i}") for i in range(5)]
    items.append(_kubectl_node("bare", taints=None, unschedulable=False))
    huge = {"requests": {"cpu": "123456789012345678901234567890", "memory": "1e3"}}
    for i in range(n_pods):
        p = _kubectl_pod(f"p{i}")
        spec = p["spec"]
        if i % 3 == 1:
            spec["containers"][0]["resources"] = huge
            del spec["affinity"], spec["tolerations"]
        elif i % 3 == 2:
            spec.update(priority=-5, schedulerName=None, nodeSelector=None, volumes=None)
            spec["containers"] = spec["containers"][1:]
        items.append(p)
    return items


@pytest.mark.parametrize("suffix", [".json", ".yaml"])
def test_parallel_and_streamed_equal_one_process(suffix, tmp_path, monkeypatch, in_parallel):
    f = tmp_path / f"c{suffix}"
    got, want, whole = read_three_ways(_varied(150), f, monkeypatch, in_parallel)
    assert got.pods == want.pods and got.nodes == want.nodes
    assert got.pods[1].containers[0].requests["cpu"].unscaled > 1 << 64
    assert whole.pods == got.pods and whole.nodes == got.nodes
    # records stay shared within what one worker read
    monkeypatch.setattr(parallel, "RANGE_BYTES", f.stat().st_size // 3)
    got = read_inputs([f])[0]
    assert len(in_parallel) == 2 and got.pods == want.pods
    shared = {id(p.containers[0]) for p in got.pods[::3]}
    assert 1 <= len(shared) <= 4  # one record per range


# -- bad input --------------------------------------------------------------------------------

_ANY_A = {"key": "a", "operator": "Exists"}


def _tolerations(*tolerations):
    return {"tolerations": list(tolerations)}


def _affinity(required=None, preferred=None):
    node_affinity = {}
    if required is not None:
        node_affinity["requiredDuringSchedulingIgnoredDuringExecution"] = required
    if preferred is not None:
        node_affinity["preferredDuringSchedulingIgnoredDuringExecution"] = preferred
    return {"affinity": {"nodeAffinity": node_affinity}}


def _expr(**requirement):
    return _affinity({"nodeSelectorTerms": [{"matchExpressions": [requirement]}]})


def _field(**requirement):
    return _affinity({"nodeSelectorTerms": [{"matchFields": [requirement]}]})


def _ports(*ports, second=None):
    containers = [{"name": "a", "ports": list(ports)}]
    if second is not None:
        containers.append({"name": "b", "ports": [second]})
    return {"containers": containers}


_REQ = "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms"
_PREF = "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution"
# fmt: off
BAD_PODS = [
    (_tolerations({"key": "a", "operator": "Equals"}), "spec.tolerations[0].operator",
     'unsupported toleration operator "Equals"'),
    (_tolerations(_ANY_A, {"key": "a", "operator": "Exists", "value": "x"}),
     "spec.tolerations[1].value", "must be empty when operator is Exists"),
    (_tolerations({"operator": "Equal", "value": "x"}), "spec.tolerations[0].operator",
     "must be Exists when key is empty"),
    (_tolerations({"key": "a", "effect": "NoExecut"}), "spec.tolerations[0].effect",
     'unsupported taint effect "NoExecut"'),
    (_tolerations({"key": "a b", "operator": "Exists"}), "spec.tolerations[0].key",
     "invalid key 'a b'"),
    (_tolerations({"key": "a", "value": "b c"}), "spec.tolerations[0].value",
     "invalid value 'b c'"),
    (_tolerations({"key": "a", "effect": "NoSchedule", "tolerationSeconds": 5}),
     "spec.tolerations[0].effect", "must be NoExecute when tolerationSeconds is set"),
    (_tolerations({"key": "a", "effect": "NoExecute", "tolerationSeconds": 1 << 63}),
     "spec.tolerations[0].tolerationSeconds", "must fit a 64-bit integer"),
    (_tolerations({"key": "a", "tolerationSeconds": "5"}),
     "spec.tolerations[0].tolerationSeconds", "expected an integer, found str '5'"),
    ({"nodeSelector": {"disk": "a b"}}, "spec.nodeSelector.disk", "invalid label value"),
    ({"nodeSelector": {"a b": "x"}}, "spec.nodeSelector", "invalid label key 'a b'"),
    ({"nodeSelector": {"disk": 1}}, "spec.nodeSelector.disk", "label value must be a string"),
    (_affinity({"nodeSelectorTerms": []}), _REQ, "must have at least one node selector term"),
    (_affinity({}), _REQ, "must have at least one node selector term"),
    (_expr(key="a", operator="Equals", values=["x"]), f"{_REQ}[0].matchExpressions[0].operator",
     '"Equals" is not a valid node selector operator'),
    (_expr(key="a", operator="In"), f"{_REQ}[0].matchExpressions[0].values",
     "operator In needs at least one value"),
    (_expr(key="a", operator="NotIn", values=[]), f"{_REQ}[0].matchExpressions[0].values",
     "operator NotIn needs at least one value"),
    (_expr(key="a", operator="DoesNotExist", values=["x"]),
     f"{_REQ}[0].matchExpressions[0].values", "operator DoesNotExist takes no values"),
    (_expr(key="a", operator="Gt", values=["1", "2"]), f"{_REQ}[0].matchExpressions[0].values",
     "operator Gt takes exactly one value, found 2"),
    (_expr(key="a", operator="Lt", values=["1.5"]), f"{_REQ}[0].matchExpressions[0].values[0]",
     "operator Lt needs an integer, found '1.5'"),
    (_expr(key="a", operator="Gt", values=["9223372036854775808"]),
     f"{_REQ}[0].matchExpressions[0].values[0]", "needs an integer"),
    (_expr(key="cores", operator="Gt", values=[4]), f"{_REQ}[0].matchExpressions[0].values[0]",
     "expected a string, found int 4 (quote it in YAML)"),
    (_expr(key="a/b/c", operator="Exists"), f"{_REQ}[0].matchExpressions[0].key",
     "invalid key 'a/b/c'"),
    (_expr(operator="Exists"), f"{_REQ}[0].matchExpressions[0].key", "invalid key ''"),
    (_field(key="metadata.namespace", operator="In", values=["n1"]),
     f"{_REQ}[0].matchFields[0].key", "not a valid field selector key"),
    (_field(key="metadata.name", operator="Exists"), f"{_REQ}[0].matchFields[0].operator",
     "not a valid field selector operator"),
    (_field(key="metadata.name", operator="In", values=["a", "b"]),
     f"{_REQ}[0].matchFields[0].values", "takes exactly one value, found 2"),
    (_field(key="metadata.name", operator="In", values=["Bad_Node"]),
     f"{_REQ}[0].matchFields[0].values[0]", "invalid node name 'Bad_Node'"),
    (_affinity(preferred=[{"weight": 0, "preference": {}}]), f"{_PREF}[0].weight",
     "must be in the range 1-100, found 0"),
    (_affinity(preferred=[{"preference": {}}]), f"{_PREF}[0].weight", "range 1-100"),
    (_affinity(preferred=[{"weight": 1, "preference": {}}, {"weight": 101, "preference": {}}]),
     f"{_PREF}[1].weight", "must be in the range 1-100, found 101"),
    (_affinity(preferred=[{"weight": 1, "preference": {"matchExpressions": [{"key": "a"}]}}]),
     f"{_PREF}[0].preference.matchExpressions[0].operator", "not a valid node selector operator"),
    (_ports({"containerPort": 0}), "spec.containers[0].ports[0].containerPort",
     "between 1 and 65535, found 0"),
    (_ports({"hostPort": 80}), "spec.containers[0].ports[0].containerPort", "found 0"),
    (_ports({"containerPort": 65536}), "spec.containers[0].ports[0].containerPort",
     "between 1 and 65535, found 65536"),
    (_ports({"containerPort": 80, "hostPort": 65536}), "spec.containers[0].ports[0].hostPort",
     "up to 65535"),
    (_ports({"containerPort": 80, "hostPort": -1}), "spec.containers[0].ports[0].hostPort",
     "found -1"),
    (_ports({"containerPort": 80, "protocol": "HTTP"}), "spec.containers[0].ports[0].protocol",
     'unsupported protocol "HTTP" (expected one of TCP, UDP, SCTP)'),
    (_ports({"containerPort": 80, "hostPort": 80}, second={"containerPort": 81, "hostPort": 80}),
     "spec.containers[1].ports[0].hostPort", 'duplicate host port "TCP//80"'),
    (_ports({"containerPort": "80"}), "spec.containers[0].ports[0].containerPort",
     "expected an integer, found str '80'"),
    ({"containers": [{"ports": 80}]}, "spec.containers[0].ports", "expected a list, found int 80"),
    ({"priority": 1 << 31}, "spec.priority", "must fit a 32-bit integer"),
    ({"priority": -(1 << 31) - 1}, "spec.priority", "must fit a 32-bit integer"),
    ({"priority": "high"}, "spec.priority", "expected an integer, found str 'high'"),
    ({"priority": True}, "spec.priority", "expected an integer, found bool True"),
    ({"schedulerName": 5}, "spec.schedulerName", "expected a string, found int 5"),
    ({"containers": [{"image": ["x"]}]}, "spec.containers[0].image", "expected a string"),
    ({"containers": [{"resources": {"requests": {"cpu": "-1"}}}]},
     "spec.containers[0].resources.requests.cpu", "must be greater than or equal to 0"),
    ({"containers": [{"resources": {"limits": {"memory": "-1Mi"}}}]},
     "spec.containers[0].resources.limits.memory", "must be greater than or equal to 0"),
    ({"initContainers": [{"resources": {"requests": {"cpu": "1x"}}}]},
     "spec.initContainers[0].resources.requests.cpu", "invalid quantity '1x'"),
    ({"overhead": {"cpu": "-10m"}}, "spec.overhead.cpu", "must be greater than or equal to 0"),
    ({"volumes": [{"name": "v", "persistentVolumeClaim": {}}]},
     "spec.volumes[0].persistentVolumeClaim.claimName", "required"),
    ({"volumes": [{"name": "v", "persistentVolumeClaim": {"claimName": 5}}]},
     "spec.volumes[0].persistentVolumeClaim.claimName", "expected a string"),
    ({"tolerations": {"key": "a"}}, "spec.tolerations", "expected a list, found dict"),
    ({"affinity": {"nodeAffinity": []}}, "spec.affinity.nodeAffinity", "expected a mapping"),
]

BAD_NODES = [
    ({"taints": [{"key": "a"}]}, "spec.taints[0].effect",
     "required: one of NoSchedule, PreferNoSchedule, NoExecute"),
    ({"taints": [{"key": "a", "effect": "Bad"}]}, "spec.taints[0].effect",
     'unsupported taint effect "Bad"'),
    ({"taints": [{"effect": "NoSchedule"}]}, "spec.taints[0].key", "invalid key ''"),
    ({"taints": [{"key": "a", "value": "b c", "effect": "NoSchedule"}]}, "spec.taints[0].value",
     "invalid value 'b c'"),
    ({"taints": [{"key": "a", "effect": "NoSchedule"},
                 {"key": "a", "value": "v", "effect": "NoSchedule"}]},
     "spec.taints[1]", "duplicate taint a:NoSchedule"),
    ({"taints": [None]}, "spec.taints[0].key", "invalid key ''"),
    ({"unschedulable": "yes"}, "spec.unschedulable", "expected true or false, found str 'yes'"),
    ({"status": {"allocatable": {"cpu": "-2"}}}, "status.allocatable.cpu",
     "must be greater than or equal to 0"),
    ({"status": {"capacity": {"memory": "-1"}}}, "status.capacity.memory",
     "must be greater than or equal to 0"),
    ({"status": {"images": [{"names": ["a"], "sizeBytes": 1 << 63}]}},
     "status.images[0].sizeBytes", "must fit a 64-bit integer"),
    ({"status": {"images": [{"names": "a"}]}}, "status.images[0].names",
     "expected a list, found str 'a'"),
]
# fmt: on


def _bad_node(change: dict[str, Any]) -> dict[str, Any]:
    n = _kubectl_node()
    status = change.get("status")
    if status is not None:
        n["status"] = status
    n["spec"].update({k: v for k, v in change.items() if k != "status"})
    return n


@pytest.mark.parametrize("how", HOW)
@pytest.mark.parametrize("change,field,text", BAD_PODS, ids=lambda v: str(v)[:60])
def test_bad_pod_fields(change, field, text, how, tmp_path):
    bad = _kubectl_pod("web-3", **change)
    msg = error([_kubectl_pod("web-0"), bad], how, tmp_path)
    assert msg.startswith(f"{file_label(how, tmp_path)}: Pod default/web-3 (")
    assert f": {field}: " in msg and text in msg, msg


@pytest.mark.parametrize("how", HOW)
@pytest.mark.parametrize("change,field,text", BAD_NODES, ids=lambda v: str(v)[:60])
def test_bad_node_fields(change, field, text, how, tmp_path):
    msg = error([_kubectl_node("n0"), _bad_node(change)], how, tmp_path)
    assert "Node n1 (" in msg and f": {field}: " in msg and text in msg, msg


def test_yaml_numbers_are_not_texts(tmp_path):
    """A YAML number is a quantity (``cpu: 1``), a boolean is not, though 1 == True: the
    records shared by equal containers do not let one pass for the other."""
    one = _kubectl_pod("a", containers=[{"name": "c", "resources": {"requests": {"cpu": 1}}}])
    true = _kubectl_pod("b", containers=[{"name": "c", "resources": {"requests": {"cpu": True}}}])
    got = read([one, _kubectl_pod("c", containers=one["spec"]["containers"])], "yaml", tmp_path)
    assert got.pods[1].containers[0].requests == {"cpu": parse_quantity("1")}
    msg = error([one, true], "yaml", tmp_path)
    assert "spec.containers[0].resources.requests.cpu" in msg and "invalid quantity True" in msg
    msg = error([_kubectl_pod("d", overhead={1: "1"})], "objects", tmp_path)
    assert "spec.overhead: resource name must be a string, found int 1" in msg


def test_fields_of_other_kinds_are_ignored(tmp_path):
    """The structs hold every kind's fields: a field another kind reads is not read (nor
    refused) in an object of a kind that does not have it."""
    n = _kubectl_node(tolerations=5, priority="high", containers="x")
    n["status"]["phase"] = ["x"]
    p = _kubectl_pod(taints=5, unschedulable="yes")
    p["status"]["images"] = 7
    svc = {
        "kind": "Service",
        "metadata": {"name": "s"},
        "spec": {"selector": {"app": "web"}, "priority": "x", "taints": 1},
    }
    for how in HOW:
        got = read([n, p, svc], how, tmp_path)
        assert got.nodes == [EXPECTED_NODE] and got.pods == [EXPECTED_POD]
        assert got.services[0].selector == {"app": "web"}


def test_cli_bad_field_exits_2_with_one_located_line(tmp_path):
    f = write([_kubectl_pod(tolerations=[{"key": "a", "operator": "Equals"}])], tmp_path / "p.yaml")
    assert cli_error_line(f).endswith(
        f"{f}: Pod default/web-0 (items[0]): spec.tolerations[0].operator: "
        'unsupported toleration operator "Equals" (expected one of Equal, Exists)'
    )
