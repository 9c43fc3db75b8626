"""``simulate --preemption`` run again on the same loaded cluster: the dry runs' cluster
(its bound pods pending again) and the plugins' preparations of it are kept on the batch
and reused, and each run starts from the input as it is (nominations included)."""

from __future__ import annotations

import pytest

from kscore_fast import api
from kscore_fast.preemption.dryrun import DryRuns
from kscore_fast.profile import framework_for_profile

from ..scenarios_preemption import preemption_scenario
from .test_reference import _write


def _results(cluster: api.Cluster, seed: int, retry: bool) -> list[dict]:
    return api.simulate(cluster, seed=seed, scores="none", tie_break="go-rand",
                        preemption=True, retry_nominated=retry).to_dict()["results"]  # fmt: skip


@pytest.mark.parametrize("seed", range(6))
def test_runs_again_on_one_cluster_equal_runs_on_fresh_ones(tmp_path, seed):
    path = _write(tmp_path, preemption_scenario(7_100_000 + seed, max_nodes=5, max_pending=10))
    kept = api.load_cluster([path])
    for retry in (False, True, False):  # (a run without retry leaves pods nominated)
        fresh = _results(api.load_cluster([path]), seed, retry)
        assert _results(kept, seed, retry) == fresh, (seed, retry)


def test_the_dry_runs_cluster_is_built_once_and_each_run_nominates_in_its_own_batch(tmp_path):
    path = _write(tmp_path, preemption_scenario(7_200_000, max_nodes=5, max_pending=10))
    cluster = api.load_cluster([path])
    fw = framework_for_profile(api._default_config().profiles[0], 0).framework
    one, two = DryRuns(fw, cluster), DryRuns(fw, cluster)
    assert one.seq.snapshot is two.seq.snapshot  # (the plugins' preparations shared)
    assert one.seq.batch.cache is two.seq.batch.cache
    assert one.seq.batch.nominated is not two.seq.batch.nominated
    one.seq.batch.nominated[:] = 0
    assert (DryRuns(fw, cluster).seq.batch.nominated == two.seq.batch.nominated).all()
