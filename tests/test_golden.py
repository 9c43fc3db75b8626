"""kscore == golden outputs of the real kube-scheduler v1.23.6, recorded by goref.

data/golden/selectorspread.jsonl.gz, profile.jsonl.gz, simulate.jsonl.gz and
replay.jsonl.gz (regenerate with benchmarks/goref/make_golden.py) hold a few hundred
scenarios and goref's output for them: SelectorSpread alone; the default profile's filters
and scores under random KubeSchedulerConfigurations, PodTopologySpread and InterPodAffinity
included (also the embedded cluster and the openb sample under the default
configuration); whole sequential runs with Go's tie-breaks; timed replays through the real
scheduling queue (docs/queue.md). No Go is needed here.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from kscore_fast.api import load_cluster, score, simulate
from kscore_fast.queue import replay_timed

from .goref import compare

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "golden"


def _cases(name: str) -> list[dict]:
    with gzip.open(GOLDEN / name, "rt", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh]


CASES = _cases("selectorspread.jsonl.gz")
PROFILE_CASES = _cases("profile.jsonl.gz")
SIMULATE_CASES = _cases("simulate.jsonl.gz")
REPLAY_CASES = _cases("replay.jsonl.gz")


def test_golden_set_is_substantial():
    assert len(CASES) >= 250
    assert sum(len(c["output"]["results"]) for c in CASES) > 1000


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_matches_kube_scheduler(case):
    kwargs = {"plugins": "SelectorSpread", **case["kwargs"]}  # recorded with that default
    ours = score(load_cluster(objects=[case["input"]]), **kwargs).to_dict()
    diffs = compare(ours, case["output"])
    assert not diffs, "\n".join(diffs[:20])


def test_profile_golden_set_is_substantial():
    assert len(PROFILE_CASES) >= 150
    results = [r for c in PROFILE_CASES for r in c["output"]["results"]]
    assert len(results) > 700
    assert sum(r["error"] is not None for r in results) > 50  # FitErrors among them
    assert sum(r["feasibleNodes"] != r["evaluatedNodes"] for r in results) > 100


@pytest.mark.parametrize("case", PROFILE_CASES, ids=[c["name"] for c in PROFILE_CASES])
def test_profile_matches_kube_scheduler(case, tmp_path):
    config = tmp_path / "config.yaml"
    config.write_text(case["config"])
    ours = score(load_cluster(objects=[case["input"]]), config=config, **case["kwargs"])
    top_k = int(case["kwargs"]["scores"][4:]) if "scores" in case["kwargs"] else None
    diffs = compare(ours.to_dict(), case["output"], top_k)
    assert not diffs, "\n".join(diffs[:20])


def test_simulate_golden_set_is_substantial():
    assert len(SIMULATE_CASES) >= 100
    results = [r for c in SIMULATE_CASES for r in c["output"]["results"]]
    assert len(results) > 800
    assert sum(r["host"] is not None for r in results) > 400
    assert sum(r["error"] is not None for r in results) > 50


@pytest.mark.parametrize("case", SIMULATE_CASES, ids=[c["name"] for c in SIMULATE_CASES])
def test_simulate_matches_kube_scheduler(case, tmp_path):
    """Whole sequences, hosts included (Go's tie-breaks replayed)."""
    config = tmp_path / "config.yaml"
    config.write_text(case["config"])
    ours = simulate(load_cluster(objects=[case["input"]]), config=config, **case["kwargs"])
    ours_doc = ours.to_dict()
    diffs = compare(ours_doc, case["output"])
    diffs += [
        f"{k['pod']}: host {k['host']!r} != go {g['host']!r}"
        for k, g in zip(ours_doc["results"], case["output"]["results"], strict=True)
        if k["host"] != g["host"]
    ]
    assert not diffs, "\n".join(diffs[:20])


def test_replay_golden_set_is_substantial():
    assert len(REPLAY_CASES) >= 100
    attempts = [a for c in REPLAY_CASES for a in c["output"]["attempts"]]
    assert len(attempts) > 2000
    assert sum(a["attempt"] > 1 and a["host"] is not None for a in attempts) > 30  # retried
    assert sum(bool(c["output"]["pending"]) for c in REPLAY_CASES) > 20


@pytest.mark.parametrize("case", REPLAY_CASES, ids=[c["name"] for c in REPLAY_CASES])
def test_replay_matches_kube_scheduler(case, tmp_path):
    """Every attempt of a timed replay (the cluster given as loaded: pods arrive through
    the Simulator's add_pod), then the pods left pending and the clock."""
    from .differential.timed import differences

    config = tmp_path / "config.yaml"
    config.write_text(case["config"])
    ours = replay_timed(load_cluster(objects=[case["input"]]), case["events"], config=config,
                        **case["kwargs"])  # fmt: skip
    diffs = differences(ours.to_dict(), case["output"])
    assert not diffs, "\n".join(diffs[:20])
