"""NodePorts kernels == the scalar reference port, on seeded random clusters (few IPs,
protocols and ports so that they collide; "" and 0.0.0.0; ports 0 and below; init
containers, whose ports never count), before and after random ``assume`` sequences."""

from __future__ import annotations

import numpy as np
import pytest

from kscore_fast.model.objects import ContainerPort, ContainerRecord, NodeRecord, PodRecord
from kscore_fast.model.snapshot import build_cluster
from kscore_fast.plugins.nodeports import NodePorts, kernels, reference

from ..tainttoleration.support import check_filter, check_shape

IPS = ("", "0.0.0.0", "127.0.0.1", "10.0.0.1", "::")
PROTOCOLS = ("", "TCP", "UDP", "SCTP")
PORTS = (0, -1, 80, 443, 8080, 65535)


def _ports(rng, n):
    return tuple(
        ContainerPort(
            container_port=int(rng.integers(0, 100)),
            host_port=PORTS[int(rng.integers(len(PORTS)))],
            protocol=PROTOCOLS[int(rng.integers(len(PROTOCOLS)))],
            host_ip=IPS[int(rng.integers(len(IPS)))],
        )
        for _ in range(n)
    )


def _pod(rng, name, node=""):
    containers = tuple(ContainerRecord(ports=_ports(rng, int(rng.integers(0, 3))))
                       for _ in range(int(rng.integers(0, 3))))  # fmt: skip
    init = tuple(ContainerRecord(ports=_ports(rng, 1)) for _ in range(int(rng.integers(0, 2))))
    return PodRecord("", name, node_name=node, containers=containers, init_containers=init,
                     deleting=bool(node) and bool(rng.random() < 0.1))  # fmt: skip


def _cluster(seed):
    rng = np.random.default_rng(seed)
    nodes = [NodeRecord(f"n{i}") for i in range(int(rng.integers(0, 8)))]
    bound = [_pod(rng, f"b{i}", nodes[int(rng.integers(len(nodes)))].name)
             for i in range(int(rng.integers(0, 30)) if nodes else 0)]  # fmt: skip
    pending = [_pod(rng, f"p{i}") for i in range(int(rng.integers(1, 25)))]
    return rng, build_cluster(nodes, bound + pending)


def _check(c, plugin, state, on_node):
    used = [reference.used_ports(pods) for pods in on_node]
    check_filter(plugin, kernels, state, c.batch.pods, c.snapshot.nodes,
                 lambda p, n: reference.filter(c.batch.pods[p], used[n]))  # fmt: skip


@pytest.mark.parametrize("seed", range(300))
def test_filter_equals_reference_before_and_after_assume(seed):
    rng, c = _cluster(seed)
    plugin = NodePorts()
    state = plugin.own_state(plugin.prepare(c.snapshot, c.batch))
    on_node = [[] for _ in range(c.snapshot.n_nodes)]
    for pod, n in zip(c.snapshot.pods, c.snapshot.pod_node, strict=True):
        on_node[n].append(pod)
    _check(c, plugin, state, on_node)
    if not c.snapshot.n_nodes:
        return
    for p in rng.permutation(len(c.batch))[: int(rng.integers(1, len(c.batch) + 1))]:
        n = int(rng.integers(c.snapshot.n_nodes))
        kernels.assume(state, int(p), n)
        on_node[n].append(c.batch.pods[p])
        _check(c, plugin, state, on_node)


@pytest.mark.parametrize("seed", range(200))
def test_filter_equals_reference_through_assume_and_remove(seed):
    """Random binds and deletes: the tables (backward-shift deletion) answer as Go's
    ``HostPortInfo`` after ``AddPod``/``RemovePod`` in the same order, where a release
    frees a port another pod on the node still uses."""
    rng, c = _cluster(seed)
    if not c.snapshot.n_nodes:
        return
    plugin = NodePorts()
    state = plugin.own_state(plugin.prepare(c.snapshot, c.batch))
    used = [reference.HostPortInfo() for _ in range(c.snapshot.n_nodes)]
    for pod, n in zip(c.snapshot.pods, c.snapshot.pod_node, strict=True):
        reference.update_used_ports(used[n], pod)
    bound: dict[int, int] = {}
    for p in rng.permutation(len(c.batch)).tolist():
        n = int(rng.integers(c.snapshot.n_nodes))
        kernels.assume(state, p, n)
        reference.update_used_ports(used[n], c.batch.pods[p])
        bound[p] = n
        while bound and rng.random() < 0.5:
            q = list(bound)[int(rng.integers(len(bound)))]
            kernels.remove(state, q, bound[q])
            reference.update_used_ports(used[bound.pop(q)], c.batch.pods[q], add=False)
        check_filter(plugin, kernels, state, c.batch.pods, c.snapshot.nodes,
                     lambda p, n: reference.filter(c.batch.pods[p], used[n]))  # fmt: skip


def test_own_state_returns_fresh_tables():
    _, c = _cluster(3)
    plugin = NodePorts()
    state = plugin.own_state(plugin.prepare(c.snapshot, c.batch))
    before = [a.copy() for a in state]
    for p in range(len(c.batch)):
        kernels.assume(state, p, 0)
    again = plugin.prepare(c.snapshot, c.batch)
    assert all((a == b).all() for a, b in zip(again, before, strict=True))
    assert again[0] is state[0]  # the pods' ports are cached, the tables copied


def test_a_full_table_raises_instead_of_looping():
    pod = PodRecord("", "p", containers=(ContainerRecord(ports=(ContainerPort(80, 80),)),))
    c = build_cluster([NodeRecord(f"n{i}") for i in range(8)], [pod])
    state = NodePorts().prepare(c.snapshot, c.batch)
    with pytest.raises(RuntimeError, match="table full"):
        for n in range(8):  # one pod assumed on every node: more than the tables hold
            kernels.assume(state, 0, n)


def test_plugin_shape():
    plugin = NodePorts()
    _, c = _cluster(5)
    assert plugin.name == "NodePorts"
    check_shape(plugin, plugin.prepare(c.snapshot, c.batch), (True, False, False))
