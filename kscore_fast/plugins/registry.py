"""The in-tree plugin registry (pkg/scheduler/framework/plugins/registry.go).

``IN_TREE`` maps plugin names to factories, like ``NewInTreeRegistry``; the runtime is
handed plugins built from it and never imports a plugin itself. Upstream plugins not
implemented yet are listed so that asking for one is reported as unsupported rather than
unknown.
"""

from __future__ import annotations

from collections.abc import Callable

from ..errors import ConfigError, UnsupportedError
from ..framework.interface import ScorePlugin
from .selectorspread import SelectorSpread

IN_TREE: dict[str, Callable[[], ScorePlugin]] = {
    SelectorSpread.name: SelectorSpread,
}

#: upstream (v1.23) plugins that implement ScorePlugin, not yet in kscore_fast
UPSTREAM_SCORE_PLUGINS = (
    "ImageLocality",
    "InterPodAffinity",
    "NodeAffinity",
    "NodeResourcesBalancedAllocation",
    "NodeResourcesFit",
    "PodTopologySpread",
    "TaintToleration",
    "VolumeBinding",
)

#: upstream (v1.23) in-tree plugins that are not score plugins
UPSTREAM_OTHER_PLUGINS = (
    "AzureDiskLimits",
    "CinderLimits",
    "DefaultBinder",
    "DefaultPreemption",
    "EBSLimits",
    "GCEPDLimits",
    "NodeName",
    "NodePorts",
    "NodeUnschedulable",
    "NodeVolumeLimits",
    "PrioritySort",
    "VolumeRestrictions",
    "VolumeZone",
)


def new_score_plugin(name: str) -> ScorePlugin:
    """Instantiate the score plugin ``name`` or say why it cannot be."""
    factory = IN_TREE.get(name)
    if factory is not None:
        return factory()
    if name in UPSTREAM_SCORE_PLUGINS:
        raise UnsupportedError(
            f'score plugin "{name}" is not implemented in kscore_fast yet '
            f"(implemented: {', '.join(IN_TREE)})"
        )
    if name in UPSTREAM_OTHER_PLUGINS:
        raise ConfigError(f'plugin "{name}" does not extend ScorePlugin plugin')
    raise ConfigError(
        f'Score Plugin "{name}" does not exist (score plugins: '
        f"{', '.join(sorted([*IN_TREE, *UPSTREAM_SCORE_PLUGINS]))})"
    )
