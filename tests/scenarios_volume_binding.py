"""Random clusters for VolumeBinding (tests/differential and tests/plugins): nodes with
hostname, zone, disk and rank labels; classes that wait for the first consumer and are
provisioned anywhere, nowhere (``kubernetes.io/no-provisioner``) or in some zones
(``allowedTopologies``), and an Immediate one; PersistentVolumes of those classes (or
none) with distinct capacities (Go's choice among equal ones is random), access and volume
modes, phases, labels for claims' selectors, some pre-bound to a claim (``claimRef``, with
or without a uid), with and without required node affinity (local volumes on one host,
zonal ones, terms on several keys, Gt/Lt terms, and a ``metadata.name`` field term, which
the binder's label-only node never checks); claims bound to present and absent volumes
(``pv.kubernetes.io/bind-completed`` set), pre-bound ones (a volume name without it),
unbound ones of Immediate, absent and classless kinds, unbound WaitForFirstConsumer ones
(with selectors, block mode, a selected node), lost and deleting ones; pending pods with
0-3 claim volumes, often sharing claims (some absent, some of another namespace); and
a StatefulSet with volumeClaimTemplates, expanded into its pods and their claims. Some
scenarios (:func:`_migrated`) make volumes in-tree GCE PD, EBS, Azure Disk and Cinder
disks with GA or beta zone labels (zonal or GCE regional) and zone or region terms, label
nodes with the CSI drivers' topology keys, and give nodes CSINodes that migrate some
in-tree plugins (``checkBoundClaims`` then reads the volumes translated to CSI).
"""

from __future__ import annotations

import copy
import random
from typing import Any

from kscore_fast.io.workloads import expand_workloads

from .scenarios_volumes import VOLUME_ZONE_CONFIG, ZONE

HOST = "kubernetes.io/hostname"
ZONES = ("a", "b", "c")
BIND_COMPLETED = {"pv.kubernetes.io/bind-completed": "yes"}
ACCESS_MODES = (["ReadWriteOnce"], ["ReadWriteOnce", "ReadOnlyMany"], ["ReadWriteMany"])

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


def _volume(i: int, rng: random.Random, n_nodes: int, size: int) -> dict[str, Any]:
    name = f"pv{i}"
    spec: dict[str, Any] = {"capacity": {"storage": f"{size}Gi"},
                            "accessModes": rng.choice(ACCESS_MODES),
                            "hostPath": {"path": f"/data/{name}"}}  # fmt: skip
    if rng.random() < 0.7:
        terms = [_term(rng, n_nodes) for _ in range(rng.choice((1, 1, 2)))]
        spec["nodeAffinity"] = {"required": {"nodeSelectorTerms": terms}}
    cls = rng.choice(("local", "local", "zonal", "wffc", "", "imm"))
    if cls:
        spec["storageClassName"] = cls
    if rng.random() < 0.1:
        spec["volumeMode"] = "Block"
    meta: dict[str, Any] = {"name": name, "labels": {}}
    if rng.random() < 0.3:
        meta["labels"][ZONE] = rng.choice(ZONES)
    if rng.random() < 0.4:
        meta["labels"]["app"] = "db"
    if rng.random() < 0.03:
        meta["deletionTimestamp"] = "2026-01-01T00:00:00Z"
        meta["finalizers"] = ["kubernetes.io/pv-protection"]
    obj = {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": meta, "spec": spec}
    phase = rng.random()
    if phase < 0.8:
        obj["status"] = {"phase": "Available"}
    elif phase < 0.9:
        obj["status"] = {"phase": rng.choice(("Bound", "Released"))}
    return obj


def _claim(i: int, rng: random.Random, volumes: list[str], n_nodes: int) -> dict[str, Any]:
    ns = "default" if rng.random() < 0.85 else "other"
    meta: dict[str, Any] = {"name": f"c{i}", "namespace": ns}
    if rng.random() < 0.3:
        meta["uid"] = f"uid-c{i}"
    request = {"storage": f"{rng.randint(1, 6)}Gi"}
    spec: dict[str, Any] = {"accessModes": rng.choice(ACCESS_MODES[:2]),
                            "resources": {"requests": request}}  # fmt: skip
    status: dict[str, Any] = {}
    shape = rng.random()
    if shape < 0.35 and volumes:  # bound
        spec["volumeName"] = rng.choice(volumes)
        meta["annotations"] = dict(BIND_COMPLETED)
        status["phase"] = "Bound"
    elif shape < 0.4:  # bound to an absent volume
        spec["volumeName"] = "pv-absent"
        meta["annotations"] = dict(BIND_COMPLETED)
        status["phase"] = "Lost" if rng.random() < 0.5 else "Bound"
    elif shape < 0.45 and volumes:  # pre-bound: the PV controller has not finished
        spec["volumeName"] = rng.choice(volumes)
        spec["storageClassName"] = rng.choice(("wffc", "imm"))
    elif shape < 0.55:  # unbound, of a class that binds at once (or none, or an absent one)
        spec["storageClassName"] = rng.choice(("imm", "", "ghost"))
    else:  # unbound, waiting for its first consumer
        spec["storageClassName"] = rng.choice(("local", "zonal", "wffc"))
        if rng.random() < 0.15:
            spec["selector"] = {"matchLabels": {"app": "db"}}
        if rng.random() < 0.1:
            spec["volumeMode"] = "Block"
        if rng.random() < 0.08:
            node = f"n{rng.randrange(n_nodes + 1)}"  # (n{n_nodes}: not in the cluster)
            meta["annotations"] = {"volume.kubernetes.io/selected-node": node}
    if rng.random() < 0.03:
        meta["deletionTimestamp"] = "2026-01-01T00:00:00Z"
        meta["finalizers"] = ["kubernetes.io/pvc-protection"]
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": meta,
            "spec": spec, "status": status}  # fmt: skip


def _pre_bind(objs: list[dict[str, Any]], rng: random.Random) -> None:
    """Some volumes pre-bound to a claim (``spec.claimRef``), at most one per claim, with
    or without (the claim's or another) uid."""
    claims = [o["metadata"] for o in objs if o["kind"] == "PersistentVolumeClaim"]
    volumes = [o for o in objs if o["kind"] == "PersistentVolume"]
    for meta in rng.sample(claims, min(len(claims), len(volumes), rng.randint(0, 2))):
        volume = rng.choice(volumes)
        if "claimRef" in volume["spec"]:
            continue
        ref = {"kind": "PersistentVolumeClaim", "namespace": meta["namespace"],
               "name": meta["name"]}  # fmt: skip
        if rng.random() < 0.3:
            ref["uid"] = meta.get("uid", "uid-other") if rng.random() < 0.7 else "uid-other"
        volume["spec"]["claimRef"] = ref


def _pod(j: int, rng: random.Random, claims: list[tuple[str, str]]) -> dict[str, Any]:
    vols: list[dict[str, Any]] = []
    names = list(dict.fromkeys(name for _, name in claims))
    # (distinct claims: a claim listed twice binds a second volume to it, and Go then
    # finds one of the two at random for its later pods)
    chosen = rng.sample(names, min(len(names), rng.choice((0, 1, 1, 1, 2, 3))))
    for k, name in enumerate(chosen):
        name = name if rng.random() < 0.95 else "c-absent"
        vols.append({"name": f"v{k}", "persistentVolumeClaim": {"claimName": name}})
    if not claims and rng.random() < 0.5:
        vols.append({"name": "v0", "persistentVolumeClaim": {"claimName": "c-absent"}})
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


def _classes(rng: random.Random) -> list[dict[str, Any]]:
    """wffc (provisioned anywhere), local (never provisioned), zonal (provisioned in some
    zones), imm (Immediate)."""
    out = []
    for name, mode, provisioner in (
        ("wffc", "WaitForFirstConsumer", "example.com/disk"),
        ("local", "WaitForFirstConsumer", "kubernetes.io/no-provisioner"),
        ("zonal", "WaitForFirstConsumer", "example.com/disk"),
        ("imm", "Immediate", "example.com/disk"),
    ):
        sc: dict[str, Any] = {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
                              "metadata": {"name": name}, "provisioner": provisioner,
                              "volumeBindingMode": mode}  # fmt: skip
        if name == "zonal":
            terms = [{"matchLabelExpressions": [
                {"key": ZONE, "values": rng.sample(ZONES, rng.randint(1, 2))}]}]  # fmt: skip
            if rng.random() < 0.3:
                terms.append({"matchLabelExpressions": [{"key": "disk", "values": ["ssd"]}]})
            sc["allowedTopologies"] = terms
        out.append(sc)
    return out


def binding_scenario(seed: int, max_nodes: int = 8, max_pending: int = 10
                     ) -> list[dict[str, Any]]:  # fmt: skip
    rng = random.Random(seed)
    n_nodes = rng.randint(1, max_nodes)
    objs: list[dict[str, Any]] = [_node(i, rng) for i in range(n_nodes)]
    objs += _classes(rng)
    n_volumes = rng.randint(0, 10)
    sizes = rng.sample(range(1, 40), n_volumes)  # (distinct: Go's ties are random)
    objs += [_volume(i, rng, n_nodes, sizes[i]) for i in range(n_volumes)]
    volumes = [f"pv{i}" for i in range(n_volumes)]
    claims = []
    for i in range(rng.randint(0, 10)):
        claim = _claim(i, rng, volumes, n_nodes)
        objs.append(claim)
        claims.append((claim["metadata"]["namespace"], claim["metadata"]["name"]))
    if rng.random() < 0.4:
        objs += _stateful_set(rng, objs)
    _pre_bind(objs, rng)
    objs += [_pod(j, rng, claims) for j in range(rng.randint(1, max_pending))]
    return objs + _migrated(objs, random.Random(f"migrated-{seed}"), n_nodes)


#: the in-tree plugins of the migrated-plugins annotation, and each one's source
PLUGINS = ("kubernetes.io/gce-pd", "kubernetes.io/aws-ebs", "kubernetes.io/azure-disk",
           "kubernetes.io/cinder")  # fmt: skip
CSI_ZONE_KEYS = ("topology.gke.io/zone", "topology.ebs.csi.aws.com/zone",
                 "topology.cinder.csi.openstack.org/zone")  # fmt: skip
BETA_ZONE = "failure-domain.beta.kubernetes.io/zone"
REGIONS = ("topology.kubernetes.io/region", "failure-domain.beta.kubernetes.io/region")
GCE_ZONES = ("us-central1-a", "us-central1-b")


def _in_tree_source(rng: random.Random, name: str) -> dict[str, Any]:
    """A GCE PD, EBS, Azure Disk (managed) or Cinder source (none whose translation to
    CSI fails: Go's Filter error is not simulated)."""
    kind = rng.randrange(4)
    if kind == 0:
        return {"gcePersistentDisk": {"pdName": name}}
    if kind == 1:
        return {
            "awsElasticBlockStore": {"volumeID": rng.choice((f"vol-{name}", f"aws://a/vol-{name}"))}
        }
    if kind == 2:
        return {"azureDisk": {"diskName": name, "diskURI": f"/sub/{name}", "kind": "Managed"}}
    return {"cinder": {"volumeID": name}}


def _zone_labels(rng: random.Random, volume: dict[str, Any]) -> None:
    """GA or beta zone labels (a GCE PD's possibly regional), and terms of the beta
    zone and region keys."""
    labels, spec = volume["metadata"]["labels"], volume["spec"]
    key = rng.choice((ZONE, BETA_ZONE, BETA_ZONE))
    gce = "gcePersistentDisk" in spec  # (a regional disk's zones name one region)
    if gce and rng.random() < 0.3:
        labels[key] = "__".join(rng.sample(GCE_ZONES, rng.randint(1, 2)))
    elif rng.random() < 0.7:
        labels[key] = "__".join(rng.sample(ZONES, 1 if gce else rng.randint(1, 2)))
    if rng.random() < 0.3:
        term = {"matchExpressions": [_expr(rng.choice((ZONE, BETA_ZONE)), "In",
                                           rng.sample(ZONES, rng.randint(1, 2)))]}  # fmt: skip
        if rng.random() < 0.5:
            term["matchExpressions"].append(_expr(rng.choice(REGIONS), "In", ["r1"]))
        required = spec.setdefault("nodeAffinity", {"required": {"nodeSelectorTerms": []}})
        required["required"]["nodeSelectorTerms"].append(term)


def _migrated(objs: list[dict[str, Any]], rng: random.Random, n_nodes: int
              ) -> list[dict[str, Any]]:  # fmt: skip
    """In half the scenarios: in-tree volumes, nodes with the CSI drivers' topology
    labels, and CSINodes that migrate some plugins (the CSINodes returned)."""
    if rng.random() < 0.5:
        return []
    for volume in (o for o in objs if o["kind"] == "PersistentVolume"):
        if rng.random() < 0.6:
            del volume["spec"]["hostPath"]
            volume["spec"].update(_in_tree_source(rng, volume["metadata"]["name"]))
            if rng.random() < 0.6:  # (most in-tree disks have zone labels only)
                volume["spec"].pop("nodeAffinity", None)
            _zone_labels(rng, volume)
    for node in (o for o in objs if o["kind"] == "Node"):
        labels = node["metadata"]["labels"]
        for key in (*CSI_ZONE_KEYS, BETA_ZONE, *REGIONS):
            if rng.random() < 0.4:
                labels[key] = rng.choice((*ZONES, *GCE_ZONES, "r1"))
    out = []
    for i in range(n_nodes):
        if rng.random() < 0.2:
            continue
        meta: dict[str, Any] = {"name": f"n{i}"}
        if rng.random() < 0.9:
            plugins = ",".join(rng.sample(PLUGINS, rng.randint(0, 4)))
            meta["annotations"] = {"storage.alpha.kubernetes.io/migrated-plugins": plugins}
        out.append({"apiVersion": "storage.k8s.io/v1", "kind": "CSINode", "metadata": meta,
                    "spec": {"drivers": []}})  # fmt: skip
    return out + _bound_pods(objs, rng)


def _bound_pods(objs: list[dict[str, Any]], rng: random.Random) -> list[dict[str, Any]]:
    """1-3 pending pods, each with a claim of its own bound to a volume (mostly an
    in-tree one)."""
    volumes = [o["metadata"]["name"] for o in objs if o["kind"] == "PersistentVolume"]
    in_tree = [o["metadata"]["name"] for o in objs if o["kind"] == "PersistentVolume"
               and "hostPath" not in o["spec"]]  # fmt: skip
    out: list[dict[str, Any]] = []
    for k in range(rng.randint(1, 3) if volumes else 0):
        name = rng.choice(in_tree if in_tree and rng.random() < 0.8 else volumes)
        spec = {"accessModes": ["ReadWriteOnce"], "volumeName": name,
                "resources": {"requests": {"storage": "1Gi"}}}  # fmt: skip
        out.append({"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                    "metadata": {"name": f"cm{k}", "namespace": "default",
                                 "annotations": dict(BIND_COMPLETED)},
                    "spec": spec, "status": {"phase": "Bound"}})  # fmt: skip
        pod = _pod(100 + k, rng, [])
        pod["metadata"]["namespace"] = "default"
        pod["spec"]["volumes"] = [{"name": "m", "persistentVolumeClaim": {"claimName": f"cm{k}"}}]
        out.append(pod)
    return out


def _stateful_set(rng: random.Random, objs: list[dict[str, Any]], name: str = "db"
                  ) -> list[dict[str, Any]]:  # fmt: skip
    """A StatefulSet with 1-2 volumeClaimTemplates, expanded into its pods and claims as
    ``--expand-workloads`` does (the template's class, or the default one: ``wffc`` is
    made the default class sometimes)."""
    if rng.random() < 0.5:
        sc = next(o for o in objs if o["metadata"]["name"] == "wffc")
        sc["metadata"]["annotations"] = {"storageclass.kubernetes.io/is-default-class": "true"}
    templates = []
    for t in range(rng.randint(1, 2)):
        request = {"storage": f"{rng.randint(1, 5)}Gi"}
        spec: dict[str, Any] = {"accessModes": ["ReadWriteOnce"],
                                "resources": {"requests": request}}  # fmt: skip
        cls = rng.choice(("local", "zonal", "wffc", None))
        if cls is not None:
            spec["storageClassName"] = cls
        templates.append({"metadata": {"name": f"data{t}"}, "spec": spec})
    pod_spec = {"containers": [{"name": "c", "image": "db",
                                "resources": {"requests": {"cpu": "500m"}}}]}  # fmt: skip
    sts = {"apiVersion": "apps/v1", "kind": "StatefulSet",
           "metadata": {"name": name, "namespace": "default", "uid": f"sts-{name}"},
           "spec": {"replicas": rng.randint(1, 4), "serviceName": name,
                    "selector": {"matchLabels": {"app": name}},
                    "template": {"metadata": {"labels": {"app": name}}, "spec": pod_spec},
                    "volumeClaimTemplates": templates}}  # fmt: skip
    made, _ = expand_workloads([*objs, sts])
    return [sts, *made]
