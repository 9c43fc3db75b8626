"""The reference port and the kernels == the real PodTopologySpread of kube-scheduler
v1.23.6, on the seeded random clusters of ``test_kernels`` (filter codes of every pod on
every node; raw and normalized scores on a random node list per pod).

``check_test.go.txt`` runs upstream's own plugin (PreFilter, Filter, PreScore, Score,
NormalizeScore through ``plugintesting.SetupPluginWithInformers``, as its unit tests do)
in a temporary copy of the package (``gomodule``); skipped without a Go toolchain and the
module cache. 200 clusters here, 2,000 more with ``-m slow``.
"""

from __future__ import annotations

import json
import subprocess

import numpy as np
import pytest

from kscore_fast.model.snapshot import build_cluster
from kscore_fast.plugins.podtopologyspread import PodTopologySpread, kernels
from kscore_fast.plugins.podtopologyspread.reference import PodTopologySpreadReference

from ..harness import filter_codes, score_lists
from .gomodule import go_env, make_module, package_dir
from .support import HERE, go_scenario, random_cluster

pytestmark = pytest.mark.skipif(package_dir() is None, reason="no Go toolchain or module cache")

#: Go's framework code → the kernels' filter code
KERNEL_CODE = {0: 0, 2: kernels.FAIL_SKEW, 3: kernels.FAIL_LABEL}


@pytest.fixture(scope="module")
def go_binary(tmp_path_factory):
    """The compiled test binary of the package copy with check_test.go."""
    work = tmp_path_factory.mktemp("ptsgo")
    make_module(work, tests=False, extra={"check_test.go": HERE / "check_test.go.txt"})
    binary = work / "pts.test"
    subprocess.run(["go", "test", "-c", "-o", str(binary), "."], cwd=work, env=go_env(),
                   check=True, capture_output=True)  # fmt: skip
    return binary


def _compare(go_binary, tmp_path, seeds):
    cases, scenarios = [], []
    for seed in seeds:
        nodes, existing, pending, (services, controllers, args) = random_cluster(seed)
        c = build_cluster(nodes, [*existing, *pending], services, controllers)
        rng = np.random.default_rng(seed)
        n = c.snapshot.n_nodes
        lists = [rng.permutation(n)[: rng.integers(1, n + 1)].tolist() for _ in pending]
        cases.append((seed, c, args, lists))
        scenarios.append(go_scenario(c, services, controllers, args, lists))
    (tmp_path / "in.json").write_text(json.dumps(scenarios))
    env = go_env(PTS_IN=str(tmp_path / "in.json"), PTS_OUT=str(tmp_path / "out.json"))
    subprocess.run([str(go_binary), "-test.run", "TestKscoreScenarios$"], env=env, check=True,
                   capture_output=True, cwd=tmp_path)  # fmt: skip
    results = json.loads((tmp_path / "out.json").read_text())
    for (seed, c, args, lists), got in zip(cases, results, strict=True):
        ref = PodTopologySpreadReference(args)
        state = PodTopologySpread(args).prepare(c.snapshot, c.batch)
        codes = filter_codes(kernels, state, len(c.batch), c.snapshot.n_nodes)
        raw, norm = score_lists(kernels, state, lists, True)
        for p, pod in enumerate(c.batch.pods):
            where = f"seed {seed}, pod {pod.key}"
            want = got["Codes"][p]
            ref_codes = [0 if r is None else r[0] for r in ref.filter_pod(c.snapshot, pod)]
            assert ref_codes == want, f"reference filter, {where}"
            assert codes[p].tolist() == [KERNEL_CODE[x] for x in want], f"kernel filter, {where}"
            want_scores = (got["Raw"][p], got["Norm"][p])
            assert ref.score_pod(c.snapshot, pod, lists[p]) == want_scores, f"reference, {where}"
            assert (raw[p], norm[p]) == want_scores, f"kernels, {where}"


@pytest.mark.parametrize("block", range(4))
def test_equal_to_go(go_binary, tmp_path, block):
    _compare(go_binary, tmp_path, range(50 * block, 50 * block + 50))


@pytest.mark.slow
@pytest.mark.parametrize("block", range(10))
def test_equal_to_go_sweep(go_binary, tmp_path, block):
    _compare(go_binary, tmp_path, range(10_000 + 200 * block, 10_000 + 200 * block + 200))
