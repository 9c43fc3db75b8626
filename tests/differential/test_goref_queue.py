"""The timed replay with the scheduling queue (:func:`kscore_fast.queue.replay_timed`) ==
the real kube-scheduler v1.23.6 queue (``goref replay``: ``PriorityQueue`` on a fake
clock, its own flushes and moves, the real cache and framework), attempt by attempt:
time, pod, attempt and cycle numbers, host, counts, FitError text and the plugins that
rejected the pod; then the pods left pending and the final clock.

``KSCORE_DIFF_QUEUE_SCENARIOS``: scenarios per family (default 10); ``-m slow``: 500 more
per family, larger.
"""

from __future__ import annotations

import os

import pytest

from ..goref import goref_missing
from . import timed

pytestmark = [
    pytest.mark.goref,
    pytest.mark.skipif(goref_missing() is not None, reason=str(goref_missing())),
]

N_SCENARIOS = int(os.environ.get("KSCORE_DIFF_QUEUE_SCENARIOS", 10))
FAMILIES = {"basic": 3_000_000, "pts": 3_100_000, "ipa": 3_200_000, "mixed": 3_300_000}


def _check(tmp_path, family: str, seed: int, **sizes: int) -> None:
    diffs = timed.check_scenario(family, seed, tmp_path, **sizes)
    assert not diffs, f"scenario {family} {seed}:\n" + "\n".join(diffs[:20])


@pytest.mark.parametrize("family", list(FAMILIES))
@pytest.mark.parametrize("seed", range(N_SCENARIOS))
def test_timed_replay_equals_go(tmp_path, family, seed):
    _check(tmp_path, family, FAMILIES[family] + seed, max_nodes=10, max_pods=30,
           max_pending=20)  # fmt: skip


@pytest.mark.slow
@pytest.mark.parametrize("family", list(FAMILIES))
@pytest.mark.parametrize("seed", range(500))
def test_many_more_timed_replays(tmp_path, family, seed):
    _check(tmp_path, family, FAMILIES[family] + 100_000 + seed, max_nodes=30, max_pods=80,
           max_pending=40)  # fmt: skip
