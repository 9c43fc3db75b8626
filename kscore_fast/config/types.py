"""The effective scheduler configuration: what kube-scheduler v1.23.6 runs with.

:class:`SchedulerConfiguration` mirrors the internal ``config.KubeSchedulerConfiguration``
after decoding, defaulting, validation and framework building; each :class:`Profile`
carries both the merged plugin sets of the configuration (``plugins``, before the
framework's MultiPoint expansion, as ``--write-config-to`` prints them) and what the
framework built from them:

* ``extension_points``: per extension point (:data:`EXTENSION_POINTS`), the ordered
  names of the plugins that run there (``ListPlugins()``);
* ``score_weights``: each score plugin's weight (0 made 1, as ``getScoreWeights`` does),
  in score order;
* ``args``: the typed args each plugin was built with (plugins the profile uses).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from ..errors import ConfigError
from .args import PluginArgs
from .gofmt import go_quote
from .schema import EXTENSION_POINTS

MULTI_POINT = "multiPoint"
DEFAULT_SCHEDULER_NAME = "default-scheduler"


def _empty() -> Mapping[str, Any]:
    return MappingProxyType({})


@dataclass(frozen=True)
class Plugin:
    name: str
    weight: int = 0


@dataclass(frozen=True)
class PluginSet:
    enabled: tuple[Plugin, ...] = ()
    disabled: tuple[Plugin, ...] = ()

    def names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.enabled)


@dataclass(frozen=True)
class PluginConfig:
    name: str
    args: PluginArgs | None


@dataclass(frozen=True)
class Profile:
    scheduler_name: str
    #: merged plugin sets (every name of EXTENSION_POINTS, and "multiPoint")
    plugins: Mapping[str, PluginSet]
    #: every pluginConfig entry, defaults appended, in configuration order
    plugin_config: tuple[PluginConfig, ...]
    extension_points: Mapping[str, tuple[str, ...]] = field(default_factory=_empty)
    score_weights: Mapping[str, int] = field(default_factory=_empty)
    args: Mapping[str, PluginArgs] = field(default_factory=_empty)

    def enabled(self, point: str) -> tuple[str, ...]:
        """The plugins that run at an extension point, in order."""
        if point not in EXTENSION_POINTS:
            raise KeyError(f"unknown extension point {point!r}; one of {EXTENSION_POINTS}")
        return self.extension_points.get(point, ())

    def score_plugins(self) -> tuple[tuple[str, int], ...]:
        """``(name, weight)`` of the score plugins, in the order they run."""
        return tuple((n, self.score_weights[n]) for n in self.enabled("score"))


@dataclass(frozen=True)
class LeaderElectionConfiguration:
    leader_elect: bool = True
    lease_duration: int = 15_000_000_000  # nanoseconds
    renew_deadline: int = 10_000_000_000
    retry_period: int = 2_000_000_000
    resource_lock: str = "leases"
    resource_name: str = "kube-scheduler"
    resource_namespace: str = "kube-system"


@dataclass(frozen=True)
class ClientConnectionConfiguration:
    kubeconfig: str = ""
    accept_content_types: str = ""
    content_type: str = "application/vnd.kubernetes.protobuf"
    qps: float = 50.0
    burst: int = 100


@dataclass(frozen=True)
class SchedulerConfiguration:
    api_version: str
    profiles: tuple[Profile, ...]
    parallelism: int = 16
    percentage_of_nodes_to_score: int = 0
    pod_initial_backoff_seconds: int = 1
    pod_max_backoff_seconds: int = 10
    enable_profiling: bool = True
    enable_contention_profiling: bool = True
    healthz_bind_address: str = ""
    metrics_bind_address: str = ""
    leader_election: LeaderElectionConfiguration = field(
        default_factory=LeaderElectionConfiguration
    )
    client_connection: ClientConnectionConfiguration = field(
        default_factory=ClientConnectionConfiguration
    )
    #: extenders as decoded (JSON names; durations in nanoseconds); kscore runs none
    extenders: tuple[Mapping[str, Any], ...] = ()
    #: the file it was read from (None: built-in defaults)
    source: str | None = None

    def profile_for(self, scheduler_name: str) -> Profile:
        """The profile of a pod's ``spec.schedulerName`` (kube-scheduler's
        ``frameworkForPod``)."""
        for p in self.profiles:
            if p.scheduler_name == scheduler_name:
                return p
        raise ProfileNotFoundError(scheduler_name, file=self.source)


class ProfileNotFoundError(ConfigError, LookupError):
    """A pod names a scheduler no profile has (Go: ``profile not found for scheduler name
    "x"``)."""

    def __init__(self, scheduler_name: str, *, file: str | None = None, **kw: Any) -> None:
        self.scheduler_name = scheduler_name
        super().__init__(
            f"profile not found for scheduler name {go_quote(scheduler_name)}", file=file, **kw
        )

    def located(
        self, *, file: str | None = None, obj: str | None = None, field: str | None = None
    ) -> ProfileNotFoundError:
        return ProfileNotFoundError(
            self.scheduler_name,
            file=self.file or file,
            obj=self.obj or obj,
            field=self.field or field,
        )
