"""Builders for the noderesources tests (records with resources, as the Go tests' helpers
``newResourcePod``, ``makeNode``, ``st.MakeNode().Capacity``, ``st.MakePod().Req`` make
them), and runners that score or filter one pending pod through the kernels and through
the reference."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import count

from kscore_fast.model.objects import ContainerRecord, NodeRecord, PodRecord
from kscore_fast.model.quantity import parse_quantity
from kscore_fast.model.snapshot import Cluster, build_cluster
from kscore_fast.plugins.noderesources import (
    NodeResourcesBalancedAllocation,
    NodeResourcesFit,
    balanced_kernels,
    balanced_reference,
    fit_kernels,
    fit_reference,
)
from kscore_fast.plugins.noderesources.resources_reference import node_infos

from ..harness import filter_codes, score_lists

_names = count()

#: resource names of fit_test.go
EXT_A, EXT_B = "example.com/aaa", "example.com/bbb"
K8S_IO_A, K8S_IO_B = "kubernetes.io/something", "subdomain.kubernetes.io/something"
HUGE_A = "hugepages-2Mi"


def rl(values: Mapping[str, object] | None) -> dict:
    """A resource list from quantity strings (or ints)."""
    return {k: parse_quantity(str(v)) for k, v in (values or {}).items()}


def res(cpu: int = 0, mem: int = 0, eph: int = 0, scalars: Mapping[str, int] | None = None):
    """fit_test.go ``newResourcePod``'s requests for one ``framework.Resource``: cpu in
    millicores; cpu, memory, pods and ephemeral-storage always listed, zero or not."""
    return {"cpu": f"{cpu}m", "memory": mem, "pods": 0, "ephemeral-storage": eph, **(scalars or {})}


def container(requests: Mapping[str, object] | None = None) -> ContainerRecord:
    return ContainerRecord(requests=rl(requests))


def pod(
    containers: Sequence[Mapping[str, object] | None] = (),
    init: Sequence[Mapping[str, object] | None] = (),
    overhead: Mapping[str, object] | None = None,
    node: str = "",
) -> PodRecord:
    """A pod with one container per requests mapping (``None``: no requests at all)."""
    return PodRecord(
        "",
        f"pod{next(_names)}",
        node_name=node,
        containers=tuple(container(r) for r in containers),
        init_containers=tuple(container(r) for r in init),
        overhead=rl(overhead),
    )


def node(name: str, allocatable: Mapping[str, object] | None = None) -> NodeRecord:
    return NodeRecord(name, allocatable=rl(allocatable))


def capacity_node(name: str, values: Mapping[str, object] | None = None) -> NodeRecord:
    """``st.MakeNode().Name(name).Capacity(values)`` (adds pods: 32); ``None``: no
    ``Capacity`` call, an empty allocatable."""
    return node(name, None if values is None else {"pods": 32, **values})


def milli_node(name: str, milli_cpu: int, memory: int, **scalars: int) -> NodeRecord:
    """test_util.go ``makeNode`` / ``makeNodeWithExtendedResource``."""
    return node(name, {"cpu": f"{milli_cpu}m", "memory": memory, **scalars})


def cluster(nodes: Sequence[NodeRecord], existing: Sequence[PodRecord], pending: PodRecord):
    """The cluster of the pending pod (existing pods without a node are left out, as
    ``cache.NewSnapshot`` lists no node for them)."""
    return build_cluster(nodes, [p for p in existing if p.node_name] + [pending])


def fit_filter(c: Cluster, plugin: NodeResourcesFit) -> tuple[list[list[str]], list[list[str]]]:
    """Kernel and reference reasons of the first pending pod on every node."""
    state = plugin.prepare(c.snapshot, c.batch)
    codes = filter_codes(fit_kernels, state, 1, c.snapshot.n_nodes)[0]
    got = [plugin.reasons(state, int(code)) for code in codes]
    want = fit_reference.filter_reasons(
        node_infos(c.snapshot), c.batch.pods[0], plugin.ignored_resources, plugin.ignored_groups
    )
    return got, want


def fit_scores(c: Cluster, plugin: NodeResourcesFit) -> tuple[list[int], list[int]]:
    """Kernel and reference scores of the first pending pod on every node."""
    nodes = list(range(c.snapshot.n_nodes))
    raw, _ = score_lists(fit_kernels, plugin.prepare(c.snapshot, c.batch), [nodes], False)
    scorer = fit_reference.new_scorer(plugin.strategy, list(plugin.weights.items()), plugin.shape)
    return raw[0], fit_reference.score_nodes(node_infos(c.snapshot), c.batch.pods[0], nodes, scorer)


def balanced_scores(
    c: Cluster, plugin: NodeResourcesBalancedAllocation
) -> tuple[list[int], list[int]]:
    """Kernel and reference scores of the first pending pod on every node."""
    nodes = list(range(c.snapshot.n_nodes))
    raw, _ = score_lists(balanced_kernels, plugin.prepare(c.snapshot, c.batch), [nodes], False)
    specs = [(n, 1) for n in plugin.resources]
    want = balanced_reference.score_nodes(node_infos(c.snapshot), c.batch.pods[0], nodes, specs)
    return raw[0], want
