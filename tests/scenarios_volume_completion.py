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
        csi = csi_nodes.get(name)
        if csi is None:
            csi = {"apiVersion": "storage.k8s.io/v1", "kind": "CSINode",
                   "metadata": {"name": name}, "spec": {"drivers": []}}  # fmt: skip
            csi_nodes[name] = csi
            objs.append(csi)
        entry: dict[str, Any] = {"name": DRIVER, "nodeID": name}
        if keys:
            entry["topologyKeys"] = keys
        csi["spec"]["drivers"].append(entry)
    return objs
