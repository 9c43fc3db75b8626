"""pytest-benchmark: SelectorSpread on the shapes of Go's BenchmarkTestSelectorSpreadPriority.

Run for numbers with ``pytest benchmarks --benchmark-enable -n 0``; in the default test run they
execute once as smoke tests. Compile time is excluded (``scorer`` warms up first); every
node is scored (percentageOfNodesToScore 100), as in Go's benchmark.
``benchmarks/compare_go.py`` puts the same numbers next to Go's, measured in the same run.
"""

from __future__ import annotations

import pytest

from .shapes import SHAPES, go_shape
from .timing import scorer

BATCH = 1000


@pytest.fixture(scope="module", params=list(SHAPES))
def shape(request):
    return request.param


def _per_pod(benchmark, pods):
    stats = getattr(benchmark, "stats", None)
    if stats is not None:
        benchmark.extra_info["us_per_pod"] = stats.stats.min / pods * 1e6


@pytest.mark.benchmark(group="selectorspread-batch")
@pytest.mark.parametrize("scores", ["all", "none"])
@pytest.mark.parametrize("selectors", ["shared-service", "distinct"])
def test_batch_of_1000_pending_pods(benchmark, shape, scores, selectors):
    """1,000 pending pods with distinct label sets, scored together."""
    nodes, existing = SHAPES[shape]
    cluster = go_shape(nodes, existing, BATCH, distinct_selectors=selectors == "distinct")
    run, _ = scorer(cluster, scores)
    result = benchmark(run)
    assert len(result) == BATCH
    _per_pod(benchmark, BATCH)


@pytest.mark.benchmark(group="selectorspread-lone-pod")
def test_lone_pod(benchmark, shape):
    nodes, existing = SHAPES[shape]
    run, _ = scorer(go_shape(nodes, existing, 1))
    result = benchmark(run)
    assert result.feasible[0] == nodes
    _per_pod(benchmark, 1)


@pytest.mark.benchmark(group="snapshot")
def test_snapshot_preparation(benchmark, shape):
    """Building and preparing the snapshot (untimed in Go's benchmark: shown for scale)."""
    from kscore_fast.plugins.selectorspread.plugin import prepare

    nodes, existing = SHAPES[shape]

    def build():
        cluster = go_shape(nodes, existing, 1)
        prepare(cluster.snapshot)
        return cluster

    assert benchmark(build).snapshot.n_nodes == nodes
