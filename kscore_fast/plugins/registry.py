"""The in-tree plugin registry (pkg/scheduler/framework/plugins/registry.go) and the
out-of-tree plugins registered beside it (``app.WithPlugin``).

``IN_TREE`` is ``NewInTreeRegistry``: one line per plugin. Out-of-tree plugins are added
with :func:`register_plugin` (or ``kscore_fast.register_plugin``), or found by name among
the package entry points of group ``kscore_fast.plugins`` (a pip-installed package
declares ``[project.entry-points."kscore_fast.plugins"] MyPlugin = "mypkg.plugins:MyPlugin"``).
Profiles name both alike. Upstream plugins not simulated yet are listed with their
extension points, so that a profile naming one is reported as such (never silently
faked), and a name that exists nowhere is an error, as it is upstream.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from typing import Any

from ..errors import ConfigError, PluginError, UnsupportedError
from ..framework.interface import Plugin
from ..framework.registry import Registry
from .imagelocality import ImageLocality
from .interpodaffinity import InterPodAffinity
from .nodeaffinity import NodeAffinity
from .nodename import NodeName
from .nodeports import NodePorts
from .noderesources import NodeResourcesBalancedAllocation, NodeResourcesFit
from .nodeunschedulable import NodeUnschedulable
from .nodevolumelimits import (
    AzureDiskLimits,
    CinderLimits,
    EBSLimits,
    GCEPDLimits,
    NodeVolumeLimits,
)
from .podtopologyspread import PodTopologySpread
from .selectorspread import SelectorSpread
from .tainttoleration import TaintToleration
from .volumebinding import VolumeBinding
from .volumerestrictions import VolumeRestrictions
from .volumezone import VolumeZone

IN_TREE = Registry(
    [
        SelectorSpread,
        NodeUnschedulable,
        NodeName,
        TaintToleration,
        NodeAffinity,
        NodePorts,
        NodeResourcesFit,
        NodeResourcesBalancedAllocation,
        ImageLocality,
        VolumeBinding,
        VolumeZone,
        VolumeRestrictions,
        NodeVolumeLimits,
        EBSLimits,
        GCEPDLimits,
        AzureDiskLimits,
        CinderLimits,
        PodTopologySpread,
        InterPodAffinity,
    ]
)

#: upstream (v1.23) plugins kscore_fast does not simulate, with their extension points
#: that matter to a scheduling cycle (filter, score); the rest only queue, bind, reserve
NOT_SIMULATED: dict[str, tuple[str, ...]] = {
    "PrioritySort": (),
    "DefaultBinder": (),
    "DefaultPreemption": (),
}

#: the out-of-tree plugins of this process
OUT_OF_TREE = Registry()
#: the entry point group a package declares its plugins in
ENTRY_POINT_GROUP = "kscore_fast.plugins"


def register_plugin(cls: type[Plugin]) -> type[Plugin]:
    """Register the out-of-tree plugin class ``cls`` under ``cls.name`` (usable as a class
    decorator). The class is checked first (see ``framework.registry.validate``); the name
    must not be an in-tree or upstream plugin's."""
    name = getattr(cls, "name", None)
    if name in IN_TREE or name in NOT_SIMULATED:
        raise PluginError(f"plugin {name!r}: the name is an in-tree plugin's")
    return OUT_OF_TREE.register(cls)


def plugin_class(name: str) -> type[Plugin] | None:
    """The class registered as ``name``: in-tree, registered in this process, or declared
    by an installed package's entry point (loaded and registered on first use)."""
    cls = IN_TREE.get(name) or OUT_OF_TREE.get(name)
    if cls is not None or name in NOT_SIMULATED:
        return cls
    found = _entry_points().get(name)
    if found is None:
        return None
    try:
        loaded = found.load()
    except Exception as exc:
        raise PluginError(
            f"plugin {name!r}: entry point {found.value!r} does not load "
            f"({type(exc).__name__}: {exc})"
        ) from exc
    if getattr(loaded, "name", None) != name:
        raise PluginError(
            f"plugin {name!r}: entry point {found.value!r} gives "
            f"{getattr(loaded, 'name', loaded)!r}, not a plugin of that name"
        )
    return OUT_OF_TREE.get(name) or register_plugin(loaded)


@functools.cache
def _entry_points() -> dict[str, Any]:
    """The installed packages' plugin entry points by name (read once per process)."""
    from importlib.metadata import entry_points  # (~15 ms to import: only when needed)

    return {ep.name: ep for ep in entry_points(group=ENTRY_POINT_GROUP)}


def registered_points(names: Iterable[str] = ()) -> dict[str, frozenset[str]]:
    """The extension points of every registered plugin, and of those of ``names`` an
    installed package declares (see :func:`plugin_class`)."""
    for name in names:
        plugin_class(name)
    return {n: c.implemented_points() for reg in (IN_TREE, OUT_OF_TREE) for n, c in reg.items()}


def score_plugin_names() -> list[str]:
    """Every plugin that implements ScorePlugin: in-tree (simulated or not) and registered."""
    names = [n for reg in (IN_TREE, OUT_OF_TREE) for n, c in reg.items() if c.scores]
    return sorted(names + [n for n, points in NOT_SIMULATED.items() if "score" in points])


def new_plugin(name: str, args: Mapping[str, Any] | None = None) -> Any:
    """Instantiate the plugin ``name`` with its (defaulted) pluginConfig args."""
    cls = plugin_class(name)
    if cls is None:
        if name in NOT_SIMULATED:
            raise UnsupportedError(f'plugin "{name}" is not simulated by kscore_fast yet')
        raise ConfigError(f'plugin "{name}" does not exist')
    return cls(args)


def new_score_plugin(name: str) -> Any:
    """Instantiate the score plugin ``name`` (for ``--plugins``) or say why it cannot be."""
    cls = plugin_class(name)
    if cls is not None and cls.scores:
        return cls(None)
    if name in NOT_SIMULATED and "score" in NOT_SIMULATED[name]:
        implemented = ", ".join(n for n, c in IN_TREE.items() if c.scores)
        raise UnsupportedError(
            f'score plugin "{name}" is not implemented in kscore_fast yet '
            f"(implemented: {implemented})"
        )
    if cls is not None or name in NOT_SIMULATED:
        raise ConfigError(f'plugin "{name}" does not extend ScorePlugin plugin')
    known = ", ".join(score_plugin_names())
    raise ConfigError(f'Score Plugin "{name}" does not exist (score plugins: {known})')
