"""CSIStorageCapacity events (``addCapacity``, ``updateCapacity``, ``deleteCapacity``):
the events file's ops, the Simulator's methods and their input errors, and what the
capacity check reads after them (the differential tests compare them with Go)."""

from __future__ import annotations

import pytest

from kscore_fast import Simulator, load_cluster
from kscore_fast.errors import InputError
from kscore_fast.queue.events_file import event

NODE = {"apiVersion": "v1", "kind": "Node",
        "metadata": {"name": "n", "labels": {"kubernetes.io/hostname": "n"}},
        "status": {"allocatable": {"cpu": "1", "memory": "1Gi", "pods": "10"}}}  # fmt: skip
OBJS = [
    NODE,
    {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": "c"},
     "provisioner": "d.io", "volumeBindingMode": "WaitForFirstConsumer"},
    {"apiVersion": "storage.k8s.io/v1", "kind": "CSIDriver", "metadata": {"name": "d.io"},
     "spec": {"storageCapacity": True}},
    {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
     "metadata": {"name": "data", "namespace": "default"},
     "spec": {"storageClassName": "c", "accessModes": ["ReadWriteOnce"],
              "resources": {"requests": {"storage": "2Gi"}}}},
    {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
     "spec": {"containers": [{"name": "c", "image": "i"}],
              "volumes": [{"name": "v", "persistentVolumeClaim": {"claimName": "data"}}]}},
]  # fmt: skip


def _capacity(size: str) -> dict:
    return {"apiVersion": "storage.k8s.io/v1beta1", "kind": "CSIStorageCapacity",
            "metadata": {"name": "cap", "namespace": "default"}, "storageClassName": "c",
            "nodeTopology": {}, "capacity": size}  # fmt: skip


def test_the_events_file_reads_the_ops():
    assert event({"time": 1, "op": "addCapacity", "capacity": _capacity("1Gi")}, "x").op == (
        "addCapacity")  # fmt: skip
    assert event({"time": 1, "op": "deleteCapacity", "capacity": "default/cap"}, "x").arg == (
        "default/cap")  # fmt: skip
    with pytest.raises(InputError, match="'capacity' must be an object"):
        event({"time": 1, "op": "updateCapacity", "capacity": "default/cap"}, "x")


def test_the_check_reads_the_objects_as_the_events_leave_them():
    sim = Simulator(load_cluster(objects=OBJS))
    assert "did not have enough free storage" in sim.schedule("default/p")["error"]
    sim.add_capacity(_capacity("1Gi"))
    assert sim.schedule("default/p")["host"] is None
    sim.update_capacity(_capacity("3Gi"))
    assert sim.schedule("default/p")["host"] == "n"
    sim.delete_capacity("default/cap")
    assert sim.schedule("default/p")["host"] is None


def test_bad_capacity_events_are_input_errors():
    sim = Simulator(load_cluster(objects=OBJS))
    sim.add_capacity(_capacity("1Gi"))
    with pytest.raises(InputError, match="add_capacity: CSIStorageCapacity default/cap exists"):
        sim.add_capacity(_capacity("1Gi"))
    with pytest.raises(InputError, match="no CSIStorageCapacity default/other"):
        sim.delete_capacity("default/other")
    gone = _capacity("1Gi")
    gone["metadata"]["name"] = "gone"
    with pytest.raises(InputError, match="update_capacity: no CSIStorageCapacity default/gone"):
        sim.update_capacity(gone)
    bad = _capacity("lots")
    with pytest.raises(InputError, match="capacity"):
        sim.update_capacity(bad)
    with pytest.raises(InputError, match="add_capacity"):
        sim.add_capacity({"kind": "Pod"})
