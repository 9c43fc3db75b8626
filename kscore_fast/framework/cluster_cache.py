"""The simulator's scheduler cache, kept as records: what kube-scheduler's
pkg/scheduler/internal/cache holds between cycles, from which a :class:`Cluster` is built
again after an event the plugins' incremental kernels do not cover (a node added or
removed, a pod added, an input pod deleted).

* Nodes in ``nodeTree`` order (node_tree.go): zones in the order they were first added, a
  zone dropped with its last node (and appended again if a node of it comes back), the
  nodes of a zone in the order they were added. Feeding :func:`build_cluster` the nodes
  zone after zone gives back exactly that tree, hence ``nodeTree.list()``'s order, which
  the snapshot takes when the set of node names changed since the last cycle
  (``UpdateSnapshot``); else the snapshot keeps the last cycle's order.
* Image states (cache.go ``addNodeImageStates``/``removeNodeImageStates``): a node's
  summaries are taken when it is added and never refreshed, so they depend on the history
  of adds and removes, not on the nodes present; they are kept per node and handed to the
  snapshot (``ClusterSnapshot.image_states``).
* Host ports (``NodeInfo.UsedPorts``): a set per node, so deleting one of two pods that
  use a port frees it; kept per node through binds and deletions (``ports``), handed to
  the snapshot (``ClusterSnapshot.used_ports``).
* Pods: the input's bound pods (and bound pods added later), and the pending pods (the
  input's, then those added), each either waiting or bound by the simulator. A pod bound
  to a node that is absent stays in the cache, as Go keeps it on a NodeInfo without node,
  and counts again if a node of that name is added.
"""

from __future__ import annotations

import numpy as np

from ..model.objects import (
    ControllerRecord,
    NamespaceRecord,
    NodeRecord,
    PodRecord,
    ServiceRecord,
)
from ..model.priority import Admission
from ..model.snapshot import Cluster, build_cluster
from ..model.storage import NO_STORAGE
from ..model.topology import zone_key
from ..plugins.imagelocality.reference import ImageStateCache
from ..plugins.nodeports.reference import HostPortInfo, update_used_ports


class NodeTree:
    """``nodeTree``: zone key → node names, in add order; and the node records."""

    def __init__(self) -> None:
        self.zones: dict[str, list[str]] = {}
        self.records: dict[str, NodeRecord] = {}

    def copy(self) -> NodeTree:
        other = NodeTree()
        other.zones = {z: list(names) for z, names in self.zones.items()}
        other.records = dict(self.records)
        return other

    def add(self, node: NodeRecord) -> None:
        """``nodeTree.addNode`` (a new zone goes last)."""
        self.zones.setdefault(zone_key(node.labels), []).append(node.name)
        self.records[node.name] = node

    def remove(self, name: str) -> NodeRecord:
        """``nodeTree.removeNode`` (``removeZone`` when it was the zone's last node)."""
        node = self.records.pop(name)
        zone = zone_key(node.labels)
        members = self.zones[zone]
        members.remove(name)
        if not members:
            del self.zones[zone]
        return node

    def feed(self) -> list[NodeRecord]:
        """The nodes zone after zone: added in this order, they make this tree."""
        return [self.records[n] for names in self.zones.values() for n in names]


class ClusterCache:
    """The records of a simulated cluster (see the module docstring)."""

    def __init__(self) -> None:
        self.tree = NodeTree()
        self.images = ImageStateCache()
        #: node name → its ``NodeInfo.ImageStates``, taken when it was added
        self.image_states: dict[str, dict] = {}
        #: bound pods that the simulator did not bind (the input's, ``add_pod``'s)
        self.existing: dict[str, PodRecord] = {}
        #: pending pods, waiting or bound by the simulator (key → record without node)
        self.pending: dict[str, PodRecord] = {}
        #: pending pods bound by the simulator: key → node name
        self.bound: dict[str, str] = {}
        #: node name → its ``UsedPorts`` (nodes whose pods use host ports)
        self.ports: dict[str, HostPortInfo] = {}
        #: the node names in the order of the last cycle's snapshot (None: no cycle yet)
        self.listed: list[str] | None = None
        self.services: list[ServiceRecord] = []
        self.controllers: list[ControllerRecord] = []
        self.namespaces: list[NamespaceRecord] = []
        #: the storage objects (unchanged by events: what VolumeBinding's Reserve claims is
        #: kept in its plugin state, as Go keeps it in its assume cache)
        self.storage = NO_STORAGE
        #: the Priority admission plugin over the input's PriorityClasses (add_pod)
        self.admission = Admission()
        #: pending pods that admission refused: key → the API server's message
        self.refused: dict[str, str] = {}
        #: node name → the keys of its pods in ``NodeInfo.Pods`` order (added last,
        #: deleted by the last taking its place), whether the node is present or not
        self.on_node: dict[str, list[str]] = {}
        #: the nodes whose list in :attr:`on_node` is this cache's own (the others' lists
        #: may be shared with copies: copied before a change, :meth:`_keys`)
        self._own: set[str] = set()
        #: the input's PodDisruptionBudgets (their statuses are not recomputed)
        self.budgets: list = []

    @classmethod
    def of(cls, cluster: Cluster) -> ClusterCache:
        """The cache of a loaded cluster: its nodes added in input order."""
        snap = cluster.snapshot
        cache = cls()
        for i in np.argsort(snap.node_input_order, kind="stable").tolist():
            cache.add_node(snap.nodes[i])
        for pod in snap.pods:
            cache.add_existing(pod)
        cache.pending = {p.key: p for p in cluster.batch.pods}
        cache.services = list(snap.services)
        cache.controllers = [c for kind in snap.controllers.values() for c in kind]
        labels = snap.namespace_labels
        cache.namespaces = [NamespaceRecord(name, labels[name]) for name in labels]
        cache.storage = snap.storage
        cache.admission = Admission(cluster.priority_classes)
        cache.refused = {k: m for k, m in cluster.refused_pods.items() if k in cache.pending}
        cache.budgets = cluster.budgets
        return cache

    def copy(self) -> ClusterCache:
        other = ClusterCache()
        other.tree, other.images = self.tree.copy(), self.images.copy()
        other.image_states = dict(self.image_states)
        other.existing, other.pending = dict(self.existing), dict(self.pending)
        other.bound = dict(self.bound)
        other.ports = {name: info.copy() for name, info in self.ports.items()}
        other.listed = self.listed
        other.services, other.controllers = self.services, self.controllers
        other.namespaces, other.storage = self.namespaces, self.storage
        other.admission, other.refused = self.admission, dict(self.refused)
        other.on_node = dict(self.on_node)  # (the lists shared until one side changes one)
        other._own, self._own = set(), set()
        other.budgets = self.budgets
        return other

    def add_node(self, node: NodeRecord) -> None:
        """``cache.AddNode`` of a node the cache does not have."""
        self.tree.add(node)
        self.image_states[node.name] = self.images.add_node(node)

    def remove_node(self, name: str) -> None:
        """``cache.RemoveNode``: its pods stay, bound to a node that is absent."""
        self.images.remove_node(self.tree.remove(name))
        del self.image_states[name]

    def cluster(self) -> Cluster:
        """The cluster these records make: the nodes in the order the next cycle's
        snapshot lists them (see :meth:`node_list`), the bound pods of present nodes,
        every pending pod (bound or not) in the batch, in queue order of arrival."""
        pods = [*self.existing.values(), *self.pending.values()]
        nodes, listed = self.node_list()
        out = build_cluster(nodes, pods, self.services, self.controllers, self.namespaces,
                            listed=listed, storage=self.storage)  # fmt: skip
        out.priority_classes = list(self.admission.classes_given)
        out.refused_pods = dict(self.refused)
        out.budgets = self.budgets
        snap = out.snapshot
        snap.image_states = [self.image_states[name] for name in snap.node_names]
        snap.used_ports = {name: info.triples() for name, info in self.ports.items()}
        return out

    def _ports(self, pod: PodRecord, node: str, add: bool) -> None:
        """``updateUsedPorts`` of ``node`` for ``pod`` (add, or ``RemovePod``'s release)."""
        if any(p.host_port > 0 for c in pod.containers for p in c.ports):
            update_used_ports(self.ports.setdefault(node, HostPortInfo()), pod, add)

    def add_existing(self, pod: PodRecord) -> None:
        """``AddPod`` of a bound pod (its node need not be present)."""
        self.existing[pod.key] = pod
        self._ports(pod, pod.node_name, True)
        self._keys(pod.node_name).append(pod.key)

    def drop_existing(self, key: str) -> None:
        """``RemovePod`` of a bound pod of the input or of ``add_existing``."""
        pod = self.existing.pop(key)
        self._ports(pod, pod.node_name, False)
        self._leave(key, pod.node_name)

    def bind(self, key: str, node: str) -> None:
        """A pending pod assumed on ``node``."""
        self.bound[key] = node
        self._ports(self.pending[key], node, True)
        self._keys(node).append(key)

    def drop_pending(self, key: str) -> str | None:
        """A pending pod deleted: the node it was bound to, if any (released there)."""
        node = self.bound.pop(key, None)
        pod = self.pending.pop(key)
        self.refused.pop(key, None)
        if node is not None:
            self._ports(pod, node, False)
            self._leave(key, node)
        return node

    def _leave(self, key: str, node: str) -> None:
        """``NodeInfo.RemovePod``: the node's last pod takes the place of ``key``."""
        keys = self._keys(node)
        keys[keys.index(key)] = keys[-1]
        keys.pop()

    def _keys(self, node: str) -> list[str]:
        """``node``'s list of :attr:`on_node`, this cache's own, to change."""
        keys = self.on_node.get(node)
        if keys is None or node not in self._own:
            keys = self.on_node[node] = [] if keys is None else list(keys)
            self._own.add(node)
        return keys

    def node_list(self) -> tuple[list[NodeRecord], bool]:
        """The nodes as ``UpdateSnapshot`` lists them at the next cycle, and whether that
        is the last cycle's order: ``nodeInfoList`` is rebuilt from ``nodeTree.list()``
        only when the set of node names changed since the last snapshot (a node removed
        and added back in between keeps its old place), else (False) the nodes in the
        order that makes the tree."""
        listed, records = self.listed, self.tree.records
        if listed is not None and len(listed) == len(records) and all(n in records for n in listed):
            return [records[name] for name in listed], True
        return self.tree.feed(), False
