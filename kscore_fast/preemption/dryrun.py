"""Preemption's dry runs on the plugins' compiled state: the reference port's
:class:`~.reference.Cluster` view over a sequential run whose batch holds every bound pod
of the snapshot (bound again with the plugins' ``assume`` kernels) and every pending pod.
A check removes the victims from their node with the plugins' ``remove`` kernels, runs the
profile's filter entry points for the preemptor on that node, and the pods go back with
``assume``: what Go's ``SelectVictimsOnNode`` does to its copies of the node and of the
cycle state (``RemovePod``/``AddPod`` of the PreFilter extensions), at a few microseconds
a check. The view's own states change only while a node's dry run lasts: between dry
runs every pod is bound as the snapshot has it.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec
import numpy as np

from ..framework.runtime import Framework
from ..framework.search import fill_nodes, unpack
from ..framework.simulation import _Sequence
from ..model.objects import NamespaceRecord, PodRecord
from ..model.snapshot import Cluster, build_cluster
from .reference import SUCCESS, UNSCHEDULABLE, UNSCHEDULABLE_AND_UNRESOLVABLE, Status


class DryRuns:
    """One sequential state for the preemption dry runs of a cluster's pending pods."""

    def __init__(self, fw: Framework, cluster: Cluster) -> None:
        snap = cluster.snapshot
        order = np.argsort(snap.node_input_order, kind="stable").tolist()
        nodes = [snap.nodes[i] for i in order]
        #: the snapshot's bound pods, in input order (``NodeInfo.Pods`` order), then the
        #: pending ones: the batch of the run, positions in it by record identity
        self.bound = list(snap.pods)
        unbound = [msgspec.structs.replace(p, node_name="", deleting=False) for p in self.bound]
        pending = list(cluster.batch.pods)
        controllers = [c for kind in snap.controllers.values() for c in kind]
        namespaces = [NamespaceRecord(n, labels) for n, labels in snap.namespace_labels.items()]
        built = build_cluster(nodes, [*unbound, *pending], snap.services, controllers,
                              namespaces, storage=snap.storage)  # fmt: skip
        assert len(built.batch) == len(unbound) + len(pending)
        self.names = list(snap.node_names)
        n = max(len(self.names), 1)
        self.seq = _Sequence(fw, built.snapshot, built.batch, n, False)
        self.fw = fw
        self._position = {id(p): i for i, p in enumerate(self.bound)}
        self._node_of = np.array([snap.node_index[p.node_name] for p in self.bound], np.int64)
        self._on_node: dict[int, list[PodRecord]] = {}
        for p, node in zip(self.bound, self._node_of.tolist(), strict=True):
            self._on_node.setdefault(node, []).append(p)
        if self.bound:
            self.seq.kernels.assume_pods(self.seq.aids, self.seq.table, self.seq.cache,
                                         np.arange(len(self.bound), dtype=np.int64),
                                         self._node_of)  # fmt: skip
        self._memo = np.zeros((1, n), dtype=np.int64)
        self._reps = np.zeros(1, dtype=np.int64)
        self._all = np.arange(len(self.names), dtype=np.int64)
        #: the pods removed for the node whose dry run is under way, and that node
        self._out: set[int] = set()
        self._node = -1
        self.pod = -1

    def view(self, pod: int) -> DryRuns:
        """The view for pending pod ``pod`` (its batch position in ``cluster``), every pod
        bound again."""
        self.restore()
        self.pod = len(self.bound) + pod
        return self

    # -- the reference's Cluster ----------------------------------------------------------

    def node_names(self) -> Sequence[str]:
        return self.names

    def node_pods(self, node: int) -> Sequence[PodRecord]:
        return self._on_node.get(node, [])

    def filter(self, node: int, removed: Sequence[PodRecord]) -> Status:
        if node != self._node:
            self.restore()
            self._node = node
        want = {self._position[id(p)] for p in removed}
        for i in sorted(self._out - want):  # back on the node (AddPod)
            self._assume(i)
        for i in sorted(want - self._out):  # off the node (RemovePod)
            self.seq.remove(i, node)
        self._out = want
        return self.statuses(np.array([node], dtype=np.int64)).get(node, Status(SUCCESS))

    def restore(self) -> None:
        """Every pod removed for a dry run bound again."""
        for i in sorted(self._out):
            self._assume(i)
        self._out, self._node = set(), -1

    def statuses(self, nodes: np.ndarray | None = None) -> dict[int, Status]:
        """``RunFilterPlugins`` of the pod on ``nodes`` (default: every node) in the state
        as it is: the failing nodes' statuses."""
        nodes = self._all if nodes is None else nodes
        seq, memo = self.seq, self._memo
        self._reps[0] = self.pod
        fill_nodes(seq.fids, seq.table, self._reps, np.int64(0), nodes, memo)
        out = {}
        for node in nodes.tolist():
            v = int(memo[0, node])
            if v:
                out[node] = self._status(v)
        return out

    def _status(self, verdict: int) -> Status:
        slot, code = unpack(verdict)
        plugin = self.fw.filter_plugins[slot]
        state = self.seq.states[int(self.seq.fids[slot])]
        unresolvable = plugin.unresolvable(state, code)
        return Status(UNSCHEDULABLE_AND_UNRESOLVABLE if unresolvable else UNSCHEDULABLE,
                      tuple(plugin.reasons(state, code)))  # fmt: skip

    def _assume(self, i: int) -> None:
        seq = self.seq
        seq.kernels.assume_pods(seq.aids, seq.table, seq.cache, np.array([i], np.int64),
                                self._node_of[i : i + 1])  # fmt: skip
