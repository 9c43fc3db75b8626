"""The framework's part: MultiPoint expansion, score weights and NewFramework's errors
(pkg/scheduler/framework/runtime/framework.go, v1.23.6), from small configurations."""

from __future__ import annotations

import textwrap

import pytest

from kscore_fast.config import parse_config
from kscore_fast.config.build import FrameworkError, _score_weights
from kscore_fast.config.types import Plugin
from kscore_fast.errors import ConfigError

HEAD = "apiVersion: kubescheduler.config.k8s.io/{v}\nkind: KubeSchedulerConfiguration\n"


def load(body: str, version: str = "v1beta3"):
    return parse_config((HEAD.format(v=version) + textwrap.dedent(body)).encode(), "cfg.yaml")


def refused(body: str, version: str = "v1beta3") -> str:
    with pytest.raises(ConfigError) as info:
        load(body, version)
    assert str(info.value).startswith("cfg.yaml: ")
    return info.value.reason


def test_specific_extension_point_wins_over_multipoint():
    prof = load("""
        profiles:
        - plugins:
            multiPoint:
              enabled: [{name: ImageLocality, weight: 7}]
            score:
              enabled: [{name: ImageLocality, weight: 5}]
    """).profiles[0]
    assert prof.score_weights["ImageLocality"] == 5
    assert prof.enabled("score")[0] == "ImageLocality"  # explicit plugins come first


def test_disabled_at_a_point_keeps_the_plugin_elsewhere():
    prof = load("""
        profiles:
        - plugins:
            preScore:
              disabled: [{name: TaintToleration}]
    """).profiles[0]
    assert "TaintToleration" not in prof.enabled("preScore")
    assert "TaintToleration" in prof.enabled("filter")
    assert prof.score_weights["TaintToleration"] == 3


def test_star_at_a_point_stops_the_expansion_there():
    prof = load("""
        profiles:
        - plugins:
            score:
              disabled: [{name: "*"}]
              enabled: [{name: SelectorSpread}]
    """).profiles[0]
    assert prof.score_plugins() == (("SelectorSpread", 1),)
    assert "SelectorSpread" not in prof.enabled("preScore")  # only listed at score


def test_multipoint_only_joins_the_points_a_plugin_implements():
    prof = load("""
        profiles:
        - plugins:
            multiPoint:
              enabled: [{name: SelectorSpread, weight: 4}]
    """).profiles[0]
    for point in ("preScore", "score"):
        assert prof.enabled(point)[-1] == "SelectorSpread"
    assert "SelectorSpread" not in prof.enabled("filter")
    assert prof.score_weights["SelectorSpread"] == 4


def test_weights_zero_is_one_and_negative_is_kept():
    prof = load("""
        profiles:
        - plugins:
            score:
              disabled: [{name: "*"}]
              enabled: [{name: ImageLocality, weight: 0}, {name: NodeAffinity, weight: -2}]
            multiPoint: {disabled: [{name: "*"}], enabled: [{name: PrioritySort},
                         {name: DefaultBinder}]}
    """).profiles[0]
    assert prof.score_plugins() == (("ImageLocality", 1), ("NodeAffinity", -2))


def test_a_negative_total_makes_the_next_weight_overflow():
    """Go's ``MaxTotalScore - totalPriority`` wraps around once the total is negative."""
    body = """
        profiles:
        - plugins:
            score:
              enabled: [{name: NodeAffinity, weight: -2}]
    """
    assert refused(body) == PREFIX + "total score of Score plugins could overflow"


def test_score_weight_overflow():
    big = [Plugin(f"P{i}", 2**31 - 1) for i in range(3)]
    score = frozenset({"score"})
    assert _score_weights(big, {p.name: score for p in big}) == {p.name: 2**31 - 1 for p in big}
    # int64 wraps in Go: a negative total makes MaxInt64 - total overflow
    neg = [Plugin("P0", -(2**31)), *([Plugin(f"P{i}", 2**31 - 1) for i in range(1, 3)])]
    with pytest.raises(FrameworkError, match="total score of Score plugins could overflow"):
        _score_weights(neg, {p.name: score for p in neg})


PREFIX = "initializing profiles: creating profile for scheduler name default-scheduler: "


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("filter: {enabled: [{name: NodeLabel}]}", 'FilterPlugin "NodeLabel" does not exist'),
        ("multiPoint: {enabled: [{name: Foo}]}", 'PreFilterPlugin "Foo" does not exist'),
        (
            "score: {enabled: [{name: DefaultBinder}]}",
            'plugin "DefaultBinder" does not extend ScorePlugin plugin',
        ),
        (
            "filter: {enabled: [{name: NodeName}, {name: NodeName}]}",
            'plugin "NodeName" already registered as "FilterPlugin"',
        ),
        (
            "multiPoint: {enabled: [{name: SelectorSpread}, {name: SelectorSpread}]}",
            'plugin "SelectorSpread" already registered as "PreScorePlugin"',
        ),
        (
            "multiPoint: {disabled: [{name: PrioritySort}]}",
            'one queue sort plugin required for profile with scheduler name "default-scheduler"',
        ),
        ("multiPoint: {disabled: [{name: DefaultBinder}]}", "at least one bind plugin is needed"),
    ],
)
def test_framework_errors(body, message):
    assert refused(f"profiles:\n- plugins:\n    {body}\n") == PREFIX + message


def test_node_resources_fit_args_are_checked_when_the_plugin_is_built():
    body = """
        profiles:
        - pluginConfig:
          - name: NodeResourcesFit
            args:
              scoringStrategy: {type: MostAllocated, resources: [{name: cpu, weight: 101}]}
    """
    assert refused(body) == PREFIX + (
        'initializing plugin "NodeResourcesFit": resources[0].weight: Invalid value: 101: '
        "resource weight of cpu not in valid range (0, 100]"
    )
    # not built, not checked (v1.23.6 validates these args nowhere else)
    unused = body.replace(
        "- pluginConfig:",
        "- plugins: {multiPoint: {disabled: [{name: NodeResourcesFit}]}}\n          pluginConfig:",
    )
    assert "NodeResourcesFit" not in load(unused).profiles[0].args


def test_queue_sort_must_match_across_profiles():
    body = """
        profiles:
        - schedulerName: a
        - schedulerName: b
          plugins:
            multiPoint: {disabled: [{name: PrioritySort}]}
            queueSort: {enabled: [{name: PrioritySort}]}
    """
    assert refused(body).startswith(
        "profiles[1].plugins.queueSort: Invalid value: config.PluginSet{Enabled:[]config.Plugin"
        '{config.Plugin{Name:"PrioritySort", Weight:0}}, Disabled:[]config.Plugin(nil)}: '
        "has to match for all profiles"
    )


def test_args_are_those_of_built_plugins():
    prof = load("""
        profiles:
        - plugins:
            multiPoint: {disabled: [{name: "*"}], enabled: [{name: PrioritySort},
                         {name: DefaultBinder}, {name: SelectorSpread}]}
          pluginConfig:
          - {name: SelectorSpread, args: {x: 1}}
          - {name: Unused, args: {y: 2}}
    """).profiles[0]
    assert set(prof.args) == {"SelectorSpread"}
    assert prof.args["SelectorSpread"].raw == {"x": 1}
    assert {pc.name for pc in prof.plugin_config} == {"SelectorSpread", "Unused"}
