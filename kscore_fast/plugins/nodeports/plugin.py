"""NodePorts: a pod's host ports must be free on the node
(pkg/scheduler/framework/plugins/nodeports/node_ports.go). State layout: see ``kernels``.

``prepare`` caches the interned ports and the bound pods' tables on the batch, and returns
fresh copies of the tables each time: ``assume`` writes into them (the simulator), never
into the cached ones.
"""

from __future__ import annotations

import numpy as np

from ...errors import ConfigError
from ...framework.cluster_events import ADD, DELETE, NODE, POD, events
from ...model.objects import PodRecord
from ...model.snapshot import ClusterSnapshot, PodBatch, spec_representatives
from ..helper.base import NoArgs
from ..helper.pod_fields import CONTAINERS
from ..helper.twins import expand_rows
from . import kernels
from .kernels import CONFLICT, EMPTY, build_tables
from .reference import DEFAULT_BIND_ALL_HOST_IP, ERR_REASON, sanitize

NAME = "NodePorts"
_BOUND = "NodePorts.bound"
_INT64_MAX = 2**63 - 1


class _Vocabulary:
    """Ids of (protocol, port) pairs and (ip, protocol, port) triples, sanitized as
    ``HostPortInfo`` does; ports ``<= 0`` are left out (``Add`` and ``CheckConflict``
    ignore them)."""

    def __init__(self) -> None:
        self.pairs: dict[tuple[str, int], int] = {}
        self.triples: dict[tuple[str, str, int], int] = {}
        self._seen: dict[tuple[str, str, int], tuple[int, int, int]] = {}

    def copy(self) -> _Vocabulary:
        other = _Vocabulary()
        other.pairs, other.triples = dict(self.pairs), dict(self.triples)
        other._seen = dict(self._seen)
        return other

    def triple_ids(self, ip: str, protocol: str, port: int) -> tuple[int, int, int]:
        """(triple, triple of the pair on 0.0.0.0, pair)."""
        ip, protocol = sanitize(ip, protocol)
        pair = _intern(self.pairs, (protocol, port))
        wild = _intern(self.triples, (DEFAULT_BIND_ALL_HOST_IP, protocol, port))
        return _intern(self.triples, (ip, protocol, port)), wild, pair

    def pod_ids(self, pod: PodRecord) -> list[tuple[int, int, int]]:
        """The ids of every host port of the pod's containers, in order."""
        out = []
        for c in pod.containers:
            for p in c.ports:
                if p.host_port > 0:
                    raw = (p.host_ip, p.protocol, p.host_port)
                    ids = self._seen.get(raw)
                    if ids is None:
                        ids = self._seen[raw] = self.triple_ids(*raw)
                    out.append(ids)
        return out


def _intern(table: dict, key: object) -> int:
    return table.setdefault(key, len(table))


def _pending(batch: PodBatch, vocab: _Vocabulary) -> list[np.ndarray]:
    """pod_ptr, pod_trip, pod_wtrip, pod_pp, pod_group (built for one pod of each group of
    twins)."""
    reps, twins = spec_representatives(batch)
    ptr = np.zeros(len(reps) + 1, dtype=np.int64)
    entries: list[tuple[int, int, int]] = []
    groups: dict[tuple[int, ...], int] = {}
    group = np.empty(len(reps), dtype=np.int64)
    for i, pod in enumerate(reps):
        ids = vocab.pod_ids(pod)
        entries += ids
        ptr[i + 1] = len(entries)
        group[i] = groups.setdefault(tuple(sorted({t for t, _, _ in ids})), len(groups))
    flat = np.array(entries, dtype=np.int64).reshape(-1, 3)
    pod_ptr, take = expand_rows(ptr, twins)
    return [pod_ptr, *(np.ascontiguousarray(flat[take, j]) for j in range(3)), group[twins]]


def _bound_ports(snapshot: ClusterSnapshot) -> tuple[_Vocabulary, np.ndarray]:
    """A vocabulary holding the bound pods' ports (a copy, for the batch to add to) and
    their rows (see :func:`_bound`), built once per snapshot."""
    cached = snapshot.cache.get(_BOUND)
    if cached is None:
        vocab = _Vocabulary()
        cached = snapshot.cache[_BOUND] = (vocab, _bound(snapshot, vocab))
    return cached[0].copy(), cached[1]


def _bound(snapshot: ClusterSnapshot, vocab: _Vocabulary) -> np.ndarray:
    """int64[E, 3]: (node, triple, pair) of every bound pod's host port, or of every port
    ``snapshot.used_ports`` says a node uses."""
    rows = []
    if snapshot.used_ports is not None:
        for node, name in enumerate(snapshot.node_names):
            for ip, protocol, port in snapshot.used_ports.get(name, ()):
                t, _, pp = vocab.triple_ids(ip, protocol, port)
                rows.append((node, t, pp))
    else:
        for pod, node in zip(snapshot.pods, snapshot.pod_node.tolist(), strict=True):
            rows += [(node, t, pp) for t, _, pp in vocab.pod_ids(pod)]
    return np.array(rows, dtype=np.int64).reshape(-1, 3)


def _capacity(entries: int) -> int:
    cap = 4
    while cap < 2 * (entries + 1):
        cap <<= 1
    return cap


def used_port_count(state: tuple, node: int) -> int:
    """``NodeInfo.UsedPorts.Len()`` of ``node`` (tests, debugging)."""
    a_keys, meta = state[5], state[8]
    used = a_keys[a_keys != EMPTY]
    return int(np.count_nonzero(used // max(int(meta[0]), 1) == node))


class NodePorts(NoArgs):
    """The NodePorts filter plugin (PreFilter, Filter)."""

    name = NAME
    #: what ``prepare`` reads of a pod (a lone pod's state is kept by them)
    lone_fields = CONTAINERS
    events_to_register = events((POD, DELETE), (NODE, ADD))
    filters = True
    scores = False
    normalizes = False
    #: its interfaces in v1.23.6 (pkg/scheduler/framework/plugins/nodeports)
    extension_points = frozenset({"preFilter", "filter"})
    kernels = kernels

    def _pristine(self, snapshot: ClusterSnapshot, batch: PodBatch) -> tuple:
        return batch.prepared(NAME, snapshot, lambda: _pristine_state(snapshot, batch))

    def prepare(self, snapshot: ClusterSnapshot, batch: PodBatch) -> tuple:
        return self._pristine(snapshot, batch)

    def own_state(self, state: tuple) -> tuple:
        """Copies of the used-port tables ``assume`` adds to."""
        return (*state[:5], *(a.copy() for a in state[5:]))

    def empty_state(self) -> tuple:
        z = np.zeros(0, dtype=np.int64)
        return (np.zeros(1, dtype=np.int64), z, z, z, z, np.full(4, EMPTY, dtype=np.int64),
                np.full(4, EMPTY, dtype=np.int64), np.zeros(4, dtype=np.int64),
                np.array([1, 1, 0, 0], dtype=np.int64))  # fmt: skip

    def counts_bound_pending(self, snapshot: ClusterSnapshot) -> bool:
        """The used host ports of a snapshot built by the simulator's cache hold every
        bound pod's (``used_ports``, kept in binding order: host ports are
        order-sensitive)."""
        return snapshot.used_ports is not None

    def filter_ignores_pods(self, state: tuple) -> np.ndarray:
        """The pods without host ports (``filter_node`` checks none)."""
        return np.diff(state[0]) == 0

    def passes_all(self, state: tuple) -> bool:
        """No pod of the batch wants a host port."""
        return int(state[0][-1]) == 0

    def filter_key(self, state: tuple) -> np.ndarray:
        """The pod's set of host ports."""
        return state[4].copy()

    def reasons(self, state: tuple, code: int) -> list[str]:
        assert code == CONFLICT, code
        return [ERR_REASON]


def _pristine_state(snapshot: ClusterSnapshot, batch: PodBatch) -> tuple:
    """The state before any bind: the pending pods' ports and the bound pods' tables."""
    vocab, bound = _bound_ports(snapshot)
    pending = _pending(batch, vocab)
    n_trip, n_pp = max(len(vocab.triples), 1), max(len(vocab.pairs), 1)
    if max(snapshot.n_nodes, 1) > _INT64_MAX // max(n_trip, n_pp):
        raise ConfigError(f"{NAME}: too many distinct host ports for {snapshot.n_nodes} nodes")
    cap = _capacity(len(bound) + len(pending[1]))
    # the bound pods' tables depend on the snapshot and these sizes only: kept on the
    # snapshot (never written: ``own_state`` copies them for ``assume``)
    tables = snapshot.kept((NAME, "tables"), (cap, n_trip, n_pp), lambda: build_tables(
        np.ascontiguousarray(bound[:, 0]), np.ascontiguousarray(bound[:, 1]),
        np.ascontiguousarray(bound[:, 2]), cap, n_trip, n_pp,
    ))  # fmt: skip
    return (*pending, *tables)
