"""mergePluginSet's rules, ported from TestMergePlugins
(pkg/scheduler/apis/config/v1beta3/default_plugins_test.go, v1.23.6) and checked on both
versions."""

from __future__ import annotations

import pytest

from kscore_fast.config.merge import merge_plugin_set, merge_plugins
from kscore_fast.config.schema import V1BETA2, V1BETA3


def _set(*enabled: str | tuple[str, int], disabled: tuple[str, ...] = ()) -> dict:
    out: dict = {}
    if enabled:
        out["enabled"] = [
            {"name": e} if isinstance(e, str) else {"name": e[0], "weight": e[1]} for e in enabled
        ]
    if disabled:
        out["disabled"] = [{"name": d} for d in disabled]
    return out


DEFAULT = _set("DefaultPlugin1", "DefaultPlugin2")

CASES = {
    "disable all default plugins": (_set("CustomPlugin", disabled=("*",)), _set("CustomPlugin")),
    "disable one default plugin": (
        _set("CustomPlugin", disabled=("DefaultPlugin2",)),
        _set("DefaultPlugin1", "CustomPlugin"),
    ),
    "enable a custom plugin after the defaults": (
        _set("CustomPlugin"),
        _set("DefaultPlugin1", "DefaultPlugin2", "CustomPlugin"),
    ),
    "a custom plugin can be placed first by disabling and re-enabling the defaults": (
        _set("CustomPlugin", "DefaultPlugin1", "DefaultPlugin2", disabled=("*",)),
        _set("CustomPlugin", "DefaultPlugin1", "DefaultPlugin2"),
    ),
    "a re-configured default plugin is replaced in place": (
        _set("CustomPlugin", ("DefaultPlugin2", 5)),
        _set("DefaultPlugin1", ("DefaultPlugin2", 5), "CustomPlugin"),
    ),
    "a repeated custom plugin is kept twice (the framework refuses it)": (
        _set("DefaultPlugin1", "CustomPlugin", ("DefaultPlugin1", 3)),
        _set(("DefaultPlugin1", 3), "DefaultPlugin2", "DefaultPlugin1", "CustomPlugin"),
    ),
    "nothing custom": ({}, DEFAULT),
}


@pytest.mark.parametrize(("custom", "want"), CASES.values(), ids=CASES.keys())
def test_merge_plugin_set_v1beta2(custom, want):
    assert merge_plugin_set(DEFAULT, custom, keep_disabled=False) == want


@pytest.mark.parametrize(("custom", "want"), CASES.values(), ids=CASES.keys())
def test_merge_plugin_set_v1beta3_keeps_disabled(custom, want):
    got = merge_plugin_set(DEFAULT, custom, keep_disabled=True)
    assert got.get("enabled") == want.get("enabled")
    assert got.get("disabled", []) == custom.get("disabled", [])


def test_v1beta3_disabled_of_the_default_set_count():
    default = _set("A", "B", disabled=("B",))
    assert merge_plugin_set(default, _set("C"), keep_disabled=True) == _set(
        "A", "C", disabled=("B",)
    )


def test_no_custom_plugins_keeps_the_defaults():
    defaults = {"score": _set("A")}
    assert merge_plugins(V1BETA3, defaults, None) is defaults


def test_v1beta2_ignores_multipoint_and_v1beta3_merges_it():
    custom = {"multiPoint": _set("X"), "score": _set(("A", 2))}
    defaults = {"score": _set("A", "B"), "multiPoint": _set("M")}
    v2 = merge_plugins(V1BETA2, dict(defaults), custom)
    assert v2["multiPoint"] == _set("M") and v2["score"] == _set(("A", 2), "B")
    v3 = merge_plugins(V1BETA3, dict(defaults), custom)
    assert v3["multiPoint"] == _set("M", "X")
