"""Typed plugin args (pkg/scheduler/apis/config/types_pluginargs.go, the internal types).

One frozen dataclass per args kind the scheduler registers, with Go's defaults already
applied (:mod:`.defaults`). :func:`args_from_versioned` converts a decoded, defaulted
versioned document into them; :func:`args_to_versioned` goes back (for
:mod:`.dump`). A plugin without an args type (``SelectorSpread``, ...) that is given
args keeps them as :class:`UnknownArgs` (Go's ``runtime.Unknown``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..model.objects import NodeAffinity, NodeSelectorRequirement, NodeSelectorTerm
from ..model.objects import PreferredSchedulingTerm as ModelPreferredTerm

LEAST_ALLOCATED = "LeastAllocated"
MOST_ALLOCATED = "MostAllocated"
REQUESTED_TO_CAPACITY_RATIO = "RequestedToCapacityRatio"
SYSTEM_DEFAULTING = "System"
LIST_DEFAULTING = "List"


@dataclass(frozen=True)
class ResourceSpec:
    name: str
    weight: int


@dataclass(frozen=True)
class UtilizationShapePoint:
    utilization: int
    score: int


@dataclass(frozen=True)
class RequestedToCapacityRatioParam:
    shape: tuple[UtilizationShapePoint, ...] | None


@dataclass(frozen=True)
class ScoringStrategy:
    """``type``: LeastAllocated, MostAllocated or RequestedToCapacityRatio (anything else
    fails when the plugin is built, as NewFit does)."""

    type: str
    resources: tuple[ResourceSpec, ...] | None
    requested_to_capacity_ratio: RequestedToCapacityRatioParam | None = None


@dataclass(frozen=True)
class DefaultPreemptionArgs:
    min_candidate_nodes_percentage: int = 10
    min_candidate_nodes_absolute: int = 100


@dataclass(frozen=True)
class InterPodAffinityArgs:
    hard_pod_affinity_weight: int = 1


@dataclass(frozen=True)
class NodeResourcesFitArgs:
    ignored_resources: tuple[str, ...] | None = None
    ignored_resource_groups: tuple[str, ...] | None = None
    scoring_strategy: ScoringStrategy | None = None


@dataclass(frozen=True)
class NodeResourcesBalancedAllocationArgs:
    resources: tuple[ResourceSpec, ...] | None = None


@dataclass(frozen=True)
class TopologySpreadConstraint:
    """A ``v1.TopologySpreadConstraint`` of ``defaultConstraints`` (``label_selector``
    as written; validation refuses any)."""

    max_skew: int
    topology_key: str
    when_unsatisfiable: str
    label_selector: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class PodTopologySpreadArgs:
    default_constraints: tuple[TopologySpreadConstraint, ...] | None = None
    defaulting_type: str = SYSTEM_DEFAULTING


@dataclass(frozen=True)
class VolumeBindingArgs:
    bind_timeout_seconds: int = 600
    shape: tuple[UtilizationShapePoint, ...] | None = None


@dataclass(frozen=True)
class NodeAffinityArgs:
    """``added_affinity``: the ``v1.NodeAffinity`` document as decoded (JSON field names;
    None when absent); :meth:`node_affinity` gives it as the model's type."""

    added_affinity: Mapping[str, Any] | None = None

    def node_affinity(self) -> NodeAffinity | None:
        a = self.added_affinity
        if a is None:
            return None
        req = a.get("requiredDuringSchedulingIgnoredDuringExecution")
        required = (
            None if req is None else tuple(_term(t) for t in req.get("nodeSelectorTerms") or ())
        )
        preferred = tuple(
            ModelPreferredTerm(weight=p.get("weight", 0), preference=_term(p.get("preference", {})))
            for p in a.get("preferredDuringSchedulingIgnoredDuringExecution") or ()
        )
        return NodeAffinity(required=required, preferred=preferred)


@dataclass(frozen=True)
class UnknownArgs:
    """Args of a plugin the scheme has no args type for, kept as written (JSON value)."""

    raw: Any


PluginArgs = (
    DefaultPreemptionArgs
    | InterPodAffinityArgs
    | NodeResourcesFitArgs
    | NodeResourcesBalancedAllocationArgs
    | PodTopologySpreadArgs
    | VolumeBindingArgs
    | NodeAffinityArgs
    | UnknownArgs
)


def _term(t: Mapping[str, Any]) -> NodeSelectorTerm:
    def reqs(key: str) -> tuple[NodeSelectorRequirement, ...]:
        return tuple(
            NodeSelectorRequirement(
                r.get("key", ""), r.get("operator", ""), tuple(r.get("values", ()))
            )
            for r in t.get(key) or ()
        )

    return NodeSelectorTerm(
        match_expressions=reqs("matchExpressions"), match_fields=reqs("matchFields")
    )


# -- versioned (JSON) <-> internal -----------------------------------------------------------


def _tuple(v: Any, fn: Any = None) -> tuple[Any, ...] | None:
    if v is None:
        return None
    return tuple(fn(x) for x in v) if fn else tuple(v)


def _resource(d: Mapping[str, Any]) -> ResourceSpec:
    return ResourceSpec(d.get("name", ""), d.get("weight", 0))


def _point(d: Mapping[str, Any]) -> UtilizationShapePoint:
    return UtilizationShapePoint(d.get("utilization", 0), d.get("score", 0))


def _strategy(d: Mapping[str, Any] | None) -> ScoringStrategy | None:
    if d is None:
        return None
    rtc = d.get("requestedToCapacityRatio")
    return ScoringStrategy(
        type=d.get("type", ""),
        resources=_tuple(d.get("resources"), _resource),
        requested_to_capacity_ratio=None
        if rtc is None
        else RequestedToCapacityRatioParam(_tuple(rtc.get("shape"), _point)),
    )


def _constraint(d: Mapping[str, Any]) -> TopologySpreadConstraint:
    return TopologySpreadConstraint(
        d.get("maxSkew", 0),
        d.get("topologyKey", ""),
        d.get("whenUnsatisfiable", ""),
        d.get("labelSelector"),
    )


def args_from_versioned(kind: str, d: Mapping[str, Any]) -> PluginArgs:
    """Internal args of a registered kind from its defaulted versioned document."""
    if kind == "DefaultPreemptionArgs":
        return DefaultPreemptionArgs(
            d.get("minCandidateNodesPercentage", 0), d.get("minCandidateNodesAbsolute", 0)
        )
    if kind == "InterPodAffinityArgs":
        return InterPodAffinityArgs(d.get("hardPodAffinityWeight", 0))
    if kind == "NodeResourcesFitArgs":
        return NodeResourcesFitArgs(
            _tuple(d.get("ignoredResources")),
            _tuple(d.get("ignoredResourceGroups")),
            _strategy(d.get("scoringStrategy")),
        )
    if kind == "NodeResourcesBalancedAllocationArgs":
        return NodeResourcesBalancedAllocationArgs(_tuple(d.get("resources"), _resource))
    if kind == "PodTopologySpreadArgs":
        return PodTopologySpreadArgs(
            _tuple(d.get("defaultConstraints"), _constraint), d.get("defaultingType", "")
        )
    if kind == "VolumeBindingArgs":
        return VolumeBindingArgs(d.get("bindTimeoutSeconds", 0), _tuple(d.get("shape"), _point))
    if kind == "NodeAffinityArgs":
        return NodeAffinityArgs(d.get("addedAffinity"))
    raise KeyError(kind)


def _list(v: tuple[Any, ...] | None, fn: Any = None) -> list[Any] | None:
    if v is None:
        return None
    return [fn(x) for x in v] if fn else list(v)


def _resource_json(r: ResourceSpec) -> dict[str, Any]:
    return {"name": r.name, "weight": r.weight}


def _point_json(p: UtilizationShapePoint) -> dict[str, Any]:
    return {"utilization": p.utilization, "score": p.score}


def _strategy_json(s: ScoringStrategy | None) -> dict[str, Any] | None:
    if s is None:
        return None
    rtc = s.requested_to_capacity_ratio
    return {
        "type": s.type,
        "resources": _list(s.resources, _resource_json),
        "requestedToCapacityRatio": None
        if rtc is None
        else {"shape": _list(rtc.shape, _point_json)},
    }


def _constraint_json(c: TopologySpreadConstraint) -> dict[str, Any]:
    return {
        "maxSkew": c.max_skew,
        "topologyKey": c.topology_key,
        "whenUnsatisfiable": c.when_unsatisfiable,
        "labelSelector": c.label_selector,
    }


def args_to_versioned(args: PluginArgs) -> Any:
    """The versioned document of internal args, as Go's conversion builds it (pointers
    set, None for nil; ``omitempty`` is the encoder's business), without TypeMeta."""
    if isinstance(args, UnknownArgs):
        return args.raw
    if isinstance(args, DefaultPreemptionArgs):
        return {
            "minCandidateNodesPercentage": args.min_candidate_nodes_percentage,
            "minCandidateNodesAbsolute": args.min_candidate_nodes_absolute,
        }
    if isinstance(args, InterPodAffinityArgs):
        return {"hardPodAffinityWeight": args.hard_pod_affinity_weight}
    if isinstance(args, NodeResourcesFitArgs):
        return {
            "ignoredResources": _list(args.ignored_resources),
            "ignoredResourceGroups": _list(args.ignored_resource_groups),
            "scoringStrategy": _strategy_json(args.scoring_strategy),
        }
    if isinstance(args, NodeResourcesBalancedAllocationArgs):
        return {"resources": _list(args.resources, _resource_json)}
    if isinstance(args, PodTopologySpreadArgs):
        return {
            "defaultConstraints": _list(args.default_constraints, _constraint_json),
            "defaultingType": args.defaulting_type,
        }
    if isinstance(args, VolumeBindingArgs):
        return {
            "bindTimeoutSeconds": args.bind_timeout_seconds,
            "shape": _list(args.shape, _point_json),
        }
    assert isinstance(args, NodeAffinityArgs)
    return {"addedAffinity": args.added_affinity}


#: args kind of each plugin that has one (Go: the scheme knows ``<Plugin>Args``)
ARGS_KIND = {
    "DefaultPreemption": "DefaultPreemptionArgs",
    "InterPodAffinity": "InterPodAffinityArgs",
    "NodeResourcesFit": "NodeResourcesFitArgs",
    "NodeResourcesBalancedAllocation": "NodeResourcesBalancedAllocationArgs",
    "PodTopologySpread": "PodTopologySpreadArgs",
    "VolumeBinding": "VolumeBindingArgs",
    "NodeAffinity": "NodeAffinityArgs",
}
