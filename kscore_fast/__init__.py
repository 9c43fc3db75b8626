"""kscore_fast: kube-scheduler v1.23.6 node scoring, bit-exact and vectorized.

Nodes and pods are NumPy columns, label sets interned value-id columns, plugins numba
kernels that score every node for many pods at once; a seeded choice among the top
totals picks each host. See ``docs/contract.md`` for the result document and
``kscore_fast.framework`` for the design.

The public names below are imported on first use (PEP 562), so that ``import
kscore_fast`` and the ``kscore`` command start without loading numba; the command
installs its signal handlers before anything slow happens.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

#: public name → the module that defines it (``module:name`` where the names differ)
_EXPORTS = {
    "Cluster": ".model.snapshot",
    "ClusterSnapshot": ".model.snapshot",
    "ConfigError": ".errors",
    "InputError": ".errors",
    "KScoreError": ".errors",
    "Plugin": ".framework.interface",
    "PluginError": ".errors",
    "CapacityResult": ".capacity_search",
    "PodBatch": ".model.snapshot",
    "ScoreResult": ".framework.result",
    "Simulator": ".simulator",
    "TimedResult": ".queue.result",
    "TimedSimulator": ".queue.timed",
    "UnsupportedError": ".errors",
    "capacity": ".capacity_search",
    "kernel": "._jit:plugin_kernel",
    "load_cluster": ".api",
    "register_plugin": ".plugins.registry",
    "replay_timed": ".queue.replay",
    "retain_freed_memory": "._memory",
    "score": ".api",
    "simulate": ".api",
    "sweep": ".sweep_runs",
}

__all__ = [
    "CapacityResult",
    "Cluster",
    "ClusterSnapshot",
    "ConfigError",
    "InputError",
    "KScoreError",
    "Plugin",
    "PluginError",
    "PodBatch",
    "ScoreResult",
    "Simulator",
    "TimedResult",
    "TimedSimulator",
    "UnsupportedError",
    "__version__",
    "capacity",
    "kernel",
    "load_cluster",
    "register_plugin",
    "replay_timed",
    "retain_freed_memory",
    "score",
    "simulate",
    "sweep",
]

if TYPE_CHECKING:
    from ._jit import plugin_kernel as kernel
    from ._memory import retain_freed_memory
    from .api import load_cluster, score, simulate
    from .capacity_search import CapacityResult, capacity
    from .errors import ConfigError, InputError, KScoreError, PluginError, UnsupportedError
    from .framework.interface import Plugin
    from .framework.result import ScoreResult
    from .model.snapshot import Cluster, ClusterSnapshot, PodBatch
    from .plugins.registry import register_plugin
    from .queue.replay import replay_timed
    from .queue.result import TimedResult
    from .queue.timed import TimedSimulator
    from .simulator import Simulator
    from .sweep_runs import sweep


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module, _, attr = module.partition(":")
    value = getattr(import_module(module, __name__), attr or name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_EXPORTS])
