"""The versioned types of kubescheduler.config.k8s.io/v1beta2 and v1beta3, as data.

One table per Go struct of k8s.io/kube-scheduler@v0.23.6/config/v1beta{2,3} (types.go,
types_pluginargs.go), k8s.io/component-base/config/v1alpha1 and the k8s.io/api core/v1
and meta/v1 types the plugin args embed: each field's JSON name, kind, whether it is a
pointer (absent = nil) and whether it is ``omitempty``. :mod:`.decode` reads documents
with it (strictly, with Go's messages, which name the Go types); :mod:`.dump` writes the
same shapes back. Embedded structs (``TypeMeta``, ``DebuggingConfiguration``) are
flattened into their parent, as encoding/json promotes their fields.

The two versions differ only in v1beta2's ``healthzBindAddress`` and
``metricsBindAddress`` and in the package name Go's messages print.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from typing import Union

GROUP = "kubescheduler.config.k8s.io"
V1BETA2 = f"{GROUP}/v1beta2"
V1BETA3 = f"{GROUP}/v1beta3"
VERSIONS = (V1BETA2, V1BETA3)
KIND = "KubeSchedulerConfiguration"
#: the plugin args kinds both versions register (register.go)
ARGS_KINDS = (
    "DefaultPreemptionArgs",
    "InterPodAffinityArgs",
    "NodeResourcesBalancedAllocationArgs",
    "NodeResourcesFitArgs",
    "PodTopologySpreadArgs",
    "VolumeBindingArgs",
    "NodeAffinityArgs",
)


@dataclass(frozen=True)
class Scalar:
    """``kind``: int, float, string, bool, duration (metav1.Duration) or bytes."""

    go: str
    kind: str
    bits: int = 64


@dataclass(frozen=True)
class ListOf:
    elem: Kind

    @property
    def go(self) -> str:
        return "[]" + self.elem.go


@dataclass(frozen=True)
class MapOf:
    elem: Kind

    @property
    def go(self) -> str:
        return "map[string]" + self.elem.go


@dataclass(frozen=True)
class Raw:
    """``runtime.RawExtension``: any JSON, decoded later (plugin args)."""

    go: str = "runtime.RawExtension"


@dataclass(frozen=True)
class Field:
    json: str
    kind: Kind
    pointer: bool = False
    omitempty: bool = False


@dataclass(frozen=True)
class Struct:
    go: str
    fields: tuple[Field, ...]
    by_name: dict[str, Field] = field(init=False, compare=False, hash=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "by_name", {f.json: f for f in self.fields})

    @property
    def name(self) -> str:
        """reflect.Type.Name(): the Go type without its package."""
        return self.go.rpartition(".")[2]


Kind = Union[Scalar, ListOf, MapOf, Raw, Struct]  # noqa: UP007 (a runtime alias)

INT32 = Scalar("int32", "int", 32)
INT64 = Scalar("int64", "int", 64)
FLOAT32 = Scalar("float32", "float", 32)
STRING = Scalar("string", "string")
BOOL = Scalar("bool", "bool")
DURATION = Scalar("v1.Duration", "duration")
BYTES = Scalar("[]uint8", "bytes")
STRINGS = ListOf(STRING)

TYPE_META = (Field("apiVersion", STRING, omitempty=True), Field("kind", STRING, omitempty=True))


def _f(name: str, kind: Kind, *, ptr: bool = False, omit: bool = False) -> Field:
    return Field(name, kind, ptr, omit)


# -- k8s.io/api/core/v1 and k8s.io/apimachinery/pkg/apis/meta/v1 ----------------------------

_NODE_SELECTOR_REQUIREMENT = Struct(
    "v1.NodeSelectorRequirement",
    (
        _f("key", STRING),
        _f("operator", Scalar("v1.NodeSelectorOperator", "string")),
        _f("values", STRINGS, omit=True),
    ),
)
_NODE_SELECTOR_TERM = Struct(
    "v1.NodeSelectorTerm",
    (
        _f("matchExpressions", ListOf(_NODE_SELECTOR_REQUIREMENT), omit=True),
        _f("matchFields", ListOf(_NODE_SELECTOR_REQUIREMENT), omit=True),
    ),
)
NODE_AFFINITY = Struct(
    "v1.NodeAffinity",
    (
        _f(
            "requiredDuringSchedulingIgnoredDuringExecution",
            Struct("v1.NodeSelector", (_f("nodeSelectorTerms", ListOf(_NODE_SELECTOR_TERM)),)),
            ptr=True,
            omit=True,
        ),
        _f(
            "preferredDuringSchedulingIgnoredDuringExecution",
            ListOf(
                Struct(
                    "v1.PreferredSchedulingTerm",
                    (_f("weight", INT32), _f("preference", _NODE_SELECTOR_TERM)),
                )
            ),
            omit=True,
        ),
    ),
)
LABEL_SELECTOR = Struct(
    "v1.LabelSelector",
    (
        _f("matchLabels", MapOf(STRING), omit=True),
        _f(
            "matchExpressions",
            ListOf(
                Struct(
                    "v1.LabelSelectorRequirement",
                    (
                        _f("key", STRING),
                        _f("operator", Scalar("v1.LabelSelectorOperator", "string")),
                        _f("values", STRINGS, omit=True),
                    ),
                )
            ),
            omit=True,
        ),
    ),
)
TOPOLOGY_SPREAD_CONSTRAINT = Struct(
    "v1.TopologySpreadConstraint",
    (
        _f("maxSkew", INT32),
        _f("topologyKey", STRING),
        _f("whenUnsatisfiable", Scalar("v1.UnsatisfiableConstraintAction", "string")),
        _f("labelSelector", LABEL_SELECTOR, ptr=True, omit=True),
    ),
)


# -- k8s.io/component-base/config/v1alpha1 --------------------------------------------------

_LEADER_ELECTION = Struct(
    "v1alpha1.LeaderElectionConfiguration",
    (
        _f("leaderElect", BOOL, ptr=True),
        _f("leaseDuration", DURATION),
        _f("renewDeadline", DURATION),
        _f("retryPeriod", DURATION),
        _f("resourceLock", STRING),
        _f("resourceName", STRING),
        _f("resourceNamespace", STRING),
    ),
)
_CLIENT_CONNECTION = Struct(
    "v1alpha1.ClientConnectionConfiguration",
    (
        _f("kubeconfig", STRING),
        _f("acceptContentTypes", STRING),
        _f("contentType", STRING),
        _f("qps", FLOAT32),
        _f("burst", INT32),
    ),
)


# -- kubescheduler.config.k8s.io -------------------------------------------------------------


def _o(name: str, kind: Kind, ptr: bool = False) -> Field:
    """An ``omitempty`` field."""
    return Field(name, kind, ptr, True)


def _args(pkg: str, kind: str, *fields: Field) -> Struct:
    return Struct(f"{pkg}.{kind}", (*TYPE_META, *fields))


def _scoring_strategy(pkg: str, resources: ListOf, shape: ListOf) -> Struct:
    ratio = Struct(f"{pkg}.RequestedToCapacityRatioParam", (_o("shape", shape),))
    return Struct(f"{pkg}.ScoringStrategy", (
        _o("type", Scalar(f"{pkg}.ScoringStrategyType", "string")),
        _o("resources", resources),
        _o("requestedToCapacityRatio", ratio, ptr=True),
    ))  # fmt: skip


def _args_structs(pkg: str) -> dict[str, Struct]:
    point = Struct(f"{pkg}.UtilizationShapePoint", (_f("utilization", INT32), _f("score", INT32)))
    spec = Struct(f"{pkg}.ResourceSpec", (_f("name", STRING), _o("weight", INT64)))
    shape, resources = ListOf(point), ListOf(spec)
    defaulting = Scalar(f"{pkg}.PodTopologySpreadConstraintsDefaulting", "string")
    structs = [
        _args(pkg, "DefaultPreemptionArgs", _o("minCandidateNodesPercentage", INT32, ptr=True),
              _o("minCandidateNodesAbsolute", INT32, ptr=True)),
        _args(pkg, "InterPodAffinityArgs", _o("hardPodAffinityWeight", INT32, ptr=True)),
        _args(pkg, "NodeResourcesFitArgs", _o("ignoredResources", STRINGS),
              _o("ignoredResourceGroups", STRINGS),
              _o("scoringStrategy", _scoring_strategy(pkg, resources, shape), ptr=True)),
        _args(pkg, "PodTopologySpreadArgs",
              _o("defaultConstraints", ListOf(TOPOLOGY_SPREAD_CONSTRAINT)),
              _o("defaultingType", defaulting)),
        _args(pkg, "NodeResourcesBalancedAllocationArgs", _o("resources", resources)),
        _args(pkg, "VolumeBindingArgs", _o("bindTimeoutSeconds", INT64, ptr=True),
              _o("shape", shape)),
        _args(pkg, "NodeAffinityArgs", _o("addedAffinity", NODE_AFFINITY, ptr=True)),
    ]  # fmt: skip
    return {s.name: s for s in structs}


def _plugins(pkg: str) -> Struct:
    plugin = Struct(f"{pkg}.Plugin", (_f("name", STRING), _f("weight", INT32, ptr=True, omit=True)))
    plugin_set = Struct(
        f"{pkg}.PluginSet",
        (_f("enabled", ListOf(plugin), omit=True), _f("disabled", ListOf(plugin), omit=True)),
    )
    return Struct(f"{pkg}.Plugins", tuple(_f(p, plugin_set, omit=True) for p in PLUGIN_SET_FIELDS))


#: the extension points, in the order of the Plugins struct
EXTENSION_POINTS = (
    "queueSort", "preFilter", "filter", "postFilter", "preScore", "score",
    "reserve", "permit", "preBind", "bind", "postBind",
)  # fmt: skip
#: the fields of Plugins: the extension points, then multiPoint
PLUGIN_SET_FIELDS = (*EXTENSION_POINTS, "multiPoint")


def _extender(pkg: str) -> Struct:
    tls = Struct(
        f"{pkg}.ExtenderTLSConfig",
        (
            _f("insecure", BOOL, omit=True),
            _f("serverName", STRING, omit=True),
            _f("certFile", STRING, omit=True),
            _f("keyFile", STRING, omit=True),
            _f("caFile", STRING, omit=True),
            _f("certData", BYTES, omit=True),
            _f("keyData", BYTES, omit=True),
            _f("caData", BYTES, omit=True),
        ),
    )
    managed = Struct(
        f"{pkg}.ExtenderManagedResource",
        (_f("name", STRING), _f("ignoredByScheduler", BOOL, omit=True)),
    )
    return Struct(
        f"{pkg}.Extender",
        (
            _f("urlPrefix", STRING),
            _f("filterVerb", STRING, omit=True),
            _f("preemptVerb", STRING, omit=True),
            _f("prioritizeVerb", STRING, omit=True),
            _f("weight", INT64, omit=True),
            _f("bindVerb", STRING, omit=True),
            _f("enableHTTPS", BOOL, omit=True),
            _f("tlsConfig", tls, ptr=True, omit=True),
            _f("httpTimeout", DURATION, omit=True),
            _f("nodeCacheCapable", BOOL, omit=True),
            _f("managedResources", ListOf(managed), omit=True),
            _f("ignorable", BOOL, omit=True),
        ),
    )


@dataclass(frozen=True)
class VersionSchema:
    api_version: str
    config: Struct
    args: dict[str, Struct]  # by kind


@cache
def schema(api_version: str) -> VersionSchema:
    """The types of one version (``kubescheduler.config.k8s.io/v1beta2`` or ``/v1beta3``)."""
    pkg = api_version.rpartition("/")[2]
    profile = Struct(
        f"{pkg}.KubeSchedulerProfile",
        (
            _f("schedulerName", STRING, ptr=True, omit=True),
            _f("plugins", _plugins(pkg), ptr=True, omit=True),
            _f(
                "pluginConfig",
                ListOf(
                    Struct(
                        f"{pkg}.PluginConfig", (_f("name", STRING), _f("args", Raw(), omit=True))
                    )
                ),
                omit=True,
            ),
        ),
    )
    fields = [
        *TYPE_META,
        _f("parallelism", INT32, ptr=True, omit=True),
        _f("leaderElection", _LEADER_ELECTION),
        _f("clientConnection", _CLIENT_CONNECTION),
    ]
    if pkg == "v1beta2":
        fields += [
            _f("healthzBindAddress", STRING, ptr=True, omit=True),
            _f("metricsBindAddress", STRING, ptr=True, omit=True),
        ]
    fields += [
        _f("enableProfiling", BOOL, ptr=True, omit=True),
        _f("enableContentionProfiling", BOOL, ptr=True, omit=True),
        _f("percentageOfNodesToScore", INT32, ptr=True, omit=True),
        _f("podInitialBackoffSeconds", INT64, ptr=True, omit=True),
        _f("podMaxBackoffSeconds", INT64, ptr=True, omit=True),
        _f("profiles", ListOf(profile), omit=True),
        _f("extenders", ListOf(_extender(pkg)), omit=True),
    ]
    return VersionSchema(api_version, Struct(f"{pkg}.{KIND}", tuple(fields)), _args_structs(pkg))
