"""The in-tree plugin registry (pkg/scheduler/framework/plugins/registry.go).

``IN_TREE`` maps plugin names to their classes, like ``NewInTreeRegistry``; every class
has a slot in the compiled driver (:mod:`.driver`). The runtime is handed plugins built
from it and never imports a plugin itself. Upstream plugins not simulated yet are listed
with their extension points, so that a profile naming one is reported as such (never
silently faked), and a name that exists nowhere is an error, as it is upstream.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..errors import ConfigError, UnsupportedError
from .driver import CLASSES

IN_TREE: dict[str, Any] = {cls.name: cls for cls in CLASSES}

#: upstream (v1.23) plugins kscore_fast does not simulate, with their extension points
#: that matter to a scheduling cycle (filter, score); the rest only queue, bind, reserve
NOT_SIMULATED: dict[str, tuple[str, ...]] = {
    "VolumeBinding": ("filter",),  # its Score is simulated (0 in v1.23.6)
    "VolumeRestrictions": ("filter",),
    "VolumeZone": ("filter",),
    "NodeVolumeLimits": ("filter",),
    "EBSLimits": ("filter",),
    "GCEPDLimits": ("filter",),
    "AzureDiskLimits": ("filter",),
    "CinderLimits": ("filter",),
    "PrioritySort": (),
    "DefaultBinder": (),
    "DefaultPreemption": (),
}

#: v1.23 in-tree plugins that implement ScorePlugin
SCORE_PLUGINS = sorted(
    [n for n, c in IN_TREE.items() if c.scores]
    + [n for n, points in NOT_SIMULATED.items() if "score" in points]
)


def new_plugin(name: str, args: Mapping[str, Any] | None = None) -> Any:
    """Instantiate the in-tree plugin ``name`` with its (defaulted) pluginConfig args."""
    cls = IN_TREE.get(name)
    if cls is None:
        if name in NOT_SIMULATED:
            raise UnsupportedError(f'plugin "{name}" is not simulated by kscore_fast yet')
        raise ConfigError(f'plugin "{name}" does not exist')
    return cls(args)


def new_score_plugin(name: str) -> Any:
    """Instantiate the score plugin ``name`` (for ``--plugins``) or say why it cannot be."""
    cls = IN_TREE.get(name)
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
    known = ", ".join(SCORE_PLUGINS)
    raise ConfigError(f'Score Plugin "{name}" does not exist (score plugins: {known})')
