"""Builders for InterPodAffinity tests, and runners of the plugin (kernels) and the reference."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kscore_fast.model.objects import (
    NamespaceRecord,
    NodeRecord,
    PodAffinity,
    PodAffinityTerm,
    PodRecord,
    WeightedPodAffinityTerm,
)
from kscore_fast.model.selectors import LabelSelector
from kscore_fast.model.snapshot import Cluster, build_cluster
from kscore_fast.plugins.interpodaffinity import InterPodAffinity, kernels
from kscore_fast.plugins.interpodaffinity.reference import InterPodAffinityReference

from ..harness import filter_codes, score_lists

REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"
PREFERRED = "preferredDuringSchedulingIgnoredDuringExecution"


# -- records from Kubernetes JSON (the upstream tables) ------------------------------------


def selector_of(obj: Mapping[str, Any] | None) -> LabelSelector | None:
    """A ``metav1.LabelSelector`` (None stays None: a nil selector)."""
    if obj is None:
        return None
    exprs = tuple(
        (e["key"], e["operator"], tuple(e.get("values") or ()))
        for e in obj.get("matchExpressions") or ()
    )
    return LabelSelector(tuple((obj.get("matchLabels") or {}).items()), exprs)


def term_of(obj: Mapping[str, Any]) -> PodAffinityTerm:
    return PodAffinityTerm(
        selector_of(obj.get("labelSelector")),
        tuple(obj.get("namespaces") or ()),
        obj.get("topologyKey", ""),
        selector_of(obj.get("namespaceSelector")),
    )


def affinity_of(obj: Mapping[str, Any] | None) -> PodAffinity | None:
    if obj is None:
        return None
    return PodAffinity(
        tuple(term_of(t) for t in obj.get(REQUIRED) or ()),
        tuple(
            WeightedPodAffinityTerm(w.get("weight", 0), term_of(w["podAffinityTerm"]))
            for w in obj.get(PREFERRED) or ()
        ),
    )


def pod_of(obj: Mapping[str, Any] | None, name: str, *, pending: bool = False) -> PodRecord:
    """A compacted upstream pod (``upstream/compact.py``); ``pending`` drops its node."""
    obj = obj or {}
    affinity = obj.get("affinity") or {}
    return PodRecord(
        namespace=obj.get("namespace", ""),
        name=obj.get("name") or name,
        labels=dict(obj.get("labels") or {}),
        node_name="" if pending else obj.get("nodeName", ""),
        pod_affinity=affinity_of(affinity.get("podAffinity")),
        pod_anti_affinity=affinity_of(affinity.get("podAntiAffinity")),
    )


def node_of(obj: Mapping[str, Any]) -> NodeRecord:
    return NodeRecord(obj.get("name", ""), dict(obj.get("labels") or {}))


def namespaces_of(objs: Sequence[Mapping[str, Any]] | None) -> list[NamespaceRecord]:
    return [NamespaceRecord(o["name"], dict(o.get("labels") or {})) for o in objs or ()]


# -- runners -------------------------------------------------------------------------------


def cluster(nodes: Sequence[NodeRecord], existing: Sequence[PodRecord],
            pending: Sequence[PodRecord], namespaces: Sequence[NamespaceRecord] = ()
            ) -> Cluster:  # fmt: skip
    """Existing pods must name their node; pending pods must not."""
    assert all(p.node_name for p in existing) and not any(p.node_name for p in pending)
    return build_cluster(nodes, [*existing, *pending], namespaces=namespaces)


def plugin_for(hard_weight: int | None = None, enabled: bool = True) -> InterPodAffinity:
    args = None if hard_weight is None else {"hardPodAffinityWeight": hard_weight}
    return InterPodAffinity(args, enable_namespace_selector=enabled)


def reference_for(c: Cluster, hard_weight: int | None = None, enabled: bool = True
                  ) -> InterPodAffinityReference:  # fmt: skip
    weight = 1 if hard_weight is None else hard_weight
    return InterPodAffinityReference.from_snapshot(
        c.snapshot, hard_pod_affinity_weight=weight, enable_namespace_selector=enabled
    )


def kernel_filter(c: Cluster, plugin: InterPodAffinity, state: tuple | None = None
                  ) -> list[list[str | None]]:  # fmt: skip
    """Every pending pod on every node: None (passes) or the failure's single reason."""
    if state is None:
        state = plugin.prepare(c.snapshot, c.batch)
    codes = filter_codes(kernels, state, len(c.batch), c.snapshot.n_nodes)
    reason: dict[int, str | None] = {kernels.PASS: None}
    for code in (kernels.FAIL_AFFINITY, kernels.FAIL_ANTI_AFFINITY,
                 kernels.FAIL_EXISTING_ANTI_AFFINITY):  # fmt: skip
        (reason[code],) = plugin.reasons(state, code)
    return [[reason[code] for code in row] for row in codes.tolist()]


def reference_filter(c: Cluster, ref: InterPodAffinityReference) -> list[list[str | None]]:
    return [ref.filter_pod(p) for p in c.batch.pods]


def kernel_scores(
    c: Cluster, plugin: InterPodAffinity, lists: list[list[int]], state: tuple | None = None
) -> tuple[list[list[int]], list[list[int]]]:
    """Raw and normalized scores of pending pod ``p`` on the nodes ``lists[p]``."""
    if state is None:
        state = plugin.prepare(c.snapshot, c.batch)
    return score_lists(kernels, state, lists, True)


def reference_scores(c: Cluster, ref: InterPodAffinityReference, lists: list[list[int]]
                     ) -> tuple[list[list[int]], list[list[int]]]:  # fmt: skip
    out = [ref.score_pod(p, ns) for p, ns in zip(c.batch.pods, lists, strict=True)]
    return [r for r, _ in out], [n for _, n in out]
