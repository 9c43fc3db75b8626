"""Random over-committed clusters for DefaultPreemption (tests/differential): nodes full of
pods of a few priorities (each with its own ``status.startTime``, as goref needs to be
reproducible), some nodes tainted or labelled so that some pending pods are
``UnschedulableAndUnresolvable`` there, pods of required anti-affinity and topology
spread, PodDisruptionBudgets with and without a status, and pending pods of higher and
lower priorities, some ``preemptionPolicy: Never``. No pod has both a node selector and
spread constraints: v1.23.6 panics on some of those (docs/preemption.md).
"""

from __future__ import annotations

import random
from typing import Any

PRIORITIES = (0, 10, 100, 1000)
APPS = ("a", "b", "c")


def _node(i: int, rng: random.Random) -> dict[str, Any]:
    labels = {"kubernetes.io/hostname": f"n{i}", "topology.kubernetes.io/zone": f"z{i % 3}"}
    if rng.random() < 0.3:
        labels["disk"] = "ssd"
    node: dict[str, Any] = {
        "apiVersion": "v1", "kind": "Node", "metadata": {"name": f"n{i}", "labels": labels},
        "status": {"allocatable": {"cpu": str(rng.choice((2, 4, 8))), "memory": "16Gi",
                                   "pods": str(rng.choice((4, 8, 110)))}},
    }  # fmt: skip
    if rng.random() < 0.15:
        node["spec"] = {"taints": [{"key": "dedicated", "value": "x", "effect": "NoSchedule"}]}
    return node


def _pod(name: str, rng: random.Random, node: str | None, start: int | None,
         high: bool) -> dict[str, Any]:  # fmt: skip
    app = rng.choice(APPS)
    cpu = rng.choice(("500m", "1", "1500m", "2", "3"))
    spec: dict[str, Any] = {
        "priority": rng.choice(PRIORITIES[1:] if high else PRIORITIES[:3]),
        "containers": [{"name": "c", "resources": {"requests": {"cpu": cpu,
                                                                "memory": "1Gi"}}}],
    }  # fmt: skip
    if node is not None:
        spec["nodeName"] = node
    elif rng.random() < 0.15:
        spec["nodeSelector"] = {"disk": "ssd"}
    if node is None and rng.random() < 0.1:
        spec["preemptionPolicy"] = "Never"
    if rng.random() < 0.15:
        term = {"labelSelector": {"matchLabels": {"app": app}},
                "topologyKey": "kubernetes.io/hostname"}  # fmt: skip
        spec["affinity"] = {"podAntiAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": [term]}}  # fmt: skip
    elif rng.random() < 0.1 and "nodeSelector" not in spec:
        # (not with a node selector: v1.23.6's PodTopologySpread.updateWithPod dereferences
        # a nil count for a nominated pod on a node the selector leaves out, and panics)
        spec["topologySpreadConstraints"] = [{
            "maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone",
            "whenUnsatisfiable": "DoNotSchedule",
            "labelSelector": {"matchLabels": {"app": app}}}]  # fmt: skip
    pod: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "labels": {"app": app}},
        "spec": spec,
    }
    if start is not None:
        pod["status"] = {"phase": "Running", "startTime": f"2024-01-01T00:{start // 60:02d}:"
                                                         f"{start % 60:02d}Z"}  # fmt: skip
    return pod


def _budget(i: int, rng: random.Random) -> dict[str, Any]:
    budget: dict[str, Any] = {
        "apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
        "metadata": {"name": f"pdb{i}"},
        "spec": {"selector": {"matchLabels": {"app": rng.choice(APPS)}}},
    }  # fmt: skip
    if rng.random() < 0.5:
        budget["status"] = {"disruptionsAllowed": rng.choice((0, 0, 1, 2))}
    else:
        budget["spec"]["minAvailable"] = rng.choice((0, 1, 2, 4))
    return budget


def preemption_scenario(seed: int, max_nodes: int = 8, max_pending: int = 6) -> list[dict]:
    """Objects of one scenario (a kubectl List's items)."""
    rng = random.Random(seed)
    nodes = [_node(i, rng) for i in range(rng.randint(2, max_nodes))]
    objects: list[dict[str, Any]] = list(nodes)
    starts = rng.sample(range(3600), 3 * len(nodes) + 1)
    k = 0
    for node in nodes:
        for _ in range(rng.randint(1, 3)):
            objects.append(_pod(f"e{k}", rng, node["metadata"]["name"], starts[k], False))
            k += 1
    for j in range(rng.randint(1, max_pending)):
        objects.append(_pod(f"p{j}", rng, None, None, rng.random() < 0.8))
    objects += [_budget(i, rng) for i in range(rng.randint(0, 3))]
    return objects
