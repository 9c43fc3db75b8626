"""The dry runs' narrowed walk: the filters whose verdict for the preemptor does not
change as pods come and go (``Plugin.filter_ignores_pods``) decided once per node, the
others (and only their plugins' ``assume``/``remove``) at each step. It equals the walk
with every filter and every ``assume``/``remove`` at each step (Go's walk as written),
and each plugin's ``filter_ignores_pods`` holds: the verdict it vouches for does not
change when a node's pods are removed or nominated pods added."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

from kscore_fast import api
from kscore_fast.preemption import kernels
from kscore_fast.preemption.compiled import preempt_compiled

from ..scenarios_preemption import preemption_scenario
from .runs import nominated_runs
from .test_compiled import _outcome, _starts_tied


def _with_host_ports(objects: list[dict], rng: random.Random) -> list[dict]:
    """Some pods given a host port (of two), so NodePorts reads the pods for them."""
    for o in objects:
        if o["kind"] == "Pod" and rng.random() < 0.25:
            port = {"containerPort": 80, "hostPort": rng.choice((8080, 9090))}
            o["spec"]["containers"][0]["ports"] = [port]
    return objects


def _tainted(objects: list[dict]) -> list[dict]:
    """The first node given a NoSchedule taint no pod tolerates, so that TaintToleration
    (which reads no pod of the nodes) stays among the filters: the walk has a filter to
    decide once per node even where every other such filter passes every pod
    (``Plugin.passes_all``: left out of the run)."""
    node = next(o for o in objects if o["kind"] == "Node")
    taint = {"key": "narrow", "value": "x", "effect": "NoSchedule"}
    node["spec"] = {**node.get("spec", {}), "taints": [taint]}
    return objects


def _cluster(tmp_path, seed: int, rng: random.Random) -> api.Cluster:
    objects = _starts_tied(_with_host_ports(preemption_scenario(seed, 10, 8), rng), rng)
    objects = _tainted(objects)
    path = tmp_path / "cluster.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objects}))
    return api.load_cluster(str(path))


@pytest.mark.parametrize("seed", range(40))
def test_narrowed_walk_equals_the_full_walk(tmp_path, seed):
    rng = random.Random(seed)
    cluster = _cluster(tmp_path, 7_000_000 + seed, rng)
    runs, pending = nominated_runs(cluster, rng)
    narrowed = 0
    for pod in pending:
        pct, absolute = rng.choice(((10, 100), (50, 1), (0, 2), (100, 3)))
        shift = rng.randrange(1000)

        def offset(n: int, shift: int = shift) -> int:
            return shift % n

        outcomes = []
        for narrow in (False, True):
            view = runs.view(pod)
            view.narrow = narrow
            found = preempt_compiled(view, runs.records[pod], cluster.budgets, offset, pct,
                                     absolute)  # fmt: skip
            view.restore()
            outcomes.append(_outcome(found))
        view.narrow = True
        narrowed += len(view._filters()[0]) < len(view.seq.fids)
        assert outcomes[0] == outcomes[1], (seed, runs.records[pod].name)
    assert narrowed  # (the narrowed walk ran: some pod had filters decided once per node)


@pytest.mark.parametrize("seed", range(15))
def test_filter_ignores_pods_holds(tmp_path, seed):
    """For each pod and filter plugin that says it ignores the pods, its verdict on every
    node stays the same with the node's pods removed, and with a pod added."""
    rng = random.Random(seed)
    cluster = _cluster(tmp_path, 8_000_000 + seed, rng)
    runs, pending = nominated_runs(cluster, rng)
    seq = runs.seq
    nodes = np.arange(len(runs.names), dtype=np.int64)
    states = [seq.states[f] for f in seq.fids.tolist()]
    ignores = [np.broadcast_to(np.asarray(p.filter_ignores_pods(s), np.bool_), (len(seq.batch),))
               for p, s in zip(seq.filter_slots, states, strict=True)]  # fmt: skip
    checked = 0
    for pod in pending:
        runs.view(pod)
        for k, row in enumerate(seq.fids.tolist()):
            if not ignores[k][pod]:
                continue
            one = (np.array([row], np.int64), np.array([k], np.int64), seq.table, np.int64(pod))
            before = np.zeros(len(nodes), np.int64)
            kernels.fixed_verdicts(*one, nodes, before)
            for node in nodes.tolist():
                on = runs._on_node.pods(node)
                for q in on:
                    seq.remove(q, node)
                extra = rng.choice(pending)
                seq.kernels.assume_pods(seq.add_ids, seq.table, seq.cache,
                                        np.array([extra], np.int64),
                                        np.array([node], np.int64))  # fmt: skip
                after = np.zeros(len(nodes), np.int64)
                kernels.fixed_verdicts(*one, np.array([node], np.int64), after)
                seq.remove(extra, node)
                seq.kernels.assume_pods(seq.add_ids, seq.table, seq.cache,
                                        np.asarray(on, np.int64),
                                        np.full(len(on), node, np.int64))  # fmt: skip
                assert after[node] == before[node], (seed, pod, k, node)
                checked += 1
    assert checked
