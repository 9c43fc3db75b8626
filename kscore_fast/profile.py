"""Frameworks: from the command line's ``--plugins NAME[=WEIGHT],...`` (score plugins
only, no filters: the shortcut), or from a KubeSchedulerConfiguration profile.

Weights follow kube-scheduler's ``getScoreWeights`` (pkg/scheduler/framework/runtime/
framework.go): a weight of 0 means "not set" and becomes 1; the sum of
``weight × MaxNodeScore`` must not overflow int64. A weight is an ``int32``
(``Plugin.Weight`` of the scheduler configuration, which cannot hold more than
2147483647; v1.23 has no other bound on it).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from .config.args import DefaultPreemptionArgs
from .errors import ConfigError
from .framework.interface import Plugin
from .framework.runtime import Framework, WeightedPlugin
from .goarith import INT64_MAX, MAX_NODE_SCORE
from .plugins.registry import new_plugin, new_score_plugin, plugin_class

DEFAULT_PLUGINS = "SelectorSpread"
INT32_MAX = 2**31 - 1
_ENTRY = re.compile(r"\s*([A-Za-z][A-Za-z0-9]*)\s*(?:=\s*(\S*))?\s*\Z")

PluginsSpec = str | Mapping[str, int] | Iterable[tuple[str, int]]


def parse_plugins(spec: str, what: str = "plugins") -> list[tuple[str, int]]:
    """Parse ``NAME[=WEIGHT],...`` (empty string: no score plugins); ``what``: the
    parameter as errors name it (the command line's ``--plugins``)."""
    if spec.strip() == "":
        return []
    out: list[tuple[str, int]] = []
    for part in spec.split(","):
        m = _ENTRY.match(part)
        if m is None:
            raise ConfigError(
                f"{what}: malformed entry {_short(part)}; expected NAME or NAME=WEIGHT, "
                "e.g. SelectorSpread=2"
            )
        name, weight = m.group(1), m.group(2)
        if weight is None:
            w = 0
        elif re.fullmatch(r"[0-9]+", weight):
            digits = weight.lstrip("0")
            if len(digits) > len(str(INT32_MAX)):  # never int() thousands of digits
                raise _weight_out_of_range(name, f"a {len(digits)}-digit number")
            w = int(weight)
        else:
            raise ConfigError(
                f"{what}: weight of {name} must be a non-negative integer, got {_short(weight)}"
            )
        out.append((name, w))
    return out


def build_framework(
    plugins: PluginsSpec = DEFAULT_PLUGINS,
    percentage_of_nodes_to_score: int = 0,
    what: str = "plugins",
) -> Framework:
    """A framework with the given score plugins and weights (``what``: as in
    :func:`parse_plugins`)."""
    if isinstance(plugins, str):
        entries = parse_plugins(plugins, what)
    elif isinstance(plugins, Mapping):
        entries = list(plugins.items())
    else:
        entries = list(plugins)
    for i, entry in enumerate(entries):
        if not (isinstance(entry, tuple | list) and len(entry) == 2
                and isinstance(entry[0], str)):  # fmt: skip
            raise ConfigError(f"{what}: entry {i} must be a (name, weight) pair, got "
                              f"{_short(entry)}")  # fmt: skip
    if not 0 <= percentage_of_nodes_to_score <= 100:
        raise ConfigError(
            f"percentageOfNodesToScore: Invalid value: {_short(percentage_of_nodes_to_score)}: "
            "not in valid range [0-100]"
        )
    seen: set[str] = set()
    weighted: list[WeightedPlugin] = []
    total = 0
    for name, weight in entries:
        if not isinstance(weight, int) or isinstance(weight, bool) or weight < 0:
            raise ConfigError(
                f"weight of score plugin {name} must be an integer ≥ 0, got {_short(weight)}"
            )
        if weight > INT32_MAX:
            raise _weight_out_of_range(name, _short(weight))
        if name in seen:
            raise ConfigError(f'plugin "{name}" already registered as "ScorePlugin"')
        seen.add(name)
        w = weight or 1
        if w * MAX_NODE_SCORE > INT64_MAX - total:
            raise ConfigError("total score of Score plugins could overflow")
        total += w * MAX_NODE_SCORE
        weighted.append(WeightedPlugin(new_score_plugin(name), w))
    return Framework(weighted, percentage_of_nodes_to_score)


def _weight_out_of_range(name: str, shown: str) -> ConfigError:
    return ConfigError(
        f"weight of score plugin {name} is {shown}, out of range: weights are int32 "
        f"(Plugin.Weight of KubeSchedulerConfiguration), at most {INT32_MAX}"
    )


def _short(value: object, limit: int = 40) -> str:
    """``repr(value)``, cut to ``limit`` characters (a message never echoes 5,000 digits)."""
    if isinstance(value, int) and abs(value) >= 10**limit:  # repr() of it may even raise
        return f"a {'negative ' if value < 0 else ''}{value.bit_length()}-bit integer"
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


# -- profiles of a KubeSchedulerConfiguration --------------------------------------------


@dataclass(frozen=True)
class BuiltProfile:
    """A configuration profile as kscore_fast runs it."""

    framework: Framework
    #: the profile's plugins (per extension point) that kscore_fast does not simulate
    not_simulated: tuple[str, ...]


#: the PostFilter plugin kscore_fast runs (:mod:`kscore_fast.preemption`)
PREEMPTION = "DefaultPreemption"


def framework_for_profile(profile: Any, percentage_of_nodes_to_score: int) -> BuiltProfile:
    """The framework of a configuration profile (:class:`kscore_fast.config.types.Profile`):
    its filter plugins in order, its score plugins with weights, each plugin built once
    with the profile's args. Plugins kscore_fast does not simulate are left out and named
    (``VolumeZone (filter)``), never faked."""
    from .config.args import args_to_versioned

    built: dict[str, Any] = {}
    missing: dict[str, list[str]] = {}

    def plugin(name: str, point: str) -> Any | None:
        cls = plugin_class(name)
        if cls is None or not getattr(cls, "filters" if point == "filter" else "scores"):
            missing.setdefault(name, []).append(point)
            return None
        if name not in built:
            args = profile.args.get(name)
            built[name] = new_plugin(name, None if args is None else args_to_versioned(args))
        return built[name]

    filters = [p for n in profile.enabled("filter") if (p := plugin(n, "filter")) is not None]
    filters = _pre_filter_gates(profile, built) + filters
    scores = [
        WeightedPlugin(p, w)
        for n, w in profile.score_plugins()
        if (p := plugin(n, "score")) is not None
    ]
    for name in profile.enabled("preFilter"):  # PreFilter-only rejections (none in-tree)
        if plugin_class(name) is None and name not in missing:
            missing[name] = ["preFilter"]
    # PreScore runs the profile's own list (a plugin disabled at Score may still fail there)
    pre_score = [
        plugin(n, "score") for n in profile.enabled("preScore") if _fails_pre_score(plugin_class(n))
    ]
    framework = Framework(scores, percentage_of_nodes_to_score, filters, pre_score)
    if PREEMPTION in profile.enabled("postFilter"):
        args = profile.args.get(PREEMPTION) or DefaultPreemptionArgs()
        framework.preemption = (args.min_candidate_nodes_percentage,
                                args.min_candidate_nodes_absolute)  # fmt: skip
    shown = tuple(f"{n} ({', '.join(points)})" for n, points in missing.items())
    return BuiltProfile(framework, shown)


def _pre_filter_gates(profile: Any, built: dict[str, Any]) -> list[Any]:
    """The PreFilters that can fail a pod, as filters run before every other (a pod they
    fail gets their status on every node): one per plugin at ``preFilter`` whose class
    declares ``pre_filter_gate``, built beside the plugin (its args)."""
    gates = []
    for name in profile.enabled("preFilter"):
        gate = getattr(plugin_class(name), "pre_filter_gate", None)
        if gate is not None:
            owner = built.get(name)
            gates.append(gate(None if owner is None else owner.args))
    return gates


def _fails_pre_score(cls: type[Plugin] | None) -> bool:
    """The plugin's PreScore can fail (it implements ``pre_score_errors``)."""
    return cls is not None and cls.pre_score_errors is not Plugin.pre_score_errors
