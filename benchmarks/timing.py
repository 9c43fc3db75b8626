"""Timing helpers shared by the benchmark suite and the side-by-side comparison."""

from __future__ import annotations

import time
from collections.abc import Callable

from kscore_fast import retain_freed_memory
from kscore_fast.framework.runtime import Framework
from kscore_fast.model.snapshot import Cluster
from kscore_fast.profile import build_framework


def scorer(cluster: Cluster, scores: str = "all") -> tuple[Callable[[], object], Framework]:
    """A function scoring the cluster's whole batch on every node, as Go's benchmark does.

    The batch's per-plugin preparation (PreScore: every pod's DefaultSelector) is
    discarded before each call, so it is timed like Go's PreScore; the snapshot's own
    preparation (signatures, compiled selectors) is kept, like Go's snapshot and informers,
    which its benchmark builds before the timer.
    """
    retain_freed_memory()  # reuse result memory across calls, as Go's heap does
    fw = build_framework("SelectorSpread", percentage_of_nodes_to_score=100)

    def run() -> object:
        cluster.batch.cache.clear()  # (plugin state only: names are built with the batch)
        return fw.run(cluster.snapshot, cluster.batch, scores=scores)

    run()  # compile (or load the cache) and prepare the snapshot
    return run, fw


def best_of(fn: Callable[[], object], repeat: int, number: int = 1) -> float:
    """Best wall time of ``number`` calls, over ``repeat`` rounds, in seconds per call."""
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        best = min(best, (time.perf_counter() - t0) / number)
    return best


def timing_free(go_results: list[dict]) -> int:
    """How many of goref's sequential results (in scheduling order) timing cannot change.

    genericScheduler.Schedule ends with utiltrace's ``LogIfLong(100ms)``: a cycle that took
    100 ms or more logs its trace, and logging it draws ``rand.Int31()`` from the global
    source that selectHost's tie-breaks draw from. goref marks such a cycle's result with
    ``traceDraws``; its own host was drawn before, every later tie-break after the extra
    draw. So a seeded run of the real scheduler is reproducible only up to its first slow
    cycle, and only that prefix can be compared.
    """
    for i, r in enumerate(go_results):
        if r.get("traceDraws"):
            return i + 1
    return len(go_results)
