"""Scalar reference port of NodeAffinity, function by function from the Go source.

Mirrors, at kube-scheduler v1.23.6 / k8s.io v0.23.6:

* staging/src/k8s.io/component-helpers/scheduling/corev1/nodeaffinity/nodeaffinity.go:
  ``NewNodeSelector``, ``NewLazyErrorNodeSelector``, ``LazyErrorNodeSelector.Match``,
  ``NewPreferredSchedulingTerms``, ``PreferredSchedulingTerms.Score``,
  ``isEmptyNodeSelectorTerm``, ``extractNodeFields``, ``newNodeSelectorTerm``,
  ``nodeSelectorTerm.match``, ``nodeSelectorRequirementsAsSelector``,
  ``nodeSelectorRequirementsAsFieldSelector``, ``GetRequiredNodeAffinity``,
  ``RequiredNodeAffinity.Match``;
* staging/src/k8s.io/apimachinery/pkg/labels/selector.go: ``NewRequirement``,
  ``Requirement.Matches`` (with Gt/Lt), ``SelectorFromSet``;
  pkg/fields/selector.go: ``hasTerm``/``notHasTerm``/``andTerm`` ``Matches``;
  pkg/util/validation/field/errors.go and pkg/util/errors/errors.go: the texts of the
  parse errors (``Error.Error``, ``ErrorList.ToAggregate``, ``Flatten``,
  ``aggregate.Error``);
* pkg/scheduler/framework/plugins/nodeaffinity/node_affinity.go: ``New``, ``Filter``,
  ``PreScore``, ``Score``, ``NormalizeScore``;
* pkg/scheduler/framework/plugins/helper/normalize_score.go: ``DefaultNormalizeScore``.

It walks records (``NodeRecord``, ``PodRecord``), not columns, and is the specification
the kernels are tested against. Parse errors are kept as their Go message strings.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ...errors import ConfigError
from ...goarith import MAX_NODE_SCORE
from ...model.objects import (
    NodeAffinity,
    NodeRecord,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    PodRecord,
    PreferredSchedulingTerm,
)
from ...model.validation import is_qualified_name, is_valid_label_value

NAME = "NodeAffinity"
#: node_affinity.go ``ErrReasonPod``
ERR_REASON_POD = "node(s) didn't match Pod's node affinity/selector"
#: node_affinity.go ``errReasonEnforced``
ERR_REASON_ENFORCED = "node(s) didn't match scheduler-enforced node affinity"
#: metav1.ObjectNameField
OBJECT_NAME_FIELD = "metadata.name"

#: v1.NodeSelectorOperator → selection.Operator (nodeSelectorRequirementsAsSelector)
NODE_SELECTOR_OPERATORS = {
    "In": "in",
    "NotIn": "notin",
    "Exists": "exists",
    "DoesNotExist": "!",
    "Gt": "gt",
    "Lt": "lt",
}

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


# -- Go formatting of parse errors -------------------------------------------------------


def go_quote(s: str) -> str:
    """Go's ``strconv.Quote`` (``%q``) for a valid UTF-8 string."""
    out = ['"']
    named = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t",
             "\v": "\\v", '"': '\\"', "\\": "\\\\"}  # fmt: skip
    for c in s:
        o = ord(c)
        if c in named:
            out.append(named[c])
        elif c == " " or (c.isprintable() and not c.isspace()):
            out.append(c)
        elif o < 0x20 or o == 0x7F:
            out.append(f"\\x{o:02x}")
        elif o < 0x10000:
            out.append(f"\\u{o:04x}")
        else:
            out.append(f"\\U{o:08x}")
    out.append('"')
    return "".join(out)


def go_string_slice(values: Sequence[str]) -> str:
    """``%#v`` of a ``[]string`` (an empty list reads as the nil slice JSON decoding gives
    for an absent field)."""
    if not values:
        return "[]string(nil)"
    return "[]string{" + ", ".join(go_quote(v) for v in values) + "}"


def _invalid(path: str, bad: str, detail: str) -> str:
    """``field.Invalid(path, value, detail).Error()`` (``bad`` already formatted)."""
    return f"{path}: Invalid value: {bad}: {detail}"


def _child(path: str, name: str) -> str:
    """``Path.Child``: ``path.name`` (``name`` alone under a nil path)."""
    return f"{path}.{name}" if path else name


def aggregate_message(errs: Sequence[str]) -> str:
    """``errors.Flatten(errors.NewAggregate(errs)).Error()``: distinct messages in order,
    bracketed and comma-separated when there are several."""
    distinct = list(dict.fromkeys(errs))
    return distinct[0] if len(distinct) == 1 else "[" + ", ".join(distinct) + "]"


# -- labels.Requirement -------------------------------------------------------------------


def parse_int64(s: str) -> int | None:
    """``strconv.ParseInt(s, 10, 64)``: the value, or None on any error (syntax, range)."""
    body = s[1:] if s[:1] in ("+", "-") else s
    if not body or any(c not in "0123456789" for c in body):
        return None
    v = -int(body) if s[0] == "-" else int(body)
    return v if INT64_MIN <= v <= INT64_MAX else None


@dataclass(frozen=True)
class LabelRequirement:
    """``labels.Requirement`` built by ``NewRequirement`` (``op``: selection.Operator)."""

    key: str
    op: str
    values: tuple[str, ...]

    def matches(self, labels: Mapping[str, str]) -> bool:
        """``Requirement.Matches``."""
        if self.op in ("in", "=", "=="):
            return self.key in labels and labels[self.key] in self.values
        if self.op in ("notin", "!="):
            return self.key not in labels or labels[self.key] not in self.values
        if self.op == "exists":
            return self.key in labels
        if self.op == "!":
            return self.key not in labels
        if self.op in ("gt", "lt"):
            if self.key not in labels:
                return False
            ls_value = parse_int64(labels[self.key])
            if ls_value is None or len(self.values) != 1:
                return False
            r_value = parse_int64(self.values[0])
            if r_value is None:
                return False
            return ls_value > r_value if self.op == "gt" else ls_value < r_value
        return False


def new_requirement(key: str, op: str, values: Sequence[str], path: str
                    ) -> tuple[LabelRequirement, list[str]]:  # fmt: skip
    """``labels.NewRequirement`` with ``field.WithPath(path)``: the requirement and its
    error messages (``allErrs.ToAggregate()``, duplicates dropped)."""
    errs = []
    key_errs = is_qualified_name(key)
    if key_errs:
        errs.append(_invalid(_child(path, "key"), go_quote(key), "; ".join(key_errs)))
    value_path = _child(path, "values")
    detail = None
    if op in ("in", "notin") and not values:
        detail = "for 'in', 'notin' operators, values set can't be empty"
    elif op in ("exists", "!") and values:
        detail = "values set must be empty for exists and does not exist"
    elif op in ("gt", "lt") and len(values) != 1:
        detail = "for 'Gt', 'Lt' operators, exactly one value is required"
    if detail is not None:
        errs.append(_invalid(value_path, go_string_slice(values), detail))
    if op in ("gt", "lt"):
        detail = "for 'Gt', 'Lt' operators, the value must be an integer"
        errs += [_invalid(f"{value_path}[{i}]", go_quote(v), detail)
                 for i, v in enumerate(values) if parse_int64(v) is None]  # fmt: skip
    for i, v in enumerate(values):
        value_errs = is_valid_label_value(v)
        if value_errs:
            errs.append(_invalid(f"{value_path}[{i}][{key}]", go_quote(v), "; ".join(value_errs)))
    return LabelRequirement(key, op, tuple(values)), list(dict.fromkeys(errs))


# -- nodeSelectorTerm ---------------------------------------------------------------------


@dataclass(frozen=True)
class FieldTerm:
    """``fields.OneTermEqualSelector`` (``equal``) or ``OneTermNotEqualSelector``."""

    key: str
    value: str
    equal: bool

    def matches(self, fields: Mapping[str, str]) -> bool:
        return (fields.get(self.key, "") == self.value) == self.equal


@dataclass(frozen=True)
class ParsedTerm:
    """``nodeSelectorTerm``: ``match_labels``/``match_fields`` None when the term has no
    expressions/fields (Go's nil selectors); ``parse_errs`` the error messages."""

    match_labels: tuple[LabelRequirement, ...] | None
    match_fields: tuple[FieldTerm, ...] | None
    parse_errs: tuple[str, ...]

    def match(self, labels: Mapping[str, str], fields: Mapping[str, str]) -> tuple[bool, bool]:
        """``nodeSelectorTerm.match``: (matches, had parse errors)."""
        if self.parse_errs:
            return False, True
        if self.match_labels is not None and not all(r.matches(labels) for r in self.match_labels):
            return False, False
        if (
            self.match_fields is not None
            and fields
            and not all(f.matches(fields) for f in self.match_fields)
        ):
            return False, False
        return True, False


def node_selector_requirements_as_selector(
    nsm: Sequence[NodeSelectorRequirement], path: str
) -> tuple[tuple[LabelRequirement, ...], list[str]]:
    """``nodeSelectorRequirementsAsSelector`` (never called with an empty list here)."""
    errs: list[str] = []
    reqs = []
    for i, expr in enumerate(nsm):
        p = f"{path}[{i}]"
        op = NODE_SELECTOR_OPERATORS.get(expr.operator)
        if op is None:
            errs.append(f"{p}.operator: Unsupported value: {go_quote(expr.operator)}")
            continue
        r, r_errs = new_requirement(expr.key, op, expr.values, p)
        if r_errs:
            errs.extend(r_errs)
        else:
            reqs.append(r)
    return tuple(sorted(reqs, key=lambda r: r.key)), errs


def node_selector_requirements_as_field_selector(
    nsr: Sequence[NodeSelectorRequirement], path: str
) -> tuple[tuple[FieldTerm, ...], list[str]]:
    """``nodeSelectorRequirementsAsFieldSelector``."""
    errs: list[str] = []
    terms = []
    for i, expr in enumerate(nsr):
        p = f"{path}[{i}]"
        if expr.operator in ("In", "NotIn"):
            if len(expr.values) != 1:
                errs.append(
                    _invalid(f"{p}.values", go_string_slice(expr.values), "must have one element")
                )
            else:
                terms.append(FieldTerm(expr.key, expr.values[0], expr.operator == "In"))
        else:
            errs.append(f'{p}.operator: Unsupported value: {go_quote(expr.operator)}: '
                        'supported values: "In", "NotIn"')  # fmt: skip
    return tuple(terms), errs


def new_node_selector_term(term: NodeSelectorTerm, path: str) -> ParsedTerm:
    """``newNodeSelectorTerm``."""
    labels = fields = None
    errs: list[str] = []
    if term.match_expressions:
        labels, e = node_selector_requirements_as_selector(
            term.match_expressions, _child(path, "matchExpressions")
        )
        errs += e
    if term.match_fields:
        fields, e = node_selector_requirements_as_field_selector(
            term.match_fields, _child(path, "matchFields")
        )
        errs += e
    return ParsedTerm(labels, fields, tuple(errs))


def is_empty_node_selector_term(term: NodeSelectorTerm) -> bool:
    """``isEmptyNodeSelectorTerm``."""
    return not term.match_expressions and not term.match_fields


def extract_node_fields(node: NodeRecord) -> dict[str, str]:
    """``extractNodeFields``."""
    return {OBJECT_NAME_FIELD: node.name} if node.name else {}


# -- NodeSelector, PreferredSchedulingTerms ----------------------------------------------


def new_lazy_error_node_selector(terms: Sequence[NodeSelectorTerm], path: str = ""
                                 ) -> list[ParsedTerm]:  # fmt: skip
    """``NewLazyErrorNodeSelector``: empty terms are dropped (they select nothing)."""
    p = _child(path, "nodeSelectorTerms")
    return [
        new_node_selector_term(t, f"{p}[{i}]")
        for i, t in enumerate(terms)
        if not is_empty_node_selector_term(t)
    ]


def new_node_selector(terms: Sequence[NodeSelectorTerm], path: str = ""
                      ) -> tuple[list[ParsedTerm] | None, list[str]]:  # fmt: skip
    """``NewNodeSelector``: (terms, []), or (None, the error messages, flattened)."""
    lazy = new_lazy_error_node_selector(terms, path)
    errs = [e for t in lazy for e in t.parse_errs]
    return (None, errs) if errs else (lazy, [])


def lazy_match(terms: Sequence[ParsedTerm], node: NodeRecord) -> bool:
    """``LazyErrorNodeSelector.Match`` (its error is ignored by every caller here)."""
    labels, fields = node.labels, extract_node_fields(node)
    for t in terms:
        ok, failed = t.match(labels, fields)
        if failed:
            continue
        if ok:
            return True
    return False


def new_preferred_scheduling_terms(
    terms: Sequence[PreferredSchedulingTerm], path: str = ""
) -> tuple[list[tuple[ParsedTerm, int]] | None, list[str]]:
    """``NewPreferredSchedulingTerms``: zero weights and empty preferences are skipped;
    (terms, []), or (None, the error messages, flattened)."""
    errs: list[str] = []
    parsed = []
    for i, term in enumerate(terms):
        if term.weight == 0 or is_empty_node_selector_term(term.preference):
            continue
        t = new_node_selector_term(term.preference, f"{path}[{i}]")
        if t.parse_errs:
            errs += t.parse_errs
        else:
            parsed.append((t, term.weight))
    return (None, errs) if errs else (parsed, [])


def preferred_score(terms: Sequence[tuple[ParsedTerm, int]], node: NodeRecord) -> int:
    """``PreferredSchedulingTerms.Score``."""
    labels, fields = node.labels, extract_node_fields(node)
    return sum(w for t, w in terms if t.match(labels, fields)[0])


# -- RequiredNodeAffinity -----------------------------------------------------------------


@dataclass(frozen=True)
class RequiredNodeAffinity:
    """``RequiredNodeAffinity``: ``label_selector`` the pod's nodeSelector (None when
    empty), ``node_selector`` the lazy required terms (None when absent)."""

    label_selector: dict[str, str] | None
    node_selector: list[ParsedTerm] | None


def get_required_node_affinity(pod: PodRecord) -> RequiredNodeAffinity:
    """``GetRequiredNodeAffinity``."""
    selector = dict(pod.node_selector) if pod.node_selector else None
    affinity = None
    if pod.node_affinity is not None and pod.node_affinity.required is not None:
        affinity = new_lazy_error_node_selector(pod.node_affinity.required)
    return RequiredNodeAffinity(selector, affinity)


def required_match(rna: RequiredNodeAffinity, node: NodeRecord) -> bool:
    """``RequiredNodeAffinity.Match`` (``SelectorFromSet``: every pair present and equal)."""
    if rna.label_selector is not None and not all(
        k in node.labels and node.labels[k] == v for k, v in rna.label_selector.items()
    ):
        return False
    if rna.node_selector is not None:
        return lazy_match(rna.node_selector, node)
    return True


# -- the plugin ---------------------------------------------------------------------------


def default_normalize_score(max_priority: int, reverse: bool, scores: list[int]) -> list[int]:
    """helper.DefaultNormalizeScore (integer division truncating toward zero)."""
    max_count = 0
    for s in scores:
        if s > max_count:
            max_count = s
    if max_count == 0:
        return [max_priority] * len(scores) if reverse else list(scores)
    out = []
    for s in scores:
        num = max_priority * s
        q = abs(num) // max_count
        q = q if num >= 0 else -q
        out.append(max_priority - q if reverse else q)
    return out


class NodeAffinityReference:
    """The plugin (``New`` with ``addedAffinity``; ``None``: no added affinity)."""

    def __init__(self, added: NodeAffinity | None = None) -> None:
        self.added_node_selector: list[ParsedTerm] | None = None
        self.added_pref_terms: list[tuple[ParsedTerm, int]] | None = None
        if added is None:
            return
        errs: list[str] = []
        if added.required is not None:
            self.added_node_selector, e = new_node_selector(
                added.required, "addedAffinity.requiredDuringSchedulingIgnoredDuringExecution"
            )
            errs += e
        if added.preferred:
            self.added_pref_terms, e = new_preferred_scheduling_terms(
                added.preferred, "addedAffinity.preferredDuringSchedulingIgnoredDuringExecution"
            )
            errs += e
        if errs:  # getArgs: ValidateNodeAffinityArgs(nil, args) fails New
            raise ConfigError(aggregate_message(errs))

    def filter(self, pod: PodRecord, node: NodeRecord) -> str | None:
        """``Filter``: None when the node passes, else the reason (both failures are
        UnschedulableAndUnresolvable)."""
        if self.added_node_selector is not None and not lazy_match(self.added_node_selector, node):
            return ERR_REASON_ENFORCED
        if not required_match(get_required_node_affinity(pod), node):
            return ERR_REASON_POD
        return None

    @staticmethod
    def pre_score(pod: PodRecord) -> tuple[list[tuple[ParsedTerm, int]] | None, str | None]:
        """``PreScore`` / ``getPodPreferredNodeAffinity``: (the pod's parsed preferred terms
        or None, the message of the error PreScore returns or None)."""
        aff = pod.node_affinity
        if aff is None or not aff.preferred:
            return None, None
        terms, errs = new_preferred_scheduling_terms(aff.preferred)
        return terms, aggregate_message(errs) if errs else None

    def score(self, pod: PodRecord, node: NodeRecord) -> int:
        """``Score`` (for a pod whose PreScore succeeded)."""
        count = 0
        if self.added_pref_terms is not None:
            count += preferred_score(self.added_pref_terms, node)
        terms, _ = self.pre_score(pod)
        if terms is not None:
            count += preferred_score(terms, node)
        return count

    @staticmethod
    def normalize(scores: list[int]) -> list[int]:
        """``NormalizeScore``: ``DefaultNormalizeScore(MaxNodeScore, false, scores)``."""
        return default_normalize_score(MAX_NODE_SCORE, False, scores)

    def score_pod(self, pod: PodRecord, nodes: Sequence[NodeRecord]) -> tuple[list[int], list[int]]:
        """Raw scores of ``pod`` on ``nodes`` and their normalization over those nodes."""
        raw = [self.score(pod, n) for n in nodes]
        return raw, self.normalize(raw)
