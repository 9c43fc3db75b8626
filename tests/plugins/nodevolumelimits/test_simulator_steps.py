"""The disk plugins in the Simulator's steps: binding a pod attaches its disks to the
node, deleting it detaches them, and a copy keeps its own counts (VolumeRestrictions and
the volume limits through ``assume``/``remove``)."""

from __future__ import annotations

from typing import Any

from kscore_fast import Simulator, api


def _node(**alloc: str) -> dict[str, Any]:
    allocatable = {"cpu": "8", "memory": "8Gi", "pods": "20", **alloc}
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n0"},
            "status": {"allocatable": allocatable}}  # fmt: skip


def _pod(name: str, *volumes: dict[str, Any]) -> dict[str, Any]:
    vols = [{"name": f"v{i}", **v} for i, v in enumerate(volumes)]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
            "spec": {"containers": [{"name": "c", "image": "x"}], "volumes": vols}}  # fmt: skip


def _gce(name: str, read_only: bool = False) -> dict[str, Any]:
    return {"gcePersistentDisk": {"pdName": name, "readOnly": read_only}}


def test_disk_conflict_follows_binding_and_deletion():
    objs = [_node(), _pod("a", _gce("d")), _pod("b", _gce("d", True)), _pod("c", _gce("d", True))]
    sim = Simulator(api.load_cluster(objects=objs))
    assert sim.schedule_and_bind("default/a") == "n0"
    r = sim.schedule("default/b")
    assert r["error"] == "0/1 nodes are available: 1 node(s) had no available disk."
    branch = sim.copy()
    sim.delete("default/a")
    assert sim.schedule_and_bind("default/b") == "n0"
    assert sim.schedule_and_bind("default/c") == "n0"  # both read-only
    assert branch.schedule("default/c")["host"] is None  # the branch still holds a


def test_attach_limit_follows_binding_and_deletion():
    objs = [_node(**{"attachable-volumes-gce-pd": "2"}), _pod("a", _gce("d1"), _gce("d2")),
            _pod("b", _gce("d3")), _pod("c", _gce("d1", True))]  # fmt: skip
    sim = Simulator(api.load_cluster(objects=objs))
    assert sim.schedule_and_bind("default/a") == "n0"
    r = sim.schedule("default/b")
    assert r["error"] == "0/1 nodes are available: 1 node(s) exceed max volume count."
    assert sim.schedule("default/c")["error"] == (
        "0/1 nodes are available: 1 node(s) had no available disk."
    )  # (filter order)
    sim.delete("default/a")
    assert sim.schedule_and_bind("default/b") == "n0"
