"""The embedding API for simulator authors: a cluster whose pods are scheduled, bound and
deleted step by step, and whose nodes come and go, with kube-scheduler v1.23.6's
semantics (see ``framework/simulation``).

>>> sim = Simulator(load_cluster(["data/embedded"]), tie_break="go-rand", seed=1)  # doctest: +SKIP
>>> sim.schedule_and_bind("shop/frontend-6pw9pzsgwm-7lrvz")   # the host's name  # doctest: +SKIP
>>> what_if = sim.copy()                 # an independent branch       # doctest: +SKIP
>>> what_if.delete("shop/frontend-6pw9pzsgwm-7lrvz")                  # doctest: +SKIP
>>> result = sim.run()                   # the other pending pods, in queue order  # doctest: +SKIP

Pods are named ``namespace/name``. Scheduling, binding and deleting a pending pod run
compiled code over the plugins' states, which they update in place (the scheduler
cache's ``AssumePod``/``RemovePod``); ``run`` schedules many pods with no Python between
them. Events the kernels do not update incrementally (a node added or removed, a pod
added, a pod of the input's bound pods deleted) are applied to the cache's records
(``framework/cluster_cache``); the plugins' states are then prepared again from them at
the next scheduling call, which costs what preparing the cluster once costs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .errors import InputError
from .framework import gorand
from .framework.cluster_cache import ClusterCache
from .framework.nodeorder import num_feasible_nodes_to_find
from .framework.result import ScoreResult, ScoresMode
from .framework.runtime import ERR_NO_NODES
from .framework.simulation import _Sequence, queue_order, random_source
from .model.objects import NodeRecord, PodRecord
from .model.snapshot import TERMINATED_PHASES, Cluster

#: ``tie_break`` code of go-rand (``framework.simulation.TIE_BREAKS``)
_GO_RAND = 1


class Simulator:
    """Step-by-step scheduling of a cluster (see the module docstring).

    ``config``/``plugins``/``percentage_of_nodes_to_score`` as :func:`kscore_fast.score`;
    ``tie_break``: ``"uniform"`` (seeded, per pod position) or ``"go-rand"`` (Go's
    ``selectHost`` on Go's ``math/rand`` after ``rand.Seed(seed)``, with scheduleOne's
    per-cycle draw: the draws follow the calls in order, as they would in kube-scheduler).
    """

    def __init__(self, cluster: Cluster, *, config: Any = None, plugins: Any = None,
                 seed: int = 0, tie_break: str = "uniform",
                 percentage_of_nodes_to_score: int | None = None,
                 notice: Callable[[str], None] | None = None) -> None:  # fmt: skip
        self._tie, self._rng = random_source(tie_break, seed)
        self._seed = seed
        self._spec = (plugins, config, percentage_of_nodes_to_score)
        self._cache = ClusterCache.of(cluster)
        self._start = 0  # nextStartNodeIndex
        self._seq: _Sequence | None = None
        self._adopt(cluster, notice)

    # -- the plugins' states -------------------------------------------------------------

    def _adopt(self, cluster: Cluster, notice: Callable[[str], None] | None = None) -> None:
        """Prepare the profile's states for ``cluster`` (the cache's records) and bind in
        them the pending pods the simulator bound to present nodes."""
        from .api import _framework

        plugins, config, pct = self._spec
        framework, refused = _framework(cluster, plugins, config, pct, notice)
        snap, batch = cluster.snapshot, cluster.batch
        self._cluster, self.framework = cluster, framework
        self._refused = {batch.names[i]: error for i, error in refused.items()}
        self._index = {name: i for i, name in enumerate(batch.names)}
        #: int32[B]: the node each pending pod is bound to (-1: not bound, or absent)
        self._host = np.full(len(batch), -1, dtype=np.int32)
        self._stale = False
        if snap.n_nodes == 0:
            self._seq = None
            return
        num = num_feasible_nodes_to_find(snap.n_nodes, framework.percentage_of_nodes_to_score)
        self._seq = _Sequence(framework, snap, batch, num, explain=False)
        self._seq.start = self._start % snap.n_nodes
        where = snap.node_index
        bound = [(self._index[k], where[n]) for k, n in self._cache.bound.items() if n in where]
        if bound:
            pods, nodes = (np.array(col, dtype=np.int64) for col in zip(*bound, strict=True))
            self._seq.kernels.assume_pods(self._seq.aids, self._seq.states, pods, nodes)
            self._host[pods] = nodes

    def _fresh(self) -> _Sequence | None:
        """The run, its states prepared again first if an event made them stale."""
        if self._stale:
            if self._seq is not None:
                self._start = self._seq.start
            self._adopt(self._cache.cluster())
        return self._seq

    # -- lookups -------------------------------------------------------------------------

    @property
    def pods(self) -> list[str]:
        """The pending pods (``namespace/name``), bound by the simulator or not, in the
        order they were queued."""
        return list(self._cache.pending)

    @property
    def nodes(self) -> list[str]:
        """The nodes present, in the node tree's order (``nodeTree.list()``)."""
        return self.cluster.snapshot.node_names

    def host_of(self, pod: str) -> str | None:
        """The node the pending pod ``pod`` is bound to (it may have been removed since),
        or None."""
        self._pending(pod)
        return self._cache.bound.get(pod)

    @property
    def cluster(self) -> Cluster:
        """The cluster as it stands (nodes present, bound pods, pending pods)."""
        self._fresh()
        return self._cluster

    def _pending(self, pod: str) -> PodRecord:
        record = self._cache.pending.get(pod) if isinstance(pod, str) else None
        if record is None:
            raise InputError(f"unknown pending pod {pod!r}")
        return record

    def _waiting(self, pod: str) -> int:
        """The batch position of pending pod ``pod``, which must not be bound."""
        self._pending(pod)
        if pod in self._cache.bound:
            raise InputError(f"pod {pod} is already bound to {self._cache.bound[pod]}")
        self._fresh()
        if pod in self._refused:
            raise InputError(f"pod {pod!r}: {self._refused[pod]}")
        return self._index[pod]

    def _node(self, node: str) -> int:
        n = self.cluster.snapshot.node_index.get(node) if isinstance(node, str) else None
        if n is None:
            raise InputError(f"unknown node {node!r}")
        return n

    # -- scheduling ----------------------------------------------------------------------

    def _cycles(self, rows: list[int], commit: bool, scores: ScoresMode,
                progress: Callable[[int], None] | None = None) -> ScoreResult:  # fmt: skip
        """Scheduling cycles of pods ``rows`` (batch positions) in order; assumed on their
        hosts if ``commit``."""
        fw, snap, names = self.framework, self._cluster.snapshot, self._cluster.batch.names
        result = ScoreResult.empty(
            pod_names=[names[i] for i in rows], node_names=snap.node_names,
            plugin_names=fw.plugin_names, weights=[wp.weight for wp in fw.score_plugins],
            scores=scores, filter_names=fw.filter_names, explained=False,
        )  # fmt: skip
        pods = np.asarray(rows, dtype=np.int64)
        if self._seq is None:  # Schedule: ErrNoNodesAvailable, after scheduleOne's draw
            result.errors[:] = [ERR_NO_NODES] * len(rows)
            result.reserve(0)
            if self._tie == _GO_RAND:
                for _ in rows:
                    gorand.go_intn(self._rng, 100)
        else:
            num = self._seq.num_to_find
            result.reserve(len(rows) * (num if result.keep is None else min(result.keep, num)))
            self._seq.many(pods, np.arange(len(pods)), self._tie, self._seed, self._rng,
                           result, commit, progress)  # fmt: skip
        if commit and self._seq is not None:
            placed = result.hosts >= 0
            self._host[pods[placed]] = result.hosts[placed]
            for i, h in zip(pods[placed].tolist(), result.hosts[placed].tolist(), strict=True):
                self._cache.bound[names[i]] = snap.node_names[h]
        result.finish()
        return result

    def schedule(self, pod: str, *, scores: ScoresMode = "all") -> dict[str, Any]:
        """One scheduling cycle of ``pod`` against the current state, nothing bound: its
        JSON object (host, counts, error, scores). Like kube-scheduler's ``Schedule``, the
        cycle moves ``nextStartNodeIndex`` and (go-rand) draws from the random source."""
        return self._cycles([self._waiting(pod)], False, scores).to_dict()["results"][0]

    def bind(self, pod: str, node: str) -> None:
        """Bind ``pod`` to ``node``: every later cycle sees it there (requested
        resources, host ports, spread and affinity counts). Not checked against the
        filters, as a binding made by someone else is not."""
        i, n = self._waiting(pod), self._node(node)
        seq = self._seq
        assert seq is not None  # a node exists
        one = np.array([i], dtype=np.int64)
        seq.kernels.assume_pods(seq.aids, seq.states, one, np.array([n], dtype=np.int64))
        self._host[i] = n
        self._cache.bound[pod] = node

    def schedule_and_bind(self, pod: str) -> str | None:
        """Schedule ``pod`` and bind it to its host: the host's name, or None (the pod
        fits nowhere; nothing changes)."""
        return self._cycles([self._waiting(pod)], True, "none").host_names[0]

    def run(self, pods: Sequence[str] | None = None, *, scores: ScoresMode = "none",
            progress: Callable[[int], None] | None = None) -> ScoreResult:  # fmt: skip
        """Schedule and bind ``pods`` in the order given (default: every pending pod not
        bound yet, in kube-scheduler's queue order), one compiled loop for all of them;
        their results in that order."""
        if pods is None:
            self._fresh()
            batch, cache = self._cluster.batch, self._cache
            rows = [i for i in queue_order(batch.pods)
                    if batch.names[i] in cache.pending and batch.names[i] not in cache.bound
                    and batch.names[i] not in self._refused]  # fmt: skip
        else:
            if len(set(pods)) != len(pods):
                raise InputError("run: a pod is listed twice")
            rows = [self._waiting(p) for p in pods]
        return self._cycles(rows, True, scores, progress)

    # -- events --------------------------------------------------------------------------

    def delete(self, pod: str) -> None:
        """Delete ``pod`` (``namespace/name``): a pending pod (bound by the simulator: it
        leaves every aggregate, as the cache's ``RemovePod``; waiting: it leaves the
        queue), or a bound pod of the input or of :meth:`add_pod`."""
        cache = self._cache
        if pod in cache.existing:
            del cache.existing[pod]
            self._stale = True
            return
        self._pending(pod)
        node = cache.bound.pop(pod, None)
        del cache.pending[pod]
        if self._stale or node is None:
            return
        i = self._index.pop(pod)
        if self._host[i] >= 0:  # (a pod on a node that is absent counts nowhere)
            seq = self._seq
            assert seq is not None
            seq.kernels.remove_pod(seq.aids, seq.states, i, np.int64(self._host[i]))
            self._host[i] = -1

    def add_pod(self, pod: dict[str, Any] | PodRecord) -> str:
        """Add a Pod (an object as ``json.load`` gives it, or a record): without
        ``spec.nodeName`` a pending pod queued after the others, with it a pod bound there
        (an informer's add; its node need not be present). Its ``namespace/name``."""
        record = pod if isinstance(pod, PodRecord) else _record(pod, "Pod")
        key, cache = record.key, self._cache
        if key in cache.pending or key in cache.existing:
            raise InputError(f"add_pod: pod {key} exists")
        if record.phase in TERMINATED_PHASES:
            raise InputError(f"add_pod: pod {key} is {record.phase}; the scheduler's cache "
                             "holds no terminated pod")  # fmt: skip
        if record.node_name:
            cache.existing[key] = record
        elif record.deleting:
            raise InputError(f"add_pod: pending pod {key} is being deleted "
                             "(metadata.deletionTimestamp); kube-scheduler skips it")  # fmt: skip
        else:
            cache.pending[key] = record
        self._stale = True
        return key

    def add_node(self, node: dict[str, Any] | NodeRecord) -> str:
        """Add a Node (an object as ``json.load`` gives it, or a record), as the cache's
        ``AddNode``: last of its zone in the node tree. Pods bound to a node of that name
        count again. Its name."""
        record = node if isinstance(node, NodeRecord) else _record(node, "Node")
        if record.name in self._cache.tree.records:
            raise InputError(f"add_node: node {record.name} exists")
        self._cache.add_node(record)
        self._stale = True
        return record.name

    def remove_node(self, node: str) -> None:
        """Remove a node, as the cache's ``RemoveNode``: its pods stay bound to it but
        count nowhere while it is absent."""
        if node not in self._cache.tree.records:
            raise InputError(f"unknown node {node!r}")
        self._cache.remove_node(node)
        self._stale = True

    def copy(self) -> Simulator:
        """An independent branch: same cluster, own copies of every state the calls change
        (plugin aggregates, bindings, the records, the node rotation, the random source)."""
        other = Simulator.__new__(Simulator)
        other.__dict__.update(self.__dict__)
        other._cache = self._cache.copy()
        other._index = dict(self._index)
        if self._seq is not None:
            seq = _Sequence.__new__(_Sequence)
            seq.__dict__.update(self._seq.__dict__)
            seq.states = _copy_state(self._seq.states)
            other._seq = seq
        other._rng = self._rng.copy()
        other._host = self._host.copy()
        return other


def _record(obj: dict[str, Any], kind: str) -> Any:
    """The record of one object of ``kind``, validated as input is."""
    from .io.load import read_inputs

    if not isinstance(obj, dict) or obj.get("kind") != kind:
        raise InputError(f"expected a {kind} object (a dict with kind: {kind})")
    objs, _ = read_inputs([], [obj])
    (record,) = objs.nodes if kind == "Node" else objs.pods
    return record


def _copy_state(x: Any) -> Any:
    """A deep copy of a plugin state (nested tuples of arrays and scalars)."""
    if isinstance(x, tuple):
        return tuple(_copy_state(v) for v in x)
    return x.copy() if isinstance(x, np.ndarray) else x
