"""Seeded random clusters as Kubernetes objects (dicts), for property, reference and
differential tests.

Covers what SelectorSpread reads: nodes with and without zones (GA and deprecated
failure-domain labels, regions), several namespaces, services with, without and with
empty selectors, ReplicationControllers, ReplicaSets and StatefulSets (matchLabels and
matchExpressions, nil and empty selectors), controller and non-controller owner
references (also wrong apiVersions, unknown kinds, missing controllers), deleting pods,
terminated pods, pods bound to absent nodes, pods with topology spread constraints and
nominated nodes.
"""

from __future__ import annotations

import random
from typing import Any

KEYS = ["app", "tier", "team", "version", "k8s.io/role"]
VALUES = ["a", "b", "c", ""]
ZONE_GA = "topology.kubernetes.io/zone"
ZONE_BETA = "failure-domain.beta.kubernetes.io/zone"
REGION_GA = "topology.kubernetes.io/region"
REGION_BETA = "failure-domain.beta.kubernetes.io/region"


def _labels(rng: random.Random, k_max: int = 3) -> dict[str, str]:
    return {rng.choice(KEYS): rng.choice(VALUES) for _ in range(rng.randint(0, k_max))}


def _node(rng: random.Random, i: int, zones: int) -> dict[str, Any]:
    labels = {"kubernetes.io/hostname": f"node-{i}"}
    r = rng.random()
    z = f"zone-{rng.randrange(zones)}"
    if r < 0.55:
        labels[ZONE_GA] = z
        if rng.random() < 0.5:
            labels[REGION_GA] = "r1"
    elif r < 0.75:
        labels[ZONE_BETA] = z
        labels[REGION_BETA] = rng.choice(["r1", "r2"])
        if rng.random() < 0.5:
            labels[ZONE_GA] = f"zone-{rng.randrange(zones)}"  # the beta label wins
    elif r < 0.8:
        labels[REGION_GA] = "r1"  # region only
    elif r < 0.83:
        labels[ZONE_BETA] = ""  # present but empty: still wins over GA
        labels[ZONE_GA] = z
    if rng.random() < 0.3:
        labels.update(_labels(rng, 1))
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": f"node-{i}", "labels": labels}}


def _label_selector(rng: random.Random) -> dict[str, Any] | None:
    r = rng.random()
    if r < 0.08:
        return None
    if r < 0.15:
        return {}
    sel: dict[str, Any] = {}
    if rng.random() < 0.8:
        sel["matchLabels"] = _labels(rng, 2)
    if rng.random() < 0.5:
        exprs = []
        for _ in range(rng.randint(1, 2)):
            op = rng.choice(["In", "NotIn", "Exists", "DoesNotExist"])
            e: dict[str, Any] = {"key": rng.choice(KEYS), "operator": op}
            if op in ("In", "NotIn"):
                e["values"] = sorted(
                    {rng.choice([*VALUES, "zzz"]) for _ in range(rng.randint(1, 2))}
                )
            exprs.append(e)
        sel["matchExpressions"] = exprs
    return sel


def _owner(rng: random.Random, controllers: list[tuple[str, str, str]]) -> list[dict[str, Any]]:
    refs = []
    for _ in range(rng.choice([0, 1, 1, 1, 2])):
        if controllers and rng.random() < 0.8:
            kind, _, name = rng.choice(controllers)
        else:
            kind, name = (
                rng.choice(
                    ["ReplicaSet", "StatefulSet", "ReplicationController", "Deployment", "Job"]
                ),
                "missing",
            )
        api = "v1" if kind == "ReplicationController" else "apps/v1"
        if kind in ("Job",):
            api = "batch/v1"
        if rng.random() < 0.1:
            api = rng.choice(["extensions/v1beta1", "apps/v1beta2", "v1", "apps/v1", "a/b/c", ""])
        ref: dict[str, Any] = {"apiVersion": api, "kind": kind, "name": name, "uid": f"uid-{name}"}
        c = rng.random()
        if c < 0.75:
            ref["controller"] = True
        elif c < 0.85:
            ref["controller"] = False
        refs.append(ref)
    return refs


def scenario(
    seed: int, *, max_nodes: int = 8, max_pods: int = 30, max_pending: int = 6
) -> list[dict[str, Any]]:
    """A random cluster as a list of Kubernetes objects."""
    rng = random.Random(seed)
    n_nodes = rng.randint(0 if rng.random() < 0.03 else 1, max_nodes)
    zones = rng.randint(1, 4)
    objs: list[dict[str, Any]] = [_node(rng, i, zones) for i in range(n_nodes)]
    namespaces = ["default", "ns1", "ns2"][: rng.randint(1, 3)]

    controllers: list[tuple[str, str, str]] = []
    for i in range(rng.randint(0, 4)):
        ns = rng.choice(namespaces)
        kind = rng.choice(["ReplicaSet", "StatefulSet", "ReplicationController"])
        name = f"{kind.lower()}-{i}"
        if kind == "ReplicationController":
            r = rng.random()
            sel: Any = None if r < 0.1 else ({} if r < 0.2 else _labels(rng, 2))
            api = "v1"
        else:
            sel = _label_selector(rng)
            api = "apps/v1"
        spec = {} if sel is None else {"selector": sel}
        objs.append(
            {
                "apiVersion": api,
                "kind": kind,
                "metadata": {"name": name, "namespace": ns},
                "spec": spec,
            }
        )
        controllers.append((kind, ns, name))

    for i in range(rng.randint(0, 4)):
        r = rng.random()
        spec = {} if r < 0.1 else {"selector": {} if r < 0.2 else _labels(rng, 2)}
        objs.append(
            {
                "apiVersion": "v1",
                "kind": "Service",
                "metadata": {"name": f"svc-{i}", "namespace": rng.choice(namespaces)},
                "spec": spec,
            }
        )

    node_names = [f"node-{i}" for i in range(n_nodes)]
    n_existing = rng.randint(0, max_pods)
    n_pending = rng.randint(1, max_pending)
    for i in range(n_existing + n_pending):
        pending = i >= n_existing
        meta: dict[str, Any] = {
            "name": f"pod-{i}",
            "namespace": rng.choice(namespaces),
            "labels": _labels(rng),
        }
        if rng.random() < 0.7:
            meta["ownerReferences"] = _owner(rng, controllers)
        spec: dict[str, Any] = {"containers": [{"name": "c", "image": "busybox"}]}
        status: dict[str, Any] = {"phase": "Pending" if pending else "Running"}
        if not pending:
            if node_names and rng.random() < 0.95:
                spec["nodeName"] = rng.choice(node_names)
            else:
                spec["nodeName"] = "gone-node"  # bound to a node absent from the input
            if rng.random() < 0.1:
                meta["deletionTimestamp"] = "2022-01-01T00:00:00Z"
            if rng.random() < 0.05:
                status["phase"] = rng.choice(["Succeeded", "Failed"])
        else:
            if rng.random() < 0.15:
                spec["topologySpreadConstraints"] = [
                    {
                        "maxSkew": 1,
                        "topologyKey": ZONE_GA,
                        "whenUnsatisfiable": "ScheduleAnyway",
                        "labelSelector": {"matchLabels": meta["labels"]},
                    }
                ]
            if node_names and rng.random() < 0.05:
                status["nominatedNodeName"] = rng.choice([*node_names, "gone-node"])
            if rng.random() < 0.03:  # being deleted: not scheduled (skipPodSchedule)
                meta["deletionTimestamp"] = "2022-01-01T00:00:00Z"
        objs.append(
            {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec, "status": status}
        )
    rng.shuffle(objs)  # input order matters (node tree order): exercise it
    return objs
