"""NodeAffinity: nodeSelector and node affinity (Filter), preferred terms (Score).

Wiring of pkg/scheduler/framework/plugins/nodeaffinity/node_affinity.go onto the compiled
plugin shape (``framework/interface.py``). ``prepare`` parses every pending pod's
nodeSelector, required and preferred terms with the reference port's parser (Go's
semantics and error texts: a required term that fails to parse matches nothing, preferred
terms that fail make the pod's PreScore fail), declares the label keys they and the args'
terms mention, projects the node labels of those keys into a
:class:`~kscore_fast.model.selectors.SelectorSpace` (plus each value parsed as an int64
for Gt/Lt), and compiles terms into the requirement tables of ``kernels`` (layout in its
docstring). Compiling a requirement on a key outside the declared ones raises
:class:`~kscore_fast.model.labels.UndeclaredLabelKey`. Equal terms, selectors and
(nodeSelector, required affinity) pairs are compiled once; ``filter_key`` is the pair's
group.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from ...errors import ConfigError
from ...framework.cluster_events import ADD, NODE, UPDATE_NODE_LABEL, events
from ...framework.interface import Plugin
from ...model.labels import ABSENT, LabelInterner, LabelTable
from ...model.objects import NodeAffinity as NodeAffinityRecord
from ...model.objects import (
    NodeSelectorRequirement,
    NodeSelectorTerm,
    PodRecord,
    PreferredSchedulingTerm,
)
from ...model.selectors import IN, Requirement, SelectorSpace
from ...model.snapshot import ClusterSnapshot, PodBatch, spec_representatives
from ..helper.pod_fields import NODE_AFFINITY
from ..helper.twins import expand_rows
from . import kernels as k
from .reference import (
    ERR_REASON_ENFORCED,
    ERR_REASON_POD,
    NAME,
    OBJECT_NAME_FIELD,
    NodeAffinityReference,
    ParsedTerm,
    get_required_node_affinity,
    parse_int64,
)

_LABEL_OPS = {"in": k.OP_IN, "notin": k.OP_NOT_IN, "exists": k.OP_EXISTS,
              "!": k.OP_DOES_NOT_EXIST, "gt": k.OP_GT, "lt": k.OP_LT}  # fmt: skip
_REASONS = {k.FAIL_ENFORCED: [ERR_REASON_ENFORCED], k.FAIL_POD: [ERR_REASON_POD]}
_NODE_LABELS = "NodeAffinity.node_labels"


# -- args ---------------------------------------------------------------------------------


def _list(obj: Any, where: str) -> list:
    if obj is None:
        return []
    if not isinstance(obj, list | tuple):
        raise ConfigError(f"{where}: expected a list, got {type(obj).__name__}")
    return list(obj)


def _mapping(obj: Any, where: str) -> Mapping:
    if not isinstance(obj, Mapping):
        raise ConfigError(f"{where}: expected an object, got {type(obj).__name__}")
    return obj


def _string(obj: Any, where: str) -> str:
    if obj is None:
        return ""
    if not isinstance(obj, str):
        raise ConfigError(f"{where}: expected a string, got {type(obj).__name__}")
    return obj


def _requirements(obj: Any, where: str) -> tuple[NodeSelectorRequirement, ...]:
    out = []
    for i, r in enumerate(_list(obj, where)):
        r = _mapping(r, f"{where}[{i}]")
        values = _list(r.get("values"), f"{where}[{i}].values")
        out.append(NodeSelectorRequirement(
            _string(r.get("key"), f"{where}[{i}].key"),
            _string(r.get("operator"), f"{where}[{i}].operator"),
            tuple(_string(v, f"{where}[{i}].values[{j}]") for j, v in enumerate(values)),
        ))  # fmt: skip
    return tuple(out)


def _term(obj: Any, where: str) -> NodeSelectorTerm:
    obj = _mapping(obj, where)
    return NodeSelectorTerm(
        _requirements(obj.get("matchExpressions"), f"{where}.matchExpressions"),
        _requirements(obj.get("matchFields"), f"{where}.matchFields"),
    )


def added_affinity(args: Mapping[str, Any] | None) -> NodeAffinityRecord | None:
    """``NodeAffinityArgs.addedAffinity`` (camelCase, as in KubeSchedulerConfiguration) as
    a record; None when absent (the v1beta3 default)."""
    obj = (args or {}).get("addedAffinity")
    if obj is None:
        return None
    where = "addedAffinity"
    obj = _mapping(obj, where)
    req_key, pref_key = (
        "requiredDuringSchedulingIgnoredDuringExecution",
        "preferredDuringSchedulingIgnoredDuringExecution",
    )
    required = None
    if obj.get(req_key) is not None:
        ns = _mapping(obj[req_key], f"{where}.{req_key}")
        terms = _list(ns.get("nodeSelectorTerms"), f"{where}.{req_key}.nodeSelectorTerms")
        required = tuple(
            _term(t, f"{where}.{req_key}.nodeSelectorTerms[{i}]") for i, t in enumerate(terms)
        )
    preferred = []
    for i, p in enumerate(_list(obj.get(pref_key), f"{where}.{pref_key}")):
        p = _mapping(p, f"{where}.{pref_key}[{i}]")
        weight = p.get("weight", 0)
        if isinstance(weight, bool) or not isinstance(weight, int):
            raise ConfigError(f"{where}.{pref_key}[{i}].weight: expected an integer")
        preference = p.get("preference")
        term = NodeSelectorTerm() if preference is None else (
            _term(preference, f"{where}.{pref_key}[{i}].preference"))  # fmt: skip
        preferred.append(PreferredSchedulingTerm(weight, term))
    return NodeAffinityRecord(required, tuple(preferred))


# -- compilation --------------------------------------------------------------------------


def _label_keys(terms: Iterable[ParsedTerm]) -> set[str]:
    return {r.key for t in terms if not t.parse_errs for r in t.match_labels or ()}


def _mentioned(terms: Iterable[ParsedTerm]) -> list[Requirement]:
    return [
        Requirement(r.key, IN, r.values)
        for t in terms
        if not t.parse_errs
        for r in t.match_labels or ()
        if r.op in ("in", "notin")
    ]


class _Tables:
    """Requirement, term and selector tables (``kernels`` layout), built incrementally
    with equal terms and selectors compiled once."""

    def __init__(self, space: SelectorSpace, node_index: Mapping[str, int]) -> None:
        self.space, self.node_index = space, node_index
        self.op: list[int] = []
        self.col: list[int] = []
        self.num: list[int] = []
        self.vptr, self.vals = [0], []
        self.term_ptr, self.sel_ptr, self.sel_term = [0], [0], []
        self._terms: dict[Any, int] = {}
        self._sels: dict[tuple[int, ...], int] = {}

    def _req(self, op: int, col: int = 0, num: int = 0, vals: Iterable[int] = ()) -> None:
        self.op.append(op)
        self.col.append(col)
        self.num.append(num)
        self.vals.extend(vals)
        self.vptr.append(len(self.vals))

    def _field(self, key: str, value: str, equal: bool) -> None:
        if key == OBJECT_NAME_FIELD:
            target = self.node_index.get(value, -1)
            self._req(k.OP_FIELD_EQ if equal else k.OP_FIELD_NE, num=target)
        else:  # fields.Set.Get of any other key is "": a constant
            holds = (value == "") == equal
            self._req(k.OP_FIELD_NE if holds else k.OP_FIELD_EQ, num=-1)

    def _memo(self, key: Any, compile_reqs: Any) -> int:
        tid = self._terms.get(key)
        if tid is None:
            compile_reqs()
            self.term_ptr.append(len(self.op))
            tid = self._terms[key] = len(self.term_ptr) - 2
        return tid

    def map_term(self, selector: Mapping[str, str]) -> int:
        """A nodeSelector (``SelectorFromSet``: one ``=`` per pair) → its term id."""

        def reqs() -> None:
            for key, v in selector.items():
                self._req(k.OP_IN, self.space.column(key), vals=[self.space.local(key, v)])

        return self._memo(("nodeSelector", *sorted(selector.items())), reqs)

    def term(self, t: ParsedTerm) -> int:
        """A parsed ``nodeSelectorTerm`` → its term id."""

        def reqs() -> None:
            if t.parse_errs:
                self._req(k.OP_NEVER)
                return
            for r in t.match_labels or ():
                col = self.space.column(r.key)
                if r.op in ("gt", "lt"):
                    self._req(_LABEL_OPS[r.op], col, num=parse_int64(r.values[0]))
                elif r.op in ("in", "notin"):
                    local = [self.space.local(r.key, v) for v in r.values]
                    self._req(_LABEL_OPS[r.op], col, vals=local)
                else:
                    self._req(_LABEL_OPS[r.op], col)
            for f in t.match_fields or ():
                self._field(f.key, f.value, f.equal)

        return self._memo(t, reqs)

    def selector(self, terms: Sequence[ParsedTerm]) -> int:
        ids = tuple(self.term(t) for t in terms)
        sid = self._sels.get(ids)
        if sid is None:
            self.sel_term.extend(ids)
            self.sel_ptr.append(len(self.sel_term))
            sid = self._sels[ids] = len(self.sel_ptr) - 2
        return sid

    def arrays(self) -> tuple[np.ndarray, ...]:
        i64 = np.int64
        return (
            np.asarray(self.op, np.int8), np.asarray(self.col, np.int32),
            np.asarray(self.num, i64), np.asarray(self.vptr, i64),
            np.asarray(self.vals, np.int32), np.asarray(self.term_ptr, i64),
            np.asarray(self.sel_ptr, i64), np.asarray(self.sel_term, i64),
        )  # fmt: skip


def _node_labels(snapshot: ClusterSnapshot) -> tuple[LabelTable, np.ndarray, np.ndarray,
                                                     np.ndarray]:  # fmt: skip
    """The nodes' label table over their own interner (the snapshot's is left alone);
    per interned value (and one past them: absent), ``strconv.ParseInt(v, 10, 64)`` and
    whether it succeeded; whether each node has a name; once per snapshot."""
    cached = snapshot.cache.get(_NODE_LABELS)
    if cached is None:
        interner = LabelInterner()
        table = interner.table(snapshot.node_labels)
        parsed = [parse_int64(v) for v in interner.values]
        ok_of = np.array([v is not None for v in parsed] + [False], dtype=np.bool_)
        int_of = np.array([v or 0 for v in parsed] + [0], dtype=np.int64)
        node_named = np.array([bool(n) for n in snapshot.node_names], dtype=np.bool_)
        cached = snapshot.cache[_NODE_LABELS] = (table, int_of, ok_of, node_named)
    return cached


def _node_columns(snapshot: ClusterSnapshot, space: SelectorSpace) -> tuple[np.ndarray, ...]:
    """(node_vals, node_int, node_int_ok, node_named) over the space's keys, kept on the
    snapshot per space (never written: the plugin has no ``assume``)."""
    return snapshot.kept((NAME, "node columns"), space.signature,
                         lambda: _build_node_columns(snapshot, space))  # fmt: skip


def _build_node_columns(snapshot: ClusterSnapshot, space: SelectorSpace
                        ) -> tuple[np.ndarray, ...]:  # fmt: skip
    table, int_of, ok_of, node_named = _node_labels(snapshot)
    columns = table.columns(space.keys)
    node_vals = np.ascontiguousarray(space.project(columns), dtype=np.int32)
    ids = np.where(columns.values == ABSENT, len(int_of) - 1, columns.values)
    return node_vals, int_of[ids], ok_of[ids], node_named


class _Parsed:
    """Every pending pod's terms parsed (reference parser), equal affinities once."""

    def __init__(self, ref: NodeAffinityReference, pods: Sequence[PodRecord]) -> None:
        self.required: list[tuple[dict[str, str] | None, list[ParsedTerm] | None]] = []
        self.preferred: list[list[tuple[ParsedTerm, int]]] = []
        self.errors: dict[int, str] = {}
        memo: dict[Any, tuple] = {}
        for p, pod in enumerate(pods):
            parsed = memo.get(pod.node_affinity)
            if parsed is None:
                parsed = memo[pod.node_affinity] = (
                    get_required_node_affinity(pod).node_selector,
                    *ref.pre_score(pod),
                )
            self.required.append((dict(pod.node_selector) or None, parsed[0]))
            self.preferred.append(parsed[1] or [])
            if parsed[2] is not None:
                self.errors[p] = parsed[2]
        self.added_required = ref.added_node_selector
        self.added_preferred = ref.added_pref_terms or []

    def terms(self) -> list[ParsedTerm]:
        out = [t for _, req in self.required for t in req or ()]
        out += [t for prefs in (*self.preferred, self.added_preferred) for t, _ in prefs]
        return out + list(self.added_required or ())

    def space(self) -> SelectorSpace:
        """The declared keys (every key a term or a nodeSelector mentions) and values."""
        terms = self.terms()
        selectors = [sel for sel, _ in self.required if sel]
        keys = _label_keys(terms) | {key for sel in selectors for key in sel}
        mentioned = _mentioned(terms)
        mentioned += [Requirement(key, IN, (v,)) for sel in selectors for key, v in sel.items()]
        return SelectorSpace(sorted(keys), mentioned)


def _pref_rows(tables: _Tables, rows: Sequence[Sequence[tuple[ParsedTerm, int]]]
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
    """CSR of (term id, weight) rows."""
    ptr = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum([len(r) for r in rows], out=ptr[1:])
    term = np.array([tables.term(t) for r in rows for t, _ in r], dtype=np.int64)
    weight = np.array([w for r in rows for _, w in r], dtype=np.int64)
    return ptr, term.reshape(-1), weight.reshape(-1)


def build_state(ref: NodeAffinityReference, snapshot: ClusterSnapshot, batch: PodBatch
                ) -> tuple[tuple, dict[int, str]]:  # fmt: skip
    """The kernels' state and the pods whose PreScore fails (pod → Go's message); the
    per-pod rows are built for one pod of each group of twins."""
    reps, twins = spec_representatives(batch)
    parsed = _Parsed(ref, reps)
    space = parsed.space()
    tables = _Tables(space, snapshot.node_index)
    groups: dict[Any, int] = {}
    rep_group = np.empty(len(reps), dtype=np.int64)
    grp_map_term, grp_sel = [], []
    for p, pod in enumerate(reps):
        aff = pod.node_affinity
        key = (tuple(sorted(pod.node_selector.items())), None if aff is None else aff.required)
        g = groups.get(key)
        if g is None:
            g = groups[key] = len(grp_sel)
            selector, required = parsed.required[p]
            grp_map_term.append(-1 if selector is None else tables.map_term(selector))
            grp_sel.append(-1 if required is None else tables.selector(required))
        rep_group[p] = g
    added_sel = -1 if parsed.added_required is None else tables.selector(parsed.added_required)
    ptr, term, weight = _pref_rows(tables, parsed.preferred)
    pod_ptr, take = expand_rows(ptr, twins)
    _, added_term, added_weight = _pref_rows(tables, [parsed.added_preferred])
    state = (
        *_node_columns(snapshot, space), *tables.arrays(), rep_group[twins],
        np.asarray(grp_map_term, np.int64), np.asarray(grp_sel, np.int64),
        np.int64(added_sel), pod_ptr, term[take], weight[take], added_term, added_weight,
    )  # fmt: skip
    errors = {}
    if parsed.errors:
        errors = {i: parsed.errors[t] for i, t in enumerate(twins.tolist()) if t in parsed.errors}
    return state, errors


class NodeAffinity(Plugin):
    """The NodeAffinity plugin (PreFilter+Filter, PreScore+Score+NormalizeScore).

    ``args``: ``NodeAffinityArgs`` as the camelCase mapping (``{"addedAffinity": {...}}``);
    an ``addedAffinity`` whose terms fail to parse is a :class:`ConfigError` (Go's ``New``
    fails), with Go's message.
    """

    name = NAME
    #: what ``prepare`` reads of a pod (a lone pod's state is kept by them)
    lone_fields = NODE_AFFINITY
    events_to_register = events((NODE, ADD | UPDATE_NODE_LABEL))
    filters = True
    scores = True
    normalizes = True
    #: its interfaces in v1.23.6 (pkg/scheduler/framework/plugins/nodeaffinity)
    extension_points = frozenset({"preFilter", "filter", "preScore", "score"})
    #: every failure is UnschedulableAndUnresolvable
    all_unresolvable = True
    kernels = k
    #: a raw score depends on the pod and the node only
    row_independent = True
    #: no node aggregates: binding a pod changes nothing it reads
    bind_independent = True
    #: reads only the pod's spec: pods of one ``spec_twins`` group score alike
    spec_only = True
    #: ``DefaultNormalizeScore`` gives equal scores for equal scores, whatever the list
    constant_normalize = True

    def __init__(self, args: Mapping[str, Any] | None = None) -> None:
        self.added = added_affinity(args)
        self._ref = NodeAffinityReference(self.added)

    def _prepared(self, snapshot: ClusterSnapshot, batch: PodBatch) -> tuple[tuple, dict]:
        key = (NAME, self.added)
        cached = batch.cache.get(key)
        if cached is None or cached[0] is not snapshot:
            cached = batch.cache[key] = (snapshot, *build_state(self._ref, snapshot, batch))
        return cached[1], cached[2]

    def prepare(self, snapshot: ClusterSnapshot, batch: PodBatch) -> tuple:
        """The kernels' state (cached on the batch per args)."""
        return self._prepared(snapshot, batch)[0]

    def pre_score_errors(self, snapshot: ClusterSnapshot, batch: PodBatch) -> dict[int, str]:
        """Pods whose ``PreScore`` fails (preferred terms that do not parse), with the
        message of the error the plugin returns; the framework reports it as
        ``running PreScore plugin "NodeAffinity": <message>`` and the pod gets no host."""
        return self._prepared(snapshot, batch)[1]

    @staticmethod
    def empty_state() -> tuple:
        z64, z32 = np.zeros(0, np.int64), np.zeros(0, np.int32)
        return (
            np.zeros((0, 0), np.int32), np.zeros((0, 0), np.int64),
            np.zeros((0, 0), np.bool_), np.zeros(0, np.bool_), np.zeros(0, np.int8), z32,
            z64, np.zeros(1, np.int64), z32, np.zeros(1, np.int64), np.zeros(1, np.int64),
            z64, z64, z64, z64, np.int64(-1), np.zeros(1, np.int64), z64, z64, z64, z64,
        )  # fmt: skip

    @staticmethod
    def passes_all(state: tuple) -> bool:
        """No ``addedAffinity`` selector, and no pod of the batch has a nodeSelector or a
        required node affinity."""
        return int(state[15]) < 0 and not (state[13] >= 0).any() and not (state[14] >= 0).any()

    @staticmethod
    def filter_key(state: tuple) -> np.ndarray:
        """Pods with equal (nodeSelector, required affinity) share a key."""
        return state[12]

    @staticmethod
    def constant_scores(state: tuple) -> np.ndarray:
        """bool[B]: the pods that score 0 on every node (no preferred terms, theirs or
        ``addedAffinity``'s)."""
        return (np.diff(state[16]) == 0) & (len(state[19]) == 0)

    @staticmethod
    def reasons(state: tuple, code: int) -> list[str]:
        """``Status.Reasons()`` of a failure code (both UnschedulableAndUnresolvable)."""
        return list(_REASONS[code])
