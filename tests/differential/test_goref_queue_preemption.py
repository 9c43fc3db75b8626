"""The timed replay with preemption (``simulate --events --preemption``,
``replay_timed(..., preemption=True)``) == ``goref replay --preemption``: the real
PriorityQueue, cache and DefaultPreemption of kube-scheduler v1.23.6, the victims deleted
through the fake clientset (their deletions reach the cache and the queue as informer
events: ``MoveAllToActiveOrBackoffQueue(AssignedPodDelete)``), the nominations through
the nominator. Random over-committed clusters (:mod:`tests.scenarios_preemption`) with
priority classes, PDBs, nominated pods and ``preemptionPolicy: Never``, some pending pods
arriving later, some bound pods deleted and nodes added or removed over time. Equal,
attempt by attempt: time, pod, attempt, cycle, host, counts, FitError, rejecting plugins,
and after each FitError the nominated node, the victims in order, the PDB violations and
the tie set (``--preemption-ties first``: both nominate the first tied candidate); then
the pods left pending and the final clock.

``KSCORE_DIFF_QUEUE_PREEMPTION_SCENARIOS`` (default 40); ``-m slow``: 1,000 more, larger.
"""

from __future__ import annotations

import json
import os
import random
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from kscore_fast.queue import replay_timed

from ..goref import goref_missing
from ..scenarios_preemption import preemption_scenario
from .test_goref_preemption import DEFAULT_CONFIG, outcome_differences
from .timed import differences, run_goref, write_events

pytestmark = [
    pytest.mark.goref,
    pytest.mark.skipif(goref_missing() is not None, reason=str(goref_missing())),
]

N_SCENARIOS = int(os.environ.get("KSCORE_DIFF_QUEUE_PREEMPTION_SCENARIOS", 40))
SEEDS = 3_500_000
CLASSES = {"low": 10, "high": 1000}


def _classes() -> list[dict[str, Any]]:
    return [
        {
            "apiVersion": "scheduling.k8s.io/v1",
            "kind": "PriorityClass",
            "metadata": {"name": name},
            "value": value,
        }
        for name, value in CLASSES.items()
    ]


def timed_scenario(seed: int, span: int = 120, **sizes: int
                   ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:  # fmt: skip
    """The cluster's objects and a timed script over them: some pending pods arrive later
    (some through a PriorityClass instead of ``spec.priority``), some pending pods are
    nominated, some bound pods of the top priority are deleted (a pod of a lower one may
    have been deleted by then, a victim), a node may come or go."""
    rng = random.Random(seed * 7 + 1)
    objects = preemption_scenario(seed, **sizes) + _classes()
    nodes = [o["metadata"]["name"] for o in objects if o["kind"] == "Node"]
    pending = [o for o in objects if o["kind"] == "Pod" and "nodeName" not in o["spec"]]
    bound = [o for o in objects if o["kind"] == "Pod" and "nodeName" in o["spec"]]
    for pod in pending:
        if rng.random() < 0.2:
            pod["status"] = {"phase": "Pending", "nominatedNodeName": rng.choice(nodes)}
    events: list[tuple[Decimal, int, dict[str, Any]]] = []

    def when() -> Decimal:
        return Decimal(rng.randrange(0, 2 * span + 1)) / 2

    for pod in rng.sample(pending, rng.randint(0, len(pending))):
        objects.remove(pod)
        if rng.random() < 0.4 and "preemptionPolicy" not in pod["spec"]:
            pod["spec"].pop("priority")
            pod["spec"]["priorityClassName"] = rng.choice(list(CLASSES))
        events.append((when(), len(events), {"op": "addPod", "pod": pod}))
    for pod in rng.sample(bound, rng.randint(0, min(3, len(bound)))):
        pod["spec"]["priority"] = max(CLASSES.values())  # (never a victim: deleted once)
        key = f"default/{pod['metadata']['name']}"
        events.append((when(), len(events) + 10_000, {"op": "delete", "pod": key}))
    if len(nodes) > 2 and rng.random() < 0.3:  # a node (and its pods) held back
        name = rng.choice(nodes)
        node = next(o for o in objects if o["kind"] == "Node" and o["metadata"]["name"] == name)
        gone = {f"default/{p['metadata']['name']}" for p in bound if p["spec"]["nodeName"] == name}
        objects[:] = [o for o in objects
                      if o is not node and o.get("spec", {}).get("nodeName") != name]  # fmt: skip
        events = [e for e in events if e[2]["op"] != "delete" or e[2]["pod"] not in gone]
        events.append((when(), len(events), {"op": "addNode", "node": node}))
    elif len(nodes) > 2 and rng.random() < 0.3:
        events.append((when(), len(events), {"op": "removeNode", "node": rng.choice(nodes)}))
    events.sort(key=lambda e: (e[0], e[1]))
    return objects, [{"time": t, **ev} for t, _, ev in events]


def preemption_differences(ours: dict[str, Any], go: dict[str, Any]) -> list[str]:
    """Every attempt's PostFilter outcome (goref's rows with a ``postFilterCode``: a
    FitError with DefaultPreemption), then the fields of :func:`.timed.differences`."""
    diffs = []
    for i, (k, g) in enumerate(zip(ours["attempts"], go["attempts"], strict=False)):
        if g.get("traceDraws"):
            break
        if g.get("postFilterCode") is None:
            if "preemption" in k:
                diffs.append(f"attempt {i} ({k['pod']}): preempted, go ran no PostFilter")
            continue
        diffs += outcome_differences(f"attempt {i} ({k['pod']} at {k['timeNs']} ns)",
                                     k.get("preemption"), g)  # fmt: skip
        if diffs:
            break
    return differences(ours, go) + diffs


def check(tmp: Path, seed: int, **sizes: int) -> list[str]:
    objects, events = timed_scenario(seed, **sizes)
    cluster = tmp / f"cluster-{seed}.json"
    cluster.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objects}))
    script = write_events(events, tmp / f"events-{seed}.jsonl")
    rng = random.Random(seed)
    until = Decimal(rng.randrange(100, 400)) if rng.random() < 0.5 else None
    ours = replay_timed([cluster], script, config=DEFAULT_CONFIG, seed=seed, tie_break="go-rand",
                        until=None if until is None else float(until), preemption=True)  # fmt: skip
    go = run_goref(cluster, DEFAULT_CONFIG, script, seed, until,
                   ["--preemption", "--preemption-ties", "first"])  # fmt: skip
    return preemption_differences(ours.to_dict(), go)


@pytest.mark.parametrize("seed", range(N_SCENARIOS))
def test_timed_replay_with_preemption_equals_go(tmp_path, seed):
    diffs = check(tmp_path, SEEDS + seed, max_pending=10)
    assert not diffs, f"timed preemption scenario {seed}:\n" + "\n".join(diffs[:20])


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(1_000))
def test_many_more_timed_replays_with_preemption(tmp_path, seed):
    diffs = check(tmp_path, SEEDS + 100_000 + seed, max_nodes=16, max_pending=16)
    assert not diffs, f"timed preemption scenario {seed}:\n" + "\n".join(diffs[:20])
