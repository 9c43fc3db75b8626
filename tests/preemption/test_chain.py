"""The compiled chains of ``simulate --preemption --retry-nominated``
(:mod:`kscore_fast.preemption.chain`): a run whose pods are scheduled in chains gives, row
for row, what the per-pod loop gives (hosts, counts, errors, preemption entries) with
Go's source and with kscore's seeded draws, and the chains took pods, stopped before
pods they cannot take and after walks that need Python, and ran on past their buffers."""

from __future__ import annotations

import pytest

from kscore_fast import api
from kscore_fast.framework.simulation import queue_order
from kscore_fast.preemption import chain, chain_kernel
from kscore_fast.preemption.simulate import simulate_preemption

from ..scenarios_ephemeral import _csi_volume
from ..scenarios_preemption import preemption_scenario
from .test_reference import _write


def _both(cluster: api.Cluster, seed: int, tie_break: str) -> tuple[dict, dict]:
    """The run with chains and without (each on its own dry runs)."""
    cluster = api.in_order(cluster, queue_order(cluster.batch.pods))
    fw, refused = api._framework(cluster, None, None, None, None)
    runs = [
        simulate_preemption(fw, cluster, seed=seed, tie_break=tie_break, scores="none",
                            explain=False, refused=refused, retry=True, chains=chains)
        for chains in (True, False)
    ]  # fmt: skip
    return runs[0].to_dict(), runs[1].to_dict()


@pytest.fixture
def stops(monkeypatch):
    """Per ``STOP_*``: how many chains stopped so, and the pods chains took."""
    seen = {"took": 0, **dict.fromkeys(range(5), 0)}
    kernel = chain_kernel.preempt_chain

    def counted(*args):
        start, done, why = kernel(*args)
        seen[int(why)] += 1
        seen["took"] += int(done)
        return start, done, why

    monkeypatch.setattr(chain.ck, "preempt_chain", counted)
    return seen


@pytest.mark.parametrize("seeds", [range(0, 20), range(20, 40)])
def test_chains_equal_the_per_pod_loop(tmp_path, seeds, stops):
    for seed in seeds:
        path = _write(tmp_path, preemption_scenario(9_300_000 + seed, max_nodes=10,
                                                    max_pending=14))  # fmt: skip
        cluster = api.load_cluster([path])
        for tie_break in ("go-rand", "uniform"):
            with_chains, without = _both(cluster, seed, tie_break)
            assert with_chains == without, (seed, tie_break)
    assert stops["took"] > 0
    assert stops[chain_kernel.STOP_BEFORE] > 0


def _basic(nodes: int, low: int, preemptors: int) -> list[dict]:
    """scheduler_perf's PreemptionBasic shape, small: nodes of 4 CPU, low-priority pods
    of 900m bound 4 to a node, preemptors of 3 CPU at priority 10 (more than the nodes:
    the last ones find no candidate)."""

    def pod(name, cpu, node, priority):
        spec = {"containers": [{"name": "c", "image": "i",
                                "resources": {"requests": {"cpu": cpu}}}],
                "priority": priority}  # fmt: skip
        if node is not None:
            spec["nodeName"] = node
        return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name,
                "namespace": "default", "uid": name}, "spec": spec,
                "status": {"phase": "Running" if node else "Pending"}}  # fmt: skip

    objects = [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": f"n{i}"},
                "status": {"allocatable": {"cpu": "4", "memory": "16Gi", "pods": "110"}}}
               for i in range(nodes)]  # fmt: skip
    objects += [pod(f"low{i}", "900m", f"n{i % nodes}", 0) for i in range(low)]
    objects += [pod(f"pre{i}", "3", None, 10) for i in range(preemptors)]
    return objects


@pytest.mark.parametrize("tie_break", ["go-rand", "uniform"])
def test_long_chains_equal_the_per_pod_loop(tmp_path, tie_break, stops):
    """More preemptors than a chain's buffers hold, many candidates tied."""
    path = _write(tmp_path, _basic(120, 480, chain.CHAIN_PODS + 60))
    with_chains, without = _both(api.load_cluster([path]), 5, tie_break)
    assert with_chains == without
    assert stops["took"] >= chain.CHAIN_PODS
    assert stops[chain_kernel.STOP_END] > 0


def test_a_node_full_of_pods_widens_the_table_for_the_chains(tmp_path, stops):
    """A node holding as many pods as the nodes' pod table has room for (8), none of them
    a victim and no preemptor fitting there: the table is widened before a chain, which
    then takes the pods (else every pod would go by the per-pod loop)."""
    objects = [o for o in _basic(30, 120, 40)
               if o["kind"] == "Node" or o["spec"].get("nodeName") != "n0"]  # fmt: skip
    keep = [o for o in _basic(1, 8, 0) if o["kind"] == "Pod"]
    for k, pod in enumerate(keep):  # (8 pods of priority 100 on n0, 1.2 CPU of 4 left)
        pod["metadata"]["name"] = pod["metadata"]["uid"] = f"keep{k}"
        pod["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "150m"
        pod["spec"]["priority"] = 100
    path = _write(tmp_path, objects + keep)
    with_chains, without = _both(api.load_cluster([path]), 3, "go-rand")
    assert with_chains == without
    assert stops["took"] >= 30


def test_a_walk_meeting_an_error_stops_the_chain_with_go_s_error(tmp_path, stops):
    """Preemptors with a CSI volume on nodes whose CSINode limits the driver; node n0 also
    holds a pod of priority 100 whose ephemeral claim another pod owns, so a dry run
    there (its low-priority pods removed, CPU then fits) meets the volume limits'
    ``Error``. Once the other nodes are full of preemptors, a walk finds no candidate:
    the chain stops after it, and the pod's entry has Go's reason and error, as the
    per-pod loop gives them."""
    objects = _basic(6, 24, 12)
    for obj in list(objects):
        if obj["kind"] == "Node":
            name = obj["metadata"]["name"]
            driver = {"name": "csi.example.com", "nodeID": name, "allocatable": {"count": 8}}
            objects.append({"apiVersion": "storage.k8s.io/v1", "kind": "CSINode",
                            "metadata": {"name": name}, "spec": {"drivers": [driver]}})  # fmt: skip
        elif obj["spec"].get("nodeName") is None:
            name = obj["metadata"]["name"]
            claim = {"claimName": f"{name}-data"}
            obj["spec"]["volumes"] = [{"name": "data", "persistentVolumeClaim": claim}]
            _csi_volume(objects, [], obj, f"{name}-data")
    held = next(o for o in _basic(1, 1, 0) if o["kind"] == "Pod")
    held["metadata"]["name"] = held["metadata"]["uid"] = "held"
    held["spec"]["nodeName"], held["spec"]["priority"] = "n0", 100
    held["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "100m"
    template = {"spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": "csi",
                         "resources": {"requests": {"storage": "1Gi"}}}}  # fmt: skip
    held["spec"]["volumes"] = [{"name": "e0", "ephemeral": {"volumeClaimTemplate": template}}]
    owner = {"apiVersion": "v1", "kind": "Pod", "name": "held", "uid": "another-pod-uid",
             "controller": True}  # fmt: skip
    _csi_volume(objects, [owner], held, "held-e0")
    objects.append({"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
                    "metadata": {"name": "csi"}, "provisioner": "csi.example.com",
                    "volumeBindingMode": "WaitForFirstConsumer"})  # fmt: skip
    path = _write(tmp_path, [*objects, held])
    for tie_break in ("go-rand", "uniform"):
        with_chains, without = _both(api.load_cluster([path]), 7, tie_break)
        assert with_chains == without, tie_break
        errors = [r["preemption"] for r in with_chains["results"]
                  if r.get("preemption", {}).get("reason") == "dry run error"]  # fmt: skip
        assert errors and all("not owner" in e["error"] for e in errors), with_chains
    assert stops[chain_kernel.STOP_ERROR] > 0
