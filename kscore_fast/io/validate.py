"""Located validation of parsed Kubernetes objects: what the API server would refuse.

Two users:

* the value checks (:func:`label_problem`, :func:`name_problem`, :func:`quantity_problem`,
  :func:`label_selector`, :func:`label_map`) are applied to every object read, by
  :mod:`kscore_fast.io.objects` (once per distinct value where it can);
* :func:`explain` walks a parsed object (dicts and lists) field by field and raises the
  first problem, naming file, object and field. It runs when typed decoding
  (:mod:`kscore_fast.io.schema`) refused an object, to say why.

Messages read ``<file>: <Kind> <namespace>/<name>: <field>: <what is wrong>``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..errors import InputError
from ..model.quantity import quantity_from_yaml
from ..model.selectors import LABEL_SELECTOR_OPERATORS, LabelSelector
from ..model.validation import (
    is_dns1035_label,
    is_dns1123_label,
    is_dns1123_subdomain,
    is_qualified_name,
    is_valid_label_value,
    valid_dns1123_subdomain,
)

#: how the API server validates ``metadata.name`` of each kind kscore_fast reads
_NAME_RULES = {
    "Node": ("a DNS subdomain", is_dns1123_subdomain),
    "Pod": ("a DNS subdomain", is_dns1123_subdomain),
    "Service": ("a DNS-1035 label", is_dns1035_label),
    "ReplicationController": ("a DNS subdomain", is_dns1123_subdomain),
    "ReplicaSet": ("a DNS subdomain", is_dns1123_subdomain),
    "StatefulSet": ("a DNS subdomain", is_dns1123_subdomain),
}


class Where:
    """Where an object is: builds located errors."""

    __slots__ = ("file", "obj")

    def __init__(self, file: str, where: str, obj_label: str) -> None:
        self.file = file
        self.obj = obj_label if not where else f"{obj_label} ({where})"

    def error(self, field: str | None, message: str) -> InputError:
        return InputError(message, file=self.file, obj=self.obj, field=field)


def object_label(kind: str, namespace: str, name: str) -> str:
    return f"{kind} {namespace}/{name}" if namespace else f"{kind} {name}"


# -- value checks (shared by the fast path and the explainer) ------------------------------


def label_problem(path: str, key: Any, value: Any) -> tuple[str, str] | None:
    """(field, message) if ``key: value`` is not a valid label, else None."""
    if not isinstance(key, str):
        return path, f"label key {key!r} is not a string"
    if not isinstance(value, str):
        return (
            f"{path}.{key}",
            f"label value must be a string, found {type(value).__name__} {value!r} "
            "(quote it in YAML)",
        )
    if errs := is_qualified_name(key):
        return path, f"invalid label key {key!r}: {'; '.join(errs)}"
    if errs := is_valid_label_value(value):
        return f"{path}.{key}", f"invalid label value {value!r}: {'; '.join(errs)}"
    return None


def name_problem(kind: str, name: Any) -> str | None:
    """Why ``name`` cannot be the ``metadata.name`` of a ``kind``, or None."""
    if not isinstance(name, str) or not name:
        return f"{kind} without metadata.name"
    what, rule = _NAME_RULES[kind]
    if rule is is_dns1123_subdomain and valid_dns1123_subdomain(name):
        return None
    if errs := rule(name):
        return f"invalid name {name!r}: must be {what}: {'; '.join(errs)}"
    return None


def namespace_problem(namespace: str) -> str | None:
    if errs := is_dns1123_label(namespace):
        return f"invalid namespace {namespace!r}: must be a DNS label: {'; '.join(errs)}"
    return None


def quantity_problem(value: Any) -> str | None:
    try:
        quantity_from_yaml(value)
    except ValueError as exc:
        return str(exc)
    return None


def mapping(ctx: Where, value: Any, path: str) -> Mapping[Any, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise ctx.error(path, f"expected a mapping, found {type(value).__name__}")
    return value


def listing(ctx: Where, value: Any, path: str) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise ctx.error(path, f"expected a list, found {type(value).__name__}")
    return value


def string(ctx: Where, value: Any, path: str, *, default: str = "") -> str:
    if value is None:
        return default
    if not isinstance(value, str):
        raise ctx.error(path, f"expected a string, found {type(value).__name__} {value!r}")
    return value


def label_map(ctx: Where, value: Any, path: str) -> dict[str, str]:
    """A label map (labels, service/RC selectors, matchLabels), validated."""
    out: dict[str, str] = {}
    for k, v in mapping(ctx, value, path).items():
        if problem := label_problem(path, k, v):
            raise ctx.error(*problem)
        out[k] = v
    return out


def label_selector(ctx: Where, value: Any, path: str) -> LabelSelector | None:
    """A ``metav1.LabelSelector`` as ``LabelSelectorAsSelector`` would accept it."""
    if value is None:
        return None
    sel = mapping(ctx, value, path)
    match_labels = label_map(ctx, sel.get("matchLabels"), f"{path}.matchLabels")
    exprs = []
    for i, e in enumerate(listing(ctx, sel.get("matchExpressions"), f"{path}.matchExpressions")):
        ep = f"{path}.matchExpressions[{i}]"
        e = mapping(ctx, e, ep)
        key = string(ctx, e.get("key"), f"{ep}.key")
        op = string(ctx, e.get("operator"), f"{ep}.operator")
        values = [string(ctx, v, f"{ep}.values") for v in listing(ctx, e.get("values"), ep)]
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


def map_selector(ctx: Where, value: Any) -> dict[str, str] | None:
    """``spec.selector`` of a Service or ReplicationController (None: absent)."""
    return None if value is None else label_map(ctx, value, "spec.selector")


# -- the explainer -------------------------------------------------------------------------


def _quantities(ctx: Where, value: Any, path: str) -> None:
    for name, q in mapping(ctx, value, path).items():
        if problem := quantity_problem(q):
            raise ctx.error(f"{path}.{name}", problem)


def _pod(ctx: Where, spec: Mapping[Any, Any], status: Mapping[Any, Any]) -> None:
    for group in ("initContainers", "containers"):
        for i, c in enumerate(listing(ctx, spec.get(group), f"spec.{group}")):
            c = mapping(ctx, c, f"spec.{group}[{i}]")
            res = mapping(ctx, c.get("resources"), f"spec.{group}[{i}].resources")
            for part in ("requests", "limits"):
                _quantities(ctx, res.get(part), f"spec.{group}[{i}].resources.{part}")
    _quantities(ctx, spec.get("overhead"), "spec.overhead")
    listing(ctx, spec.get("topologySpreadConstraints"), "spec.topologySpreadConstraints")
    string(ctx, spec.get("nodeName"), "spec.nodeName")
    string(ctx, status.get("phase"), "status.phase")
    string(ctx, status.get("nominatedNodeName"), "status.nominatedNodeName")


def _owner_references(ctx: Where, value: Any) -> None:
    for i, r in enumerate(listing(ctx, value, "metadata.ownerReferences")):
        p = f"metadata.ownerReferences[{i}]"
        r = mapping(ctx, r, p)
        controller = r.get("controller")
        if controller is not None and not isinstance(controller, bool):
            raise ctx.error(f"{p}.controller", f"expected true or false, found {controller!r}")
        for part in ("apiVersion", "kind", "name"):
            string(ctx, r.get(part), f"{p}.{part}")


def explain(obj: Mapping[Any, Any], kind: str, file: str, where: str) -> None:
    """Validate a parsed object of a kind kscore_fast reads; raise its first problem."""
    ctx = Where(file, where, kind)
    meta = mapping(ctx, obj.get("metadata"), "metadata")
    name = meta.get("name")
    if problem := name_problem(kind, name):
        raise ctx.error("metadata.name", problem)
    namespace = ""
    if kind != "Node":
        namespace = string(ctx, meta.get("namespace"), "metadata.namespace") or "default"
        if problem := namespace_problem(namespace):
            raise ctx.error("metadata.namespace", problem)
    ctx = Where(file, where, object_label(kind, namespace, name))
    label_map(ctx, meta.get("labels"), "metadata.labels")
    _owner_references(ctx, meta.get("ownerReferences"))
    spec = mapping(ctx, obj.get("spec"), "spec")
    status = mapping(ctx, obj.get("status"), "status")
    if kind == "Node":
        for part in ("allocatable", "capacity"):
            _quantities(ctx, status.get(part), f"status.{part}")
    elif kind == "Pod":
        _pod(ctx, spec, status)
    elif kind in ("Service", "ReplicationController"):
        map_selector(ctx, spec.get("selector"))
    else:
        label_selector(ctx, spec.get("selector"), "spec.selector")
