"""Builders for test clusters (in the spirit of pkg/scheduler/testing/wrappers.go)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np

from kscore_fast.framework.interface import Chunk
from kscore_fast.model.objects import (
    DEFAULT_SCHEDULER_NAME,
    RC_KIND,
    RS_KIND,
    SS_KIND,
    ContainerImage,
    ContainerPort,
    ContainerRecord,
    ControllerRecord,
    NamespaceRecord,
    NodeAffinity,
    NodeRecord,
    OwnerReference,
    PodAffinity,
    PodRecord,
    ResourceList,
    ServiceRecord,
    Taint,
    Toleration,
    TopologySpreadConstraint,
)
from kscore_fast.model.quantity import Quantity, parse_quantity
from kscore_fast.model.selectors import LabelSelector
from kscore_fast.model.snapshot import Cluster, build_cluster

ZONE = "topology.kubernetes.io/zone"
HOSTNAME = "kubernetes.io/hostname"


def controller_ref(name: str, kind: str) -> tuple[OwnerReference, ...]:
    """``controllerRef`` of selector_spread_test.go: one controller reference."""
    api = "v1" if kind == RC_KIND else "apps/v1"
    return (OwnerReference(api, kind, name, controller=True),)


def resources(values: Mapping[str, str | int | Quantity] | None) -> ResourceList:
    """A resource list from quantity texts (``"500m"``), integers or quantities."""
    return {
        k: v if isinstance(v, Quantity) else parse_quantity(str(v))
        for k, v in (values or {}).items()
    }


def pod(
    name: str = "",
    *,
    ns: str = "",
    labels: dict[str, str] | None = None,
    node: str = "",
    owner: tuple[OwnerReference, ...] = (),
    tsc: int | Iterable[TopologySpreadConstraint] = (),
    deleting: bool = False,
    phase: str = "",
    nominated: str = "",
    requests: Mapping[str, str | int | Quantity] | None = None,
    image: str = "",
    ports: Iterable[ContainerPort] = (),
    containers: Iterable[ContainerRecord] | None = None,
    init_requests: Iterable[Mapping[str, str | int | Quantity]] = (),
    overhead: Mapping[str, str | int | Quantity] | None = None,
    tolerations: Iterable[Toleration] = (),
    node_selector: dict[str, str] | None = None,
    node_affinity: NodeAffinity | None = None,
    scheduler_name: str = DEFAULT_SCHEDULER_NAME,
    priority: int | None = None,
    claims: tuple[str, ...] = (),
    pod_affinity: PodAffinity | None = None,
    pod_anti_affinity: PodAffinity | None = None,
) -> PodRecord:
    """A pod record. ``requests``, ``image`` and ``ports`` make its one container (none
    when all are left out); ``containers`` gives them all instead; each mapping of
    ``init_requests`` is one init container's requests. ``tsc``: its topology spread
    constraints, or a number of them (each hostname, DoNotSchedule, maxSkew 1, a nil
    selector: for plugins that only ask whether a pod has constraints)."""
    if isinstance(tsc, int):
        tsc = (TopologySpreadConstraint(1, HOSTNAME, "DoNotSchedule"),) * tsc
    ports = tuple(ports)
    if containers is None:
        one = requests is not None or image or ports
        containers = [ContainerRecord(image, resources(requests), ports)] if one else []
    return PodRecord(
        namespace=ns,
        name=name,
        labels=dict(labels or {}),
        node_name=node,
        owner_references=owner,
        topology_spread_constraints=tuple(tsc),
        deleting=deleting,
        phase=phase,
        nominated_node_name=nominated,
        scheduler_name=scheduler_name,
        priority=priority,
        containers=tuple(containers),
        init_containers=tuple(ContainerRecord(requests=resources(r)) for r in init_requests),
        overhead=resources(overhead),
        node_selector=dict(node_selector or {}),
        node_affinity=node_affinity,
        tolerations=tuple(tolerations),
        claims=claims,
        pod_affinity=pod_affinity,
        pod_anti_affinity=pod_anti_affinity,
    )


def node(
    name: str,
    labels: dict[str, str] | None = None,
    *,
    allocatable: Mapping[str, str | int | Quantity] | None = None,
    taints: Iterable[Taint] = (),
    images: Iterable[ContainerImage] = (),
    unschedulable: bool = False,
) -> NodeRecord:
    return NodeRecord(
        name,
        dict(labels or {}),
        resources(allocatable),
        unschedulable,
        tuple(taints),
        tuple(images),
    )


def service(
    selector: dict[str, str] | None, *, ns: str = "default", name: str = "s"
) -> ServiceRecord:
    return ServiceRecord(ns, name, selector)


def rc(name: str, selector: dict[str, str] | None, ns: str = "default") -> ControllerRecord:
    return ControllerRecord(RC_KIND, ns, name, selector)


def rs(name: str, match_labels: dict[str, str] | None, ns: str = "default",
       exprs: tuple = ()) -> ControllerRecord:  # fmt: skip
    sel = None if match_labels is None else LabelSelector(tuple(match_labels.items()), exprs)
    return ControllerRecord(RS_KIND, ns, name, sel)


def ss(name: str, match_labels: dict[str, str] | None, ns: str = "default") -> ControllerRecord:
    sel = None if match_labels is None else LabelSelector(tuple(match_labels.items()), ())
    return ControllerRecord(SS_KIND, ns, name, sel)


def namespace(name: str, labels: dict[str, str] | None = None) -> NamespaceRecord:
    """A Namespace as the loader records it (with ``kubernetes.io/metadata.name``)."""
    return NamespaceRecord(name, {**(labels or {}), "kubernetes.io/metadata.name": name})


def cluster(nodes, pods, services=(), controllers=(), namespaces=()) -> Cluster:
    return build_cluster(nodes, pods, services, controllers, namespaces)


def full_chunk(c: Cluster, pods: list[int] | None = None) -> Chunk:
    """Every pending pod (or ``pods``) scored on every node, in snapshot order."""
    idx = np.arange(len(c.batch), dtype=np.int64) if pods is None else np.asarray(pods, np.int64)
    n = c.snapshot.n_nodes
    ptr = np.arange(len(idx) + 1, dtype=np.int64) * n
    nodes = np.tile(np.arange(n, dtype=np.int32), len(idx))
    return Chunk(idx, ptr, nodes)


def run_plugin(plugin, c: Cluster, chunk: Chunk) -> tuple[np.ndarray, np.ndarray]:
    """Score and NormalizeScore of one compiled plugin on a chunk: (raw, normalized),
    through its kernels (``prepare``, ``score_pod``, ``normalize_pod``)."""
    import importlib

    from .plugins.harness import score_lists

    kernels = importlib.import_module(type(plugin).__module__.rsplit(".", 1)[0] + ".kernels")
    lists = [chunk.nodes[chunk.ptr[i] : chunk.ptr[i + 1]].tolist() for i in range(len(chunk))]
    state = plugin.prepare(c.snapshot, c.batch)
    raw, norm = score_lists(kernels, state, lists, plugin.normalizes, chunk.pods.tolist())
    flat = lambda x: np.array([v for row in x for v in row], dtype=np.int64)  # noqa: E731
    return flat(raw), flat(norm)
