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

That is the ``basic`` family (its objects and configurations are those drawn before the
other families existed, PodTopologySpread and InterPodAffinity disabled: the golden
cases were recorded from them). The families ``pts``, ``ipa`` and ``mixed``
(:func:`topology_scenario`, :func:`topology_config`) add topology keys, Namespaces, pod
labels from a small vocabulary, topology spread constraints, pod affinity and
anti-affinity, and selecting Services and controllers, with both plugins enabled.
"""

from __future__ import annotations

import copy
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


def limits_for_requests(objs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``objs`` with some containers' requests moved to limits: all of them (a quarter of
    the containers with requests) or all but the first (another quarter), chosen by the
    container's number. The API server requests the limit of a resource a container
    limits but does not request (``SetDefaults_Pod``): kscore and Go must both."""
    out = copy.deepcopy(objs)
    for obj in out:
        spec = obj.get("spec") or {}
        for c in [*spec.get("containers", ()), *spec.get("initContainers", ())]:
            req = (c.get("resources") or {}).get("requests") or {}
            number = int(c["name"][1:])
            if req and number % 4 == 0:
                c["resources"] = {"limits": req}
            elif len(req) > 1 and number % 4 == 1:
                first = next(iter(req))
                c["resources"] = {"requests": {first: req[first]}, "limits": req}
    return out


def profile_scenario(
    seed: int,
    *,
    max_nodes: int = 10,
    max_pods: int = 25,
    max_pending: int = 8,
    family: str = "basic",
) -> list[dict[str, Any]]:
    """A random cluster for the default profile's filters and scores. ``family``: ``basic``
    (resources, taints, node affinity, images, ports; the same objects as before the
    other families existed), or one of :data:`TOPOLOGY_FAMILIES` (see
    :func:`topology_scenario`)."""
    if family != "basic":
        return topology_scenario(seed, family, max_nodes=max_nodes, max_pods=max_pods,
                                 max_pending=max_pending)  # fmt: skip
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


def profile_config(seed: int, *, family: str = "basic") -> dict[str, Any]:
    """A random KubeSchedulerConfiguration (as a dict). ``basic``: PodTopologySpread and
    InterPodAffinity disabled everywhere (the configurations drawn before they were
    simulated); the other families: see :func:`topology_config`."""
    if family != "basic":
        return topology_config(seed, family)
    return _config(random.Random(seed), NOT_SIMULATED)


def _config(rng: random.Random, off: list[str]) -> dict[str, Any]:
    """The configuration of the basic family, with the plugins ``off`` disabled."""
    version = rng.choice(["v1beta2", "v1beta3", "v1beta3"])
    plugins: dict[str, Any] = {}
    disabled = [{"name": n} for n in off]
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


# --- topology spread and inter-pod affinity -------------------------------------------------

#: the families of :func:`topology_scenario`: PodTopologySpread-heavy, InterPodAffinity-heavy,
#: and both with the basic family's features at a higher rate
TOPOLOGY_FAMILIES = ("pts", "ipa", "mixed")
HOSTNAME = "kubernetes.io/hostname"
RACK = "rack"
REGION = "topology.kubernetes.io/region"
#: a pod's namespace is drawn from this list (default most often)
NAMESPACES = ["default"] * 5 + ["ns-a"] * 2 + ["ns-b"] * 2 + ["ns-c"]
NS_LABELS = {"env": ["prod", "dev"], "team": ["x", "y"]}
POD_LABELS = {"app": ["web", "db", "cache"], "tier": ["front", "back"], "role": ["a", "b"]}
#: how often a pod has each label of the vocabulary, and which value (first ones likelier)
LABEL_RATE = 0.8
VALUE_WEIGHTS = [4, 2, 1]
OPERATORS = ["In", "NotIn", "Exists", "DoesNotExist"]


class _Family:
    """How often a family draws each feature."""

    def __init__(self, tsc: float, affinity: float, existing_affinity: float, legacy: float):
        self.tsc = tsc  # a pending pod has topology spread constraints
        self.affinity = affinity  # a pending pod has pod (anti-)affinity
        self.existing_affinity = existing_affinity  # a bound pod has pod (anti-)affinity
        self.legacy = legacy  # the basic family's taints, tolerations, node affinity


FAMILIES = {
    "pts": _Family(tsc=0.75, affinity=0.12, existing_affinity=0.1, legacy=0.2),
    "ipa": _Family(tsc=0.12, affinity=0.75, existing_affinity=0.35, legacy=0.2),
    "mixed": _Family(tsc=0.45, affinity=0.45, existing_affinity=0.25, legacy=0.45),
}


def _topology_node(rng: random.Random, i: int, n_nodes: int, zones: int, racks: int,
                   legacy: float) -> dict[str, Any]:  # fmt: skip
    """A node with some of the topology keys: mostly roomy (pods schedule), sometimes a
    basic-family node (tight or missing resources, taints, unschedulable)."""
    if rng.random() < legacy * 0.5:
        node = _node(rng, i, n_nodes)
    else:
        alloc = {"cpu": rng.choice(["8", "16", "32"]),
                 "memory": rng.choice(["16Gi", "32Gi", "64Gi"]),
                 "pods": "4" if rng.random() < 0.05 else "110"}  # fmt: skip
        if rng.random() < 0.3:
            alloc["ephemeral-storage"] = "100Gi"
        labels = {k: rng.choice(["ssd", "hdd", "1", "8", "16"])
                  for k in LABEL_KEYS if rng.random() < 0.4}  # fmt: skip
        spec: dict[str, Any] = {}
        r = rng.random()
        if r < 0.1:
            spec["taints"] = [{"key": "spot", "value": "", "effect": "PreferNoSchedule"}]
        elif r < 0.14:
            spec["taints"] = [{"key": "dedicated", "value": "a", "effect": "NoSchedule"}]
        status: dict[str, Any] = {"allocatable": alloc, "capacity": dict(alloc)}
        if rng.random() < 0.3:
            status["images"] = [{"names": [_image_name(rng)], "sizeBytes": 300 * 2**20}]
        node = {"apiVersion": "v1", "kind": "Node",
                "metadata": {"name": f"node-{i}", "labels": labels}, "spec": spec,
                "status": status}  # fmt: skip
    labels = node["metadata"]["labels"]
    labels.pop(ZONE, None)
    labels.pop(HOSTNAME, None)
    r = rng.random()
    if r < 0.9:
        labels[HOSTNAME] = f"node-{i}"
    elif r < 0.95:
        labels[HOSTNAME] = f"host-{i // 2}"  # two nodes, one hostname value
    if rng.random() < 0.85:
        labels[ZONE] = f"zone-{rng.randrange(zones)}"
    if rng.random() < 0.75:
        labels[RACK] = f"rack-{rng.randrange(racks)}"
    if rng.random() < 0.5:
        labels[REGION] = rng.choice(["r1", "r2"])
    return node


def _pod_labels(rng: random.Random) -> dict[str, str]:
    labels = {k: rng.choices(vs, VALUE_WEIGHTS[: len(vs)])[0]
              for k, vs in POD_LABELS.items() if rng.random() < LABEL_RATE}  # fmt: skip
    if rng.random() < 0.1:
        labels["other"] = "x"
    return labels


def _expression(rng: random.Random, values: dict[str, list[str]]) -> dict[str, Any]:
    key = rng.choice([*values, "absent"]) if rng.random() < 0.1 else rng.choice(list(values))
    op = rng.choice(OPERATORS)
    e: dict[str, Any] = {"key": key, "operator": op}
    if op in ("In", "NotIn"):
        pool = [*values.get(key, ["x"]), "zzz"]
        e["values"] = sorted(rng.sample(pool, rng.randint(1, 2)))
    return e


def _pod_selector(rng: random.Random, own: dict[str, str]) -> dict[str, Any] | None:
    """A label selector over pods, often one the pod itself (``own`` labels) matches;
    None (matches nothing) or ``{}`` (everything) now and then."""
    r = rng.random()
    if r < 0.05:
        return None
    if r < 0.1:
        return {}
    sel: dict[str, Any] = {}
    if rng.random() < 0.75:
        if own and rng.random() < 0.6:
            items = rng.sample(sorted(own.items()), rng.choice([1, 1, min(2, len(own))]))
        else:
            keys = rng.sample(sorted(POD_LABELS), rng.choice([1, 1, 2]))
            items = [(k, rng.choices(POD_LABELS[k], VALUE_WEIGHTS[: len(POD_LABELS[k])])[0])
                     for k in keys]  # fmt: skip
        sel["matchLabels"] = dict(items)
    if not sel or rng.random() < 0.4:
        sel["matchExpressions"] = [_expression(rng, POD_LABELS)
                                   for _ in range(rng.randint(1, 2))]  # fmt: skip
    return sel


def _ns_selector(rng: random.Random) -> dict[str, Any]:
    if rng.random() < 0.3:
        return {}
    values = {**NS_LABELS, "kubernetes.io/metadata.name": sorted(set(NAMESPACES))}
    if rng.random() < 0.6:
        key = rng.choice(sorted(values))
        return {"matchLabels": {key: rng.choice(values[key])}}
    return {"matchExpressions": [_expression(rng, values) for _ in range(rng.randint(1, 2))]}


def _spread_constraints(rng: random.Random, labels: dict[str, str]) -> list[dict[str, Any]]:
    out, seen = [], set()
    for _ in range(rng.choice([1, 1, 2, 2, 3])):
        key = rng.choice([ZONE, ZONE, HOSTNAME, HOSTNAME, RACK, RACK, REGION])
        when = rng.choice(["DoNotSchedule", "ScheduleAnyway"])
        if (key, when) in seen:  # the API refuses a (topologyKey, whenUnsatisfiable) twice
            continue
        seen.add((key, when))
        c: dict[str, Any] = {"maxSkew": rng.choice([1, 1, 2, 3]), "topologyKey": key,
                             "whenUnsatisfiable": when}  # fmt: skip
        sel = _pod_selector(rng, labels)
        if sel is not None:
            c["labelSelector"] = sel
        out.append(c)
    return out


def _affinity_term(rng: random.Random, labels: dict[str, str]) -> dict[str, Any]:
    term: dict[str, Any] = {"topologyKey": rng.choice([ZONE, HOSTNAME, RACK, ZONE, HOSTNAME,
                                                       RACK, REGION])}  # fmt: skip
    sel = _pod_selector(rng, labels)
    if sel is not None:
        term["labelSelector"] = sel
    if rng.random() < 0.2:
        term["namespaces"] = sorted(rng.sample([*sorted(set(NAMESPACES)), "ns-none"],
                                               rng.randint(1, 2)))  # fmt: skip
    if rng.random() < 0.25:
        term["namespaceSelector"] = _ns_selector(rng)
    return term


def _pod_affinity(rng: random.Random, labels: dict[str, str], pending: bool) -> dict[str, Any]:
    """``podAffinity`` and ``podAntiAffinity`` (some of their four lists)."""
    affinity: dict[str, Any] = {}
    for kind, required in (("podAffinity", 0.35), ("podAntiAffinity", 0.45)):
        if rng.random() < 0.35:
            continue
        part: dict[str, Any] = {}
        if rng.random() < (required if pending else 0.5):
            part["requiredDuringSchedulingIgnoredDuringExecution"] = [
                _affinity_term(rng, labels) for _ in range(rng.choice([1, 1, 2]))
            ]
        if not part or rng.random() < 0.6:
            part["preferredDuringSchedulingIgnoredDuringExecution"] = [
                {"weight": rng.choice([1, 5, 50, 100, rng.randint(1, 100)]),
                 "podAffinityTerm": _affinity_term(rng, labels)}
                for _ in range(rng.randint(1, 3))
            ]  # fmt: skip
        affinity[kind] = part
    return affinity


def _topology_node_selection(rng: random.Random, spec: dict[str, Any], zones: int,
                             racks: int) -> None:  # fmt: skip
    """nodeSelector or required node affinity on the topology keys (the nodes
    PodTopologySpread counts)."""
    if rng.random() < 0.5:
        key, value = rng.choice([(ZONE, f"zone-{rng.randrange(zones)}"),
                                 (RACK, f"rack-{rng.randrange(racks)}"),
                                 (REGION, "r1")])  # fmt: skip
        spec.setdefault("nodeSelector", {})[key] = value
        return
    node_affinity = spec.setdefault("affinity", {}).setdefault("nodeAffinity", {})
    if "requiredDuringSchedulingIgnoredDuringExecution" in node_affinity:
        return
    values = {ZONE: [f"zone-{z}" for z in range(zones)],
              RACK: [f"rack-{r}" for r in range(racks)],
              HOSTNAME: ["node-0", "node-1"]}  # fmt: skip
    terms = [{"matchExpressions": [_expression(rng, values) for _ in range(rng.randint(1, 2))]}
             for _ in range(rng.choice([1, 1, 2]))]  # fmt: skip
    node_affinity["requiredDuringSchedulingIgnoredDuringExecution"] = {"nodeSelectorTerms": terms}


def _selecting_objects(rng: random.Random) -> list[dict[str, Any]]:
    """Services, ReplicationControllers, ReplicaSets and StatefulSets whose selectors pick
    pods of the vocabulary (PodTopologySpread's default constraints apply to them)."""
    objs: list[dict[str, Any]] = []
    for i in range(rng.choice([0, 1, 2, 3, 4])):
        kind = rng.choice(["Service", "Service", "ReplicationController", "ReplicaSet",
                           "StatefulSet"])  # fmt: skip
        key = rng.choice(sorted(POD_LABELS))
        labels = {key: rng.choice(POD_LABELS[key])}
        if rng.random() < 0.3:
            key = rng.choice(sorted(POD_LABELS))
            labels[key] = rng.choice(POD_LABELS[key])
        meta = {"name": f"{kind.lower()}-{i}", "namespace": rng.choice(NAMESPACES)}
        if kind in ("Service", "ReplicationController"):
            spec: dict[str, Any] = {"selector": {} if rng.random() < 0.05 else labels}
            api = "v1"
        else:
            sel: dict[str, Any] = {"matchLabels": labels}
            if rng.random() < 0.3:
                sel["matchExpressions"] = [_expression(rng, POD_LABELS)]
            spec = {"selector": sel}
            api = "apps/v1"
        objs.append({"apiVersion": api, "kind": kind, "metadata": meta, "spec": spec})
    return objs


def _namespaces(rng: random.Random) -> list[dict[str, Any]]:
    """Namespace objects for some of the namespaces (pods also live in the others), with
    the ``kubernetes.io/metadata.name`` label the API server gives every namespace."""
    objs = []
    for name in [*sorted(set(NAMESPACES)), "ns-empty"]:
        if rng.random() < (0.9 if name == "default" else 0.7):
            labels = {k: rng.choice(vs) for k, vs in NS_LABELS.items() if rng.random() < 0.6}
            labels["kubernetes.io/metadata.name"] = name
            objs.append({"apiVersion": "v1", "kind": "Namespace",
                         "metadata": {"name": name, "labels": labels}})  # fmt: skip
    return objs


def topology_scenario(
    seed: int, family: str, *, max_nodes: int = 10, max_pods: int = 25, max_pending: int = 8
) -> list[dict[str, Any]]:
    """A random cluster rich in topology spread constraints (``pts``), pod affinity and
    anti-affinity (``ipa``) or both with more of the basic family's features (``mixed``).

    Nodes carry some of the zone, hostname (also one value on two nodes), ``rack`` and
    region keys; Namespace objects with labels exist for some namespaces only; pods
    (bound, some being deleted or on an absent node, and pending) have labels from a
    small vocabulary, so that selectors (matchLabels, every matchExpressions operator,
    nil and empty) often match; constraints (DoNotSchedule and ScheduleAnyway, maxSkew
    1-3), required and preferred (anti-)affinity terms (namespaces lists,
    namespaceSelector including ``{}``, every topology key) on pending and bound pods;
    Services and controllers selecting pods (default spreading constraints);
    nodeSelector and required node affinity on the topology keys.
    """
    fam = FAMILIES[family]
    rng = random.Random(seed)
    n_nodes = rng.randint(1, max_nodes)
    zones, racks = rng.randint(1, 4), rng.randint(1, 5)
    objs = [_topology_node(rng, i, n_nodes, zones, racks, fam.legacy) for i in range(n_nodes)]
    objs += _namespaces(rng)
    objs += _selecting_objects(rng)
    n_existing = rng.randint(0, max_pods)
    hot = rng.sample(range(n_nodes), max(1, n_nodes // 3))  # half the bound pods: skewed
    for i in range(n_existing + rng.randint(1, max_pending)):
        pending = i >= n_existing
        labels = _pod_labels(rng)
        meta: dict[str, Any] = {"name": f"pod-{i}", "namespace": rng.choice(NAMESPACES)}
        if labels:
            meta["labels"] = labels
        status: dict[str, Any] = {"phase": "Pending" if pending else "Running"}
        if rng.random() < fam.legacy:
            spec = _pod_spec(rng)
        else:
            requests = {"cpu": rng.choice(["100m", "250m", "500m", "1"]),
                        "memory": rng.choice(["128Mi", "256Mi", "1Gi"])}  # fmt: skip
            spec = {"containers": [{"name": "c", "image": _image_name(rng),
                                    "resources": {"requests": requests}}]}  # fmt: skip
        if pending:
            if rng.random() < fam.legacy:
                _scheduling(rng, spec, n_nodes)
            if rng.random() < 0.2:
                _topology_node_selection(rng, spec, zones, racks)
            if rng.random() < 0.05:
                status["nominatedNodeName"] = f"node-{rng.randrange(n_nodes)}"
            if rng.random() < 0.02:  # being deleted: not scheduled
                meta["deletionTimestamp"] = "2022-01-01T00:00:00Z"
        else:
            at = rng.choice(hot) if rng.random() < 0.5 else rng.randrange(n_nodes)
            spec["nodeName"] = f"node-{at}"
            if rng.random() < 0.02:
                spec["nodeName"] = "gone-node"  # bound to a node absent from the input
            if rng.random() < 0.08:
                meta["deletionTimestamp"] = "2022-01-01T00:00:00Z"
            if rng.random() < 0.03:
                status["phase"] = rng.choice(["Succeeded", "Failed"])
        if pending and rng.random() < fam.tsc:
            spec["topologySpreadConstraints"] = _spread_constraints(rng, labels)
        if rng.random() < (fam.affinity if pending else fam.existing_affinity):
            affinity = _pod_affinity(rng, labels, pending)
            if affinity:
                spec.setdefault("affinity", {}).update(affinity)
        objs.append({"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec,
                     "status": status})  # fmt: skip
    rng.shuffle(objs)
    return objs


def _spread_args(rng: random.Random) -> dict[str, Any]:
    if rng.random() < 0.35:
        return {"defaultingType": "System"}
    constraints, seen = [], set()
    for _ in range(rng.choice([0, 1, 2, 2, 3])):
        key = rng.choice([ZONE, HOSTNAME, RACK])
        when = rng.choice(["DoNotSchedule", "ScheduleAnyway"])
        if (key, when) not in seen:
            seen.add((key, when))
            constraints.append({"maxSkew": rng.randint(1, 3), "topologyKey": key,
                                "whenUnsatisfiable": when})  # fmt: skip
    return {"defaultingType": "List", "defaultConstraints": constraints}


def topology_config(seed: int, family: str) -> dict[str, Any]:
    """The basic family's configuration with PodTopologySpread and InterPodAffinity
    enabled: random score weights, ``PodTopologySpreadArgs`` (System or List defaulting
    with random default constraints), ``InterPodAffinityArgs.hardPodAffinityWeight``
    (0-100), now and then one of them disabled at Filter or at Score."""
    if family not in FAMILIES:
        raise ValueError(f"unknown family {family!r}")
    rng = random.Random(seed)
    cfg = _config(rng, [])
    profile = cfg["profiles"][0]
    plugins, args = profile["plugins"], profile["pluginConfig"]
    for name in ("PodTopologySpread", "InterPodAffinity"):
        if rng.random() < 0.5:
            plugins["score"].setdefault("enabled", []).append(
                {"name": name, "weight": rng.choice([1, 2, 3, 5, 10])}
            )
    off = [(p, n) for p in ("filter", "score") for n in ("PodTopologySpread", "InterPodAffinity")]
    r = rng.random()
    for i, (point, name) in enumerate(off):
        if 0.07 * i <= r < 0.07 * (i + 1):
            plugins[point]["disabled"].append({"name": name})
    if rng.random() < 0.7:
        args.append({"name": "PodTopologySpread", "args": _spread_args(rng)})
    if rng.random() < 0.7:
        weight = rng.choice([0, 1, 100, rng.randint(0, 100)])
        args.append({"name": "InterPodAffinity", "args": {"hardPodAffinityWeight": weight}})
    return cfg
