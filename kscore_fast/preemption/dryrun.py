"""Preemption on the plugins' compiled state: the reference port's
:class:`~.reference.Cluster` view over a sequential run whose batch holds every bound pod
of the snapshot (bound again with the plugins' ``assume`` kernels) and every pending pod.

A dry-run check removes the victims from their node with the plugins' ``remove`` kernels,
runs the profile's filter entry points for the preemptor on that node, and the pods go
back with ``assume``: what Go's ``SelectVictimsOnNode`` does to its copies of the node and
of the cycle state (``RemovePod``/``AddPod`` of the PreFilter extensions), at a few
microseconds a check. Between dry runs every pod is bound as the run has it.

Nominated pods count as ``RunFilterPluginsWithNominatedPods`` counts them: on a node
where pods of the preemptor's priority or higher are nominated (the preemptor aside), the
filters run first with those pods added (assumed, then removed again) and a failure there
is the node's status; else the verdict without them is.
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
from .reference import SUCCESS, UNSCHEDULABLE, UNSCHEDULABLE_AND_UNRESOLVABLE, Status, priority


class DryRuns:
    """One sequential state of a cluster for preemption: its bound pods and its pending
    pods in one batch (bound pods first, in input order, then the pending ones)."""

    def __init__(self, fw: Framework, cluster: Cluster, num_to_find: int | None = None,
                 explain: bool = False) -> None:  # fmt: skip
        snap = cluster.snapshot
        order = np.argsort(snap.node_input_order, kind="stable").tolist()
        nodes = [snap.nodes[i] for i in order]
        bound = list(snap.pods)
        unbound = [msgspec.structs.replace(p, node_name="", deleting=False) for p in bound]
        pending = list(cluster.batch.pods)
        controllers = [c for kind in snap.controllers.values() for c in kind]
        namespaces = [NamespaceRecord(n, labels) for n, labels in snap.namespace_labels.items()]
        built = build_cluster(nodes, [*unbound, *pending], snap.services, controllers,
                              namespaces, storage=snap.storage)  # fmt: skip
        assert len(built.batch) == len(unbound) + len(pending)
        self.names = list(snap.node_names)
        n = max(len(self.names), 1)
        self.fw = fw
        self.seq = _Sequence(fw, built.snapshot, built.batch, num_to_find or n, explain)
        #: the pods as the input gives them, by batch position of :attr:`seq`; the first
        #: :attr:`offset` are the snapshot's bound pods
        self.records = [*bound, *pending]
        self.offset = len(bound)
        self._position = {id(p): i for i, p in enumerate(self.records)}
        self._priority = np.array([priority(p) for p in self.records], dtype=np.int64)
        #: ``NodeInfo.Pods`` of each node: batch positions, in Go's order
        self._on_node: dict[int, list[int]] = {}
        at = np.array([snap.node_index[p.node_name] for p in bound], dtype=np.int64)
        for i, node in enumerate(at.tolist()):
            self._on_node.setdefault(node, []).append(i)
        if bound:
            self.seq.kernels.assume_pods(self.seq.aids, self.seq.table, self.seq.cache,
                                         np.arange(len(bound), dtype=np.int64), at)  # fmt: skip
            self.seq.bound[: len(bound)] = at
        #: the nominated pods (batch position → node)
        self.nominated: dict[int, int] = {}
        self._memo = np.zeros((1, n), dtype=np.int64)
        self._reps = np.zeros(1, dtype=np.int64)
        self._all = np.arange(len(self.names), dtype=np.int64)
        self._one = np.zeros(1, dtype=np.int64)
        #: verdict → status (reasons read only what a plugin keeps for the whole run)
        self._statuses: dict[int, Status] = {0: Status(SUCCESS)}
        #: the pods removed for the node whose dry run is under way, and that node
        self._out: set[int] = set()
        self._node = -1
        self.pod = -1

    def view(self, pod: int) -> DryRuns:
        """The view for batch position ``pod`` of :attr:`seq`, every pod bound again."""
        self.restore()
        self.pod = pod
        return self

    # -- the run's changes ----------------------------------------------------------------

    def bound_to(self, pod: int, node: int) -> None:
        """``pod`` was bound to ``node`` (``AddPod``: last on the node; it leaves the
        nominator)."""
        self._on_node.setdefault(node, []).append(pod)
        self.nominated.pop(pod, None)

    def evict(self, pod: int) -> None:
        """Delete bound ``pod``: ``RemovePod`` of the plugins and of ``NodeInfo`` (the last
        pod takes its place)."""
        node = int(self.seq.bound[pod])
        self.seq.remove(pod, node)
        self.seq.bound[pod] = -1
        pods = self._on_node[node]
        k = pods.index(pod)
        pods[k] = pods[-1]
        pods.pop()

    def position(self, pod: PodRecord) -> int:
        return self._position[id(pod)]

    # -- the reference's Cluster ----------------------------------------------------------

    def node_names(self) -> Sequence[str]:
        return self.names

    def node_pods(self, node: int) -> Sequence[PodRecord]:
        return [self.records[i] for i in self._on_node.get(node, ())]

    def filter(self, node: int, removed: Sequence[PodRecord]) -> Status:
        if node != self._node:
            self.restore()
            self._node = node
        want = {self._position[id(p)] for p in removed}
        for i in sorted(self._out - want):  # back on the node (AddPod)
            self._assume(i, node)
        for i in sorted(want - self._out):  # off the node (RemovePod)
            self.seq.remove(i, node)
        self._out = want
        one = self._one
        one[0] = node
        v = int(self.nominated_verdicts(one)[node]) if self.nominated else 0
        if v == 0:
            self._fill(one)
            v = int(self._memo[0, node])
        return self._status(v)

    def restore(self) -> None:
        """Every pod removed for a dry run bound again."""
        for i in sorted(self._out):
            self._assume(i, self._node)
        self._out, self._node = set(), -1

    def statuses(self, nodes: np.ndarray | None = None) -> dict[int, Status]:
        """``RunFilterPluginsWithNominatedPods`` of the pod on ``nodes`` (default: every
        node) in the state as it is: the failing nodes' statuses."""
        nodes = self._all if nodes is None else nodes
        verdicts = self.verdicts(nodes)
        return {node: self._status(int(verdicts[node])) for node in nodes.tolist()
                if verdicts[node]}  # fmt: skip

    def verdicts(self, nodes: np.ndarray) -> np.ndarray:
        """int64[N]: the pod's verdict on each of ``nodes`` (0: it passes), nominated pods
        counted (see the module docstring)."""
        with_them = self.nominated_verdicts(nodes)
        self._fill(nodes)
        memo = self._memo[0].copy()
        failed = with_them != 0
        memo[failed] = with_them[failed]
        return memo

    def nominated_verdicts(self, nodes: np.ndarray | None = None) -> np.ndarray:
        """int64[N]: the pod's verdict with the node's nominated pods of its priority or
        higher added, on the nodes of ``nodes`` that have some (0 elsewhere)."""
        out = np.zeros(len(self.names), dtype=np.int64)
        if not self.nominated:
            return out
        wanted = None if nodes is None else set(nodes.tolist())
        by_node: dict[int, list[int]] = {}
        p = self._priority[self.pod]
        for q, node in self.nominated.items():
            if q != self.pod and self._priority[q] >= p and (wanted is None or node in wanted):
                by_node.setdefault(node, []).append(q)
        seq = self.seq
        for node, pods in sorted(by_node.items()):
            at = np.full(len(pods), node, dtype=np.int64)
            added = np.array(pods, dtype=np.int64)
            seq.kernels.assume_pods(seq.aids, seq.table, seq.cache, added, at)
            try:
                self._fill(np.array([node], dtype=np.int64))
            finally:
                for q in pods:
                    seq.remove(q, node)
            out[node] = self._memo[0, node]
        return out

    def _fill(self, nodes: np.ndarray) -> None:
        seq = self.seq
        self._reps[0] = self.pod
        fill_nodes(seq.fids, seq.table, self._reps, np.int64(0), nodes, self._memo)

    def _status(self, verdict: int) -> Status:
        found = self._statuses.get(verdict)
        if found is None:
            found = self._statuses[verdict] = self._new_status(verdict)
        return found

    def _new_status(self, verdict: int) -> Status:
        slot, code = unpack(verdict)
        plugin = self.fw.filter_plugins[slot]
        state = self.seq.states[int(self.seq.fids[slot])]
        unresolvable = plugin.unresolvable(state, code)
        return Status(UNSCHEDULABLE_AND_UNRESOLVABLE if unresolvable else UNSCHEDULABLE,
                      tuple(plugin.reasons(state, code)))  # fmt: skip

    def _assume(self, i: int, node: int) -> None:
        seq = self.seq
        seq.kernels.assume_pods(seq.aids, seq.table, seq.cache, np.array([i], np.int64),
                                np.array([node], np.int64))  # fmt: skip
