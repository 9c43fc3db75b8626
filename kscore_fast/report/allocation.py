"""Per-node allocation (CPU, memory, GPUs requested of allocatable) and its course over a
sequential run, from a cluster and a result's placements, or from a timed replay's nodes.

Requests are ``computePodResourceRequest``'s (what NodeResourcesFit and the scheduler
cache's ``NodeInfo.Requested`` count); allocatable is the node's ``status.allocatable``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import InputError
from ..model.snapshot import Cluster
from ..queue.timed import allocatable, requested
from .read import RunResult

#: the resources drawn, with their unit: (name, label, divisor to that unit, unit)
RESOURCES = (("cpu", "CPU", 1000, "cores"), ("memory", "memory", 2**30, "GiB"),
             ("nvidia.com/gpu", "GPU", 1, "GPUs"))  # fmt: skip


@dataclass
class NodeAllocation:
    """Every node's allocatable and requested resources (columns as :data:`RESOURCES`)."""

    nodes: list[str]
    #: int64[N, 3]: CPU millicores, memory bytes, GPUs
    allocatable: np.ndarray
    requested: np.ndarray
    #: int64[N]: the pods bound there
    pods: np.ndarray
    #: int64[N]: the pods the result placed there (None: a timed replay's nodes)
    placed: np.ndarray | None = None


@dataclass
class Steps:
    """A sequential run, cycle by cycle: after cycle k (k = 1..P) the pods bound and the
    pods that fit nowhere so far, and the cluster's requests (int64[P + 1, 3], row 0 before
    the first cycle) of its allocatable (int64[3])."""

    bound: np.ndarray
    failed: np.ndarray
    requested: np.ndarray
    allocatable: np.ndarray


def of_run(cluster: Cluster, run: RunResult) -> tuple[NodeAllocation, Steps | None]:
    """The nodes after ``run`` (a score result: the cluster as it was scored, every pod
    against it; a simulate result: with each placed pod bound on its host) and, for a
    simulate result, its course (:class:`Steps`). The result's pods must be the
    cluster's pending pods, its hosts its nodes."""
    snap, batch = cluster.snapshot, cluster.batch
    index = {name: i for i, name in enumerate(batch.names)}
    unknown = [p for p in run.pods if p not in index]
    if unknown:
        raise InputError(
            f"{run.path}: pod {unknown[0]} is not a pending pod of --cluster "
            f"({len(unknown)} of the result's {len(run.pods)} pods are not): give the "
            "manifests the result was computed from (with --expand-workloads if it was)"
        )
    nodes = snap.node_index
    hosts = np.array([-1 if h is None else nodes.get(h, -2) for h in run.hosts], np.int64)
    if (hosts == -2).any():
        missing = run.hosts[int(np.flatnonzero(hosts == -2)[0])]
        raise InputError(f"{run.path}: host {missing} is not a node of --cluster: give the "
                         "manifests the result was computed from")  # fmt: skip
    alloc = np.array([allocatable(n) for n in snap.nodes], np.int64).reshape(-1, 3)
    used = np.zeros((snap.n_nodes, 3), np.int64)
    count = np.zeros(snap.n_nodes, np.int64)
    for pod, node in zip(snap.pods, snap.pod_node.tolist(), strict=True):
        if node >= 0:
            used[node] += requested(pod)
            count[node] += 1
    placed = np.bincount(hosts[hosts >= 0], minlength=snap.n_nodes).astype(np.int64)
    if run.mode == "score":
        return NodeAllocation(list(snap.node_names), alloc, used, count, placed), None
    adds = np.array([requested(batch.pods[index[p]]) if h >= 0 else (0, 0, 0)
                     for p, h in zip(run.pods, hosts.tolist(), strict=True)],
                    np.int64).reshape(-1, 3)  # fmt: skip
    ok = hosts >= 0
    totals = used.sum(axis=0) + np.vstack([np.zeros((1, 3), np.int64), np.cumsum(adds, axis=0)])
    np.add.at(used, hosts[ok], adds[ok])
    steps = Steps(np.cumsum(ok), np.cumsum(~ok), totals, alloc.sum(axis=0))
    return NodeAllocation(list(snap.node_names), alloc, used, count + placed, placed), steps


def of_timed(nodes: dict[str, list[Any]]) -> NodeAllocation:
    """A timed replay's nodes at the end (its ``nodes`` columns)."""
    alloc = np.array([nodes["cpuMilliAllocatable"], nodes["memoryBytesAllocatable"],
                      nodes["gpusAllocatable"]], np.int64).T.reshape(-1, 3)  # fmt: skip
    used = np.array([nodes["cpuMilli"], nodes["memoryBytes"], nodes["gpus"]],
                    np.int64).T.reshape(-1, 3)  # fmt: skip
    return NodeAllocation([str(n) for n in nodes["node"]], alloc, used,
                          np.array(nodes["pods"], np.int64))  # fmt: skip
