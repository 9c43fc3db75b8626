"""PriorityClass admission == the real Priority admission plugin (goref applies
``plugin/pkg/admission/priority`` of k8s.io/kubernetes v1.23.6 to the pods without
``spec.priority``), seen through whole ``simulate`` runs: the random clusters of
:mod:`tests.scenarios_profile` with random PriorityClasses (global defaults among them,
preemption policies, the system classes) and pods naming them, no class, a missing class,
or a priority or policy of their own, on clusters too small for every pod: the queue
order the resolved priorities make, every placement, and the refusals' messages."""

from __future__ import annotations

import json
import os
import random
import subprocess

import pytest
import yaml

from kscore_fast.api import load_cluster, simulate
from kscore_fast.model.priority import notices

from ..goref import GOREF, compare, goref_missing
from ..scenarios_profile import profile_config, profile_scenario

pytestmark = [
    pytest.mark.goref,
    pytest.mark.skipif(goref_missing() is not None, reason=str(goref_missing())),
]

N_SCENARIOS = int(os.environ.get("KSCORE_DIFF_PRIORITY_SCENARIOS", 60))
POLICIES = ("PreemptLowerPriority", "Never")


def _classes(r: random.Random) -> list[dict]:
    out = []
    for i in range(r.randint(0, 4)):
        pc = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
              "metadata": {"name": f"class-{i}"}, "value": r.randint(-20, 1000)}  # fmt: skip
        if r.random() < 0.3:
            pc["globalDefault"] = True
        if r.random() < 0.4:
            pc["preemptionPolicy"] = r.choice(POLICIES)
        out.append(pc)
    return out


def _admit_fields(r: random.Random, spec: dict, classes: list[dict]) -> None:
    """Random priority fields for a pod: a class (existing, system, missing) or none,
    sometimes its own priority or preemption policy."""
    spec.pop("priority", None)
    names = [c["metadata"]["name"] for c in classes]
    names += ["system-cluster-critical", "system-node-critical", "missing"]
    x = r.random()
    if x < 0.6 and names:
        spec["priorityClassName"] = r.choice(names)
    if r.random() < 0.15:
        spec["priority"] = r.choice([0, 10, 1000, r.randint(-20, 1000)])
    if r.random() < 0.15:
        spec["preemptionPolicy"] = r.choice(POLICIES)


def _scenario(seed: int) -> list[dict]:
    r = random.Random(seed)
    objs = profile_scenario(seed, family="basic", max_nodes=6, max_pods=20, max_pending=14)
    classes = _classes(r)
    for o in objs:
        if o.get("kind") == "Pod":
            _admit_fields(r, o.setdefault("spec", {}), classes)
    return objs + classes


@pytest.mark.parametrize("seed", range(N_SCENARIOS))
def test_admission_and_queue_order_equal_go(tmp_path, seed):
    _check(tmp_path, 4_000_000 + seed)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(500))
def test_many_more_admissions(tmp_path, seed):
    _check(tmp_path, 4_100_000 + seed)


def _check(tmp_path, seed: int) -> None:
    path = tmp_path / "cluster.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": _scenario(seed)}))
    config = tmp_path / "config.yaml"
    config.write_text(yaml.safe_dump(profile_config(seed, family="basic")))
    cluster = load_cluster([path])
    ours = simulate(cluster, config=config, seed=seed, tie_break="go-rand").to_dict()
    proc = subprocess.run([str(GOREF), "simulate", str(path), "--config", str(config),
                           "--seed", str(seed), "--plugin-metrics-draw"],
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    go = json.loads(proc.stdout)
    refused = cluster.refused_pods
    ours["results"] = [row for row in ours["results"] if row["pod"] not in refused]
    assert not compare(ours, go), compare(ours, go)
    assert [k["host"] for k in ours["results"]] == [g["host"] for g in go["results"]]
    said = notices(refused, [])
    if said:
        assert said[-1] in proc.stderr
    else:
        assert "Priority admission" not in proc.stderr
