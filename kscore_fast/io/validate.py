"""Located validation of parsed Kubernetes objects: what the API server would refuse.

Two users:

* the value checks (:func:`label_problem`, :func:`name_problem`, :func:`quantity_problem`,
  :func:`label_selector`, :func:`label_map`) are applied to every object read, by
  :mod:`kscore_fast.io.objects` (once per distinct value where it can);
* the checks of the scheduling fields of pods and nodes (:func:`port_problem`,
  :func:`toleration_problem`, :func:`taint_problem`, :func:`requirement_problem`, ...) take
  the typed structs and follow ``pkg/apis/core/validation`` (v1.23.6) for what kscore reads;
  each returns ``(field, message)``, the field relative to the value checked;
* :func:`explain` walks a parsed object (dicts and lists) field by field and raises the
  first problem, naming file, object and field. It runs when typed decoding
  (:mod:`kscore_fast.io.schema`) refused an object, to say why; a type it does not check
  field by field is explained from msgspec's error path (:func:`type_problem`).

Messages read ``<file>: <Kind> <namespace>/<name>: <field>: <what is wrong>``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import msgspec

from ..errors import InputError
from ..model.priority import PREEMPTION_POLICIES
from ..model.quantity import Quantity, quantity_from_yaml
from ..model.selectors import LABEL_SELECTOR_OPERATORS, LabelSelector
from ..model.validation import (
    is_dns1035_label,
    is_dns1123_label,
    is_dns1123_subdomain,
    is_qualified_name,
    is_valid_label_value,
    valid_dns1123_subdomain,
)
from . import schema

#: how the API server validates ``metadata.name`` of each kind kscore_fast reads
_NAME_RULES = {
    "Node": ("a DNS subdomain", is_dns1123_subdomain),
    "Pod": ("a DNS subdomain", is_dns1123_subdomain),
    "Service": ("a DNS-1035 label", is_dns1035_label),
    "ReplicationController": ("a DNS subdomain", is_dns1123_subdomain),
    "ReplicaSet": ("a DNS subdomain", is_dns1123_subdomain),
    "StatefulSet": ("a DNS subdomain", is_dns1123_subdomain),
    "Namespace": ("a DNS label", is_dns1123_label),
    "PriorityClass": ("a DNS subdomain", is_dns1123_subdomain),
    "PersistentVolumeClaim": ("a DNS subdomain", is_dns1123_subdomain),
    "PersistentVolume": ("a DNS subdomain", is_dns1123_subdomain),
    "StorageClass": ("a DNS subdomain", is_dns1123_subdomain),
    "PodDisruptionBudget": ("a DNS subdomain", is_dns1123_subdomain),
    "CSINode": ("a DNS subdomain", is_dns1123_subdomain),
    "CSIDriver": ("a DNS subdomain", is_dns1123_subdomain),
    "CSIStorageCapacity": ("a DNS subdomain", is_dns1123_subdomain),
}
#: the kinds read that have no namespace
CLUSTER_SCOPED = frozenset(("Node", "Namespace", "PriorityClass", "PersistentVolume",
                            "StorageClass", "CSINode", "CSIDriver"))  # fmt: skip
#: the fields of node and pod (anti-)affinity that hold terms
REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"
PREFERRED = "preferredDuringSchedulingIgnoredDuringExecution"
WHEN_UNSATISFIABLE = ("DoNotSchedule", "ScheduleAnyway")


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
    if not isinstance(key, str):  # YAML reads yes, no, on, off and digits otherwise
        return path, f"label key must be a string, found {found(key)} (quote it in YAML)"
    if not isinstance(value, str):
        return (
            f"{path}.{key}",
            f"label value must be a string, found {found(value)} (quote it in YAML)",
        )
    if errs := is_qualified_name(key):
        return path, f"invalid label key {key!r}: {'; '.join(errs)}"
    if errs := is_valid_label_value(value):
        return f"{path}.{key}", f"invalid label value {value!r}: {'; '.join(errs)}"
    return None


def found(value: Any) -> str:
    """What a value of the wrong type is, as a message shows it: ``bool True``."""
    return f"{type(value).__name__} {value!r}"


def name_problem(kind: str, name: Any) -> str | None:
    """Why ``name`` cannot be the ``metadata.name`` of a ``kind``, or None."""
    if name is not None and not isinstance(name, str):
        return f"must be a string, found {found(name)} (quote it in YAML)"
    if not name:
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


def resource_quantity(value: Any) -> Quantity:
    """A quantity of a resource list (requests, limits, overhead, allocatable, capacity)
    as the API server accepts it: parsed as Go parses it, and not negative
    (``ValidateResourceQuantityValue``). Raises ValueError."""
    q = quantity_from_yaml(value)
    if q.unscaled < 0:
        raise ValueError(f"invalid quantity {_shown(value)}: must be greater than or equal to 0")
    return q


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def quantity_problem(value: Any) -> str | None:
    try:
        resource_quantity(value)
    except ValueError as exc:
        return str(exc)
    return None


def resource_name_problem(name: Any) -> str | None:
    """A resource list's key must be a string (YAML may give a number)."""
    if isinstance(name, str):
        return None
    return f"resource name must be a string, found {found(name)}"


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
    """A parsed ``metav1.LabelSelector`` as ``LabelSelectorAsSelector`` would accept it."""
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
        values = tuple(string(ctx, v, f"{ep}.values") for v in listing(ctx, e.get("values"), ep))
        if problem := selector_requirement_problem(key, op, values):
            raise ctx.error(f"{ep}.{problem[0]}", problem[1])
        exprs.append((key, op, values))
    return LabelSelector(tuple(match_labels.items()), tuple(exprs))


def typed_label_selector(ctx: Where, sel: schema.LabelSelector, path: str) -> LabelSelector:
    """:func:`label_selector` of a decoded selector (the structs checked the types)."""
    match_labels = sel.match_labels or {}
    for k, v in match_labels.items():
        if problem := label_problem(f"{path}.matchLabels", k, v):
            raise ctx.error(*problem)
    exprs = []
    for i, e in enumerate(sel.match_expressions or ()):
        key, op, values = (e.key or "", e.operator or "", e.values or ()) if e else ("", "", ())
        if problem := selector_requirement_problem(key, op, values):
            raise ctx.error(f"{path}.matchExpressions[{i}].{problem[0]}", problem[1])
        exprs.append((key, op, values))
    return LabelSelector(tuple(match_labels.items()), tuple(exprs))


def selector_requirement_problem(key: str, op: str, values: tuple[str, ...]) -> Problem | None:
    """A ``LabelSelectorRequirement`` as ``LabelSelectorAsSelector`` accepts it."""
    if errs := is_qualified_name(key):
        return "key", f"invalid label key {key!r}: {'; '.join(errs)}"
    if op not in LABEL_SELECTOR_OPERATORS:
        return "operator", (f'"{op}" is not a valid pod selector operator '
                            f"(expected one of {', '.join(LABEL_SELECTOR_OPERATORS)})")  # fmt: skip
    if op in ("In", "NotIn") and not values:
        return "values", f"operator {op} needs at least one value"
    if op in ("Exists", "DoesNotExist") and values:
        return "values", f"operator {op} takes no values"
    for v in values:
        if errs := is_valid_label_value(v):
            return "values", f"invalid label value {v!r}: {'; '.join(errs)}"
    return None


def map_selector(ctx: Where, value: Any) -> dict[str, str] | None:
    """``spec.selector`` of a Service or ReplicationController (None: absent)."""
    return None if value is None else label_map(ctx, value, "spec.selector")


# -- the explainer -------------------------------------------------------------------------


def _quantities(ctx: Where, value: Any, path: str) -> None:
    for name, q in mapping(ctx, value, path).items():
        if problem := resource_name_problem(name):
            raise ctx.error(path, problem)
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
    path = "spec.topologySpreadConstraints"
    for i, c in enumerate(listing(ctx, spec.get("topologySpreadConstraints"), path)):
        label_selector(ctx, mapping(ctx, c, f"{path}[{i}]").get("labelSelector"),
                       f"{path}[{i}].labelSelector")  # fmt: skip
    affinity = mapping(ctx, spec.get("affinity"), "spec.affinity")
    for part in ("podAffinity", "podAntiAffinity"):
        _pod_affinity_selectors(ctx, affinity.get(part), f"spec.affinity.{part}")
    string(ctx, spec.get("nodeName"), "spec.nodeName")
    label_map(ctx, spec.get("nodeSelector"), "spec.nodeSelector")
    string(ctx, status.get("phase"), "status.phase")
    string(ctx, status.get("nominatedNodeName"), "status.nominatedNodeName")


def _pod_affinity_selectors(ctx: Where, value: Any, path: str) -> None:
    """The label selectors of a parsed ``podAffinity`` or ``podAntiAffinity``."""
    value = mapping(ctx, value, path)
    terms = [
        (f"{path}.{REQUIRED}[{i}]", t)
        for i, t in enumerate(listing(ctx, value.get(REQUIRED), f"{path}.{REQUIRED}"))
    ]
    for i, w in enumerate(listing(ctx, value.get(PREFERRED), f"{path}.{PREFERRED}")):
        at = f"{path}.{PREFERRED}[{i}].podAffinityTerm"
        terms.append((at, mapping(ctx, w, f"{path}.{PREFERRED}[{i}]").get("podAffinityTerm")))
    for at, term in terms:
        term = mapping(ctx, term, at)
        for part in ("labelSelector", "namespaceSelector"):
            label_selector(ctx, term.get(part), f"{at}.{part}")  # fmt: skip


def _owner_references(ctx: Where, value: Any) -> None:
    for i, r in enumerate(listing(ctx, value, "metadata.ownerReferences")):
        p = f"metadata.ownerReferences[{i}]"
        r = mapping(ctx, r, p)
        controller = r.get("controller")
        if controller is not None and not isinstance(controller, bool):
            raise ctx.error(f"{p}.controller", f"expected true or false, found {controller!r}")
        for part in ("apiVersion", "kind", "name"):
            string(ctx, r.get(part), f"{p}.{part}")


def explain(obj: Mapping[Any, Any], kind: str, file: str, where: str,
            refused: msgspec.ValidationError | None = None) -> None:  # fmt: skip
    """Validate a parsed object of a kind kscore_fast reads; raise its first problem, or,
    when none is found and the structs ``refused`` it, the type msgspec refused."""
    ctx = Where(file, where, kind)
    meta = mapping(ctx, obj.get("metadata"), "metadata")
    name = meta.get("name")
    if problem := name_problem(kind, name):
        raise ctx.error("metadata.name", problem)
    namespace = ""
    if kind not in CLUSTER_SCOPED:
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
    elif kind != "Namespace":
        label_selector(ctx, spec.get("selector"), "spec.selector")
    if refused is not None:
        raise ctx.error(*type_problem(obj, refused))


_REFUSED = re.compile(r"(.*) - at `\$((?:\.\w+|\[\d+\]|\[\.\.\.\])*)`", re.S)
_STEP = re.compile(r"\.(\w+)|\[(\d+)\]|\[\.\.\.\]")
_EXPECTED = re.compile(r"Expected `([^`]*)`, got `[^`]*`")
_TYPE_WORDS = {"int": "an integer", "str": "a string", "bool": "true or false",
               "array": "a list", "object": "a mapping", "float": "a number"}  # fmt: skip


def type_problem(obj: Any, exc: msgspec.ValidationError) -> tuple[str | None, str]:
    """(field, message) of a value the typed structs refused, from msgspec's error path
    (``Expected `int | null`, got `str` - at `$.spec.priority```)."""
    m = _REFUSED.fullmatch(str(exc))
    if m is None:
        return None, str(exc)
    message, path = m.groups()
    value, found = obj, True
    for step in _STEP.finditer(path):
        name, index = step.groups()
        if name is not None and isinstance(value, Mapping) and name in value:
            value = value[name]
        elif index is not None and isinstance(value, list) and int(index) < len(value):
            value = value[int(index)]
        else:  # a mapping's key ([...]): the value is not named
            found = False
            break
    expected = _EXPECTED.fullmatch(message)
    if expected:
        words = [_TYPE_WORDS.get(t, t) for t in expected[1].split(" | ") if t != "null"]
        message = f"expected {' or '.join(words)}"
        if found:
            message += f", found {type(value).__name__} {_shown(value)}"
            if words == ["a string"] and isinstance(value, int | float):
                message += " (quote it in YAML)"
    return path.lstrip(".").replace("[...]", "") or None, message


# -- the scheduling fields of pods and nodes (typed; pkg/apis/core/validation) -------------

#: ``(field, message)``, the field relative to the value checked
Problem = tuple[str, str]
TAINT_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")
PROTOCOLS = ("TCP", "UDP", "SCTP")
NODE_SELECTOR_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt")
INT32 = (-(1 << 31), (1 << 31) - 1)
INT64 = (-(1 << 63), (1 << 63) - 1)
_GO_INT = re.compile(r"[+-]?[0-9]+")


def _unsupported(what: str, value: str, allowed: tuple[str, ...]) -> str:
    return f'unsupported {what} "{value}" (expected one of {", ".join(allowed)})'


def _key_problem(key: str) -> Problem | None:
    """``ValidateLabelName``: a qualified name, as a label key."""
    if errs := is_qualified_name(key):
        return "key", f"invalid key {key!r}: {'; '.join(errs)}"
    return None


def _value_problem(value: str) -> Problem | None:
    if errs := is_valid_label_value(value):
        return "value", f"invalid value {value!r}: {'; '.join(errs)}"
    return None


def integer_problem(field: str, value: int | None, bounds: tuple[int, int]) -> Problem | None:
    """An integer field of Go type int32 or int64 (``bounds``) holds ``value``."""
    if value is None or bounds[0] <= value <= bounds[1]:
        return None
    bits = 32 if bounds == INT32 else 64
    return field, f"must fit a {bits}-bit integer ({bounds[0]} to {bounds[1]}), found {value}"


def pod_priority_problem(spec: schema.Spec) -> Problem | None:
    """``spec.priorityClassName`` (``ValidatePriorityClassName``: a DNS subdomain) and
    ``spec.preemptionPolicy`` (``ValidatePreemptionPolicy``)."""
    name, policy = spec.priority_class_name, spec.preemption_policy
    if name and (errs := is_dns1123_subdomain(name)):
        return "priorityClassName", (f"invalid PriorityClass name {name!r}: must be a DNS "
                                     f"subdomain: {'; '.join(errs)}")  # fmt: skip
    return None if policy is None else preemption_policy_problem("preemptionPolicy", policy)


def preemption_policy_problem(path: str, policy: str) -> Problem | None:
    """``ValidatePreemptionPolicy``: a supported value."""
    if policy in PREEMPTION_POLICIES:
        return None
    if not policy:
        return path, "must not be empty (PreemptLowerPriority or Never)"
    return path, _unsupported("preemptionPolicy", policy, PREEMPTION_POLICIES)


def port_problem(p: schema.Port) -> Problem | None:
    """``validateContainerPorts`` (after defaulting: an empty protocol is TCP)."""
    port = p.container_port or 0
    if not 1 <= port <= 65535:
        return "containerPort", f"must be a port number between 1 and 65535, found {port}"
    host = p.host_port or 0
    if not 0 <= host <= 65535:
        return "hostPort", f"must be 0 (none) or a port number up to 65535, found {host}"
    protocol = p.protocol or "TCP"
    if protocol not in PROTOCOLS:
        return "protocol", _unsupported("protocol", protocol, PROTOCOLS)
    return None


def weight_problem(weight: int | None) -> Problem | None:
    """The weight of a preferred node or pod affinity term."""
    if not 1 <= (weight or 0) <= 100:
        return "weight", f"must be in the range 1-100, found {weight or 0}"
    return None


def spread_constraint_problem(c: schema.SpreadConstraint) -> Problem | None:
    """``validateTopologySpreadConstraints`` for one constraint (its label selector and
    repeated constraints are checked by the caller). As in v1.23.6, ``topologyKey`` need
    not be a label key (a key no node has then makes no topology domain)."""
    skew = c.max_skew or 0
    if problem := integer_problem("maxSkew", skew, INT32):
        return problem
    if skew <= 0:
        return "maxSkew", f"must be greater than zero, found {skew}"
    if not c.topology_key:
        return "topologyKey", "required: the node label key of the topology domains"
    when = c.when_unsatisfiable or ""
    if when not in WHEN_UNSATISFIABLE:
        if not when:
            return "whenUnsatisfiable", f"required: one of {', '.join(WHEN_UNSATISFIABLE)}"
        return "whenUnsatisfiable", _unsupported("whenUnsatisfiable", when, WHEN_UNSATISFIABLE)
    return None


def affinity_term_problem(t: schema.PodAffinityTerm) -> Problem | None:
    """``validatePodAffinityTerm`` but for its label selectors (checked by the caller)."""
    for j, namespace in enumerate(t.namespaces or ()):
        if problem := namespace_problem(namespace):
            return f"namespaces[{j}]", problem
    key = t.topology_key or ""
    if not key:
        return "topologyKey", "required: the node label key of the topology domains"
    if errs := is_qualified_name(key):
        return "topologyKey", f"invalid topology key {key!r}: {'; '.join(errs)}"
    return None


def taint_problem(t: schema.Taint) -> Problem | None:
    """``validateNodeTaints`` for one taint (uniqueness is checked by the caller)."""
    effect = t.effect or ""
    problem = _key_problem(t.key or "") or _value_problem(t.value or "")
    if problem is None and effect not in TAINT_EFFECTS:
        if not effect:
            return "effect", f"required: one of {', '.join(TAINT_EFFECTS)}"
        return "effect", _unsupported("taint effect", effect, TAINT_EFFECTS)
    return problem


def toleration_problem(t: schema.Toleration) -> Problem | None:
    """``ValidateTolerations`` for one toleration."""
    key, op, value, effect = t.key or "", t.operator or "", t.value or "", t.effect or ""
    if key and (problem := _key_problem(key)):
        return problem
    if not key and op != "Exists":
        return "operator", "must be Exists when key is empty (which tolerates every taint)"
    if t.toleration_seconds is not None:
        if effect != "NoExecute":
            return "effect", "must be NoExecute when tolerationSeconds is set"
        if problem := integer_problem("tolerationSeconds", t.toleration_seconds, INT64):
            return problem
    if op in ("", "Equal"):
        if problem := _value_problem(value):
            return problem
    elif op == "Exists":
        if value:
            return "value", f"must be empty when operator is Exists, found {value!r}"
    else:
        return "operator", _unsupported("toleration operator", op, ("Equal", "Exists"))
    if effect and effect not in TAINT_EFFECTS:
        return "effect", _unsupported("taint effect", effect, TAINT_EFFECTS)
    return None


def requirement_problem(r: schema.Requirement) -> Problem | None:
    """``ValidateNodeSelectorRequirement`` (a ``matchExpressions`` entry), and for Gt/Lt
    the integer ``labels.NewRequirement`` parses (``strconv.ParseInt(v, 10, 64)``)."""
    op, values = r.operator or "", r.values or ()
    if op in ("In", "NotIn"):
        if not values:
            return "values", f"operator {op} needs at least one value"
    elif op in ("Exists", "DoesNotExist"):
        if values:
            return "values", f"operator {op} takes no values"
    elif op in ("Gt", "Lt"):
        if len(values) != 1:
            return "values", f"operator {op} takes exactly one value, found {len(values)}"
        if not _go_int64(values[0]):
            return "values[0]", f"operator {op} needs an integer, found {values[0]!r}"
    else:
        return "operator", (f'"{op}" is not a valid node selector operator '
                            f"(expected one of {', '.join(NODE_SELECTOR_OPERATORS)})")  # fmt: skip
    return _key_problem(r.key or "")


def field_requirement_problem(r: schema.Requirement) -> Problem | None:
    """``ValidateNodeFieldSelectorRequirement`` (a ``matchFields`` entry)."""
    op, values, key = r.operator or "", r.values or (), r.key or ""
    if op not in ("In", "NotIn"):
        return "operator", f'"{op}" is not a valid field selector operator (expected In or NotIn)'
    if len(values) != 1:
        n = len(values)
        return "values", f"operator {op} of a field selector takes exactly one value, found {n}"
    if key != "metadata.name":
        return "key", f'"{key}" is not a valid field selector key (expected metadata.name)'
    if errs := is_dns1123_subdomain(values[0]):
        return "values[0]", f"invalid node name {values[0]!r}: {'; '.join(errs)}"
    return None


def _go_int64(text: str) -> bool:
    if not _GO_INT.fullmatch(text):
        return False
    digits = text.lstrip("+-").lstrip("0") or "0"
    magnitude = int(digits) if len(digits) <= 19 else 1 << 64
    return INT64[0] <= (-magnitude if text[0] == "-" else magnitude) <= INT64[1]
