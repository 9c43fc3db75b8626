"""ValidateKubeSchedulerConfiguration's and the args validators' messages (Go's text,
field paths from the configuration's root), on configurations built in Python."""

from __future__ import annotations

from dataclasses import replace

import pytest

from kscore_fast.config import (
    DefaultPreemptionArgs,
    InterPodAffinityArgs,
    NodeAffinityArgs,
    NodeResourcesBalancedAllocationArgs,
    NodeResourcesFitArgs,
    PluginConfig,
    PodTopologySpreadArgs,
    RequestedToCapacityRatioParam,
    ResourceSpec,
    ScoringStrategy,
    TopologySpreadConstraint,
    UtilizationShapePoint,
    VolumeBindingArgs,
    default_config,
)
from kscore_fast.config.gofmt import aggregate, go_quote
from kscore_fast.config.validate import (
    new_requirement,
    validate_args,
    validate_configuration,
    validate_fit_args,
)

from .effective import normalize

BASE = default_config()


def messages(**changes) -> list[str]:
    return [str(e) for e in validate_configuration(replace(BASE, **changes))]


def test_defaults_are_valid():
    assert validate_configuration(BASE) == []


def test_top_level_fields():
    assert messages(
        parallelism=0,
        percentage_of_nodes_to_score=-1,
        pod_initial_backoff_seconds=5,
        pod_max_backoff_seconds=4,
    ) == [
        "parallelism: Invalid value: 0: should be an integer value greater than zero",
        "percentageOfNodesToScore: Invalid value: -1: not in valid range [0-100]",
        "podMaxBackoffSeconds: Invalid value: 4: must be greater than or equal to "
        "PodInitialBackoffSeconds",
    ]


def test_leader_election_only_when_electing():
    le = replace(BASE.leader_election, retry_period=0, resource_lock="")
    assert messages(leader_election=le) == [
        "leaderElection.retryPeriod: Invalid value: v1.Duration{Duration:0}: must be greater than "
        "zero",
        'leaderElection.resourceLock: Invalid value: "": resourceLock is required',
    ]
    assert messages(leader_election=replace(le, leader_elect=False)) == []


def test_duplicate_and_missing_profile_names():
    p = BASE.profiles[0]
    msgs = messages(profiles=(p, p, replace(p, scheduler_name="")))
    assert msgs[0].startswith(
        "profiles[1].schedulerName: Duplicate value: field.Path{name:"
        '"schedulerName", index:"", parent:(*field.Path)(0x'
    )
    assert msgs[1] == "profiles[2].schedulerName: Required value"


def test_duplicate_plugin_config():
    p = BASE.profiles[0]
    twice = replace(p, plugin_config=(*p.plugin_config, p.plugin_config[0]))
    assert messages(profiles=(twice,)) == [
        f'profiles[0].pluginConfig[7]: Duplicate value: "{p.plugin_config[0].name}"'
    ]


def check(name, args, *expected):
    assert [str(e) for e in validate_args("args", PluginConfig(name, args))] == list(expected)


def test_default_preemption():
    check(
        "DefaultPreemption",
        DefaultPreemptionArgs(0, 0),
        "args.minCandidateNodesPercentage: Invalid value: 0: cannot be zero at the same time "
        "as minCandidateNodesAbsolute",
        "args.minCandidateNodesAbsolute: Invalid value: 0: cannot be zero at the same time as "
        "minCandidateNodesPercentage",
    )
    check(
        "DefaultPreemption",
        DefaultPreemptionArgs(-1, -1),
        "args.minCandidateNodesPercentage: Invalid value: -1: not in valid range [0, 100]",
        "args.minCandidateNodesAbsolute: Invalid value: -1: not in valid range [0, inf)",
    )


def test_inter_pod_affinity():
    check("InterPodAffinity", InterPodAffinityArgs(100))
    check(
        "InterPodAffinity",
        InterPodAffinityArgs(-1),
        "args.hardPodAffinityWeight: Invalid value: -1: not in valid range [0, 100]",
    )


def test_args_of_another_plugin_name_are_not_validated():
    check("SomeOtherPlugin", InterPodAffinityArgs(-1))


def test_balanced_allocation():
    check(
        "NodeResourcesBalancedAllocation",
        NodeResourcesBalancedAllocationArgs((ResourceSpec("cpu", 2), ResourceSpec("cpu", 1))),
        "args.resources[0].weight: Invalid value: 2: must be 1",
        'args.resources[1].name: Duplicate value: "cpu"',
    )


def test_pod_topology_spread():
    c = TopologySpreadConstraint(1, "zone", "DoNotSchedule")
    check("PodTopologySpread", PodTopologySpreadArgs((c,), "List"))
    check(
        "PodTopologySpread",
        PodTopologySpreadArgs((c,), "System"),
        'args.defaultingType: Invalid value: "System": when .defaultConstraints are not empty',
    )
    check(
        "PodTopologySpread",
        PodTopologySpreadArgs((c, replace(c, max_skew=2)), "List"),
        'args.defaultConstraints[1]: Duplicate value: "{zone, DoNotSchedule}"',
    )
    check(
        "PodTopologySpread",
        PodTopologySpreadArgs((TopologySpreadConstraint(0, "", "", {}),), "List"),
        "args.defaultConstraints[0].maxSkew: Invalid value: 0: not in valid range (0, inf)",
        "args.defaultConstraints[0].topologyKey: Required value: can not be empty",
        "args.defaultConstraints[0].whenUnsatisfiable: Required value: can not be empty",
        "args.defaultConstraints[0].labelSelector: Forbidden: constraint must not define a "
        "selector, as they deduced for each pod",
    )


def test_volume_binding_shape_needs_the_feature_gate():
    check(
        "VolumeBinding",
        VolumeBindingArgs(600, ()),
        "args.shape: Invalid value: []config.UtilizationShapePoint{}: unexpected field `shape`, "
        "remove it or turn on the feature gate VolumeCapacityPriority",
    )
    check(
        "VolumeBinding",
        VolumeBindingArgs(-1, None),
        "args.bindTimeoutSeconds: Invalid value: -1: invalid BindTimeoutSeconds, should not be "
        "a negative value",
    )


def test_node_affinity():
    term = {
        "matchExpressions": [{"key": "a", "operator": "Lt", "values": ["x"]}],
        "matchFields": [{"key": "metadata.name", "operator": "In", "values": ["a", "b"]}],
    }
    required = {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [term]}}
    p = "args.addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]"
    check(
        "NodeAffinity",
        NodeAffinityArgs(required),
        f"{p}.matchExpressions[0].values[0]: Invalid value: \"x\": for 'Gt', 'Lt' operators, "
        "the value must be an integer",
        f'{p}.matchFields[0].values: Invalid value: []string{{"a", "b"}}: must have one element',
    )
    # a preferred term with weight 0 is skipped, as an empty term is
    preferred = {
        "preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 0, "preference": term},
            {"weight": 1, "preference": {}},
        ]
    }
    check("NodeAffinity", NodeAffinityArgs(preferred))


@pytest.mark.parametrize(
    ("op", "values", "expected"),
    [
        (
            "in",
            None,
            [
                "p.values: Invalid value: []string(nil): for 'in', 'notin' operators, "
                "values set can't be empty"
            ],
        ),
        (
            "exists",
            ["a"],
            [
                'p.values: Invalid value: []string{"a"}: values set must be empty for '
                "exists and does not exist"
            ],
        ),
        (
            "gt",
            ["1", "2"],
            [
                "p.values: Invalid value: []string{\"1\", \"2\"}: for 'Gt', 'Lt' "
                "operators, exactly one value is required"
            ],
        ),
        (
            "in",
            ["-bad-"],
            [
                'p.values[0][k]: Invalid value: "-bad-": a valid label must be an empty '
                "string or consist of alphanumeric characters, '-', '_' or '.', and "
                "must start and end with an alphanumeric character (e.g. 'MyValue' or "
                "'my_value' or '12345', regex used for validation is "
                "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
            ],
        ),
        (
            "gt",
            ["9223372036854775808"],
            [
                'p.values[0]: Invalid value: "9223372036854775808": '
                "for 'Gt', 'Lt' operators, the value must be an integer"
            ],
        ),
        ("lt", ["9223372036854775807"], []),
    ],
)
def test_new_requirement(op, values, expected):
    got = [normalize(str(e)) for e in new_requirement("p", "k", op, values)]
    assert got == [normalize(e) for e in expected]


def test_fit_args_paths_are_relative_to_the_args():
    shape = (UtilizationShapePoint(10, 1), UtilizationShapePoint(10, 11))
    strategy = ScoringStrategy(
        "RequestedToCapacityRatio", (ResourceSpec("cpu", 0),), RequestedToCapacityRatioParam(shape)
    )
    args = NodeResourcesFitArgs(("ok", "not ok"), ("a/b",), strategy)
    msgs = [str(e) for e in validate_fit_args(args)]
    assert msgs[0].startswith('ignoredResources[1]: Invalid value: "not ok": name part must')
    assert (
        msgs[1] == 'ignoredResourceGroups[0]: Invalid value: "a/b": resource group name '
        "can't contain '/'"
    )
    assert msgs[2:] == [
        "resources[0].weight: Invalid value: 0: resource weight of cpu not in valid range (0, 100]",
        "shape[1].utilization: Invalid value: 10: utilization values must be sorted in "
        "increasing order",
        "shape[1].score: Invalid value: 11: not in valid range [0, 10]",
    ]
    strategy = replace(
        strategy, resources=(), requested_to_capacity_ratio=RequestedToCapacityRatioParam(None)
    )
    empty = NodeResourcesFitArgs(None, None, strategy)
    assert [str(e) for e in validate_fit_args(empty)] == [
        "shape: Required value: at least one point must be specified"
    ]


def test_aggregate_and_quote():
    assert aggregate([]) == "" and aggregate(["a"]) == "a"
    assert aggregate(["a", "b", "a"]) == "[a, b]"
    assert go_quote('a"b\\c\n\x01é') == '"a\\"b\\\\c\\n\\x01é"'
