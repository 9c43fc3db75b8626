"""Random clusters with storage objects, for VolumeZone (tests/differential and
tests/plugins): nodes with and without zone and region labels (GA and beta), PersistentVolumes
with single-zone, multi-zone (``a__b``) and malformed zone labels, claims bound to present
and absent volumes, unbound claims of WaitForFirstConsumer, Immediate, defaulted and absent
classes (by ``spec.storageClassName`` or the beta annotation), and pending pods with 0-3
claim volumes (some absent, some of another namespace) beside other volumes.
"""

from __future__ import annotations

import random
from typing import Any

ZONE, REGION = "topology.kubernetes.io/zone", "topology.kubernetes.io/region"
BETA_ZONE = "failure-domain.beta.kubernetes.io/zone"
BETA_REGION = "failure-domain.beta.kubernetes.io/region"
ZONES, REGIONS = ("a", "b", "c"), ("r1", "r2")


def _node_labels(rng: random.Random) -> dict[str, str]:
    labels = {"kubernetes.io/hostname": ""}
    for key, values, p in (
        (ZONE, ZONES, 0.6),
        (REGION, REGIONS, 0.4),
        (BETA_ZONE, ZONES, 0.2),
        (BETA_REGION, REGIONS, 0.15),
    ):
        if rng.random() < p:
            labels[key] = rng.choice(values)
    return labels


def _volume_labels(rng: random.Random) -> dict[str, str]:
    labels: dict[str, str] = {}
    if rng.random() < 0.2:
        labels["app"] = "db"
    for key, values, p in (
        (ZONE, ZONES, 0.6),
        (REGION, REGIONS, 0.3),
        (BETA_ZONE, ZONES, 0.15),
        (BETA_REGION, REGIONS, 0.1),
    ):
        if rng.random() < p:
            shape = rng.random()
            if shape < 0.6:
                labels[key] = rng.choice(values)
            elif shape < 0.9:
                labels[key] = "__".join(rng.sample(values, 2))
            else:  # an empty zone between delimiters: LabelZonesToSet fails, Go ignores it
                labels[key] = f"{rng.choice(values)}____{rng.choice(values)}"
    return labels


def random_claims(rng: random.Random, volumes: list[str], classes: list[str]
                  ) -> tuple[list[dict[str, Any]], list[tuple[str, str]]]:  # fmt: skip
    """0-8 claims (mostly in ``default``): bound to one of ``volumes``, to an absent one,
    or unbound; of one of ``classes`` ("" none) by ``spec.storageClassName`` or the beta
    annotation. The objects and the claims' (namespace, name)."""
    objs: list[dict[str, Any]] = []
    claims: list[tuple[str, str]] = []
    for i in range(rng.randint(0, 8)):
        ns = "default" if rng.random() < 0.85 else "other"
        meta: dict[str, Any] = {"name": f"c{i}", "namespace": ns}
        spec: dict[str, Any] = {
            "accessModes": ["ReadWriteOnce"],
            "resources": {"requests": {"storage": "1Gi"}},
        }
        shape = rng.random()
        if shape < 0.5 and volumes:
            spec["volumeName"] = rng.choice(volumes)
        elif shape < 0.55:
            spec["volumeName"] = "pv-absent"
        cls = rng.choice(classes)
        if cls and rng.random() < 0.2:
            meta["annotations"] = {"volume.beta.kubernetes.io/storage-class": cls}
        elif cls:
            spec["storageClassName"] = cls
        objs.append(
            {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": meta, "spec": spec}
        )
        claims.append((ns, f"c{i}"))
    return objs, claims


def volume_scenario(seed: int, max_nodes: int = 8, max_pending: int = 8) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    objs: list[dict[str, Any]] = []
    for i in range(rng.randint(1, max_nodes)):
        labels = _node_labels(rng)
        labels["kubernetes.io/hostname"] = f"n{i}"
        objs.append(
            {
                "apiVersion": "v1",
                "kind": "Node",
                "metadata": {"name": f"n{i}", "labels": labels},
                "status": {"allocatable": {"cpu": "8", "memory": "16Gi", "pods": "110"}},
            }
        )
    classes = {"wffc": "WaitForFirstConsumer", "imm": "Immediate", "plain": None}
    for name, mode in classes.items():
        sc: dict[str, Any] = {
            "apiVersion": "storage.k8s.io/v1",
            "kind": "StorageClass",
            "metadata": {"name": name},
            "provisioner": "example.com/disk",
        }
        if mode is not None:
            sc["volumeBindingMode"] = mode
        objs.append(sc)
    volumes = [f"pv{i}" for i in range(rng.randint(0, 6))]
    for name in volumes:
        objs.append(
            {
                "apiVersion": "v1",
                "kind": "PersistentVolume",
                "metadata": {"name": name, "labels": _volume_labels(rng)},
                "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"]},
            }
        )
    claim_objs, claims = random_claims(rng, volumes, ["wffc", "imm", "plain", "ghost", ""])
    objs += claim_objs
    for j in range(rng.randint(1, max_pending)):
        vols: list[dict[str, Any]] = []
        for k in range(rng.choice((0, 1, 1, 2, 3))):
            if claims and rng.random() < 0.85:
                name = rng.choice(claims)[1]
            else:
                name = "c-absent"
            vols.append({"name": f"v{k}", "persistentVolumeClaim": {"claimName": name}})
        if rng.random() < 0.3:
            vols.insert(rng.randint(0, len(vols)), {"name": "tmp", "emptyDir": {}})
        spec = {
            "containers": [
                {
                    "name": "c",
                    "image": "app",
                    "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}},
                }
            ]
        }
        if vols:
            spec["volumes"] = vols
        ns = "default" if rng.random() < 0.9 else "other"
        objs.append(
            {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {"name": f"p{j}", "namespace": ns},
                "spec": spec,
            }
        )
    return objs


#: the default profile with, of the volume plugins, only VolumeZone (v1beta3)
VOLUME_ZONE_CONFIG: dict[str, Any] = {
    "apiVersion": "kubescheduler.config.k8s.io/v1beta3",
    "kind": "KubeSchedulerConfiguration",
    "profiles": [
        {
            "schedulerName": "default-scheduler",
            "plugins": {
                "multiPoint": {
                    "disabled": [
                        {"name": name}
                        for name in (
                            "VolumeBinding",
                            "VolumeRestrictions",
                            "NodeVolumeLimits",
                            "EBSLimits",
                            "GCEPDLimits",
                            "AzureDiskLimits",
                        )
                    ]
                }
            },
        }
    ],
}
