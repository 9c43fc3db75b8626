"""pytest-benchmark: the compiled driver's per-pod overhead, and the default profile on openb.

Run for numbers with ``pytest benchmarks --benchmark-enable -n 0``; in the default test run they
execute once as smoke tests. Compile time is excluded (each case runs once before timing).
``benchmarks/compare_profile.py`` puts the openb numbers next to Go's, in the same run.

* ``driver``: 10,000 pending pods, all different (no twins), on 2 nodes, through a profile
  of the cheapest kernels (NodeName filter, VolumeBinding score): what one pod costs the
  driver itself, search and scoring, beyond any plugin's work (µs per pod in
  ``extra_info``); and the same for a lone pod, with the Python around it.
* ``openb``: openb's 1,523 nodes and its first 1,000 pending pods (imported from
  ``../shared/data/openb`` when present, else skipped), the default profile without
  PodTopologySpread and InterPodAffinity, at ``percentageOfNodesToScore`` 100 and 0.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from kscore_fast import retain_freed_memory
from kscore_fast.framework.runtime import Framework, WeightedPlugin
from kscore_fast.model.objects import NodeRecord, PodRecord
from kscore_fast.model.snapshot import build_cluster
from kscore_fast.plugins.registry import new_plugin

from .datasets import OPENB, openb_missing


def _per_pod(benchmark, pods):
    stats = getattr(benchmark, "stats", None)
    if stats is not None:
        benchmark.extra_info["us_per_pod"] = stats.stats.min / pods * 1e6


def _trivial_framework() -> Framework:
    return Framework([WeightedPlugin(new_plugin("VolumeBinding"), 1)], 100,
                     [new_plugin("NodeName")])  # fmt: skip


@pytest.mark.benchmark(group="driver")
@pytest.mark.parametrize("pods", [1, 10_000])
def test_driver_overhead_per_pod(benchmark, pods):
    retain_freed_memory()
    nodes = [NodeRecord("n0"), NodeRecord("n1")]
    pending = [PodRecord("default", f"p{i}", labels={"i": str(i)}) for i in range(pods)]
    c = build_cluster(nodes, pending)
    fw = _trivial_framework()

    def run():
        c.batch.cache.clear()
        return fw.run(c.snapshot, c.batch, scores="none")

    run()
    result = benchmark(run)
    assert (result.hosts >= 0).all()
    _per_pod(benchmark, pods)


@pytest.fixture(scope="module")
def openb_cluster():
    if openb_missing():
        pytest.skip(openb_missing())
    from .compare_profile import openb_cluster as imported

    with tempfile.TemporaryDirectory() as tmp:
        yield imported(OPENB, 1000, Path(tmp))


@pytest.mark.benchmark(group="openb-default-profile")
@pytest.mark.parametrize("percentage", [100, 0])
def test_openb_default_profile(benchmark, openb_cluster, percentage, tmp_path):
    from .compare_profile import CONFIG, kscore_batch

    config = tmp_path / "config.yaml"
    config.write_text(CONFIG.format(pct=percentage))
    run, n = kscore_batch(openb_cluster, config)
    result = benchmark(run)
    assert len(result) == n == 1000
    _per_pod(benchmark, n)
