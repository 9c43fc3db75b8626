"""InterPodAffinity kernels == the scalar reference port, on seeded random clusters rich
in topology keys, selectors of every operator, namespaces and namespace selectors; filter
keys; ``assume`` against the reference's ``AddPod`` and against ``prepare`` on the cluster
with the pods bound; args."""

from __future__ import annotations

import random

import msgspec
import numpy as np
import pytest

from kscore_fast.errors import ConfigError
from kscore_fast.model.objects import (
    NamespaceRecord,
    NodeRecord,
    PodAffinity,
    PodAffinityTerm,
    PodRecord,
    WeightedPodAffinityTerm,
)
from kscore_fast.model.selectors import LabelSelector
from kscore_fast.plugins.interpodaffinity import InterPodAffinity, kernels

from .build import (
    cluster,
    kernel_filter,
    kernel_scores,
    plugin_for,
    reference_filter,
    reference_for,
    reference_scores,
)

TOPOLOGY_KEYS = ["zone", "region", "rack", "kubernetes.io/hostname", "unused", ""]
TOPOLOGY_VALUES = {"zone": ["z1", "z2", "z3"], "region": ["r1", "r2"], "rack": ["a", "b", ""],
                   "unused": ["u"]}  # fmt: skip
POD_KEYS = ["app", "tier", "team", "version"]
POD_VALUES = ["a", "b", "c", ""]
NAMESPACES = ["default", "ns1", "ns2", "ns3"]
NS_KEYS = ["team", "env"]
OPS = ["In", "NotIn", "Exists", "DoesNotExist"]


class Gen:
    """Random records rich in what InterPodAffinity reads."""

    def __init__(self, seed: int) -> None:
        self.r = random.Random(seed)

    def node_labels(self, i: int) -> dict[str, str]:
        r = self.r
        out = {}
        for key in r.sample(TOPOLOGY_KEYS[:-1], r.randint(0, 4)):
            if key == "kubernetes.io/hostname":
                out[key] = f"h{i}" if r.random() < 0.8 else "h0"
            else:
                out[key] = r.choice(TOPOLOGY_VALUES[key])
        if r.random() < 0.2:
            out["other"] = r.choice(["x", "y"])
        return out

    def pod_labels(self) -> dict[str, str]:
        r = self.r
        return {k: r.choice(POD_VALUES) for k in r.sample(POD_KEYS, r.randint(0, 3))}

    def selector(self, keys: list[str], values: list[str], own: dict | None = None
                 ) -> LabelSelector | None:  # fmt: skip
        r = self.r
        x = r.random()
        if x < 0.08:
            return None
        if x < 0.16:
            return LabelSelector()
        if own is not None and x < 0.4:  # the pod's own labels: a series with self-affinity
            items = sorted(own.items())
            return LabelSelector(tuple(r.sample(items, r.randint(0, len(items)))))
        labels = tuple((k, r.choice(values)) for k in r.sample(keys, r.randint(0, 2)))
        exprs = []
        for key in r.sample(keys, r.randint(0, 2)):
            op = r.choice(OPS)
            vals = () if op in ("Exists", "DoesNotExist") else tuple(
                r.sample([*values, "zz"], r.randint(1, 3)))  # fmt: skip
            exprs.append((key, op, vals))
        return LabelSelector(labels, tuple(exprs))

    def term(self, own: dict | None = None) -> PodAffinityTerm:
        r = self.r
        x = r.random()
        if x < 0.55:
            ns_selector = None
        elif x < 0.65:
            ns_selector = LabelSelector()
        else:
            ns_selector = self.selector(NS_KEYS, ["t1", "t2", "prod"])
        namespaces = tuple(r.sample([*NAMESPACES, "ghost"], r.choice([0, 0, 1, 2])))
        key = r.choice(TOPOLOGY_KEYS) if r.random() < 0.97 else "nowhere"
        return PodAffinityTerm(self.selector(POD_KEYS, POD_VALUES, own), namespaces, key,
                               ns_selector)  # fmt: skip

    def affinity(self, own: dict | None = None) -> PodAffinity | None:
        r = self.r
        if r.random() < 0.4:
            return None
        required = tuple(self.term(own) for _ in range(r.choice([0, 1, 1, 2, 3])))
        preferred = tuple(WeightedPodAffinityTerm(r.randint(1, 100), self.term())
                          for _ in range(r.choice([0, 1, 2])))  # fmt: skip
        return PodAffinity(required, preferred)

    def pod(self, name: str, node: str = "") -> PodRecord:
        r = self.r
        labels = self.pod_labels()
        return PodRecord(
            r.choice(NAMESPACES), name, labels, node_name=node,
            deleting=bool(node) and r.random() < 0.1,
            pod_affinity=self.affinity(labels), pod_anti_affinity=self.affinity(labels),
        )  # fmt: skip

    def scenario(self):
        r = self.r
        nodes = [NodeRecord(f"n{i}", self.node_labels(i)) for i in range(r.randint(1, 12))]
        existing = [self.pod(f"e{i}", r.choice(nodes).name) for i in range(r.randint(0, 25))]
        pending = [self.pod(f"p{i}") for i in range(r.randint(1, 8))]
        for i in range(r.randint(0, 3)):  # twins: equal but for the name
            pending.append(msgspec.structs.replace(r.choice(pending), name=f"t{i}"))
        namespaces = [
            NamespaceRecord(ns, {k: r.choice(["t1", "t2", "prod"])
                                 for k in r.sample(NS_KEYS, r.randint(0, 2))})
            for ns in NAMESPACES if r.random() < 0.75
        ]  # fmt: skip
        hard_weight = r.choice([None, 0, 1, 5, 100])
        enabled = r.random() < 0.85
        return nodes, existing, pending, namespaces, hard_weight, enabled

    def lists(self, n_pods: int, n_nodes: int) -> list[list[int]]:
        r = self.r
        return [r.sample(range(n_nodes), r.randint(1, n_nodes)) for _ in range(n_pods)]


def _setup(seed: int):
    """A random scenario: (generator, its records, cluster, plugin)."""
    g = Gen(seed)
    records = g.scenario()
    nodes, existing, pending, namespaces, hard_weight, enabled = records
    c = cluster(nodes, existing, pending, namespaces)
    return g, records, c, plugin_for(hard_weight, enabled)


def _check(c, plugin, state, ref, lists):
    codes = kernel_filter(c, plugin, state)
    assert codes == reference_filter(c, ref)
    assert kernel_scores(c, plugin, lists, state) == reference_scores(c, ref, lists)
    key = plugin.filter_key(state)
    for p in range(len(c.batch)):
        assert codes[p] == codes[int(np.flatnonzero(key == key[p])[0])]
    return codes


@pytest.mark.parametrize("seed", range(300))
def test_kernels_equal_reference_before_and_after_assume(seed, counter_layout):
    g, records, c, plugin = _setup(seed)
    nodes, existing, pending, namespaces, hard_weight, enabled = records
    state = plugin.own_state(plugin.prepare(c.snapshot, c.batch))
    ref = reference_for(c, hard_weight, enabled)
    lists = g.lists(len(c.batch), c.snapshot.n_nodes)
    _check(c, plugin, state, ref, lists)
    bound = []
    for step in range(g.r.randint(1, 4)):
        p, n = g.r.randrange(len(c.batch)), g.r.randrange(c.snapshot.n_nodes)
        kernels.assume(state, p, n)
        ref.add_pod(n, c.batch.pods[p])
        bound.append(msgspec.structs.replace(
            c.batch.pods[p], name=f"bound{step}", node_name=c.snapshot.node_names[n]))  # fmt: skip
        if step % 2 == 0:
            _check(c, plugin, state, ref, lists)
    codes = _check(c, plugin, state, ref, lists)
    # prepare on the cluster with those pods bound gives what assume gave
    c2 = cluster(nodes, [*existing, *bound], pending, namespaces)
    assert c2.snapshot.node_names == c.snapshot.node_names
    state2 = plugin.prepare(c2.snapshot, c2.batch)
    assert kernel_filter(c2, plugin, state2) == codes
    assert kernel_scores(c2, plugin, lists, state2) == kernel_scores(c, plugin, lists, state)


def test_own_state_hands_out_fresh_counts():
    """``assume`` on one owned state leaves the cached one (and the next) untouched."""
    for seed in range(50):
        _, _, c, plugin = _setup(seed)
        first = plugin.own_state(plugin.prepare(c.snapshot, c.batch))
        mutable = lambda st: [*st[7:10], st[17], *st[kernels.TABLE]]  # noqa: E731
        before = [a.copy() for a in mutable(first)]
        for p in range(len(c.batch)):
            kernels.assume(first, p, 0)
        second = plugin.prepare(c.snapshot, c.batch)
        assert all((a == b).all() for a, b in zip(before, mutable(second), strict=True))
        assert second[0] is first[0]


def test_empty_state_has_the_types_of_a_prepared_one():
    _, _, c, plugin = _setup(1)
    full, empty = plugin.prepare(c.snapshot, c.batch), plugin.empty_state()

    def types(state):
        return [types(a) if isinstance(a, tuple) else (a.dtype, a.ndim) for a in state]

    assert types(full) == types(empty)


def test_one_compiled_signature_per_kernel():
    for seed in range(5):
        _, _, c, plugin = _setup(seed)
        state = plugin.own_state(plugin.prepare(c.snapshot, c.batch))
        kernel_filter(c, plugin, state)
        kernel_scores(c, plugin, [[0]] * len(c.batch), state)
        kernels.assume(state, 0, 0)
    for kernel in (kernels.filter_node, kernels.score_pod, kernels.normalize_pod,
                   kernels.assume):  # fmt: skip
        assert len(kernel.signatures) == 1, kernel


def test_raw_scores_do_not_depend_on_the_node_list():
    for seed in range(30):
        g, _, c, plugin = _setup(seed)
        full = [list(range(c.snapshot.n_nodes))] * len(c.batch)
        raw_full, _ = kernel_scores(c, plugin, full)
        lists = g.lists(len(c.batch), c.snapshot.n_nodes)
        raw, _ = kernel_scores(c, plugin, lists)
        for p, nodes_p in enumerate(lists):
            assert raw[p] == [raw_full[p][n] for n in nodes_p]


def test_pods_of_a_score_group_score_alike():
    """``score_groups``: equal ids, equal raw scores on every node (the driver shares their
    rows)."""
    for seed in range(60):
        _, _, c, plugin = _setup(seed)
        state = plugin.prepare(c.snapshot, c.batch)
        raw, _ = kernel_scores(c, plugin, [list(range(c.snapshot.n_nodes))] * len(c.batch), state)
        groups = plugin.score_groups(state)
        for p in range(len(c.batch)):
            assert raw[p] == raw[int(np.flatnonzero(groups == groups[p])[0])]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"hardPodAffinityWeight": 101}, "Invalid value: 101: not in valid range [0-100]"),
        ({"hardPodAffinityWeight": -1}, "Invalid value: -1: not in valid range [0-100]"),
        ({"hardPodAffinityWeight": "1"}, "expected an integer"),
    ],
)
def test_bad_args(args, message):
    with pytest.raises(ConfigError, match=message.replace("[", r"\[").replace("]", r"\]")):
        InterPodAffinity(args)


def test_args_default():
    assert InterPodAffinity().hard_weight == 1
    assert InterPodAffinity({}).hard_weight == 1
    assert InterPodAffinity({"hardPodAffinityWeight": 0}).hard_weight == 0
