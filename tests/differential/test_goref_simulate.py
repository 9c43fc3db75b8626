"""kscore simulate --tie-break go-rand == the real kube-scheduler v1.23.6 run pod after pod
(``goref simulate --plugin-metrics-draw``: the real scheduler cache, ``AssumePod`` after
each cycle, Go's global ``math/rand`` seeded by ``rand.Seed(seed)``, with scheduleOne's
``rand.Intn(100)`` plugin-metrics draw before each cycle).

Whole placement sequences must be equal: hosts exactly (ties included: the draws are
replayed), and every count, FitError text and score, on the random clusters and
configurations of :mod:`tests.scenarios_profile` (the basic family and the topology
families, ``KSCORE_DIFF_SIM_SCENARIOS`` each, default 40; ``-m slow``: 500 more each).
"""

from __future__ import annotations

import json
import os

import pytest
import yaml

from benchmarks.timing import timing_free
from kscore_fast.api import load_cluster, simulate
from kscore_fast.plugins.helper import counter_table

from ..goref import compare, goref_missing, run_goref
from ..scenarios_profile import profile_config, profile_scenario

pytestmark = [
    pytest.mark.goref,
    pytest.mark.skipif(goref_missing() is not None, reason=str(goref_missing())),
]

N_SCENARIOS = int(os.environ.get("KSCORE_DIFF_SIM_SCENARIOS", 40))
FAMILIES = {"basic": 1_000_000, "pts": 1_100_000, "ipa": 1_200_000, "mixed": 1_300_000}
SIZES = {"max_nodes": 12, "max_pods": 30, "max_pending": 16}


def simulate_differences(tmp_path, seed: int, family: str, **sizes) -> list[str]:
    objs = profile_scenario(seed, family=family, **sizes)
    path = tmp_path / f"scenario-{seed}.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objs}))
    config_path = tmp_path / f"config-{seed}.yaml"
    config_path.write_text(yaml.safe_dump(profile_config(seed, family=family)))
    ours = simulate(load_cluster([path]), config=config_path, seed=seed,
                    tie_break="go-rand").to_dict()  # fmt: skip
    go = run_goref([path], ["--config", str(config_path), "--seed", str(seed),
                            "--plugin-metrics-draw"], command="simulate")  # fmt: skip
    n = timing_free(go["results"])  # the real scheduler's placements after a slow cycle
    ours["results"], go["results"] = ours["results"][:n], go["results"][:n]
    diffs = compare(ours, go)
    diffs += [
        f"{k['pod']}: host {k['host']!r} != go {g['host']!r}"
        for k, g in zip(ours["results"], go["results"], strict=True)
        if k["host"] != g["host"]
    ]
    return diffs


def _check(tmp_path, seed: int, family: str, **sizes) -> None:
    diffs = simulate_differences(tmp_path, seed, family, **sizes)
    assert not diffs, f"scenario {family} {seed}:\n" + "\n".join(diffs[:20])


@pytest.mark.parametrize("family", list(FAMILIES))
@pytest.mark.parametrize("seed", range(N_SCENARIOS))
def test_sequences_equal_go(tmp_path, family, seed):
    _check(tmp_path, FAMILIES[family] + seed, family, **SIZES)


@pytest.mark.parametrize("family", list(FAMILIES))
def test_sequence_past_100_nodes(tmp_path, family):
    """Adaptive sampling: the rotation and the early stop carry over the whole run."""
    _check(tmp_path, FAMILIES[family] + 90_000, family, max_nodes=300, max_pods=300,
           max_pending=40)  # fmt: skip


@pytest.mark.parametrize("family", ["pts", "ipa", "mixed"])
@pytest.mark.parametrize("seed", range(10))
def test_sequences_equal_go_with_counters_in_the_table(tmp_path, family, seed, monkeypatch):
    """Every counter of a hostname (or wide) key in the counter table, as at scale (these
    small clusters keep them dense otherwise)."""
    monkeypatch.setattr(counter_table, "DENSE_BUDGET", -1)
    _check(tmp_path, FAMILIES[family] + 200_000 + seed, family, **SIZES)


@pytest.mark.slow
@pytest.mark.parametrize("family", list(FAMILIES))
@pytest.mark.parametrize("seed", range(500))
def test_many_more_sequences(tmp_path, family, seed):
    _check(tmp_path, FAMILIES[family] + 100_000 + seed, family, max_nodes=30, max_pods=80,
           max_pending=25)  # fmt: skip
