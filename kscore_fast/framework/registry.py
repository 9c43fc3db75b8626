"""The plugin registry (pkg/scheduler/framework/runtime/registry.go): plugin name → plugin
class, checked when a plugin is registered, so that a misshapen plugin is refused with one
clear error before it can run, never scored wrongly.

In-tree and out-of-tree plugins register the same way; the framework itself never
imports a plugin (the in-tree registry is built in :mod:`kscore_fast.plugins.registry`).
"""

from __future__ import annotations

import inspect
from collections.abc import Iterable, Iterator
from typing import Any

from ..errors import PluginError
from .interface import Plugin

#: each kernel a plugin may have: the extension point that needs it (None: optional) and
#: its parameters
KERNELS: dict[str, tuple[str | None, tuple[str, ...]]] = {
    "filter_node": ("filters", ("state", "pod", "node")),
    "score_pod": ("scores", ("state", "pod", "nodes", "out")),
    "normalize_pod": ("normalizes", ("state", "pod", "nodes", "scores")),
    "score_pod_serial": (None, ("state", "pod", "nodes", "out")),
    "score_normalize_pod": (None, ("state", "pod", "nodes", "raw", "scores")),
    "assume": (None, ("state", "pod", "node")),
    "remove": (None, ("state", "pod", "node")),
}


class Registry:
    """Plugins by name, in registration order."""

    def __init__(self, plugins: Iterable[type[Plugin]] = ()) -> None:
        self._plugins: dict[str, type[Plugin]] = {}
        for cls in plugins:
            self.register(cls)

    def register(self, cls: type[Plugin]) -> type[Plugin]:
        """Add ``cls`` (checked by :func:`validate`); a name already registered is an
        error. Returns ``cls`` (usable as a class decorator)."""
        validate(cls)
        if cls.name in self._plugins and self._plugins[cls.name] is not cls:
            raise PluginError(f"a plugin named {cls.name!r} is already registered")
        self._plugins[cls.name] = cls
        return cls

    def get(self, name: str) -> type[Plugin] | None:
        return self._plugins.get(name)

    def __contains__(self, name: object) -> bool:
        return name in self._plugins

    def __iter__(self) -> Iterator[str]:
        return iter(self._plugins)

    def __len__(self) -> int:
        return len(self._plugins)

    def items(self) -> Iterable[tuple[str, type[Plugin]]]:
        return self._plugins.items()

    def __repr__(self) -> str:
        return f"Registry({', '.join(self._plugins)})"


def validate(cls: Any) -> None:
    """Refuse a plugin class that cannot run: not a :class:`Plugin`, without a name or an
    extension point, a kernel missing for an extension point it declares, a kernel that
    is not a function (compiled, or plain Python: :mod:`.python_kernels`) or takes other
    parameters, ``assume`` without ``remove`` (or the
    reverse), a filter plugin without ``reasons``."""
    if not (isinstance(cls, type) and issubclass(cls, Plugin)):
        raise PluginError(f"{cls!r} is not a plugin class (derive from kscore_fast.Plugin)")
    where = f"plugin {cls.name!r}" if cls.name else f"plugin class {cls.__qualname__}"
    if not isinstance(cls.name, str) or not cls.name.strip():
        raise PluginError(f"{where}: its name must be a non-empty string")
    if not (cls.filters or cls.scores):
        raise PluginError(f"{where}: it extends neither Filter nor Score (set filters/scores)")
    if cls.normalizes and not cls.scores:
        raise PluginError(f"{where}: NormalizeScore without Score")
    if cls.kernels is None:
        raise PluginError(f"{where}: no kernels (set the class attribute kernels)")
    for kernel, (point, params) in KERNELS.items():
        fn = getattr(cls.kernels, kernel, None)
        if fn is None:
            if point is not None and getattr(cls, point):
                raise PluginError(f"{where}: {point} is set but kernels.{kernel} is missing")
            continue
        _check_kernel(where, kernel, fn, params)
    if getattr(cls.kernels, "score_normalize_pod", None) is not None and not cls.normalizes:
        raise PluginError(f"{where}: kernels.score_normalize_pod without NormalizeScore")
    has = [getattr(cls.kernels, k, None) is not None for k in ("assume", "remove")]
    if has[0] != has[1]:
        raise PluginError(f"{where}: kernels.assume and kernels.remove come together")
    if cls.filters and cls.reasons is Plugin.reasons:
        raise PluginError(f"{where}: a filter plugin implements reasons(state, code)")
    if cls.prepare is Plugin.prepare:
        raise PluginError(f"{where}: it does not implement prepare(snapshot, batch)")


def _check_kernel(where: str, kernel: str, fn: Any, params: tuple[str, ...]) -> None:
    py_func = getattr(fn, "py_func", fn)  # (plain Python: the slower path, python_kernels)
    if not inspect.isfunction(py_func):
        raise PluginError(
            f"{where}: kernels.{kernel} is not a function (a Python function, or one "
            "compiled with kscore_fast.kernel)"
        )
    given = [
        p for p in inspect.signature(py_func).parameters.values()
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    ]  # fmt: skip
    if len(given) != len(params):
        names = ", ".join(p.name for p in given)
        raise PluginError(
            f"{where}: kernels.{kernel} takes ({names}); expected ({', '.join(params)})"
        )
