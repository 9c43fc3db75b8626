"""Run the scheduling cycle for a batch of pods (independent mode).

Mirrors pkg/scheduler/generic_scheduler.go (``Schedule``, ``findNodesThatFitPod``,
``prioritizeNodes``) and ``RunScorePlugins`` of pkg/scheduler/framework/runtime/
framework.go, chunk by chunk:

1. no nodes at all → ``no nodes available to schedule pods``;
2. ``search``: the feasible nodes of each pod, consecutive cycles carrying
   ``nextStartNodeIndex`` (:mod:`.search`; pods of one filter class share verdicts);
3. ``settle``: no feasible node → ``FitError``; one → it is the host, nothing is scored;
4. ``score``: no score plugins → every feasible node scores 1 (PreScore is not run); else
   per plugin Score, NormalizeScore (over each pod's feasible nodes), the [0, 100] check,
   × weight, summed (:mod:`.scoring`), in parallel over pods;
5. the host: a seeded uniform choice among the top totals (:mod:`.selection`).

The compiled loops (:mod:`.search`, :mod:`.verdicts`, :mod:`.scoring`, :mod:`.sharing`)
reach the profile's plugins through its plugin table (:mod:`.abi`, :mod:`.entries`); the
runtime only prepares arrays and reads results.

Scores are written straight into the result's buffers (``scores="all"``) or into
chunk-sized scratch (``top:K``, ``none``), so memory stays bounded by the chunk.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import ConfigError
from ..model.snapshot import ClusterSnapshot, PodBatch, pod_twins, spec_twins
from . import abi, arrays, search, sharing, verdicts
from .entries import PluginTable
from .interface import Chunk
from .kernels import settle_chunk, top_k
from .nodeorder import num_feasible_nodes_to_find
from .result import ScoreResult, ScoresMode
from .scoring import score_todo
from .search import BLOCK, error_node, unpack
from .selection import select_hosts

ERR_NO_NODES = "no nodes available to schedule pods"
#: entries (pod × node) per chunk: small enough for the chunk's work arrays (~7 MB) to
#: stay in the last-level cache, large enough to amortize the per-chunk Python overhead
#: and the parallel regions' fork/join (measured: 2^16 → 3.4, 2^18 → 2.8 µs/pod)
CHUNK_ENTRIES = 1 << 18
#: and for a profile without filters keeping every score, whose only chunk-sized work
#: array is the totals (8 MB): fewer chunks, fewer joins of the scoring threads (measured
#: on 1,000 pods × 1,000 nodes, every pod its own selector: 2.7 → 2.4 µs/pod)
KEPT_CHUNK_ENTRIES = 1 << 20
#: filter verdicts kept for a whole run when (pod classes × nodes) is at most this (128 MB)
MEMO_ENTRIES = 1 << 24


@dataclass(frozen=True)
class WeightedPlugin:
    plugin: Any
    weight: int


class _Scratch:
    """Chunk-sized work arrays, reused from chunk to chunk: the totals, and the
    per-plugin scores when the result keeps them elsewhere (``keep_scores`` False)."""

    def __init__(self, n_plugins: int, capacity: int, keep_scores: bool) -> None:
        self.total = np.empty(capacity, dtype=np.int64)
        if not keep_scores:
            self.raw = np.empty((n_plugins, capacity), dtype=np.int64)
            self.norm_u8 = np.empty((n_plugins, capacity), dtype=np.uint8)


class _TableRows:
    """A profile's plugins, each once (filter plugins first, in order, then the score
    plugins not filtering), the rows of its score plugins in that list, and what a run's
    result names."""

    def __init__(self, fw: Framework) -> None:
        # (by identity: a PreFilter run as a filter bears its plugin's name)
        by_id = {id(p): p for p in [*fw.filter_plugins, *(wp.plugin for wp in fw.score_plugins)]}
        self.plugins = list(by_id.values())
        #: each plugin's row, by its identity
        self.row = {id(p): i for i, p in enumerate(self.plugins)}
        self.sids = np.array([self.row[id(wp.plugin)] for wp in fw.score_plugins], np.int64)
        self.score_plugins = [self.plugins[p] for p in self.sids.tolist()]
        self.weights = np.array([wp.weight for wp in fw.score_plugins], np.int64)
        self.weight_list = self.weights.tolist()
        self.plugin_names, self.filter_names = fw.plugin_names, fw.filter_names
        self.const_ok = sharing.normalizes_equal_equally(self.score_plugins)
        self._no_rows: dict[int, sharing.TwinRows] = {}
        #: a lone pod's row per score plugin: none (``score_todo``'s ``rows``, read only)
        self.lone_rows = arrays.full((len(self.sids), 1), -1, np.int64)

    def no_rows(self, n_nodes: int) -> sharing.TwinRows:
        """The :class:`~.sharing.TwinRows` of a run where no pods share rows (a lone pod):
        they hold nothing and never change, so one serves every such run."""
        found = self._no_rows.get(n_nodes)
        if found is None:
            empty = np.zeros(0, dtype=np.int64)
            found = self._no_rows[n_nodes] = sharing.TwinRows(
                self.sids, self.score_plugins, [None] * len(self.sids), empty, n_nodes,
                const_ok=self.const_ok)  # fmt: skip
        return found


#: an empty int64 array (shared: nothing can be written to it)
_NO_IDS = np.zeros(0, np.int64)

#: FitError messages a run remembers by their nodes' verdicts (:meth:`_Run.fit_error_row`)
_FIT_ERRORS_KEPT = 64


@dataclass
class _Searched:
    """One chunk's search: feasible lists (``ptr``/``nodes``), failed counts, and (with
    ``explain``) the failed nodes and verdicts; the filter classes and their verdicts."""

    ptr: np.ndarray
    nodes: np.ndarray
    failed: np.ndarray
    rej_ptr: np.ndarray
    rej_node: np.ndarray
    rej_code: np.ndarray
    classes: np.ndarray
    memo: np.ndarray
    #: int64[C] or empty: the lists the search left to the scoring (``search_chunk``)
    windows: np.ndarray = field(default_factory=lambda: _NO_IDS)


class Framework:
    """A profile: filter plugins in order, score plugins with weights, and
    ``percentageOfNodesToScore`` (pkg/scheduler/framework/runtime/framework.go)."""

    def __init__(
        self,
        score_plugins: Sequence[WeightedPlugin],
        percentage_of_nodes_to_score: int = 0,
        filter_plugins: Sequence[Any] = (),
        pre_score_plugins: Sequence[Any] | None = None,
    ) -> None:
        self.score_plugins = list(score_plugins)
        self.filter_plugins = list(filter_plugins)
        for plugin, point in [*((wp.plugin, "Score") for wp in self.score_plugins),
                              *((p, "Filter") for p in self.filter_plugins)]:  # fmt: skip
            if not getattr(plugin, point.lower() + "s", False):
                raise ConfigError(f'plugin "{plugin.name}" does not extend {point}Plugin plugin')
        #: the PreScore plugins in order (default: the score plugins, as ``--plugins``
        #: puts each at PreScore); only their failures matter here
        self.pre_score_plugins = (
            [wp.plugin for wp in self.score_plugins]
            if pre_score_plugins is None
            else list(pre_score_plugins)
        )
        self.percentage_of_nodes_to_score = percentage_of_nodes_to_score
        #: DefaultPreemption's (minCandidateNodesPercentage, minCandidateNodesAbsolute)
        #: when the profile runs it at PostFilter, else None
        self.preemption: tuple[int, int] | None = None

    @property
    def plugin_names(self) -> list[str]:
        return [wp.plugin.name for wp in self.score_plugins]

    @property
    def filter_names(self) -> list[str]:
        return [p.name for p in self.filter_plugins]

    @functools.cached_property
    def table_rows(self) -> _TableRows:
        """The profile's plugins as every run's plugin table holds them (the plugin lists
        do not change after construction)."""
        return _TableRows(self)

    def begin(self, snapshot: ClusterSnapshot, batch: PodBatch, scores: ScoresMode,
              explain: bool, refused: Mapping[int, str] | None
              ) -> tuple[ScoreResult, np.ndarray, int]:  # fmt: skip
        """A run's empty result (the ``refused`` pods' errors in), the pods to skip, and
        ``numFeasibleNodesToFind`` (0 when there are no nodes: the result is finished,
        every pod with Go's error)."""
        n_pods, n_nodes = len(batch), snapshot.n_nodes
        rows = self.table_rows
        result = ScoreResult.empty(
            pod_names=batch.names,
            node_names=snapshot.node_names,
            plugin_names=list(rows.plugin_names),
            weights=list(rows.weight_list),
            scores=scores,
            filter_names=rows.filter_names,
            explained=explain,
        )
        skip = np.zeros(n_pods, dtype=np.bool_)
        for pod, error in (refused or {}).items():
            result.errors[pod] = error
            skip[pod] = True
        if n_nodes == 0:
            result.errors[:] = [e or ERR_NO_NODES for e in result.errors]
            result.reserve(0)
            result.finish()
            return result, skip, 0
        num_to_find = num_feasible_nodes_to_find(n_nodes, self.percentage_of_nodes_to_score)
        return result, skip, num_to_find

    def run(
        self,
        snapshot: ClusterSnapshot,
        batch: PodBatch,
        *,
        seed: int = 0,
        scores: ScoresMode = "all",
        explain: bool = False,
        chunk_size: int | None = None,
        progress: Callable[[int], None] | None = None,
        refused: Mapping[int, str] | None = None,
    ) -> ScoreResult:
        """Schedule every pod of ``batch`` against ``snapshot`` (nothing is bound).

        ``explain``: keep every examined node a filter rejected, with the reasons.
        ``refused``: pods not scheduled at all (batch index → their error, e.g. a
        ``schedulerName`` no profile has); they take no part in the node rotation.
        """
        n_pods, n_nodes = len(batch), snapshot.n_nodes
        result, skip, num_to_find = self.begin(snapshot, batch, scores, explain, refused)
        if num_to_find == 0:
            return result
        if chunk_size is None:
            if explain or self.filter_plugins:  # verdicts and rejections are per node
                chunk_size = CHUNK_ENTRIES // max(num_to_find, n_nodes)
            elif result.keep is None:  # (the scores go to the result: the totals alone)
                chunk_size = KEPT_CHUNK_ENTRIES // num_to_find
            else:
                chunk_size = CHUNK_ENTRIES // num_to_find
            chunk_size = max(1, chunk_size)
        per_pod = num_to_find if result.keep is None else min(result.keep, num_to_find)
        result.reserve(n_pods * per_pod)
        scratch = _Scratch(len(self.score_plugins), min(n_pods, chunk_size) * num_to_find,
                           result.keep is None)  # fmt: skip
        run = _Run(self, snapshot, batch, num_to_find, explain)
        seed_u64 = np.uint64(seed % 2**64)
        skipping = bool(refused)
        for lo in range(0, n_pods, chunk_size):
            pods = np.arange(lo, min(n_pods, lo + chunk_size), dtype=np.int64)
            n_chunk = len(pods)
            if skipping:
                pods = pods[~skip[pods]]
            if run.lone and len(pods):
                run.cycle_one(pods, seed_u64, result, scratch)
            elif len(pods):
                found = run.search(pods, result.room(len(pods) * num_to_find))
                chunk = run.settle(pods, found, result)
                if len(chunk):
                    run.score(chunk, seed_u64, result, scratch)
            if progress is not None:
                progress(n_chunk)
        result.finish()
        return result


class _Run:
    """One run of a profile over a batch: the plugins' states and the search position."""

    #: the plugins' entry points the run calls (:mod:`.abi`)
    COLUMNS = (abi.FILTER, abi.SCORE, abi.NORMALIZE, abi.SCORE_NORMALIZE)

    def __init__(
        self,
        fw: Framework,
        snapshot: ClusterSnapshot,
        batch: PodBatch,
        num_to_find: int,
        explain: bool,
    ) -> None:
        self._profile(fw, snapshot, batch, num_to_find, explain)
        #: a batch of one pod, scored: its cycle through ``cycle_one``
        self.lone = len(batch) == 1 and len(self.sids) > 0
        if len(batch) < 2:  # (nothing to share: one filter class, the profile's empty rows)
            self.keys = None
            self.classes = self.twins = self.copies = np.zeros(len(batch), dtype=np.int64)
            self.twin_rows = fw.table_rows.no_rows(snapshot.n_nodes)
        else:
            self._sharing(fw, snapshot, batch, num_to_find)
        #: the search leaves a pod's node list to the scoring threads, which write it where
        #: they read it (not read back from memory after the whole chunk's search): a
        #: profile without filters scoring a batch whose pods are each scored (no copies:
        #: ``sharing.twins_of`` compares no lists)
        self.deferring = (len(batch) > 1 and not len(self.fids) and len(self.sids) > 0
                          and _distinct(self.copies))  # fmt: skip
        self.memo = self.done = self.reps = None
        n_classes = int(self.classes.max()) + 1 if len(batch) and len(self.fids) else 0
        if 0 < n_classes * self.n_nodes <= MEMO_ENTRIES:  # verdicts kept for the whole run
            self.reps = np.empty(n_classes, dtype=np.int64)
            self.reps[self.classes[::-1]] = np.arange(len(batch))[::-1]
            self.memo = np.empty((n_classes, self.n_nodes), dtype=np.int64)
            self.done = np.zeros((n_classes, -(-self.n_nodes // BLOCK)), dtype=np.bool_)

    def _sharing(self, fw: Framework, snapshot: ClusterSnapshot, batch: PodBatch,
                 num_to_find: int) -> None:  # fmt: skip
        """What pods of the batch share: filter classes (their verdicts), twins, score
        rows and copies."""
        filter_states = [self.states[p] for p in self.fids.tolist()]
        self.keys = verdicts.plugin_keys(self.filter_slots, filter_states, len(batch))
        self.classes = verdicts.filter_classes(self.keys)
        self.twins = pod_twins(batch)
        plugins, states = self.score_plugins, self.score_states
        spec = spec_twins(batch) if any(p.spec_only for p in plugins) else None
        self.twin_rows = sharing.TwinRows(self.sids, plugins, states, self.twins,
                                          snapshot.n_nodes, num_to_find, spec,
                                          fw.table_rows.const_ok)  # fmt: skip
        #: pods scored once per node list and copied (twins, and more: ``copy_classes``)
        self.copies = sharing.copy_classes(plugins, states, self.twins, spec)

    def _profile(self, fw: Framework, snapshot: ClusterSnapshot, batch: PodBatch,
                 num_to_find: int, explain: bool) -> None:  # fmt: skip
        """What every run of the profile holds: the plugins' states and plugin table, the
        filter and score plugins' rows in it, the weights, the PreScore failures and the
        search position."""
        rows = fw.table_rows
        self.fw, self.batch = fw, batch
        #: the profile's plugins (each once), their states and the table the loops read
        self.plugins, self.sids = rows.plugins, rows.sids
        self.score_plugins, self.weights = rows.score_plugins, rows.weights
        self.adopt_states(self.owned([p.prepare(snapshot, batch) for p in self.plugins]))
        self.choose_filters()
        self.prescore_errors = self._prescore_errors(snapshot, batch)
        #: bool[B]: the pod's PreScore failed (it is not scored; PreScore runs only when
        #: scoring)
        self.prescore_blocked = np.zeros(len(batch), dtype=np.bool_)
        if self.sids.size and self.prescore_errors:
            self.prescore_blocked[list(self.prescore_errors)] = True
        self.n_nodes = snapshot.n_nodes
        self.num_to_find = num_to_find
        self.explain = explain
        self.start = 0  # nextStartNodeIndex

    def choose_filters(self) -> None:
        """The filter slots for the states adopted (see the attributes' comments)."""
        fw, rows = self.fw, self.fw.table_rows
        if not fw.filter_plugins:  # (a score-only profile: nothing to choose)
            self.filter_slots, self.filter_positions, self.pre_filter_slots = [], [], []
            self.fids = _NO_IDS
            return
        #: the filter plugins the run calls (those that may fail a pod of the batch), in
        #: the profile's order: a verdict's slot indexes them; each one's position among
        #: the profile's filter plugins (``ScoreResult.filter_names``)
        at = [k for k, p in enumerate(fw.filter_plugins)
              if not p.passes_all(self.states[rows.row[id(p)]])]  # fmt: skip
        self.filter_slots = [fw.filter_plugins[k] for k in at]
        self.filter_positions = at
        self.fids = np.array([rows.row[id(p)] for p in self.filter_slots], np.int64)
        #: the filter slots that are a PreFilter (``pre_filter_failures``)
        self.pre_filter_slots = [k for k, p in enumerate(self.filter_slots)
                                 if p.pre_filter_failures(self.states[int(self.fids[k])])
                                 is not None]  # fmt: skip

    def owned(self, states: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
        """The states this run may change: a batch run changes none (see
        :class:`~kscore_fast.framework.simulation._Sequence`)."""
        return states

    def adopt_states(self, states: list[tuple[Any, ...]]) -> None:
        """Run on ``states`` (one per plugin of ``self.plugins``): the plugin table made
        for them."""
        self.states = states
        self.__dict__.pop("_reasons", None)  # (remembered for the former states)
        self.__dict__.pop("_unresolvable", None)
        self.__dict__.pop("_fit_errors", None)
        self.plugin_table = PluginTable(self.plugins, states, self.COLUMNS)
        self.table = self.plugin_table.table
        self.score_states = [states[p] for p in self.sids.tolist()]

    def nominations(self, pods: np.ndarray) -> np.ndarray:
        """int32[C]: the nominated node the search tries first for each of ``pods`` (-1:
        none): none for a pod a PreFilter fails (``pre_filter_slots``), as Go returns
        before ``evaluateNominatedNode`` (which would reset ``nextStartNodeIndex``)."""
        nominated = self.batch.nominated[pods]
        for k in self.pre_filter_slots:
            plugin, state = self.filter_slots[k], self.states[int(self.fids[k])]
            nominated = np.where(plugin.pre_filter_failures(state)[pods], -1, nominated)
        return nominated.astype(np.int32, copy=False)

    def nomination(self, pod: int) -> int:
        """:meth:`nominations` of one pod (a step's: no arrays made for it)."""
        node = int(self.batch.nominated[pod])
        if node >= 0:
            for k in self.pre_filter_slots:
                plugin, state = self.filter_slots[k], self.states[int(self.fids[k])]
                if plugin.pre_filter_failures(state)[pod]:
                    return -1
        return node

    def _prescore_errors(self, snapshot: ClusterSnapshot, batch: PodBatch) -> dict[int, str]:
        """``RunPreScorePlugins`` failures: pod → the first PreScore plugin's error (in the
        profile's PreScore order, which may hold plugins its Score list does not), for
        plugins whose PreScore can fail (``pre_score_errors(snapshot, batch)``)."""
        errors: dict[int, str] = {}
        for plugin in reversed(self.fw.pre_score_plugins):
            for pod, message in plugin.pre_score_errors(snapshot, batch).items():
                errors[pod] = f"running PreScore plugin {_go_quote(plugin.name)}: {message}"
        return errors

    def _verdict_table(self, pods: np.ndarray) -> tuple[np.ndarray, ...]:
        """``(classes of the pods, representative pods, memo, done)``: the filter classes'
        verdict rows (see ``framework.search``), kept for the whole run when they fit in
        ``MEMO_ENTRIES``, else per chunk."""
        n_nodes = self.n_nodes
        if not len(self.fids):
            return _no_verdicts(len(pods), n_nodes)
        if self.memo is None:
            local, inverse = np.unique(self.classes[pods], return_inverse=True)
            classes = inverse.reshape(-1).astype(np.int64)
            reps = np.empty(len(local), dtype=np.int64)
            reps[classes[::-1]] = pods[::-1]  # each class's first pod
            memo = np.empty((len(local), n_nodes), dtype=np.int64)
            done = np.zeros((len(local), -(-n_nodes // BLOCK)), dtype=np.bool_)
        else:
            classes, reps, memo, done = self.classes[pods], self.reps, self.memo, self.done
        # in parallel, every verdict of the chunk's classes: when every node is examined
        # anyway, or when the verdicts are kept for the run (then every class of the run at
        # once, on the first chunk: each class is filled once, each plugin once per key)
        if self.num_to_find >= n_nodes or self.memo is not None:
            todo = np.unique(classes) if self.memo is None else np.arange(len(reps))
            todo = todo[~done[todo].all(axis=1)]
            if len(todo):
                verdicts.prefill(self.fids, self.table, reps, todo, memo, done, self.keys)
        return classes, reps, memo, done

    def search(self, pods: np.ndarray, room: np.ndarray | None = None) -> _Searched:
        """``findNodesThatFitPod`` for the chunk's pods, one cycle after the other; the
        feasible lists are written to ``room`` when it is given (the result's next free
        entries: the kept lists stay where they were found, compacted in place)."""
        n_nodes, c = self.n_nodes, len(pods)
        classes, reps, memo, done = self._verdict_table(pods)
        has_filters = len(self.fids) > 0
        rej_room = c * n_nodes if self.explain and has_filters else 0
        found = _Searched(
            ptr=np.zeros(c + 1, dtype=np.int64),
            nodes=np.empty(c * max(self.num_to_find, 1), dtype=np.int32) if room is None else room,
            failed=np.zeros(c, dtype=np.int64),
            rej_ptr=np.zeros(c + 1, dtype=np.int64),
            rej_node=np.empty(rej_room, dtype=np.int32),
            rej_code=np.empty(rej_room, dtype=np.int64),
            classes=classes,
            memo=memo,
            windows=np.empty(c, dtype=np.int64) if self.deferring else _NO_IDS,
        )
        self.start = search.search_chunk(
            self.fids, self.table, pods, reps, classes, self.nominations(pods),
            self.start, self.num_to_find, n_nodes, memo, done, BLOCK, self.explain, found.ptr,
            found.nodes, found.failed, found.rej_ptr, found.rej_node, found.rej_code,
            found.windows,
        )  # fmt: skip
        return found

    def settle(self, pods: np.ndarray, found: _Searched, result: ScoreResult) -> Chunk:
        """Counts, FitErrors and rejections; pods with one feasible node get it as host.
        Returns the pods left to score (≥ 2 feasible nodes) with their node lists."""
        c = len(pods)
        keep_idx, keep_ptr = np.empty(c, dtype=np.int64), np.empty(c + 1, dtype=np.int64)
        m, zero, blocked = settle_chunk(
            pods, found.ptr, found.nodes, found.failed, self.prescore_blocked, result.feasible,
            result.evaluated, result.hosts, keep_idx, keep_ptr,
        )  # fmt: skip
        if self.explain:
            self._record_rejections(pods, found, result)
        if zero or blocked:
            self._settle_failures(pods, found, result, blocked)
        kept, windows = pods, found.windows
        if m != c:
            kept = pods[keep_idx[:m]]
            windows = windows[keep_idx[:m]] if len(windows) else windows
        return Chunk(kept, keep_ptr[: m + 1], found.nodes[: keep_ptr[m]], windows)

    def _settle_failures(self, pods: np.ndarray, found: _Searched, result: ScoreResult,
                         blocked: int) -> None:  # fmt: skip
        """The errors of the chunk's pods without a feasible node (``FitError``) and, when
        ``blocked``, of those with two or more whose PreScore failed."""
        counts = arrays.diff(found.ptr)
        for i in np.flatnonzero(counts == 0).tolist():
            self.record_failure(result, int(pods[i]), self._fit_error(found, i))
        for i in np.flatnonzero(counts >= 2).tolist() if blocked else ():
            if self.prescore_blocked[pods[i]]:
                self.record_failure(result, int(pods[i]), self.prescore_errors[int(pods[i])])

    def cycle_one(self, pods: np.ndarray, seed: np.uint64, result: ScoreResult,
                  scratch: _Scratch) -> None:  # fmt: skip
        """``search``, ``settle`` and ``score`` of a lone pod (``lone``): their compiled
        steps called straight from here, nothing to share between pods (no twins, rows or
        copies), the node list found and scored in the result's own buffers."""
        classes, reps, memo, done = self._verdict_table(pods)
        n_find = max(self.num_to_find, 1)
        room = result.room(n_find)
        nodes = np.empty(n_find, dtype=np.int32) if room is None else room
        # ptr, failed, rej_ptr; keep_idx, keep_ptr; best, count, bad plugin, bad value
        counts, kept = np.zeros(5, np.int64), np.empty(3, np.int64)
        per_pod = np.empty((4, 1), np.int64)
        if result.keep is None:
            whole_raw, whole_norm, base = result.raw, result.normalized, result.free_slice(0).start
        else:
            whole_raw, whole_norm, base = scratch.raw, scratch.norm_u8, 0
        chosen = np.empty(1, dtype=np.int32)
        explain = self.explain and len(self.fids) > 0
        rejections = (np.empty(self.n_nodes, np.int32), np.empty(self.n_nodes, np.int64)
                      ) if explain else _NO_REJECTIONS  # fmt: skip
        ptr, failed, rej_ptr = counts[:2], counts[2:3], counts[3:]
        keep_idx, keep_ptr = kept[:1], kept[1:]
        self.start = search.search_chunk(
            self.fids, self.table, pods, reps, classes, self.nominations(pods), self.start,
            self.num_to_find, self.n_nodes, memo, done, BLOCK, explain, ptr, nodes, failed,
            rej_ptr, *rejections, _NO_IDS,
        )  # fmt: skip
        m, zero, blocked = settle_chunk(pods, ptr, nodes, failed, self.prescore_blocked,
                                        result.feasible, result.evaluated, result.hosts,
                                        keep_idx, keep_ptr)  # fmt: skip
        if m:
            rows = self.twin_rows
            score_todo(keep_idx, self.sids, self.weights, self.table, pods, keep_ptr, nodes,
                       whole_raw, whole_norm, base, scratch.total, *per_pod,
                       self.fw.table_rows.lone_rows, rows.raw, rows.n_all, rows.const,
                       rows.const_ok, rows.row_ok, result.keep != 0, seed, chosen,
                       result.keep in (None, 0), _NO_IDS)  # fmt: skip
        if zero or blocked or self.explain:
            found = _Searched(ptr, nodes, failed, rej_ptr, *rejections, classes, memo)
            if self.explain:
                self._record_rejections(pods, found, result)
            if zero or blocked:
                self._settle_failures(pods, found, result, blocked)
        if not m:
            return
        if per_pod[2, 0] >= 0:
            self.record_failure(result, int(pods[0]), self.invalid_score(*per_pod[2:, 0].tolist()))
            return
        result.hosts[pods] = chosen
        if room is not None:  # (``scores="all"``: the scores and nodes are in place)
            result.commit_one(int(pods[0]), int(keep_ptr[1]))
        else:
            self._keep_one(pods, keep_ptr, nodes, whole_raw, whole_norm, base, scratch, result)

    def _keep_one(self, pods: np.ndarray, keep_ptr: np.ndarray, nodes: np.ndarray,
                  whole_raw: np.ndarray, whole_norm: np.ndarray, base: int, scratch: _Scratch,
                  result: ScoreResult) -> None:  # fmt: skip
        """:meth:`_keep` of a lone pod whose list was found outside the result's buffers
        (``top:K``, ``none``; or ``all`` without room): its ``keep_ptr[1]`` entries."""
        n = int(keep_ptr[1])
        raw, norm_u8 = whole_raw[:, base : base + n], whole_norm[:, base : base + n]
        self._keep(Chunk(pods, keep_ptr, nodes[:n]), raw, norm_u8, scratch.total[:n], result)

    def record_search(self, pods: np.ndarray, found: _Searched, result: ScoreResult
                      ) -> np.ndarray:  # fmt: skip
        """The search's counts of the chunk's ``pods`` (feasible, evaluated; with
        ``explain``, the rejections) into ``result``: the feasible counts."""
        counts = arrays.diff(found.ptr)
        result.feasible[pods] = counts
        result.evaluated[pods] = counts + found.failed
        if self.explain:
            self._record_rejections(pods, found, result)
        return counts

    @staticmethod
    def record_failure(result: ScoreResult, pod: int, error: str | None) -> None:
        """``Schedule`` returned ``error`` for ``pod``: no result, so no counts."""
        result.feasible[pod] = result.evaluated[pod] = 0
        result.errors[pod] = error

    def invalid_score(self, k: int, value: int) -> str:
        """The error of score plugin ``k`` (the profile's order) normalizing to ``value``."""
        return _invalid_score(self.fw.score_plugins[k].plugin.name, value)

    def _fit_error(self, found: _Searched, i: int) -> str:
        """``FitError.Error()``: every node failed (all were examined): the histogram of
        their reasons, sorted as strings; or the error of the node whose filter returned
        an ``Error`` status (:meth:`search_error`)."""
        return self.search_error(found.memo[found.classes[i]], int(found.failed[i]))

    def search_error(self, verdicts: np.ndarray, failed: int) -> str:
        """The error of a search that found no feasible node, from the verdicts it read
        and its failed count: a node's ``Error`` status (``RunFilterPlugins``' wrapping,
        ``running "<plugin>" filter plugin: <error>``), else the ``FitError``."""
        node = error_node(failed)
        if node is not None:
            return self.reasons(int(verdicts[node]))[0]
        return self.fit_error_row(verdicts)

    def fit_error_row(self, verdicts: np.ndarray) -> str:
        """``FitError.Error()`` of the failing ``verdicts`` of every node (the last few
        rows' messages remembered: pods that fail again often fail alike)."""
        key = verdicts.tobytes()
        memo = self.__dict__.setdefault("_fit_errors", {})
        found = memo.get(key)
        if found is None:
            unique, n = np.unique(verdicts, return_counts=True)
            found = self.fit_error_of(unique.tolist(), n.tolist())
            if len(memo) >= _FIT_ERRORS_KEPT:
                memo.clear()
            memo[key] = found
        return found

    def fit_error_of(self, verdicts: list[int], counts: list[int]) -> str:
        """``FitError.Error()`` of the nodes' distinct failing ``verdicts``, each given by
        ``counts`` nodes."""
        histogram: dict[str, int] = {}
        for v, count in zip(verdicts, counts, strict=True):
            for reason in self.reasons(v):
                histogram[reason] = histogram.get(reason, 0) + count
        return fit_error_text(self.n_nodes, histogram)

    def reasons(self, verdict: int) -> list[str]:
        """The failing plugin's reasons for ``verdict`` (remembered for the run: a
        plugin's ``reasons`` read only what its state keeps for the whole run)."""
        memo = self.__dict__.setdefault("_reasons", {})
        found = memo.get(verdict)
        if found is None:
            slot, code = unpack(verdict)
            plugin = self.filter_slots[slot]
            found = memo[verdict] = plugin.reasons(self.states[int(self.fids[slot])], code)
        return found

    def _record_rejections(self, pods: np.ndarray, found: _Searched, result: ScoreResult) -> None:
        """Each pod's rejected nodes with their filter and reasons (``explain``): every
        distinct verdict of the chunk read once, each entry then a lookup."""
        ptr = found.rej_ptr[: len(pods) + 1].tolist()
        if ptr[-1] == 0:
            return
        distinct, which = np.unique(found.rej_code[: ptr[-1]], return_inverse=True)
        verdicts = distinct.tolist()
        which_list = which.reshape(-1).tolist()
        position = [self.filter_positions[unpack(v)[0]] for v in verdicts]
        text = [", ".join(self.reasons(v)) for v in verdicts]
        positions = [position[j] for j in which_list]
        reasons = [text[j] for j in which_list]
        unresolvable = np.array([self.unresolvable(v) for v in verdicts], np.bool_)[which]
        for i, pod in enumerate(pods.tolist()):
            lo, hi = ptr[i], ptr[i + 1]
            if hi > lo:
                result.add_rejections(pod, found.rej_node[lo:hi], positions[lo:hi], reasons[lo:hi])
                result.unresolvable[pod] = unresolvable[lo:hi]

    def unresolvable(self, verdict: int) -> bool:
        """The failing plugin's status for ``verdict`` is ``UnschedulableAndUnresolvable``
        (remembered for the run, as :meth:`reasons`)."""
        memo = self.__dict__.setdefault("_unresolvable", {})
        found = memo.get(verdict)
        if found is None:
            slot, code = unpack(verdict)
            plugin = self.filter_slots[slot]
            state = self.states[int(self.fids[slot])]
            found = memo[verdict] = bool(plugin.unresolvable(state, code))
        return found

    def score(self, chunk: Chunk, seed: np.uint64, result: ScoreResult, scratch: _Scratch) -> None:
        """``prioritizeNodes`` and ``selectHost`` for the chunk's pods, then keep scores."""
        n, c = len(chunk.nodes), len(chunk)
        if result.keep is None:
            where = result.free_slice(n)
            whole_raw, whole_norm, base = result.raw, result.normalized, where.start
        else:
            whole_raw, whole_norm, base = scratch.raw, scratch.norm_u8, 0
        raw, norm_u8 = whole_raw[:, base : base + n], whole_norm[:, base : base + n]
        total = scratch.total[:n]
        best, count = np.empty(c, dtype=np.int64), np.empty(c, dtype=np.int64)
        hosts = np.empty(c, dtype=np.int32)
        if not len(self.sids):  # prioritizeNodes: every node scores 1, no plugin runs
            total[:] = 1
            best[:] = 1
            count[:] = arrays.diff(chunk.ptr)
            select_hosts.pick(n)(chunk.ptr, chunk.nodes, total, 1, best, count, seed,
                                 chunk.pods, hosts)  # fmt: skip
        else:  # (hosts picked with the scores)
            bad_plugin, bad_value = np.empty(c, dtype=np.int64), np.empty(c, dtype=np.int64)
            source = sharing.score_chunk(
                self.sids, self.weights, self.table, chunk.pods, self.copies[chunk.pods],
                self.twin_rows, chunk.ptr, chunk.nodes, whole_raw, whole_norm, base,
                result.keep != 0, total, best, count, bad_plugin, bad_value, seed, hosts,
                totals_read=result.keep not in (None, 0), windows=chunk.windows,
            )  # fmt: skip
            if (bad_plugin[0] >= 0) if c == 1 else (bad_plugin >= 0).any():
                if result.keep == 0:  # (the copies' entries hold no totals)
                    _copy_totals(chunk, total, source)
                ok = bad_plugin < 0
                chunk, raw, norm_u8, total, best, count = self._drop_failed(
                    chunk, raw, norm_u8, total, best, count, bad_plugin, bad_value, result
                )
                n, hosts = len(chunk.nodes), hosts[ok]
        if len(chunk) == 0:
            return
        result.hosts[chunk.pods] = hosts
        self._keep(chunk, raw[:, :n], norm_u8[:, :n], total[:n], result)

    def _drop_failed(self, chunk, raw, norm_u8, total, best, count, bad_plugin, bad_value,
                     result):  # fmt: skip
        """Pods whose scoring failed (a normalized score outside [0, 100]) keep no
        scores and no host; the others are compacted."""
        for i in np.flatnonzero(bad_plugin >= 0).tolist():
            error = self.invalid_score(int(bad_plugin[i]), int(bad_value[i]))
            self.record_failure(result, int(chunk.pods[i]), error)
        ok = bad_plugin < 0
        entry_ok = np.repeat(ok, arrays.diff(chunk.ptr))
        m = int(entry_ok.sum())
        raw[:, :m], norm_u8[:, :m] = raw[:, entry_ok], norm_u8[:, entry_ok]
        total[:m] = total[entry_ok]
        return _subchunk(chunk, ok), raw, norm_u8, total, best[ok], count[ok]

    @staticmethod
    def _keep(
        chunk: Chunk,
        raw: np.ndarray,
        norm_u8: np.ndarray,
        total: np.ndarray,
        result: ScoreResult,
    ) -> None:
        """Record the chunk's kept entries (the scores are already in place for
        ``scores="all"``)."""
        if result.keep == 0:
            return
        lengths = arrays.diff(chunk.ptr)
        if result.keep is None:
            if chunk.nodes.base is not result.nodes:  # (else found in place: ``room``)
                result.nodes[result.free_slice(len(chunk.nodes))] = chunk.nodes
            result.commit(chunk.pods, lengths)
            return
        # the host heads each pod's list; K is clamped to the longest list (any K works)
        k = min(result.keep, int(lengths.max()))
        order = np.empty(len(chunk.nodes), dtype=np.int64)
        hosts = result.hosts[chunk.pods]  # chosen by select_hosts before this call
        n = top_k.pick(len(chunk.nodes))(chunk.ptr, chunk.nodes, total, hosts, k, order, lengths)
        order = order[:n]
        where = result.free_slice(n)
        result.nodes[where] = chunk.nodes[order]
        result.raw[:, where] = raw[:, order]
        result.normalized[:, where] = norm_u8[:, order]
        result.commit(chunk.pods, lengths)


def _copy_totals(chunk: Chunk, total: np.ndarray, source: np.ndarray) -> None:
    """The totals of each copy (``score_chunk`` left them in its source's entries)."""
    for i in np.flatnonzero(source >= 0).tolist():
        j = int(source[i])
        lo, hi = int(chunk.ptr[i]), int(chunk.ptr[i + 1])
        total[lo:hi] = total[chunk.ptr[j] : chunk.ptr[j] + hi - lo]


def fit_error_text(n_nodes: int, histogram: Mapping[str, int]) -> str:
    """``FitError.Error()`` (pkg/scheduler/framework/types.go) from the histogram of the
    failed nodes' reasons (reason → count): the ``"%v %v"`` entries sorted as strings."""
    parts = sorted(f"{count} {reason}" for reason, count in histogram.items())
    return f"0/{n_nodes} nodes are available: {', '.join(parts)}."


#: ``search_chunk``'s rejected nodes and verdicts without ``explain`` (never written)
_NO_REJECTIONS = (np.empty(0, np.int32), np.empty(0, np.int64))


def _no_memo(n_nodes: int) -> tuple[np.ndarray, np.ndarray]:
    return np.empty((0, n_nodes), np.int64), np.zeros((0, 1), np.bool_)


@functools.lru_cache(maxsize=16)
def _no_verdicts(n_pods: int, n_nodes: int) -> tuple[np.ndarray, ...]:
    """:meth:`_Run._verdict_table` of a run without filters, kept for the last shapes:
    the search writes none of them (no filter: no verdict row, no class read)."""
    return np.zeros(n_pods, np.int64), np.zeros(0, np.int64), *_no_memo(n_nodes)


def _distinct(ids: np.ndarray) -> bool:
    """No two of ``ids`` are equal: at once when they rise or fall (a batch of pods with
    label sets of their own: positions as ids), else by a sort (``np.unique`` hashes,
    several times slower)."""
    step = np.diff(ids)
    if (step > 0).all() or (step < 0).all():
        return True
    ranked = np.sort(ids)
    return not (ranked[1:] == ranked[:-1]).any()


def _go_quote(name: str) -> str:
    """Go's ``%q`` of a plugin name (plain ASCII identifiers)."""
    return '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _invalid_score(plugin: str, value: int) -> str:
    """RunScorePlugins' weight-phase error, word for word (framework.go): the pod is the
    result's row; Go names no node."""
    return (
        f'applying score defaultWeights on Score plugins: plugin "{plugin}" returns an '
        f"invalid score {value}, it should in the range of [0, 100] after normalizing"
    )


def _subchunk(chunk: Chunk, keep: np.ndarray) -> Chunk:
    """The pods of ``chunk`` where ``keep`` is true, with their entries."""
    lengths = np.diff(chunk.ptr)[keep]
    ptr = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=ptr[1:])
    entry_keep = np.repeat(keep, np.diff(chunk.ptr))
    return Chunk(chunk.pods[keep], ptr, chunk.nodes[entry_keep])
