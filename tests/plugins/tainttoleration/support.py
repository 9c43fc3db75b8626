"""Test support shared by the NodeUnschedulable, NodeName, TaintToleration and NodePorts
tests: seeded random nodes with taints and pending pods with tolerations (small
vocabularies so that keys, values and effects collide, plus the empty string, unknown
effects and operators, and non-ASCII text), and filter checks through the kernels."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np
import pytest

from kscore_fast.model.objects import NodeRecord, PodRecord, Taint, Toleration
from kscore_fast.model.snapshot import Cluster, build_cluster

from ..harness import filter_codes

UNSCHEDULABLE = "node.kubernetes.io/unschedulable"
KEYS = ("", "dedicated", "gpu", UNSCHEDULABLE, "example.com/zoné", "{k}")
VALUES = ("", "user1", "user2", "true", "{v}: w", "ü")
EFFECTS = ("", "NoSchedule", "PreferNoSchedule", "NoExecute", "Bogus")
OPERATORS = ("", "Equal", "Exists", "exists")


def _pick(rng: np.random.Generator, options: tuple[str, ...], p_first: float = 0.0) -> str:
    if p_first and rng.random() < p_first:
        return options[0]
    return options[int(rng.integers(len(options)))]


def random_taint(rng: np.random.Generator) -> Taint:
    effect = _pick(rng, EFFECTS[1:4]) if rng.random() < 0.9 else _pick(rng, EFFECTS)
    return Taint(key=_pick(rng, KEYS[1:]), value=_pick(rng, VALUES), effect=effect)


def random_toleration(rng: np.random.Generator) -> Toleration:
    return Toleration(
        key=_pick(rng, KEYS),
        operator=_pick(rng, OPERATORS),
        value=_pick(rng, VALUES),
        effect=_pick(rng, EFFECTS),
        toleration_seconds=None if rng.random() < 0.8 else int(rng.integers(0, 100)),
    )


def random_nodes(rng: np.random.Generator, n: int) -> list[NodeRecord]:
    return [
        NodeRecord(
            f"node-{i}",
            unschedulable=bool(rng.random() < 0.3),
            taints=tuple(random_taint(rng) for _ in range(int(rng.integers(0, 6)))),
        )
        for i in range(n)
    ]


def random_pods(rng: np.random.Generator, n: int) -> list[PodRecord]:
    shared = [tuple(random_toleration(rng) for _ in range(int(rng.integers(0, 4))))
              for _ in range(3)]  # fmt: skip
    pods = []
    for i in range(n):
        if rng.random() < 0.4:
            tols = shared[int(rng.integers(len(shared)))]
            tols = tuple(tols[j] for j in rng.permutation(len(tols)))  # same set, reordered
        else:
            tols = tuple(random_toleration(rng) for _ in range(int(rng.integers(0, 6))))
        pods.append(PodRecord("default", f"pod-{i}", tolerations=tols))
    return pods


def random_cluster(seed: int, max_nodes: int = 30, max_pods: int = 30) -> Cluster:
    rng = np.random.default_rng(seed)
    nodes = random_nodes(rng, int(rng.integers(0, max_nodes + 1)))
    pods = random_pods(rng, int(rng.integers(1, max_pods + 1)))
    return build_cluster(nodes, pods)


# -- helpers shared by the NodeUnschedulable, NodeName, TaintToleration, NodePorts tests ----


def upstream(argnames: str, cases: list[tuple]) -> pytest.MarkDecorator:
    """Parametrize over a ported Go table of ``(name, *args)`` rows, ids = Go names."""
    return pytest.mark.parametrize(argnames, [c[1:] for c in cases], ids=[c[0] for c in cases])


def verdicts(plugin: Any, kernels: ModuleType, state: tuple, n_pods: int, n_nodes: int):
    """(codes int64[P, N], reasons): ``plugin.reasons`` of every failing pair, None for 0."""
    codes = filter_codes(kernels, state, n_pods, n_nodes)
    texts = [[plugin.reasons(state, int(x)) if x else None for x in row] for row in codes]
    return codes, texts


def check_filter(plugin: Any, kernels: ModuleType, state: tuple, pods, nodes, want) -> None:
    """Every pair's reasons equal ``[want(p, n)]`` (None: passes), and pods with equal
    ``filter_key`` get equal codes."""
    codes, texts = verdicts(plugin, kernels, state, len(pods), len(nodes))
    for p in range(len(pods)):
        for n in range(len(nodes)):
            w = want(p, n)
            assert texts[p][n] == (w and [w]), (pods[p], nodes[n])
    key = plugin.filter_key(state)
    for p in range(len(pods)):
        assert (codes[p] == codes[int(np.flatnonzero(key == key[p])[0])]).all()


def check_shape(plugin: Any, state: tuple, flags: tuple[bool, bool, bool]) -> None:
    """The class attributes, ``empty_state`` typed as ``state``; args are ignored, as Go's
    factories of these plugins ignore them."""
    assert (plugin.filters, plugin.scores, plugin.normalizes) == flags
    empty = plugin.empty_state()
    assert [(a.dtype, a.ndim) for a in state] == [(a.dtype, a.ndim) for a in empty]
    assert all(a.flags.c_contiguous for a in (*state, *empty))
    assert type(plugin)({"x": 1}).name == plugin.name


def check_records(plugin: Any, kernels: ModuleType, ref_filter, snapshot, batch) -> None:
    """:func:`check_filter` of the batch on every node against ``ref_filter(pod, node)``
    (a reference ``filter`` on records)."""
    pods, nodes = batch.pods, snapshot.nodes
    check_filter(plugin, kernels, plugin.prepare(snapshot, batch), pods, nodes,
                 lambda p, n: ref_filter(pods[p], nodes[n]))  # fmt: skip
