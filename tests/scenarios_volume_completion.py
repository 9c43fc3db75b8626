"""Random clusters whose later pods depend on completed volume bindings (issue 29):
:mod:`tests.scenarios_volume_binding`'s clusters (static volumes, WaitForFirstConsumer
and Immediate classes, shared claims, in-tree volumes and migrating CSINodes) with a
StatefulSet ``web`` of claims to provision or match, and CSINodes whose entry for the
provisioner ``example.com/disk`` lists ``topologyKeys`` (the zone, the zone and the disk
label, the hostname, or none) on the nodes that have those labels: a provisioned volume
then gets the selected node's topology as node affinity, and a pod of its claim must
follow it.
"""

from __future__ import annotations

import random
from typing import Any

from kscore_fast.io.workloads import expand_workloads

from .scenarios_volume_binding import HOST, ZONE, _stateful_set, binding_scenario

DRIVER = "example.com/disk"
TOPOLOGIES = ((ZONE,), (ZONE, "disk"), (HOST,), ())


def completion_scenario(seed: int, max_nodes: int = 8, max_pending: int = 10
                        ) -> list[dict[str, Any]]:  # fmt: skip
    """The cluster's objects (see the module's docstring)."""
    objs = binding_scenario(seed, max_nodes, max_pending)
    rng = random.Random(f"completion-{seed}")
    objs += _stateful_set(rng, objs, "web")
    keys = list(rng.choice(TOPOLOGIES))
    csi_nodes = {o["metadata"]["name"]: o for o in objs if o["kind"] == "CSINode"}
    for node in (o for o in objs if o["kind"] == "Node"):
        name, labels = node["metadata"]["name"], node["metadata"]["labels"]
        if any(k not in labels for k in keys) or rng.random() < 0.15:
            continue
        csi = _csi_node(objs, csi_nodes, name)
        entry: dict[str, Any] = {"name": DRIVER, "nodeID": name}
        if keys:
            entry["topologyKeys"] = keys
        csi["spec"]["drivers"].append(entry)
    return objs


def _csi_node(objs: list[dict[str, Any]], csi_nodes: dict[str, dict[str, Any]], name: str
              ) -> dict[str, Any]:  # fmt: skip
    """The node's CSINode (made, and added to ``objs``, when it has none)."""
    csi = csi_nodes.get(name)
    if csi is None:
        csi = {"apiVersion": "storage.k8s.io/v1", "kind": "CSINode",
               "metadata": {"name": name}, "spec": {"drivers": []}}  # fmt: skip
        csi_nodes[name] = csi
        objs.append(csi)
    return csi


#: per in-tree plugin whose migration is on: its CSI driver, the driver's topology key
#: and zones of the cloud's form (GCE's and EBS's name their region)
IN_TREE = {
    "kubernetes.io/gce-pd": ("pd.csi.storage.gke.io", "topology.gke.io/zone",
                             ("us-central1-a", "us-central1-b", "europe-west1-b")),
    "kubernetes.io/aws-ebs": ("ebs.csi.aws.com", "topology.ebs.csi.aws.com/zone",
                              ("us-east-1a", "us-east-1b", "us-west-2-lax-1a")),
    "kubernetes.io/azure-disk": ("disk.csi.azure.com", "topology.disk.csi.azure.com/zone",
                                 ("eastus-1", "eastus-2", "")),
    "kubernetes.io/cinder": ("cinder.csi.openstack.org", "topology.cinder.csi.openstack.org/zone",
                             ("nova", "az2")),
}  # fmt: skip
GA_ZONE, BETA_ZONE_KEY = "topology.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/zone"


def in_tree_completion_scenario(seed: int, max_nodes: int = 8, max_pending: int = 10,
                                regional: bool = False, azure_file: bool = False
                                ) -> list[dict[str, Any]]:  # fmt: skip
    """:func:`completion_scenario`'s clusters with a StatefulSet ``store`` whose claims'
    class ``intree`` (WaitForFirstConsumer) names an in-tree provisioner whose migration
    is on: nodes labelled with the migrated driver's zone key (a zone of the cloud's
    form; often the GA or beta zone label too, equal or not), CSINodes whose entry for
    the driver lists that key (sometimes the hostname too, or no keys) and that migrate
    the plugin or not. The claims provisioned for the set's pods are translated back to
    the in-tree source (zone label, zone and region node affinity): later pods see them
    through VolumeZone, VolumeBinding's bound-claim check and the volume limits.
    ``regional``: the class is GCE PD's asking for ``replication-type: regional-pd``
    (:func:`_regional_class`), the nodes' zones mostly of one region. ``azure_file``: the
    class is ``kubernetes.io/azure-file``'s (migration off: its own plugin provisions a
    volume every node reaches; :func:`_azure_file_class`)."""
    objs = completion_scenario(seed, max_nodes, max_pending)
    rng = random.Random(f"in-tree-{seed}")
    plugin = rng.choice(sorted(IN_TREE))
    driver, key, zones = IN_TREE[plugin]
    cls = {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
           "metadata": {"name": "intree"}, "provisioner": plugin,
           "volumeBindingMode": "WaitForFirstConsumer"}  # fmt: skip
    if azure_file:
        cls.update(_azure_file_class(random.Random(f"azure-file-{seed}")))
    if regional:
        plugin = "kubernetes.io/gce-pd"
        driver, key, _ = IN_TREE[plugin]
        zones = REGIONAL_ZONES if rng.random() < 0.85 else (*REGIONAL_ZONES, "europe-west1-b")
        cls.update(_regional_class(random.Random(f"regional-{seed}"), plugin))
    objs.append(cls)
    keys = rng.choice(((key,), (key,), (key, HOST), ()))
    if regional and keys != (key,) and rng.random() < 0.9:
        keys = (key,)
    csi_nodes = {o["metadata"]["name"]: o for o in objs if o["kind"] == "CSINode"}
    for node in (o for o in objs if o["kind"] == "Node"):
        name, labels = node["metadata"]["name"], node["metadata"]["labels"]
        labels.pop(key, None)
        if rng.random() < (0.97 if regional else 0.85):
            labels[key] = rng.choice(zones)
            if rng.random() < 0.6:
                labels[rng.choice((GA_ZONE, BETA_ZONE_KEY))] = (
                    labels[key] if rng.random() < 0.8 else rng.choice(zones))  # fmt: skip
        if any(k not in labels for k in keys) or rng.random() < (0.03 if regional else 0.1):
            continue
        csi = _csi_node(objs, csi_nodes, name)
        entry: dict[str, Any] = {"name": driver, "nodeID": name}
        if keys:
            entry["topologyKeys"] = list(keys)
        if rng.random() < 0.3:
            entry["allocatable"] = {"count": rng.randint(1, 3)}
        csi["spec"]["drivers"].append(entry)
        if rng.random() < 0.5:
            meta = csi["metadata"].setdefault("annotations", {})
            migrated = meta.get("storage.alpha.kubernetes.io/migrated-plugins", "")
            if plugin not in migrated.split(","):
                meta["storage.alpha.kubernetes.io/migrated-plugins"] = ",".join(
                    p for p in (migrated, plugin) if p)  # fmt: skip
    return objs + _in_tree_set(rng, objs)


#: the zones of a regional scenario's nodes (one region)
REGIONAL_ZONES = ("us-central1-a", "us-central1-b", "us-central1-c", "us-central1-f")


def _regional_class(rng: random.Random, plugin: str) -> dict[str, Any]:
    """A GCE PD class's fields asking for a regional disk: the parameter's key and value
    in various cases, sometimes ``type``, ``zones`` or ``allowedTopologies``."""
    key = rng.choice(("replication-type", "replication-type", "Replication-Type"))
    params = {key: rng.choice(("regional-pd", "regional-pd", "Regional-PD")), "type": "pd-ssd"}
    out: dict[str, Any] = {"provisioner": plugin, "parameters": params}
    shape = rng.random()
    if shape < 0.2:
        params["zones"] = ",".join(sorted(rng.sample(REGIONAL_ZONES, rng.randint(2, 4))))
    elif shape < 0.4:
        out["allowedTopologies"] = [{"matchLabelExpressions": [{
            "key": rng.choice((GA_ZONE, BETA_ZONE_KEY)),
            "values": sorted(rng.sample(REGIONAL_ZONES, rng.randint(2, 4)))}]}]  # fmt: skip
    return out


def _azure_file_class(rng: random.Random) -> dict[str, Any]:
    """An Azure File class's fields: its parameters, mostly valid (keys in various cases,
    tags well formed or not, sometimes an option the plugin does not know)."""
    params = {rng.choice(("skuName", "skuname")): rng.choice(("Standard_LRS", "Premium_LRS"))}
    if rng.random() < 0.3:
        params["location"] = "eastus"
    if rng.random() < 0.2:
        params["tags"] = rng.choice(("a=b,c=d", "a=b", "bad", "=x"))
    if rng.random() < 0.1:
        params["fsType"] = "ext4"  # (not an option of the plugin: its error)
    return {"provisioner": "kubernetes.io/azure-file", "parameters": params}


def _in_tree_set(rng: random.Random, objs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The StatefulSet ``store`` (1-2 templates of class ``intree``), expanded."""
    templates = [{"metadata": {"name": f"vol{t}"},
                  "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": "intree",
                           "resources": {"requests": {"storage": f"{rng.randint(1, 5)}Gi"}}}}
                 for t in range(rng.randint(1, 2))]  # fmt: skip
    pod_spec = {"containers": [{"name": "c", "image": "store",
                                "resources": {"requests": {"cpu": "300m"}}}]}  # fmt: skip
    sts = {"apiVersion": "apps/v1", "kind": "StatefulSet",
           "metadata": {"name": "store", "namespace": "default", "uid": "sts-store"},
           "spec": {"replicas": rng.randint(1, 4), "serviceName": "store",
                    "selector": {"matchLabels": {"app": "store"}},
                    "template": {"metadata": {"labels": {"app": "store"}}, "spec": pod_spec},
                    "volumeClaimTemplates": templates}}  # fmt: skip
    made, _ = expand_workloads([*objs, sts])
    return [sts, *made]
