"""Verdicts and raw scores kept across cycles (``framework/cycle_cache.py``,
``framework/cached_scoring.py``) give the sequence computed afresh: with room for every
twin group, with one slot (a group evicts another), and with a log of one entry (every
change starts a new epoch: every verdict made afresh). Raw scores are kept only without
score output (``scores="none"``); with it, every cycle scores afresh."""

from __future__ import annotations

import copy
import random

import pytest

from kscore_fast import Simulator, api
from kscore_fast.framework import cycle_cache

from ..scenarios_profile import profile_scenario


def _with_twins(seed: int, family: str) -> list[dict]:
    """A profile scenario whose pending pods come back as twins (same spec, new names),
    interleaved, so that twin groups recur with changes in between."""
    rng = random.Random(seed)
    objs = profile_scenario(seed, family=family, max_pending=6)
    pending = [o for o in objs if o.get("kind") == "Pod" and not o["spec"].get("nodeName")]
    for k in range(24):
        twin = copy.deepcopy(rng.choice(pending))
        twin["metadata"]["name"] = f"twin-{k}"
        twin.get("status", {}).pop("nominatedNodeName", None)
        objs.append(twin)
    return objs


def _sizes(monkeypatch, budget: int, log: int) -> None:
    monkeypatch.setattr(cycle_cache, "BUDGET", budget)
    monkeypatch.setattr(cycle_cache, "LOG_SIZE", log)


def _run(objs: list[dict], pct: int, scores: str = "all") -> list[dict]:
    c = api.load_cluster(objects=objs)
    r = api.simulate(c, seed=3, tie_break="go-rand", percentage_of_nodes_to_score=pct,
                     scores=scores)  # fmt: skip
    return r.to_dict()["results"]


def _placements(results: list[dict]) -> list[tuple]:
    return [(r["pod"], r["host"], r["error"], r["feasibleNodes"], r["evaluatedNodes"])
            for r in results]  # fmt: skip


@pytest.mark.parametrize("family", ["basic", "pts", "ipa", "mixed"])
@pytest.mark.parametrize("seed", range(16))
def test_kept_verdicts_equal_fresh_ones(monkeypatch, family, seed):
    objs = _with_twins(seed, family)
    for pct in (100, 30):
        _sizes(monkeypatch, 1, 1)  # one slot, a new epoch at every change: all afresh
        fresh = _run(objs, pct)
        _sizes(monkeypatch, 1, 3)  # one slot: each group evicts the one before
        assert _run(objs, pct) == fresh
        assert _placements(_run(objs, pct, "none")) == _placements(fresh)
        _sizes(monkeypatch, 64 << 20, 1 << 16)
        assert _run(objs, pct) == fresh
        assert _placements(_run(objs, pct, "none")) == _placements(fresh)


@pytest.mark.parametrize("family", ["basic", "mixed"])
@pytest.mark.parametrize("seed", range(6))
def test_deletions_and_binds_reach_the_kept_verdicts(monkeypatch, family, seed):
    """replay with deletions, and bind/delete calls between cycles, on kept verdicts and
    on fresh ones: the same hosts."""
    objs = _with_twins(seed, family)
    rng = random.Random(seed)

    def steps() -> list[str | None]:
        sim = Simulator(api.load_cluster(objects=objs), seed=seed, tie_break="go-rand")
        names = sim.pods
        hosts = []
        for k, name in enumerate(names):
            if k % 5 == 4:  # someone else binds it where the scheduler would
                host = sim.schedule(name, scores="all")["host"]
                if host is not None:
                    sim.bind(name, host)
            else:
                host = sim.schedule_and_bind(name)
            hosts.append(host)
            if k % 3 == 2:
                sim.delete(names[k - 1 - rng.randrange(2)])
        return hosts

    _sizes(monkeypatch, 1, 1)
    state = rng.getstate()
    fresh = steps()
    rng.setstate(state)
    _sizes(monkeypatch, 64 << 20, 1 << 16)
    assert steps() == fresh
