"""The plugin registry refuses a plugin that cannot run, with one clear error, when it is
registered (``framework/registry.py``); the in-tree registry and the extension points that
configurations see come from the registrations."""

from __future__ import annotations

from types import SimpleNamespace

import numba
import numpy as np
import pytest

from kscore_fast.config.build import UPSTREAM_ONLY, plugin_points
from kscore_fast.errors import PluginError
from kscore_fast.framework import abi
from kscore_fast.framework.entries import PluginTable
from kscore_fast.framework.interface import Plugin
from kscore_fast.framework.registry import Registry, validate
from kscore_fast.plugins import registry


@numba.njit
def _filter(state, pod, node):  # pragma: no cover - compiled
    return np.int64(0)


@numba.njit
def _score(state, pod, nodes, out):  # pragma: no cover - compiled
    out[:] = 0


@numba.njit
def _score_normalize(state, pod, nodes, raw, scores):  # pragma: no cover - compiled
    raw[:] = 0
    scores[:] = 0


def _python_filter(state, pod, node):  # a Python function, not compiled
    return 0


def _plugin(**attrs):
    base = {"name": "Good", "filters": True, "scores": True,
            "kernels": SimpleNamespace(filter_node=_filter, score_pod=_score),
            "prepare": lambda self, snapshot, batch: (np.zeros(1),),
            "reasons": lambda self, state, code: ["no"]}  # fmt: skip
    return type("P", (Plugin,), {**base, **attrs})


def test_a_well_formed_plugin_registers():
    reg = Registry()
    cls = _plugin()
    assert reg.register(cls) is cls and "Good" in reg and reg.get("Good") is cls


@pytest.mark.parametrize(
    "attrs, message",
    [
        ({"name": ""}, "its name must be a non-empty string"),
        ({"filters": False, "scores": False}, "neither Filter nor Score"),
        ({"scores": False, "normalizes": True}, "NormalizeScore without Score"),
        ({"kernels": None}, "no kernels"),
        ({"kernels": SimpleNamespace(score_pod=_score)}, "kernels.filter_node is missing"),
        ({"normalizes": True}, "kernels.normalize_pod is missing"),
        ({"kernels": SimpleNamespace(filter_node=_filter, score_pod=max)},
         "kernels.score_pod is not a function"),
        ({"kernels": SimpleNamespace(filter_node=_filter, score_pod=_python_filter)},
         r"kernels.score_pod takes \(state, pod, node\); expected \(state, pod, nodes, out\)"),
        ({"kernels": SimpleNamespace(filter_node=_score, score_pod=_score)},
         r"kernels.filter_node takes \(state, pod, nodes, out\); expected \(state, pod, node\)"),
        ({"kernels": SimpleNamespace(filter_node=_filter, score_pod=_score, assume=_filter)},
         "kernels.assume and kernels.remove come together"),
        ({"kernels": SimpleNamespace(filter_node=_filter, score_pod=_score,
                                     score_normalize_pod=_score)},
         r"kernels.score_normalize_pod takes \(state, pod, nodes, out\); expected "
         r"\(state, pod, nodes, raw, scores\)"),
        ({"kernels": SimpleNamespace(filter_node=_filter, score_pod=_score,
                                     score_normalize_pod=_score_normalize)},
         "kernels.score_normalize_pod without NormalizeScore"),
        ({"reasons": Plugin.reasons}, "implements reasons"),
        ({"prepare": Plugin.prepare}, "does not implement prepare"),
    ],
)  # fmt: skip
def test_a_misshapen_plugin_is_refused_at_registration(attrs, message):
    with pytest.raises(PluginError, match=message):
        Registry().register(_plugin(**attrs))


def test_a_class_that_is_not_a_plugin_is_refused():
    with pytest.raises(PluginError, match="is not a plugin class"):
        validate(object)


def test_names_are_unique_and_in_tree_names_are_taken():
    reg = Registry([_plugin()])
    with pytest.raises(PluginError, match="already registered"):
        reg.register(_plugin())
    with pytest.raises(PluginError, match="in-tree plugin's"):
        registry.register_plugin(_plugin(name="NodeResourcesFit"))


def test_extension_points_come_from_the_registrations():
    points = plugin_points()
    for name, cls in registry.IN_TREE.items():
        assert points[name] == cls.implemented_points()
    assert set(UPSTREAM_ONLY) <= set(points)
    assert _plugin().implemented_points() == {"preFilter", "filter", "preScore", "score"}


def test_every_capability_defaults_to_sharing_nothing():
    p = _plugin()()
    assert not (p.spec_only or p.row_independent or p.constant_normalize or p.bind_independent)
    state = (np.zeros(1),)
    assert p.filter_key(state) is None and p.score_groups(state) is None
    assert p.copy_groups(state) is None and p.constant_scores(state) is None


def test_a_plugin_table_holds_only_the_entry_points_asked_for():
    cls = _plugin()
    table = PluginTable([cls()], [(np.zeros(1),)], [abi.FILTER]).table
    assert table[0, abi.STATE] != 0 and table[0, abi.FILTER] != 0
    assert table[0, abi.SCORE] == 0 and table[0, abi.ASSUME] == 0
    both = PluginTable([cls()], [(np.zeros(1),)], [abi.SCORE, abi.SCORE_SERIAL, abi.NORMALIZE])
    assert both.table[0, abi.SCORE] == both.table[0, abi.SCORE_SERIAL] != 0  # (same kernels)
    assert both.table[0, abi.NORMALIZE] == 0  # (no NormalizeScore)


def test_a_kernel_that_does_not_compile_for_the_state_says_which_plugin():
    @numba.njit
    def broken(state, pod, node):  # pragma: no cover - compiled
        return state[0].no_such_attribute

    cls = _plugin(name="Broken", kernels=SimpleNamespace(filter_node=broken, score_pod=_score))
    with pytest.raises(PluginError, match="plugin 'Broken': its filter kernels do not compile"):
        PluginTable([cls()], [(np.zeros(1),)], [abi.FILTER])


def test_a_plugins_own_state_is_by_default_a_deep_copy():
    """``own_state`` (what a sequential run and each Simulator branch update in place):
    by default every array and object copied, numbers kept."""
    state = (np.arange(3), (np.zeros(2), {"counts": [1]}), np.int64(4), 5)
    owned = _plugin()().own_state(state)
    assert owned[0] is not state[0] and owned[1][0] is not state[1][0]
    assert owned[1][1] == state[1][1] and owned[1][1] is not state[1][1]
    assert owned[1][1]["counts"] is not state[1][1]["counts"]
    assert owned[2:] == state[2:] and np.array_equal(owned[0], state[0])
