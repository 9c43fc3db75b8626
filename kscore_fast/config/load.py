"""Reading a KubeSchedulerConfiguration file as kube-scheduler v1.23.6 does.

The steps of ``kube-scheduler --config FILE`` up to a running scheduler, each refusing what
the scheduler refuses, with its message (a :class:`~kscore_fast.errors.ConfigError`
naming the file):

1. ``loadConfigFromFile``: the scheme's strict ``UniversalDecoder`` (:mod:`.read`,
   :mod:`.decode`): ``apiVersion``/``kind`` (v1beta2 or v1beta3), the document, each
   pluginConfig entry's args as ``<Plugin>Args`` of that version (``decoding
   .profiles[0].pluginConfig[1]: decoding args for plugin X: ...``), then strict errors
   (``strict decoding error: unknown field "x", ...``);
2. the version's defaults (:mod:`.defaults`) and conversion to the internal types;
3. ``ValidateKubeSchedulerConfiguration`` (:mod:`.validate`);
4. ``scheduler.New``'s profiles (:mod:`.build`).

:func:`default_config` is what kube-scheduler runs without ``--config``
(``latest.Default()``: v1beta3's defaults).
"""

from __future__ import annotations

import os
import stat
from dataclasses import replace
from types import MappingProxyType
from typing import Any

from ..errors import ConfigError
from ..io.manifests import file_kind
from . import args as a
from .build import FrameworkError, build_profiles
from .decode import DecodeError, Decoder, json_kind
from .defaults import ArgsDoc, set_defaults
from .gofmt import aggregate, go_quote
from .read import MAX_BYTES, Obj, plain, read_document
from .schema import ARGS_KINDS, GROUP, KIND, PLUGIN_SET_FIELDS, VERSIONS, schema
from .types import (
    ClientConnectionConfiguration,
    LeaderElectionConfiguration,
    Plugin,
    PluginConfig,
    PluginSet,
    Profile,
    SchedulerConfiguration,
)
from .validate import validate_configuration

_SCHEME = "pkg/runtime/scheme.go:100"  # the name runtime.NewScheme gives the scheme


def load_config(path: str | os.PathLike[str]) -> SchedulerConfiguration:
    """The effective configuration of a ``--config`` file (YAML or JSON)."""
    return parse_config(read_config_file(path), os.fspath(path))


def read_config_file(path: str | os.PathLike[str]) -> bytes:
    """The bytes of a configuration file, for :func:`parse_config` (an error names the
    file)."""
    name = os.fspath(path)
    try:
        return _read_regular_file(name)
    except OSError as exc:
        raise ConfigError(exc.strerror or str(exc), file=name) from None


def _read_regular_file(name: str) -> bytes:
    """The bytes of a regular file (symbolic links followed); anything else (a FIFO, a
    device, a socket, a directory) is refused before it is read, so reading never hangs."""
    _check_regular(os.stat(name).st_mode, name)
    # O_NONBLOCK: a FIFO put in its place after the check opens at once instead of
    # waiting for a writer, and is refused by the second check
    fd = os.open(name, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    with open(fd, "rb") as f:
        _check_regular(os.fstat(fd).st_mode, name)
        return f.read(MAX_BYTES + 1)  # more is refused by read_document


def _check_regular(mode: int, name: str) -> None:
    if stat.S_ISDIR(mode):
        raise ConfigError("is a directory, not a configuration file", file=name)
    if not stat.S_ISREG(mode):
        raise ConfigError(f"not a regular file ({file_kind(mode)})", file=name)


def parse_config(data: bytes, name: str = "<config>") -> SchedulerConfiguration:
    """:func:`load_config` of a file's bytes (``name`` is used in messages)."""
    doc, yaml_strict, _ = read_document(data, name)
    api_version = _interpret(doc, data, name)
    try:
        versioned, strict = _decode(doc, api_version)
    except DecodeError as exc:
        raise ConfigError(str(exc), file=name) from None
    if yaml_strict:
        strict = ["yaml: unmarshal errors:\n  " + "\n  ".join(yaml_strict), *strict]
    if strict:
        raise ConfigError("strict decoding error: " + ", ".join(strict), file=name)
    return _finish(versioned, api_version, name)


def default_config(version: str = "v1beta3") -> SchedulerConfiguration:
    """The configuration kube-scheduler uses without ``--config`` (v1beta3 in v1.23), or
    the defaults of another version (``"v1beta2"``)."""
    api_version = version if "/" in version else f"{GROUP}/{version}"
    if api_version not in VERSIONS:
        raise ConfigError(f"unknown version {version!r}; expected v1beta2 or v1beta3")
    return _finish({"apiVersion": api_version, "kind": KIND}, api_version, None)


def _finish(
    versioned: dict[str, Any], api_version: str, name: str | None
) -> SchedulerConfiguration:
    set_defaults(versioned, api_version)
    cfg = to_internal(versioned, api_version, name)
    errs = validate_configuration(cfg)
    if errs:
        raise ConfigError(aggregate(errs), file=name)
    try:
        profiles = build_profiles(cfg.profiles)
    except FrameworkError as exc:
        raise ConfigError(str(exc), file=name) from None
    return replace(cfg, profiles=profiles)


# -- decoding --------------------------------------------------------------------------------


_FIND_KIND = (
    "couldn't get version/kind; json parse error: json: cannot unmarshal {} into Go value of "
    'type struct {{ APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string '
    '"json:\\"kind,omitempty\\"" }}'
)


def _interpret(doc: Any, data: bytes, name: str) -> str:
    """The document's apiVersion, checked as the scheme's decoder checks it."""
    if doc is not None and not isinstance(doc, Obj):
        raise ConfigError(_FIND_KIND.format(json_kind(doc)), file=name)
    doc = doc or Obj([])
    api_version, kind = doc.get("apiVersion", ""), doc.get("kind", "")
    if not isinstance(api_version, str) or not isinstance(kind, str):
        raise ConfigError("apiVersion and kind must be strings", file=name)
    text = data.decode("utf-8", "replace")
    if not kind:
        raise ConfigError(f"Object 'Kind' is missing in '{text}'", file=name)
    if not api_version:
        raise ConfigError(f"Object 'apiVersion' is missing in '{text}'", file=name)
    if api_version not in VERSIONS or (kind != KIND and kind not in ARGS_KINDS):
        raise ConfigError(_not_registered(kind, api_version), file=name)
    if kind != KIND:
        raise ConfigError(
            f"couldn't decode as KubeSchedulerConfiguration, got {api_version}, Kind={kind}: ",
            file=name,
        )
    return api_version


def _not_registered(kind: str, api_version: str) -> str:
    return (
        f"no kind {go_quote(kind)} is registered for version {go_quote(api_version)} in "
        f"scheme {go_quote(_SCHEME)}"
    )


def _decode(doc: Obj, api_version: str) -> tuple[dict[str, Any], list[str]]:
    """The versioned document, its args decoded; the strict errors of the outer document."""
    dec = Decoder()
    versioned = dec.run(doc, schema(api_version).config)
    foreign: list[str] = []
    for i, prof in enumerate(versioned.get("profiles", [])):
        for j, pc in enumerate(prof.get("pluginConfig", [])):
            try:
                args, version = _decode_args(pc.get("name", ""), pc.get("args"), api_version)
            except DecodeError as exc:
                raise DecodeError(f"decoding .profiles[{i}].pluginConfig[{j}]: {exc}") from None
            pc["args"] = args
            if version != api_version and args.kind is not None:
                pkg = version.rpartition("/")[2]
                foreign.append(
                    f"converting .Profiles[{i}].PluginConfig[{j}].Args into internal type: no "
                    f"kind is registered for the type {pkg}.{args.kind} in scheme "
                    f"{go_quote(_SCHEME)}"
                )
    if foreign:  # the conversion to the internal types fails on the first one
        raise DecodeError(foreign[0])
    return versioned, dec.strict


def _decode_args(plugin: str, raw: Any, api_version: str) -> tuple[ArgsDoc, str]:
    """``PluginConfig.decodeNestedObjects``: args of a registered ``<plugin>Args`` kind
    decoded strictly (as the version they name); others kept as written."""
    kind = plugin + "Args"
    if kind not in ARGS_KINDS:
        return ArgsDoc(None, raw), api_version
    where = f"decoding args for plugin {plugin}: "
    raw = Obj([]) if raw is None else raw
    if not isinstance(raw, Obj):
        raise DecodeError(where + _FIND_KIND.format(json_kind(raw)))
    version = raw.get("apiVersion") or api_version
    got = raw.get("kind") or kind
    if version not in VERSIONS or got not in ARGS_KINDS:
        raise DecodeError(where + _not_registered(str(got), str(version)))
    if got != kind:
        raise DecodeError(
            f"args for plugin {plugin} were not of type {kind}.{GROUP}, got {got}.{GROUP}"
        )
    dec = Decoder()
    try:
        doc = dec.run(raw, schema(version).args[kind])
    except DecodeError as exc:
        raise DecodeError(where + str(exc)) from None
    if dec.strict:
        raise DecodeError(where + "strict decoding error: " + ", ".join(dec.strict))
    doc.pop("apiVersion", None)
    doc.pop("kind", None)
    return ArgsDoc(kind, doc), version


# -- versioned -> internal -------------------------------------------------------------------


def to_internal(v: dict[str, Any], api_version: str, source: str | None) -> SchedulerConfiguration:
    """Go's conversion of a defaulted versioned document (nil becomes zero)."""
    le, cc = v.get("leaderElection", {}), v.get("clientConnection", {})
    return SchedulerConfiguration(
        api_version=api_version,
        profiles=tuple(_profile(p) for p in v.get("profiles", [])),
        parallelism=v.get("parallelism", 0),
        percentage_of_nodes_to_score=v.get("percentageOfNodesToScore", 0),
        pod_initial_backoff_seconds=v.get("podInitialBackoffSeconds", 0),
        pod_max_backoff_seconds=v.get("podMaxBackoffSeconds", 0),
        enable_profiling=v.get("enableProfiling", False),
        enable_contention_profiling=v.get("enableContentionProfiling", False),
        healthz_bind_address=v.get("healthzBindAddress", ""),
        metrics_bind_address=v.get("metricsBindAddress", ""),
        leader_election=LeaderElectionConfiguration(
            le.get("leaderElect", False),
            le.get("leaseDuration", 0),
            le.get("renewDeadline", 0),
            le.get("retryPeriod", 0),
            le.get("resourceLock", ""),
            le.get("resourceName", ""),
            le.get("resourceNamespace", ""),
        ),
        client_connection=ClientConnectionConfiguration(
            cc.get("kubeconfig", ""),
            cc.get("acceptContentTypes", ""),
            cc.get("contentType", ""),
            cc.get("qps", 0.0),
            cc.get("burst", 0),
        ),
        extenders=tuple(v.get("extenders", [])),
        source=source,
    )


def _plugin_set(d: dict[str, Any]) -> PluginSet:
    def plugins(key: str) -> tuple[Plugin, ...]:
        return tuple(Plugin(p.get("name", ""), p.get("weight", 0)) for p in d.get(key, []))

    return PluginSet(plugins("enabled"), plugins("disabled"))


def _profile(p: dict[str, Any]) -> Profile:
    sets = p.get("plugins", {})
    plugins = {point: _plugin_set(sets.get(point, {})) for point in PLUGIN_SET_FIELDS}
    configs = []
    for pc in p.get("pluginConfig", []):
        doc: ArgsDoc = pc.get("args") or ArgsDoc(None, None)
        if doc.kind is not None:
            args: a.PluginArgs | None = a.args_from_versioned(doc.kind, doc.doc)
        else:
            args = None if doc.doc is None else a.UnknownArgs(plain(doc.doc))
        configs.append(PluginConfig(pc.get("name", ""), args))
    return Profile(p.get("schedulerName", ""), MappingProxyType(plugins), tuple(configs))


__all__ = ["default_config", "load_config", "parse_config", "to_internal"]
