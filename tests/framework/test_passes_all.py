"""``Plugin.passes_all``: a filter plugin that passes every pod of the batch on every node,
whatever is bound, is left out of the run's filters. Leaving none out gives the same
results, in batch and sequential runs, for the whole batch and for each pod alone; and
every plugin that implements it both passes all and does not, somewhere in the
scenarios (the comparison is not vacuous)."""

from __future__ import annotations

from collections import Counter

import msgspec
import pytest

from kscore_fast import api
from kscore_fast.api import _framework
from kscore_fast.framework.simulation import simulate

from ..scenarios_disks import disk_scenario
from ..scenarios_ephemeral import ephemeral_binding_scenario
from ..scenarios_profile import profile_scenario
from ..scenarios_volume_binding import binding_scenario
from .test_snapshot_kept import _cold, _lone

SCENARIOS = [
    *((f"profile-{family}-{seed}", profile_scenario, (seed,), {"family": family})
      for family in ("basic", "pts", "ipa", "mixed") for seed in range(4)),
    *((f"{f.__name__}-{seed}", f, (seed,), {})
      for f in (disk_scenario, binding_scenario, ephemeral_binding_scenario)
      for seed in range(3)),
    *((f"disk_scenario-{seed}", disk_scenario, (seed,), {}) for seed in (5, 7, 10)),
]  # fmt: skip

#: the plugins whose ``passes_all`` this change added (each seen passing and not)
ADDED = {"NodeUnschedulable", "NodeName", "TaintToleration", "NodeAffinity", "NodePorts",
         "VolumeRestrictions", "EBSLimits", "GCEPDLimits", "NodeVolumeLimits",
         "AzureDiskLimits", "PodTopologySpread", "InterPodAffinity"}  # fmt: skip


def _results(fw, cluster, snapshot):
    out = [fw.run(snapshot, cluster.batch, scores="all", explain=True).to_dict()]
    out.append(simulate(fw, snapshot, cluster.batch, seed=3, explain=True).to_dict())
    for i in range(len(cluster.batch)):
        out.append(fw.run(_cold(snapshot), _lone(cluster, i), scores="all").to_dict())
    return out


@pytest.mark.parametrize(("name", "make", "args", "kwargs"), SCENARIOS,
                         ids=[s[0] for s in SCENARIOS])  # fmt: skip
def test_leaving_out_the_filters_that_pass_all_changes_nothing(monkeypatch, name, make, args,
                                                               kwargs):  # fmt: skip
    cluster = api.load_cluster(objects=make(*args, **kwargs))
    fw, _ = _framework(cluster, None, None, None, None)
    left_out = _results(fw, cluster, cluster.snapshot)
    for p in fw.filter_plugins:
        monkeypatch.setattr(type(p), "passes_all", lambda self, state: False)
    assert _results(fw, cluster, _cold(cluster.snapshot)) == left_out


def test_every_added_passes_all_is_seen_passing_and_not():
    seen: Counter[tuple[str, bool]] = Counter()
    for _, make, args, kwargs in SCENARIOS:
        cluster = api.load_cluster(objects=make(*args, **kwargs))
        fw, _ = _framework(cluster, None, None, None, None)
        for i in range(len(cluster.batch)):
            lone = _lone(cluster, i)
            for p in fw.filter_plugins:
                seen[(p.name, bool(p.passes_all(p.prepare(cluster.snapshot, lone))))] += 1
        # (a pending pod naming a node: a batch the loader never makes, a Simulator may)
        named = _lone(cluster, 0)
        node = cluster.snapshot.node_names[0]
        named.pods[0] = msgspec.structs.replace(named.pods[0], node_name=node)
        p = next(p for p in fw.filter_plugins if p.name == "NodeName")
        seen[(p.name, bool(p.passes_all(p.prepare(cluster.snapshot, named))))] += 1
    missing = [(n, v) for n in sorted(ADDED) for v in (True, False) if not seen[(n, v)]]
    assert not missing
