"""The dry runs' state of a test cluster under the default profile, some pending pods
nominated to random nodes."""

from __future__ import annotations

import random

from kscore_fast import api
from kscore_fast.model.snapshot import Cluster
from kscore_fast.preemption.dryrun import DryRuns
from kscore_fast.profile import framework_for_profile


def nominated_runs(cluster: Cluster, rng: random.Random) -> tuple[DryRuns, list[int]]:
    """The dry runs of ``cluster``, a third of its pending pods nominated somewhere, and
    the pending pods' batch positions."""
    fw = framework_for_profile(api._default_config().profiles[0], 0).framework
    runs = DryRuns(fw, cluster)
    pending = list(range(runs.offset, len(runs.records)))
    for q in rng.sample(pending, len(pending) // 3):
        runs.nominated[q] = rng.randrange(len(runs.names))
    return runs, pending
