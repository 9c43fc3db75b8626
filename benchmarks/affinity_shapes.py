"""Clusters for the PodTopologySpread and InterPodAffinity benchmarks, as manifests.

**scheduler_perf's workloads** (k8s.io/kubernetes v1.23.6,
``test/integration/scheduler_perf/config/performance-config.yaml`` and the templates next
to it), built by :func:`scheduler_perf_objects`:

============================== ========================================================
workload                       nodes; existing pods; pending pods
============================== ========================================================
TopologySpreading              ``node-default.yaml``, ``topology.kubernetes.io/zone``
                               ``moon-1/2/3`` round robin (``labelNodePrepareStrategy``);
                               ``pod-default.yaml`` in ``namespace-1``;
                               ``pod-with-topology-spreading.yaml`` in ``namespace-2``
                               (``color: blue``, zone ``maxSkew: 5``, ``DoNotSchedule``)
SchedulingPodAffinity          ``node-default.yaml``, every node in zone ``zone1``;
                               ``pod-with-pod-affinity.yaml`` in ``sched-setup`` and in
                               ``sched-test`` (``color: blue``, required affinity to
                               ``color: blue`` on the zone, namespaces both)
SchedulingPreferredPodAffinity the harness's default node (the same capacity) with a
                               unique ``kubernetes.io/hostname`` (a UUID,
                               ``uniqueNodeLabelStrategy``);
                               ``pod-with-preferred-pod-affinity.yaml`` (``color: red``,
                               preferred affinity, weight 1, on the hostname)
SchedulingPodAntiAffinity      as above; ``pod-with-pod-anti-affinity.yaml``
                               (``color: green``, required anti-affinity on the hostname)
============================== ========================================================

Nodes: capacity (= allocatable, as the API server defaults it) ``pods: 110, cpu: 4,
memory: 32Gi``, Ready; no other label than the strategy's (the integration harness has no
kubelet to add a hostname label). Pods: one ``pause`` container requesting (and limited
to) ``100m`` and ``500Mi``, port 80. The ``Namespace`` objects are written too.

Where this differs from upstream: upstream *schedules* the existing pods one by one with
the scheduler; here existing pod ``i`` is bound to node ``i mod N`` (round robin, as
upstream's ``MakeNodesAndPodsForPodAffinity`` places pods), which respects every
workload's required terms (anti-affinity: fewer existing pods than nodes; affinity: one
zone). Names are ``<generateName><index>`` instead of random suffixes. And the pending
pods are scored in *batch* mode: each against the same cluster, nothing assumed between
them (upstream binds each measured pod before the next).

**openb with made-up topology** (:func:`openb_affinity_cluster`): compare_profile's
import of openb's 1,523 nodes and first pods (creation order), the first ``pending`` of
them pending and the next ``bound`` bound, with made-up labels and terms drawn from one
seeded generator (see :data:`OPENB_MADE_UP`).
"""

from __future__ import annotations

import json
import random
import uuid
from pathlib import Path
from typing import Any

ZONE = "topology.kubernetes.io/zone"
HOSTNAME = "kubernetes.io/hostname"
RACK = "example.com/rack"
PAUSE = "k8s.gcr.io/pause:3.6"

# (nodes, existing pods, pending pods): upstream's 5000Nodes workloads with fewer measured
# pods (upstream: 2,000 for TopologySpreading, 1,000 for the others), and its 500Nodes
# workloads with fewer measured pods for --quick.
SIZES = {
    "full": {
        "TopologySpreading": (5000, 5000, 200),
        "SchedulingPodAffinity": (5000, 5000, 200),
        "SchedulingPreferredPodAffinity": (5000, 5000, 200),
        "SchedulingPodAntiAffinity": (5000, 1000, 200),
    },
    "quick": {
        "TopologySpreading": (500, 1000, 50),
        "SchedulingPodAffinity": (500, 500, 50),
        "SchedulingPreferredPodAffinity": (500, 500, 50),
        "SchedulingPodAntiAffinity": (500, 100, 50),
    },
}
WORKLOADS = tuple(SIZES["full"])


def _term(color: str, key: str) -> dict[str, Any]:
    return {
        "labelSelector": {"matchLabels": {"color": color}},
        "topologyKey": key,
        "namespaces": ["sched-test", "sched-setup"],
    }


# workload: (node label key: ZONE by labelNodePrepareStrategy, HOSTNAME by
# uniqueNodeLabelStrategy; pod generateName, labels, spec fields of the pod template,
# namespaces of the existing and pending pods)
_TEMPLATES: dict[str, tuple[str, str, dict[str, str], dict[str, Any], tuple[str, str]]] = {
    "TopologySpreading": (
        ZONE,
        "spreading-pod-",
        {"color": "blue"},
        {
            "topologySpreadConstraints": [
                {
                    "maxSkew": 5,
                    "topologyKey": ZONE,
                    "whenUnsatisfiable": "DoNotSchedule",
                    "labelSelector": {"matchLabels": {"color": "blue"}},
                }
            ]
        },
        ("namespace-1", "namespace-2"),
    ),
    "SchedulingPodAffinity": (
        ZONE,
        "affinity-pod-",
        {"color": "blue"},
        {
            "affinity": {
                "podAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": [_term("blue", ZONE)]
                }
            }
        },
        ("sched-setup", "sched-test"),
    ),
    "SchedulingPreferredPodAffinity": (
        HOSTNAME,
        "preferred-affinity-pod-",
        {"color": "red"},
        {
            "affinity": {
                "podAffinity": {
                    "preferredDuringSchedulingIgnoredDuringExecution": [
                        {"podAffinityTerm": _term("red", HOSTNAME), "weight": 1}
                    ]
                }
            }
        },
        ("sched-setup", "sched-test"),
    ),
    "SchedulingPodAntiAffinity": (
        HOSTNAME,
        "anti-affinity-pod-",
        {"color": "green"},
        {
            "affinity": {
                "podAntiAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": [_term("green", HOSTNAME)]
                }
            }
        },
        ("sched-setup", "sched-test"),
    ),
}
_ZONE_VALUES = {
    "TopologySpreading": ("moon-1", "moon-2", "moon-3"),
    "SchedulingPodAffinity": ("zone1",),
}


def node(name: str, labels: dict[str, str]) -> dict[str, Any]:
    """scheduler_perf's ``node-default.yaml`` (and the harness's default node)."""
    capacity = {"cpu": "4", "memory": "32Gi", "pods": "110"}
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"labels": labels, "name": name},
        "spec": {},
        "status": {
            "allocatable": dict(capacity),
            "capacity": capacity,
            "conditions": [{"status": "True", "type": "Ready"}],
            "phase": "Running",
        },
    }


def pod(
    namespace: str,
    name: str,
    labels: dict[str, str],
    spec: dict[str, Any],
    node_name: str | None = None,
) -> dict[str, Any]:
    """scheduler_perf's ``pod-default.yaml`` with a template's labels and spec fields."""
    resources = {"cpu": "100m", "memory": "500Mi"}
    container = {
        "image": PAUSE,
        "name": "pause",
        "ports": [{"containerPort": 80, "protocol": "TCP"}],
        "resources": {"limits": dict(resources), "requests": resources},
    }
    full_spec = {"containers": [container], **json.loads(json.dumps(spec))}
    if node_name is not None:
        full_spec["nodeName"] = node_name
    metadata: dict[str, Any] = {"name": name, "namespace": namespace}
    if labels:
        metadata["labels"] = dict(labels)
    phase = "Running" if node_name is not None else "Pending"
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": metadata,
        "spec": full_spec,
        "status": {"phase": phase},
    }


def namespace(name: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {"labels": {"kubernetes.io/metadata.name": name}, "name": name},
    }


def scheduler_perf_objects(
    workload: str, nodes: int, existing: int, pending: int, seed: int = 0
) -> list[dict[str, Any]]:
    """The objects of one of scheduler_perf's workloads (see the module's docstring)."""
    key, prefix, labels, spec, (setup_ns, test_ns) = _TEMPLATES[workload]
    rng = random.Random(seed)
    node_objs = []
    for i in range(nodes):
        if key == ZONE:
            values = _ZONE_VALUES[workload]
            node_labels = {ZONE: values[i % len(values)]}
        else:
            node_labels = {HOSTNAME: str(uuid.UUID(int=rng.getrandbits(128), version=4))}
        node_objs.append(node(f"scheduler-perf-{i:05d}", node_labels))
    objs: list[dict[str, Any]] = [namespace(setup_ns), namespace(test_ns), *node_objs]
    if workload == "TopologySpreading":  # the existing pods are pod-default.yaml
        existing_tpl: tuple[str, dict[str, str], dict[str, Any]] = ("pod-", {}, {})
    else:
        existing_tpl = (prefix, labels, spec)
    for i in range(existing):
        objs.append(
            pod(
                setup_ns,
                f"{existing_tpl[0]}{i:05d}",
                existing_tpl[1],
                existing_tpl[2],
                node_objs[i % nodes]["metadata"]["name"],
            )
        )
    for j in range(pending):
        objs.append(pod(test_ns, f"{prefix}{j:05d}", labels, spec))
    return objs


def write_objects(out: Path, objects: list[dict[str, Any]]) -> Path:
    """``out/cluster.json``, a ``v1 List`` as ``kubectl get -o json`` prints it."""
    out.mkdir(parents=True, exist_ok=True)
    doc = {
        "apiVersion": "v1",
        "items": objects,
        "kind": "List",
        "metadata": {"resourceVersion": ""},
    }
    (out / "cluster.json").write_text(json.dumps(doc, separators=(",", ":")))
    return out


def write_scheduler_perf(
    workdir: Path, workload: str, size: str = "full", seed: int = 0, pending: int | None = None
) -> Path:
    """``workdir/<workload>/cluster.json`` at a size of :data:`SIZES` (``pending`` pods
    instead of its count when given)."""
    n, e, p = SIZES[size][workload]
    p = p if pending is None else pending
    return write_objects(workdir / workload, scheduler_perf_objects(workload, n, e, p, seed))


# -- openb with made-up zones, racks, apps and terms ------------------------------------------

OPENB_MADE_UP = """\
* nodes: a seeded permutation deals them into racks of 20 (`example.com/rack: rack-NNN`,
  77 racks) and racks into 4 zones round robin (`topology.kubernetes.io/zone: zone-a..d`);
* every pod (pending and bound): `app: app-NN`, one of 40 apps drawn with weight 1/(k+1)
  (app-00 the most common);
* each pod independently, with these probabilities: 30% a topology spread constraint on
  the zone (maxSkew 1, own app; DoNotSchedule one time in 3, else ScheduleAnyway), and half
  of those a second on the rack (maxSkew 2, ScheduleAnyway); 15% preferred anti-affinity
  to its own app on the hostname (weight 100); 5% required anti-affinity to its own app on
  the hostname; 10% preferred affinity (weight 50) to one of app-00..04 on the zone or the
  rack; 3% required affinity to app-00..02 (`In`) on the zone;
* bound pods: openb's pods after the pending ones, each on the first node (from a rotating
  start) with room for its cpu, memory, GPUs and pod count and of its GPU model if it asks
  for one (first fit; pods that fit nowhere are dropped); their terms are not checked.
"""


def _made_up_spec(rng: random.Random, app: str) -> dict[str, Any]:
    own = {"matchLabels": {"app": app}}
    spec: dict[str, Any] = {}
    if rng.random() < 0.30:
        when = "DoNotSchedule" if rng.random() < 1 / 3 else "ScheduleAnyway"
        tsc = [{"maxSkew": 1, "topologyKey": ZONE, "whenUnsatisfiable": when, "labelSelector": own}]
        if rng.random() < 0.5:
            tsc.append(
                {
                    "maxSkew": 2,
                    "topologyKey": RACK,
                    "whenUnsatisfiable": "ScheduleAnyway",
                    "labelSelector": own,
                }
            )
        spec["topologySpreadConstraints"] = tsc
    affinity: dict[str, Any] = {}
    if rng.random() < 0.15:
        term = {"labelSelector": own, "topologyKey": HOSTNAME}
        affinity.setdefault("podAntiAffinity", {})[
            "preferredDuringSchedulingIgnoredDuringExecution"
        ] = [{"podAffinityTerm": term, "weight": 100}]
    if rng.random() < 0.05:
        affinity.setdefault("podAntiAffinity", {})[
            "requiredDuringSchedulingIgnoredDuringExecution"
        ] = [{"labelSelector": own, "topologyKey": HOSTNAME}]
    if rng.random() < 0.10:
        other = {"matchLabels": {"app": f"app-{rng.randrange(5):02d}"}}
        term = {"labelSelector": other, "topologyKey": rng.choice((ZONE, RACK))}
        affinity.setdefault("podAffinity", {})[
            "preferredDuringSchedulingIgnoredDuringExecution"
        ] = [{"podAffinityTerm": term, "weight": 50}]
    if rng.random() < 0.03:
        sel = {
            "matchExpressions": [
                {"key": "app", "operator": "In", "values": ["app-00", "app-01", "app-02"]}
            ]
        }
        affinity.setdefault("podAffinity", {})["requiredDuringSchedulingIgnoredDuringExecution"] = [
            {"labelSelector": sel, "topologyKey": ZONE}
        ]
    if affinity:
        spec["affinity"] = {**spec.get("affinity", {}), **affinity}
    return spec


def _quantity(q: str) -> int:
    """The openb import's quantities: ``<n>m`` (cpu), ``<n>Mi`` (memory), ``<n>``."""
    if q.endswith("m"):
        return int(q[:-1])
    if q.endswith("Mi"):
        return int(q[:-2])
    return int(q)


def _free(n: dict[str, Any]) -> list[int]:
    alloc = n["status"]["allocatable"]
    return [
        _quantity(alloc["cpu"]),
        _quantity(alloc["memory"]),
        int(alloc.get("nvidia.com/gpu", "0")),
        int(alloc["pods"]),
    ]


def _needs(p: dict[str, Any]) -> tuple[list[int], set[str] | None]:
    req = p["spec"]["containers"][0]["resources"]["requests"]
    need = [_quantity(req["cpu"]), _quantity(req["memory"]), int(req.get("nvidia.com/gpu", "0")), 1]
    models = None
    if "affinity" in p["spec"]:
        terms = p["spec"]["affinity"]["nodeAffinity"][
            "requiredDuringSchedulingIgnoredDuringExecution"
        ]
        models = set(terms["nodeSelectorTerms"][0]["matchExpressions"][0]["values"])
    return need, models


def openb_affinity_cluster(
    openb: Path, pending: int, bound: int, workdir: Path, seed: int = 0
) -> tuple[Path, dict[str, int]]:
    """openb's nodes, ``pending`` pending and up to ``bound`` bound pods, with the labels,
    spread constraints and affinity terms of :data:`OPENB_MADE_UP`; ``workdir/openb-affinity``
    and counts (nodes, pending, bound, dropped, with constraints, with affinity terms)."""
    from benchmarks.compare_profile import openb_cluster

    imported = openb_cluster(openb, pending + bound, workdir)
    nodes = json.loads((imported / "nodes.json").read_text())["items"]
    pods = json.loads((imported / "pods.json").read_text())["items"]
    rng = random.Random(seed)
    perm = list(range(len(nodes)))
    rng.shuffle(perm)
    for n, slot in zip(nodes, perm, strict=True):
        rack = slot // 20
        n["metadata"]["labels"][RACK] = f"rack-{rack:03d}"
        n["metadata"]["labels"][ZONE] = "zone-" + "abcd"[rack % 4]
    apps = [f"app-{k:02d}" for k in range(40)]
    weights = [1 / (k + 1) for k in range(40)]
    model_key = "alibabacloud.com/gpu-card-model"
    free = [_free(n) for n in nodes]
    kept: list[dict[str, Any]] = []
    counts = {
        "nodes": len(nodes),
        "pending": 0,
        "bound": 0,
        "dropped": 0,
        "spread": 0,
        "affinity": 0,
    }
    start = 0
    for i, p in enumerate(pods):
        app = rng.choices(apps, weights)[0]
        p["metadata"]["labels"] = {"app": app}
        extra = _made_up_spec(rng, app)
        if i >= pending:
            need, models = _needs(p)
            for k in range(len(nodes)):
                j = (start + k) % len(nodes)
                f = free[j]
                if all(a >= b for a, b in zip(f, need, strict=True)) and (
                    models is None or nodes[j]["metadata"]["labels"].get(model_key) in models
                ):
                    free[j] = [a - b for a, b in zip(f, need, strict=True)]
                    p["spec"]["nodeName"] = nodes[j]["metadata"]["name"]
                    p["status"]["phase"] = "Running"
                    start = j + 1
                    break
            else:
                counts["dropped"] += 1
                continue
        affinity = {**p["spec"].get("affinity", {}), **extra.pop("affinity", {})}
        if affinity:
            p["spec"]["affinity"] = affinity
        p["spec"].update(extra)
        counts["spread"] += "topologySpreadConstraints" in extra
        counts["affinity"] += "podAffinity" in affinity or "podAntiAffinity" in affinity
        counts["bound" if i >= pending else "pending"] += 1
        kept.append(p)
    return write_objects(workdir / "openb-affinity", [*nodes, *kept]), counts
