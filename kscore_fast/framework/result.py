"""The result of scoring a batch: placements, and the per-plugin scores kept.

Scores are kept as a ragged table in batch order: for pod ``i`` the entries
``ptr[i]:ptr[i+1]`` of ``nodes`` (int32), ``raw``/``normalized`` (int64[n_plugins, E])
and ``total`` (int64[E]); ``weighted`` is ``normalized × weight`` and is derived when
converted. ``scores="top:K"`` keeps each pod's K best entries, its host first, then the
others by total descending, ties in score-list order (K is clamped to the pod's node count);
``"none"`` keeps none.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, MutableMapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from ..errors import ConfigError
from . import arrays

if TYPE_CHECKING:  # pyarrow is imported when tables are asked for
    import pyarrow as pa

ScoresMode = Literal["all", "none"] | str

_TOP = re.compile(r"top:([1-9][0-9]*)\Z")


def parse_scores_mode(mode: str, what: str = "scores") -> int | None:
    """``all`` → None (keep all); ``none`` → 0; ``top:K`` → K. ``what``: the parameter as
    errors name it (the command line's ``--scores``)."""
    if mode == "all":
        return None
    if mode == "none":
        return 0
    m = _TOP.match(mode) if isinstance(mode, str) else None
    if m is None:
        shown = repr(mode) if len(repr(mode)) <= 40 else repr(mode)[:37] + "..."
        raise ConfigError(f"{what} must be all, none or top:K with K ≥ 1, got {shown}")
    try:  # any K works (the runtime clamps it to the node count) up to int()'s digit limit
        return int(m.group(1))
    except ValueError:
        raise ConfigError(
            f"{what} top:K: K has {len(m.group(1))} digits, more than can be read; "
            "any K at least the number of nodes keeps every node"
        ) from None


def _read_only(a: np.ndarray) -> np.ndarray:
    a.flags.writeable = False
    return a


#: an empty result's buffers (read-only: shared by every result until replaced)
_NO_PTR = _read_only(np.zeros(1, np.int64))
_NO_NODES = _read_only(np.zeros(0, np.int32))
_NO_RAW = _read_only(np.zeros((0, 0), np.int64))
_NO_NORMALIZED = _read_only(np.zeros((0, 0), np.uint8))


@dataclass(eq=False, repr=False)
class ScoreResult:
    """What ``score`` returns: one placement per pending pod and the scores kept.

    Kept scores: for pod ``i`` the entries ``ptr[i]:ptr[i+1]`` of ``nodes`` (int32 node
    indices), ``raw`` (int64[n_plugins, E]) and ``normalized`` (uint8[n_plugins, E],
    checked to lie in [0, 100]); ``weighted`` and ``total`` are derived.
    """

    pod_names: list[str]
    node_names: list[str]
    plugin_names: list[str]
    weights: list[int]
    #: int32[B]: node index of the chosen host, -1 for none
    hosts: np.ndarray
    feasible: np.ndarray
    evaluated: np.ndarray
    errors: list[str | None]
    keep: int | None = None
    #: ``"score"``: every pod against the same cluster; ``"simulate"``: one after the
    #: other, each bound before the next (the JSON document's ``mode``)
    mode: str = "score"
    #: the profile's filter plugins (``rejected`` names them by position)
    filter_names: list[str] = field(default_factory=list)
    #: rejections were recorded (``explain``): pod → (int32 nodes, filter positions,
    #: reasons) for every examined node a filter rejected, in examination order
    explained: bool = False
    rejected: dict[int, tuple[np.ndarray, list[int], list[str]]] = field(default_factory=dict)
    #: pod → per node of ``rejected``, its failure is ``UnschedulableAndUnresolvable``
    unresolvable: dict[int, np.ndarray] = field(default_factory=dict)
    #: pod → what DefaultPreemption would do for it (``explain``, pods that fit nowhere:
    #: :func:`kscore_fast.preemption.explain.preemption_entry`; a mapping that behaves as
    #: a dict: a preempting run's are made when first read)
    preemptions: MutableMapping[int, dict[str, Any]] = field(default_factory=dict)
    #: pod → what VolumeBinding's Reserve decided for it on its host (simulate, pods with
    #: claims to bind: :func:`volume_binding_entries`)
    volume_bindings: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    ptr: np.ndarray = field(default_factory=lambda: np.zeros(1, np.int64))
    nodes: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int32))
    raw: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), np.int64))
    normalized: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), np.uint8))
    #: int64[B]: entries kept per pod (while filling)
    _lengths: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64), repr=False)
    _pos: int = field(default=0, repr=False)

    @classmethod
    def empty(
        cls,
        *,
        pod_names: list[str],
        node_names: list[str],
        plugin_names: list[str],
        weights: list[int],
        scores: str = "all",
        filter_names: list[str] | None = None,
        explained: bool = False,
    ) -> ScoreResult:
        n = len(pod_names)
        return cls(
            filter_names=list(filter_names or ()),
            explained=explained,
            pod_names=pod_names,
            node_names=node_names,
            plugin_names=plugin_names,
            weights=weights,
            hosts=arrays.full(n, -1, np.int32),
            feasible=np.zeros(n, dtype=np.int64),
            evaluated=np.zeros(n, dtype=np.int64),
            errors=[None] * n,
            keep=parse_scores_mode(scores),
            _lengths=np.zeros(n, dtype=np.int64),
            # (the runtime replaces these: ``reserve``, then ``finish``)
            ptr=_NO_PTR,
            nodes=_NO_NODES,
            raw=_NO_RAW,
            normalized=_NO_NORMALIZED,
        )

    def __len__(self) -> int:
        return len(self.pod_names)

    def __repr__(self) -> str:
        placed = int((self.hosts >= 0).sum())
        scores = {None: "all", 0: "none"}.get(self.keep, f"top:{self.keep}")
        return (f"ScoreResult({len(self)} pods: {placed} placed, {len(self) - placed} not; "
                f"{len(self.node_names)} nodes, {len(self.plugin_names)} score plugins, "
                f"scores={scores})")  # fmt: skip

    # -- filling (runtime) ----------------------------------------------------------------

    def reserve(self, capacity: int) -> None:
        """Allocate room for ``capacity`` kept entries."""
        k = len(self.plugin_names)
        self.nodes = np.empty(capacity, dtype=np.int32)
        self.raw = np.empty((k, capacity), dtype=np.int64)
        self.normalized = np.empty((k, capacity), dtype=np.uint8)

    def add_rejections(
        self, pod: int, nodes: np.ndarray, plugins: list[int], reasons: list[str]
    ) -> None:
        """Record the nodes the filters rejected for ``pod`` (``explain``)."""
        if len(nodes):
            self.rejected[pod] = (np.array(nodes, dtype=np.int32), plugins, reasons)

    def rejected_of(self, pod: int) -> list[dict[str, str]]:
        """``[{"node", "plugin", "reason"}]`` for ``pod`` (empty unless ``explained``)."""
        got = self.rejected.get(pod)
        if got is None:
            return []
        nodes, plugins, reasons = got
        names, filters = self.node_names, self.filter_names
        return [
            {"node": names[n], "plugin": filters[k], "reason": r}
            for n, k, r in zip(nodes.tolist(), plugins, reasons, strict=True)
        ]

    def free_slice(self, n: int) -> slice:
        """The next ``n`` free entries (the runtime writes there, then calls ``commit``)."""
        return slice(self._pos, self._pos + n)

    def room(self, n: int) -> np.ndarray | None:
        """The next ``n`` free entries of ``nodes`` to find node lists in (``keep`` all:
        they are kept where they are found), or None when they may not fit."""
        if self.keep is not None or self._pos + n > self.nodes.shape[0]:
            return None
        return self.nodes[self._pos : self._pos + n]

    def commit(self, pods: np.ndarray, lengths: np.ndarray) -> None:
        """Mark the next ``lengths.sum()`` entries as the scores of ``pods``."""
        self._lengths[pods] = lengths
        self._pos += int(lengths.sum())

    def commit_one(self, pod: int, length: int) -> None:
        """:meth:`commit` of one pod's ``length`` entries."""
        self._lengths[pod] = length
        self._pos += length

    def finish(self) -> None:
        """Fix ``ptr`` and trim the buffers to what was kept (views, no copies)."""
        if len(self._lengths) == 1:  # (a lone pod: no running sums)
            self.ptr = np.array([0, self._pos], dtype=np.int64)
        else:
            self.ptr = arrays.offsets(self._lengths)
        n = self._pos
        self.nodes = self.nodes[:n]
        self.raw = self.raw[:, :n]
        self.normalized = self.normalized[:, :n]

    @property
    def total(self) -> np.ndarray:
        """int64[E]: Σ normalized × weight (1 everywhere without score plugins)."""
        if not self.plugin_names:
            return np.ones(self.nodes.shape[0], dtype=np.int64)
        w = np.asarray(self.weights, dtype=np.int64)[:, None]
        return (self.normalized.astype(np.int64) * w).sum(axis=0)

    # -- views ------------------------------------------------------------------------------

    @property
    def host_names(self) -> list[str | None]:
        return [self.node_names[h] if h >= 0 else None for h in self.hosts.tolist()]

    def to_dict(self) -> dict[str, Any]:
        """The JSON document of docs/contract.md as Python objects."""
        results = []
        names = self.node_names
        plugins = self.plugin_names
        weights = self.weights
        nodes = self.nodes.tolist()
        raw = self.raw.tolist()  # (total below is computed once)
        norm = self.normalized.astype(np.int64).tolist()
        total = self.total.tolist()
        ptr = self.ptr.tolist()
        for i, pod in enumerate(self.pod_names):
            scores = []
            for e in range(ptr[i], ptr[i + 1]):
                scores.append(
                    {
                        "node": names[nodes[e]],
                        "total": total[e],
                        "plugins": {
                            p: {
                                "raw": raw[k][e],
                                "normalized": norm[k][e],
                                "weighted": norm[k][e] * weights[k],
                            }
                            for k, p in enumerate(plugins)
                        },
                    }
                )
            h = int(self.hosts[i])
            entry = result_entry(pod, names[h] if h >= 0 else None, int(self.feasible[i]),
                                 int(self.evaluated[i]), self.errors[i], scores)  # fmt: skip
            if self.explained:
                entry["rejected"] = self.rejected_of(i)
            if i in self.preemptions:
                entry["preemption"] = self.preemptions[i]
            if i in self.volume_bindings:
                entry["volumeBindings"] = self.volume_bindings[i]
            results.append(entry)
        return {"results": results, "mode": self.mode}

    def placements_table(self) -> pa.Table:
        """One row per pending pod: pod, host, feasible, evaluated, error; the schema's
        metadata ``kscore.mode`` is :attr:`mode`."""
        import pyarrow as pa

        table = pa.table(
            {
                "pod": pa.array(self.pod_names, pa.string()),
                "host": pa.array(self.host_names, pa.string()),
                "feasible": pa.array(self.feasible, pa.int64()),
                "evaluated": pa.array(self.evaluated, pa.int64()),
                "error": pa.array(self.errors, pa.string()),
            }
        )
        return table.replace_schema_metadata({"kscore.mode": self.mode})

    def preemptions_table(self) -> pa.Table:
        """One row per pod that fits nowhere, with what DefaultPreemption would do
        (``explain``): pod, nominated node (null: none), victims (namespace, name,
        priority), PDB violations, the tie set, the candidates' count, why none."""
        import pyarrow as pa

        pods = sorted(self.preemptions)
        rows = [self.preemptions[p] for p in pods]
        return pa.table({
            "pod": pa.array([self.pod_names[p] for p in pods], pa.string()),
            **preemption_columns(rows),
        })  # fmt: skip

    def volume_bindings_table(self) -> pa.Table:
        """One row per claim VolumeBinding's Reserve bound or provisioned for a bound pod
        (simulate), in the pods' order and each pod's ``PodVolumes`` order: pod, claim,
        volume (null: provisioned), provisioned, selected_node (the host a provisioned
        claim was pinned to; null for a static binding)."""
        import pyarrow as pa

        rows = [(self.pod_names[p], b) for p in sorted(self.volume_bindings)
                for b in self.volume_bindings[p]]  # fmt: skip
        return pa.table({
            "pod": pa.array([pod for pod, _ in rows], pa.string()),
            **volume_binding_columns([b for _, b in rows]),
        })  # fmt: skip

    def rejected_table(self) -> pa.Table:
        """One row per pod and examined node a filter rejected (``explain``): pod, node,
        plugin, reason, in examination order; ``pod``, ``node``, ``plugin`` dictionary-
        encoded."""
        import pyarrow as pa

        pods = sorted(self.rejected)
        counts = [len(self.rejected[p][0]) for p in pods]
        pod_idx = np.repeat(np.asarray(pods, dtype=np.int32), counts)
        node_idx = np.concatenate([self.rejected[p][0] for p in pods] or [np.zeros(0, np.int32)])
        plugin_idx = [k for p in pods for k in self.rejected[p][1]]
        reasons = [r for p in pods for r in self.rejected[p][2]]

        def dictionary(indices: Any, names: list[str]) -> pa.DictionaryArray:
            return pa.DictionaryArray.from_arrays(
                pa.array(indices, pa.int32()), pa.array(names, pa.string())
            )

        return pa.table(
            {
                "pod": dictionary(pod_idx, self.pod_names),
                "node": dictionary(node_idx, self.node_names),
                "plugin": dictionary(plugin_idx, self.filter_names),
                "reason": pa.array(reasons, pa.string()),
            }
        )

    def scores_table(self) -> pa.Table:
        """One row per (pod, node, plugin) kept: pod, node, plugin, raw, normalized,
        weighted, total. Without score plugins one row per (pod, node) with a null plugin.

        ``pod``, ``node`` and ``plugin`` are dictionary-encoded.
        """
        import pyarrow as pa

        return pa.Table.from_batches(list(self.score_batches()), schema=self.scores_schema())

    def scores_schema(self) -> pa.Schema:
        import pyarrow as pa

        dictionary = pa.dictionary(pa.int32(), pa.string())
        return pa.schema(
            [
                ("pod", dictionary),
                ("node", dictionary),
                ("plugin", dictionary),
                ("raw", pa.int64()),
                ("normalized", pa.int64()),
                ("weighted", pa.int64()),
                ("total", pa.int64()),
            ]
        )

    def score_batches(self, max_rows: int = 1 << 20) -> Iterator[pa.RecordBatch]:
        """The rows of :meth:`scores_table`, a few pods at a time (bounded memory)."""
        import pyarrow as pa

        schema = self.scores_schema()
        pods = pa.array(self.pod_names, pa.string())
        nodes = pa.array(self.node_names, pa.string())
        plugins = pa.array(self.plugin_names, pa.string())
        n_pl = len(self.plugin_names)
        rows = max(n_pl, 1)
        weights = np.asarray(self.weights, np.int64)[:, None]
        lengths = np.diff(self.ptr)
        lo = 0
        while lo < len(self):
            # as many pods as fit in max_rows (at least one)
            ends = np.searchsorted(self.ptr, self.ptr[lo] + max_rows // rows, side="right") - 1
            hi = int(min(len(self), max(lo + 1, ends)))
            a, b = int(self.ptr[lo]), int(self.ptr[hi])
            n_e = b - a
            pod_idx = np.repeat(np.repeat(np.arange(lo, hi, dtype=np.int32), lengths[lo:hi]), rows)
            norm = self.normalized[:, a:b].astype(np.int64)
            total = (norm * weights).sum(axis=0) if n_pl else np.ones(n_e, np.int64)
            if n_pl:
                plugin = pa.DictionaryArray.from_arrays(
                    pa.array(np.tile(np.arange(n_pl, dtype=np.int32), n_e)), plugins
                )
                raw_a = pa.array(self.raw[:, a:b].T.reshape(-1))
                norm_a = pa.array(norm.T.reshape(-1))
                w_a = pa.array((norm * weights).T.reshape(-1))
            else:
                plugin = pa.DictionaryArray.from_arrays(pa.nulls(n_e, pa.int32()), plugins)
                raw_a = norm_a = w_a = pa.nulls(n_e, pa.int64())
            yield pa.RecordBatch.from_arrays(
                [
                    pa.DictionaryArray.from_arrays(pa.array(pod_idx), pods),
                    pa.DictionaryArray.from_arrays(
                        pa.array(np.repeat(self.nodes[a:b], rows)), nodes
                    ),
                    plugin,
                    raw_a,
                    norm_a,
                    w_a,
                    pa.array(np.repeat(total, rows)),
                ],
                schema=schema,
            )
            lo = hi


def preemption_columns(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The preemptions table's columns of ``rows`` (``preemption`` objects): nominated
    node (null: none), victims (namespace, name, priority), PDB violations, the tie set,
    the candidates' count, why none, the ``Error`` status' message (null: none)."""
    import pyarrow as pa

    victim = pa.struct([("namespace", pa.string()), ("name", pa.string()),
                        ("priority", pa.int32())])  # fmt: skip
    return {
        "nominated_node": pa.array([r["nominatedNode"] for r in rows], pa.string()),
        "victims": pa.array([r["victims"] for r in rows], pa.list_(victim)),
        "pdb_violations": pa.array([r["pdbViolations"] for r in rows], pa.int32()),
        "ties": pa.array([r["ties"] for r in rows], pa.list_(pa.string())),
        "candidates": pa.array([r["candidates"] for r in rows], pa.int32()),
        "reason": pa.array([r.get("reason") for r in rows], pa.string()),
        "error": pa.array([r.get("error") for r in rows], pa.string()),
    }


def volume_binding_entries(decided: list[tuple[str, str | None]], node: str,
                           provisioned: list[str | None] | None = None
                           ) -> list[dict[str, Any]]:  # fmt: skip
    """The ``volumeBindings`` objects of what a Reserve decided on ``node`` ((claim,
    volume) per static binding, (claim, None) per claim to provision; docs/contract.md):
    claim, volume, provisioned, selectedNode (the node a provisioned claim is pinned to:
    its ``volume.kubernetes.io/selected-node`` annotation). ``provisioned``: per entry,
    the volume its binding completed with (a provisioned claim's new volume: its
    ``volume``; None: none)."""
    made = provisioned or [None] * len(decided)
    return [{"claim": claim, "volume": volume if volume is not None else new,
             "provisioned": volume is None, "selectedNode": node if volume is None else None}
            for (claim, volume), new in zip(decided, made, strict=True)]  # fmt: skip


def volume_binding_columns(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The volume bindings table's columns of ``rows`` (``volumeBindings`` objects)."""
    import pyarrow as pa

    return {
        "claim": pa.array([r["claim"] for r in rows], pa.string()),
        "volume": pa.array([r["volume"] for r in rows], pa.string()),
        "provisioned": pa.array([r["provisioned"] for r in rows], pa.bool_()),
        "selected_node": pa.array([r["selectedNode"] for r in rows], pa.string()),
    }


def result_entry(pod: str, host: str | None, feasible: int, evaluated: int, error: str | None,
                 scores: list[dict[str, Any]]) -> dict[str, Any]:  # fmt: skip
    """One pod's object in the JSON document of docs/contract.md (without ``rejected``)."""
    return {"pod": pod, "host": host, "feasibleNodes": feasible, "evaluatedNodes": evaluated,
            "error": error, "scores": scores}  # fmt: skip


_FIT_ERROR = re.compile(r"0/(\d+) nodes are available: (.*)\Z", re.S)


def fit_error_reasons(error: str) -> list[tuple[int, str]] | None:
    """The (node count, reason) entries of Go's ``FitError`` text (``0/36 nodes are
    available: 13 Insufficient cpu, 2 node(s) had taint {...}, that the pod didn't
    tolerate.``: see ``fit_error_text``), or None for another error. An entry starts at a
    ``, `` followed by a count: a reason may hold ``, `` itself."""
    m = _FIT_ERROR.match(error)
    if m is None:
        return None
    tail = m.group(2).removesuffix(".")
    out = []
    for part in re.split(r", (?=\d+ )", tail) if tail else []:
        count, _, reason = part.partition(" ")
        out.append((int(count), reason) if count.isdigit() else (0, part))
    return out
