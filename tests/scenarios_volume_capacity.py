"""Random clusters for VolumeBinding's storage capacity check (tests/differential and
tests/plugins): :func:`tests.scenarios_volume_binding.binding_scenario`'s clusters with
a CSIDriver for their provisioner (renamed ``disk.csi.example.com``; ``storageCapacity``
true, false, absent, or no driver object at all), a class ``capped`` of a driver that
checks capacity (some claims of ``wffc`` moved to it), and CSIStorageCapacity objects of
every class (and of an absent one) in two namespaces: node topologies by zone, host,
disk label, empty (every node) or absent (no node), capacities in binary and decimal
units around the claims' 1-6Gi requests (some too small, some equal, some absent), some
with a ``maximumVolumeSize`` smaller or larger than the capacity.
"""

from __future__ import annotations

import random
from typing import Any

from .scenarios_volume_binding import HOST, ZONES, binding_scenario
from .scenarios_volumes import ZONE

#: the provisioner of the scenarios' classes (a CSIDriver's name: a DNS subdomain) and of
#: ``capped``
DISK, CAPPED = "disk.csi.example.com", "capped.csi.example.com"
CLASSES = ("wffc", "zonal", "capped", "local", "imm", "ghost")


def _driver(name: str, capacity: bool | None) -> dict[str, Any]:
    spec: dict[str, Any] = {"attachRequired": False}
    if capacity is not None:
        spec["storageCapacity"] = capacity
    return {"apiVersion": "storage.k8s.io/v1", "kind": "CSIDriver",
            "metadata": {"name": name}, "spec": spec}  # fmt: skip


def _topology(rng: random.Random, n_nodes: int) -> dict[str, Any] | None:
    shape = rng.random()
    if shape < 0.35:
        return {"matchLabels": {ZONE: rng.choice(ZONES)}}
    if shape < 0.55:
        return {"matchLabels": {HOST: f"n{rng.randrange(n_nodes + 1)}"}}
    if shape < 0.65:
        return {"matchExpressions": [{"key": ZONE, "operator": "In",
                                      "values": rng.sample(ZONES, 2)}]}  # fmt: skip
    if shape < 0.75:
        return {"matchExpressions": [{"key": "disk", "operator": "Exists"},
                                     {"key": ZONE, "operator": "NotIn",
                                      "values": [rng.choice(ZONES)]}]}  # fmt: skip
    if shape < 0.9:
        return {}  # every node
    return None  # no node


def _size(rng: random.Random) -> str:
    shape = rng.random()
    if shape < 0.6:
        return f"{rng.randint(0, 8)}Gi"
    return rng.choice(("2500Mi", "3G", "5000000000", "1.5Gi", "4096Mi", "6442450944"))


def _capacity(i: int, rng: random.Random, n_nodes: int) -> dict[str, Any]:
    obj: dict[str, Any] = {
        "apiVersion": "storage.k8s.io/v1beta1", "kind": "CSIStorageCapacity",
        "metadata": {"name": f"csisc-{i}", "namespace": rng.choice(("default", "kube-system")),
                     "labels": {"csi.storage.k8s.io/managed-by": "external-provisioner"}},
        "storageClassName": rng.choice(CLASSES),
    }  # fmt: skip
    topology = _topology(rng, n_nodes)
    if topology is not None:
        obj["nodeTopology"] = topology
    if rng.random() < 0.9:
        obj["capacity"] = _size(rng)
    if rng.random() < 0.35:
        obj["maximumVolumeSize"] = _size(rng)
    return obj


def capacity_scenario(seed: int, max_nodes: int = 8, max_pending: int = 10
                      ) -> list[dict[str, Any]]:  # fmt: skip
    objs = binding_scenario(seed, max_nodes=max_nodes, max_pending=max_pending)
    rng = random.Random(seed * 7919 + 17)  # (binding_scenario's stream stays as it is)
    n_nodes = sum(o["kind"] == "Node" for o in objs)
    objs.append({"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
                 "metadata": {"name": "capped"}, "provisioner": CAPPED,
                 "volumeBindingMode": "WaitForFirstConsumer"})  # fmt: skip
    for o in objs:
        if o["kind"] == "StorageClass" and o["provisioner"] == "example.com/disk":
            o["provisioner"] = DISK
        spec = o.get("spec", {})
        if (o["kind"] == "PersistentVolumeClaim" and spec.get("storageClassName") == "wffc"
                and "volumeName" not in spec and rng.random() < 0.4):  # fmt: skip
            spec["storageClassName"] = "capped"
    disk = rng.choice((True, True, False, None, "absent"))
    if disk != "absent":
        objs.append(_driver(DISK, disk))
    objs.append(_driver(CAPPED, rng.random() < 0.85))
    objs += [_capacity(i, rng, n_nodes) for i in range(rng.randint(0, 8))]
    return objs
