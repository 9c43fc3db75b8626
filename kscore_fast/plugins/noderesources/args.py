"""Plugin args of NodeResourcesFit and NodeResourcesBalancedAllocation (camelCase, as in a
``pluginConfig``), with the v1beta3 defaults of pkg/scheduler/apis/config/v1beta3/
defaults.go (``SetDefaults_NodeResourcesFitArgs``,
``SetDefaults_NodeResourcesBalancedAllocationArgs``) and the checks ``NewFit`` runs itself
(validation_pluginargs.go ``validateResources``, ``validateFunctionShape``).

``defaults=False`` reads the args as ``NewFit`` receives them in upstream's unit tests,
already internal: nothing is defaulted (an empty resource list scores 0).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ...errors import ConfigError
from .names import CPU, MEMORY

LEAST_ALLOCATED = "LeastAllocated"
MOST_ALLOCATED = "MostAllocated"
REQUESTED_TO_CAPACITY_RATIO = "RequestedToCapacityRatio"
STRATEGIES = (LEAST_ALLOCATED, MOST_ALLOCATED, REQUESTED_TO_CAPACITY_RATIO)
#: v1beta3 defaultResourceSpec
DEFAULT_RESOURCES = ((CPU, 1), (MEMORY, 1))
MAX_CUSTOM_PRIORITY_SCORE = 10


def _int(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(f"expected an integer, found {value!r}", field=where)
    return value


def _mapping(value: Any, where: str) -> Mapping[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise ConfigError(f"expected a mapping, found {value!r}", field=where)
    return value


def _list(value: Any, where: str) -> Sequence[Any]:
    if value is None:
        return []
    if isinstance(value, str | bytes) or not isinstance(value, Sequence):
        raise ConfigError(f"expected a list, found {value!r}", field=where)
    return value


def resources(value: Any, where: str, defaults: bool) -> list[tuple[str, int]]:
    """``[{name, weight}]`` → (name, weight) pairs: empty → cpu and memory, weight 0 → 1."""
    out = []
    for i, spec in enumerate(_list(value, where)):
        spec = _mapping(spec, f"{where}[{i}]")
        name = spec.get("name", "")
        if not isinstance(name, str):
            raise ConfigError(f"expected a string, found {name!r}", field=f"{where}[{i}].name")
        weight = _int(spec.get("weight", 0), f"{where}[{i}].weight")
        out.append((name, 1 if defaults and weight == 0 else weight))
    if defaults and not out:
        out = list(DEFAULT_RESOURCES)
    return out


def check_weights(specs: Sequence[tuple[str, int]], where: str) -> None:
    """``validateResources``: every weight in (0, 100]."""
    for i, (name, weight) in enumerate(specs):
        if weight <= 0 or weight > 100:
            raise ConfigError(
                f"resource weight of {name} not in valid range (0, 100]",
                field=f"{where}[{i}].weight",
            )


def shape(value: Any, where: str) -> list[tuple[int, int]]:
    """``requestedToCapacityRatio.shape`` → (utilization, score) points, checked as
    ``validateFunctionShape`` does."""
    points = []
    for i, p in enumerate(_list(value, where)):
        p = _mapping(p, f"{where}[{i}]")
        u = _int(p.get("utilization", 0), f"{where}[{i}].utilization")
        s = _int(p.get("score", 0), f"{where}[{i}].score")
        if not 0 <= u <= 100:
            raise ConfigError("not in valid range [0, 100]", field=f"{where}[{i}].utilization")
        if not 0 <= s <= MAX_CUSTOM_PRIORITY_SCORE:
            raise ConfigError("not in valid range [0, 10]", field=f"{where}[{i}].score")
        if points and points[-1][0] >= u:
            raise ConfigError(
                "utilization values must be sorted in increasing order",
                field=f"{where}[{i}].utilization",
            )
        points.append((u, s))
    if not points:
        raise ConfigError("at least one point must be specified", field=where)
    return points


def fit_args(args: Mapping[str, Any] | None, defaults: bool) -> dict[str, Any]:
    """NodeResourcesFitArgs → {ignored, groups, strategy, resources, shape}."""
    args = _mapping(args, "args")
    ignored = [str(x) for x in _list(args.get("ignoredResources"), "ignoredResources")]
    groups = [str(x) for x in _list(args.get("ignoredResourceGroups"), "ignoredResourceGroups")]
    for i, g in enumerate(groups):
        if "/" in g:
            raise ConfigError("resource group name can't contain '/'",
                              field=f"ignoredResourceGroups[{i}]")  # fmt: skip
    strategy = args.get("scoringStrategy")
    if strategy is None and defaults:
        strategy = {"type": LEAST_ALLOCATED}
    if strategy is None:
        raise ConfigError("scoring strategy not specified", field="scoringStrategy")
    strategy = _mapping(strategy, "scoringStrategy")
    specs = resources(strategy.get("resources"), "scoringStrategy.resources", defaults)
    check_weights(specs, "scoringStrategy.resources")
    kind = strategy.get("type", "")
    if kind not in STRATEGIES:
        raise ConfigError(f"scoring strategy {kind} is not supported", field="scoringStrategy.type")
    rtcr = strategy.get("requestedToCapacityRatio")
    points: list[tuple[int, int]] = []
    if rtcr is not None or kind == REQUESTED_TO_CAPACITY_RATIO:
        where = "scoringStrategy.requestedToCapacityRatio"
        if rtcr is None:  # NewFit would dereference nil
            raise ConfigError("required for RequestedToCapacityRatio", field=where)
        points = shape(_mapping(rtcr, where).get("shape"), where + ".shape")
    return {"ignored": ignored, "groups": groups, "strategy": kind, "resources": specs,
            "shape": points}  # fmt: skip


def balanced_args(args: Mapping[str, Any] | None, defaults: bool) -> list[tuple[str, int]]:
    """NodeResourcesBalancedAllocationArgs → its (name, weight) resources."""
    return resources(_mapping(args, "args").get("resources"), "resources", defaults)
