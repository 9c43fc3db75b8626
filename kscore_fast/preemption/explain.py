"""What DefaultPreemption would do for the pods of a batch that fit nowhere (``kscore
score --explain``): the reference port (:mod:`.reference`) on a view of the snapshot in
which each dry-run check builds the cluster again without the pods removed from the node
and runs the profile's filters for the preemptor. Nothing is applied: every pod is
explained against the snapshot as the input gives it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..framework.runtime import Framework, _Run
from ..framework.search import unpack
from ..framework.selection import draw
from ..model.disruption import BudgetRecord
from ..model.objects import NamespaceRecord, PodRecord
from ..model.snapshot import Cluster, build_cluster
from .reference import (
    SUCCESS,
    UNSCHEDULABLE,
    UNSCHEDULABLE_AND_UNRESOLVABLE,
    Preemption,
    Status,
    preempt,
    priority,
)

#: the stream key of the candidates' offset draws (the hosts' draws use the pod's position)
OFFSET_STREAM = 1 << 62


class SnapshotView:
    """:class:`.reference.Cluster` over a loaded cluster, for one pending pod."""

    def __init__(self, fw: Framework, cluster: Cluster, pod: PodRecord) -> None:
        snap = cluster.snapshot
        self.fw, self.pod = fw, pod
        order = np.argsort(snap.node_input_order, kind="stable").tolist()
        self._nodes = [snap.nodes[i] for i in order]
        self._names = list(snap.node_names)
        self._pods = list(snap.pods)  # bound, in input order: NodeInfo.Pods order
        self._on_node: dict[int, list[PodRecord]] = {}
        for p in self._pods:
            self._on_node.setdefault(snap.node_index[p.node_name], []).append(p)
        self._rest = (
            snap.services,
            [c for kind in snap.controllers.values() for c in kind],
            [NamespaceRecord(n, labels) for n, labels in snap.namespace_labels.items()],
            snap.storage,
        )

    def node_names(self) -> Sequence[str]:
        return self._names

    def node_pods(self, node: int) -> Sequence[PodRecord]:
        return self._on_node.get(node, [])

    def filter(self, node: int, removed: Sequence[PodRecord]) -> Status:
        return self.statuses(removed).get(node, Status(SUCCESS))

    def statuses(self, removed: Sequence[PodRecord] = ()) -> dict[int, Status]:
        """``RunFilterPlugins`` of the pod on every node, without ``removed``: the failing
        nodes' statuses."""
        gone = {id(p) for p in removed}
        services, controllers, namespaces, storage = self._rest
        pods = [p for p in self._pods if id(p) not in gone]
        c = build_cluster(self._nodes, [*pods, self.pod], services, controllers, namespaces,
                          storage=storage)  # fmt: skip
        run = _Run(self.fw, c.snapshot, c.batch, max(c.snapshot.n_nodes, 1), True)
        found = run.search(np.zeros(1, dtype=np.int64))
        row = found.memo[found.classes[0]]
        out = {}
        for node in np.flatnonzero(row).tolist():
            slot, code = unpack(int(row[node]))
            plugin = self.fw.filter_plugins[slot]
            state = run.states[int(run.fids[slot])]
            unresolvable = plugin.unresolvable(state, code)
            out[node] = Status(UNSCHEDULABLE_AND_UNRESOLVABLE if unresolvable else UNSCHEDULABLE,
                               tuple(plugin.reasons(state, code)))  # fmt: skip
        return out


def explain_preemption(fw: Framework, cluster: Cluster, pod: int, seed: int,
                       budgets: Sequence[BudgetRecord], percentage: int,
                       absolute: int) -> Preemption:  # fmt: skip
    """DefaultPreemption's PostFilter for batch pod ``pod`` after its FitError, against the
    snapshot (the candidates' offset drawn with ``seed``, per pod)."""
    view = SnapshotView(fw, cluster, cluster.batch.pods[pod])

    def offset(n: int) -> int:
        return draw(seed, OFFSET_STREAM + pod, n)

    return preempt(view.pod, view.statuses(), view, budgets, offset, percentage, absolute)


def preemption_entry(found: Preemption, names: Sequence[str]) -> dict[str, Any]:
    """The JSON object of a pod's preemption (docs/contract.md)."""
    victims = [
        {"namespace": p.namespace, "name": p.name, "priority": priority(p)} for p in found.victims
    ]
    return {
        "nominatedNode": names[found.node] if found.node >= 0 else None,
        "victims": victims,
        "pdbViolations": found.pdb_violations,
        "ties": [names[n] for n in found.ties],
        "candidates": len(found.candidates),
        **({"reason": found.reason} if found.reason else {}),
    }
