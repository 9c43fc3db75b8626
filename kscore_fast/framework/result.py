"""The result of scoring a batch: placements, and the per-plugin scores kept.

Scores are kept as a ragged table in batch order: for pod ``i`` the entries
``ptr[i]:ptr[i+1]`` of ``nodes`` (int32), ``raw``/``normalized`` (int64[n_plugins, E])
and ``total`` (int64[E]); ``weighted`` is ``normalized × weight`` and is derived when
converted. ``scores="top:K"`` keeps each pod's K best entries (total descending, ties in
score-list order), ``"none"`` keeps none.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import pyarrow as pa

from ..errors import ConfigError

ScoresMode = Literal["all", "none"] | str

_TOP = re.compile(r"top:([1-9][0-9]*)\Z")


def parse_scores_mode(mode: str) -> int | None:
    """``all`` → None (keep all); ``none`` → 0; ``top:K`` → K."""
    if mode == "all":
        return None
    if mode == "none":
        return 0
    m = _TOP.match(mode)
    if m is None:
        raise ConfigError(f"--scores must be all, none or top:K with K ≥ 1, got {mode!r}")
    return int(m.group(1))


@dataclass(eq=False)
class ScoreResult:
    """What ``score`` returns: one placement per pending pod and the scores kept."""

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
    ptr: np.ndarray = field(default_factory=lambda: np.zeros(1, np.int64))
    nodes: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int32))
    raw: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), np.int64))
    normalized: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), np.int64))
    total: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    _parts: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = (
        field(default_factory=list, repr=False)
    )

    @classmethod
    def empty(
        cls,
        *,
        pod_names: list[str],
        node_names: list[str],
        plugin_names: list[str],
        weights: list[int],
        scores: str = "all",
    ) -> ScoreResult:
        n = len(pod_names)
        return cls(
            pod_names=pod_names,
            node_names=node_names,
            plugin_names=plugin_names,
            weights=weights,
            hosts=np.full(n, -1, dtype=np.int32),
            feasible=np.zeros(n, dtype=np.int64),
            evaluated=np.zeros(n, dtype=np.int64),
            errors=[None] * n,
            keep=parse_scores_mode(scores),
        )

    def __len__(self) -> int:
        return len(self.pod_names)

    # -- assembly (runtime) ---------------------------------------------------------------

    def add_chunk(self, chunk: Any, raw: np.ndarray, norm: np.ndarray, total: np.ndarray) -> None:
        """Keep the scores of a chunk (pods in increasing batch order)."""
        if self.keep == 0 or len(chunk) == 0:
            return
        lengths = np.diff(chunk.ptr)
        nodes = chunk.nodes
        if self.keep is not None:
            # sort each pod's entries by total (descending, stable), keep the first K
            pod_of = np.repeat(np.arange(len(lengths)), lengths)
            order = np.lexsort((np.arange(len(total)), -total, pod_of))
            rank = np.arange(len(order)) - np.repeat(chunk.ptr[:-1], lengths)
            sel = order[rank < self.keep]
            lengths = np.minimum(lengths, self.keep)
            nodes, raw, norm, total = nodes[sel], raw[:, sel], norm[:, sel], total[sel]
        self._parts.append((chunk.pods, lengths, nodes, raw, norm, total))

    def finish(self) -> None:
        """Concatenate the kept chunks into the ragged arrays."""
        lengths = np.zeros(len(self), dtype=np.int64)
        n_pl = len(self.plugin_names)
        if self._parts:
            for pods, ls, *_ in self._parts:
                lengths[pods] = ls
            self.nodes = np.concatenate([p[2] for p in self._parts]).astype(np.int32)
            self.total = np.concatenate([p[5] for p in self._parts])
            if n_pl:
                self.raw = np.concatenate([p[3] for p in self._parts], axis=1)
                self.normalized = np.concatenate([p[4] for p in self._parts], axis=1)
            else:
                self.raw = np.zeros((0, len(self.total)), np.int64)
                self.normalized = np.zeros((0, len(self.total)), np.int64)
        else:
            self.raw = np.zeros((n_pl, 0), np.int64)
            self.normalized = np.zeros((n_pl, 0), np.int64)
        self.ptr = np.zeros(len(self) + 1, dtype=np.int64)
        np.cumsum(lengths, out=self.ptr[1:])
        self._parts = []

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
        raw = self.raw.tolist()
        norm = self.normalized.tolist()
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
            results.append(
                {
                    "pod": pod,
                    "host": names[h] if h >= 0 else None,
                    "feasibleNodes": int(self.feasible[i]),
                    "evaluatedNodes": int(self.evaluated[i]),
                    "error": self.errors[i],
                    "scores": scores,
                }
            )
        return {"results": results}

    def placements_table(self) -> pa.Table:
        """One row per pending pod: pod, host, feasible, evaluated, error."""
        return pa.table(
            {
                "pod": pa.array(self.pod_names, pa.string()),
                "host": pa.array(self.host_names, pa.string()),
                "feasible": pa.array(self.feasible, pa.int64()),
                "evaluated": pa.array(self.evaluated, pa.int64()),
                "error": pa.array(self.errors, pa.string()),
            }
        )

    def scores_table(self) -> pa.Table:
        """One row per (pod, node, plugin) kept: pod, node, plugin, raw, normalized,
        weighted, total. Without score plugins one row per (pod, node) with a null plugin.

        ``pod``, ``node`` and ``plugin`` are dictionary-encoded.
        """
        n_e = len(self.nodes)
        n_pl = len(self.plugin_names)
        pod_of = np.repeat(np.arange(len(self), dtype=np.int32), np.diff(self.ptr))
        rows = max(n_pl, 1)
        pod_idx = np.repeat(pod_of, rows)
        node_idx = np.repeat(self.nodes, rows)
        total = np.repeat(self.total, rows)
        if n_pl:
            plugin_idx = np.tile(np.arange(n_pl, dtype=np.int32), n_e)
            raw = self.raw.T.reshape(-1)
            norm = self.normalized.T.reshape(-1)
            weighted = (self.normalized * np.asarray(self.weights, np.int64)[:, None]).T.reshape(-1)
            plugin = pa.DictionaryArray.from_arrays(
                pa.array(plugin_idx), pa.array(self.plugin_names, pa.string())
            )
            raw_a, norm_a, w_a = pa.array(raw), pa.array(norm), pa.array(weighted)
        else:
            nulls = pa.nulls(n_e, pa.int64())
            plugin = pa.DictionaryArray.from_arrays(
                pa.nulls(n_e, pa.int32()), pa.array([], pa.string())
            )
            raw_a = norm_a = w_a = nulls
        return pa.table(
            {
                "pod": pa.DictionaryArray.from_arrays(
                    pa.array(pod_idx), pa.array(self.pod_names, pa.string())
                ),
                "node": pa.DictionaryArray.from_arrays(
                    pa.array(node_idx), pa.array(self.node_names, pa.string())
                ),
                "plugin": plugin,
                "raw": raw_a,
                "normalized": norm_a,
                "weighted": w_a,
                "total": pa.array(total),
            }
        )
