"""Run the scheduling cycle for a batch of pods (independent mode).

Mirrors pkg/scheduler/generic_scheduler.go (``Schedule``, ``findNodesThatFitPod``,
``prioritizeNodes``) and ``RunScorePlugins`` of pkg/scheduler/framework/runtime/
framework.go, chunk by chunk:

1. node lists (no filter plugins yet: ``windows_without_filters``);
2. no nodes at all → ``no nodes available to schedule pods``; one feasible node → it is
   the host, nothing is scored;
3. no score plugins → every feasible node scores 1 (PreScore is not run);
4. else per plugin PreScore, Score, NormalizeScore (over each pod's feasible nodes), the
   [0, 100] check, × weight; totals are the sums;
5. the host: a seeded uniform choice among the top totals (:mod:`.selection`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ..goarith import MAX_NODE_SCORE, MIN_NODE_SCORE
from ..model.snapshot import ClusterSnapshot, PodBatch
from .interface import Chunk, ScorePlugin
from .nodeorder import num_feasible_nodes_to_find, windows_without_filters
from .result import ScoreResult, ScoresMode
from .selection import select_hosts

ERR_NO_NODES = "no nodes available to schedule pods"
DEFAULT_CHUNK = 512


@dataclass(frozen=True)
class WeightedPlugin:
    plugin: ScorePlugin
    weight: int


class Framework:
    """A profile: score plugins with weights, and ``percentageOfNodesToScore``."""

    def __init__(
        self, score_plugins: Sequence[WeightedPlugin], percentage_of_nodes_to_score: int = 0
    ) -> None:
        self.score_plugins = list(score_plugins)
        self.percentage_of_nodes_to_score = percentage_of_nodes_to_score

    @property
    def plugin_names(self) -> list[str]:
        return [wp.plugin.name for wp in self.score_plugins]

    def run(
        self,
        snapshot: ClusterSnapshot,
        batch: PodBatch,
        *,
        seed: int = 0,
        scores: ScoresMode = "all",
        chunk_size: int = DEFAULT_CHUNK,
        progress: Callable[[int], None] | None = None,
    ) -> ScoreResult:
        """Schedule every pod of ``batch`` against ``snapshot`` (nothing is bound)."""
        n_pods, n_nodes = len(batch), snapshot.n_nodes
        result = ScoreResult.empty(
            pod_names=batch.names,
            node_names=snapshot.node_names,
            plugin_names=self.plugin_names,
            weights=[wp.weight for wp in self.score_plugins],
            scores=scores,
        )
        if n_nodes == 0:
            result.errors[:] = [ERR_NO_NODES] * n_pods
            result.finish()
            return result
        num_to_find = num_feasible_nodes_to_find(n_nodes, self.percentage_of_nodes_to_score)
        start = 0
        for lo in range(0, n_pods, chunk_size):
            pods = np.arange(lo, min(n_pods, lo + chunk_size), dtype=np.int64)
            ptr, nodes, start = windows_without_filters(
                n_nodes, num_to_find, batch.nominated[pods], start
            )
            self._run_chunk(snapshot, batch, Chunk(pods, ptr, nodes), seed, result)
            if progress is not None:
                progress(len(pods))
        result.finish()
        return result

    def _run_chunk(
        self,
        snapshot: ClusterSnapshot,
        batch: PodBatch,
        chunk: Chunk,
        seed: int,
        result: ScoreResult,
    ) -> None:
        counts = np.diff(chunk.ptr)
        result.feasible[chunk.pods] = counts
        result.evaluated[chunk.pods] = counts  # no filter failures without filters
        single = counts == 1
        result.hosts[chunk.pods[single]] = chunk.nodes[chunk.ptr[:-1][single]]
        sub = _subchunk(chunk, counts >= 2)
        if len(sub) == 0:
            result.add_chunk(sub, np.empty((0, 0), np.int64), np.empty((0, 0), np.int64),
                             np.empty(0, np.int64))  # fmt: skip
            return
        n_entries = len(sub.nodes)
        raw = np.empty((len(self.score_plugins), n_entries), dtype=np.int64)
        norm = np.empty_like(raw)
        if not self.score_plugins:
            total = np.ones(n_entries, dtype=np.int64)
        else:
            total = np.zeros(n_entries, dtype=np.int64)
            failed = np.zeros(len(sub), dtype=np.bool_)
            for k, wp in enumerate(self.score_plugins):
                state = wp.plugin.pre_score(snapshot, batch, sub)
                raw[k] = wp.plugin.score(state, snapshot, batch, sub)
                norm[k] = raw[k]
                if wp.plugin.normalizes:
                    wp.plugin.normalize(state, snapshot, batch, sub, norm[k])
                self._check_range(wp.plugin.name, norm[k], sub, snapshot, batch, failed, result)
                total += norm[k] * wp.weight
            if failed.any():
                keep = ~failed
                entry_keep = np.repeat(keep, np.diff(sub.ptr))
                sub = _subchunk(sub, keep)
                raw, norm, total = raw[:, entry_keep], norm[:, entry_keep], total[entry_keep]
        hosts = np.empty(len(sub), dtype=np.int32)
        select_hosts(sub.ptr, sub.nodes, total, np.uint64(seed % 2**64),
                     sub.pods.astype(np.uint64), hosts)  # fmt: skip
        result.hosts[sub.pods] = hosts
        result.add_chunk(sub, raw, norm, total)

    @staticmethod
    def _check_range(
        name: str,
        scores: np.ndarray,
        chunk: Chunk,
        snapshot: ClusterSnapshot,
        batch: PodBatch,
        failed: np.ndarray,
        result: ScoreResult,
    ) -> None:
        """RunScorePlugins' weight phase check: a normalized score outside [0, 100]."""
        bad = (scores < MIN_NODE_SCORE) | (scores > MAX_NODE_SCORE)
        if not bad.any():
            return
        for e in np.flatnonzero(bad):
            i = int(np.searchsorted(chunk.ptr, e, side="right") - 1)
            if failed[i]:
                continue
            failed[i] = True
            pod = int(chunk.pods[i])
            result.feasible[pod] = result.evaluated[pod] = 0  # Schedule returns no result
            result.errors[pod] = (
                f'applying score defaultWeights on Score plugins: plugin "{name}" returns an '
                f"invalid score {int(scores[e])}, it should in the range of "
                f"[{MIN_NODE_SCORE}, {MAX_NODE_SCORE}] after normalizing "
                f"(pod {batch.pods[pod].key}, node {snapshot.node_names[chunk.nodes[e]]})"
            )


def _subchunk(chunk: Chunk, keep: np.ndarray) -> Chunk:
    """The pods of ``chunk`` where ``keep`` is true, with their entries."""
    if keep.all():
        return chunk
    lengths = np.diff(chunk.ptr)[keep]
    ptr = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=ptr[1:])
    entry_keep = np.repeat(keep, np.diff(chunk.ptr))
    return Chunk(chunk.pods[keep], ptr, chunk.nodes[entry_keep])
