"""``kscore capacity`` (:func:`kscore_fast.capacity`) == the real kube-scheduler v1.23.6
scheduling the same copies one after the other (``goref simulate``, Go's tie-breaks):
the copies that fit, where each went, and the error of the first that did not.

Random profile scenarios (:mod:`tests.scenarios_profile`), their pending pods left out;
the template is one of those pending pods. ``-m slow``: 300 more."""

from __future__ import annotations

import json
import random

import pytest
import yaml

from kscore_fast import capacity, load_cluster
from kscore_fast.capacity_search import copies, drain, template_pod

from ..goref import goref_missing, run_goref
from ..scenarios_profile import profile_config, profile_scenario

pytestmark = [
    pytest.mark.goref,
    pytest.mark.skipif(goref_missing() is not None, reason=str(goref_missing())),
]
FAMILIES = {"basic": 4_000_000, "pts": 4_100_000, "ipa": 4_200_000, "mixed": 4_300_000}


def _check(tmp_path, family: str, seed: int, limit: int = 150) -> None:
    objs = profile_scenario(seed, family=family, max_nodes=12, max_pods=30, max_pending=10)
    pending = [o for o in objs if o["kind"] == "Pod" and not o["spec"].get("nodeName")
               and not o["metadata"].get("deletionTimestamp")]  # fmt: skip
    if not pending:
        pytest.skip("no pending pod to copy")
    rest = [o for o in objs if not (o["kind"] == "Pod" and not o["spec"].get("nodeName"))]
    template = random.Random(seed).choice(pending)
    config = tmp_path / "config.yaml"
    config.write_text(yaml.safe_dump(profile_config(seed, family=family)))
    ours = capacity(load_cluster(objects=rest), template, config=config, seed=seed,
                    tie_break="go-rand", max_replicas=limit)  # fmt: skip
    n = ours.replicas + (ours.stop_reason is not None)
    cluster = tmp_path / "cluster.json"
    items = rest + copies(template_pod(template), 0, n)
    cluster.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
    flags = ["--config", str(config), "--seed", str(seed), "--plugin-metrics-draw",
             "--scores", "none"]  # fmt: skip
    go = run_goref([cluster], flags, "simulate")
    results = go["results"]
    if any(r.get("traceDraws") for r in results):
        pytest.skip("a slow Go cycle drew for its trace log")
    assert [r["host"] for r in results[: ours.replicas]] == ours.hosts
    if ours.stop_reason is not None:
        assert results[-1]["host"] is None and results[-1]["error"] == ours.stop_reason


@pytest.mark.parametrize("family", list(FAMILIES))
@pytest.mark.parametrize("seed", range(6))
def test_capacity_equals_go(tmp_path, family, seed):
    _check(tmp_path, family, FAMILIES[family] + seed)


@pytest.mark.slow
@pytest.mark.parametrize("family", list(FAMILIES))
@pytest.mark.parametrize("seed", range(75))
def test_many_more_capacities(tmp_path, family, seed):
    _check(tmp_path, family, FAMILIES[family] + 100_000 + seed, limit=300)


def _drain_check(tmp_path, family: str, seed: int) -> None:
    objs = profile_scenario(seed, family=family, max_nodes=12, max_pods=40, max_pending=4)
    nodes = [o["metadata"]["name"] for o in objs if o["kind"] == "Node"]
    rng = random.Random(seed)
    gone = rng.sample(nodes, min(len(nodes) - 1, rng.randint(1, 3)))
    config = tmp_path / "config.yaml"
    config.write_text(yaml.safe_dump(profile_config(seed, family=family)))
    ours = drain(load_cluster(objects=objs), gone, config=config, seed=seed,
                 tie_break="go-rand")  # fmt: skip
    by_key = {f"{o['metadata'].get('namespace', 'default')}/{o['metadata']['name']}": o
              for o in objs if o["kind"] == "Pod"}  # fmt: skip
    ops: list[dict] = [{"op": "removeNode", "node": n} for n in gone]
    for row in ours.pods:
        pod = json.loads(json.dumps(by_key[row["pod"]]))
        pod["spec"].pop("nodeName")
        ops += [{"op": "delete", "pod": row["pod"]}, {"op": "addPod", "pod": pod}]
    ops += [{"op": "schedule", "pod": row["pod"]} for row in ours.pods]
    cluster, events = tmp_path / "cluster.json", tmp_path / "events.jsonl"
    cluster.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objs}))
    events.write_text("".join(json.dumps(op) + "\n" for op in ops))
    flags = ["--config", str(config), "--seed", str(seed), "--plugin-metrics-draw",
             "--scores", "none", "--events", str(events)]  # fmt: skip
    results = run_goref([cluster], flags, "simulate")["results"]
    if any(r.get("traceDraws") for r in results):
        pytest.skip("a slow Go cycle drew for its trace log")
    assert [(r["pod"], r["host"], r["error"]) for r in results] == [
        (row["pod"], row["host"], row["error"]) for row in ours.pods]  # fmt: skip


@pytest.mark.parametrize("family", list(FAMILIES))
@pytest.mark.parametrize("seed", range(6))
def test_drain_equals_go(tmp_path, family, seed):
    _drain_check(tmp_path, family, FAMILIES[family] + 50_000 + seed)


@pytest.mark.slow
@pytest.mark.parametrize("family", list(FAMILIES))
@pytest.mark.parametrize("seed", range(75))
def test_many_more_drains(tmp_path, family, seed):
    _drain_check(tmp_path, family, FAMILIES[family] + 150_000 + seed)
