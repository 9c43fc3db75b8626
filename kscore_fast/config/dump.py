"""The effective configuration as YAML, byte for byte as ``kube-scheduler
--write-config-to`` writes it (cmd/kube-scheduler/app/options ``encodeConfig`` of the
configuration with the completed profiles).

Go converts the internal configuration to its version, marshals it to JSON (``omitempty``
fields left out, every pointer the conversion sets written, durations as ``1m30s``), then
sigs.k8s.io/yaml turns the JSON into YAML with go-yaml v2: mapping keys sorted (go-yaml's
natural order), block style, 2-space indentation, sequences not indented under their key,
strings quoted ``"..."`` only where they would read back as something else. Profiles are
written as the framework completed them: the merged plugin sets as configured (MultiPoint
not expanded) and the args of the plugins the profile uses, by name, with their
``apiVersion`` and ``kind``.
"""

from __future__ import annotations

import base64
import unicodedata
from typing import Any

import yaml

from .args import ARGS_KIND, UnknownArgs, args_to_versioned
from .decode import format_duration
from .gofmt import go_format_float, go_json_float
from .goyaml import go_is_str, go_resolve
from .read import Lit
from .schema import KIND, PLUGIN_SET_FIELDS, V1BETA2, ListOf, MapOf, Raw, Scalar, Struct, schema
from .types import PluginSet, Profile, SchedulerConfiguration


def dump_config(cfg: SchedulerConfiguration) -> str:
    """The YAML kube-scheduler writes for this configuration."""
    versioned = to_versioned(cfg)
    doc = encode(versioned, schema(cfg.api_version).config)
    return yaml.dump(
        _sorted(doc),
        Dumper=_GoDumper,
        default_flow_style=False,
        allow_unicode=True,
        sort_keys=False,
        width=80,
        indent=2,
    )


def to_versioned(cfg: SchedulerConfiguration) -> dict[str, Any]:
    """The versioned document Go's conversion builds (None for nil)."""
    le, cc = cfg.leader_election, cfg.client_connection
    doc: dict[str, Any] = {
        "apiVersion": cfg.api_version,
        "kind": KIND,
        "parallelism": cfg.parallelism,
        "leaderElection": {
            "leaderElect": le.leader_elect,
            "leaseDuration": le.lease_duration,
            "renewDeadline": le.renew_deadline,
            "retryPeriod": le.retry_period,
            "resourceLock": le.resource_lock,
            "resourceName": le.resource_name,
            "resourceNamespace": le.resource_namespace,
        },
        "clientConnection": {
            "kubeconfig": cc.kubeconfig,
            "acceptContentTypes": cc.accept_content_types,
            "contentType": cc.content_type,
            "qps": cc.qps,
            "burst": cc.burst,
        },
        "enableProfiling": cfg.enable_profiling,
        "enableContentionProfiling": cfg.enable_contention_profiling,
        "percentageOfNodesToScore": cfg.percentage_of_nodes_to_score,
        "podInitialBackoffSeconds": cfg.pod_initial_backoff_seconds,
        "podMaxBackoffSeconds": cfg.pod_max_backoff_seconds,
        "profiles": [_profile(p, cfg.api_version) for p in cfg.profiles],
        "extenders": list(cfg.extenders),
    }
    if cfg.api_version == V1BETA2:
        doc["healthzBindAddress"] = cfg.healthz_bind_address
        doc["metricsBindAddress"] = cfg.metrics_bind_address
    return doc


def _plugin_set(ps: PluginSet) -> dict[str, Any]:
    return {
        "enabled": [{"name": p.name, "weight": p.weight} for p in ps.enabled] or None,
        "disabled": [{"name": p.name, "weight": p.weight} for p in ps.disabled] or None,
    }


def _profile(p: Profile, api_version: str) -> dict[str, Any]:
    configs = []
    for name in sorted(p.args, key=lambda s: s.encode("utf-8")):
        args = p.args[name]
        value = args_to_versioned(args)
        if not isinstance(args, UnknownArgs):
            kind = ARGS_KIND[name]
            typed = encode(value, schema(api_version).args[kind])
            value = {"apiVersion": api_version, "kind": kind, **typed}
        configs.append({"name": name, "args": value})
    return {
        "schedulerName": p.scheduler_name,
        "plugins": {pt: _plugin_set(p.plugins.get(pt, PluginSet())) for pt in PLUGIN_SET_FIELDS},
        "pluginConfig": configs or None,
    }


# -- encoding/json with the schema ------------------------------------------------------------

_ZERO = {"int": 0, "float": 0.0, "string": "", "bool": False, "duration": 0, "bytes": None}


def encode(value: Any, kind: Any) -> Any:
    """``json.Marshal`` of a versioned value (None for nil), as JSON-like Python data."""
    if isinstance(kind, Struct):
        out: dict[str, Any] = {}
        src = value or {}
        for f in kind.fields:
            v = src.get(f.json)
            if v is None and not f.pointer and isinstance(f.kind, Scalar):
                v = _ZERO[f.kind.kind]
            if v is None and not f.pointer and isinstance(f.kind, Struct):
                v = {}
            if f.omitempty and _empty(v, f.pointer):
                continue
            out[f.json] = None if v is None else encode(v, f.kind)
        return out
    if value is None:
        return None
    if isinstance(kind, ListOf):
        return [encode(e, kind.elem) for e in value]
    if isinstance(kind, MapOf):
        return {k: encode(e, kind.elem) for k, e in value.items()}
    if isinstance(kind, Raw):
        return value
    return _scalar(value, kind)


def _empty(v: Any, pointer: bool) -> bool:
    if v is None:
        return True
    if pointer or isinstance(v, dict):
        return False
    return v in (0, "", False) or (isinstance(v, list | bytes) and len(v) == 0)


def _scalar(v: Any, kind: Scalar) -> Any:
    if kind.kind == "duration":
        return format_duration(v)
    if kind.kind == "bytes":
        return base64.b64encode(v).decode("ascii")
    if kind.kind == "float":
        return go_resolve(go_json_float(float(v), 32))  # the JSON text, read back by go-yaml
    return v


# -- go-yaml v2's encoder ---------------------------------------------------------------------


def _natural_less(a: str, b: str) -> bool:
    """go-yaml v2's keyList.Less for two string keys."""
    for i in range(min(len(a), len(b))):
        ca, cb = a[i], b[i]
        if ca == cb:
            continue
        la, lb = ca.isalpha(), cb.isalpha()
        if la and lb:
            return ca < cb
        if la or lb:
            return lb
        an = bn = 0
        if ca == "0" or cb == "0":
            j = i - 1
            while j >= 0 and a[j].isdigit():
                if a[j] != "0":
                    an = bn = 1
                    break
                j -= 1
        ai = i
        while ai < len(a) and _digit(a[ai]):
            an, ai = an * 10 + int(a[ai]), ai + 1
        bi = i
        while bi < len(b) and _digit(b[bi]):
            bn, bi = bn * 10 + int(b[bi]), bi + 1
        if an != bn:
            return an < bn
        if ai != bi:
            return ai < bi
        return ca < cb
    return len(a) < len(b)


def _digit(c: str) -> bool:
    return unicodedata.category(c) == "Nd" and c.isdigit()


class _Key(str):
    __slots__ = ()

    def __lt__(self, other: str) -> bool:  # type: ignore[override]
        return _natural_less(self, other)


def _sorted(v: Any) -> Any:
    if isinstance(v, dict):
        return {k: _sorted(v[k]) for k in sorted(v, key=_Key)}
    if isinstance(v, list):
        return [_sorted(e) for e in v]
    if isinstance(v, Lit):  # a number of raw args: go-yaml reads its JSON text
        return go_resolve(v.text)
    return v


_TAGS = {t: f"tag:yaml.org,2002:{n}" for t, n in
         ((bool, "bool"), (type(None), "null"), (int, "int"), (float, "float"))}  # fmt: skip


class _GoDumper(yaml.SafeDumper):
    """PyYAML's emitter (libyaml's algorithm, as go-yaml's) with go-yaml's scalar rules."""

    def resolve(self, kind: type, value: Any, implicit: Any) -> str:
        if kind is yaml.ScalarNode and implicit[0]:
            return _TAGS.get(type(go_resolve(value)), "tag:yaml.org,2002:str")
        return super().resolve(kind, value, implicit)


def _represent_str(dumper: yaml.SafeDumper, s: str) -> yaml.ScalarNode:
    if "\n" in s:
        style = "|"
    elif go_is_str(s):
        style = None
    else:
        style = '"'
    return dumper.represent_scalar("tag:yaml.org,2002:str", s, style=style)


def _represent_float(dumper: yaml.SafeDumper, f: float) -> yaml.ScalarNode:
    text = go_format_float(f, 64)
    text = {"+Inf": ".inf", "-Inf": "-.inf", "NaN": ".nan"}.get(text, text)
    return dumper.represent_scalar("tag:yaml.org,2002:float", text)


def _represent_bool(dumper: yaml.SafeDumper, b: bool) -> yaml.ScalarNode:
    return dumper.represent_scalar("tag:yaml.org,2002:bool", "true" if b else "false")


_GoDumper.add_representer(str, _represent_str)
_GoDumper.add_representer(float, _represent_float)
_GoDumper.add_representer(bool, _represent_bool)
