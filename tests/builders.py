"""Builders for test clusters (in the spirit of pkg/scheduler/testing/wrappers.go)."""

from __future__ import annotations

import numpy as np

from kscore_fast.framework.interface import Chunk
from kscore_fast.model.objects import (
    RC_KIND,
    RS_KIND,
    SS_KIND,
    ControllerRecord,
    NodeRecord,
    OwnerReference,
    PodRecord,
    ServiceRecord,
)
from kscore_fast.model.selectors import LabelSelector
from kscore_fast.model.snapshot import Cluster, build_cluster

ZONE = "topology.kubernetes.io/zone"


def controller_ref(name: str, kind: str) -> tuple[OwnerReference, ...]:
    """``controllerRef`` of selector_spread_test.go: one controller reference."""
    api = "v1" if kind == RC_KIND else "apps/v1"
    return (OwnerReference(api, kind, name, controller=True),)


def pod(
    name: str = "",
    *,
    ns: str = "",
    labels: dict[str, str] | None = None,
    node: str = "",
    owner: tuple[OwnerReference, ...] = (),
    tsc: int = 0,
    deleting: bool = False,
    phase: str = "",
    nominated: str = "",
) -> PodRecord:
    return PodRecord(
        namespace=ns,
        name=name,
        labels=dict(labels or {}),
        node_name=node,
        owner_references=owner,
        topology_spread_constraints=tsc,
        deleting=deleting,
        phase=phase,
        nominated_node_name=nominated,
    )


def node(name: str, labels: dict[str, str] | None = None) -> NodeRecord:
    return NodeRecord(name, dict(labels or {}))


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


def cluster(nodes, pods, services=(), controllers=()) -> Cluster:
    return build_cluster(nodes, pods, services, controllers)


def full_chunk(c: Cluster, pods: list[int] | None = None) -> Chunk:
    """Every pending pod (or ``pods``) scored on every node, in snapshot order."""
    idx = np.arange(len(c.batch), dtype=np.int64) if pods is None else np.asarray(pods, np.int64)
    n = c.snapshot.n_nodes
    ptr = np.arange(len(idx) + 1, dtype=np.int64) * n
    nodes = np.tile(np.arange(n, dtype=np.int32), len(idx))
    return Chunk(idx, ptr, nodes)


def run_plugin(
    plugin, c: Cluster, chunk: Chunk, fused: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """PreScore, Score and NormalizeScore of one plugin on a chunk: (raw, normalized).

    ``fused``: through the plugin's ``score_normalize`` instead.
    """
    state = plugin.pre_score(c.snapshot, c.batch, chunk)
    if fused:
        raw = np.empty(len(chunk.nodes), dtype=np.int64)
        norm = np.empty(len(chunk.nodes), dtype=np.int64)
        plugin.score_normalize(state, c.snapshot, c.batch, chunk, raw, norm)
        return raw, norm
    raw = np.empty(len(chunk.nodes), dtype=np.int64)
    plugin.score(state, c.snapshot, c.batch, chunk, raw)
    norm = raw.copy()
    if plugin.normalizes:
        plugin.normalize(state, c.snapshot, c.batch, chunk, norm)
    return raw, norm
