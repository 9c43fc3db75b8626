"""What the framework makes of a profile: ``frameworkruntime.NewFramework`` and
``profile.NewMap`` of v1.23.6, over the plugin registry, without running anything.

Per profile, in Go's order:

1. every plugin named anywhere in the profile's sets (multiPoint too) that the registry
   has is built with its pluginConfig args; only NodeResourcesFit can fail here (its args
   are validated when it is built: ``initializing plugin "NodeResourcesFit": ...``);
2. each extension point's enabled list, in ``getExtensionPoints`` order (preFilter,
   filter, postFilter, reserve, preScore, score, preBind, bind, postBind, permit,
   queueSort): ``FilterPlugin "X" does not exist``, ``plugin "X" does not extend
   FilterPlugin plugin``, ``plugin "X" already registered as "FilterPlugin"``;
3. MultiPoint expansion (``expandMultiPointPlugins``): at each extension point not
   disabled with ``*``, each multiPoint plugin that implements it and is neither disabled
   there nor already enabled there explicitly is appended;
4. exactly one queue sort plugin; score weights (``getScoreWeights``: the Score list then
   multiPoint, the first weight seen wins, 0 becomes 1, int64 overflow refused); at least
   one bind plugin;
5. across profiles: the same queue sort plugin and args (``cfgValidator``).

Errors read ``initializing profiles: creating profile for scheduler name <name>: <Go's
message>``, as kube-scheduler prints them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from types import MappingProxyType

from . import args as a
from .gofmt import aggregate, go_quote
from .types import EXTENSION_POINTS, MULTI_POINT, Plugin, PluginSet, Profile
from .validate import validate_fit_args

QS, PF, F, POF, PS, S, R, PE, PB, B, POB = EXTENSION_POINTS
#: the interfaces of the v1.23.6 in-tree plugins that kscore_fast has no plugin class for
#: (pkg/scheduler/framework/plugins); registered plugins declare theirs
#: (``Plugin.extension_points``)
UPSTREAM_ONLY: dict[str, frozenset[str]] = {
    "PrioritySort": frozenset({QS}),
    "VolumeRestrictions": frozenset({PF, F}),
    "EBSLimits": frozenset({F}),
    "GCEPDLimits": frozenset({F}),
    "NodeVolumeLimits": frozenset({F}),
    "AzureDiskLimits": frozenset({F}),
    "CinderLimits": frozenset({F}),
    "VolumeZone": frozenset({F}),
    "DefaultPreemption": frozenset({POF}),
    "DefaultBinder": frozenset({B}),
}


def plugin_points(names: Iterable[str] = ()) -> dict[str, frozenset[str]]:
    """The plugins a profile may name, with the extension points each implements: the
    upstream plugins above, every registered plugin (in-tree and out-of-tree), and those
    of ``names`` an installed package declares (loaded now)."""
    from ..plugins.registry import registered_points  # (config loads without the plugins)

    return {**UPSTREAM_ONLY, **registered_points(names)}


#: getExtensionPoints' order, and the Go interface of each point
FRAMEWORK_ORDER = (PF, F, POF, R, PS, S, PB, B, POB, PE, QS)
INTERFACE = {p: p[0].upper() + p[1:] + "Plugin" for p in EXTENSION_POINTS}
MAX_NODE_SCORE = 100
INT64_MAX = 2**63 - 1
_RTC_PANIC = (
    "scoringStrategy.type RequestedToCapacityRatio needs scoringStrategy.requestedToCapacityRatio "
    "(kube-scheduler v1.23.6 crashes with a nil pointer dereference without it)"
)


class FrameworkError(Exception):
    """NewFramework's (or NewMap's) error, Go's text."""


def build_profiles(profiles: Sequence[Profile]) -> tuple[Profile, ...]:
    """Every profile with its framework data; :class:`FrameworkError` as NewMap fails."""
    built = []
    first: Profile | None = None
    for prof in profiles:
        try:
            b = build_profile(prof)
        except FrameworkError as exc:
            raise FrameworkError(
                f"initializing profiles: creating profile for scheduler name "
                f"{prof.scheduler_name}: {exc}"
            ) from None
        if first is None:
            first = b
        else:
            _same_queue_sort(first, b)
        built.append(b)
    return tuple(built)


def _same_queue_sort(first: Profile, b: Profile) -> None:
    qs, first_qs = b.enabled(QS)[0], first.enabled(QS)[0]
    if qs != first_qs:
        raise FrameworkError(
            f"initializing profiles: different queue sort plugins for profile "
            f"{go_quote(b.scheduler_name)}: {go_quote(qs)}, first: {go_quote(first_qs)}"
        )
    mine = next((pc.args for pc in b.plugin_config if pc.name == qs), None)
    theirs = next((pc.args for pc in first.plugin_config if pc.name == first_qs), None)
    if mine != theirs:
        raise FrameworkError(
            f"initializing profiles: different queue sort plugin args for profile "
            f"{go_quote(b.scheduler_name)}"
        )


def build_profile(prof: Profile) -> Profile:
    """``NewFramework`` for one profile."""
    sets = prof.plugins
    needed = {p.name for s in sets.values() for p in s.enabled}
    config = {pc.name: pc.args for pc in prof.plugin_config}
    known = plugin_points(needed)
    built = {name: known[name] for name in known if name in needed}
    for name in sorted(built):
        _init_plugin(name, config.get(name))
    lists: dict[str, list[str]] = {p: [] for p in EXTENSION_POINTS}
    for point in FRAMEWORK_ORDER:
        _update_plugin_list(point, sets.get(point, PluginSet()), built, lists[point])
    multi = sets.get(MULTI_POINT, PluginSet())
    if multi.enabled:
        _expand_multi_point(sets, multi, built, lists)
    if len(lists[QS]) != 1:
        raise FrameworkError(
            f"one queue sort plugin required for profile with scheduler name "
            f"{go_quote(prof.scheduler_name)}"
        )
    weights = _score_weights([*sets.get(S, PluginSet()).enabled, *multi.enabled], built)
    if not lists[B]:
        raise FrameworkError("at least one bind plugin is needed")
    return replace(
        prof,
        extension_points=MappingProxyType({p: tuple(v) for p, v in lists.items()}),
        score_weights=MappingProxyType({n: weights[n] for n in lists[S]}),
        args=MappingProxyType({n: config[n] for n in sorted(built) if config.get(n) is not None}),
    )


def _init_plugin(name: str, args: a.PluginArgs | None) -> None:
    """The factory's own checks of its args (validatePluginConfig already ran the others)."""
    if name != "NodeResourcesFit":
        return
    if not isinstance(args, a.NodeResourcesFitArgs):
        got = "<nil>" if args is None else "*runtime.Unknown"
        raise FrameworkError(
            f'initializing plugin "{name}": want args to be of type NodeResourcesFitArgs, got {got}'
        )
    errs = validate_fit_args(args)
    if errs:
        raise FrameworkError(f'initializing plugin "{name}": {aggregate(errs)}')
    s = args.scoring_strategy
    if s is None:
        raise FrameworkError(f'initializing plugin "{name}": scoring strategy not specified')
    if s.type not in (a.LEAST_ALLOCATED, a.MOST_ALLOCATED, a.REQUESTED_TO_CAPACITY_RATIO):
        raise FrameworkError(
            f'initializing plugin "{name}": scoring strategy {s.type} is not supported'
        )
    if s.type == a.REQUESTED_TO_CAPACITY_RATIO and s.requested_to_capacity_ratio is None:
        raise FrameworkError(f'initializing plugin "{name}": {_RTC_PANIC}')


def _update_plugin_list(
    point: str, ps: PluginSet, built: Mapping[str, frozenset[str]], out: list[str]
) -> None:
    iface = INTERFACE[point]
    for p in ps.enabled:
        if p.name not in built:
            raise FrameworkError(f"{iface} {go_quote(p.name)} does not exist")
        if point not in built[p.name]:
            raise FrameworkError(f"plugin {go_quote(p.name)} does not extend {iface} plugin")
        if p.name in out:
            raise FrameworkError(
                f"plugin {go_quote(p.name)} already registered as {go_quote(iface)}"
            )
        out.append(p.name)


def _expand_multi_point(
    sets: Mapping[str, PluginSet],
    multi: PluginSet,
    built: Mapping[str, frozenset[str]],
    lists: dict[str, list[str]],
) -> None:
    """``expandMultiPointPlugins``."""
    for point in FRAMEWORK_ORDER:
        ps = sets.get(point, PluginSet())
        enabled = set(ps.names())
        disabled = {p.name for p in ps.disabled}
        if "*" in disabled:
            continue
        added: set[str] = set()
        for p in multi.enabled:
            if p.name not in built:
                raise FrameworkError(f"{INTERFACE[point]} {go_quote(p.name)} does not exist")
            if point not in built[p.name] or p.name in disabled or p.name in enabled:
                continue
            if p.name in added:
                raise FrameworkError(
                    f"plugin {go_quote(p.name)} already registered as {go_quote(INTERFACE[point])}"
                )
            added.add(p.name)
            lists[point].append(p.name)


def _wrap64(v: int) -> int:
    return (v + 2**63) % 2**64 - 2**63


def _score_weights(
    plugins: Sequence[Plugin], built: Mapping[str, frozenset[str]]
) -> dict[str, int]:
    """``getScoreWeights`` (int64 arithmetic, wrapping as Go's does)."""
    weights: dict[str, int] = {}
    total = 0
    for p in plugins:
        if p.name not in built:  # only a multiPoint plugin disabled everywhere with "*"
            raise FrameworkError(
                f"multiPoint plugin {go_quote(p.name)} does not exist (kube-scheduler v1.23.6 "
                "crashes on this configuration: every extension point disables '*')"
            )
        if S not in built[p.name] or p.name in weights:
            continue
        w = p.weight or 1
        weights[p.name] = w
        if w * MAX_NODE_SCORE > _wrap64(INT64_MAX - total):
            raise FrameworkError("total score of Score plugins could overflow")
        total = _wrap64(total + w * MAX_NODE_SCORE)
    return weights
