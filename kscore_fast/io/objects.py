"""Validate Kubernetes objects and turn them into model records.

Checks what the API server would have refused and what kscore_fast relies on: kind and
``metadata.name``, label keys and values, selectors and their operators, resource
quantities, duplicate names. Each error names the file, the object and the field.
Objects of kinds the scheduler does not read are counted, not parsed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..errors import InputError
from ..model.objects import (
    RC_KIND,
    RS_KIND,
    SS_KIND,
    ControllerRecord,
    NodeRecord,
    OwnerReference,
    PodRecord,
    ServiceRecord,
)
from ..model.quantity import quantity_from_yaml
from ..model.selectors import LABEL_SELECTOR_OPERATORS, LabelSelector
from ..model.validation import is_qualified_name, is_valid_label_value
from .manifests import Located

USED_KINDS = ("Node", "Pod", "Service", RC_KIND, RS_KIND, SS_KIND)


@dataclass
class Objects:
    """The records of a set of manifests, in input order."""

    nodes: list[NodeRecord] = field(default_factory=list)
    pods: list[PodRecord] = field(default_factory=list)
    services: list[ServiceRecord] = field(default_factory=list)
    controllers: list[ControllerRecord] = field(default_factory=list)
    #: kinds skipped → count
    skipped: Counter[str] = field(default_factory=Counter)


class _Ctx:
    """Where we are: builds located errors."""

    def __init__(self, loc: Located, obj_label: str) -> None:
        self.file = loc.file
        self.obj = obj_label if not loc.where else f"{obj_label} ({loc.where})"

    def error(self, field_path: str | None, message: str) -> InputError:
        return InputError(message, file=self.file, obj=self.obj, field=field_path)


def _mapping(ctx: _Ctx, value: Any, path: str) -> Mapping[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise ctx.error(path, f"expected a mapping, found {type(value).__name__}")
    return value


def _list(ctx: _Ctx, value: Any, path: str) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise ctx.error(path, f"expected a list, found {type(value).__name__}")
    return value


def _string(ctx: _Ctx, value: Any, path: str, *, default: str = "") -> str:
    if value is None:
        return default
    if not isinstance(value, str):
        raise ctx.error(path, f"expected a string, found {type(value).__name__} {value!r}")
    return value


def _labels(ctx: _Ctx, value: Any, path: str) -> dict[str, str]:
    """A label map (labels, service/RC selectors, matchLabels), validated."""
    out: dict[str, str] = {}
    for k, v in _mapping(ctx, value, path).items():
        if not isinstance(k, str):
            raise ctx.error(path, f"label key {k!r} is not a string")
        if not isinstance(v, str):
            raise ctx.error(
                f"{path}.{k}",
                f"label value must be a string, found {type(v).__name__} {v!r} (quote it in YAML)",
            )
        if errs := is_qualified_name(k):
            raise ctx.error(path, f"invalid label key {k!r}: {'; '.join(errs)}")
        if errs := is_valid_label_value(v):
            raise ctx.error(f"{path}.{k}", f"invalid label value {v!r}: {'; '.join(errs)}")
        out[k] = v
    return out


def _label_selector(ctx: _Ctx, value: Any, path: str) -> LabelSelector | None:
    """A ``metav1.LabelSelector`` as ``LabelSelectorAsSelector`` would accept it."""
    if value is None:
        return None
    sel = _mapping(ctx, value, path)
    match_labels = _labels(ctx, sel.get("matchLabels"), f"{path}.matchLabels")
    exprs = []
    for i, e in enumerate(_list(ctx, sel.get("matchExpressions"), f"{path}.matchExpressions")):
        ep = f"{path}.matchExpressions[{i}]"
        e = _mapping(ctx, e, ep)
        key = _string(ctx, e.get("key"), f"{ep}.key")
        op = _string(ctx, e.get("operator"), f"{ep}.operator")
        values = [_string(ctx, v, f"{ep}.values") for v in _list(ctx, e.get("values"), ep)]
        if errs := is_qualified_name(key):
            raise ctx.error(f"{ep}.key", f"invalid label key {key!r}: {'; '.join(errs)}")
        if op not in LABEL_SELECTOR_OPERATORS:
            raise ctx.error(
                f"{ep}.operator",
                f'"{op}" is not a valid pod selector operator '
                f"(expected one of {', '.join(LABEL_SELECTOR_OPERATORS)})",
            )
        if op in ("In", "NotIn") and not values:
            raise ctx.error(f"{ep}.values", f"operator {op} needs at least one value")
        if op in ("Exists", "DoesNotExist") and values:
            raise ctx.error(f"{ep}.values", f"operator {op} takes no values")
        for v in values:
            if errs := is_valid_label_value(v):
                raise ctx.error(f"{ep}.values", f"invalid label value {v!r}: {'; '.join(errs)}")
        exprs.append((key, op, tuple(values)))
    return LabelSelector(tuple(match_labels.items()), tuple(exprs))


def _quantities(ctx: _Ctx, value: Any, path: str) -> None:
    for name, q in _mapping(ctx, value, path).items():
        try:
            quantity_from_yaml(q)
        except ValueError as exc:
            raise ctx.error(f"{path}.{name}", str(exc)) from None


def _check_pod_resources(ctx: _Ctx, spec: Mapping[str, Any]) -> None:
    for group in ("initContainers", "containers"):
        for i, c in enumerate(_list(ctx, spec.get(group), f"spec.{group}")):
            c = _mapping(ctx, c, f"spec.{group}[{i}]")
            res = _mapping(ctx, c.get("resources"), f"spec.{group}[{i}].resources")
            for part in ("requests", "limits"):
                _quantities(ctx, res.get(part), f"spec.{group}[{i}].resources.{part}")
    _quantities(ctx, spec.get("overhead"), "spec.overhead")


def _owner_references(ctx: _Ctx, value: Any) -> tuple[OwnerReference, ...]:
    refs = []
    for i, r in enumerate(_list(ctx, value, "metadata.ownerReferences")):
        p = f"metadata.ownerReferences[{i}]"
        r = _mapping(ctx, r, p)
        controller = r.get("controller")
        if controller is not None and not isinstance(controller, bool):
            raise ctx.error(f"{p}.controller", f"expected true or false, found {controller!r}")
        refs.append(
            OwnerReference(
                api_version=_string(ctx, r.get("apiVersion"), f"{p}.apiVersion"),
                kind=_string(ctx, r.get("kind"), f"{p}.kind"),
                name=_string(ctx, r.get("name"), f"{p}.name"),
                controller=bool(controller),
            )
        )
    return tuple(refs)


class ObjectReader:
    """Accumulates records from located objects, checking names are unique."""

    def __init__(self) -> None:
        self.objects = Objects()
        self._seen: dict[tuple[str, str, str], str] = {}

    def add_all(self, located: Iterable[Located]) -> Objects:
        for loc in located:
            self.add(loc)
        return self.objects

    def add(self, loc: Located) -> None:
        obj = loc.obj
        kind = obj.get("kind")
        if not isinstance(kind, str) or not kind:
            raise InputError(
                "object without kind", file=loc.file, obj=loc.where or None, field="kind"
            )
        if kind not in USED_KINDS:
            self.objects.skipped[kind] += 1
            return
        meta = obj.get("metadata")
        ctx = _Ctx(loc, kind)
        meta = _mapping(ctx, meta, "metadata")
        name = meta.get("name")
        if not isinstance(name, str) or not name:
            raise ctx.error("metadata.name", f"{kind} without metadata.name")
        namespace = ""
        if kind != "Node":  # a missing or empty namespace means "default"
            namespace = _string(ctx, meta.get("namespace"), "metadata.namespace") or "default"
        label = f"{kind} {namespace}/{name}" if namespace else f"{kind} {name}"
        ctx = _Ctx(loc, label)
        key = (kind, namespace, name)
        where = f"{loc.file}{': ' + loc.where if loc.where else ''}"
        if key in self._seen:
            first = self._seen[key]
            raise ctx.error("metadata.name", f"duplicate {kind} (first defined in {first})")
        self._seen[key] = where
        labels = _labels(ctx, meta.get("labels"), "metadata.labels")
        spec = _mapping(ctx, obj.get("spec"), "spec")
        status = _mapping(ctx, obj.get("status"), "status")
        if kind == "Node":
            for part in ("allocatable", "capacity"):
                _quantities(ctx, status.get(part), f"status.{part}")
            self.objects.nodes.append(NodeRecord(name=name, labels=labels))
        elif kind == "Pod":
            _check_pod_resources(ctx, spec)
            tsc_path = "spec.topologySpreadConstraints"
            tsc = _list(ctx, spec.get("topologySpreadConstraints"), tsc_path)
            self.objects.pods.append(
                PodRecord(
                    namespace=namespace,
                    name=name,
                    labels=labels,
                    node_name=_string(ctx, spec.get("nodeName"), "spec.nodeName"),
                    phase=_string(ctx, status.get("phase"), "status.phase"),
                    deleting=meta.get("deletionTimestamp") is not None,
                    owner_references=_owner_references(ctx, meta.get("ownerReferences")),
                    topology_spread_constraints=len(tsc),
                    nominated_node_name=_string(
                        ctx, status.get("nominatedNodeName"), "status.nominatedNodeName"
                    ),
                )
            )
        elif kind == "Service":
            sel = spec.get("selector")
            sel = None if sel is None else _labels(ctx, sel, "spec.selector")
            self.objects.services.append(ServiceRecord(namespace, name, sel))
        elif kind == RC_KIND:
            sel = spec.get("selector")
            sel = None if sel is None else _labels(ctx, sel, "spec.selector")
            self.objects.controllers.append(ControllerRecord(kind, namespace, name, sel))
        else:  # ReplicaSet, StatefulSet
            ls = _label_selector(ctx, spec.get("selector"), "spec.selector")
            self.objects.controllers.append(ControllerRecord(kind, namespace, name, ls))
