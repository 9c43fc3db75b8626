"""Scalar reference port of the resource bookkeeping both resource plugins read.

Mirrors, at kube-scheduler v1.23.6 (feature gates at their 1.23 defaults: PodOverhead and
LocalStorageCapacityIsolation on):

* pkg/scheduler/framework/types.go: ``Resource`` (``NewResource``, ``Add``,
  ``SetMaxResource``, ``AddScalar``, ``SetScalar``), ``NodeInfo`` (``AddPod``,
  ``SetNode``), ``calculateResource``;
* pkg/scheduler/util/pod_resources.go: ``GetNonzeroRequests``, ``GetRequestForResource``;
* pkg/scheduler/framework/plugins/noderesources/resource_allocation.go:
  ``resourceAllocationScorer`` (``score``, ``calculateResourceAllocatableRequest``,
  ``calculatePodResourceRequest``), ``resourcesToWeightMap``.

It walks records: a node's ``NodeInfo`` is built from its bound pods (every pod of the
snapshot on that node, deleting ones included, as the scheduler cache holds them). Every
int64 operation wraps as Go's does (:func:`~kscore_fast.goarith.wrap_int64`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from ...goarith import wrap_int64 as w
from ...model.objects import NodeRecord, PodRecord, ResourceList
from ...model.snapshot import ClusterSnapshot
from .names import CPU, EPHEMERAL_STORAGE, MEMORY, PODS, is_scalar_resource_name

#: util/pod_resources.go: DefaultMilliCPURequest, DefaultMemoryRequest (200 MiB)
DEFAULT_MILLI_CPU_REQUEST = 100
DEFAULT_MEMORY_REQUEST = 200 * 1024 * 1024


@dataclass
class Resource:
    """framework.Resource (``ScalarResources`` None until a scalar is set, as in Go)."""

    milli_cpu: int = 0
    memory: int = 0
    ephemeral_storage: int = 0
    allowed_pod_number: int = 0
    scalar_resources: dict[str, int] | None = None

    def add(self, rl: ResourceList) -> None:
        """``Resource.Add``."""
        for name, q in rl.items():
            if name == CPU:
                self.milli_cpu = w(self.milli_cpu + q.milli_value())
            elif name == MEMORY:
                self.memory = w(self.memory + q.value())
            elif name == PODS:
                self.allowed_pod_number = w(self.allowed_pod_number + q.value())
            elif name == EPHEMERAL_STORAGE:
                self.ephemeral_storage = w(self.ephemeral_storage + q.value())
            elif is_scalar_resource_name(name):
                self.add_scalar(name, q.value())

    def add_scalar(self, name: str, quantity: int) -> None:
        """``Resource.AddScalar``."""
        self.set_scalar(name, w((self.scalar_resources or {}).get(name, 0) + quantity))

    def set_scalar(self, name: str, quantity: int) -> None:
        """``Resource.SetScalar``."""
        if self.scalar_resources is None:
            self.scalar_resources = {}
        self.scalar_resources[name] = quantity

    def set_max_resource(self, rl: ResourceList) -> None:
        """``Resource.SetMaxResource``: per resource present in ``rl``, the max."""
        for name, q in rl.items():
            if name == MEMORY:
                self.memory = max(self.memory, q.value())
            elif name == CPU:
                self.milli_cpu = max(self.milli_cpu, q.milli_value())
            elif name == EPHEMERAL_STORAGE:
                self.ephemeral_storage = max(self.ephemeral_storage, q.value())
            elif is_scalar_resource_name(name):
                old = (self.scalar_resources or {}).get(name, 0)
                self.set_scalar(name, max(old, q.value()))

    def scalar(self, name: str) -> int:
        """``r.ScalarResources[name]`` (a missing key reads 0)."""
        return (self.scalar_resources or {}).get(name, 0)


def new_resource(rl: ResourceList) -> Resource:
    """``NewResource``."""
    r = Resource()
    r.add(rl)
    return r


def get_request_for_resource(resource: str, requests: ResourceList, non_zero: bool) -> int:
    """util ``GetRequestForResource`` (``requests`` is never a nil pointer here)."""
    if resource == CPU:
        if CPU not in requests and non_zero:
            return DEFAULT_MILLI_CPU_REQUEST
        return requests[CPU].milli_value() if CPU in requests else 0
    if resource == MEMORY:
        if MEMORY not in requests and non_zero:
            return DEFAULT_MEMORY_REQUEST
        return requests[MEMORY].value() if MEMORY in requests else 0
    q = requests.get(resource)
    return 0 if q is None else q.value()


def get_nonzero_requests(requests: ResourceList) -> tuple[int, int]:
    """util ``GetNonzeroRequests``."""
    return (
        get_request_for_resource(CPU, requests, True),
        get_request_for_resource(MEMORY, requests, True),
    )


def calculate_resource(pod: PodRecord) -> tuple[Resource, int, int]:
    """types.go ``calculateResource``: (requests, non-zero cpu, non-zero memory)."""
    res = Resource()
    non0_cpu = non0_mem = 0
    for c in pod.containers:
        res.add(c.requests)
        cpu, mem = get_nonzero_requests(c.requests)
        non0_cpu, non0_mem = w(non0_cpu + cpu), w(non0_mem + mem)
    for ic in pod.init_containers:
        res.set_max_resource(ic.requests)
        cpu, mem = get_nonzero_requests(ic.requests)
        non0_cpu, non0_mem = max(non0_cpu, cpu), max(non0_mem, mem)
    if pod.overhead:
        res.add(pod.overhead)
        if CPU in pod.overhead:
            non0_cpu = w(non0_cpu + pod.overhead[CPU].milli_value())
        if MEMORY in pod.overhead:
            non0_mem = w(non0_mem + pod.overhead[MEMORY].value())
    return res, non0_cpu, non0_mem


@dataclass
class NodeInfo:
    """framework.NodeInfo: the node, its pods and their aggregates."""

    node: NodeRecord
    pods: list[PodRecord] = field(default_factory=list)
    requested: Resource = field(default_factory=Resource)
    non_zero_requested: Resource = field(default_factory=Resource)
    allocatable: Resource = field(default_factory=Resource)

    def add_pod(self, pod: PodRecord) -> None:
        """``NodeInfo.AddPod`` (the resource part)."""
        res, non0_cpu, non0_mem = calculate_resource(pod)
        r = self.requested
        r.milli_cpu = w(r.milli_cpu + res.milli_cpu)
        r.memory = w(r.memory + res.memory)
        r.ephemeral_storage = w(r.ephemeral_storage + res.ephemeral_storage)
        for name, q in (res.scalar_resources or {}).items():
            r.set_scalar(name, w(r.scalar(name) + q))
        nz = self.non_zero_requested
        nz.milli_cpu = w(nz.milli_cpu + non0_cpu)
        nz.memory = w(nz.memory + non0_mem)
        self.pods.append(pod)


def new_node_info(node: NodeRecord, pods: Iterable[PodRecord]) -> NodeInfo:
    """``NewNodeInfo(pods...)`` then ``SetNode(node)``."""
    info = NodeInfo(node)
    for p in pods:
        info.add_pod(p)
    info.allocatable = new_resource(node.allocatable)
    return info


def node_infos(snapshot: ClusterSnapshot) -> list[NodeInfo]:
    """The cache snapshot's NodeInfo of every node (index = node index)."""
    by_node: list[list[PodRecord]] = [[] for _ in snapshot.nodes]
    for p, n in zip(snapshot.pods, snapshot.pod_node.tolist(), strict=True):
        by_node[n].append(p)
    return [new_node_info(node, pods) for node, pods in zip(snapshot.nodes, by_node, strict=True)]


def resources_to_weight_map(resources: Iterable[tuple[str, int]]) -> dict[str, int]:
    """``resourcesToWeightMap`` over (name, weight) pairs: the last weight of a name wins."""
    weights: dict[str, int] = {}
    for name, weight in resources:
        weights[name] = weight
    return weights


#: the scorer function: (requested, allocatable) maps → score
ScorerFn = Callable[[dict[str, int], dict[str, int]], int]


@dataclass
class ResourceAllocationScorer:
    """resource_allocation.go ``resourceAllocationScorer``.

    Go ranges over ``resourceToWeightMap`` and ``requested`` in random map order; here both
    iterate in insertion order (the order of the configured resources).
    """

    name: str
    use_requested: bool
    scorer: ScorerFn
    resource_to_weight_map: dict[str, int]
    enable_pod_overhead: bool = False

    def score(self, pod: PodRecord, node_info: NodeInfo) -> int:
        """``resourceAllocationScorer.score``."""
        requested: dict[str, int] = {}
        allocatable: dict[str, int] = {}
        for resource in self.resource_to_weight_map:
            alloc, req = self.calculate_resource_allocatable_request(node_info, pod, resource)
            if alloc != 0:
                allocatable[resource], requested[resource] = alloc, req
        return self.scorer(requested, allocatable)

    def calculate_resource_allocatable_request(
        self, node_info: NodeInfo, pod: PodRecord, resource: str
    ) -> tuple[int, int]:
        """``calculateResourceAllocatableRequest``: (allocatable, requested incl. the pod)."""
        requested = node_info.requested if self.use_requested else node_info.non_zero_requested
        pod_request = self.calculate_pod_resource_request(pod, resource)
        if pod_request == 0 and is_scalar_resource_name(resource):
            return 0, 0
        alloc = node_info.allocatable
        if resource == CPU:
            return alloc.milli_cpu, w(requested.milli_cpu + pod_request)
        if resource == MEMORY:
            return alloc.memory, w(requested.memory + pod_request)
        if resource == EPHEMERAL_STORAGE:
            return alloc.ephemeral_storage, w(node_info.requested.ephemeral_storage + pod_request)
        if resource in (alloc.scalar_resources or {}):
            return alloc.scalar(resource), w(node_info.requested.scalar(resource) + pod_request)
        return 0, 0

    def calculate_pod_resource_request(self, pod: PodRecord, resource: str) -> int:
        """``calculatePodResourceRequest``: max(sum(containers), init containers) + overhead
        (``quantity.Value()`` for every resource, cpu included)."""
        pod_request = 0
        for c in pod.containers:
            value = get_request_for_resource(resource, c.requests, not self.use_requested)
            pod_request = w(pod_request + value)
        for ic in pod.init_containers:
            value = get_request_for_resource(resource, ic.requests, not self.use_requested)
            if pod_request < value:
                pod_request = value
        if pod.overhead and self.enable_pod_overhead:
            q = pod.overhead.get(resource)
            if q is not None:
                pod_request = w(pod_request + q.value())
        return pod_request
