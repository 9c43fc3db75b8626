"""Merging a profile's plugin sets into the version's defaults (``mergePlugins``).

Ports of pkg/scheduler/apis/config/v1beta2/default_plugins.go and v1beta3/default_plugins.go
(``mergePlugins``, ``mergePluginSet``), on versioned plugin sets (dicts of JSON field
names, a plugin's ``weight`` absent when nil):

* ``disabled: [{name: "*"}]`` drops every default plugin of that set; a named disabled
  plugin drops that default;
* a custom enabled plugin that is also a default replaces it in place (its weight with
  it); the other custom plugins follow the defaults, in their order (a repeated one is
  kept twice: the framework refuses it);
* v1beta3 keeps the disabled lists (the framework's MultiPoint expansion reads them) and
  merges ``multiPoint``; v1beta2 drops both (a v1beta2 ``multiPoint`` has no effect).
"""

from __future__ import annotations

from typing import Any

from .schema import PLUGIN_SET_FIELDS, V1BETA3

PluginSetDoc = dict[str, list[dict[str, Any]]]


def merge_plugins(
    api_version: str, defaults: dict[str, PluginSetDoc], custom: dict[str, PluginSetDoc] | None
) -> dict[str, PluginSetDoc]:
    """``mergePlugins(getDefaultPlugins(), prof.Plugins)``."""
    if custom is None:
        return defaults
    v1beta3 = api_version == V1BETA3
    out = dict(defaults)
    for point in PLUGIN_SET_FIELDS:
        if point == "multiPoint" and not v1beta3:
            continue
        out[point] = merge_plugin_set(
            defaults.get(point, {}), custom.get(point, {}), keep_disabled=v1beta3
        )
    return out


def merge_plugin_set(
    default: PluginSetDoc, custom: PluginSetDoc, *, keep_disabled: bool
) -> PluginSetDoc:
    """``mergePluginSet``."""
    disabled_names = {p.get("name", "") for p in custom.get("disabled", [])}
    disabled = [{"name": p.get("name", "")} for p in custom.get("disabled", [])]
    if keep_disabled:  # v1beta3: the default set's disabled plugins count too
        for p in default.get("disabled", []):
            disabled.append({"name": p.get("name", "")})
            disabled_names.add(p.get("name", ""))
    custom_enabled = custom.get("enabled", [])
    index_of = {p.get("name", ""): i for i, p in enumerate(custom_enabled)}  # last one wins
    replaced: set[int] = set()
    enabled: list[dict[str, Any]] = []
    if "*" not in disabled_names:
        for p in default.get("enabled", []):
            name = p.get("name", "")
            if name in disabled_names:
                continue
            if name in index_of:
                p = custom_enabled[index_of[name]]
                replaced.add(index_of[name])
            enabled.append(p)
    enabled.extend(p for i, p in enumerate(custom_enabled) if i not in replaced)
    out: PluginSetDoc = {}
    if enabled:
        out["enabled"] = enabled
    if keep_disabled and disabled:
        out["disabled"] = disabled
    return out
