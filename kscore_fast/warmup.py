"""The warm-up workload: a small cluster holding every feature a plugin reads, run through
each *use* of the compiled kernels, so that running it compiles (or loads) every kernel
that use needs, with the dtypes the engine uses.

Uses (:data:`USES`): ``score`` (the batch runtime: every scores mode, explain, serial
and parallel), ``simulate`` (the sequential loop, both tie-breaks), ``simulator`` (the
``Simulator`` API's steps and events). The profile: every in-tree plugin at its
extension points, and each score plugin alone (``--plugins`` profiles).
:mod:`kscore_fast.precompile` records what each use compiles (``signatures.json``) and
compiles it ahead, in parallel processes; ``kscore warmup`` runs both.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from . import _jit

USES = ("score", "simulate", "simulator")

_ZONE = "topology.kubernetes.io/zone"
_HOST = "kubernetes.io/hostname"


def _node(i: int) -> dict[str, Any]:
    taints = [{"key": "dedicated", "value": "gpu", "effect": "PreferNoSchedule"}]
    if i == 3:
        taints.append({"key": "node-role.kubernetes.io/master", "effect": "NoSchedule"})
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": f"n{i}", "labels": {_ZONE: f"z{i % 2}", _HOST: f"n{i}",
                                                 "disk": "ssd" if i % 2 else "hdd"}},
        "spec": {"taints": taints if i % 2 else [], "unschedulable": i == 2},
        "status": {
            "allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110", "example.com/gpu": "2"},
            "images": [{"names": [f"img{i % 2}:1"], "sizeBytes": 500_000_000}],
        },
    }  # fmt: skip


def _pod(name: str, labels: dict[str, str], node: str | None = None, **spec: Any
         ) -> dict[str, Any]:  # fmt: skip
    container = {
        "name": "c",
        "image": "img0:1",
        "resources": {
            "requests": {"cpu": "100m", "memory": "128Mi"},
            "limits": {"example.com/gpu": "1"},
        },
    }
    pod: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default", "labels": labels,
                     "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet",
                                          "name": "web-1", "uid": "u", "controller": True}]},
        "spec": {"containers": [container], **spec},
        "status": {"phase": "Running" if node else "Pending"},
    }  # fmt: skip
    if node:
        pod["spec"]["nodeName"] = node
    return pod


def _selector(app: str) -> dict[str, Any]:
    return {"matchLabels": {"app": app}}


def cluster_objects() -> list[dict[str, Any]]:
    """Nodes in two zones (taints, an unschedulable node, images, extended resources),
    bound pods with host ports, and pending pods with tolerations, node selectors and node
    affinity, host ports, topology spread constraints (hard and soft), pod affinity and
    anti-affinity (required and preferred), a nominated node, twins, and a pod that fits
    only by preempting."""
    spread = [
        {"maxSkew": 1, "topologyKey": _ZONE, "whenUnsatisfiable": "DoNotSchedule",
         "labelSelector": _selector("web")},
        {"maxSkew": 2, "topologyKey": _HOST, "whenUnsatisfiable": "ScheduleAnyway",
         "labelSelector": _selector("web")},
    ]  # fmt: skip
    term = {"labelSelector": _selector("db"), "topologyKey": _ZONE}
    affinity = {
        "podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 10, "podAffinityTerm": term}]},
        "podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": _selector("web"), "topologyKey": _HOST}]},
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                {"matchExpressions": [{"key": "disk", "operator": "In",
                                       "values": ["ssd", "hdd"]}]}]},
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {"weight": 5, "preference": {"matchExpressions": [
                    {"key": "disk", "operator": "In", "values": ["ssd"]}]}}]},
    }  # fmt: skip
    tolerations = [{"key": "dedicated", "operator": "Equal", "value": "gpu",
                    "effect": "PreferNoSchedule"}]  # fmt: skip
    port = [{"name": "c", "image": "img1:1", "ports": [{"containerPort": 80, "hostPort": 8080}],
             "resources": {"requests": {"cpu": "200m"}}}]  # fmt: skip
    objs = [_node(i) for i in range(4)]
    objs += [_pod(f"db-{i}", {"app": "db"}, f"n{i}") for i in range(2)]
    objs += [_pod("proxy", {"app": "proxy"}, "n1", containers=port)]
    objs += [
        _pod(
            "web-a",
            {"app": "web"},
            None,
            topologySpreadConstraints=spread,
            affinity=affinity,
            tolerations=tolerations,
            nodeSelector={_ZONE: "z1"},
        )
    ]
    objs += [_pod(f"web-{i}", {"app": "web"}) for i in range(3)]  # twins
    objs += [_pod("edge", {"app": "edge"}, containers=port, priority=10)]
    nominated = _pod("late", {"app": "late"})
    nominated["status"]["nominatedNodeName"] = "n0"
    objs.append(nominated)
    urgent = [{"name": "c", "image": "img0:1", "resources": {"requests": {"cpu": "4"}}}]
    objs += [_pod("urgent", {"app": "urgent"}, containers=urgent, priority=1000)]  # preempts
    objs.append({"apiVersion": "v1", "kind": "Service",
                 "metadata": {"name": "web", "namespace": "default"},
                 "spec": {"selector": {"app": "web"}}})  # fmt: skip
    return objs


def run(use: str) -> None:
    """Run the workload of ``use`` (serial, then parallel variants where it has them)."""
    threshold = _jit.PARALLEL_MIN_WORK
    try:
        for _jit.PARALLEL_MIN_WORK in (threshold, 0):  # serial, then parallel variants
            _USES[use]()
    finally:
        _jit.PARALLEL_MIN_WORK = threshold


def _cluster() -> Any:
    from .api import load_cluster

    return load_cluster(objects=copy.deepcopy(cluster_objects()))


def _score_plugins() -> list[str]:
    from .plugins.registry import IN_TREE

    return [name for name, cls in IN_TREE.items() if cls.scores]


def _score() -> None:
    from .api import score

    cluster = _cluster()
    for scores in ("all", "top:1", "none"):
        for explain in (False, True):
            score(cluster, scores=scores, explain=explain)
    score(cluster, scores="none", percentage_of_nodes_to_score=50)
    score(cluster, plugins="")  # no score plugin
    for name in _score_plugins():  # --plugins profiles: score plugins alone
        score(cluster, plugins=name, scores="top:1")


def _simulate() -> None:
    from .api import simulate

    cluster = _cluster()
    for tie in ("uniform", "go-rand"):
        for scores in ("all", "none"):
            simulate(cluster, tie_break=tie, scores=scores, explain=scores == "all")
        simulate(cluster, tie_break=tie, scores="none", preemption=True, retry_nominated=True)
    from .framework.simulation import incremental
    from .plugins.registry import IN_TREE

    for name in _score_plugins():
        if incremental(IN_TREE.get(name)):  # (the others are refused in sequential mode)
            simulate(cluster, plugins=name, scores="none")


def _simulator() -> None:
    from .simulator import Simulator

    sim = Simulator(_cluster(), tie_break="go-rand", seed=1)
    pending = sim.pods
    sim.schedule(pending[0], scores="all")
    host = sim.schedule_and_bind(pending[0])
    sim.bind(pending[1], host or sim.nodes[0])
    other = sim.copy()
    other.delete(pending[1])
    sim.replay([("delete", pending[0]), ("schedule", pending[2])])
    sim.remove_node(sim.nodes[-1])
    sim.add_node(copy.deepcopy(cluster_objects()[3]))
    sim.delete("default/db-0")
    sim.run(scores="all")


_USES: dict[str, Callable[[], None]] = {
    "score": _score,
    "simulate": _simulate,
    "simulator": _simulator,
}


def warmup() -> int:
    """Compile (or load) every kernel of every use in this process; how many kernels and
    plugin entry points there are."""
    for use in USES:
        run(use)
    return len(_jit.REGISTERED) + len(_jit.ENTRIES)
