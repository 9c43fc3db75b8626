"""The embedding API for simulator authors: a cluster whose pending pods are scheduled and
bound step by step, with kube-scheduler v1.23.6's semantics (see ``framework/simulation``).

>>> sim = Simulator(load_cluster(["data/embedded"]), tie_break="go-rand", seed=1)  # doctest: +SKIP
>>> sim.schedule_and_bind("shop/frontend-6pw9pzsgwm-7lrvz")   # the host's name  # doctest: +SKIP
>>> what_if = sim.copy()                 # an independent branch       # doctest: +SKIP
>>> result = sim.run()                   # the other pending pods, in queue order  # doctest: +SKIP

The pods it knows are the cluster's pending pods (by ``namespace/name`` or batch position).
Every call runs compiled code over the plugins' states, which ``bind`` updates in place
(the scheduler cache's ``AssumePod``); ``run`` schedules many pods with no Python between
them. Not built yet: deleting pods, adding or removing nodes, adding pods that were not
pending in the cluster (each raises :class:`~kscore_fast.errors.UnsupportedError`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .errors import InputError, UnsupportedError
from .framework.nodeorder import num_feasible_nodes_to_find
from .framework.result import ScoreResult, ScoresMode
from .framework.simulation import _Sequence, queue_order, random_source
from .model.snapshot import Cluster

PodRef = str | int


class Simulator:
    """Step-by-step scheduling of a cluster's pending pods (see the module docstring).

    ``config``/``plugins``/``percentage_of_nodes_to_score`` as :func:`kscore_fast.score`;
    ``tie_break``: ``"uniform"`` (seeded, per pod position) or ``"go-rand"`` (Go's
    ``selectHost`` on Go's ``math/rand`` after ``rand.Seed(seed)``, with scheduleOne's
    per-cycle draw: the draws follow the calls in order, as they would in kube-scheduler).
    """

    def __init__(self, cluster: Cluster, *, config: Any = None, plugins: Any = None,
                 seed: int = 0, tie_break: str = "uniform",
                 percentage_of_nodes_to_score: int | None = None,
                 notice: Callable[[str], None] | None = None) -> None:  # fmt: skip
        from .api import _framework

        tie, rng = random_source(tie_break, seed)
        framework, refused = _framework(cluster, plugins, config, percentage_of_nodes_to_score,
                                        notice)  # fmt: skip
        snap, batch = cluster.snapshot, cluster.batch
        if snap.n_nodes == 0:
            raise UnsupportedError("a simulator needs at least one node")
        self.cluster, self.framework = cluster, framework
        self._refused = dict(refused)
        num = num_feasible_nodes_to_find(snap.n_nodes, framework.percentage_of_nodes_to_score)
        self._seq = _Sequence(framework, snap, batch, num, explain=False)
        self._tie, self._seed, self._rng = tie, seed, rng
        self._index = {name: i for i, name in enumerate(batch.names)}
        #: int32[B]: the node each pending pod is bound to (-1: not bound)
        self._host = np.full(len(batch), -1, dtype=np.int32)

    # -- lookups -------------------------------------------------------------------------

    @property
    def pods(self) -> list[str]:
        """The pending pods (``namespace/name``), bound or not."""
        return list(self.cluster.batch.names)

    def host_of(self, pod: PodRef) -> str | None:
        """The node ``pod`` is bound to, or None."""
        h = int(self._host[self._pod(pod)])
        return None if h < 0 else self.cluster.snapshot.node_names[h]

    def _pod(self, pod: PodRef) -> int:
        i = self._index.get(pod) if isinstance(pod, str) else pod
        if not isinstance(i, int | np.integer) or not 0 <= i < len(self._host):
            raise InputError(f"unknown pending pod {pod!r}")
        if int(i) in self._refused:
            raise InputError(f"pod {pod!r}: {self._refused[int(i)]}")
        return int(i)

    def _node(self, node: str | int) -> int:
        names = self.cluster.snapshot.node_names
        n = self.cluster.snapshot.node_index.get(node) if isinstance(node, str) else node
        if not isinstance(n, int | np.integer) or not 0 <= n < len(names):
            raise InputError(f"unknown node {node!r}")
        return int(n)

    def _unbound(self, i: int) -> None:
        if self._host[i] >= 0:
            raise InputError(f"pod {self.cluster.batch.names[i]} is already bound to "
                             f"{self.cluster.snapshot.node_names[self._host[i]]}")  # fmt: skip

    # -- scheduling ----------------------------------------------------------------------

    def _cycles(self, rows: list[int], commit: bool, scores: ScoresMode,
                progress: Callable[[int], None] | None = None) -> ScoreResult:  # fmt: skip
        """Scheduling cycles of pods ``rows`` (batch positions) in order; assumed on their
        hosts if ``commit``."""
        fw, snap, names = self.framework, self.cluster.snapshot, self.cluster.batch.names
        result = ScoreResult.empty(
            pod_names=[names[i] for i in rows], node_names=snap.node_names,
            plugin_names=fw.plugin_names, weights=[wp.weight for wp in fw.score_plugins],
            scores=scores, filter_names=fw.filter_names, explained=False,
        )  # fmt: skip
        num = self._seq.num_to_find
        result.reserve(len(rows) * (num if result.keep is None else min(result.keep, num)))
        pods = np.asarray(rows, dtype=np.int64)
        self._seq.many(pods, np.arange(len(pods)), self._tie, self._seed, self._rng, result,
                       commit, progress)  # fmt: skip
        if commit:
            self._host[pods] = result.hosts
        result.finish()
        return result

    def schedule(self, pod: PodRef, *, scores: ScoresMode = "all") -> dict[str, Any]:
        """One scheduling cycle of ``pod`` against the current state, nothing bound: its
        JSON object (host, counts, error, scores). Like kube-scheduler's ``Schedule``, the
        cycle moves ``nextStartNodeIndex`` and (go-rand) draws from the random source."""
        i = self._pod(pod)
        self._unbound(i)
        return self._cycles([i], False, scores).to_dict()["results"][0]

    def bind(self, pod: PodRef, node: str | int) -> None:
        """Bind ``pod`` to ``node``: every later cycle sees it there (requested
        resources, host ports, spread and affinity counts). Not checked against the
        filters, as a binding made by someone else is not."""
        i, n = self._pod(pod), self._node(node)
        self._unbound(i)
        self._seq.kernels.assume_pod(self._seq.aids, self._seq.states, i, n)
        self._host[i] = n

    def schedule_and_bind(self, pod: PodRef) -> str | None:
        """Schedule ``pod`` and bind it to its host: the host's name, or None (the pod
        fits nowhere; nothing changes)."""
        i = self._pod(pod)
        self._unbound(i)
        result = self._cycles([i], True, "none")
        return result.host_names[0]

    def run(self, pods: Sequence[PodRef] | None = None, *, scores: ScoresMode = "none",
            progress: Callable[[int], None] | None = None) -> ScoreResult:  # fmt: skip
        """Schedule and bind ``pods`` in the order given (default: every pending pod not
        bound yet, in kube-scheduler's queue order), one compiled loop for all of them;
        their results in that order."""
        if pods is None:
            batch = self.cluster.batch
            rows = [i for i in queue_order(batch.pods)
                    if self._host[i] < 0 and i not in self._refused]  # fmt: skip
        else:
            rows = [self._pod(p) for p in pods]
            if len(set(rows)) != len(rows):
                raise InputError("run: a pod is listed twice")
            for i in rows:
                self._unbound(i)
        return self._cycles(rows, True, scores, progress)

    def copy(self) -> Simulator:
        """An independent branch: same cluster, own copies of every state the calls change
        (plugin aggregates, bindings, the node rotation, the random source)."""
        other = Simulator.__new__(Simulator)
        other.__dict__.update(self.__dict__)
        seq = _Sequence.__new__(_Sequence)
        seq.__dict__.update(self._seq.__dict__)
        seq.states = _copy_state(self._seq.states)
        other._seq = seq
        other._rng = self._rng.copy()
        other._host = self._host.copy()
        return other

    # -- not built yet -------------------------------------------------------------------

    def delete(self, pod: PodRef) -> None:
        """Not built yet: the plugins have no RemovePod kernels."""
        raise UnsupportedError("Simulator.delete is not built yet (the plugins' states have no "
                               "RemovePod update)")  # fmt: skip

    def add_pod(self, pod: Any) -> None:
        """Not built yet: the pods are the cluster's pending pods."""
        raise UnsupportedError("Simulator.add_pod is not built yet: build the cluster with "
                               "every pod you will schedule as a pending pod")  # fmt: skip

    def add_node(self, node: Any) -> None:
        """Not built yet."""
        raise UnsupportedError("Simulator.add_node is not built yet")

    def remove_node(self, node: str | int) -> None:
        """Not built yet."""
        raise UnsupportedError("Simulator.remove_node is not built yet")


def _copy_state(x: Any) -> Any:
    """A deep copy of a plugin state (nested tuples of arrays and scalars)."""
    if isinstance(x, tuple):
        return tuple(_copy_state(v) for v in x)
    return x.copy() if isinstance(x, np.ndarray) else x
