"""``ValidateKubeSchedulerConfiguration`` and the plugin args validators, with Go's text.

Ports of pkg/scheduler/apis/config/validation/validation.go and validation_pluginargs.go
(v1.23.6), component-base's client connection and leader election checks, and the
label-selector checks the NodeAffinity args go through (component-helpers'
``nodeaffinity.NewNodeSelector``, apimachinery's ``labels.NewRequirement``). Each check
returns :class:`~.gofmt.FieldError` lists in Go's order; :func:`validate_configuration`
returns the flattened list whose :func:`~.gofmt.aggregate` text is Go's error.

As in v1.23.6, ``NodeResourcesFit`` args are not validated here (the validators table
names it ``NodeResourcesFitArgs``): :func:`validate_fit_args` runs when the plugin is
built (:mod:`.build`), with field paths relative to the args.
"""

from __future__ import annotations

import ipaddress
import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from ..model.validation import is_qualified_name, is_valid_label_value
from . import args as a
from .gofmt import (
    FieldError,
    GoRepr,
    duplicate,
    forbidden,
    go_quote,
    go_strings,
    invalid,
    not_supported,
    required,
)
from .types import PluginConfig, PluginSet, Profile, SchedulerConfiguration

#: field.Path's %#v prints a heap address; Go's differs from run to run
FAKE_ADDRESS = "0xc000010000"


def validate_configuration(cfg: SchedulerConfiguration) -> list[FieldError]:
    """``ValidateKubeSchedulerConfiguration``."""
    errs = [*_client_connection(cfg), *_leader_election(cfg)]
    if cfg.parallelism <= 0:
        detail = "should be an integer value greater than zero"
        errs.append(invalid("parallelism", cfg.parallelism, detail))
    errs += _profiles(cfg.profiles)
    errs += _bind_address("healthzBindAddress", cfg.healthz_bind_address)
    errs += _bind_address("metricsBindAddress", cfg.metrics_bind_address)
    pct, initial, most = (cfg.percentage_of_nodes_to_score, cfg.pod_initial_backoff_seconds,
                          cfg.pod_max_backoff_seconds)  # fmt: skip
    if not 0 <= pct <= 100:
        errs.append(invalid("percentageOfNodesToScore", pct, "not in valid range [0-100]"))
    if initial <= 0:
        errs.append(invalid("podInitialBackoffSeconds", initial, "must be greater than 0"))
    if most < initial:
        detail = "must be greater than or equal to PodInitialBackoffSeconds"
        errs.append(invalid("podMaxBackoffSeconds", most, detail))
    return errs + _extenders(cfg.extenders)


def _profiles(profiles: Sequence[Profile]) -> list[FieldError]:
    if not profiles:
        return [required("profiles")]
    errs: list[FieldError] = []
    seen: set[str] = set()
    path = GoRepr(
        f'field.Path{{name:"schedulerName", index:"", parent:(*field.Path)({FAKE_ADDRESS})}}'
    )
    for i, prof in enumerate(profiles):
        errs += _profile(f"profiles[{i}]", prof)
        if prof.scheduler_name in seen:
            errs.append(duplicate(f"profiles[{i}].schedulerName", path))
        seen.add(prof.scheduler_name)
    return errs + _common_queue_sort(profiles)


def _client_connection(cfg: SchedulerConfiguration) -> list[FieldError]:
    burst = cfg.client_connection.burst
    return [invalid("clientConnection.burst", burst, "must be non-negative")] if burst < 0 else []


def _duration(ns: int) -> GoRepr:
    return GoRepr(f"v1.Duration{{Duration:{ns}}}")


def _leader_election(cfg: SchedulerConfiguration) -> list[FieldError]:
    le = cfg.leader_election
    if not le.leader_elect:
        return []
    errs = []
    for name, ns in (
        ("leaseDuration", le.lease_duration),
        ("renewDeadline", le.renew_deadline),
        ("retryPeriod", le.retry_period),
    ):
        if ns <= 0:
            errs.append(
                invalid(f"leaderElection.{name}", _duration(ns), "must be greater than zero")
            )
    if le.lease_duration < le.renew_deadline:
        errs.append(
            invalid(
                "leaderElection.leaseDuration",
                _duration(le.renew_deadline),
                "LeaseDuration must be greater than RenewDeadline",
            )
        )
    for name, value in (
        ("resourceLock", le.resource_lock),
        ("resourceNamespace", le.resource_namespace),
        ("resourceName", le.resource_name),
    ):
        if not value:
            errs.append(invalid(f"leaderElection.{name}", value, f"{name} is required"))
    return errs


def _profile(path: str, prof: Profile) -> list[FieldError]:
    errs = [] if prof.scheduler_name else [required(f"{path}.schedulerName")]
    seen: set[str] = set()
    for j, pc in enumerate(prof.plugin_config):
        pc_path = f"{path}.pluginConfig[{j}]"
        if pc.name in seen:
            errs.append(duplicate(pc_path, pc.name))
        seen.add(pc.name)
        errs += validate_args(pc_path + ".args", pc)
    return errs


def validate_args(path: str, pc: PluginConfig) -> list[FieldError]:
    """The validator ``validatePluginConfig`` runs on one entry's args (none for
    NodeResourcesFit, nor for plugins without args types)."""
    x = pc.args
    if pc.name == "DefaultPreemption" and isinstance(x, a.DefaultPreemptionArgs):
        return _default_preemption(path, x)
    if pc.name == "InterPodAffinity" and isinstance(x, a.InterPodAffinityArgs):
        w = x.hard_pod_affinity_weight
        return (
            []
            if 0 <= w <= 100
            else [invalid(f"{path}.hardPodAffinityWeight", w, "not in valid range [0, 100]")]
        )
    if pc.name == "NodeAffinity" and isinstance(x, a.NodeAffinityArgs):
        return _node_affinity(path, x.added_affinity)
    if pc.name == "NodeResourcesBalancedAllocation" and isinstance(
        x, a.NodeResourcesBalancedAllocationArgs
    ):
        return _balanced_allocation(path, x)
    if pc.name == "PodTopologySpread" and isinstance(x, a.PodTopologySpreadArgs):
        return _pod_topology_spread(path, x)
    if pc.name == "VolumeBinding" and isinstance(x, a.VolumeBindingArgs):
        return _volume_binding(path, x)
    return []


def _default_preemption(path: str, x: a.DefaultPreemptionArgs) -> list[FieldError]:
    pct, absolute = x.min_candidate_nodes_percentage, x.min_candidate_nodes_absolute
    p_path, a_path = f"{path}.minCandidateNodesPercentage", f"{path}.minCandidateNodesAbsolute"
    errs = []
    if not 0 <= pct <= 100:
        errs.append(invalid(p_path, pct, "not in valid range [0, 100]"))
    if absolute < 0:
        errs.append(invalid(a_path, absolute, "not in valid range [0, inf)"))
    if pct == 0 and absolute == 0:
        errs += [
            invalid(p_path, pct, "cannot be zero at the same time as minCandidateNodesAbsolute"),
            invalid(
                a_path, absolute, "cannot be zero at the same time as minCandidateNodesPercentage"
            ),
        ]
    return errs


def _balanced_allocation(path: str, x: a.NodeResourcesBalancedAllocationArgs) -> list[FieldError]:
    errs, seen = [], set()
    for i, r in enumerate(x.resources or ()):
        if r.name in seen:
            errs.append(duplicate(f"{path}.resources[{i}].name", r.name))
        seen.add(r.name)
        if r.weight != 1:
            errs.append(invalid(f"{path}.resources[{i}].weight", r.weight, "must be 1"))
    return errs


def _label_name(path: str, name: str) -> list[FieldError]:
    """``metav1validation.ValidateLabelName``: one error per message."""
    return [invalid(path, name, msg) for msg in is_qualified_name(name)]


def _pod_topology_spread(path: str, x: a.PodTopologySpreadArgs) -> list[FieldError]:
    errs = []
    dt, constraints = x.defaulting_type, x.default_constraints or ()
    if dt not in (a.SYSTEM_DEFAULTING, a.LIST_DEFAULTING):
        errs.append(not_supported(f"{path}.defaultingType", dt, ["System", "List"]))
    elif dt == a.SYSTEM_DEFAULTING and constraints:
        errs.append(invalid(f"{path}.defaultingType", dt, "when .defaultConstraints are not empty"))
    for i, c in enumerate(constraints):
        p = f"{path}.defaultConstraints[{i}]"
        if c.max_skew <= 0:
            errs.append(invalid(f"{p}.maxSkew", c.max_skew, "not in valid range (0, inf)"))
        if not c.topology_key:
            errs.append(required(f"{p}.topologyKey", "can not be empty"))
        else:
            errs += _label_name(f"{p}.topologyKey", c.topology_key)
        if not c.when_unsatisfiable:
            errs.append(required(f"{p}.whenUnsatisfiable", "can not be empty"))
        elif c.when_unsatisfiable not in ("DoNotSchedule", "ScheduleAnyway"):
            errs.append(
                not_supported(
                    f"{p}.whenUnsatisfiable",
                    c.when_unsatisfiable,
                    ["DoNotSchedule", "ScheduleAnyway"],
                )
            )
        if c.label_selector is not None:
            errs.append(
                forbidden(
                    f"{p}.labelSelector",
                    "constraint must not define a selector, as they deduced for each pod",
                )
            )
        for other in constraints[:i]:
            if (other.topology_key, other.when_unsatisfiable) == (
                c.topology_key,
                c.when_unsatisfiable,
            ):
                errs.append(
                    duplicate(
                        f"{path}.defaultConstraints[{i}]",
                        f"{{{c.topology_key}, {c.when_unsatisfiable}}}",
                    )
                )
                break
    return errs


def _shape_repr(shape: Sequence[a.UtilizationShapePoint]) -> GoRepr:
    items = ", ".join(
        f"config.UtilizationShapePoint{{Utilization:{p.utilization}, Score:{p.score}}}"
        for p in shape
    )
    return GoRepr(f"[]config.UtilizationShapePoint{{{items}}}")


def _volume_binding(path: str, x: a.VolumeBindingArgs) -> list[FieldError]:
    errs = []
    if x.bind_timeout_seconds < 0:
        errs.append(
            invalid(
                f"{path}.bindTimeoutSeconds",
                x.bind_timeout_seconds,
                "invalid BindTimeoutSeconds, should not be a negative value",
            )
        )
    if x.shape is not None:  # the VolumeCapacityPriority feature gate is off
        errs.append(
            invalid(
                f"{path}.shape",
                _shape_repr(x.shape),
                "unexpected field `shape`, remove it or turn on the feature gate "
                "VolumeCapacityPriority",
            )
        )
    return errs


def validate_fit_args(x: a.NodeResourcesFitArgs) -> list[FieldError]:
    """``ValidateNodeResourcesFitArgs(nil, args)``, as NewFit runs it."""
    errs = []
    for i, res in enumerate(x.ignored_resources or ()):
        errs += _label_name(f"ignoredResources[{i}]", res)
    for i, group in enumerate(x.ignored_resource_groups or ()):
        if "/" in group:
            errs.append(
                invalid(
                    f"ignoredResourceGroups[{i}]", group, "resource group name can't contain '/'"
                )
            )
        errs += _label_name(f"ignoredResourceGroups[{i}]", group)
    s = x.scoring_strategy
    if s is not None:
        for i, r in enumerate(s.resources or ()):
            if not 0 < r.weight <= 100:
                errs.append(
                    invalid(
                        f"resources[{i}].weight",
                        r.weight,
                        f"resource weight of {r.name} not in valid range (0, 100]",
                    )
                )
        if s.requested_to_capacity_ratio is not None:
            errs += _function_shape("shape", s.requested_to_capacity_ratio.shape or ())
    return errs


def _function_shape(path: str, shape: Sequence[a.UtilizationShapePoint]) -> list[FieldError]:
    if not shape:
        return [required(path, "at least one point must be specified")]
    errs = []
    for i in range(1, len(shape)):
        if shape[i - 1].utilization >= shape[i].utilization:
            errs.append(
                invalid(
                    f"{path}[{i}].utilization",
                    shape[i].utilization,
                    "utilization values must be sorted in increasing order",
                )
            )
            break
    for i, p in enumerate(shape):
        if not 0 <= p.utilization <= 100:
            errs.append(
                invalid(f"{path}[{i}].utilization", p.utilization, "not in valid range [0, 100]")
            )
        if not 0 <= p.score <= 10:
            errs.append(invalid(f"{path}[{i}].score", p.score, "not in valid range [0, 10]"))
    return errs


# -- NodeAffinity args: nodeaffinity.NewNodeSelector / NewPreferredSchedulingTerms -------------


def _node_affinity(path: str, affinity: Mapping[str, Any] | None) -> list[FieldError]:
    if affinity is None:
        return []
    errs = []
    req = affinity.get("requiredDuringSchedulingIgnoredDuringExecution")
    if req is not None:
        p = f"{path}.addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms"
        for i, term in enumerate(req.get("nodeSelectorTerms") or ()):
            errs += _term(f"{p}[{i}]", term)
    p = f"{path}.addedAffinity.preferredDuringSchedulingIgnoredDuringExecution"
    for i, pref in enumerate(affinity.get("preferredDuringSchedulingIgnoredDuringExecution") or ()):
        if pref.get("weight", 0) != 0:
            errs += _term(f"{p}[{i}]", pref.get("preference", {}))
    return errs


_SELECTION_OPS = {
    "In": "in",
    "NotIn": "notin",
    "Exists": "exists",
    "DoesNotExist": "!",
    "Gt": "gt",
    "Lt": "lt",
}


def _term(path: str, term: Mapping[str, Any]) -> list[FieldError]:
    errs: list[FieldError] = []
    for i, r in enumerate(term.get("matchExpressions") or ()):
        p = f"{path}.matchExpressions[{i}]"
        op = r.get("operator", "")
        if op not in _SELECTION_OPS:
            errs.append(not_supported(f"{p}.operator", op))
            continue
        errs += new_requirement(p, r.get("key", ""), _SELECTION_OPS[op], r.get("values"))
    for i, r in enumerate(term.get("matchFields") or ()):
        p = f"{path}.matchFields[{i}]"
        op, values = r.get("operator", ""), r.get("values")
        if op in ("In", "NotIn"):
            if len(values or ()) != 1:
                errs.append(invalid(f"{p}.values", go_strings(values), "must have one element"))
        else:
            errs.append(not_supported(f"{p}.operator", op, ["In", "NotIn"]))
    return errs


_INT64 = re.compile(r"[+-]?[0-9]+\Z")


def new_requirement(path: str, key: str, op: str, values: Sequence[str] | None) -> list[FieldError]:
    """``labels.NewRequirement(key, op, values, field.WithPath(path))``'s errors."""
    errs = []
    if msgs := is_qualified_name(key):
        errs.append(invalid(f"{path}.key", key, "; ".join(msgs)))
    vals = list(values or ())
    vpath = f"{path}.values"
    if op in ("in", "notin") and not vals:
        errs.append(
            invalid(
                vpath, go_strings(values), "for 'in', 'notin' operators, values set can't be empty"
            )
        )
    elif op in ("exists", "!") and vals:
        errs.append(
            invalid(
                vpath, go_strings(values), "values set must be empty for exists and does not exist"
            )
        )
    elif op in ("gt", "lt"):
        if len(vals) != 1:
            errs.append(
                invalid(
                    vpath,
                    go_strings(values),
                    "for 'Gt', 'Lt' operators, exactly one value is required",
                )
            )
        for i, v in enumerate(vals):
            if not _INT64.match(v) or not -(2**63) <= int(v) < 2**63:
                errs.append(
                    invalid(
                        f"{vpath}[{i}]", v, "for 'Gt', 'Lt' operators, the value must be an integer"
                    )
                )
    for i, v in enumerate(vals):
        if msgs := is_valid_label_value(v):
            errs.append(invalid(f"{vpath}[{i}][{key}]", v, "; ".join(msgs)))
    return errs


# -- queue sort, addresses, extenders ------------------------------------------------------


def _plugin_set_repr(ps: PluginSet) -> GoRepr:
    def plugins(items: Sequence[Any]) -> str:
        if not items:
            return "[]config.Plugin(nil)"
        body = ", ".join(
            f"config.Plugin{{Name:{go_quote(p.name)}, Weight:{p.weight}}}" for p in items
        )
        return f"[]config.Plugin{{{body}}}"

    return GoRepr(
        f"config.PluginSet{{Enabled:{plugins(ps.enabled)}, Disabled:{plugins(ps.disabled)}}}"
    )


def _common_queue_sort(profiles: Sequence[Profile]) -> list[FieldError]:
    """``validateCommonQueueSort``: every profile's queueSort set (as configured, before
    MultiPoint expansion) and queue sort args equal to the first profile's."""
    errs = []
    canon = profiles[0].plugins.get("queueSort", PluginSet())
    name = canon.enabled[0].name if canon.enabled else ""
    if len(canon.enabled) > 1:
        errs.append(
            invalid(
                "profiles[0].plugins.queueSort.Enabled",
                len(canon.enabled),
                "only one queue sort plugin can be enabled",
            )
        )
    canon_args = next(
        (pc.args for pc in profiles[0].plugin_config if name and pc.name == name), None
    )
    for i, prof in enumerate(profiles[1:], start=1):
        curr = prof.plugins.get("queueSort", PluginSet())
        if curr != canon:
            errs.append(
                invalid(
                    f"profiles[{i}].plugins.queueSort",
                    _plugin_set_repr(curr),
                    "has to match for all profiles",
                )
            )
        for pc in prof.plugin_config:
            if pc.name == name and pc.args != canon_args:
                errs.append(
                    invalid(
                        f"profiles[{i}].pluginConfig.args",
                        args_repr(pc.args),
                        "has to match for all profiles",
                    )
                )
    return errs


def _strs(v: Sequence[str] | None) -> str:
    return go_strings(v).text


def _go_slice(elem: str, items: Sequence[str] | None) -> str:
    return f"[]{elem}(nil)" if items is None else f"[]{elem}{{{', '.join(items)}}}"


def _ptr(go_type: str, v: object) -> str:
    return f"(*{go_type})({'nil' if v is None else FAKE_ADDRESS})"


def _resources(rs: Sequence[a.ResourceSpec] | None) -> str:
    items = (
        None
        if rs is None
        else [f"config.ResourceSpec{{Name:{go_quote(r.name)}, Weight:{r.weight}}}" for r in rs]
    )
    return _go_slice("config.ResourceSpec", items)


def args_repr(x: a.PluginArgs | None) -> GoRepr:
    """Go's ``%#v`` of internal plugin args (pointer fields print as addresses)."""
    if x is None:
        return GoRepr("<nil>")
    meta = 'TypeMeta:v1.TypeMeta{Kind:"", APIVersion:""}, '
    if isinstance(x, a.UnknownArgs):
        raw = json.dumps(x.raw, separators=(",", ":"), sort_keys=True, ensure_ascii=False)
        data = ", ".join(f"0x{b:x}" for b in raw.encode("utf-8"))
        return GoRepr(
            'runtime.Unknown{TypeMeta:runtime.TypeMeta{APIVersion:"", Kind:""}, '
            f'Raw:[]uint8{{{data}}}, ContentEncoding:"", ContentType:"application/json"}}'
        )
    if isinstance(x, a.DefaultPreemptionArgs):
        body = (
            f"MinCandidateNodesPercentage:{x.min_candidate_nodes_percentage}, "
            f"MinCandidateNodesAbsolute:{x.min_candidate_nodes_absolute}"
        )
    elif isinstance(x, a.InterPodAffinityArgs):
        body = f"HardPodAffinityWeight:{x.hard_pod_affinity_weight}"
    elif isinstance(x, a.NodeResourcesFitArgs):
        body = (
            f"IgnoredResources:{_strs(x.ignored_resources)}, "
            f"IgnoredResourceGroups:{_strs(x.ignored_resource_groups)}, "
            f"ScoringStrategy:{_ptr('config.ScoringStrategy', x.scoring_strategy)}"
        )
    elif isinstance(x, a.NodeResourcesBalancedAllocationArgs):
        body = f"Resources:{_resources(x.resources)}"
    elif isinstance(x, a.PodTopologySpreadArgs):
        cs = (
            None
            if x.default_constraints is None
            else [
                f"v1.TopologySpreadConstraint{{MaxSkew:{c.max_skew}, TopologyKey:"
                f"{go_quote(c.topology_key)}, WhenUnsatisfiable:{go_quote(c.when_unsatisfiable)}, "
                f"LabelSelector:{_ptr('v1.LabelSelector', c.label_selector)}}}"
                for c in x.default_constraints
            ]
        )
        body = (
            f"DefaultConstraints:{_go_slice('v1.TopologySpreadConstraint', cs)}, "
            f"DefaultingType:{go_quote(x.defaulting_type)}"
        )
    elif isinstance(x, a.VolumeBindingArgs):
        shape = (
            "[]config.UtilizationShapePoint(nil)" if x.shape is None else _shape_repr(x.shape).text
        )
        body = f"BindTimeoutSeconds:{x.bind_timeout_seconds}, Shape:{shape}"
    else:
        assert isinstance(x, a.NodeAffinityArgs)
        body = f"AddedAffinity:{_ptr('v1.NodeAffinity', x.added_affinity)}"
    return GoRepr(f"config.{type(x).__name__}{{{meta}{body}}}")


def _bind_address(name: str, value: str) -> list[FieldError]:
    if not value:
        return []
    m = re.fullmatch(r"(?:\[([^\]]*)\]|([^:]*)):([^:]*)", value)
    if m is None:
        return [invalid(name, value, f"address {value}: missing port in address")]
    host, port = m.group(1) if m.group(1) is not None else m.group(2), m.group(3)
    if not re.fullmatch(r"[+-]?[0-9]+", port):
        return [invalid(name, value, f"strconv.Atoi: parsing {go_quote(port)}: invalid syntax")]
    errs = []
    try:
        ipaddress.ip_address(host)
    except ValueError:
        errs.append(
            invalid(name, value, "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)")
        )
    if int(port) != 0:
        errs.append(invalid(name, value, "must be empty or with an explicit 0 port"))
    return errs


def _extenders(extenders: Sequence[Mapping[str, Any]]) -> list[FieldError]:
    errs: list[FieldError] = []
    binders, managed = 0, set()
    for i, ext in enumerate(extenders):
        if ext.get("prioritizeVerb") and ext.get("weight", 0) <= 0:
            errs.append(
                invalid(
                    f"extenders[{i}].weight",
                    ext.get("weight", 0),
                    "must have a positive weight applied to it",
                )
            )
        if ext.get("bindVerb"):
            binders += 1
        for j, res in enumerate(ext.get("managedResources") or ()):
            p = f"extenders[{i}].managedResources[{j}].name"
            rname = res.get("name", "")
            if msgs := is_qualified_name(rname):  # a v1.ResourceName: printed by its String()
                errs += [invalid(p, GoRepr(rname), m) for m in msgs]
            elif not _is_extended_resource_name(rname):
                errs.append(invalid(p, rname, "is an invalid extended resource name"))
            if rname in managed:
                errs.append(invalid(p, rname, "duplicate extender managed resource name"))
            managed.add(rname)
    if binders > 1:
        errs.append(
            invalid(
                "extenders",
                f"found {binders} extenders implementing bind",
                "only one extender can implement bind",
            )
        )
    return errs


def _is_extended_resource_name(name: str) -> bool:
    """v1helper.IsExtendedResourceName."""
    native = "/" not in name or "kubernetes.io/" in name
    if native or name.startswith("requests."):
        return False
    return not is_qualified_name("requests." + name)
