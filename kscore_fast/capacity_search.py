"""How many more copies of a pod fit, after kubernetes-sigs/cluster-capacity.

Copies of a template pod (a Pod, or the pod template of a Deployment, ReplicaSet,
StatefulSet, ReplicationController or Job) are scheduled one after the other against the
cluster, each bound where it lands (the sequential simulator: exactly kube-scheduler's
cycles), until the first copy that fits nowhere: its error (Go's ``FitError`` text) is the
stop reason. The cluster's own pending pods are not scheduled.

The copies are named ``<template name>-capacity-<k>`` and keep the template's labels,
so that spreading and affinity see them as replicas of one workload.
"""

from __future__ import annotations

import copy
import json
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .errors import InputError
from .model.objects import object_key
from .model.snapshot import Cluster
from .simulator import Simulator

#: the kinds whose ``spec.template`` is the pod to copy (a Pod is copied itself)
WORKLOAD_KINDS = ("Deployment", "ReplicaSet", "StatefulSet", "ReplicationController", "Job")
#: copies scheduled at most (``max_replicas``' default)
DEFAULT_MAX = 100_000
#: copies added to the simulator at once (then scheduled one by one)
_CHUNK = 256


@dataclass
class CapacityResult:
    """How many copies of ``template`` fit, where they went and why the next did not."""

    template: str
    replicas: int
    #: the error of the first copy that fit nowhere (None: ``max_replicas`` reached)
    stop_reason: str | None
    hosts: list[str] = field(default_factory=list)

    @property
    def per_node(self) -> dict[str, int]:
        """Copies placed per node, most first (ties by name)."""
        counts = Counter(self.hosts)
        return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))

    def to_dict(self) -> dict[str, Any]:
        return {"template": self.template, "replicas": self.replicas,
                "stopReason": self.stop_reason, "perNode": self.per_node,
                "hosts": self.hosts}  # fmt: skip

    def json_pieces(self) -> Iterator[str]:
        """The JSON document (what the output writers call)."""
        yield json.dumps(self.to_dict(), indent=1) + "\n"

    def summary(self) -> str:
        why = (f"the next fits nowhere: {self.stop_reason}" if self.stop_reason is not None
               else "stopped at the limit")  # fmt: skip
        nodes = len(self.per_node)
        return (
            f"{self.replicas} more replicas of {self.template} fit, on {nodes} "
            f"node{'s' if nodes != 1 else ''}; {why}"
        )


def template_pod(obj: Any, where: str = "template") -> dict[str, Any]:
    """The Pod object ``obj`` is, or its workload's pod template (in the workload's
    namespace, named after it); InputError naming ``where`` otherwise."""
    if not isinstance(obj, Mapping):
        raise InputError(f"{where}: expected a Pod or a workload object, got {obj!r}")
    kind = obj.get("kind")
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), Mapping) else {}
    if kind == "Pod":
        pod = copy.deepcopy(dict(obj))
    elif kind in WORKLOAD_KINDS:
        spec = obj.get("spec") if isinstance(obj.get("spec"), Mapping) else {}
        tmpl = spec.get("template")
        if not isinstance(tmpl, Mapping) or not isinstance(tmpl.get("spec"), Mapping):
            raise InputError(f"{where}: {kind} {meta.get('name')!r}: spec.template.spec: "
                             "missing")  # fmt: skip
        tmeta = dict(tmpl.get("metadata") or {})
        tmeta["name"] = meta.get("name")
        tmeta.setdefault("namespace", meta.get("namespace") or "default")
        pod = {"apiVersion": "v1", "kind": "Pod", "metadata": tmeta,
               "spec": copy.deepcopy(dict(tmpl["spec"]))}  # fmt: skip
    else:
        raise InputError(f"{where}: kind {kind!r}: expected Pod or one of "
                         f"{', '.join(WORKLOAD_KINDS)}")  # fmt: skip
    if not isinstance(pod.get("metadata"), Mapping) or not pod["metadata"].get("name"):
        raise InputError(f"{where}: metadata.name: missing")
    pod["metadata"] = dict(pod["metadata"])
    pod["spec"] = dict(pod.get("spec") or {})
    pod["spec"].pop("nodeName", None)
    pod.pop("status", None)
    return pod


def copies(template: dict[str, Any], first: int, n: int) -> list[dict[str, Any]]:
    """Copies ``first`` … ``first + n - 1`` of the template pod: new pods, so without the
    template's ``metadata.uid`` (each has its own: the digest of its name, as kscore and
    goref give a pod without one; its ephemeral volumes' claims name it as owner)."""
    out = []
    for k in range(first, first + n):
        pod = copy.deepcopy(template)
        pod["metadata"]["name"] = f"{template['metadata']['name']}-capacity-{k}"
        pod["metadata"].pop("uid", None)
        out.append(pod)
    return out


def capacity(cluster: Cluster, template: Any, *, config: Any = None, plugins: Any = None,
             seed: int = 0, tie_break: str = "uniform",
             percentage_of_nodes_to_score: int | None = None,
             max_replicas: int = DEFAULT_MAX,
             notice: Callable[[str], None] | None = None,
             extra_nodes: Sequence[dict[str, Any]] = ()) -> CapacityResult:  # fmt: skip
    """Copies of ``template`` (see :func:`template_pod`) scheduled one after the other
    on ``cluster`` (with ``extra_nodes`` added first, as the cache's ``AddNode``) until one
    fits nowhere, at most ``max_replicas``. Other arguments as
    :class:`~kscore_fast.Simulator`'s."""
    if isinstance(max_replicas, bool) or not isinstance(max_replicas, int) or max_replicas < 0:
        raise InputError(f"capacity: max_replicas: expected an integer >= 0, got "
                         f"{max_replicas!r}")  # fmt: skip
    pod = template_pod(template)
    sim = Simulator(cluster, config=config, plugins=plugins, seed=seed, tie_break=tie_break,
                    percentage_of_nodes_to_score=percentage_of_nodes_to_score,
                    notice=notice)  # fmt: skip
    hosts: list[str] = []
    with sim._exclusive("capacity"):
        for node in extra_nodes:
            sim._add_node(node)
        while len(hosts) < max_replicas:
            chunk = min(_CHUNK, max_replicas - len(hosts))
            keys = [sim._add_pod(obj) for obj in copies(pod, len(hosts), chunk)]
            for key in keys:
                if key in sim._refused:  # (a profile the template names does not exist)
                    raise InputError(f"capacity: {sim._refused[key]}")
                tried = sim._attempt(key)
                if tried.host is None:
                    return CapacityResult(object_key(pod), len(hosts), tried.error, hosts)
                hosts.append(tried.host)
    return CapacityResult(object_key(pod), len(hosts), None, hosts)


def read_object(path: str) -> Any:
    """The one object of a YAML or JSON file (a template; InputError naming the file
    otherwise)."""
    import yaml

    try:
        with open(path, encoding="utf-8") as f:
            docs = [d for d in yaml.safe_load_all(f) if d is not None]
    except OSError as exc:
        raise InputError(f"{path}: {exc.strerror or exc}") from None
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: not YAML or JSON ({exc})") from None
    if len(docs) != 1:
        raise InputError(f"{path}: expected one object, found {len(docs)}")
    return docs[0]


# -- nodes to add ------------------------------------------------------------------------------


@dataclass
class AddNodesResult:
    """The fewest copies of a node template after which ``wanted`` copies of the pod fit
    (None: not within the limit), and that run."""

    node_template: str
    wanted: int
    nodes: int | None
    run: CapacityResult
    #: the most nodes tried
    tried: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {"nodeTemplate": self.node_template, "replicas": self.wanted,
                "nodesToAdd": self.nodes, "capacity": self.run.to_dict()}  # fmt: skip

    def json_pieces(self) -> Iterator[str]:
        yield json.dumps(self.to_dict(), indent=1) + "\n"

    def summary(self) -> str:
        if self.nodes is None:
            return (
                f"{self.wanted} replicas of {self.run.template} do not fit with up to "
                f"{self.tried} more {self.node_template} nodes: {self.run.stop_reason}"
            )
        return (
            f"add {self.nodes} {self.node_template} node{'s' if self.nodes != 1 else ''} "
            f"for {self.wanted} replicas of {self.run.template} to fit"
        )


def nodes_to_add(cluster: Cluster, template: Any, node_template: Any, replicas: int, *,
                 max_nodes: int = 1000, **options: Any) -> AddNodesResult:  # fmt: skip
    """The fewest copies of ``node_template`` (a Node object; copies named
    ``<name>-added-<k>``, added as the cache's ``AddNode``) after which ``replicas``
    copies of ``template`` fit (:func:`capacity`), trying 0, 1, 2, … up to
    ``max_nodes``. ``options``: :func:`capacity`'s."""
    if not isinstance(node_template, Mapping) or node_template.get("kind") != "Node":
        raise InputError(f"add-nodes: expected a Node object, got {node_template!r}")
    for name, value in (("replicas", replicas), ("max_nodes", max_nodes)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise InputError(f"capacity: {name}: expected an integer >= 0, got {value!r}")
    base = str((node_template.get("metadata") or {}).get("name") or "node")
    run = CapacityResult(object_key(template_pod(template)), 0, None)
    for k in range(max_nodes + 1):
        added = []
        for i in range(k):
            node = copy.deepcopy(dict(node_template))
            node["metadata"] = {**dict(node.get("metadata") or {}), "name": f"{base}-added-{i}"}
            labels = dict(node["metadata"].get("labels") or {})
            if "kubernetes.io/hostname" in labels:
                labels["kubernetes.io/hostname"] = node["metadata"]["name"]
            node["metadata"]["labels"] = labels
            added.append(node)
        run = capacity(cluster, template, max_replicas=replicas, extra_nodes=added, **options)
        if run.replicas >= replicas:
            return AddNodesResult(base, replicas, k, run, k)
    return AddNodesResult(base, replicas, None, run, max_nodes)


# -- draining nodes ------------------------------------------------------------------------------


@dataclass
class DrainResult:
    """Where the pods of drained nodes go: one row per pod (``pod``, ``from``, ``host``,
    ``error``), in the order they were scheduled."""

    nodes: list[str]
    pods: list[dict[str, Any]]

    @property
    def all_fit(self) -> bool:
        return all(p["host"] is not None for p in self.pods)

    def to_dict(self) -> dict[str, Any]:
        return {"drained": self.nodes, "allFit": self.all_fit, "pods": self.pods}

    def json_pieces(self) -> Iterator[str]:
        yield json.dumps(self.to_dict(), indent=1) + "\n"

    def summary(self) -> str:
        placed = sum(p["host"] is not None for p in self.pods)
        verdict = "all fit elsewhere" if self.all_fit else f"{len(self.pods) - placed} fit nowhere"
        return (
            f"draining {', '.join(self.nodes)}: {len(self.pods)} pods to move, "
            f"{placed} placed, {verdict}"
        )


def drain(cluster: Cluster, nodes: list[str], *, config: Any = None, plugins: Any = None,
          seed: int = 0, tie_break: str = "uniform",
          percentage_of_nodes_to_score: int | None = None,
          notice: Callable[[str], None] | None = None) -> DrainResult:  # fmt: skip
    """Remove ``nodes`` (the cache's ``RemoveNode``, as a scale-down does) and schedule
    their pods again, one after the other in queue order (higher priority first, then
    input order), each bound where it lands. DaemonSet pods are not moved (a drain leaves
    them, and their controller makes none elsewhere), nor pods being deleted. The
    cluster's own pending pods are not scheduled."""
    import msgspec

    sim = Simulator(cluster, config=config, plugins=plugins, seed=seed, tie_break=tie_break,
                    percentage_of_nodes_to_score=percentage_of_nodes_to_score,
                    notice=notice)  # fmt: skip
    with sim._exclusive("drain"):
        cache = sim._cache
        for name in nodes:
            if name not in cache.tree.records:
                raise InputError(f"drain: unknown node {name!r}")
        gone = set(nodes)
        moved = [p for p in cache.existing.values() if p.node_name in gone and not p.deleting
                 and getattr(p.controller_ref(), "kind", "") != "DaemonSet"]  # fmt: skip
        for name in nodes:
            sim._remove_node(name)
        for pod in moved:
            sim._delete(pod.key)
            sim._add_pod(msgspec.structs.replace(pod, node_name=""))
        rows = []
        for pod in sorted(moved, key=lambda p: -(p.priority or 0)):
            if pod.key in sim._refused:
                raise InputError(f"drain: pod {pod.key}: {sim._refused[pod.key]}")
            tried = sim._attempt(pod.key)
            rows.append({"pod": pod.key, "from": pod.node_name, "host": tried.host,
                         "error": tried.error})  # fmt: skip
    return DrainResult(list(nodes), rows)
