"""kscore == the real kube-scheduler v1.23.6 (benchmarks/goref) with generic ephemeral
volumes (:mod:`tests.scenarios_ephemeral`): pending pods whose ephemeral volumes' claims
are present and theirs, absent, or another's, among their other volumes; pods on nodes
with their own claims, which the volume limits count. Under the VolumeBinding profile
(VolumeBinding's PreFilter texts, binding and provisioning the claims, a ReplicaSet's
pods with the claims ``--expand-workloads`` makes) and the whole default profile (the
CSI and in-tree limits counting ephemeral claims): in ``score`` every verdict count,
FitError text and score; in whole ``simulate`` runs with Go's tie-breaks the same, every
host and ``volumeBindings``; the timed queue (``replay``) attempt by attempt. And pods
on nodes whose ephemeral volume's claim another owns (Go's Filter ``Error`` status),
also in PostFilter's dry runs (``score --explain`` and ``simulate --preemption``: with no
candidate, Go's PostFilter returns the dry runs' ``Error``).
``KSCORE_DIFF_EPHEMERAL_SCENARIOS`` (default 30) scenarios each; ``-m slow``: 2,000
more of each mode, larger.
"""

from __future__ import annotations

import json
import os

import pytest
import yaml

from kscore_fast.errors import UnsupportedError

from ..goref import goref_missing
from ..scenarios_disks import DISK_CONFIG
from ..scenarios_ephemeral import (
    crowded_foreign_claims,
    ephemeral_binding_scenario,
    ephemeral_disk_scenario,
    foreign_claim_preemption_scenario,
)
from ..scenarios_volume_binding import VOLUME_BINDING_CONFIG
from .storage_runs import differences
from .test_goref_preemption import explain_differences, simulate_objects_differences
from .timed import queued_at_once

pytestmark = [
    pytest.mark.goref,
    pytest.mark.skipif(goref_missing() is not None, reason=str(goref_missing())),
]

N_SCENARIOS = int(os.environ.get("KSCORE_DIFF_EPHEMERAL_SCENARIOS", 30))
SCORE_SEEDS, SIMULATE_SEEDS, QUEUE_SEEDS = 3_400_000, 3_500_000, 3_600_000
BINDING_SLOW = {"max_nodes": 30, "max_pending": 20}
DISK_SLOW = {"max_nodes": 12, "max_pending": 20}
KINDS = {"binding": (ephemeral_binding_scenario, VOLUME_BINDING_CONFIG),
         "disks": (ephemeral_disk_scenario, DISK_CONFIG)}  # fmt: skip


def _check(tmp_path, kind: str, seed: int, mode: str, **sizes) -> None:
    make, config = KINDS[kind]
    diffs = differences(tmp_path, seed, mode, make(seed, **sizes), config)
    assert not diffs, f"ephemeral {kind} {mode} {seed}:\n" + "\n".join(diffs[:20])


@pytest.mark.parametrize("seed", range(N_SCENARIOS))
@pytest.mark.parametrize("mode", ["score", "simulate"])
@pytest.mark.parametrize("kind", sorted(KINDS))
def test_ephemeral_volumes_equal_go(tmp_path, kind, mode, seed):
    _check(tmp_path, kind, (SCORE_SEEDS if mode == "score" else SIMULATE_SEEDS) + seed, mode)


@pytest.mark.parametrize("seed", range(N_SCENARIOS // 2))
def test_the_timed_queue_equals_go(tmp_path, seed):
    """The pending pods queued at once, no further event: every attempt (host, reasons,
    bindings) equals goref's replay."""
    seed += QUEUE_SEEDS
    path, config = tmp_path / "scenario.json", tmp_path / "config.yaml"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List",
                                "items": ephemeral_binding_scenario(seed)}))  # fmt: skip
    config.write_text(yaml.safe_dump(VOLUME_BINDING_CONFIG))
    diffs = queued_at_once(path, config, seed)
    assert not diffs, f"ephemeral queue scenario {seed}:\n" + "\n".join(diffs[:20])


FOREIGN_SEEDS = 3_700_000


@pytest.mark.parametrize("seed", range(N_SCENARIOS))
@pytest.mark.parametrize("mode", ["score", "simulate"])
@pytest.mark.parametrize("kind", sorted(KINDS))
def test_foreign_claims_on_nodes_equal_go(tmp_path, kind, mode, seed):
    """Pods on nodes whose ephemeral volume's claim another owns: Go's Filter ``Error``
    status (the cycle fails with it where the search meets it), texts and hosts alike."""
    make, config = KINDS[kind]
    seed += FOREIGN_SEEDS
    _compare_foreign(tmp_path, seed, mode, make(seed, p_foreign_bound=0.3), config, kind)


def _compare_foreign(tmp_path, seed, mode, objs, config, label):
    """Go and kscore equal on ``objs``; or kscore's refusal (not simulated), only where a
    node holds three or more pods whose claim another owns."""
    try:
        diffs = differences(tmp_path, seed, mode, objs, config)
    except UnsupportedError as exc:
        assert "three or more pods whose ephemeral" in str(exc), exc
        assert crowded_foreign_claims(objs), f"refused {label} {mode} {seed}: {exc}"
        return
    assert not diffs, f"foreign claims {label} {mode} {seed}:\n" + "\n".join(diffs[:20])


@pytest.mark.parametrize("seed", range(N_SCENARIOS // 2))
def test_the_timed_queue_with_foreign_claims_equals_go(tmp_path, seed):
    """The disk scenarios with foreign claims on nodes queued at once: the cycles that
    fail with the Filter's error are retried as Go retries them."""
    seed += FOREIGN_SEEDS + 50_000
    path, config = tmp_path / "scenario.json", tmp_path / "config.yaml"
    items = ephemeral_disk_scenario(seed, p_foreign_bound=0.3)
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
    config.write_text(yaml.safe_dump(DISK_CONFIG))
    diffs = queued_at_once(path, config, seed)
    assert not diffs, f"foreign claims queue scenario {seed}:\n" + "\n".join(diffs[:20])


PREEMPTION_SEEDS = 3_800_000


@pytest.mark.parametrize("seed", range(N_SCENARIOS))
@pytest.mark.parametrize("mode", ["explain", "simulate", "retry"])
def test_foreign_claims_in_dry_runs_equal_go(tmp_path, mode, seed):
    """Preemptors that must keep a pod whose ephemeral claim another owns on a node: the
    volume limits' ``Error`` in ``SelectVictimsOnNode``, PostFilter's ``Error`` (its
    aggregated text) when no node is a candidate, the nomination cleared, the draws."""
    seed += PREEMPTION_SEEDS
    _compare_preemption(tmp_path, seed, mode, foreign_claim_preemption_scenario(seed))


def _compare_preemption(tmp_path, seed: int, mode: str, objs: list[dict]) -> None:
    if mode == "explain":
        diffs = explain_differences(tmp_path, seed, objs)
    else:
        diffs = simulate_objects_differences(tmp_path, seed, objs, retry=mode == "retry")
    assert not diffs, f"foreign claims preemption {mode} {seed}:\n" + "\n".join(diffs[:20])


def test_the_dry_runs_meet_the_error():
    """Over the first foreign-claim preemption scenarios, PostFilter returns the dry runs'
    ``Error`` in ``score --explain`` and in ``simulate --preemption``, with one node's
    error and with several (Go's aggregate in brackets)."""
    from kscore_fast.api import load_cluster, score, simulate

    seen = set()
    for seed in range(PREEMPTION_SEEDS, PREEMPTION_SEEDS + 40):
        objs = foreign_claim_preemption_scenario(seed)
        for run in (score, simulate):
            kw = {"explain": True} if run is score else {"preemption": True}
            for r in run(load_cluster(objects=objs), seed=seed, **kw).to_dict()["results"]:
                error = (r.get("preemption") or {}).get("error")
                if error:
                    assert r["preemption"]["reason"] == "dry run error"
                    assert r["preemption"]["nominatedNode"] is None
                    seen.add((run.__name__, error.startswith("[")))
    assert {("score", False), ("simulate", False), ("score", True)} <= seen, seen


def test_the_foreign_claim_scenarios_meet_the_error(tmp_path):
    """Over the first disk scenarios with foreign claims on nodes, some cycles fail with
    the error of a pod on a node (not the pending pod's own claim), in score and simulate."""
    from kscore_fast.api import load_cluster, score, simulate

    config = tmp_path / "config.yaml"
    config.write_text(yaml.safe_dump(DISK_CONFIG))
    seen = set()
    for seed in range(FOREIGN_SEEDS, FOREIGN_SEEDS + 12):
        objs = ephemeral_disk_scenario(seed, p_foreign_bound=0.3)
        for run in (score, simulate):
            for r in run(load_cluster(objects=objs), config=config).to_dict()["results"]:
                error = r["error"] or ""
                if "filter plugin: PVC" in error and f"for pod {r['pod']} " not in error:
                    seen.add(run.__name__)
    assert seen == {"score", "simulate"}, seen


def test_the_scenarios_cover_every_case(tmp_path):
    """Over the first scenarios: pods with ephemeral volumes are bound (their claims
    matched and provisioned), and others fail for an absent or a foreign claim."""
    from kscore_fast.api import load_cluster, simulate

    config = tmp_path / "config.yaml"
    config.write_text(yaml.safe_dump(VOLUME_BINDING_CONFIG))
    seen: set[str] = set()
    for seed in range(SIMULATE_SEEDS, SIMULATE_SEEDS + 12):
        objs = ephemeral_binding_scenario(seed)
        ephemeral = {o["metadata"]["name"] for o in objs if o["kind"] == "Pod"
                     and any("ephemeral" in v for v in o["spec"].get("volumes", ()))}  # fmt: skip
        cluster = load_cluster(objects=objs)
        for r in simulate(cluster, config=config).to_dict()["results"]:
            if r["pod"].split("/")[1] in ephemeral:
                error = r["error"] or ""
                seen.add("bound" if r["host"] else error.split(": ")[-1].split(" ")[1])
                bindings = r.get("volumeBindings") or ()
                seen.update(f"provisioned={b['provisioned']}" for b in bindings)
    assert {"bound", "waiting", "PVC", "provisioned=True"} <= seen, seen


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(2_000))
@pytest.mark.parametrize("mode", ["score", "simulate"])
@pytest.mark.parametrize("kind", sorted(KINDS))
def test_many_more_ephemeral_scenarios(tmp_path, kind, mode, seed):
    base = SCORE_SEEDS if mode == "score" else SIMULATE_SEEDS
    sizes = BINDING_SLOW if kind == "binding" else DISK_SLOW
    _check(tmp_path, kind, base + 50_000 + seed, mode, **sizes)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(2_000))
@pytest.mark.parametrize("mode", ["explain", "simulate", "retry"])
def test_many_more_foreign_claims_in_dry_runs(tmp_path, mode, seed):
    seed += PREEMPTION_SEEDS + 100_000
    objs = foreign_claim_preemption_scenario(seed, max_nodes=16, max_pending=12)
    _compare_preemption(tmp_path, seed, mode, objs)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(2_000))
@pytest.mark.parametrize("mode", ["score", "simulate"])
def test_many_more_foreign_claim_scenarios(tmp_path, mode, seed):
    seed += FOREIGN_SEEDS + 100_000
    objs = ephemeral_disk_scenario(seed, p_foreign_bound=0.3, **DISK_SLOW)
    _compare_foreign(tmp_path, seed, mode, objs, DISK_CONFIG, "disk")
