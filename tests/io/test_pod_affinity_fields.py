"""Topology spread constraints, pod affinity and anti-affinity, and Namespace objects: read
through every path (typed JSON, parsed YAML, multi-document YAML, directories, Python
objects, the one-pass path of common pods, streamed and parallel Lists) into the same
records, shared between pods of one template; bad values refused as the API server's
validation (pkg/apis/core/validation, v1.23.6) refuses them, named by file, object and
field."""

from __future__ import annotations

import copy
import json
from typing import Any

import msgspec
import pytest
import yaml

from kscore_fast.api import load_cluster
from kscore_fast.io.load import read_inputs
from kscore_fast.model.objects import (
    NamespaceRecord,
    PodAffinity,
    PodAffinityTerm,
    TopologySpreadConstraint,
    WeightedPodAffinityTerm,
)
from kscore_fast.model.selectors import LabelSelector

from ..builders import HOSTNAME, ZONE, namespace, pod
from .kubectl_io import (
    HOW,
    as_list,
    cli_error_line,
    error,
    file_label,
    read,
    read_three_ways,
    watch_common_pods,
    write,
)

REQ = "requiredDuringSchedulingIgnoredDuringExecution"
PREF = "preferredDuringSchedulingIgnoredDuringExecution"
_WEB = {"matchLabels": {"app": "web"}}


def _kubectl_pod(name: str = "web-0", **spec: Any) -> dict[str, Any]:
    """A pod as ``kubectl get -o json`` prints it, with spread constraints and pod
    (anti-)affinity."""
    base = {
        "containers": [{"name": "app", "image": "web:1", "resources": {}}],
        "topologySpreadConstraints": [
            {"maxSkew": 1, "topologyKey": ZONE, "whenUnsatisfiable": "DoNotSchedule",
             "labelSelector": {"matchLabels": {"app": "web"},
                               "matchExpressions": [{"key": "tier", "operator": "In",
                                                     "values": ["a", "b"]}]}},
            {"maxSkew": 3, "topologyKey": HOSTNAME, "whenUnsatisfiable": "ScheduleAnyway"},
            {"maxSkew": 2, "topologyKey": ZONE, "whenUnsatisfiable": "ScheduleAnyway",
             "labelSelector": {}},
        ],
        "affinity": {
            "podAffinity": {
                REQ: [{"labelSelector": {"matchExpressions": [{"key": "db", "operator": "Exists"}]},
                       "namespaces": ["data", "batch"], "topologyKey": ZONE}],
                PREF: [{"weight": 50, "podAffinityTerm": {
                    "labelSelector": _WEB, "namespaceSelector": {}, "topologyKey": HOSTNAME}}],
            },
            "podAntiAffinity": {
                REQ: [{"topologyKey": HOSTNAME,
                       "namespaceSelector": {"matchLabels": {"team": "x"}}}],
            },
        },
        "restartPolicy": "Always",
    }  # fmt: skip
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default", "labels": {"app": "web"}},
        "spec": {**base, **spec},
        "status": {"phase": "Pending"},
    }


def _kubectl_namespace(name: str, labels: dict[str, str] | None = None) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {"name": name, "labels": labels or {}, "uid": "0f0c", "resourceVersion": "4"},
        "spec": {"finalizers": ["kubernetes"]},
        "status": {"phase": "Active"},
    }


EXPECTED_TSC = (
    TopologySpreadConstraint(
        1, ZONE, "DoNotSchedule", LabelSelector((("app", "web"),), (("tier", "In", ("a", "b")),))
    ),
    TopologySpreadConstraint(3, HOSTNAME, "ScheduleAnyway", None),
    TopologySpreadConstraint(2, ZONE, "ScheduleAnyway", LabelSelector()),
)
EXPECTED_AFFINITY = PodAffinity(
    (PodAffinityTerm(LabelSelector((), (("db", "Exists", ()),)), ("data", "batch"), ZONE),),
    (
        WeightedPodAffinityTerm(
            50, PodAffinityTerm(LabelSelector((("app", "web"),)), (), HOSTNAME, LabelSelector())
        ),
    ),
)
EXPECTED_ANTI = PodAffinity(
    (PodAffinityTerm(None, (), HOSTNAME, LabelSelector((("team", "x"),))),), ()
)
EXPECTED_POD = pod(
    "web-0",
    ns="default",
    labels={"app": "web"},
    phase="Pending",
    image="web:1",
    tsc=EXPECTED_TSC,
    pod_affinity=EXPECTED_AFFINITY,
    pod_anti_affinity=EXPECTED_ANTI,
)
NAMESPACES = [_kubectl_namespace("data", {"team": "x"}), _kubectl_namespace("batch")]
EXPECTED_NAMESPACES = [namespace("data", {"team": "x"}), namespace("batch")]


@pytest.mark.parametrize("how", HOW)
def test_every_field(how, tmp_path):
    got = read([*NAMESPACES, _kubectl_pod()], how, tmp_path)
    assert got.pods == [EXPECTED_POD]
    assert got.namespaces == EXPECTED_NAMESPACES
    assert got.total == 3 and not got.skipped


@pytest.mark.parametrize("how", HOW)
def test_absent_null_and_empty(how, tmp_path):
    """Absent or null fields: no constraints, no pod (anti-)affinity; present but empty:
    an empty PodAffinity; a nil label selector stays None, an empty one matches all."""
    bare = {"kind": "Pod", "metadata": {"name": "a"}, "spec": {"containers": [{"name": "c"}]}}
    nulls = copy.deepcopy(bare)
    nulls["metadata"]["name"] = "b"
    nulls["spec"].update(topologySpreadConstraints=None,
                         affinity={"podAffinity": None, "podAntiAffinity": None})  # fmt: skip
    empty = copy.deepcopy(bare)
    empty["metadata"]["name"] = "c"
    empty["spec"].update(
        topologySpreadConstraints=[],
        affinity={"podAffinity": {}, "podAntiAffinity": {REQ: [], PREF: None}},
    )
    a, b, c = read([bare, nulls, empty], how, tmp_path).pods
    for p in (a, b):
        assert p.topology_spread_constraints == ()
        assert p.pod_affinity is None and p.pod_anti_affinity is None
    assert c.topology_spread_constraints == ()
    assert c.pod_affinity == PodAffinity() == c.pod_anti_affinity


def test_one_pass_path_gives_the_general_paths_records(monkeypatch, tmp_path):
    """The first pod (new label keys) goes through the general path, the others through
    ``_common_pod``: the same records, shared by the pods of one template."""
    seen = watch_common_pods(monkeypatch)
    pods = [_kubectl_pod(f"web-{i}") for i in range(3)]
    for how in ("json", "yaml"):
        seen.clear()
        got = read(pods, how, tmp_path).pods
        assert seen == [False, True, True]
        assert got == [msgspec.structs.replace(EXPECTED_POD, name=f"web-{i}") for i in range(3)]
        first = got[0]
        for p in got[1:]:
            assert p.topology_spread_constraints is first.topology_spread_constraints
            assert p.pod_affinity is first.pod_affinity
            assert p.pod_anti_affinity is first.pod_anti_affinity


def _varied(n_pods: int) -> list[dict[str, Any]]:
    """Namespaces, and pods of several templates, with and without the fields."""
    items: list[dict[str, Any]] = [_kubectl_namespace(f"ns{i}", {"i": str(i)}) for i in range(4)]
    for i in range(n_pods):
        p = _kubectl_pod(f"p{i}")
        spec = p["spec"]
        if i % 4 == 1:
            del spec["topologySpreadConstraints"], spec["affinity"]
        elif i % 4 == 2:
            spec["topologySpreadConstraints"][0]["maxSkew"] = 5
            del spec["affinity"]["podAffinity"]
        elif i % 4 == 3:
            spec["affinity"]["podAntiAffinity"][REQ][0]["namespaces"] = [f"ns{i % 3}"]
        items.append(p)
        if i % 50 == 7:
            items.append(_kubectl_namespace(f"late{i}"))
    return items


@pytest.mark.parametrize("suffix", [".json", ".yaml"])
def test_parallel_and_streamed_equal_one_process(suffix, tmp_path, monkeypatch, in_parallel):
    got, want, whole = read_three_ways(_varied(150), tmp_path / f"c{suffix}", monkeypatch,
                                       in_parallel)  # fmt: skip
    for other in (want, whole):
        assert got.pods == other.pods and got.namespaces == other.namespaces
        assert got.total == other.total and not got.skipped
    assert len(got.namespaces) == 7 and got.namespaces[0] == namespace("ns0", {"i": "0"})
    assert {len(p.topology_spread_constraints) for p in got.pods} == {0, 3}


def test_namespaces_reach_the_snapshot(tmp_path):
    """Namespace objects are read (not skipped kinds), given the label the API server sets,
    their ``metadata.namespace`` ignored (cluster-scoped), and their labels reach the
    snapshot."""
    d = tmp_path / "c"
    d.mkdir()
    ns = _kubectl_namespace("data", {"team": "x", "kubernetes.io/metadata.name": "other"})
    ns["metadata"]["namespace"] = "ignored"
    bare = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "batch"}}
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"}}
    (d / "ns.yaml").write_text(yaml.safe_dump_all([ns, bare, cm]))
    (d / "pods.json").write_text(json.dumps(as_list([_kubectl_pod()])))
    c = load_cluster([d])
    assert c.snapshot.namespace_labels == {
        "data": {"team": "x", "kubernetes.io/metadata.name": "data"},
        "batch": {"kubernetes.io/metadata.name": "batch"},
    }
    assert c.skipped_kinds == {"ConfigMap": 1}
    assert c.warning() == "skipped 1 objects of unused kinds (ConfigMap 1)"
    # (created without spec.priority: the Priority admission plugin's defaults)
    admitted = {"priority": 0, "preemption_policy": "PreemptLowerPriority"}
    assert c.batch.pods[0] == msgspec.structs.replace(EXPECTED_POD, **admitted)
    objs = read_inputs([d])[0]
    assert objs.total == 4 and objs.namespaces[1] == NamespaceRecord(
        "batch", {"kubernetes.io/metadata.name": "batch"}
    )


def test_builder_count_of_constraints():
    """Old callers pass a number of constraints (SelectorSpread asks only whether a pod
    has some)."""
    assert (
        pod(tsc=2).topology_spread_constraints
        == (TopologySpreadConstraint(1, HOSTNAME, "DoNotSchedule", None),) * 2
    )
    assert pod().topology_spread_constraints == ()


# -- bad input --------------------------------------------------------------------------------

_TSC = "spec.topologySpreadConstraints"
_PA = f"spec.affinity.podAffinity.{REQ}"
_PW = f"spec.affinity.podAffinity.{PREF}"
_AA = f"spec.affinity.podAntiAffinity.{REQ}"
_AW = f"spec.affinity.podAntiAffinity.{PREF}"


def _tsc(*constraints: dict[str, Any]) -> dict[str, Any]:
    full = [{"maxSkew": 1, "topologyKey": ZONE, "whenUnsatisfiable": "DoNotSchedule", **c}
            for c in constraints]  # fmt: skip
    return {"topologySpreadConstraints": full}


def _terms(part: str = "podAffinity", required=(), preferred=()) -> dict[str, Any]:
    value: dict[str, Any] = {}
    if required:
        value[REQ] = [{"topologyKey": ZONE, **t} for t in required]
    if preferred:
        value[PREF] = [
            {"weight": 1, **w, "podAffinityTerm": {"topologyKey": ZONE, **w.get("term", {})}}
            for w in preferred
        ]
        for w in value[PREF]:
            w.pop("term", None)
    return {"affinity": {part: value}}


def _expr(**requirement: Any) -> dict[str, Any]:
    return {"matchExpressions": [requirement]}


# fmt: off
BAD_PODS = [
    # topologySpreadConstraints (validateTopologySpreadConstraints)
    (_tsc({"maxSkew": 0}), f"{_TSC}[0].maxSkew", "must be greater than zero, found 0"),
    (_tsc({}, {"maxSkew": -1, "topologyKey": HOSTNAME}), f"{_TSC}[1].maxSkew",
     "must be greater than zero, found -1"),
    (_tsc({"maxSkew": None}), f"{_TSC}[0].maxSkew", "must be greater than zero, found 0"),
    (_tsc({"maxSkew": 1 << 31}), f"{_TSC}[0].maxSkew", "must fit a 32-bit integer"),
    (_tsc({"maxSkew": 1 << 70}), f"{_TSC}[0].maxSkew", "must fit a 32-bit integer"),
    (_tsc({"maxSkew": "1"}), f"{_TSC}[0].maxSkew", "expected an integer, found str '1'"),
    (_tsc({"maxSkew": True}), f"{_TSC}[0].maxSkew", "expected an integer, found bool True"),
    (_tsc({"maxSkew": 1.5}), f"{_TSC}[0].maxSkew", "expected an integer, found float 1.5"),
    (_tsc({"topologyKey": ""}), f"{_TSC}[0].topologyKey", "required"),
    (_tsc({"topologyKey": None}), f"{_TSC}[0].topologyKey", "required"),
    (_tsc({"topologyKey": 5}), f"{_TSC}[0].topologyKey", "expected a string, found int 5"),
    (_tsc({"whenUnsatisfiable": "Never"}), f"{_TSC}[0].whenUnsatisfiable",
     'unsupported whenUnsatisfiable "Never" (expected one of DoNotSchedule, ScheduleAnyway)'),
    (_tsc({"whenUnsatisfiable": None}), f"{_TSC}[0].whenUnsatisfiable",
     "required: one of DoNotSchedule, ScheduleAnyway"),
    (_tsc({}, {"maxSkew": 2}), f"{_TSC}[0].{{topologyKey, whenUnsatisfiable}}",
     f"duplicate {{{ZONE}, DoNotSchedule}}"),
    (_tsc({"labelSelector": _expr(key="a", operator="Equals", values=["x"])}),
     f"{_TSC}[0].labelSelector.matchExpressions[0].operator",
     '"Equals" is not a valid pod selector operator'),
    (_tsc({"labelSelector": {"matchLabels": {"app": "a b"}}}),
     f"{_TSC}[0].labelSelector.matchLabels.app", "invalid label value 'a b'"),
    (_tsc({"labelSelector": {"matchLabels": {"app": 1}}}),
     f"{_TSC}[0].labelSelector.matchLabels.app", "label value must be a string"),
    (_tsc({"labelSelector": []}), f"{_TSC}[0].labelSelector", "expected a mapping"),
    ({"topologySpreadConstraints": [None]}, f"{_TSC}[0].maxSkew", "must be greater than zero"),
    ({"topologySpreadConstraints": {"maxSkew": 1}}, _TSC, "expected a list, found dict"),
    # pod affinity terms (validatePodAffinityTerm)
    (_terms(required=[{"topologyKey": ""}]), f"{_PA}[0].topologyKey", "required"),
    (_terms("podAntiAffinity", required=[{}, {"topologyKey": None}]), f"{_AA}[1].topologyKey",
     "required"),
    (_terms(required=[{"topologyKey": "a/b/c"}]), f"{_PA}[0].topologyKey",
     "invalid topology key 'a/b/c'"),
    (_terms(required=[{"topologyKey": "a b"}]), f"{_PA}[0].topologyKey",
     "invalid topology key 'a b'"),
    (_terms(required=[{"namespaces": ["ok", "Not_A_Label"]}]), f"{_PA}[0].namespaces[1]",
     "invalid namespace 'Not_A_Label': must be a DNS label"),
    (_terms(required=[{"namespaces": [""]}]), f"{_PA}[0].namespaces[0]", "invalid namespace ''"),
    (_terms(required=[{"namespaces": "ns"}]), f"{_PA}[0].namespaces",
     "expected a list, found str 'ns'"),
    (_terms(required=[{"labelSelector": _expr(key="a", operator="In")}]),
     f"{_PA}[0].labelSelector.matchExpressions[0].values", "operator In needs at least one value"),
    (_terms(required=[{"labelSelector": _expr(key="a", operator="Exists", values=["x"])}]),
     f"{_PA}[0].labelSelector.matchExpressions[0].values", "operator Exists takes no values"),
    (_terms(required=[{"labelSelector": _expr(key="a b", operator="Exists")}]),
     f"{_PA}[0].labelSelector.matchExpressions[0].key", "invalid label key 'a b'"),
    (_terms(required=[{"namespaceSelector": _expr(key="a", operator="Gt", values=["1"])}]),
     f"{_PA}[0].namespaceSelector.matchExpressions[0].operator",
     '"Gt" is not a valid pod selector operator'),
    (_terms(required=[{"namespaceSelector": {"matchLabels": {"a/b/c": "x"}}}]),
     f"{_PA}[0].namespaceSelector.matchLabels", "invalid label key 'a/b/c'"),
    (_terms(required=[{"namespaceSelector": {"matchLabels": {"team": 7}}}]),
     f"{_PA}[0].namespaceSelector.matchLabels.team", "label value must be a string"),
    # weighted terms (validateWeightedPodAffinityTerms)
    (_terms(preferred=[{"weight": 0}]), f"{_PW}[0].weight", "must be in the range 1-100, found 0"),
    (_terms("podAntiAffinity", preferred=[{"weight": 100}, {"weight": 101}]), f"{_AW}[1].weight",
     "must be in the range 1-100, found 101"),
    (_terms(preferred=[{"weight": None}]), f"{_PW}[0].weight", "range 1-100, found 0"),
    (_terms(preferred=[{"weight": "5"}]), f"{_PW}[0].weight", "expected an integer, found str"),
    (_terms(preferred=[{"term": {"topologyKey": ""}}]), f"{_PW}[0].podAffinityTerm.topologyKey",
     "required"),
    (_terms("podAntiAffinity", preferred=[{"term": {"labelSelector": {"matchLabels": []}}}]),
     f"{_AW}[0].podAffinityTerm.labelSelector.matchLabels", "expected a mapping"),
    ({"affinity": {"podAntiAffinity": {PREF: [{"weight": 5}]}}},
     f"{_AW}[0].podAffinityTerm.topologyKey", "required"),
    ({"affinity": {"podAffinity": {REQ: [None]}}}, f"{_PA}[0].topologyKey", "required"),
    ({"affinity": {"podAffinity": []}}, "spec.affinity.podAffinity", "expected a mapping"),
    ({"affinity": {"podAntiAffinity": {REQ: {}}}}, _AA, "expected a list"),
]
# fmt: on


@pytest.mark.parametrize("how", ["json", "yaml", "objects"])
@pytest.mark.parametrize("change,field,text", BAD_PODS, ids=lambda v: str(v)[:70])
def test_bad_pod_fields(change, field, text, how, tmp_path):
    bad = _kubectl_pod("web-3", **change)
    msg = error([_kubectl_pod("web-0"), bad], how, tmp_path)
    assert msg.startswith(f"{file_label(how, tmp_path)}: Pod default/web-3 (")
    assert f": {field}: " in msg and text in msg, msg


def test_a_bad_value_after_the_same_valid_one_is_refused(tmp_path):
    """Records are remembered by their typed value: a value of another type that decodes
    alike (a YAML date for a text, a boolean for 1) is not taken for the valid one."""
    good = _kubectl_pod("a", **_tsc({"topologyKey": "2020-01-01"}))
    text = yaml.safe_dump_all([good]).replace("'2020-01-01'", "2020-01-01")
    bad = yaml.safe_load(text)
    bad["metadata"]["name"] = "b"
    assert read([good, good | {"metadata": {"name": "c"}}], "yaml", tmp_path).pods
    msg = error([good, bad], "multidoc", tmp_path)
    assert f"{_TSC}[0].topologyKey: expected a string, found date" in msg, msg
    boolean = _kubectl_pod("d", **_tsc({"maxSkew": True}))
    msg = error([_kubectl_pod("e", **_tsc({"maxSkew": 1})), boolean], "yaml", tmp_path)
    assert f"{_TSC}[0].maxSkew: expected an integer, found bool True" in msg, msg


BAD_NAMESPACES = [
    ({"name": "Bad_Name"}, "metadata.name", "invalid name 'Bad_Name': must be a DNS label"),
    ({"name": "a.b"}, "metadata.name", "must be a DNS label"),
    ({"name": None}, "metadata.name", "Namespace without metadata.name"),
    ({"name": "x", "labels": {"a": "b c"}}, "metadata.labels.a", "invalid label value 'b c'"),
    ({"name": "x", "labels": {"a b": "c"}}, "metadata.labels", "invalid label key 'a b'"),
    ({"name": "x", "labels": {"a": 1}}, "metadata.labels.a", "label value must be a string"),
]


@pytest.mark.parametrize("how", ["json", "yaml", "objects"])
@pytest.mark.parametrize("meta,field,text", BAD_NAMESPACES, ids=lambda v: str(v)[:50])
def test_bad_namespaces(meta, field, text, how, tmp_path):
    bad = _kubectl_namespace("x")
    bad["metadata"] = meta
    msg = error([_kubectl_namespace("ok"), bad], how, tmp_path)
    assert "Namespace" in msg and f": {field}: " in msg and text in msg, msg


def test_duplicate_namespaces(tmp_path):
    items = [_kubectl_namespace("a"), _kubectl_namespace("b"), _kubectl_namespace("a")]
    msg = error(items, "multidoc", tmp_path)
    assert "Namespace a (document 3)" in msg and "duplicate Namespace" in msg
    assert "first defined in" in msg and "document 1" in msg, msg


def test_fields_of_other_kinds_are_ignored_in_namespaces(tmp_path):
    ns = _kubectl_namespace("a")
    ns["spec"].update(selector=5, taints="x", topologySpreadConstraints=3)
    ns["status"].update(allocatable=[1])
    for how in ("json", "yaml", "objects"):
        assert read([ns], how, tmp_path).namespaces == [namespace("a")]


def test_cli_bad_field_exits_2_with_one_located_line(tmp_path):
    f = write([_kubectl_pod(**_tsc({"whenUnsatisfiable": "Never"}))], tmp_path / "p.yaml")
    assert cli_error_line(f).endswith(
        f"{f}: Pod default/web-0 (items[0]): {_TSC}[0].whenUnsatisfiable: "
        'unsupported whenUnsatisfiable "Never" (expected one of DoNotSchedule, ScheduleAnyway)'
    )
