"""``PodTopologySpreadArgs`` as the plugin reads them (plugin.go ``New``).

``args`` is the camelCase mapping of a KubeSchedulerConfiguration's pluginConfig
(``{"defaultConstraints": [...], "defaultingType": "System" | "List"}``), already
defaulted and validated by :mod:`kscore_fast.config` (``defaultingType`` System with
constraints, or any constraint with a ``labelSelector``, never reach here). ``None``
reads as kube-scheduler v1.23.6's defaults: ``defaultingType: System``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...errors import ConfigError
from ...model.objects import TopologySpreadConstraint

LABEL_HOSTNAME = "kubernetes.io/hostname"
LABEL_TOPOLOGY_ZONE = "topology.kubernetes.io/zone"
DO_NOT_SCHEDULE = "DoNotSchedule"
SCHEDULE_ANYWAY = "ScheduleAnyway"
SYSTEM_DEFAULTING = "System"
LIST_DEFAULTING = "List"

#: plugin.go ``systemDefaultConstraints``
SYSTEM_DEFAULT_CONSTRAINTS = (
    TopologySpreadConstraint(3, LABEL_HOSTNAME, SCHEDULE_ANYWAY),
    TopologySpreadConstraint(5, LABEL_TOPOLOGY_ZONE, SCHEDULE_ANYWAY),
)


def _constraint(obj: Any, where: str) -> TopologySpreadConstraint:
    if not isinstance(obj, Mapping):
        raise ConfigError(f"{where}: expected an object, got {type(obj).__name__}")
    skew = obj.get("maxSkew", 0)
    if isinstance(skew, bool) or not isinstance(skew, int):
        raise ConfigError(f"{where}.maxSkew: expected an integer")
    key, when = obj.get("topologyKey", ""), obj.get("whenUnsatisfiable", "")
    if not isinstance(key, str) or not isinstance(when, str):
        raise ConfigError(f"{where}: topologyKey and whenUnsatisfiable must be strings")
    # a labelSelector is refused by validation; buildDefaultConstraints replaces it anyway
    return TopologySpreadConstraint(skew, key, when)


def spread_args(args: Mapping[str, Any] | None
                ) -> tuple[tuple[TopologySpreadConstraint, ...], bool]:  # fmt: skip
    """``New``: (the default constraints, whether they are the system defaults)."""
    args = args or {}
    if not isinstance(args, Mapping):
        raise ConfigError(f"args: expected an object, got {type(args).__name__}")
    defaulting = args.get("defaultingType") or SYSTEM_DEFAULTING
    raw = args.get("defaultConstraints") or []
    if not isinstance(raw, list | tuple):
        raise ConfigError("defaultConstraints: expected a list")
    if defaulting == SYSTEM_DEFAULTING:
        if raw:
            raise ConfigError(
                'defaultingType: Invalid value: "System": when .defaultConstraints are not empty'
            )
        return SYSTEM_DEFAULT_CONSTRAINTS, True
    if defaulting != LIST_DEFAULTING:
        raise ConfigError(
            f'defaultingType: Unsupported value: "{defaulting}": supported values: "System", "List"'
        )
    return tuple(_constraint(c, f"defaultConstraints[{i}]") for i, c in enumerate(raw)), False
