"""Random clusters for VolumeRestrictions and the volume limits (tests/differential and
tests/plugins): nodes with and without ``attachable-volumes-*`` allocatable and instance
types, CSINodes with driver counts and migrated-plugins annotations, StorageClasses of
in-tree and CSI provisioners, PersistentVolumes of GCE PD (zonal, regional, unspecified),
EBS (bare and ``aws://`` ids), Azure Disk (managed, shared, defaulted) and CSI sources,
claims bound, unbound or bound to absent volumes, and bound and pending pods with inline
GCE PD, EBS, Azure Disk, RBD and iSCSI volumes (read-only or not) and claims, of priorities
0, 10 and 100 (preemption evicts the pods that hold a disk or fill a node's attach
limit). Every claim a pending pod names exists (an absent one is a Filter error in Go).
"""

from __future__ import annotations

import random
from typing import Any

from .scenarios_volumes import random_claims

GCE_DRIVER, EBS_DRIVER, AZURE_DRIVER = (
    "pd.csi.storage.gke.io",
    "ebs.csi.aws.com",
    "disk.csi.azure.com",
)
CSI_DRIVERS = (GCE_DRIVER, EBS_DRIVER, AZURE_DRIVER, "csi.example.com")
PLUGINS = ("kubernetes.io/gce-pd", "kubernetes.io/aws-ebs", "kubernetes.io/azure-disk",
           "kubernetes.io/cinder")  # fmt: skip
PROVISIONERS = (*PLUGINS[:3], "csi.example.com", "kubernetes.io/no-provisioner")
NAMES = ("d1", "d2", "d3", "d4")

#: the default profile, every volume plugin in it
DISK_CONFIG: dict[str, Any] = {
    "apiVersion": "kubescheduler.config.k8s.io/v1beta3",
    "kind": "KubeSchedulerConfiguration",
}


def _node(rng: random.Random, i: int) -> dict[str, Any]:
    alloc = {"cpu": "8", "memory": "16Gi", "pods": "110"}
    for key in ("attachable-volumes-gce-pd", "attachable-volumes-aws-ebs",
                "attachable-volumes-azure-disk", f"attachable-volumes-csi-{GCE_DRIVER}",
                "attachable-volumes-csi-csi.example.com"):  # fmt: skip
        if rng.random() < 0.3:
            alloc[key] = str(rng.randint(0, 3))
    labels = {"kubernetes.io/hostname": f"n{i}"}
    if rng.random() < 0.3:
        labels["node.kubernetes.io/instance-type"] = rng.choice(["m5.large", "t2.micro"])
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": f"n{i}", "labels": labels},
            "status": {"allocatable": alloc}}  # fmt: skip


def _csi_node(rng: random.Random, i: int) -> dict[str, Any]:
    drivers = []
    for d in rng.sample(CSI_DRIVERS, rng.randint(0, 3)):
        entry: dict[str, Any] = {"name": d, "nodeID": f"n{i}"}
        if rng.random() < 0.7:
            entry["allocatable"] = {"count": rng.randint(0, 3)}
        drivers.append(entry)
    meta: dict[str, Any] = {"name": f"n{i}"}
    if rng.random() < 0.7:
        migrated = rng.sample(PLUGINS, rng.randint(0, 4))
        meta["annotations"] = {"storage.alpha.kubernetes.io/migrated-plugins": ",".join(migrated)}
    return {"apiVersion": "storage.k8s.io/v1", "kind": "CSINode", "metadata": meta,
            "spec": {"drivers": drivers}}  # fmt: skip


def _pv_source(rng: random.Random, names: tuple[str, ...]
               ) -> tuple[dict[str, Any], dict[str, str]]:  # fmt: skip
    shape, name = rng.random(), rng.choice(names)
    if shape < 0.3:
        labels = {}
        zone = rng.random()
        if zone < 0.4:
            labels["topology.kubernetes.io/zone"] = "us-central1-a"
        elif zone < 0.6:
            labels["failure-domain.beta.kubernetes.io/zone"] = "us-central1-a__us-central1-b"
        elif zone < 0.7:
            labels["topology.kubernetes.io/zone"] = "us-central1-a__europe-west1-b"
        return {"gcePersistentDisk": {"pdName": name}}, labels
    if shape < 0.55:
        vid = rng.choice([f"vol-{name}", f"aws://us-east-1a/vol-{name}", "aws://x/bad"])
        return {"awsElasticBlockStore": {"volumeID": vid}}, {}
    if shape < 0.75:
        src: dict[str, Any] = {"diskName": name, "diskURI": f"/sub/{name}"}
        kind = rng.choice(["Managed", "Shared", None])
        if kind:
            src["kind"] = kind
        return {"azureDisk": src}, {}
    return {"csi": {"driver": rng.choice(CSI_DRIVERS), "volumeHandle": name}}, {}


def _pod_volumes(rng: random.Random, claims: list[tuple[str, str]], ns: str,
                 names: tuple[str, ...]) -> list[dict[str, Any]]:  # fmt: skip
    vols: list[dict[str, Any]] = []
    for k in range(rng.choice((0, 1, 1, 2, 3))):
        shape, name, ro = rng.random(), rng.choice(names), rng.random() < 0.4
        if shape < 0.2:
            src: dict[str, Any] = {"gcePersistentDisk": {"pdName": name, "readOnly": ro}}
        elif shape < 0.3:
            src = {"awsElasticBlockStore": {"volumeID": f"vol-{name}", "readOnly": ro}}
        elif shape < 0.4:
            src = {"azureDisk": {"diskName": name, "diskURI": f"/sub/{name}", "kind": "Managed"}}
        elif shape < 0.5:
            mons = rng.sample(["m1", "m2", "m3"], rng.randint(1, 2))
            src = {"rbd": {"monitors": mons, "image": name, "pool": rng.choice(["rbd", "p2"]),
                           "readOnly": ro}}  # fmt: skip
        elif shape < 0.6:
            src = {"iscsi": {"iqn": f"iqn.{name}", "targetPortal": "t:3260", "lun": 0,
                             "readOnly": ro}}  # fmt: skip
        else:
            mine = [c for n, c in claims if n == ns]
            if not mine:
                continue
            src = {"persistentVolumeClaim": {"claimName": rng.choice(mine)}}
        vols.append({"name": f"v{k}", **src})
    return vols


def _pod(name: str, ns: str, vols: list[dict[str, Any]], node: str | None,
         priority: int) -> dict[str, Any]:  # fmt: skip
    spec: dict[str, Any] = {"priority": priority, "containers": [{"name": "c", "image": "app",
        "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}}}]}  # fmt: skip
    if vols:
        spec["volumes"] = vols
    if node:
        spec["nodeName"] = node
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": ns},
            "spec": spec}  # fmt: skip


def disk_scenario(seed: int, max_nodes: int = 6, max_pending: int = 8,
                  crowded: bool = False) -> list[dict[str, Any]]:  # fmt: skip
    """``crowded``: 1-2 nodes, 2-4 bound pods a node, two disk names (conflicts and full
    attach limits: failures that preemption may resolve)."""
    rng = random.Random(seed)
    n_nodes = rng.randint(1, 2 if crowded else max_nodes)
    names = NAMES[:2] if crowded else NAMES
    objs = [_node(rng, i) for i in range(n_nodes)]
    objs += [_csi_node(rng, i) for i in range(n_nodes) if rng.random() < 0.6]
    for i, prov in enumerate(PROVISIONERS):
        objs.append(
            {
                "apiVersion": "storage.k8s.io/v1",
                "kind": "StorageClass",
                "metadata": {"name": f"sc{i}"},
                "provisioner": prov,
                "volumeBindingMode": rng.choice(["Immediate", "WaitForFirstConsumer"]),
            }
        )
    objs.append(
        {
            "apiVersion": "storage.k8s.io/v1",
            "kind": "CSIDriver",
            "metadata": {"name": "csi.example.com"},
            "spec": {"attachRequired": True},
        }
    )
    volumes = []
    for i in range(rng.randint(0, 6)):
        src, labels = _pv_source(rng, names)
        objs.append({"apiVersion": "v1", "kind": "PersistentVolume",
                     "metadata": {"name": f"pv{i}", "labels": labels},
                     "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"],
                              **src}})  # fmt: skip
        volumes.append(f"pv{i}")
    classes = [f"sc{j}" for j in range(len(PROVISIONERS))] + ["ghost", ""]
    claim_objs, claims = random_claims(rng, volumes, classes)
    objs += claim_objs
    n_bound = rng.randint(2 * n_nodes, 4 * n_nodes) if crowded else rng.randint(0, 2 * n_nodes)
    for j in range(n_bound):
        ns = "default" if rng.random() < 0.9 else "other"
        objs.append(_pod(f"b{j}", ns, _pod_volumes(rng, claims, ns, names) + (
            [{"name": "gone", "persistentVolumeClaim": {"claimName": "c-absent"}}]
            if rng.random() < 0.1 else []), f"n{rng.randrange(n_nodes)}",
            rng.choice((0, 0, 10))))  # fmt: skip
    for j in range(rng.randint(1, max_pending)):
        ns = "default" if rng.random() < 0.9 else "other"
        objs.append(_pod(f"p{j}", ns, _pod_volumes(rng, claims, ns, names), None,
                         rng.choice((0, 10, 100))))  # fmt: skip
    return objs
