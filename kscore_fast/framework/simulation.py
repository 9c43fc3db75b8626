"""Sequential mode: the pending pods scheduled one after the other, each assumed on its host
before the next (``kscore simulate``; the compiled loop is :mod:`.sequential`).

The pods are taken in the order given (the caller puts them in kube-scheduler's queue
order, :func:`queue_order`); ``nextStartNodeIndex`` carries over the whole run, as in
kube-scheduler. A pod that fits nowhere gets Go's FitError and changes nothing; it is not
retried and does not preempt anyone.

Tie-breaks: ``uniform`` (kscore's seeded uniform choice among the top totals, per pod
position) or ``go-rand`` (Go's ``selectHost`` with Go's global ``math/rand`` seeded by
``rand.Seed(seed)``: one run of the real scheduler with ``parallelism: 1`` is reproduced
pod for pod).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from .. import _native
from ..errors import ConfigError, UnsupportedError
from ..model.objects import PodRecord
from ..model.snapshot import ClusterSnapshot, PodBatch, pod_twins
from . import cached_scoring, cycle_cache, gorand, sequential
from .abi import ASSUME, FILTER, NORMALIZE, REMOVE, SCORE_SERIAL
from .interface import Chunk
from .result import ScoreResult, ScoresMode, volume_binding_entries
from .runtime import Framework, _Run, _Searched
from .search import error_node, unpack
from .sharing import normalizes_equal_equally

TIE_BREAKS = ("uniform", "go-rand")
#: entries of a chunk's buffers (a chunk's pods × nodes)
CHUNK_ENTRIES = 1 << 20


def tie_break_code(tie_break: str) -> int:
    """The kernels' code of a ``--tie-break`` name."""
    if tie_break not in TIE_BREAKS:
        raise UnsupportedError(f"tie-break {tie_break!r}: expected one of {', '.join(TIE_BREAKS)}")
    return TIE_BREAKS.index(tie_break)


def random_source(tie_break: str, seed: int, what: str = "seed") -> tuple[int, np.ndarray]:
    """(tie-break code, Go's ``math/rand`` state after ``rand.Seed(seed)``; unused but
    for go-rand). ``what``: the seed's name in errors (the command line's ``--seed``)."""
    tie = tie_break_code(tie_break)
    if tie_break == "go-rand" and not -(2**63) <= seed < 2**63:
        raise ConfigError(f"{what} {seed}: Go's rand.Seed takes an int64")
    return tie, gorand.GoRand(seed if tie_break == "go-rand" else 1).state


def queue_order(pods: list[PodRecord]) -> list[int]:
    """PrioritySort's order of pods queued in list order: higher ``spec.priority`` first
    (absent: 0), then the order they were queued in."""
    return sorted(range(len(pods)), key=lambda i: -(pods[i].priority or 0))


class _Sequence(_Run):
    """A sequential run: the profile's states, updated in place by ``assume``."""

    COLUMNS = (FILTER, SCORE_SERIAL, NORMALIZE, ASSUME, REMOVE)
    #: the states are this run's own (it writes those of the plugins that follow binds)
    shares_states = False

    def __init__(self, fw: Framework, snapshot: ClusterSnapshot, batch: PodBatch,
                 num_to_find: int, explain: bool) -> None:  # fmt: skip
        plugins = [*fw.filter_plugins, *(wp.plugin for wp in fw.score_plugins)]
        stale = [p.name for p in plugins if not incremental(p)]
        if stale:
            raise UnsupportedError(
                f"sequential mode: {', '.join(dict.fromkeys(stale))} does not update its "
                "counts on assume yet; score with `kscore score` or leave it out of the profile"
            )
        self.kernels = sequential
        self._profile(fw, snapshot, batch, num_to_find, explain)
        #: the plugins whose node aggregates follow binds and deletions
        self.aids = np.flatnonzero(self.table[:, ASSUME] != 0).astype(np.int64)
        #: those whose ``assume`` is an ``AddPod`` only (not ``assume_reserves``): for
        #: pods added without a scheduling cycle placing them
        self.add_ids = np.array([a for a in self.aids.tolist()
                                 if not self.plugins[a].assume_reserves], np.int64)  # fmt: skip
        #: int32[B]: the node each pod of the batch is bound to (-1: none)
        self.bound = np.full(len(batch), -1, dtype=np.int32)
        #: int64[B]: each pod's twin group; the verdicts kept across cycles, per group
        self.groups = pod_twins(batch)
        self.cache = self.empty_cache()
        #: per score plugin and pod: how its raw scores are kept; per score plugin:
        #: whether it normalizes equal scores equally
        self.kinds = cached_scoring.kinds(self.score_plugins, self.score_states, len(batch))
        self.const_ok = normalizes_equal_equally(self.score_plugins)
        #: verdicts replacing the cache's on some nodes in the next cycles (int64[N], 0:
        #: none; :mod:`kscore_fast.preemption.simulate` sets them, in place)
        self.override = np.zeros(self.n_nodes, dtype=np.int64)
        #: one step's buffers (:meth:`step`), made at the first
        self.one: _Out | None = None
        self._remove: _native.PackedCall | None = None
        #: the buffers of the last :meth:`chunk` or :meth:`step`, and its last pod
        self.last: _Out | None = None
        self.last_pod = -1
        #: the snapshot the states were made from, and the storage objects as the
        #: completed bindings left them (:meth:`complete_bindings`; the states are made
        #: again for them only when a pod may see the difference)
        self.snapshot = snapshot
        self.storage = snapshot.storage
        #: batch pod → its ``volumeBindings`` objects, for the pods whose bindings
        #: completed (their Reserve's decisions are then no longer in the states)
        self.decided: dict[int, list[dict[str, Any]]] = {}
        self.completing = self._completing()

    def owned(self, states: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
        """The states with their own copies of what binds change (``own_state``), for
        the plugins with ``assume``; the others' states are shared."""
        return [p.own_state(s) if _binds(p) else s
                for p, s in zip(self.plugins, states, strict=True)]  # fmt: skip

    def undo_in_flight(self) -> None:
        """Undo the bind or deletion (of every plugin of ``aids``) that a plugin's
        exception stopped halfway: the plugins before it had applied it, the others not;
        after, every plugin's state is as before that change."""
        ctl = self.cache[3]
        done = int(ctl[cycle_cache.AT])
        if done < 0:
            return
        ctl[cycle_cache.AT] = -1
        pod, node, bind = (int(v) for v in ctl[cycle_cache.POD : cycle_cache.BIND + 1])
        if done:
            part = self.aids[:done]
            if bind:
                self.kernels.remove_pod(part, self.table, self.cache, pod, node)
            else:
                one, at = np.array([pod], np.int64), np.array([node], np.int64)
                self.kernels.assume_pods(part, self.table, self.cache, one, at)

    def _reserving(self) -> list[int]:
        """The rows of the Reserve plugins (``assume_reserves``) that may change something
        for a pod of the batch (not ``passes_all``), for the states adopted last."""
        kept = self.__dict__.get("_reserving_of")
        if kept is None or kept[0] is not self.states:
            rows = [k for k, p in enumerate(self.plugins)
                    if p.assume_reserves and not p.passes_all(self.states[k])]  # fmt: skip
            kept = self._reserving_of = (self.states, rows)
        return kept[1]

    def reserve_point(self) -> list[tuple[tuple[Any, ...], tuple[Any, ...]]]:
        """Copies of what the Reserve plugins' ``assume`` changes (``own_state``), which
        their ``remove`` does not undo (a deleted pod's volumes stay bound): for
        :meth:`restore_reserved`."""
        states, plugins = self.states, self.plugins
        return [(states[k], plugins[k].own_state(states[k])) for k in self._reserving()]

    @staticmethod
    def restore_reserved(point: list[tuple[tuple[Any, ...], tuple[Any, ...]]]) -> None:
        """Put back in place what :meth:`reserve_point` copied."""
        for live, kept in point:
            for now, was in zip(live, kept, strict=True):
                if now is not was:
                    now[...] = was

    def volume_bindings(self, pods: np.ndarray, hosts: np.ndarray, names: list[str]
                        ) -> dict[int, list[dict[str, Any]]]:  # fmt: skip
        """What Reserve decided for batch pods ``pods`` bound to ``hosts`` (VolumeBinding's
        ``PodVolumes``; ``names``: the nodes'): position in ``pods`` → its
        ``volumeBindings`` objects, for the pods with a decision."""
        out: dict[int, list[dict[str, Any]]] = {}
        if self.decided:
            for k, pod in enumerate(pods.tolist()):
                if pod in self.decided:
                    out[k] = self.decided[pod]
        for row in self._reserving():
            plugin, s = self.plugins[row], self.states[row]
            if getattr(plugin, "reserved", None) is None or not len(pods):
                continue
            for k in np.flatnonzero(plugin.reserved_pods(s, pods)).tolist():
                if int(pods[k]) in self.decided:
                    continue
                decided = plugin.reserved(s, self.batch, int(pods[k]))
                out[k] = volume_binding_entries(decided, names[int(hosts[k])])
        return out

    def volume_bindings_of(self, pod: int, node: str) -> list[dict[str, Any]] | None:
        """:meth:`volume_bindings` of batch pod ``pod`` bound to the node named ``node``
        (None: no decision)."""
        if pod in self.decided:
            return self.decided[pod]
        for row in self._reserving():
            plugin, s = self.plugins[row], self.states[row]
            decided = plugin.reserved(s, self.batch, pod) if hasattr(plugin, "reserved") else []
            if decided:
                return volume_binding_entries(decided, node)
        return None

    # -- bindings that complete (VolumeBinding's PreBind, the volume controllers) --------

    def _completing(self) -> np.ndarray | None:
        """bool[B]: the pods whose Reserve may bind claims (a plugin's
        ``binds_claims``); None: none."""
        out = None
        for k in self._reserving():
            binds = getattr(self.plugins[k], "binds_claims", None)
            if binds is not None:
                mine = binds(self.states[k])
                out = mine if out is None else out | mine
        return out if out is not None and out.any() else None

    def complete_bindings(self, pod: int) -> None:
        """Batch pod ``pod`` was just scheduled: if bound, the bindings its Reserve made
        complete (the plugin's ``completed_storage``: claims bound, volumes provisioned,
        :attr:`storage`); the plugins that read the storage objects are prepared again
        for them when a pod not bound reads a claim it bound, or when the bound pods'
        views change (else what Reserve assumed holds what the next cycles read)."""
        host = int(self.bound[pod])
        if host < 0:
            return
        for k in self._reserving():
            complete = getattr(self.plugins[k], "completed_storage", None)
            found = (
                None
                if complete is None
                else complete(self.states[k], self.snapshot, self.batch, pod, host, self.storage)
            )
            if found is None:
                continue
            self.decided[pod] = found.entries
            self.storage = found.storage
            if found.bound_views or (self.bound[found.readers] < 0).any():
                # (what the snapshot's cache holds is of its nodes and pods: kept)
                self.restorage(dataclasses.replace(self.snapshot, storage=found.storage,
                                                   cache=dict(self.snapshot.cache)))  # fmt: skip
            return

    def restorage(self, snapshot: ClusterSnapshot) -> None:
        """Run on ``snapshot`` (this run's, its storage objects changed): the plugins that
        read them (``reads_storage``) prepared again, the pods bound so far added to them
        (``AddPod``), the filters chosen again, the verdicts kept across cycles dropped."""
        self.snapshot, self.storage = snapshot, snapshot.storage
        states = list(self.states)
        again = [k for k, p in enumerate(self.plugins) if p.reads_storage]
        for k in again:
            plugin = self.plugins[k]
            made = plugin.prepare(snapshot, self.batch)
            states[k] = plugin.own_state(made) if _binds(plugin) else made
        self.adopt_states(states)
        self.choose_filters()
        self.cache = self.empty_cache()
        self.kinds = cached_scoring.kinds(self.score_plugins, self.score_states, len(self.batch))
        self._remove, self.last = None, None  # (verdicts of the former filters)
        pods = np.flatnonzero(self.bound >= 0).astype(np.int64)
        aids = np.array([a for a in self.add_ids.tolist() if a in again], np.int64)
        if len(pods) and len(aids):
            nodes = self.bound[pods].astype(np.int64)
            self.kernels.assume_pods(aids, self.table, self.cache, pods, nodes)
        self.completing = self._completing()

    def empty_cache(self) -> tuple[np.ndarray, ...]:
        """A cycle cache holding nothing yet (its rows take memory as cycles fill them)."""
        n_groups = int(self.groups.max(initial=-1)) + 1
        return cycle_cache.new_cache(n_groups, self.n_nodes, len(self.sids))

    def many(self, pods: np.ndarray, rows: np.ndarray, tie: int, seed: int, rng: np.ndarray,
             result: ScoreResult, commit: bool,
             progress: Callable[[int], None] | None = None,
             ops: np.ndarray | None = None) -> None:  # fmt: skip
        """:meth:`chunk` over ``pods`` (batch positions; the scheduled ones recorded at
        ``rows`` of ``result``, in order), a chunk of pods × nodes at a time; ``ops``: see
        :meth:`chunk`. With ``commit``, the run stops after each pod whose Reserve may bind
        claims (:attr:`completing`) and completes its bindings before the next."""
        if ops is None:
            ops = np.zeros(len(pods), dtype=np.int8)
        first = np.zeros(len(pods) + 1, dtype=np.int64)  # rows of the scheduled pods
        np.cumsum(ops == self.kernels.OP_SCHEDULE, out=first[1:])
        ends: list[int] = []
        if commit and self.completing is not None:
            stops = self.completing[pods] & (ops == self.kernels.OP_SCHEDULE)
            ends = np.flatnonzero(stops).tolist()
        lo, stops = 0, set(ends)
        for end in [*ends, len(pods) - 1]:
            if end < lo:
                continue
            self._many(pods[lo : end + 1], rows[first[lo] : first[end + 1]], tie, seed, rng,
                       result, commit, progress, ops[lo : end + 1])  # fmt: skip
            if end in stops:
                self.complete_bindings(int(pods[end]))
            lo = end + 1

    def _many(self, pods: np.ndarray, rows: np.ndarray, tie: int, seed: int, rng: np.ndarray,
              result: ScoreResult, commit: bool, progress: Callable[[int], None] | None,
              ops: np.ndarray) -> None:  # fmt: skip
        """:meth:`many` between two completions."""
        size = max(1, CHUNK_ENTRIES // max(self.n_nodes, self.num_to_find, 1))
        first = np.zeros(len(pods) + 1, dtype=np.int64)  # rows of the scheduled pods
        np.cumsum(ops == self.kernels.OP_SCHEDULE, out=first[1:])
        for lo in range(0, len(pods), size):
            hi = min(lo + size, len(pods))
            self.chunk(pods[lo:hi], tie, seed, rng, result, rows[first[lo] : first[hi]], commit,
                       ops[lo:hi])  # fmt: skip
            if progress is not None:
                progress(len(pods[lo:hi]))

    def chunk(self, pods: np.ndarray, tie: int, seed: int, rng: np.ndarray,
              result: ScoreResult, rows: np.ndarray, commit: bool,
              ops: np.ndarray) -> None:  # fmt: skip
        """Schedule (and, with ``commit``, assume) the chunk's pods in order; record the
        scheduled ones in ``result`` at ``rows``. ``ops[i]`` ``OP_DELETE``: pod ``pods[i]``
        is deleted instead (no row)."""
        filters = len(self.fids) > 0
        out = _Out(len(pods), len(self.sids), max(self.num_to_find, 1), self.n_nodes,
                   self.explain and filters, filters, result.keep != 0)  # fmt: skip
        bad = np.array([p in self.prescore_errors for p in pods.tolist()], dtype=np.bool_)
        self._kernel(pods, ops, self.nominations(pods), bad, tie, seed, rng, result.keep != 0,
                     commit, out)  # fmt: skip
        self.record_chunk(out, pods, ops, rows, result)
        self.last, self.last_pod = out, int(pods[-1]) if len(pods) else -1

    def last_verdicts(self, pod: int) -> np.ndarray | None:
        """The verdict on every node of batch pod ``pod`` in the last cycle of the last
        :meth:`chunk` or :meth:`step`, if that cycle was ``pod``'s and it fit no node
        (None otherwise)."""
        out = self.last
        if out is None or self.last_pod != pod or not len(out.fail_rows):
            return None
        at = int(out.fail_row[len(out.fail_row) - 1])
        return out.fail_rows[at] if at >= 0 else None

    def _kernel(self, pods: np.ndarray, ops: np.ndarray, nominated: np.ndarray,
                bad: np.ndarray, tie: int, seed: int, rng: np.ndarray, keep: bool,
                commit: bool, out: _Out) -> None:  # fmt: skip
        """The compiled loop over ``pods`` (``bad``: PreScore fails), into ``out``."""
        args = self.chunk_args(pods, ops, nominated, bad, tie, seed, rng, keep, commit, out)
        self.start = self.kernels.simulate_chunk(*args)

    def chunk_args(self, pods: np.ndarray, ops: np.ndarray, nominated: np.ndarray,
                   bad: np.ndarray, tie: int, seed: int, rng: np.ndarray, keep: bool,
                   commit: bool, out: _Out) -> tuple[Any, ...]:  # fmt: skip
        """:func:`.sequential.simulate_chunk`'s arguments, in its order."""
        return (
            self.fids, self.sids, self.weights, self.kinds, self.const_ok, self.aids, self.table,
            self.cache, self.groups, pods, ops, self.bound, nominated, pods, bad, self.start,
            self.num_to_find, self.n_nodes, tie, np.uint64(seed % 2**64), rng, self.explain,
            keep, commit, *out.arrays(), self.override,
        )  # fmt: skip

    def step(self, pod: int, tie: int, seed: int, rng: np.ndarray, commit: bool) -> int:
        """One cycle of batch pod ``pod`` (assumed on its host if ``commit``), no scores
        kept and no rejections recorded, on buffers kept from step to step (what a
        simulator calling pod by pod pays): the host, or -1. Its results stay in
        :attr:`one` until the next step (:meth:`record_one` records them)."""
        call = self.step_call(tie, seed, rng, commit)
        one = self.one
        assert one is not None
        one.pods[0] = pod
        one.nominated[0] = self.nomination(pod)
        one.bad[0] = pod in self.prescore_errors
        self.start = call(self.start, tie, seed % 2**64, commit)
        self.last, self.last_pod = one, pod
        host = int(one.hosts[0])
        if commit and host >= 0 and self.completing is not None and self.completing[pod]:
            self.complete_bindings(pod)
        return host

    def step_call(self, tie: int, seed: int, rng: np.ndarray, commit: bool = True
                  ) -> _native.PackedCall:  # fmt: skip
        """:meth:`step`'s packed call of :func:`.sequential.simulate_chunk` on the buffers
        of :attr:`one` (its pod, nomination and PreScore flag in ``one.pods``,
        ``one.nominated``, ``one.bad``; its scalars ``start``, ``tie``, ``seed``,
        ``commit`` given at each call), packed again if an array it reads was replaced."""
        one = self.one
        if one is None:
            one = self.one = _Out(1, len(self.sids), max(self.num_to_find, 1), self.n_nodes,
                                  False, keep=False)  # fmt: skip
        call = one.call
        if call is None or not call.current(self.table, self.cache, self.bound, rng,
                                            self.override):  # fmt: skip
            # (packed once: a step from Python then passes one integer, not 39 arguments)
            args = self.chunk_args(one.pods, one.ops, one.nominated, one.bad, tie, seed, rng,
                                   False, commit, one)  # fmt: skip
            call = one.call = _native.PackedCall(
                sequential.simulate_packed, args, sequential.CHUNK_ARGS, _STEP_SCALARS,
                (self.table, self.cache, self.bound, rng, self.override),
                (sequential.simulate_chunk_address(),))  # fmt: skip
        return call

    def remove(self, pod: int, node: int) -> None:
        """Delete batch pod ``pod``, bound to ``node``, from every plugin's state (through
        its arguments packed once, as a step's)."""
        call = self._remove
        if call is None or not call.current(self.aids, self.table, self.cache):
            args = (self.aids, self.table, self.cache, pod, node)
            call = self._remove = _native.PackedCall(
                sequential.remove_packed, args, sequential.REMOVE_ARGS, _REMOVE_SCALARS,
                (self.aids, self.table, self.cache))  # fmt: skip
        call(pod, node)

    def fit_failure(self) -> tuple[str, frozenset[str] | None]:
        """After a :meth:`step` whose pod fit no node: its ``FitError`` message and the
        filter plugins that rejected a node (``Diagnosis.UnschedulablePlugins``: each
        node's first failing plugin; every node was examined); or a filter's ``Error``
        and None."""
        one = self.one
        assert one is not None
        row = one.fail_rows[one.fail_row[0]]
        if error_node(int(one.failed[0])) is not None:  # (not a FitError: no PostFilter)
            return self.search_error(row, int(one.failed[0])), None
        verdicts, counts = np.unique(row, return_counts=True)
        kinds = verdicts.tolist()
        slots = {unpack(v)[0] for v in kinds}
        names = frozenset(self.filter_slots[s].name for s in slots)
        return self.fit_error_of(kinds, counts.tolist()), names

    def record_one(self, result: ScoreResult, row: int = 0) -> None:
        """Record the last :meth:`step` as row ``row`` of ``result`` (which keeps no scores):
        what :meth:`record_chunk` records of it, without the chunk's arrays."""
        one = self.one
        assert one is not None and result.keep == 0 and not self.explain
        feasible, failed, host = int(one.ptr[1] - one.ptr[0]), int(one.failed[0]), int(one.hosts[0])
        result.feasible[row], result.evaluated[row] = feasible, feasible + failed
        if host >= 0:
            result.hosts[row] = host
            return
        if feasible == 0:
            error = self.search_error(one.fail_rows[one.fail_row[0]], failed)
        elif one.bad_plugin[0] >= 0:
            error = self.invalid_score(int(one.bad_plugin[0]), int(one.bad_value[0]))
        else:
            error = self.prescore_errors.get(int(one.pods[0]))
        self.record_failure(result, row, error)

    def record_chunk(self, out: _Out, pods: np.ndarray, ops: np.ndarray, rows: np.ndarray,
                     result: ScoreResult) -> None:  # fmt: skip
        """Record the chunk ``out`` holds (of ``pods``, ``ops``) at ``rows`` of ``result``."""
        errors = [self.prescore_errors.get(p) for p in pods.tolist()]
        ptr, rej_ptr = out.ptr, out.rej_ptr
        hosts, failed, fail_row = out.hosts, out.failed, out.fail_row
        bad_plugin, bad_value = out.bad_plugin, out.bad_value
        cycles = ops == self.kernels.OP_SCHEDULE
        if not cycles.all():  # the deletions' entries hold no node: drop them
            ptr, rej_ptr = _keep_entries(ptr, cycles), _keep_entries(rej_ptr, cycles)
            hosts, failed, fail_row = hosts[cycles], failed[cycles], fail_row[cycles]
            bad_plugin, bad_value = bad_plugin[cycles], bad_value[cycles]
            errors = [e for e, keep_it in zip(errors, cycles.tolist(), strict=True) if keep_it]
        found = _Searched(ptr, out.nodes, failed, rej_ptr, out.rej_node, out.rej_code, fail_row,
                          out.fail_rows)  # fmt: skip
        self._record(rows, found, hosts, bad_plugin, bad_value, errors, out.raw, out.norm_u8,
                     out.total, result)  # fmt: skip

    def _record(self, pods: np.ndarray, found: _Searched, hosts: np.ndarray,
                bad_plugin: np.ndarray, bad_value: np.ndarray, prescore: list[str | None],
                raw: np.ndarray, norm_u8: np.ndarray, total: np.ndarray,
                result: ScoreResult) -> None:  # fmt: skip
        """Record the chunk in ``result``, whose rows are ``pods`` (``prescore``: each chunk
        pod's PreScore error, if any)."""
        counts = self.record_search(pods, found, result)
        scored = counts >= 2
        for i in np.flatnonzero(hosts < 0).tolist():
            scored[i] = False
            if counts[i] == 0:
                error = self._fit_error(found, i)
            elif bad_plugin[i] >= 0:
                error = self.invalid_score(int(bad_plugin[i]), int(bad_value[i]))
            else:
                error = prescore[i]
            self.record_failure(result, int(pods[i]), error)
        placed = hosts >= 0
        result.hosts[pods[placed]] = hosts[placed]
        if not scored.any() or result.keep == 0:
            return
        entries = np.repeat(scored, counts)
        n = int(entries.sum())
        lengths = counts[scored]
        ptr = np.zeros(len(lengths) + 1, np.int64)
        np.cumsum(lengths, out=ptr[1:])
        nodes = found.nodes[: found.ptr[-1]][entries]
        sub = Chunk(pods[scored], ptr, nodes)
        if result.keep is None:
            where = result.free_slice(n)
            result.raw[:, where] = raw[:, : found.ptr[-1]][:, entries]
            result.normalized[:, where] = norm_u8[:, : found.ptr[-1]][:, entries]
        self._keep(sub, raw[:, : found.ptr[-1]][:, entries],
                   norm_u8[:, : found.ptr[-1]][:, entries], total[: found.ptr[-1]][entries],
                   result)  # fmt: skip


def incremental(plugin: Any) -> bool:
    """The plugin (or its class) follows binds and deletions: it has ``assume``/``remove``
    kernels, or binding a pod changes nothing it reads."""
    return plugin.bind_independent or _binds(plugin)


def _binds(plugin: Any) -> bool:
    """The plugin's state changes when pods are bound and deleted."""
    return getattr(plugin.kernels, "assume", None) is not None


def _keep_entries(ptr: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """A CSR pointer array without the rows ``~keep``, which must be empty."""
    return np.concatenate((ptr[:1], ptr[1:][keep]))


def _positions(kernel: Any, names: tuple[str, ...]) -> tuple[int, ...]:
    """The positions of the parameters ``names`` among ``kernel``'s."""
    code = kernel.py_func.__code__
    params = code.co_varnames[: code.co_argcount]
    return tuple(params.index(name) for name in names)


#: the scalars a step rewrites in simulate_chunk's packed arguments, and a deletion in
#: remove_pod's
_STEP_SCALARS = _positions(sequential.simulate_chunk, ("start", "tie", "seed", "commit"))
_REMOVE_SCALARS = _positions(sequential.remove_pod, ("pod", "node"))


class _Out:
    """What the sequential kernel fills for a chunk of ``c`` pods (see
    :func:`.sequential.simulate_chunk`), and the chunk's per-pod inputs when it is one
    step's (``pods``, ``ops``, ``nominated``, ``bad``)."""

    def __init__(self, c: int, k: int, cap: int, n_nodes: int, rejections: bool,
                 filters: bool = True, keep: bool = True) -> None:  # fmt: skip
        self.hosts = np.empty(c, np.int64)
        self.feasible, self.failed = np.empty(c, np.int64), np.empty(c, np.int64)
        self.bad_plugin, self.bad_value = np.empty(c, np.int64), np.empty(c, np.int64)
        self.ptr = np.zeros(c + 1, np.int64)
        # (the entries of every pod, kept; else one pod's, scratch: see simulate_chunk)
        entries = c * cap if keep else cap
        self.nodes = np.empty(entries, np.int32)
        self.raw, self.norm_u8 = np.empty((k, entries), np.int64), np.empty((k, entries), np.uint8)
        self.total = np.empty(entries, np.int64)
        room = c * n_nodes if rejections else 0
        self.rej_ptr = np.zeros(c + 1, np.int64)
        self.rej_node, self.rej_code = np.empty(room, np.int32), np.empty(room, np.int64)
        self.fail_row = np.empty(c, np.int64)
        self.fail_rows = np.empty((c if filters else 0, n_nodes), np.int64)
        self.pods, self.ops = np.zeros(1, np.int64), np.zeros(1, np.int8)
        self.nominated, self.bad = np.zeros(1, np.int32), np.zeros(1, np.bool_)
        #: a step's packed call on these buffers (:meth:`_Sequence.step`), made at the first
        self.call: _native.PackedCall | None = None

    def counts(self, i: int = 0) -> tuple[int, int]:
        """Pod ``i``'s feasible and evaluated nodes as the search found them (a pod that
        fits nowhere is recorded with none: see :meth:`_Sequence._record`)."""
        feasible = int(self.ptr[i + 1] - self.ptr[i])
        return feasible, feasible + int(self.failed[i])

    def arrays(self) -> tuple[np.ndarray, ...]:
        """The kernel's output arguments, in its order."""
        return (self.hosts, self.feasible, self.failed, self.bad_plugin, self.bad_value,
                self.ptr, self.nodes, self.raw, self.norm_u8, self.total, self.rej_ptr,
                self.rej_node, self.rej_code, self.fail_row, self.fail_rows)  # fmt: skip


def begin_sequential(fw: Framework, snapshot: ClusterSnapshot, batch: PodBatch,
                     scores: ScoresMode, explain: bool, refused: Mapping[int, str] | None
                     ) -> tuple[ScoreResult, np.ndarray, int]:  # fmt: skip
    """``Framework.begin`` for a sequential run: its result (room reserved for every pod's
    kept scores), the pods to skip, ``numFeasibleNodesToFind`` (0: no nodes, finished)."""
    result, skip, num_to_find = fw.begin(snapshot, batch, scores, explain, refused)
    result.mode = "simulate"
    if num_to_find:
        per_pod = num_to_find if result.keep is None else min(result.keep, num_to_find)
        result.reserve(len(batch) * per_pod)
    return result, skip, num_to_find


def simulate(
    fw: Framework,
    snapshot: ClusterSnapshot,
    batch: PodBatch,
    *,
    seed: int = 0,
    tie_break: str = "uniform",
    scores: ScoresMode = "all",
    explain: bool = False,
    progress: Callable[[int], None] | None = None,
    refused: Mapping[int, str] | None = None,
) -> ScoreResult:
    """Schedule the pods of ``batch`` in order, each assumed on its host before the next
    (the snapshot itself is never modified: the plugins' states are copies)."""
    tie_break_code(tie_break)
    result, skip, num_to_find = begin_sequential(fw, snapshot, batch, scores, explain, refused)
    if num_to_find == 0:
        return result
    run = _Sequence(fw, snapshot, batch, num_to_find, explain)
    tie, rng = random_source(tie_break, seed)
    pods = np.flatnonzero(~skip).astype(np.int64)
    run.many(pods, pods, tie, seed, rng, result, True, progress)
    record_volume_bindings(run, pods, pods, result)
    if progress is not None and skip.any():  # the refused pods take no cycle
        progress(int(skip.sum()))
    result.finish()
    return result


def record_volume_bindings(run: _Sequence, pods: np.ndarray, rows: np.ndarray,
                           result: ScoreResult) -> None:  # fmt: skip
    """Record in ``result`` what Reserve decided for the batch pods ``pods`` of ``run``
    that ``result`` holds bound at ``rows``."""
    placed = result.hosts[rows] >= 0
    pods, rows = pods[placed], rows[placed]
    found = run.volume_bindings(pods, result.hosts[rows], result.node_names)
    for k, entries in found.items():
        result.volume_bindings[int(rows[k])] = entries
