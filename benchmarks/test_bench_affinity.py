"""pytest-benchmark: PodTopologySpread and InterPodAffinity through the default profile.

Run for numbers with ``pytest benchmarks/test_bench_affinity.py --benchmark-enable -n 0``; in the
default test run they execute once as smoke tests. The clusters are
``compare_affinity.py --quick``'s (``benchmarks/affinity_shapes.py``): scheduler_perf's
TopologySpreading, SchedulingPodAffinity, SchedulingPreferredPodAffinity and
SchedulingPodAntiAffinity 500Nodes workloads with 50 pending pods, and openb's 1,523 nodes
with made-up topology (200 pending, 600 bound; skipped when the trace is not at
``../shared/data/openb``), v1.23.6's default profile at adaptive percentageOfNodesToScore.

* ``kscore``: the batch through the framework, preparation included (µs per pod in
  ``extra_info``); compile time excluded (one run before timing).
* ``go``: ``goref schedbench`` on the same files, Go's own per-pod time in ``extra_info``
  (the benchmark's time includes goref's process and loading); **skipped when
  benchmarks/goref/bin/goref is not built**.
* ``hosts``: kscore equals ``goref score`` on the first 20 pending pods (counts, errors,
  every score; host among Go's top nodes); skipped without goref.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from .affinity_shapes import WORKLOADS
from .compare_affinity import build_clusters, verify, write_config
from .compare_profile import GOREF, OPENB, go_us_per_pod, kscore_batch
from .datasets import openb_missing

CLUSTERS = [*WORKLOADS, "openb"]
needs_goref = pytest.mark.skipif(
    not GOREF.exists(), reason=f"Go side skipped: goref is not built ({GOREF}); "
    "run benchmarks/goref/build.sh"
)  # fmt: skip


@pytest.fixture(scope="module")
def clusters():
    with tempfile.TemporaryDirectory(prefix="kscore-affinity-") as tmp:
        work = Path(tmp)
        yield work, build_clusters(work, "quick", 0, OPENB)


def _cluster(clusters, name):
    work, built = clusters
    if name not in built:
        pytest.skip(openb_missing())
    return work, built[name]


@pytest.mark.benchmark(group="affinity-kscore")
@pytest.mark.parametrize("name", CLUSTERS)
def test_kscore_affinity(benchmark, clusters, name):
    work, cluster = _cluster(clusters, name)
    run, n = kscore_batch(cluster, write_config(work, 0))
    result = benchmark(run)
    assert len(result) == n
    stats = getattr(benchmark, "stats", None)
    if stats is not None:
        benchmark.extra_info["us_per_pod"] = stats.stats.min / n * 1e6


@pytest.mark.goref
@needs_goref
@pytest.mark.benchmark(group="affinity-go")
@pytest.mark.parametrize("name", CLUSTERS)
def test_go_affinity(benchmark, clusters, name):
    work, cluster = _cluster(clusters, name)
    config = write_config(work, 0)
    us = benchmark.pedantic(go_us_per_pod, args=(cluster, config), rounds=1, iterations=1)
    assert us > 0
    benchmark.extra_info["go_us_per_pod"] = us


@pytest.mark.goref
@needs_goref
@pytest.mark.parametrize("name", CLUSTERS)
def test_hosts_equal_goref(clusters, name):
    work, cluster = _cluster(clusters, name)
    check = verify(cluster, write_config(work, 0), 0, 20, work)
    assert check["pods"] == 20
    assert not check["diffs"], check["diffs"]
