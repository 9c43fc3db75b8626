"""Memory linear in the input where a selector per pending pod (a Deployment each) used to
cost a row per node (issue 28, items 4 and 5): what a ``Simulator.copy()`` owns (copies of
the state binds change, about the plugins' per-node state, never pods × nodes), and the
state InterPodAffinity prepares. PodTopologySpread on hostname kept one counter per
(selector, node), InterPodAffinity one value per (term, node), until their counters of
hostname keys went to a table of the non-zero ones."""

from __future__ import annotations

import numpy as np

import kscore_fast as ks
from kscore_fast.model.objects import PodAffinity, PodAffinityTerm, TopologySpreadConstraint
from kscore_fast.model.selectors import LabelSelector
from kscore_fast.plugins.interpodaffinity import InterPodAffinity

from ..builders import HOSTNAME, ZONE, cluster, node, pod


def _arrays(value, out):
    if isinstance(value, np.ndarray):
        out.append(value)
    elif isinstance(value, tuple | list):
        for v in value:
            _arrays(v, out)
    return out


def _owned_bytes(sim: ks.Simulator, other: ks.Simulator) -> int:
    """Bytes of the plugin states' arrays of ``other`` that it does not share with
    ``sim`` (the cycle caches aside: each simulator's own, of bounded size)."""
    mine = _arrays(sim._seq.states, [])
    return sum(a.nbytes for a in _arrays(other._seq.states, [])
               if not any(np.shares_memory(a, b) for b in mine))  # fmt: skip


def _spread_cluster(n_nodes: int, n_pods: int):
    room = {"cpu": "64", "memory": "256Gi", "pods": 110}
    nodes = [node(f"n{i}", {HOSTNAME: f"n{i}", ZONE: f"z{i % 3}"}, allocatable=room)
             for i in range(n_nodes)]  # fmt: skip
    pods = []
    for j in range(n_pods):
        own = LabelSelector(match_labels=(("app", f"app{j}"),))
        tsc = (TopologySpreadConstraint(1, HOSTNAME, "DoNotSchedule", own),)
        pods.append(pod(f"p{j}", ns="default", labels={"app": f"app{j}"}, tsc=tsc,
                        requests={"cpu": "100m"}))  # fmt: skip
    return cluster(nodes, pods)


def test_a_copy_owns_about_the_per_node_state_not_pods_times_nodes():
    n_nodes, n_pods = 1000, 1100  # (dense: 4.4 MB, past counter_table.DENSE_BUDGET)
    sim = ks.Simulator(_spread_cluster(n_nodes, n_pods), seed=1)
    sim.run(sim.pods[:50])
    branch = sim.copy()
    owned = _owned_bytes(sim, branch)
    assert owned < 100 * (n_nodes + n_pods) + (64 << 10), owned
    # the branch's own counters: it goes on alone, and so does the original
    assert branch.run(sim.pods[50:80]).host_names == sim.run(sim.pods[50:80]).host_names


def test_inter_pod_affinity_prepares_a_state_linear_in_its_terms():
    """20 required anti-affinity terms on hostname per pending pod, each its own label:
    (pods × 20) terms × nodes values as dense rows (here 2 × 6,000 × 1,000 × 8 bytes)."""
    n_nodes, n_pods, n_terms = 1000, 300, 20
    nodes = [node(f"n{i}", {HOSTNAME: f"n{i}"}, allocatable={"cpu": "64", "pods": 110})
             for i in range(n_nodes)]  # fmt: skip
    pods = []
    for j in range(n_pods):
        terms = tuple(PodAffinityTerm(LabelSelector(match_labels=(("app", f"a{j}-{t}"),)),
                                      topology_key=HOSTNAME) for t in range(n_terms))  # fmt: skip
        pods.append(pod(f"p{j}", ns="default", labels={"app": f"a{j}-0"},
                        pod_anti_affinity=PodAffinity(required=terms)))  # fmt: skip
    c = cluster(nodes, pods)
    state = InterPodAffinity().prepare(c.snapshot, c.batch)
    size = sum(a.nbytes for a in _arrays(state, []))
    assert size < 200 * (n_nodes + n_pods * n_terms) + (1 << 20), size
    sim = ks.Simulator(c, seed=2)  # (each pod keeps its own term's pods apart: all fit)
    assert None not in sim.run().host_names
