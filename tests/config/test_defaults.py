"""Defaults of each version and what the framework builds from them, against upstream's
expectations (pkg/scheduler/apis/config/testing/defaults/defaults.go, v1.23.6)."""

from __future__ import annotations

import pytest

from kscore_fast.config import (
    DefaultPreemptionArgs,
    InterPodAffinityArgs,
    NodeAffinityArgs,
    NodeResourcesBalancedAllocationArgs,
    NodeResourcesFitArgs,
    PodTopologySpreadArgs,
    ResourceSpec,
    ScoringStrategy,
    VolumeBindingArgs,
    default_config,
)
from kscore_fast.config.defaults import set_args_defaults
from kscore_fast.errors import ConfigError

CPU_MEMORY = (ResourceSpec("cpu", 1), ResourceSpec("memory", 1))

# ExpandedPluginsV1beta3 (testing/defaults/defaults.go)
EXPANDED_V1BETA3 = {
    "queueSort": ("PrioritySort",),
    "preFilter": (
        "NodeAffinity",
        "NodePorts",
        "NodeResourcesFit",
        "VolumeRestrictions",
        "VolumeBinding",
        "PodTopologySpread",
        "InterPodAffinity",
    ),
    "filter": (
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
    "postFilter": ("DefaultPreemption",),
    "preScore": ("TaintToleration", "NodeAffinity", "PodTopologySpread", "InterPodAffinity"),
    "score": (
        "TaintToleration",
        "NodeAffinity",
        "NodeResourcesFit",
        "VolumeBinding",
        "PodTopologySpread",
        "InterPodAffinity",
        "NodeResourcesBalancedAllocation",
        "ImageLocality",
    ),
    "reserve": ("VolumeBinding",),
    "permit": (),
    "preBind": ("VolumeBinding",),
    "bind": ("DefaultBinder",),
    "postBind": (),
}
WEIGHTS_V1BETA3 = {
    "TaintToleration": 3,
    "NodeAffinity": 2,
    "NodeResourcesFit": 1,
    "VolumeBinding": 1,
    "PodTopologySpread": 2,
    "InterPodAffinity": 2,
    "NodeResourcesBalancedAllocation": 1,
    "ImageLocality": 1,
}

# PluginsV1beta2
EXPANDED_V1BETA2 = {
    **EXPANDED_V1BETA3,
    "preFilter": (
        "NodeResourcesFit",
        "NodePorts",
        "VolumeRestrictions",
        "PodTopologySpread",
        "InterPodAffinity",
        "VolumeBinding",
        "NodeAffinity",
    ),
    "preScore": ("InterPodAffinity", "PodTopologySpread", "TaintToleration", "NodeAffinity"),
    "score": (
        "NodeResourcesBalancedAllocation",
        "ImageLocality",
        "InterPodAffinity",
        "NodeResourcesFit",
        "NodeAffinity",
        "PodTopologySpread",
        "TaintToleration",
    ),
}
WEIGHTS_V1BETA2 = {
    "NodeResourcesBalancedAllocation": 1,
    "ImageLocality": 1,
    "InterPodAffinity": 1,
    "NodeResourcesFit": 1,
    "NodeAffinity": 1,
    "PodTopologySpread": 2,
    "TaintToleration": 1,
}

# PluginConfigsV1beta3 == PluginConfigsV1beta2
DEFAULT_ARGS = {
    "DefaultPreemption": DefaultPreemptionArgs(10, 100),
    "InterPodAffinity": InterPodAffinityArgs(1),
    "NodeAffinity": NodeAffinityArgs(None),
    "NodeResourcesBalancedAllocation": NodeResourcesBalancedAllocationArgs(CPU_MEMORY),
    "NodeResourcesFit": NodeResourcesFitArgs(
        None, None, ScoringStrategy("LeastAllocated", CPU_MEMORY)
    ),
    "PodTopologySpread": PodTopologySpreadArgs(None, "System"),
    "VolumeBinding": VolumeBindingArgs(600, None),
}


@pytest.mark.parametrize(
    ("version", "expanded", "weights"),
    [
        ("v1beta3", EXPANDED_V1BETA3, WEIGHTS_V1BETA3),
        ("v1beta2", EXPANDED_V1BETA2, WEIGHTS_V1BETA2),
    ],
)
def test_default_profile(version, expanded, weights):
    cfg = default_config(version)
    (prof,) = cfg.profiles
    assert prof.scheduler_name == "default-scheduler"
    assert dict(prof.extension_points) == expanded
    assert dict(prof.score_weights) == weights
    assert list(prof.score_weights) == list(expanded["score"])
    assert dict(prof.args) == DEFAULT_ARGS
    assert [pc.name for pc in prof.plugin_config] == sorted(DEFAULT_ARGS)


def test_v1beta3_defaults_live_in_multipoint():
    prof = default_config().profiles[0]
    assert [p.name for p in prof.plugins["multiPoint"].enabled][:4] == [
        "PrioritySort",
        "NodeUnschedulable",
        "NodeName",
        "TaintToleration",
    ]
    assert all(not prof.plugins[p].enabled for p in EXPANDED_V1BETA3)


def test_top_level_defaults():
    cfg = default_config()
    assert cfg.api_version == "kubescheduler.config.k8s.io/v1beta3"
    assert (cfg.parallelism, cfg.percentage_of_nodes_to_score) == (16, 0)
    assert (cfg.pod_initial_backoff_seconds, cfg.pod_max_backoff_seconds) == (1, 10)
    assert cfg.enable_profiling and cfg.enable_contention_profiling
    le = cfg.leader_election
    assert (le.leader_elect, le.lease_duration, le.renew_deadline, le.retry_period) == (
        True,
        15 * 10**9,
        10 * 10**9,
        2 * 10**9,
    )
    assert (le.resource_lock, le.resource_name, le.resource_namespace) == (
        "leases",
        "kube-scheduler",
        "kube-system",
    )
    cc = cfg.client_connection
    assert (cc.content_type, cc.qps, cc.burst) == ("application/vnd.kubernetes.protobuf", 50, 100)
    assert cfg.source is None and cfg.extenders == ()


def test_default_config_version_names():
    assert default_config("kubescheduler.config.k8s.io/v1beta2").api_version.endswith("v1beta2")
    with pytest.raises(ConfigError, match="unknown version 'v1'"):
        default_config("v1")


@pytest.mark.parametrize(
    ("kind", "given", "defaulted"),
    [
        (
            "DefaultPreemptionArgs",
            {},
            {"minCandidateNodesPercentage": 10, "minCandidateNodesAbsolute": 100},
        ),
        (
            "DefaultPreemptionArgs",
            {"minCandidateNodesPercentage": 0},
            {"minCandidateNodesPercentage": 0, "minCandidateNodesAbsolute": 100},
        ),
        ("InterPodAffinityArgs", {}, {"hardPodAffinityWeight": 1}),
        ("InterPodAffinityArgs", {"hardPodAffinityWeight": 0}, {"hardPodAffinityWeight": 0}),
        ("VolumeBindingArgs", {}, {"bindTimeoutSeconds": 600}),
        ("PodTopologySpreadArgs", {}, {"defaultingType": "System"}),
        ("PodTopologySpreadArgs", {"defaultingType": "List"}, {"defaultingType": "List"}),
        (
            "NodeResourcesBalancedAllocationArgs",
            {},
            {"resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]},
        ),
        (
            "NodeResourcesBalancedAllocationArgs",
            {"resources": [{"name": "x"}]},
            {"resources": [{"name": "x", "weight": 1}]},
        ),
        (
            "NodeResourcesFitArgs",
            {},
            {
                "scoringStrategy": {
                    "type": "LeastAllocated",
                    "resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}],
                }
            },
        ),
        # a given strategy keeps its type (even none); empty resources get cpu and memory
        (
            "NodeResourcesFitArgs",
            {"scoringStrategy": {}},
            {
                "scoringStrategy": {
                    "resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]
                }
            },
        ),
        (
            "NodeResourcesFitArgs",
            {
                "scoringStrategy": {
                    "type": "MostAllocated",
                    "resources": [{"name": "cpu", "weight": 0}],
                }
            },
            {
                "scoringStrategy": {
                    "type": "MostAllocated",
                    "resources": [{"name": "cpu", "weight": 1}],
                }
            },
        ),
        ("NodeAffinityArgs", {}, {}),
    ],
)
def test_args_defaults(kind, given, defaulted):
    set_args_defaults(kind, given)
    assert given == defaulted
