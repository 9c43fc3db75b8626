"""Results of every kind kscore writes, on one small cluster with GPUs: the inputs of the
report's tests."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kscore_fast.cli import main


def node(name: str, gpus: int = 2) -> dict:
    alloc = {"cpu": "4", "memory": "8Gi", "pods": "110", "nvidia.com/gpu": str(gpus)}
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
            "status": {"allocatable": alloc, "capacity": alloc}}  # fmt: skip


def pod(name: str, cpu: str = "700m", gpus: int = 1, host: str | None = None) -> dict:
    requests = {"cpu": cpu, "memory": "1Gi", "nvidia.com/gpu": str(gpus)}
    spec = {"containers": [{"name": "c", "image": "x", "resources": {
        "requests": requests, "limits": {"nvidia.com/gpu": str(gpus)}}}]}  # fmt: skip
    if host:
        spec["nodeName"] = host
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "a"},
            "spec": spec}  # fmt: skip


def write_cluster(path: Path, pending: int = 8) -> str:
    """3 nodes of 2 GPUs, one GPU pod bound on n0; ``pending`` pods of a GPU (5 fit one
    after the other), and one of 3 GPUs (it fits nowhere)."""
    items = [node(f"n{i}") for i in range(3)] + [pod("bound", host="n0")]
    items += [pod(f"p{i}") for i in range(pending)] + [pod("huge", gpus=3)]
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
    return str(path)


@pytest.fixture(scope="package")
def results(tmp_path_factory) -> dict[str, str]:
    """kind → path: score (JSON, arrow tables), simulate (JSON, parquet tables), timed
    (JSON, arrow tables), sweep (JSON, CSV tables), capacity (JSON), kss (--format kss);
    and the cluster and events."""
    d = tmp_path_factory.mktemp("results")
    cluster = write_cluster(d / "cluster.json")
    events = d / "events.jsonl"
    events.write_text("\n".join(json.dumps(e) for e in [
        {"time": 5, "op": "delete", "pod": "a/bound"},
        {"time": 10, "op": "addNode", "node": node("n3")},
    ]) + "\n")  # fmt: skip
    spec = d / "sweep.yaml"
    spec.write_text(json.dumps({
        "snapshots": [cluster], "seeds": [1, 2], "mode": "simulate",
        "configs": ["default", {"name": "most", "patch": {"profiles": [{"pluginConfig": [{
            "name": "NodeResourcesFit",
            "args": {"scoringStrategy": {"type": "MostAllocated"}}}]}]}}],
    }))  # fmt: skip
    template = d / "web.json"
    template.write_text(json.dumps(pod("web", gpus=0)))
    out = {"cluster": cluster, "events": str(events)}
    runs = {
        "score": ["score", cluster, "-o", d / "score.json"],
        "simulate": ["simulate", cluster, "-o", d / "simulate.json"],
        "simulate_parquet": ["simulate", cluster, "--format", "parquet", "-o", d / "sim-pq"],
        "score_arrow": ["score", cluster, "--format", "arrow", "-o", d / "score-arrow"],
        "timed": ["simulate", cluster, "--events", events, "-o", d / "timed.json"],
        "timed_arrow": ["simulate", cluster, "--events", events, "--format", "arrow",
                        "-o", d / "timed-arrow"],
        "sweep": ["sweep", spec, "-j", "1", "-o", d / "sweep.json"],
        "sweep_csv": ["sweep", spec, "-j", "1", "--format", "csv", "-o", d / "sweep-csv"],
        "capacity": ["capacity", cluster, "--pod", template, "-o", d / "capacity.json"],
        "kss": ["score", cluster, "--format", "kss", "-o", d / "kss.json"],
    }  # fmt: skip
    for kind, argv in runs.items():
        assert main([str(a) for a in argv] + ["--quiet"]) == 0, kind
        out[kind] = str(argv[-1])
    return out
