"""Random clusters with generic ephemeral volumes (tests/differential and tests/plugins):
the scenarios of :mod:`tests.scenarios_volume_binding` and :mod:`tests.scenarios_disks`
(unchanged: the additions draw from a random source of their own) with ``ephemeral``
volumes added to some pods, among their other volumes. A pending pod's ephemeral claim
is present and its own (a controller owner reference with the pod's uid: given in the
pod, or the digest kscore and goref give a pod without one), absent (the ephemeral
volume controller has not made it yet), or present and not its own (another uid, no
controller reference, a controller reference without uid); its spec has the scenario's
classes (WaitForFirstConsumer ones, provisioned or not, an Immediate one) and is
sometimes (often, among disks) bound to one of the scenario's volumes. Pods on nodes
have their own claims (bound, or unbound of a CSI provisioner's class: the CSI limits
count them) or absent ones, or (``p_foreign_bound``) another's. And a ReplicaSet whose
template has ephemeral volumes, expanded with its claims as ``--expand-workloads`` does.
"""

from __future__ import annotations

import random
from typing import Any

from kscore_fast.io.workloads import expand_workloads
from kscore_fast.model.objects import object_uid

from .scenarios_disks import disk_scenario
from .scenarios_volume_binding import BIND_COMPLETED, binding_scenario

Obj = dict[str, Any]


def _uid(pod: Obj) -> str:
    meta = pod["metadata"]
    return meta.get("uid") or object_uid(meta.get("namespace", "default"), meta["name"])


def _template(rng: random.Random, classes: list[str]) -> Obj:
    spec: Obj = {"accessModes": ["ReadWriteOnce"],
                 "resources": {"requests": {"storage": f"{rng.randint(1, 6)}Gi"}}}  # fmt: skip
    cls = rng.choice(classes)
    if cls is not None:
        spec["storageClassName"] = cls
    return {"metadata": {"labels": {"eph": "yes"}}, "spec": spec}


def _owner(rng: random.Random, pod: Obj, foreign: bool) -> list[Obj]:
    ref = {"apiVersion": "v1", "kind": "Pod", "name": pod["metadata"]["name"],
           "uid": _uid(pod), "controller": True, "blockOwnerDeletion": True}  # fmt: skip
    refs = [{**ref, "kind": "ReplicaSet", "name": "rs", "uid": "rs-uid", "controller": False}
            ] if rng.random() < 0.2 else []  # fmt: skip
    if foreign:
        shape = rng.randrange(4)
        if shape == 0:
            ref["uid"] = "another-pod-uid"
        elif shape == 1:
            ref["controller"] = False
        elif shape == 2:
            del ref["uid"]
        else:
            return refs  # (no controller at all)
    return [*refs, ref]


def _claim(rng: random.Random, pod: Obj, name: str, template: Obj, volumes: list[str],
           foreign: bool, p_bound: float) -> Obj:  # fmt: skip
    meta: Obj = {"name": name, "namespace": pod["metadata"].get("namespace", "default"),
                 "labels": dict(template["metadata"]["labels"]),
                 "ownerReferences": _owner(rng, pod, foreign)}  # fmt: skip
    if rng.random() < 0.3:
        meta["uid"] = f"uid-{name}"
    spec = dict(template["spec"])
    status: Obj = {"phase": "Pending"}
    if volumes and rng.random() < p_bound:
        spec["volumeName"] = rng.choice(volumes)
        meta["annotations"] = dict(BIND_COMPLETED)
        status = {"phase": "Bound"}
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": meta,
            "spec": spec, "status": status}  # fmt: skip


def _translates(volume: Obj) -> bool:
    """Not one of :mod:`tests.scenarios_disks`' volumes whose translation to CSI fails (a
    bad EBS id, a shared Azure disk, a GCE PD of zones of several regions)."""
    spec, labels = volume["spec"], volume["metadata"].get("labels") or {}
    if "awsElasticBlockStore" in spec:
        return "/bad" not in spec["awsElasticBlockStore"]["volumeID"]
    if "azureDisk" in spec:
        return spec["azureDisk"].get("kind") == "Managed"
    if "gcePersistentDisk" in spec:
        return not any("europe" in v for v in labels.values())
    return True


def add_ephemeral(objs: list[Obj], rng: random.Random, classes: list[str],
                  p_pod: float = 0.5, p_bound: float = 0.2,
                  p_foreign_bound: float = 0.0) -> list[Obj]:  # fmt: skip
    """``objs`` with ephemeral volumes added to some of its pods, and their claims (bound
    to volumes whose translation to CSI does not fail: Go's Filter error is refused);
    ``p_foreign_bound``: the chance that a pod on a node holds an ephemeral volume whose
    claim another owns (Go's Filter error on that node; no draw when 0)."""
    volumes = [o["metadata"]["name"] for o in objs
               if o["kind"] == "PersistentVolume" and _translates(o)]  # fmt: skip
    out: list[Obj] = []
    for obj in objs:
        out.append(obj)
        if obj["kind"] != "Pod" or rng.random() >= p_pod:
            continue
        if rng.random() < 0.3:
            obj["metadata"]["uid"] = f"uid-{obj['metadata']['name']}"
        bound = bool(obj["spec"].get("nodeName"))
        vols = obj["spec"].setdefault("volumes", [])
        for k in range(rng.choice((1, 1, 2))):
            template = _template(rng, classes)
            volume = {"name": f"e{k}", "ephemeral": {"volumeClaimTemplate": template}}
            vols.insert(rng.randint(0, len(vols)), volume)
            name = f"{obj['metadata']['name']}-e{k}"
            if bound and p_foreign_bound and rng.random() < p_foreign_bound:
                out.append(_claim(rng, obj, name, template, volumes, True, p_bound))
                continue
            shape = rng.random()
            if shape < (0.9 if bound else 0.8):
                out.append(_claim(rng, obj, name, template, volumes, False, p_bound))
            elif bound or shape < 0.9:
                continue  # absent
            else:
                out.append(_claim(rng, obj, name, template, volumes, True, p_bound))
    return out


def _replica_set(rng: random.Random, objs: list[Obj], classes: list[str]) -> list[Obj]:
    """A ReplicaSet whose pods have 1-2 ephemeral volumes, expanded with their claims."""
    volumes = [{"name": f"w{k}", "ephemeral": {"volumeClaimTemplate": _template(rng, classes)}}
               for k in range(rng.randint(1, 2))]  # fmt: skip
    spec = {"containers": [{"name": "c", "image": "web",
                            "resources": {"requests": {"cpu": "200m"}}}],
            "volumes": volumes}  # fmt: skip
    rs = {"apiVersion": "apps/v1", "kind": "ReplicaSet",
          "metadata": {"name": "web", "namespace": "default", "uid": "rs-web"},
          "spec": {"replicas": rng.randint(1, 3), "selector": {"matchLabels": {"app": "web"}},
                   "template": {"metadata": {"labels": {"app": "web"}}, "spec": spec}}}  # fmt: skip
    made, _ = expand_workloads([*objs, rs])
    return [rs, *made]


def ephemeral_binding_scenario(seed: int, p_foreign_bound: float = 0.0,
                               **sizes: int) -> list[Obj]:  # fmt: skip
    """:func:`binding_scenario` with ephemeral volumes (its WaitForFirstConsumer classes
    provisioned anywhere, in some zones or never, and its Immediate one)."""
    rng = random.Random(f"ephemeral-{seed}")
    classes = ["wffc", "wffc", "wffc", "zonal", "local", "local", "imm", None]
    objs = add_ephemeral(binding_scenario(seed, **sizes), rng, classes,
                         p_foreign_bound=p_foreign_bound)  # fmt: skip
    if rng.random() < 0.4:
        objs += _replica_set(rng, objs, classes)
    return objs


def ephemeral_disk_scenario(seed: int, p_foreign_bound: float = 0.0, **sizes: Any
                            ) -> list[Obj]:  # fmt: skip
    """:func:`disk_scenario` with ephemeral volumes (classes of in-tree and CSI
    provisioners: counted by the CSI limit and the in-tree ones)."""
    rng = random.Random(f"ephemeral-{seed}")
    classes = ["sc3", "sc3", "sc0", "sc1", "sc2", "sc4", None]
    return add_ephemeral(disk_scenario(seed, **sizes), rng, classes, p_pod=0.6, p_bound=0.6,
                         p_foreign_bound=p_foreign_bound)  # fmt: skip


def foreign_disk_scenario(seed: int, **sizes: Any) -> list[Obj]:
    """:func:`ephemeral_disk_scenario` where a pod on a node often holds an ephemeral
    volume whose claim another owns."""
    return ephemeral_disk_scenario(seed, p_foreign_bound=0.3, **sizes)


def crowded_foreign_claims(objs: list[Obj]) -> bool:
    """Some node holds three or more bound pods whose ephemeral volume's claim exists and
    another owns (no controller reference with the pod's uid): the only input for which
    kscore_fast may refuse such claims as not simulated (the one among them Go's error
    names depends on the order ``RemovePod`` leaves ``NodeInfo.Pods`` in)."""
    claims = {(o["metadata"]["namespace"], o["metadata"]["name"]): o
              for o in objs if o["kind"] == "PersistentVolumeClaim"}  # fmt: skip
    per_node: dict[str, int] = {}
    for pod in objs:
        node = pod["spec"].get("nodeName") if pod["kind"] == "Pod" else None
        if not node:
            continue
        ns, name = pod["metadata"].get("namespace", "default"), pod["metadata"]["name"]
        for volume in pod["spec"].get("volumes", ()):
            claim = claims.get((ns, f"{name}-{volume['name']}")) if "ephemeral" in volume else None
            refs = claim["metadata"].get("ownerReferences", ()) if claim else ()
            if claim and not any(r.get("controller") and r.get("uid") == _uid(pod) for r in refs):
                per_node[node] = per_node.get(node, 0) + 1
                break
    return any(n >= 3 for n in per_node.values())


def _csi_volume(objs: list[Obj], refs: list[Obj], pod: Obj, name: str) -> None:
    """A claim ``name`` of ``pod``'s namespace bound to a new CSI volume of
    ``csi.example.com`` (owner references ``refs``)."""
    ns = pod["metadata"].get("namespace", "default")
    meta: Obj = {"name": name, "namespace": ns, "annotations": dict(BIND_COMPLETED)}
    if refs:
        meta["ownerReferences"] = refs
    spec = {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}
    objs.append({"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": meta,
                 "spec": {**spec, "storageClassName": "csi", "volumeName": f"pv-{name}"},
                 "status": {"phase": "Bound"}})  # fmt: skip
    objs.append({"apiVersion": "v1", "kind": "PersistentVolume",
                 "metadata": {"name": f"pv-{name}"},
                 "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"],
                          "storageClassName": "csi",
                          "claimRef": {"namespace": ns, "name": name},
                          "csi": {"driver": "csi.example.com", "volumeHandle": f"h-{name}"}},
                 "status": {"phase": "Bound"}})  # fmt: skip


def foreign_claim_preemption_scenario(seed: int, **sizes: Any) -> list[Obj]:
    """:func:`tests.scenarios_preemption.preemption_scenario` (over-committed nodes,
    pending pods of higher priorities) with CSI volumes: CSINodes giving most nodes an
    attach limit of ``csi.example.com``, bound pods with an ephemeral volume whose claim
    is their own or (most nodes one, at most two) another's, pending pods with a claim of a CSI
    volume. A preemptor that must keep such a pod of its priority or higher on a node
    meets the volume limits' ``Error`` status in its dry runs there (Go's PostFilter then
    returns it when no node is a candidate); most such pods have the highest priority."""
    from .scenarios_preemption import preemption_scenario

    rng = random.Random(f"foreign-preemption-{seed}")
    objs = preemption_scenario(seed, **sizes)
    out = list(objs)
    out.append({"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
                "metadata": {"name": "csi"}, "provisioner": "csi.example.com",
                "volumeBindingMode": "WaitForFirstConsumer"})  # fmt: skip
    foreign: dict[str, int] = {}
    for obj in objs:
        if obj["kind"] == "Node" and rng.random() < 0.8:
            name = obj["metadata"]["name"]
            driver = {"name": "csi.example.com", "nodeID": name,
                      "allocatable": {"count": rng.randint(2, 8)}}  # fmt: skip
            out.append({"apiVersion": "storage.k8s.io/v1", "kind": "CSINode",
                        "metadata": {"name": name}, "spec": {"drivers": [driver]}})  # fmt: skip
        if obj["kind"] != "Pod":
            continue
        name, node = obj["metadata"]["name"], obj["spec"].get("nodeName")
        vols = obj["spec"].setdefault("volumes", [])
        if node is None:
            if rng.random() < 0.8:
                claim = {"claimName": f"{name}-data"}
                vols.append({"name": "data", "persistentVolumeClaim": claim})
                _csi_volume(out, [], obj, f"{name}-data")
            continue
        held = foreign.get(node, 0)
        if rng.random() < (0.9 if held == 0 else 0.5):
            template = {"spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": "csi",
                                 "resources": {"requests": {"storage": "1Gi"}}}}  # fmt: skip
            vols.append({"name": "e0", "ephemeral": {"volumeClaimTemplate": template}})
            bad = held < 2 and rng.random() < (0.9 if held == 0 else 0.4)
            foreign[node] = foreign.get(node, 0) + bad
            if bad and rng.random() < 0.7:  # (above every preemptor: never a victim)
                obj["spec"]["priority"] = 1000
            _csi_volume(out, _owner(rng, obj, bad), obj, f"{name}-e0")
    return out
