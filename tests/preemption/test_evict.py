"""A preemptor's victims deleted in one compiled call (:meth:`DryRuns.evict_all`,
:func:`kernels.evict`) equal the deletions one by one: each plugin's ``remove`` (the
run's :meth:`remove`), then ``NodeInfo.RemovePod`` (:meth:`.nodepods.NodePods.remove`)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from kscore_fast import api
from kscore_fast.preemption.dryrun import DryRuns
from kscore_fast.profile import framework_for_profile

from ..scenarios_preemption import preemption_scenario
from .test_reference import _write


def _arrays(runs: DryRuns) -> list[np.ndarray]:
    """The plugins' states, the cycle cache's control and log of changed nodes, the
    bindings and the nodes' pod counts."""
    seq = runs.seq
    states = [a for s in seq.states for a in s if isinstance(a, np.ndarray)]
    ctl, log = seq.cache[3], seq.cache[4]
    return [*states, ctl, log[: ctl[0]], seq.bound, runs._on_node.count]


@pytest.mark.parametrize("seed", range(6))
def test_victims_deleted_at_once_equal_deletions_one_by_one(tmp_path, seed):
    rng = random.Random(seed)
    path = _write(tmp_path, preemption_scenario(7_300_000 + seed, max_nodes=6, max_pending=4))
    cluster = api.load_cluster([path])
    fw = framework_for_profile(api._default_config().profiles[0], 0).framework
    at_once, one_by_one = DryRuns(fw, cluster), DryRuns(fw, cluster)
    victims = rng.sample(range(at_once.offset), rng.randint(1, min(4, at_once.offset)))
    at_once.evict_all(victims)
    for pod in victims:
        node = int(one_by_one.seq.bound[pod])
        one_by_one.seq.remove(pod, node)
        one_by_one.seq.bound[pod] = -1
        one_by_one.leave(pod, node)
    for got, want in zip(_arrays(at_once), _arrays(one_by_one), strict=True):
        assert np.array_equal(got, want), seed
    names = range(len(at_once.names))
    assert [at_once._on_node.pods(n) for n in names] == [one_by_one._on_node.pods(n) for n in names]
    assert at_once._on_node.total == one_by_one._on_node.total
