"""Builders for NodeAffinity tests, and runners of the plugin (kernels) and the reference."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kscore_fast.model.objects import NodeAffinity as Affinity
from kscore_fast.model.objects import (
    NodeRecord,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    PodRecord,
    PreferredSchedulingTerm,
)
from kscore_fast.model.snapshot import Cluster, build_cluster
from kscore_fast.plugins.nodeaffinity import NodeAffinity, kernels
from kscore_fast.plugins.nodeaffinity.plugin import added_affinity
from kscore_fast.plugins.nodeaffinity.reference import NodeAffinityReference

from ..harness import filter_codes, score_lists

NAME_FIELD = "metadata.name"


def req(key: str, op: str, *values: str) -> NodeSelectorRequirement:
    return NodeSelectorRequirement(key, op, tuple(values))


def term(*exprs: NodeSelectorRequirement, fields: Sequence[NodeSelectorRequirement] = ()
         ) -> NodeSelectorTerm:  # fmt: skip
    return NodeSelectorTerm(tuple(exprs), tuple(fields))


def required(*terms: NodeSelectorTerm) -> Affinity:
    """``requiredDuringSchedulingIgnoredDuringExecution`` with these terms."""
    return Affinity(required=tuple(terms))


def preferred(*weighted: tuple[int, NodeSelectorTerm]) -> Affinity:
    return Affinity(preferred=tuple(PreferredSchedulingTerm(w, t) for w, t in weighted))


def pod(
    name: str = "p",
    node_selector: Mapping[str, str] | None = None,
    affinity: Affinity | None = None,
) -> PodRecord:
    return PodRecord("", name, node_selector=dict(node_selector or {}), node_affinity=affinity)


def node(name: str = "", labels: Mapping[str, str] | None = None) -> NodeRecord:
    return NodeRecord(name, dict(labels or {}))


def req_json(r: NodeSelectorRequirement) -> dict[str, Any]:
    out: dict[str, Any] = {"key": r.key, "operator": r.operator}
    if r.values:
        out["values"] = list(r.values)
    return out


def term_json(t: NodeSelectorTerm) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if t.match_expressions:
        out["matchExpressions"] = [req_json(r) for r in t.match_expressions]
    if t.match_fields:
        out["matchFields"] = [req_json(r) for r in t.match_fields]
    return out


def args_json(added: Affinity | None) -> dict[str, Any]:
    """``NodeAffinityArgs`` as KubeSchedulerConfiguration's camelCase mapping."""
    if added is None:
        return {}
    out: dict[str, Any] = {}
    if added.required is not None:
        out["requiredDuringSchedulingIgnoredDuringExecution"] = {
            "nodeSelectorTerms": [term_json(t) for t in added.required]
        }
    if added.preferred:
        out["preferredDuringSchedulingIgnoredDuringExecution"] = [
            {"weight": p.weight, "preference": term_json(p.preference)} for p in added.preferred
        ]
    return {"addedAffinity": out}


def plugin_for(added: Affinity | None) -> NodeAffinity:
    plugin = NodeAffinity(args_json(added) or None)
    assert plugin.added == added == added_affinity(args_json(added))
    return plugin


def kernel_filter(c: Cluster, added: Affinity | None = None) -> list[list[str | None]]:
    """Every pending pod on every node: None (passes) or the failure's single reason."""
    plugin = plugin_for(added)
    state = plugin.prepare(c.snapshot, c.batch)
    codes = filter_codes(kernels, state, len(c.batch), c.snapshot.n_nodes)
    out = []
    for row in codes.tolist():
        reasons = [plugin.reasons(state, code) if code else None for code in row]
        assert all(r is None or len(r) == 1 for r in reasons)
        out.append([r and r[0] for r in reasons])
    return out


def reference_filter(c: Cluster, added: Affinity | None = None) -> list[list[str | None]]:
    ref = NodeAffinityReference(added)
    return [[ref.filter(p, n) for n in c.snapshot.nodes] for p in c.batch.pods]


def kernel_scores(c: Cluster, lists: list[list[int]], added: Affinity | None = None
                  ) -> tuple[list[list[int]], list[list[int]]]:  # fmt: skip
    """Raw and normalized scores of pending pod ``p`` on the nodes ``lists[p]``."""
    plugin = plugin_for(added)
    state = plugin.prepare(c.snapshot, c.batch)
    return score_lists(kernels, state, lists, True)


def reference_scores(c: Cluster, lists: list[list[int]], added: Affinity | None = None
                     ) -> tuple[list[list[int]], list[list[int]]]:  # fmt: skip
    ref = NodeAffinityReference(added)
    out = [ref.score_pod(p, [c.snapshot.nodes[n] for n in ns])
           for p, ns in zip(c.batch.pods, lists, strict=True)]  # fmt: skip
    return [r for r, _ in out], [n for _, n in out]


def cluster(nodes: Sequence[NodeRecord], pods: Sequence[PodRecord]) -> Cluster:
    return build_cluster(nodes, pods)
