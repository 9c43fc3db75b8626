"""NodeAffinity kernels == the scalar reference port, on seeded random clusters; reasons,
filter keys, PreScore errors, args, declared keys."""

from __future__ import annotations

import random

import numpy as np
import pytest

from kscore_fast.errors import ConfigError
from kscore_fast.model.labels import UndeclaredLabelKey
from kscore_fast.model.objects import NodeAffinity as Affinity
from kscore_fast.model.objects import NodeSelectorRequirement, NodeSelectorTerm
from kscore_fast.model.objects import PreferredSchedulingTerm as Preferred
from kscore_fast.model.selectors import SelectorSpace
from kscore_fast.plugins.nodeaffinity import NodeAffinity, kernels
from kscore_fast.plugins.nodeaffinity.plugin import _Tables
from kscore_fast.plugins.nodeaffinity.reference import (
    ERR_REASON_ENFORCED,
    ERR_REASON_POD,
    NodeAffinityReference,
    new_node_selector_term,
    parse_int64,
)

from ..harness import filter_codes
from .build import (
    NAME_FIELD,
    args_json,
    cluster,
    kernel_filter,
    kernel_scores,
    node,
    pod,
    reference_filter,
    reference_scores,
    req,
    term,
)

KEYS = ["a", "b", "zone", "kernel-version", "example.com/gpu"]
BAD_KEYS = ["bad key", "a/b/c", "-x"]
VALUES = ["x", "y", "", "0", "1", "10", "0204", "-3", "+7", "007", "9223372036854775807",
          "9223372036854775808", "-9223372036854775808", "1e3", "abc"]  # fmt: skip
#: requirement values: valid label values (Gt/Lt: some are no int64), and invalid ones
REQ_VALUES = ["x", "y", "", "0", "1", "10", "0204", "007", "9223372036854775807",
              "9223372036854775808", "abc"]  # fmt: skip
INT_VALUES = ["0", "1", "10", "0204", "007", "9223372036854775807"]
BAD_VALUES = ["b z", "-1", "+7", "x" * 64]
OPS = ["In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"]
ZONES = ["z1", "z2", "z3"]


class Gen:
    """Random records rich in what NodeAffinity reads (valid and invalid terms alike)."""

    def __init__(self, seed: int) -> None:
        self.r = random.Random(seed)
        self.names: list[str] = []

    def labels(self):
        r = self.r
        out = {k: r.choice(VALUES) for k in r.sample(KEYS, r.randint(0, len(KEYS)))}
        if r.random() < 0.7:
            out["topology.kubernetes.io/zone"] = r.choice(ZONES)
        return out

    def nodes(self):
        n = self.r.randint(1, 12)
        self.names = [f"n{i}" for i in range(n)]
        if self.r.random() < 0.2:
            self.names[self.r.randrange(n)] = ""
        return [node(name, self.labels()) for name in self.names]

    def requirement(self):
        r = self.r
        key = r.choice(BAD_KEYS) if r.random() < 0.02 else r.choice(KEYS)
        op = "Foo" if r.random() < 0.02 else r.choice(OPS)
        if op in ("Exists", "DoesNotExist"):
            n = 0 if r.random() < 0.95 else 1
        elif op in ("Gt", "Lt"):
            n = 1 if r.random() < 0.9 else r.choice([0, 2])
        else:
            n = r.randint(1, 3) if r.random() < 0.95 else 0
        pool = REQ_VALUES + BAD_VALUES if r.random() < 0.1 else REQ_VALUES
        if op in ("Gt", "Lt") and r.random() < 0.9:
            pool = INT_VALUES
        return req(key, op, *r.sample(pool, n))

    def field(self):
        r = self.r
        key = NAME_FIELD if r.random() < 0.85 else "metadata.uid"
        op = r.choice(["In", "NotIn"]) if r.random() < 0.95 else "Exists"
        pool = [*self.names, "", "nx", "n0", "n1"]
        n = 1 if r.random() < 0.9 else r.choice([0, 2])
        return req(key, op, *r.sample(pool, n))

    def term(self):
        r = self.r
        exprs = [self.requirement() for _ in range(r.choice([0, 1, 1, 2, 3]))]
        fields = [self.field() for _ in range(r.choice([0, 0, 0, 1, 2]))]
        return term(*exprs, fields=fields)

    def affinity(self):
        r = self.r
        if r.random() < 0.2:
            return None
        req_terms = None if r.random() < 0.3 else tuple(self.term() for _ in range(r.randint(0, 3)))
        prefs = tuple(Preferred(r.choice([0, 1, 2, 5, 100, -3]), self.term())
                      for _ in range(r.randint(0, 3)))  # fmt: skip
        return Affinity(req_terms, prefs)

    def pod(self, i):
        r = self.r
        sel = {k: r.choice(VALUES) for k in r.sample(KEYS, r.choice([0, 0, 1, 2]))}
        return pod(f"p{i}", sel, self.affinity())

    def added(self):
        """A random addedAffinity that parses (Go's New fails otherwise)."""
        for _ in range(100):
            a = self.affinity()
            try:
                NodeAffinityReference(a)
            except ConfigError:
                continue
            return a
        return None

    def cluster(self):
        nodes = self.nodes()
        pods = [self.pod(i) for i in range(self.r.randint(1, 8))]
        if pods and self.r.random() < 0.3:  # repeated shapes share filter groups and terms
            pods.append(pods[0].__class__(**{**_fields(pods[0]), "name": "again"}))
        return cluster(nodes, pods)


def _fields(p):
    return {f: getattr(p, f) for f in p.__struct_fields__}


@pytest.mark.parametrize("seed", range(300))
def test_kernels_equal_reference(seed):
    g = Gen(seed)
    c = g.cluster()
    added = g.added() if g.r.random() < 0.5 else None
    assert kernel_filter(c, added) == reference_filter(c, added)
    n = c.snapshot.n_nodes
    lists = [sorted(g.r.sample(range(n), g.r.randint(1, n))) for _ in c.batch.pods]
    assert kernel_scores(c, lists, added) == reference_scores(c, lists, added)
    ref = NodeAffinityReference(added)
    want = {p: ref.pre_score(x)[1] for p, x in enumerate(c.batch.pods) if ref.pre_score(x)[1]}
    assert NodeAffinity(args_json(added)).pre_score_errors(c.snapshot, c.batch) == want


@pytest.mark.parametrize("seed", range(30))
def test_filter_key_groups_equal_rows(seed):
    """Pods with equal filter keys get equal codes on every node."""
    g = Gen(1000 + seed)
    c = g.cluster()
    plugin = NodeAffinity()
    state = plugin.prepare(c.snapshot, c.batch)
    codes = filter_codes(kernels, state, len(c.batch), c.snapshot.n_nodes)
    key = plugin.filter_key(state)
    assert key.dtype == np.int64 and key.shape == (len(c.batch),)
    for p in range(len(c.batch)):
        for q in range(len(c.batch)):
            if key[p] == key[q]:
                assert (codes[p] == codes[q]).all()


def test_reasons():
    plugin = NodeAffinity()
    state = plugin.empty_state()
    assert plugin.reasons(state, kernels.FAIL_POD) == [
        "node(s) didn't match Pod's node affinity/selector"
    ]
    assert plugin.reasons(state, kernels.FAIL_ENFORCED) == [
        "node(s) didn't match scheduler-enforced node affinity"
    ]
    assert ERR_REASON_POD in plugin.reasons(state, 2) and ERR_REASON_ENFORCED not in (
        plugin.reasons(state, 2)
    )


def test_state_types_match_empty_state():
    """One compiled signature: prepare and empty_state give the same dtypes and ndims."""
    g = Gen(7)
    c = g.cluster()
    plugin = NodeAffinity(args_json(g.added()))
    full, empty = plugin.prepare(c.snapshot, c.batch), plugin.empty_state()
    assert len(full) == len(empty)
    for a, b in zip(full, empty, strict=True):
        assert type(a) is type(b)
        assert np.asarray(a).dtype == np.asarray(b).dtype
        assert np.ndim(a) == np.ndim(b)
        if isinstance(a, np.ndarray):
            assert a.flags.c_contiguous
    assert plugin.prepare(c.snapshot, c.batch) is full  # cached on the batch


def test_requirement_on_undeclared_key_raises():
    """A requirement compiled against a vocabulary lacking its key raises (never reads
    Exists as false)."""
    tables = _Tables(SelectorSpace(["a"], []), {})
    with pytest.raises(UndeclaredLabelKey):
        tables.term(new_node_selector_term(term(req("b", "Exists")), ""))
    with pytest.raises(UndeclaredLabelKey):
        tables.map_term({"b": "x"})


def test_declared_keys_are_the_terms_keys():
    c = cluster(
        [node("n", {"a": "1", "b": "2", "c": "3", "d": "4"})],
        [pod(node_selector={"a": "1"}, affinity=Affinity(
            (term(req("b", "Exists")),), (Preferred(1, term(req("c", "Gt", "2"))),)))],
    )  # fmt: skip
    state = NodeAffinity(args_json(Affinity((term(req("e", "DoesNotExist")),)))).prepare(
        c.snapshot, c.batch
    )
    assert state[0].shape == (1, 4)  # a, b, c, e (d is read by no term)
    assert state[1].tolist() == [[1, 2, 3, 0]] and state[2].tolist() == [[True] * 3 + [False]]


@pytest.mark.parametrize(
    ("s", "want"),
    [("0", 0), ("007", 7), ("+7", 7), ("-3", -3), ("", None), ("+", None), ("1e3", None),
     ("1_000", None), ("9223372036854775807", 2**63 - 1), ("9223372036854775808", None),
     ("-9223372036854775808", -(2**63)), ("-9223372036854775809", None), (" 1", None),
     ("١", None)],
)  # fmt: skip
def test_parse_int64_is_strconv_parse_int(s, want):
    assert parse_int64(s) == want


def test_args_conversion():
    args = {
        "addedAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [{"matchExpressions": [{"key": "a", "operator": "Exists"}]}]
            },
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {"weight": 3, "preference": {"matchFields": [
                    {"key": NAME_FIELD, "operator": "In", "values": ["n"]}]}},
            ],
        }
    }  # fmt: skip
    plugin = NodeAffinity(args)
    want = Affinity(
        (NodeSelectorTerm((NodeSelectorRequirement("a", "Exists"),)),),
        (Preferred(3, NodeSelectorTerm((), (NodeSelectorRequirement(NAME_FIELD, "In", ("n",)),))),),
    )
    assert plugin.added == want
    assert NodeAffinity().added is None and NodeAffinity({"addedAffinity": None}).added is None
    empty = NodeAffinity({"addedAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {}}})
    assert empty.added == Affinity(required=())
    c = cluster([node("n", {"a": "1"})], [pod()])
    assert kernel_filter(c, empty.added) == [[ERR_REASON_ENFORCED]]  # no term: no node
    for bad in ({"addedAffinity": []}, {"addedAffinity": {
            "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": "3"}]}}):  # fmt: skip
        with pytest.raises(ConfigError):
            NodeAffinity(bad)


def test_negative_weights_normalize_as_go():
    """Added preferred terms are not weight-checked in 1.23: negative sums normalize with
    Go's truncating division."""
    added = Affinity(preferred=(Preferred(-3, term(req("a", "Exists"))),
                                Preferred(7, term(req("b", "Exists")))))  # fmt: skip
    c = cluster([node("n0", {"a": "1"}), node("n1", {"b": "1"}), node("n2", {"a": "", "b": ""})],
                [pod()])  # fmt: skip
    raw, norm = kernel_scores(c, [[0, 1, 2]], added)
    assert raw == [[-3, 7, 4]] and norm == [[-42, 100, 57]]
    assert (raw, norm) == reference_scores(c, [[0, 1, 2]], added)
