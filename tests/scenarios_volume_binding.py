"""Random clusters for VolumeBinding (tests/differential and tests/plugins): nodes with
hostname, zone and disk labels; PersistentVolumes with and without required node affinity
(local volumes on one host, zonal ones, terms on several keys, Gt/Lt terms, and a
``metadata.name`` field term, which the binder's label-only node never checks) and zone
labels; claims bound to present and absent volumes (``pv.kubernetes.io/bind-completed``
set), pre-bound ones (a volume name without it), unbound ones of Immediate, absent and
classless kinds, lost and deleting ones; pending pods with 0-3 claim volumes (some absent,
some of another namespace) beside other volumes.

Unbound claims of a WaitForFirstConsumer class (matching volumes, provisioning) are left
out: kscore_fast does not bind them yet.
"""

from __future__ import annotations

import copy
import random
from typing import Any

from .scenarios_volumes import VOLUME_ZONE_CONFIG, ZONE

HOST = "kubernetes.io/hostname"
ZONES = ("a", "b", "c")
BIND_COMPLETED = {"pv.kubernetes.io/bind-completed": "yes"}

#: the default profile without the volume limits and VolumeRestrictions (v1beta3)
VOLUME_BINDING_CONFIG: dict[str, Any] = copy.deepcopy(VOLUME_ZONE_CONFIG)
_DISABLED = VOLUME_BINDING_CONFIG["profiles"][0]["plugins"]["multiPoint"]["disabled"]
_DISABLED.remove({"name": "VolumeBinding"})


def _node(i: int, rng: random.Random) -> dict[str, Any]:
    labels = {HOST: f"n{i}", "rank": str(i)}
    if rng.random() < 0.8:
        labels[ZONE] = rng.choice(ZONES)
    if rng.random() < 0.5:
        labels["disk"] = rng.choice(("ssd", "hdd"))
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": f"n{i}", "labels": labels},
        "status": {"allocatable": {"cpu": "8", "memory": "16Gi", "pods": "110"}},
    }


def _expr(key: str, op: str, values: list[str] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"key": key, "operator": op}
    if values is not None:
        out["values"] = values
    return out


def _term(rng: random.Random, n_nodes: int) -> dict[str, Any]:
    shape = rng.random()
    if shape < 0.35:  # a local volume
        return {"matchExpressions": [_expr(HOST, "In", [f"n{rng.randrange(n_nodes + 1)}"])]}
    if shape < 0.65:
        return {"matchExpressions": [_expr(ZONE, "In", rng.sample(ZONES, rng.randint(1, 2)))]}
    if shape < 0.8:
        return {
            "matchExpressions": [
                _expr(ZONE, "NotIn", [rng.choice(ZONES)]),
                _expr("disk", rng.choice(("Exists", "DoesNotExist"))),
            ]
        }
    if shape < 0.9:  # the binder's node has no name: field terms always match
        return {"matchFields": [_expr("metadata.name", "In", [f"n{rng.randrange(n_nodes)}"])]}
    return {
        "matchExpressions": [_expr("rank", rng.choice(("Gt", "Lt")), [str(rng.randrange(n_nodes))])]
    }


def _volume(name: str, rng: random.Random, n_nodes: int) -> dict[str, Any]:
    spec: dict[str, Any] = {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"],
                            "hostPath": {"path": f"/data/{name}"}}  # fmt: skip
    if rng.random() < 0.7:
        terms = [_term(rng, n_nodes) for _ in range(rng.choice((1, 1, 2)))]
        spec["nodeAffinity"] = {"required": {"nodeSelectorTerms": terms}}
    labels = {ZONE: rng.choice(ZONES)} if rng.random() < 0.3 else {}
    return {"apiVersion": "v1", "kind": "PersistentVolume",
            "metadata": {"name": name, "labels": labels}, "spec": spec}  # fmt: skip


def _claim(i: int, rng: random.Random, volumes: list[str]) -> dict[str, Any]:
    ns = "default" if rng.random() < 0.85 else "other"
    meta: dict[str, Any] = {"name": f"c{i}", "namespace": ns}
    spec: dict[str, Any] = {"accessModes": ["ReadWriteOnce"],
                            "resources": {"requests": {"storage": "1Gi"}}}  # fmt: skip
    status: dict[str, Any] = {}
    shape = rng.random()
    if shape < 0.75 and volumes:  # bound
        spec["volumeName"] = rng.choice(volumes)
        meta["annotations"] = dict(BIND_COMPLETED)
        status["phase"] = "Bound"
    elif shape < 0.8:  # bound to an absent volume
        spec["volumeName"] = "pv-absent"
        meta["annotations"] = dict(BIND_COMPLETED)
        status["phase"] = "Lost" if rng.random() < 0.5 else "Bound"
    elif shape < 0.85 and volumes:  # pre-bound: the PV controller has not finished
        spec["volumeName"] = rng.choice(volumes)
        spec["storageClassName"] = rng.choice(("wffc", "imm"))
    else:  # unbound, of a class that binds at once (or none, or an absent one)
        spec["storageClassName"] = rng.choice(("imm", "", "ghost"))
    if rng.random() < 0.03:
        meta["deletionTimestamp"] = "2026-01-01T00:00:00Z"
        meta["finalizers"] = ["kubernetes.io/pvc-protection"]
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": meta,
            "spec": spec, "status": status}  # fmt: skip


def _pod(j: int, rng: random.Random, claims: list[tuple[str, str]]) -> dict[str, Any]:
    vols: list[dict[str, Any]] = []
    for k in range(rng.choice((0, 1, 1, 1, 2, 3))):
        name = rng.choice(claims)[1] if claims and rng.random() < 0.95 else "c-absent"
        vols.append({"name": f"v{k}", "persistentVolumeClaim": {"claimName": name}})
    if rng.random() < 0.3:
        vols.insert(rng.randint(0, len(vols)), {"name": "tmp", "emptyDir": {}})
    spec: dict[str, Any] = {"containers": [{
        "name": "c", "image": "app",
        "resources": {"requests": {"cpu": f"{rng.choice((100, 500, 2000))}m",
                                   "memory": "64Mi"}}}]}  # fmt: skip
    if vols:
        spec["volumes"] = vols
    ns = "default" if rng.random() < 0.9 else "other"
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"p{j}", "namespace": ns},
            "spec": spec}  # fmt: skip


def binding_scenario(seed: int, max_nodes: int = 8, max_pending: int = 10
                     ) -> list[dict[str, Any]]:  # fmt: skip
    rng = random.Random(seed)
    n_nodes = rng.randint(1, max_nodes)
    objs: list[dict[str, Any]] = [_node(i, rng) for i in range(n_nodes)]
    for name, mode in (("wffc", "WaitForFirstConsumer"), ("imm", "Immediate")):
        objs.append({"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
                     "metadata": {"name": name}, "provisioner": "example.com/disk",
                     "volumeBindingMode": mode})  # fmt: skip
    volumes = [f"pv{i}" for i in range(rng.randint(0, 8))]
    objs += [_volume(name, rng, n_nodes) for name in volumes]
    claims = []
    for i in range(rng.randint(0, 8)):
        claim = _claim(i, rng, volumes)
        objs.append(claim)
        claims.append((claim["metadata"]["namespace"], claim["metadata"]["name"]))
    objs += [_pod(j, rng, claims) for j in range(rng.randint(1, max_pending))]
    return objs
