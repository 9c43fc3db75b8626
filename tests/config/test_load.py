"""Reading configuration files as kube-scheduler's strict decoder does: YAML scalars as
go-yaml v2 resolves them, JSON numbers as written, strict errors, Go's type errors, plugin
args of each version, and the located errors kscore raises."""

from __future__ import annotations

import sys
import textwrap

import pytest

from kscore_fast.config import (
    InterPodAffinityArgs,
    NodeResourcesFitArgs,
    ProfileNotFoundError,
    UnknownArgs,
    load_config,
    parse_config,
)
from kscore_fast.config.decode import format_duration, parse_duration
from kscore_fast.config.read import go_json_float, go_resolve, read_document
from kscore_fast.errors import ConfigError, InputError
from kscore_fast.io.manifests import yaml_depth_limit

HEAD = "apiVersion: kubescheduler.config.k8s.io/v1beta3\nkind: KubeSchedulerConfiguration\n"


def load(body: str):
    return parse_config((HEAD + textwrap.dedent(body)).encode(), "cfg.yaml")


def refused(body: str | bytes, name: str = "cfg.yaml") -> str:
    data = body if isinstance(body, bytes) else (HEAD + textwrap.dedent(body)).encode()
    with pytest.raises(ConfigError) as info:
        parse_config(data, name)
    assert str(info.value) == f"{name}: {info.value.reason}"
    return info.value.reason


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("y", True),
        ("off", False),
        ("~", None),
        ("0x1F", 31),
        ("0o17", 15),
        ("017", 15),
        ("0b101", 5),
        ("1_000", 1000),
        ("1:20", "1:20"),
        ("2021-01-01", "2021-01-01"),
        ("1e3", 1000.0),
        (".5", 0.5),
        ("+1", 1),
        ("abc", "abc"),
        ("-", "-"),
        ("18446744073709551615", 2**64 - 1),
        ("18446744073709551616", 1.8446744073709552e19),
    ],
)
def test_go_yaml_v2_resolution(text, value):
    assert go_resolve(text) == value and type(go_resolve(text)) is type(value)


@pytest.mark.parametrize(
    ("f", "text"),
    [
        (1.0, "1"),
        (1.5, "1.5"),
        (1e20, "100000000000000000000"),
        (1e21, "1e+21"),
        (1.5e-7, "1.5e-7"),
        (-0.0, "-0"),
        (123456.0, "123456"),
    ],
)
def test_json_float_text(f, text):
    assert go_json_float(f) == text


def test_yaml_numbers_reach_int_fields_through_json():
    """YAML 2.0 is written "2" by json.Marshal, so it fits an int32; 1e3 too."""
    prof = load("""
        profiles:
        - plugins:
            score:
              enabled: [{name: ImageLocality, weight: 2.0}, {name: NodeAffinity, weight: 1e3}]
    """).profiles[0]
    assert prof.score_weights["ImageLocality"] == 2 and prof.score_weights["NodeAffinity"] == 1000


def test_json_numbers_keep_their_text():
    data = (
        b'{"apiVersion": "kubescheduler.config.k8s.io/v1beta3", '
        b'"kind": "KubeSchedulerConfiguration", "parallelism": 1.0}'
    )
    assert refused(data, "c.json") == (
        "json: cannot unmarshal number 1.0 into Go struct field "
        "KubeSchedulerConfiguration.parallelism of type int32"
    )


def test_only_the_first_yaml_document_is_read():
    cfg = parse_config((HEAD + "parallelism: 3\n---\nnot: [valid\n").encode(), "c.yaml")
    assert cfg.parallelism == 3


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            "parallelism: 1\nfoo: 2\nbar: 3\n",
            'strict decoding error: unknown field "bar", unknown field "foo"',
        ),
        (
            "parallelism: 1\nparallelism: 2\n",
            'strict decoding error: yaml: unmarshal errors:\n  line 4: key "parallelism" already '
            "set in map",
        ),
        (
            'parallelism: "1"\n',
            "json: cannot unmarshal string into Go struct field "
            "KubeSchedulerConfiguration.parallelism of type int32",
        ),
        (
            "profiles:\n- plugins:\n    score:\n      enabled: [{name: A, weight: 2147483648}]\n",
            "json: cannot unmarshal number 2147483648 into Go struct field "
            "Plugin.profiles.plugins.score.enabled.weight of type int32",
        ),
        (
            "profiles:\n- plugins: [x]\n",
            "json: cannot unmarshal array into Go struct field "
            "KubeSchedulerProfile.profiles.plugins of type v1beta3.Plugins",
        ),
        (
            "leaderElection: {leaseDuration: 5}\n",
            "json: cannot unmarshal number into Go struct field "
            "LeaderElectionConfiguration.leaderElection.leaseDuration of type string",
        ),
        ("leaderElection: {leaseDuration: 5x}\n", 'time: unknown unit "x" in duration "5x"'),
        (
            "profiles:\n- pluginConfig:\n  - name: InterPodAffinity\n    args: {weight: 1}\n",
            "decoding .profiles[0].pluginConfig[0]: decoding args for plugin InterPodAffinity: "
            'strict decoding error: unknown field "weight"',
        ),
        (
            "profiles:\n- pluginConfig:\n  - name: NodeAffinity\n    args: {kind: Foo}\n",
            "decoding .profiles[0].pluginConfig[0]: decoding args for plugin NodeAffinity: no kind "
            '"Foo" is registered for version "kubescheduler.config.k8s.io/v1beta3" in scheme '
            '"pkg/runtime/scheme.go:100"',
        ),
        (
            "profiles:\n- pluginConfig:\n  - name: NodeAffinity\n    args:\n      apiVersion: "
            "kubescheduler.config.k8s.io/v1beta2\n",
            "converting .Profiles[0].PluginConfig[0].Args into internal type: no kind is "
            "registered for the type v1beta2.NodeAffinityArgs in scheme "
            '"pkg/runtime/scheme.go:100"',
        ),
        (
            "profiles:\n- schedulerName: a\n   plugins: {}\n",
            "yaml: line 5: mapping values are not allowed in this context",
        ),
    ],
)
def test_decoding_errors(body, message):
    assert refused(body) == message


def test_document_errors():
    assert refused(b"kind: KubeSchedulerConfiguration\n") == (
        "Object 'apiVersion' is missing in 'kind: KubeSchedulerConfiguration\n'"
    )
    assert refused(b"- a\n").startswith(
        "couldn't get version/kind; json parse error: json: cannot unmarshal array"
    )
    assert refused(
        b"apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration"
    ) == (
        'no kind "KubeSchedulerConfiguration" is registered for version '
        '"kubescheduler.config.k8s.io/v1" in scheme "pkg/runtime/scheme.go:100"'
    )
    assert refused(b'{"apiVersion": 1', "c.json").startswith("malformed JSON at line 1 column")
    assert refused(b"\xff\xfe\x00", "c.yaml").startswith("not UTF-8 text")


@pytest.mark.parametrize("depth", [600, 5000])
def test_deep_nesting_names_the_limit_that_applied(depth):
    """JSON stops at Python's recursion limit (a frame a level), YAML at the converter's
    (two frames a level) or, from PyYAML 6.0.4, at libyaml's own cap, located."""
    nested = "[" * depth + "]" * depth
    if depth > 1000:
        about = f"about {sys.getrecursionlimit():,} levels (Python's recursion limit)"
        assert refused(f'{{"x": {nested}}}'.encode(), "c.json").endswith(f"is read up to {about}")
    cap, whose = yaml_depth_limit()
    if depth > cap:
        expected = f"at line 3 column {3 + cap}: YAML is read up to {cap:,} levels ({whose})"
    else:
        expected = f"YAML is read up to about {sys.getrecursionlimit() // 2:,} levels"
    assert expected in refused((HEAD + f"x: {nested}\n").encode())


def test_alias_bombs_are_refused():
    lines = ['a: &a ["x","x","x","x","x","x","x","x","x"]']
    lines += [
        f"{c}: &{c} [*{p},*{p},*{p},*{p},*{p},*{p},*{p},*{p},*{p}]"
        for p, c in zip("abcdefgh", "bcdefghi", strict=True)
    ]
    assert refused((HEAD + "\n".join(lines) + "\n").encode()).endswith("excessive aliasing")


def test_args_types():
    prof = load("""
        profiles:
        - plugins: {multiPoint: {enabled: [{name: SelectorSpread}]}}
          pluginConfig:
          - name: InterPodAffinity
            args: {apiVersion: kubescheduler.config.k8s.io/v1beta3, hardPodAffinityWeight: 7}
          - name: SelectorSpread
            args: {b: [1, 2.5], a: null}
    """).profiles[0]
    assert prof.args["InterPodAffinity"] == InterPodAffinityArgs(7)
    assert prof.args["SelectorSpread"] == UnknownArgs({"a": None, "b": [1, 2.5]})
    assert isinstance(prof.args["NodeResourcesFit"], NodeResourcesFitArgs)


def test_node_affinity_args_as_the_models_type():
    prof = load("""
        profiles:
        - pluginConfig:
          - name: NodeAffinity
            args:
              addedAffinity:
                requiredDuringSchedulingIgnoredDuringExecution:
                  nodeSelectorTerms: [{matchExpressions: [{key: a, operator: In, values: [x]}]}]
                preferredDuringSchedulingIgnoredDuringExecution:
                - {weight: 3, preference: {matchFields: [{key: metadata.name, operator: In,
                                                          values: [n1]}]}}
    """).profiles[0]
    na = prof.args["NodeAffinity"].node_affinity()
    assert na.required[0].match_expressions[0].values == ("x",)
    assert na.preferred[0].weight == 3
    assert na.preferred[0].preference.match_fields[0].key == "metadata.name"


def test_profile_for():
    cfg = load("profiles:\n- schedulerName: a\n- schedulerName: b\n")
    assert cfg.profile_for("b").scheduler_name == "b"
    with pytest.raises(ProfileNotFoundError) as info:
        cfg.profile_for("default-scheduler")
    assert info.value.reason == 'profile not found for scheduler name "default-scheduler"'
    assert info.value.scheduler_name == "default-scheduler"
    assert isinstance(info.value, InputError) and isinstance(info.value, LookupError)
    assert str(info.value.located(obj="Pod ns/p")) == (
        'cfg.yaml: Pod ns/p: profile not found for scheduler name "default-scheduler"'
    )


def test_load_config_names_the_file(tmp_path):
    path = tmp_path / "sched.yaml"
    path.write_text(HEAD + "percentageOfNodesToScore: 101\n")
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert str(info.value) == (
        f"{path}: percentageOfNodesToScore: Invalid value: 101: not in valid range [0-100]"
    )
    with pytest.raises(ConfigError, match="No such file"):
        load_config(tmp_path / "missing.yaml")
    path.write_text(HEAD)
    assert load_config(path).source == str(path)


@pytest.mark.parametrize(
    ("text", "ns"),
    [
        ("0", 0),
        ("1.5s", 1_500_000_000),
        ("1m30s", 90 * 10**9),
        ("-2h", -7200 * 10**9),
        ("300ms", 300_000_000),
        ("1µs", 1000),
        (".5us", 500),
    ],
)
def test_durations(text, ns):
    assert parse_duration(text) == ns


@pytest.mark.parametrize(
    ("ns", "text"),
    [
        (0, "0s"),
        (1, "1ns"),
        (1500, "1.5µs"),
        (90 * 10**9, "1m30s"),
        (3600 * 10**9, "1h0m0s"),
        (-1_500_000_000, "-1.5s"),
        (45_500_000_000, "45.5s"),
    ],
)
def test_duration_text(ns, text):
    assert format_duration(ns) == text


def test_read_document_keeps_json_member_order_and_repeats():
    doc, strict, is_json = read_document(b'{"b": 1, "a": 2, "b": 3}', "x.json")
    assert is_json and strict == [] and doc.pairs == [("b", 1), ("a", 2), ("b", 3)]
    doc, strict, is_json = read_document(b"b: 1\na: 2\nb: 3\n", "x.yaml")
    assert not is_json and doc.pairs == [("a", 2), ("b", 3)]
    assert strict == ['line 3: key "b" already set in map']
