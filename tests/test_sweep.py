"""``kscore sweep``: metrics over snapshots × configurations × seeds, equal to the runs
done one by one."""

from __future__ import annotations

import json
import re
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from kscore_fast import capacity, load_cluster, simulate, sweep
from kscore_fast.cli import main
from kscore_fast.errors import InputError

EMBEDDED = Path(__file__).resolve().parents[1] / "data" / "embedded"


def _cluster(tmp_path) -> str:
    nodes = [{"apiVersion": "v1", "kind": "Node",
              "metadata": {"name": f"n{i}", "labels": {"kubernetes.io/hostname": f"n{i}"}},
              "status": {"allocatable": {"cpu": "2", "memory": "4Gi", "pods": "110",
                                         "nvidia.com/gpu": "2"}}} for i in range(3)]  # fmt: skip
    pods = [{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"p{i}", "namespace": "a"},
             "spec": {"containers": [{"name": "c", "image": "x", "resources": {
                 "requests": {"cpu": "700m", "nvidia.com/gpu": "1"},
                 "limits": {"nvidia.com/gpu": "1"}}}]}} for i in range(10)]  # fmt: skip
    path = tmp_path / "cluster.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": nodes + pods}))
    return str(path)


def test_each_row_is_its_run(tmp_path):
    cluster = _cluster(tmp_path)
    most = tmp_path / "most.yaml"
    most.write_text("apiVersion: kubescheduler.config.k8s.io/v1beta3\n"
                    "kind: KubeSchedulerConfiguration\nprofiles:\n- pluginConfig:\n"
                    "  - name: NodeResourcesFit\n    args:\n      scoringStrategy:\n"
                    "        type: MostAllocated\n")  # fmt: skip
    spec = {"snapshots": [cluster], "configs": ["default", str(most)], "seeds": [1, 2],
            "mode": "simulate", "tie_break": "go-rand"}  # fmt: skip
    result = sweep(spec, jobs=1)
    rows = result.metrics.to_pylist()
    assert [(r["config"], r["seed"]) for r in rows] == [
        ("default", 1), ("default", 2), (str(most), 1), (str(most), 2)]  # fmt: skip
    for r in rows:
        config = None if r["config"] == "default" else r["config"]
        alone = simulate(load_cluster(cluster), config=config, seed=r["seed"],
                         tie_break="go-rand", scores="none")  # fmt: skip
        hosts = dict(zip(alone.pod_names, alone.host_names, strict=True))
        rows_of_run = [p for p in result.placements.to_pylist() if p["run"] == r["run"]]
        mine = {p["pod"]: p["host"] for p in rows_of_run}
        assert mine == hosts
        assert r["placed"] == 6 and r["unschedulable"] == 4  # 2 GPUs × 3 nodes
        reasons = json.loads(r["fit_error_reasons"])  # (pods whose error names each)
        assert reasons == {"Insufficient nvidia.com/gpu": 4, "Insufficient cpu": 4}
        assert r["gpu_mean"] == 1.0 and r["gpu_idle_on_used_nodes"] == 0
    assert rows[0]["cpu_max"] == pytest.approx(1400 / 2000)
    assert result.diff(0, 0).num_rows == 0
    assert result.diff(0, 2).num_rows == sum(
        a["host"] != b["host"] for a, b in zip(
            [p for p in result.placements.to_pylist() if p["run"] == 0],
            [p for p in result.placements.to_pylist() if p["run"] == 2], strict=True))  # fmt: skip


def test_capacity_mode_and_processes(tmp_path):
    cluster = _cluster(tmp_path)
    tmpl = tmp_path / "pod.json"
    tmpl.write_text(json.dumps({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "t"},
                                "spec": {"containers": [{"name": "c", "image": "x", "resources": {
                                    "requests": {"cpu": "500m"}}}]}}))  # fmt: skip
    spec = {"snapshots": [cluster], "seeds": [1, 2], "mode": "capacity", "pod": str(tmpl)}
    one, two = sweep(spec, jobs=1), sweep(spec, jobs=2)
    drop = ["seconds"]
    assert one.metrics.drop(drop).to_pylist() == two.metrics.drop(drop).to_pylist()
    row = one.metrics.to_pylist()[0]
    expected = capacity(load_cluster(cluster), json.loads(tmpl.read_text()), seed=1)
    assert row["placed"] == expected.replicas == 12 and row["unschedulable"] == 1
    assert row["cpu_mean"] == 1.0 and row["nodes_used"] == 3


@pytest.mark.parametrize(("spec", "message"), [
    ({"snapshots": []}, "snapshots: expected a non-empty list"),
    ({"snapshots": ["x"], "seeds": ["a"]}, "seeds: expected a list of integers"),
    ({"snapshots": ["x"], "mode": "fly"}, "mode: expected one of"),
    ({"snapshots": ["x"], "mode": "capacity"}, "pod: a template is needed"),
    ({"snapshots": ["x"], "colour": 1}, "unknown field(s) colour"),
])  # fmt: skip
def test_bad_specs_name_the_field(spec, message):
    with pytest.raises(InputError, match=message.replace("(", r"\(").replace(")", r"\)")):
        sweep(spec)


def test_the_command_writes_tables(tmp_path, capsys):
    cluster = _cluster(tmp_path)
    spec = tmp_path / "sweep.yaml"
    spec.write_text(f"snapshots: [{cluster}]\nseeds: [1]\n")
    out = tmp_path / "out"
    assert main(["sweep", str(spec), "--format", "parquet", "-o", str(out), "-j", "1"]) == 0
    assert pq.read_table(out / "metrics.parquet").num_rows == 1
    assert pq.read_table(out / "placements.parquet").num_rows == 10
    assert main(["sweep", str(spec), "-j", "1"]) == 0
    assert json.loads(capsys.readouterr().out)["metrics"][0]["placed"] == 6
    spec.write_text("snapshots: 3\n")
    assert main(["sweep", str(spec)]) == 2


def test_a_patch_is_its_base_with_the_patch_merged(tmp_path):
    cluster = _cluster(tmp_path)
    most = {"profiles": [{"pluginConfig": [{"name": "NodeResourcesFit", "args": {
        "scoringStrategy": {"type": "MostAllocated"}}}]}]}  # fmt: skip
    spec = {"snapshots": [cluster], "seeds": [3], "tie_break": "go-rand",
            "configs": ["default", {"name": "most", "patch": most}]}  # fmt: skip
    rows = sweep(spec, jobs=1).metrics.to_pylist()
    assert [r["config"] for r in rows] == ["default", "most"]
    file = tmp_path / "most.yaml"
    file.write_text(json.dumps({"apiVersion": "kubescheduler.config.k8s.io/v1beta3",
                                "kind": "KubeSchedulerConfiguration", **most}))  # fmt: skip
    alone = simulate(load_cluster(cluster), config=file, seed=3, tie_break="go-rand",
                     scores="none")  # fmt: skip
    patched = sweep({**spec, "configs": [{"name": "most", "patch": most}]}, jobs=1)
    assert [p["host"] for p in patched.placements.to_pylist()] == alone.host_names
    bad = {**spec, "configs": [{"patch": {"percentageOfNodesToScore": 300}}]}
    with pytest.raises(InputError, match=r"'patch-0': percentageOfNodesToScore"):
        sweep(bad)


def test_csv_tables(tmp_path):
    cluster = _cluster(tmp_path)
    spec = tmp_path / "sweep.yaml"
    spec.write_text(f"snapshots: [{cluster}]\nseeds: [1, 2]\n")
    out = tmp_path / "out"
    for _ in range(2):  # (a second run replaces its own tables)
        assert main(["sweep", str(spec), "--format", "csv", "-o", str(out), "-j", "1",
                     "--quiet"]) == 0  # fmt: skip
    import pyarrow.csv as pcsv

    assert pcsv.read_csv(out / "metrics.csv").column("placed").to_pylist() == [6, 6]
    assert pcsv.read_csv(out / "placements.csv").num_rows == 20
    (out / "metrics.csv").write_text("mine\n")  # not kscore's: never replaced
    assert main(["sweep", str(spec), "--format", "csv", "-o", str(out), "--quiet"]) == 2


def test_pending_pods_after_each_cycle(tmp_path, capsys):
    cluster = _cluster(tmp_path)
    spec = {"snapshots": [cluster], "seeds": [1, 2], "tie_break": "go-rand"}
    result = sweep(spec, jobs=1)
    rows = result.pending.to_pylist()
    assert result.pending.column_names == ["run", "step", "pending", "unschedulable"]
    for run in (0, 1):
        mine = [r for r in rows if r["run"] == run]
        hosts = [p["host"] for p in result.placements.to_pylist() if p["run"] == run]
        assert [r["step"] for r in mine] == list(range(11))  # (before the first cycle too)
        for r in mine:  # the pods of the cycles not come yet, and those that fit nowhere
            done = hosts[: r["step"]]
            assert r["pending"] == 10 - sum(h is not None for h in done)
            assert r["unschedulable"] == sum(h is None for h in done)
        assert mine[-1]["pending"] == mine[-1]["unschedulable"] == 4
    assert sweep({**spec, "mode": "score"}, jobs=1).pending.num_rows == 0  # (no cycles)
    file, out = tmp_path / "sweep.json", tmp_path / "out"
    file.write_text(json.dumps(spec))
    assert main(["sweep", str(file), "-j", "1", "--format", "parquet", "-o", str(out)]) == 0
    assert pq.read_table(out / "pending.parquet").to_pylist() == rows
    assert main(["sweep", str(file), "-j", "1"]) == 0
    assert json.loads(capsys.readouterr().out)["pending"] == rows


def test_any_executor(tmp_path):
    spec = {"snapshots": [_cluster(tmp_path), str(EMBEDDED)], "seeds": [1, 2]}
    here = sweep(spec, jobs=1)
    with ThreadPoolExecutor(2) as pool:
        there = sweep(spec, executor=pool)
    assert here.metrics.drop(["seconds"]).equals(there.metrics.drop(["seconds"]))
    assert here.placements.equals(there.placements) and here.pending.equals(there.pending)


@pytest.mark.parametrize(("options", "message"), [
    ({"jobs": 0}, "sweep: jobs must be an integer >= 1 or None, got int 0"),
    ({"executor": 3}, "sweep: executor must be a concurrent.futures.Executor (or a Dask "
                      "Client) or None, got int 3"),
    ({"ray": 1}, "sweep: ray must be True, an address (host:port) or None, got int 1"),
    ({"ray": True, "executor": ThreadPoolExecutor(1)},
     "sweep: give an executor or ray, not both"),
])  # fmt: skip
def test_bad_options_name_the_parameter(options, message, tmp_path):
    with pytest.raises(InputError, match=re.escape(message)):
        sweep({"snapshots": [_cluster(tmp_path)]}, **options)


def test_ray_not_installed_is_one_clear_error(tmp_path, capsys, monkeypatch):
    spec = tmp_path / "sweep.yaml"
    spec.write_text(f"snapshots: [{_cluster(tmp_path)}]\n")
    monkeypatch.setitem(sys.modules, "ray", None)  # (what `import ray` does without Ray)
    for args in (["sweep", str(spec), "--ray"], ["sweep", "--ray", str(spec)],
                 ["sweep", str(spec), "--ray", "10.0.0.1:6379"]):  # fmt: skip
        assert main(args) == 2
        assert capsys.readouterr().err == (
            "kscore: error: Ray is not installed: pip install 'kscore_fast[ray]' "
            "(or run without --ray)\n")  # fmt: skip
    with pytest.raises(InputError, match=r"Ray is not installed"):
        sweep(str(spec), ray=True)


def test_preemption_in_simulate_mode(tmp_path):
    """``preemption: true``: each run is ``simulate --preemption --retry-nominated``; the
    victims are counted (``preempted``) and leave the allocation."""
    nodes = [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": f"n{i}"},
              "status": {"allocatable": {"cpu": "2", "memory": "4Gi", "pods": "110"}}}
             for i in range(2)]  # fmt: skip

    def pod(name: str, cpu: str, priority: int, node: str | None = None) -> dict:
        spec = {
            "priority": priority,
            "containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": cpu}}}],
        }
        if node:
            spec["nodeName"] = node
        return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": spec}

    pods = [pod("low-0", "1500m", 0, "n0"), pod("low-1", "1500m", 0, "n1"),
            pod("high", "1", 100)]  # fmt: skip
    path = tmp_path / "cluster.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": nodes + pods}))
    spec = {"snapshots": [str(path)], "seeds": [1], "mode": "simulate"}
    plain = sweep({**spec}, jobs=1).metrics.to_pylist()[0]
    assert (plain["placed"], plain["unschedulable"], plain["preempted"]) == (0, 1, 0)
    row = sweep({**spec, "preemption": True}, jobs=1).metrics.to_pylist()[0]
    assert (row["placed"], row["unschedulable"], row["preempted"]) == (1, 0, 1)
    # one low pod evicted (1.5 of 2 CPUs gone), high bound in its place (1 of 2)
    assert sorted([plain["cpu_min"], plain["cpu_max"]]) == [0.75, 0.75]
    assert sorted([row["cpu_min"], row["cpu_max"]]) == [0.5, 0.75]
    with pytest.raises(InputError, match="preemption: applies in simulate mode only"):
        sweep({**spec, "mode": "score", "preemption": True})
