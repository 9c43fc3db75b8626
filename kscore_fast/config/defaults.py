"""Defaults of each version, as the scheme sets them (on the versioned documents).

Ports of pkg/scheduler/apis/config/v1beta{2,3}/defaults.go and default_plugins.go with
v1.23.6's feature gates at their defaults (``DefaultPodTopologySpread`` on, so no
SelectorSpread; ``VolumeCapacityPriority`` off, so no VolumeBinding score in v1beta2 and
no default VolumeBinding shape):

* v1beta2 lists the default plugins per extension point; v1beta3 lists them once, in
  ``multiPoint``, with weights (TaintToleration 3, NodeAffinity 2, PodTopologySpread 2,
  InterPodAffinity 2, NodeResourcesFit 1, NodeResourcesBalancedAllocation 1,
  ImageLocality 1) that the framework expands; v1beta3's VolumeBinding is a score
  plugin (weight 1) because the plugin implements Score;
* ``parallelism`` 16, one profile ``default-scheduler`` when none is given,
  ``percentageOfNodesToScore`` 0 (adaptive), backoffs 1 s and 10 s, leader election and
  client connection settings, profiling on;
* each profile's plugins are merged into the defaults (:mod:`.merge`), each pluginConfig
  entry's args are defaulted, and every enabled plugin that has an args type and no entry
  gets one with default args, appended in name order.
"""

from __future__ import annotations

import copy
from typing import Any

from .args import ARGS_KIND
from .schema import PLUGIN_SET_FIELDS, V1BETA3

SECOND = 1_000_000_000


def default_plugins(api_version: str) -> dict[str, dict[str, list[dict[str, Any]]]]:
    """``getDefaultPlugins()`` of a version (a fresh copy)."""
    table = _V1BETA3_PLUGINS if api_version == V1BETA3 else _V1BETA2_PLUGINS
    return copy.deepcopy(table)


def _p(name: str, weight: int | None = None) -> dict[str, Any]:
    return {"name": name} if weight is None else {"name": name, "weight": weight}


def _names(*names: str) -> dict[str, list[dict[str, Any]]]:
    return {"enabled": [_p(n) for n in names]}


_V1BETA2_PLUGINS = {
    "queueSort": _names("PrioritySort"),
    "preFilter": _names(
        "NodeResourcesFit",
        "NodePorts",
        "VolumeRestrictions",
        "PodTopologySpread",
        "InterPodAffinity",
        "VolumeBinding",
        "NodeAffinity",
    ),
    "filter": _names(
        "NodeUnschedulable",
        "NodeName",
        "TaintToleration",
        "NodeAffinity",
        "NodePorts",
        "NodeResourcesFit",
        "VolumeRestrictions",
        "EBSLimits",
        "GCEPDLimits",
        "NodeVolumeLimits",
        "AzureDiskLimits",
        "VolumeBinding",
        "VolumeZone",
        "PodTopologySpread",
        "InterPodAffinity",
    ),
    "postFilter": _names("DefaultPreemption"),
    "preScore": _names("InterPodAffinity", "PodTopologySpread", "TaintToleration", "NodeAffinity"),
    "score": {
        "enabled": [
            _p("NodeResourcesBalancedAllocation", 1),
            _p("ImageLocality", 1),
            _p("InterPodAffinity", 1),
            _p("NodeResourcesFit", 1),
            _p("NodeAffinity", 1),
            _p("PodTopologySpread", 2),
            _p("TaintToleration", 1),
        ]
    },
    "reserve": _names("VolumeBinding"),
    "preBind": _names("VolumeBinding"),
    "bind": _names("DefaultBinder"),
}

_V1BETA3_PLUGINS = {
    "multiPoint": {
        "enabled": [
            _p("PrioritySort"),
            _p("NodeUnschedulable"),
            _p("NodeName"),
            _p("TaintToleration", 3),
            _p("NodeAffinity", 2),
            _p("NodePorts"),
            _p("NodeResourcesFit", 1),
            _p("VolumeRestrictions"),
            _p("EBSLimits"),
            _p("GCEPDLimits"),
            _p("NodeVolumeLimits"),
            _p("AzureDiskLimits"),
            _p("VolumeBinding"),
            _p("VolumeZone"),
            _p("PodTopologySpread", 2),
            _p("InterPodAffinity", 2),
            _p("DefaultPreemption"),
            _p("NodeResourcesBalancedAllocation", 1),
            _p("ImageLocality", 1),
            _p("DefaultBinder"),
        ]
    },
}


def set_defaults(cfg: dict[str, Any], api_version: str) -> None:
    """``SetDefaults_KubeSchedulerConfiguration`` (in place)."""
    cfg.setdefault("parallelism", 16)
    profiles = cfg.setdefault("profiles", [])
    if not profiles:
        profiles.append({})
    if len(profiles) == 1 and profiles[0].get("schedulerName") is None:
        profiles[0]["schedulerName"] = "default-scheduler"
    for prof in profiles:
        _set_profile_defaults(prof, api_version)
    cfg.setdefault("percentageOfNodesToScore", 0)
    le = cfg.setdefault("leaderElection", {})
    for key, value in (
        ("resourceLock", "leases"),
        ("resourceNamespace", "kube-system"),
        ("resourceName", "kube-scheduler"),
    ):
        if not le.get(key):
            le[key] = value
    cc = cfg.setdefault("clientConnection", {})
    if not cc.get("contentType"):
        cc["contentType"] = "application/vnd.kubernetes.protobuf"
    if not cc.get("qps"):
        cc["qps"] = 50.0
    if not cc.get("burst"):
        cc["burst"] = 100
    # RecommendedDefaultLeaderElectionConfiguration
    for key, value in (
        ("leaseDuration", 15 * SECOND),
        ("renewDeadline", 10 * SECOND),
        ("retryPeriod", 2 * SECOND),
    ):
        if not le.get(key):
            le[key] = value
    if le.get("leaderElect") is None:
        le["leaderElect"] = True
    cfg.setdefault("podInitialBackoffSeconds", 1)
    cfg.setdefault("podMaxBackoffSeconds", 10)
    cfg.setdefault("enableProfiling", True)
    if cfg["enableProfiling"]:
        cfg.setdefault("enableContentionProfiling", True)


def _set_profile_defaults(prof: dict[str, Any], api_version: str) -> None:
    """``setDefaults_KubeSchedulerProfile``: plugins merged, args defaulted and added."""
    from .merge import merge_plugins

    prof["plugins"] = merge_plugins(api_version, default_plugins(api_version), prof.get("plugins"))
    configs = prof.setdefault("pluginConfig", [])
    existing = {pc.get("name", "") for pc in configs}
    for pc in configs:
        args = pc.get("args")
        if isinstance(args, ArgsDoc) and args.kind is not None:
            set_args_defaults(args.kind, args.doc)
    for name in enabled_names(prof["plugins"], api_version):
        kind = ARGS_KIND.get(name)
        if name in existing or kind is None:
            continue
        doc: dict[str, Any] = {}
        set_args_defaults(kind, doc)
        configs.append({"name": name, "args": ArgsDoc(kind, doc)})


def enabled_names(plugins: dict[str, Any], api_version: str) -> list[str]:
    """``pluginsNames``: every enabled plugin name of the sets (v1beta3: multiPoint too),
    sorted."""
    points = [p for p in PLUGIN_SET_FIELDS if p != "multiPoint" or api_version == V1BETA3]
    names = {p.get("name", "") for pt in points for p in plugins.get(pt, {}).get("enabled", [])}
    return sorted(names, key=lambda s: s.encode("utf-8"))


class ArgsDoc:
    """A pluginConfig entry's args after nested decoding: ``kind`` is the registered args
    kind (``doc`` its versioned document) or None (``doc`` the JSON as written)."""

    __slots__ = ("doc", "kind")

    def __init__(self, kind: str | None, doc: Any) -> None:
        self.kind = kind
        self.doc = doc


_RESOURCES = ({"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1})


def set_args_defaults(kind: str, d: dict[str, Any]) -> None:
    """``SetDefaults_<Kind>`` of a versioned args document (in place)."""
    if kind == "DefaultPreemptionArgs":
        d.setdefault("minCandidateNodesPercentage", 10)
        d.setdefault("minCandidateNodesAbsolute", 100)
    elif kind == "InterPodAffinityArgs":
        d.setdefault("hardPodAffinityWeight", 1)
    elif kind == "VolumeBindingArgs":
        d.setdefault("bindTimeoutSeconds", 600)  # shape: VolumeCapacityPriority is off
    elif kind == "NodeResourcesBalancedAllocationArgs":
        if not d.get("resources"):
            d["resources"] = [dict(r) for r in _RESOURCES]
        for r in d["resources"]:
            if not r.get("weight"):
                r["weight"] = 1
    elif kind == "PodTopologySpreadArgs":
        if not d.get("defaultingType"):
            d["defaultingType"] = "System"  # DefaultPodTopologySpread is on
    elif kind == "NodeResourcesFitArgs":
        strategy = d.get("scoringStrategy")
        if strategy is None:
            strategy = d["scoringStrategy"] = {"type": "LeastAllocated"}
        if not strategy.get("resources"):
            strategy["resources"] = [dict(r) for r in _RESOURCES]
        for r in strategy["resources"]:
            if not r.get("weight"):
                r["weight"] = 1
