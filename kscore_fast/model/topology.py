"""Zones and the scheduler's node order.

``zone_key`` mirrors ``GetZoneKey`` (k8s.io/component-helpers/node/topology/helpers.go);
``node_tree_order`` mirrors the ``nodeTree`` of pkg/scheduler/internal/cache/node_tree.go,
whose ``list()`` is the order in which every scheduling cycle examines nodes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

LABEL_ZONE = "topology.kubernetes.io/zone"
LABEL_REGION = "topology.kubernetes.io/region"
LABEL_ZONE_BETA = "failure-domain.beta.kubernetes.io/zone"
LABEL_REGION_BETA = "failure-domain.beta.kubernetes.io/region"


def zone_key(labels: Mapping[str, str] | None) -> str:
    """``GetZoneKey``: ``region + ":\\x00:" + zone``, or ``""`` without zone and region.

    The deprecated ``failure-domain.beta.kubernetes.io/*`` label wins whenever it is
    present, even with an empty value.
    """
    if labels is None:
        return ""
    zone = labels[LABEL_ZONE_BETA] if LABEL_ZONE_BETA in labels else labels.get(LABEL_ZONE, "")
    if LABEL_REGION_BETA in labels:
        region = labels[LABEL_REGION_BETA]
    else:
        region = labels.get(LABEL_REGION, "")
    if region == "" and zone == "":
        return ""
    return region + ":\x00:" + zone


def node_tree_order(zone_keys: Sequence[str]) -> list[int]:
    """Indices of nodes (given in cache insertion order) in ``nodeTree.list()`` order.

    Nodes are grouped by zone key (``""`` is a zone like any other), zones in order of
    first appearance, nodes inside a zone in insertion order; ``list()`` then takes the
    first node of every zone, the second of every zone that has one, and so on.
    """
    zones: dict[str, list[int]] = {}
    for i, z in enumerate(zone_keys):
        zones.setdefault(z, []).append(i)
    order: list[int] = []
    lists = list(zones.values())
    depth = 0
    while len(order) < len(zone_keys):
        for members in lists:
            if depth < len(members):
                order.append(members[depth])
        depth += 1
    return order
