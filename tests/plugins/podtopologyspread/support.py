"""Records from the upstream tables (``upstream.json``) and random clusters with topology
spread constraints, for the PodTopologySpread tests."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from kscore_fast.model.objects import (
    RC_KIND,
    RS_KIND,
    SS_KIND,
    ControllerRecord,
    NodeAffinity,
    NodeRecord,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    OwnerReference,
    PodRecord,
    ServiceRecord,
    TopologySpreadConstraint,
)
from kscore_fast.model.selectors import LabelSelector, Selector
from kscore_fast.model.snapshot import Cluster, build_cluster

HERE = Path(__file__).resolve().parent


@cache
def upstream(test: str) -> list[dict[str, Any]]:
    """The cases of one upstream test function (see ``make_upstream.py``)."""
    return json.loads((HERE / "upstream.json").read_text())[test]


def label_selector(obj: dict | None) -> LabelSelector | None:
    if obj is None:
        return None
    exprs = tuple((e["key"], e["operator"], tuple(e.get("values") or ()))
                  for e in obj.get("matchExpressions") or ())  # fmt: skip
    return LabelSelector(tuple(sorted((obj.get("matchLabels") or {}).items())), exprs)


def _node_affinity(obj: dict | None) -> NodeAffinity | None:
    if obj is None:
        return None
    req = obj.get("requiredDuringSchedulingIgnoredDuringExecution")
    if req is None:
        return NodeAffinity()
    terms = tuple(
        NodeSelectorTerm(tuple(NodeSelectorRequirement(e["key"], e["operator"],
                                                       tuple(e.get("values") or ()))
                               for e in t.get("matchExpressions") or ()))
        for t in req.get("nodeSelectorTerms") or ()
    )  # fmt: skip
    return NodeAffinity(required=terms)


def pod_record(p: dict) -> PodRecord:
    tsc = tuple(
        TopologySpreadConstraint(c["maxSkew"], c["topologyKey"], c["whenUnsatisfiable"],
                                 label_selector(c.get("labelSelector")))
        for c in p["tsc"]
    )  # fmt: skip
    return PodRecord(
        namespace=p["namespace"], name=p["name"], labels=dict(p["labels"]), node_name=p["node"],
        deleting=p["deleting"], owner_references=tuple(OwnerReference(*o) for o in p["owner"]),
        topology_spread_constraints=tsc, node_selector=dict(p["nodeSelector"]),
        node_affinity=_node_affinity(p["nodeAffinity"]),
    )  # fmt: skip


def case_cluster(case: dict, nodes: list[dict] | None = None) -> Cluster:
    """The case's nodes (or ``nodes``), existing pods, objects, and its pod as the batch."""
    services, controllers = [], []
    for o in case.get("objs") or ():
        if o["kind"] == "Service":
            services.append(ServiceRecord(o["namespace"], o["name"], o["selector"]))
        elif o["kind"] == RC_KIND:
            controllers.append(ControllerRecord(RC_KIND, o["namespace"], o["name"], o["selector"]))
        else:
            assert o["kind"] in (RS_KIND, SS_KIND)
            controllers.append(ControllerRecord(o["kind"], o["namespace"], o["name"],
                                                label_selector(o["selector"])))  # fmt: skip
    node_records = [NodeRecord(n["name"], dict(n["labels"])) for n in nodes or case["nodes"]]
    pods = [pod_record(p) for p in case.get("existingPods") or ()]
    return build_cluster(node_records, [*pods, pod_record(case["pod"])], services, controllers)


def selector_string(sel: Selector) -> str:
    """``labels.Selector.String()`` (requirements sorted by key, values sorted)."""
    parts = []
    for r in sel.requirements:
        vals = ",".join(sorted(r.values))
        parts.append({"exists": r.key, "!": f"!{r.key}", "=": f"{r.key}={vals}",
                      "in": f"{r.key} in ({vals})",
                      "notin": f"{r.key} notin ({vals})"}[r.op])  # fmt: skip
    return ",".join(parts)


# -- random clusters ------------------------------------------------------------------------

ZONE, RACK, HOST = "topology.kubernetes.io/zone", "rack", "kubernetes.io/hostname"
TOPOLOGY_KEYS = (ZONE, RACK, HOST, "absent-key")
POD_KEYS = {"app": ("a", "b", "c"), "tier": ("x", "y"), "env": ("prod", "")}
NAMESPACES = ("default", "ns1")


def _labels(rng) -> dict[str, str]:
    return {k: str(rng.choice(vs)) for k, vs in POD_KEYS.items() if rng.random() < 0.6}


def random_label_selector(rng) -> LabelSelector | None:
    """None (nil: matches nothing), empty (everything) or requirements of every operator."""
    if rng.random() < 0.1:
        return None
    match = tuple(sorted({k: str(rng.choice(vs)) for k, vs in POD_KEYS.items()
                          if rng.random() < 0.3}.items()))  # fmt: skip
    exprs = []
    for k, vs in POD_KEYS.items():
        if rng.random() < 0.3:
            op = str(rng.choice(["In", "NotIn", "Exists", "DoesNotExist"]))
            vals = tuple(sorted(set(rng.choice(vs, size=rng.integers(1, 3)).tolist())))
            exprs.append((k, op, vals if op in ("In", "NotIn") else ()))
    return LabelSelector(match, tuple(exprs))


def _constraints(rng) -> tuple[TopologySpreadConstraint, ...]:
    n = int(rng.choice([0, 0, 1, 1, 2, 3]))
    return tuple(
        TopologySpreadConstraint(int(rng.integers(1, 4)),
                                 str(rng.choice(TOPOLOGY_KEYS, p=[0.35, 0.25, 0.35, 0.05])),
                                 str(rng.choice(["DoNotSchedule", "ScheduleAnyway"])),
                                 random_label_selector(rng))
        for _ in range(n)
    )  # fmt: skip


def _owner(rng) -> tuple[OwnerReference, ...]:
    if rng.random() < 0.5:
        return ()
    kind = str(rng.choice([RS_KIND, SS_KIND, RC_KIND]))
    api = "v1" if kind == RC_KIND else "apps/v1"
    return (OwnerReference(api, kind, f"c{rng.integers(0, 3)}", controller=True),)


def random_pod(rng, name: str, node: str = "", pending: bool = False) -> PodRecord:
    affinity = selector = None
    if pending and rng.random() < 0.2:
        selector = {ZONE: f"z{rng.integers(0, 3)}"}
    if pending and rng.random() < 0.2:
        op = str(rng.choice(["In", "NotIn", "Exists"]))
        vals = (f"r{rng.integers(0, 3)}",) if op != "Exists" else ()
        affinity = NodeAffinity(
            required=(NodeSelectorTerm((NodeSelectorRequirement(RACK, op, vals),)),)
        )
    return PodRecord(
        namespace=str(rng.choice(NAMESPACES)), name=name, labels=_labels(rng), node_name=node,
        deleting=not pending and rng.random() < 0.1, owner_references=_owner(rng),
        topology_spread_constraints=_constraints(rng) if pending else (),
        node_selector=selector or {}, node_affinity=affinity,
    )  # fmt: skip


def _node(rng, i: int) -> NodeRecord:
    labels = {}
    if rng.random() < 0.85:
        labels[ZONE] = f"z{rng.integers(0, 3)}" if rng.random() < 0.95 else ""
    if rng.random() < 0.7:
        labels[RACK] = f"r{rng.integers(0, 3)}"
    if rng.random() < 0.9:
        labels[HOST] = f"n{i}" if rng.random() < 0.9 else "shared"
    return NodeRecord(f"n{i}", labels)


def random_args(rng) -> dict | None:
    """System defaults (None) or a List of defaults (unique key and action pairs)."""
    if rng.random() < 0.5:
        return None
    pairs = {(str(rng.choice([ZONE, RACK, HOST])), str(rng.choice(["DoNotSchedule",
             "ScheduleAnyway"]))) for _ in range(int(rng.integers(0, 4)))}  # fmt: skip
    return {"defaultingType": "List", "defaultConstraints": [
        {"maxSkew": int(rng.integers(1, 4)), "topologyKey": k, "whenUnsatisfiable": w}
        for k, w in sorted(pairs)]}  # fmt: skip


def random_objects(rng) -> tuple[list[ServiceRecord], list[ControllerRecord]]:
    services = [ServiceRecord(str(rng.choice(NAMESPACES)), f"s{i}",
                              None if rng.random() < 0.1 else dict(_labels(rng)))
                for i in range(int(rng.integers(0, 4)))]  # fmt: skip
    controllers = []
    for i in range(3):
        for kind in (RS_KIND, SS_KIND, RC_KIND):
            if rng.random() < 0.5:
                ns = str(rng.choice(NAMESPACES))
                sel = _labels(rng) if kind == RC_KIND else random_label_selector(rng)
                controllers.append(ControllerRecord(kind, ns, f"c{i}", sel))
    return services, controllers


def random_cluster(seed: int, scale: int = 1) -> tuple[list, list, list, list]:
    """(nodes, existing pods, pending pods, [services, controllers, args]) of a seeded
    cluster (``scale`` multiplies the numbers of nodes and pods)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    nodes = [_node(rng, i) for i in range(int(rng.integers(1, 12 * scale)))]
    existing = [random_pod(rng, f"e{i}", nodes[int(rng.integers(0, len(nodes)))].name)
                for i in range(int(rng.integers(0, 30 * scale * scale)))]  # fmt: skip
    n_pending = int(rng.integers(1, 7 * scale))
    pending = [random_pod(rng, f"p{i}", pending=True) for i in range(n_pending)]
    return nodes, existing, pending, [*random_objects(rng), random_args(rng)]


# -- the same clusters as Kubernetes objects (for the real plugin: test_go.py) --------------


def _selector_json(sel: LabelSelector | None) -> dict | None:
    if sel is None:
        return None
    out: dict[str, Any] = {}
    if sel.match_labels:
        out["matchLabels"] = dict(sel.match_labels)
    if sel.match_expressions:
        out["matchExpressions"] = [{"key": k, "operator": op, **({"values": list(v)} if v else {})}
                                   for k, op, v in sel.match_expressions]  # fmt: skip
    return out


def _omit_none(key: str, value: Any) -> dict:
    return {} if value is None else {key: value}


def pod_json(p: PodRecord) -> dict:
    """A v1.Pod with the fields PodTopologySpread reads."""
    meta = {"name": p.name, "namespace": p.namespace, "labels": p.labels,
            "ownerReferences": [{"apiVersion": o.api_version, "kind": o.kind, "name": o.name,
                                 "uid": "", "controller": o.controller}
                                for o in p.owner_references]}  # fmt: skip
    if p.deleting:
        meta["deletionTimestamp"] = "2020-01-01T00:00:00Z"
    tsc = [{"maxSkew": c.max_skew, "topologyKey": c.topology_key,
            "whenUnsatisfiable": c.when_unsatisfiable,
            **_omit_none("labelSelector", _selector_json(c.label_selector))}
           for c in p.topology_spread_constraints]  # fmt: skip
    spec: dict[str, Any] = {"nodeName": p.node_name, "containers": []}
    spec.update(nodeSelector=p.node_selector, topologySpreadConstraints=tsc)
    if p.node_affinity is not None and p.node_affinity.required is not None:
        terms = [{"matchExpressions": [{"key": r.key, "operator": r.operator,
                                        **({"values": list(r.values)} if r.values else {})}
                                       for r in t.match_expressions]}
                 for t in p.node_affinity.required]  # fmt: skip
        spec["affinity"] = {
            "nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": terms}
            }
        }
    return {"metadata": meta, "spec": spec}


def go_scenario(c: Cluster, services: list, controllers: list, args: dict | None,
                lists: list[list[int]]) -> dict:  # fmt: skip
    """The input of check_test.go's ``scenario`` (nodes in the snapshot's order)."""
    out: dict[str, Any] = {
        "Nodes": [{"metadata": {"name": n.name, "labels": n.labels}} for n in c.snapshot.nodes],
        "Existing": [pod_json(p) for p in c.snapshot.pods],
        "Pending": [pod_json(p) for p in c.batch.pods],
        "Services": [{"metadata": {"name": s.name, "namespace": s.namespace},
                      "spec": _omit_none("selector", s.selector)} for s in services],
        "RSs": [], "SSs": [], "RCs": [], "Lists": lists,
        "Type": "System" if args is None else "List",
        "Defaults": [] if args is None else args["defaultConstraints"],
    }  # fmt: skip
    for ctl in controllers:
        sel = ctl.selector if ctl.kind == RC_KIND else _selector_json(ctl.selector)
        out[{RS_KIND: "RSs", SS_KIND: "SSs", RC_KIND: "RCs"}[ctl.kind]].append(
            {"metadata": {"name": ctl.name, "namespace": ctl.namespace},
             "spec": _omit_none("selector", sel)})  # fmt: skip
    return out
