"""Filter verdicts filled before a run: plugin by plugin (each plugin once per distinct
``filter_key``, then each class's first failure per node) equals every class filled on
its own, whole profile at once (``verdicts.prefill`` with and without ``keys``)."""

from __future__ import annotations

import numpy as np
import pytest

from kscore_fast.api import load_cluster
from kscore_fast.config.load import default_config
from kscore_fast.framework import runtime, verdicts
from kscore_fast.profile import framework_for_profile

from ..scenarios_profile import TOPOLOGY_FAMILIES, profile_scenario

FAMILIES = ["basic", *TOPOLOGY_FAMILIES]


def _verdicts(seed: int, family: str) -> tuple[np.ndarray, np.ndarray, bool]:
    """(plugin by plugin, class by class, whether the plugin-by-plugin path ran)."""
    objs = profile_scenario(seed, max_nodes=40, max_pods=60, max_pending=30, family=family)
    c = load_cluster(objects=objs)
    fw = framework_for_profile(default_config("v1beta3").profiles[0], 100).framework
    run = runtime._Run(fw, c.snapshot, c.batch, c.snapshot.n_nodes, explain=False)
    n_classes = int(run.classes.max()) + 1
    reps = np.empty(n_classes, dtype=np.int64)
    reps[run.classes[::-1]] = np.arange(len(c.batch))[::-1]
    todo = np.arange(n_classes, dtype=np.int64)
    out = []
    for keys in (run.keys, None):
        memo = np.full((n_classes, c.snapshot.n_nodes), -7, dtype=np.int64)
        done = np.zeros((n_classes, -(-c.snapshot.n_nodes // 256)), dtype=np.bool_)
        verdicts.prefill(run.fids, run.table, reps, todo, memo, done, keys)
        assert done.all()
        out.append(memo)
    by_plugin = verdicts._prefill_by_plugin(run.fids, run.table, reps, run.keys, todo,
                                            np.empty_like(out[0]))  # fmt: skip
    return out[0], out[1], by_plugin


@pytest.mark.parametrize("budget", [verdicts.BY_PLUGIN_ENTRIES, 0])
@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("seed", range(6))
def test_plugin_by_plugin_equals_class_by_class(seed, family, budget, monkeypatch):
    """With the default budget and with none (many plugin rows: class by class)."""
    monkeypatch.setattr(verdicts, "BY_PLUGIN_ENTRIES", budget)
    by_plugin, by_class, _ = _verdicts(seed, family)
    assert (by_plugin != -7).all()
    np.testing.assert_array_equal(by_plugin, by_class)


@pytest.mark.parametrize("budget", [verdicts.BY_PLUGIN_ENTRIES, 0])
def test_both_paths_run(budget, monkeypatch):
    """Small scenarios go plugin by plugin; without a budget, those with more plugin rows
    than twice their classes go class by class."""
    monkeypatch.setattr(verdicts, "BY_PLUGIN_ENTRIES", budget)
    ran = [_verdicts(seed, family)[2] for seed in range(6) for family in FAMILIES]
    assert all(ran) if budget else not all(ran)
