"""The PVC → PV bindings VolumeBinding's Reserve decided, as output: ``simulate``'s JSON
and tables, the Simulator's results and ``volume_bindings``, the timed queue's attempts;
and a Simulator call that raises after its Reserve claimed volumes leaves them free."""

from __future__ import annotations

import json

import pyarrow.parquet as pq
import pytest

from kscore_fast import Simulator, api
from kscore_fast.cli import main
from kscore_fast.io.output import iter_json
from kscore_fast.model.storage import ClaimRecord
from kscore_fast.plugins.volumebinding.complete import claim_uid

from ..harness import cluster_of

HOST = "kubernetes.io/hostname"


def _node(name: str) -> dict:
    return {"kind": "Node", "metadata": {"name": name, "labels": {HOST: name}},
            "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "10"}}}  # fmt: skip


def _class(name: str, provisioner: str) -> dict:
    return {"kind": "StorageClass", "metadata": {"name": name}, "provisioner": provisioner,
            "volumeBindingMode": "WaitForFirstConsumer"}  # fmt: skip


def _volume(name: str, size: str, node: str | None = None, mode: str = "ReadWriteOnce") -> dict:
    spec = {"capacity": {"storage": size}, "accessModes": [mode], "storageClassName": "local"}
    if node is not None:
        spec["nodeAffinity"] = {"required": {"nodeSelectorTerms": [{"matchExpressions": [
            {"key": HOST, "operator": "In", "values": [node]}]}]}}  # fmt: skip
    return {"kind": "PersistentVolume", "metadata": {"name": name, "resourceVersion": "1"},
            "spec": spec, "status": {"phase": "Available"}}  # fmt: skip


def _claim(name: str, cls: str, size: str = "1Gi", mode: str = "ReadWriteOnce") -> dict:
    return {"kind": "PersistentVolumeClaim", "metadata": {"name": name, "namespace": "default"},
            "spec": {"accessModes": [mode], "storageClassName": cls,
                     "resources": {"requests": {"storage": size}}}}  # fmt: skip


def _pod(name: str, *claims: str) -> dict:
    return {"kind": "Pod", "metadata": {"name": name, "namespace": "default"},
            "spec": {"containers": [{"name": "c", "image": "x"}], "volumes": [
                {"name": f"v{i}", "persistentVolumeClaim": {"claimName": c}}
                for i, c in enumerate(claims)]}}  # fmt: skip


def _objects() -> list[dict]:
    """Two nodes; a local volume on n1 and a larger shared one anywhere; pod ``a`` claims
    both kinds (its small claim takes the local volume, so it lands on n1, its big one the
    shared volume) and one to provision; ``b`` wants the local volume too (the shared one
    lacks its access mode); ``c`` has no claim."""
    rwx = "ReadWriteMany"
    return [_node("n0"), _node("n1"), _class("local", "kubernetes.io/no-provisioner"),
            _class("made", "example.com/disk"), _volume("pv-local", "1Gi", "n1"),
            _volume("pv-big", "5Gi", mode=rwx), _claim("small", "local"),
            _claim("big", "local", "4Gi", rwx),
            _claim("new", "made"), _claim("other", "local"),
            _pod("a", "new", "big", "small"), _pod("b", "other"), _pod("c")]  # fmt: skip


A_BINDINGS = [
    {"claim": "small", "volume": "pv-local", "provisioned": False, "selectedNode": None},
    {"claim": "big", "volume": "pv-big", "provisioned": False, "selectedNode": None},
    {
        "claim": "new",
        "volume": "pvc-" + claim_uid(ClaimRecord("default", "new")),
        "provisioned": True,
        "selectedNode": "n1",
    },
]


def _write(tmp_path, objects: list[dict]) -> str:
    path = tmp_path / "cluster.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objects}))
    return str(path)


def test_simulate_reports_what_reserve_decided(tmp_path):
    """Static bindings first (claims by request), then the claims to provision, each on
    the pod's host; a pod left without a volume and one without claims get none."""
    result = api.simulate(cluster_of(_objects(), tmp_path), tie_break="go-rand", seed=3)
    doc = result.to_dict()
    by_pod = {r["pod"]: r for r in doc["results"]}
    assert by_pod["default/a"]["host"] == "n1"
    assert by_pod["default/a"]["volumeBindings"] == A_BINDINGS
    assert by_pod["default/b"]["host"] is None  # pv-local is a's now
    assert "volumeBindings" not in by_pod["default/b"]
    assert "volumeBindings" not in by_pod["default/c"]
    assert json.loads("".join(iter_json(result))) == doc
    rows = result.volume_bindings_table().to_pylist()
    assert [(r["pod"], r["claim"], r["volume"], r["provisioned"], r["selected_node"])
            for r in rows] == [("default/a", b["claim"], b["volume"], b["provisioned"],
                                b["selectedNode"]) for b in A_BINDINGS]  # fmt: skip


def test_score_reserves_nothing(tmp_path):
    result = api.score(cluster_of(_objects(), tmp_path))
    assert not result.volume_bindings
    assert all("volumeBindings" not in r for r in result.to_dict()["results"])


def test_the_cli_writes_the_volume_bindings_table(tmp_path):
    path, out = _write(tmp_path, _objects()), tmp_path / "out"
    args = ["simulate", path, "--quiet", "--tie-break", "go-rand", "--format", "parquet",
            "-o", str(out)]  # fmt: skip
    assert main(args) == 0
    rows = pq.read_table(out / "volume_bindings.parquet").to_pylist()
    assert [r["claim"] for r in rows] == ["small", "big", "new"]
    assert main(args) == 0  # the directory is kscore's own: replaced


def test_the_simulator_reports_and_keeps_bindings(tmp_path):
    sim = Simulator(cluster_of(_objects(), tmp_path), tie_break="go-rand", seed=3)
    entry = sim.schedule_one("default/a")
    assert entry["host"] == "n1" and entry["volumeBindings"] == A_BINDINGS
    assert "volumeBindings" not in sim.schedule_one("default/c")
    result = sim.run(["default/b"])
    assert result.hosts[0] < 0 and not result.volume_bindings
    assert sim.volume_bindings == {"default/a": A_BINDINGS}
    sim.delete("default/a")  # its claims stay bound, as in Go's assume cache
    assert sim.volume_bindings == {"default/a": A_BINDINGS}


def test_run_results_carry_bindings(tmp_path):
    sim = Simulator(cluster_of(_objects(), tmp_path), tie_break="go-rand", seed=3)
    result = sim.run()
    doc = {r["pod"]: r for r in result.to_dict()["results"]}
    assert doc["default/a"]["volumeBindings"] == A_BINDINGS
    assert sim.volume_bindings == {"default/a": A_BINDINGS}


class _Stop(Exception):
    pass


def _stop(_: int) -> None:
    raise _Stop


def _claims_pv_local_then_b(sim: Simulator) -> None:
    """After the call that raised: ``b`` can still take pv-local (on n1)."""
    assert sim.volume_bindings == {}
    entry = sim.schedule_one("default/b")
    assert entry["host"] == "n1"
    assert entry["volumeBindings"] == [
        {"claim": "other", "volume": "pv-local", "provisioned": False, "selectedNode": None}
    ]


@pytest.mark.parametrize("preemption", [False, True])
def test_a_run_that_raises_leaves_its_volumes_free(tmp_path, preemption):
    """``run`` binds ``a`` (its Reserve claims pv-local), then its progress callback
    raises: the volumes ``a`` claimed are free again."""
    sim = Simulator(cluster_of(_objects(), tmp_path), tie_break="go-rand", seed=3,
                    preemption=preemption)  # fmt: skip
    with pytest.raises(_Stop):
        sim.run(["default/a"], progress=_stop)
    assert sim.host_of("default/a") is None
    _claims_pv_local_then_b(sim)


def test_a_step_that_raises_leaves_its_volumes_free(tmp_path, monkeypatch):
    """``schedule_and_bind`` and ``schedule_one`` fail after the cycle assumed ``a`` (its
    Reserve claimed pv-local): the volumes are free again."""
    sim = Simulator(cluster_of(_objects(), tmp_path), tie_break="go-rand", seed=3)
    real = Simulator._bind_record

    def bind_then_fail(self, pod, i, node):
        real(self, pod, i, node)
        raise _Stop

    monkeypatch.setattr(Simulator, "_bind_record", bind_then_fail)
    for call in (sim.schedule_and_bind, sim.schedule_one):
        with pytest.raises(_Stop):
            call("default/a")
    monkeypatch.undo()
    assert sim.host_of("default/a") is None
    _claims_pv_local_then_b(sim)


def test_a_replay_that_raises_leaves_its_volumes_free(tmp_path):
    sim = Simulator(cluster_of(_objects(), tmp_path), tie_break="go-rand", seed=3)
    with pytest.raises(_Stop):
        sim.replay([("schedule", "default/a"), ("delete", "default/c")], progress=_stop)
    _claims_pv_local_then_b(sim)


def test_the_timed_queue_reports_bindings(tmp_path):
    from kscore_fast.queue import replay_timed

    events = tmp_path / "events.jsonl"
    events.write_text("")
    result = replay_timed([_write(tmp_path, _objects())], events, tie_break="go-rand", seed=3)
    bound = [r for r in result.to_dict()["attempts"] if r["pod"] == "default/a"]
    assert bound[0]["host"] == "n1" and bound[0]["volumeBindings"] == A_BINDINGS
    rows = result.tables()["volume_bindings"].to_pylist()
    assert [(r["pod"], r["claim"]) for r in rows] == [("default/a", b["claim"])
                                                     for b in A_BINDINGS]  # fmt: skip
