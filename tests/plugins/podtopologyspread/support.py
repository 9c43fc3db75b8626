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
