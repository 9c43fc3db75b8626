"""KubeSchedulerConfiguration support: kube-scheduler v1.23.6's ``--config``.

Reading (:func:`load_config`, :func:`parse_config`), built-in defaults
(:func:`default_config`) and printing (:func:`dump_config`) of
``kubescheduler.config.k8s.io/v1beta2`` and ``v1beta3`` configurations, with the
scheduler's own verdicts at every step: strict decoding, each version's defaults and
plugin merging, ``ValidateKubeSchedulerConfiguration``, and the framework's building of
each profile (MultiPoint expansion, score weights). The result,
:class:`SchedulerConfiguration`, holds per profile the ordered plugins of each extension
point, the score weights and the typed plugin args; see :mod:`.types`.

The modules follow the scheduler's path: :mod:`.read` (file to JSON document),
:mod:`.schema` and :mod:`.decode` (strict decoding), :mod:`.defaults` and :mod:`.merge`,
:mod:`.args` (typed args), :mod:`.validate`, :mod:`.build` (the framework's part),
:mod:`.load` (the pipeline) and :mod:`.dump`. Differences from Go are listed in
docs/config.md.
"""

from __future__ import annotations

from .args import (
    DefaultPreemptionArgs,
    InterPodAffinityArgs,
    NodeAffinityArgs,
    NodeResourcesBalancedAllocationArgs,
    NodeResourcesFitArgs,
    PluginArgs,
    PodTopologySpreadArgs,
    RequestedToCapacityRatioParam,
    ResourceSpec,
    ScoringStrategy,
    TopologySpreadConstraint,
    UnknownArgs,
    UtilizationShapePoint,
    VolumeBindingArgs,
)
from .dump import dump_config
from .load import default_config, load_config, parse_config
from .types import (
    EXTENSION_POINTS,
    ClientConnectionConfiguration,
    LeaderElectionConfiguration,
    Plugin,
    PluginConfig,
    PluginSet,
    Profile,
    ProfileNotFoundError,
    SchedulerConfiguration,
)

__all__ = [
    "EXTENSION_POINTS",
    "ClientConnectionConfiguration",
    "DefaultPreemptionArgs",
    "InterPodAffinityArgs",
    "LeaderElectionConfiguration",
    "NodeAffinityArgs",
    "NodeResourcesBalancedAllocationArgs",
    "NodeResourcesFitArgs",
    "Plugin",
    "PluginArgs",
    "PluginConfig",
    "PluginSet",
    "PodTopologySpreadArgs",
    "Profile",
    "ProfileNotFoundError",
    "RequestedToCapacityRatioParam",
    "ResourceSpec",
    "SchedulerConfiguration",
    "ScoringStrategy",
    "TopologySpreadConstraint",
    "UnknownArgs",
    "UtilizationShapePoint",
    "VolumeBindingArgs",
    "default_config",
    "dump_config",
    "load_config",
    "parse_config",
]
