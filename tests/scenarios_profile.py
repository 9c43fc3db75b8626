"""Seeded random clusters and scheduler configurations for the default profile's plugins.

Covers what the filters and the resource, taint, affinity and image scores read: node
allocatable (cpu, memory, ephemeral-storage, pods, GPUs, hugepages; sometimes missing or
zero), taints of every effect, unschedulable nodes, labels with numbers (Gt/Lt) and
zones, images with sizes around the thresholds; bound pods with requests, init
containers, overhead and host ports; pending pods with or without requests,
tolerations of every operator, nodeSelector, required and preferred node affinity with
every operator and ``metadata.name`` fields, host ports, images, nominated nodes, and
pods that fit nowhere. :func:`profile_config` draws a KubeSchedulerConfiguration
(v1beta2 or v1beta3) with changed weights, strategies, disabled plugins and args.
PodTopologySpread and InterPodAffinity are disabled (not simulated yet).
"""

from __future__ import annotations

import random
from typing import Any

ZONE = "topology.kubernetes.io/zone"
IMAGES = ["nginx", "nginx:1.21", "docker.io/library/redis:6", "busybox", "gcr.io/app/web:v2",
          "registry.k8s.io/pause:3.6"]  # fmt: skip
TAINT_KEYS = ["dedicated", "gpu", "node-role.kubernetes.io/master", "spot"]
LABEL_KEYS = ["disk", "tier", "cores", "gen"]
EXTENDED = ["nvidia.com/gpu", "hugepages-2Mi", "example.com/foo"]


def _quantity(rng: random.Random, resource: str) -> str:
    if resource == "cpu":
        return rng.choice(["100m", "250m", "500m", "1", "1500m", "2", "4", "0", "3.5"])
    if resource in ("memory", "ephemeral-storage", "hugepages-2Mi"):
        return rng.choice(["64Mi", "128Mi", "200Mi", "512Mi", "1Gi", "2Gi", "0", "1G", "300M"])
    return str(rng.choice([0, 1, 1, 2, 4]))


def _node(rng: random.Random, i: int, n_nodes: int) -> dict[str, Any]:
    labels = {"kubernetes.io/hostname": f"node-{i}"}
    if rng.random() < 0.7:
        labels[ZONE] = f"zone-{rng.randrange(3)}"
    for key in LABEL_KEYS:
        if rng.random() < 0.5:
            labels[key] = rng.choice(["ssd", "hdd", "1", "8", "16", "03", "x"])
    alloc: dict[str, str] = {}
    for res, p in (("cpu", 0.95), ("memory", 0.95), ("pods", 0.9), ("ephemeral-storage", 0.5)):
        if rng.random() < p:
            alloc[res] = (rng.choice(["2", "4", "8", "16"]) if res == "cpu" else
                          rng.choice(["4Gi", "8Gi", "16Gi", "1Gi"]) if res != "pods" else
                          str(rng.choice([2, 5, 110, 110])))  # fmt: skip
    for res in EXTENDED:
        if rng.random() < 0.3:
            alloc[res] = rng.choice(["1", "2", "8", "0", "1Gi"] if res.startswith("huge")
                                    else ["0", "1", "2", "8"])  # fmt: skip
    spec: dict[str, Any] = {}
    if rng.random() < 0.1:
        spec["unschedulable"] = True
    if rng.random() < 0.35:
        taints: dict[tuple[str, str], str] = {}  # unique by (key, effect), as the API wants
        for _ in range(rng.randint(1, 3)):
            effect = rng.choice(["NoSchedule", "PreferNoSchedule", "NoExecute", "PreferNoSchedule"])
            taints[(rng.choice(TAINT_KEYS), effect)] = rng.choice(["", "a", "b"])
        spec["taints"] = [{"key": k, "value": v, "effect": e} for (k, e), v in taints.items()]
    status: dict[str, Any] = {"allocatable": alloc, "capacity": dict(alloc)}
    if rng.random() < 0.6:
        status["images"] = [
            {"names": [_image_name(rng)],
             "sizeBytes": rng.choice([10 * 2**20, 23 * 2**20, 300 * 2**20, 999 * 2**20,
                                      1500 * 2**20])}
            for _ in range(rng.randint(1, 3))
        ]  # fmt: skip
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": f"node-{i}", "labels": labels}, "spec": spec,
            "status": status}  # fmt: skip


def _image_name(rng: random.Random) -> str:
    name = rng.choice(IMAGES)
    if ":" not in name.rsplit("/", 1)[-1] and rng.random() < 0.5:
        name += ":latest"
    return name


def _container(rng: random.Random, ports: bool) -> dict[str, Any]:
    c: dict[str, Any] = {"name": f"c{rng.randrange(1000)}", "image": _image_name(rng)}
    if rng.random() < 0.8:
        resources = ["cpu", "memory", "ephemeral-storage", *EXTENDED]
        req = {r: _quantity(rng, r) for r in resources if rng.random() < (0.7 if r in
               ("cpu", "memory") else 0.12)}  # fmt: skip
        c["resources"] = {"requests": req}
        ext = {r: v for r, v in req.items() if r in EXTENDED}
        if ext:
            c["resources"]["limits"] = ext
    if ports and rng.random() < 0.3:
        c["ports"] = [
            {"containerPort": 80, "hostPort": rng.choice([80, 443, 8080]),
             "protocol": rng.choice(["TCP", "UDP"]),
             **({"hostIP": rng.choice(["0.0.0.0", "10.0.0.1", "10.0.0.2"])}
                if rng.random() < 0.4 else {})}
        ]  # fmt: skip
    return c


def _pod_spec(rng: random.Random) -> dict[str, Any]:
    # host ports in the first container only: the API refuses a port twice in a pod
    spec: dict[str, Any] = {
        "containers": [_container(rng, i == 0) for i in range(rng.randint(1, 2))]
    }
    if rng.random() < 0.2:
        spec["initContainers"] = [_container(rng, False)]
    if rng.random() < 0.1:
        spec["overhead"] = {"cpu": rng.choice(["100m", "250m"]), "memory": "64Mi"}
    return spec


def _requirement(rng: random.Random) -> dict[str, Any]:
    key = rng.choice([*LABEL_KEYS, ZONE, "kubernetes.io/hostname", "absent"])
    op = rng.choice(["In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"])
    req: dict[str, Any] = {"key": key, "operator": op}
    if op in ("In", "NotIn"):
        req["values"] = rng.sample(["ssd", "hdd", "1", "8", "zone-0", "zone-1", "node-1"], 2)
    elif op in ("Gt", "Lt"):
        req["values"] = [rng.choice(["0", "4", "10", "-5"])]
    return req


def _term(rng: random.Random, n_nodes: int) -> dict[str, Any]:
    term: dict[str, Any] = {}
    if rng.random() < 0.85:
        term["matchExpressions"] = [_requirement(rng) for _ in range(rng.randint(1, 2))]
    if rng.random() < 0.2:
        term["matchFields"] = [{"key": "metadata.name", "operator": rng.choice(["In", "NotIn"]),
                                "values": [f"node-{rng.randrange(max(n_nodes, 1))}"]}]  # fmt: skip
    return term


def _scheduling(rng: random.Random, spec: dict[str, Any], n_nodes: int) -> None:
    """Tolerations, nodeSelector and node affinity of a pending pod."""
    if rng.random() < 0.5:
        tols = []
        for _ in range(rng.randint(1, 3)):
            op = rng.choice(["Equal", "Exists", ""])
            if rng.random() < 0.1:
                op = "Exists"  # an empty key must go with Exists (API validation)
            t: dict[str, Any] = {"operator": op} if op else {}
            if op != "Exists" or rng.random() < 0.8:
                t["key"] = rng.choice([*TAINT_KEYS, "node.kubernetes.io/unschedulable"])
            if op != "Exists":
                t["value"] = rng.choice(["", "a", "b"])
            if rng.random() < 0.6:
                t["effect"] = rng.choice(["NoSchedule", "PreferNoSchedule", "NoExecute"])
            tols.append(t)
        spec["tolerations"] = tols
    if rng.random() < 0.25:
        spec["nodeSelector"] = {rng.choice(LABEL_KEYS): rng.choice(["ssd", "hdd", "8"])}
    affinity: dict[str, Any] = {}
    if rng.random() < 0.3:
        affinity["requiredDuringSchedulingIgnoredDuringExecution"] = {
            "nodeSelectorTerms": [_term(rng, n_nodes) for _ in range(rng.randint(1, 2))]
        }
    if rng.random() < 0.4:
        affinity["preferredDuringSchedulingIgnoredDuringExecution"] = [
            {"weight": rng.randint(1, 100), "preference": _term(rng, n_nodes)}
            for _ in range(rng.randint(1, 3))
        ]
    if affinity:
        spec["affinity"] = {"nodeAffinity": affinity}


def profile_scenario(
    seed: int, *, max_nodes: int = 10, max_pods: int = 25, max_pending: int = 8
) -> list[dict[str, Any]]:
    """A random cluster for the default profile's filters and scores."""
    rng = random.Random(seed)
    n_nodes = rng.randint(1, max_nodes)
    objs: list[dict[str, Any]] = [_node(rng, i, n_nodes) for i in range(n_nodes)]
    n_existing = rng.randint(0, max_pods)
    for i in range(n_existing + rng.randint(1, max_pending)):
        pending = i >= n_existing
        spec = _pod_spec(rng)
        meta: dict[str, Any] = {"name": f"pod-{i}", "namespace": "default"}
        status: dict[str, Any] = {"phase": "Pending" if pending else "Running"}
        if pending:
            _scheduling(rng, spec, n_nodes)
            if rng.random() < 0.08:
                status["nominatedNodeName"] = f"node-{rng.randrange(n_nodes)}"
        else:
            spec["nodeName"] = f"node-{rng.randrange(n_nodes)}"
        objs.append({"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec,
                     "status": status})  # fmt: skip
    rng.shuffle(objs)
    return objs


NOT_SIMULATED = ["PodTopologySpread", "InterPodAffinity"]
SCORES = ["NodeResourcesFit", "NodeResourcesBalancedAllocation", "TaintToleration",
          "NodeAffinity", "ImageLocality"]  # fmt: skip
FILTERS = ["NodeUnschedulable", "NodeName", "TaintToleration", "NodeAffinity", "NodePorts",
           "NodeResourcesFit"]  # fmt: skip


def profile_config(seed: int) -> dict[str, Any]:
    """A random KubeSchedulerConfiguration (as a dict) without the plugins kscore does not
    simulate yet."""
    rng = random.Random(seed)
    version = rng.choice(["v1beta2", "v1beta3", "v1beta3"])
    plugins: dict[str, Any] = {}
    disabled = [{"name": n} for n in NOT_SIMULATED]
    if version == "v1beta3":
        plugins["multiPoint"] = {"disabled": list(disabled)}
    for point in ("preFilter", "filter", "preScore", "score"):
        plugins[point] = {"disabled": list(disabled)}
    if rng.random() < 0.5:
        plugins["score"]["enabled"] = [
            {"name": n, "weight": rng.randint(1, 5)} for n in rng.sample(SCORES, 2)
        ]
    if rng.random() < 0.2:
        plugins["score"]["disabled"].append({"name": rng.choice(SCORES)})
    if rng.random() < 0.15:
        plugins["filter"]["disabled"].append({"name": rng.choice(FILTERS)})
    args: list[dict[str, Any]] = []
    r = rng.random()
    if r < 0.5:
        strategy: dict[str, Any] = {"type": rng.choice(["LeastAllocated", "MostAllocated"])}
        if rng.random() < 0.5:
            strategy["resources"] = [{"name": "cpu", "weight": rng.randint(1, 3)},
                                     {"name": "memory", "weight": 1}]  # fmt: skip
            if rng.random() < 0.5:
                strategy["resources"].append({"name": "nvidia.com/gpu", "weight": 2})
        args.append({"name": "NodeResourcesFit", "args": {"scoringStrategy": strategy}})
    elif r < 0.7:
        shape = [{"utilization": 0, "score": rng.choice([0, 10])},
                 {"utilization": rng.choice([50, 70]), "score": rng.randint(0, 10)},
                 {"utilization": 100, "score": rng.choice([0, 10])}]  # fmt: skip
        args.append({"name": "NodeResourcesFit", "args": {"scoringStrategy": {
            "type": "RequestedToCapacityRatio",
            "resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}],
            "requestedToCapacityRatio": {"shape": shape}}}})  # fmt: skip
    if rng.random() < 0.15:
        args.append({"name": "NodeAffinity", "args": {"addedAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                {"matchExpressions": [{"key": "disk", "operator": "NotIn",
                                       "values": ["x"]}]}]}}}})  # fmt: skip
    if rng.random() < 0.15 and not any(a["name"] == "NodeResourcesFit" for a in args):
        args.append({"name": "NodeResourcesFit", "args": {"ignoredResources": ["example.com/foo"]}})
    cfg: dict[str, Any] = {
        "apiVersion": f"kubescheduler.config.k8s.io/{version}",
        "kind": "KubeSchedulerConfiguration",
        "profiles": [{"schedulerName": "default-scheduler", "plugins": plugins,
                      "pluginConfig": args}],
    }  # fmt: skip
    if version == "v1beta2":
        cfg["profiles"][0]["plugins"].pop("multiPoint", None)
    if rng.random() < 0.3:
        cfg["percentageOfNodesToScore"] = rng.choice([0, 30, 100])
    return cfg
