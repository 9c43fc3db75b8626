"""A lone pod's plugin states kept on the snapshot by the pod's fields
(:mod:`kscore_fast.framework.lone_states`): a pod scored alone after another that shares
some of its fields gives exactly what it gives on a cold copy of the snapshot, whichever
field differs (a plugin reading a field it does not declare would hand the first pod's
state to the second); states that read the storage objects are not shared by a snapshot
whose storage changed."""

from __future__ import annotations

import dataclasses
import random
from operator import attrgetter

import msgspec
import numpy as np
import pytest

from kscore_fast import api
from kscore_fast.api import _framework
from kscore_fast.framework.lone_states import LoneKeys
from kscore_fast.model.objects import NamespaceRecord, PodRecord
from kscore_fast.model.snapshot import Cluster, build_cluster

from ..scenarios_disks import disk_scenario
from ..scenarios_ephemeral import ephemeral_binding_scenario, ephemeral_disk_scenario
from ..scenarios_profile import profile_scenario
from ..scenarios_volume_binding import binding_scenario
from ..scenarios_volumes import volume_scenario
from .test_snapshot_kept import _cold, _lone

#: the fields a pending pod may differ in, alone or together (an ephemeral volume is a
#: claim of the pod's, owned by its uid; a bound, terminated or deleting pod is not
#: pending; the name is the mutant's own)
VOLUME_CLAIMS = ("claims", "ephemeral", "uid")
FIELDS = [(f,) for f in PodRecord.__struct_fields__
          if f not in ("name", "node_name", "phase", "deleting", *VOLUME_CLAIMS)]  # fmt: skip
FIELDS.append(VOLUME_CLAIMS)


def _with_mutants(cluster: Cluster, rng: random.Random, n: int) -> tuple[Cluster, list]:
    """The cluster with, for each of ``n`` pending pods, one mutant per field: the pod
    with that field taken from another pending pod whose field differs; and the pairs
    (original's position, mutant's position) in the new batch."""
    snap, pending = cluster.snapshot, cluster.batch.pods
    mutants, pairs = [], []
    for i, pod in enumerate(pending[:n]):
        for fields in FIELDS:
            get = attrgetter(*fields)
            others = [q for q in pending if get(q) != get(pod)]
            if not others:
                continue
            other = rng.choice(others)
            mutant = msgspec.structs.replace(pod, name=f"{pod.name}-{fields[0]}",
                                             **{f: getattr(other, f) for f in fields})  # fmt: skip
            pairs.append((i, len(pending) + len(mutants)))
            mutants.append(mutant)
    nodes = [snap.nodes[i] for i in np.argsort(snap.node_input_order, kind="stable").tolist()]
    controllers = [c for kind in snap.controllers.values() for c in kind]
    namespaces = [NamespaceRecord(name, labels) for name, labels in snap.namespace_labels.items()]
    out = build_cluster(nodes, [*snap.pods, *pending, *mutants], snap.services, controllers,
                        namespaces, storage=snap.storage)  # fmt: skip
    return out, pairs


def _assert_mutants_equal_cold(objects: list, seed: int, n: int = 3) -> int:
    cluster, pairs = _with_mutants(api.load_cluster(objects=objects), random.Random(seed), n)
    fw, _ = _framework(cluster, None, None, None, None)
    snapshot = cluster.snapshot
    for first, second in [*pairs, *((b, a) for a, b in pairs)]:
        fw.run(snapshot, _lone(cluster, first), scores="all", explain=True)
        warm = fw.run(snapshot, _lone(cluster, second), scores="all", explain=True)
        cold = fw.run(_cold(snapshot), _lone(cluster, second), scores="all", explain=True)
        assert warm.to_dict() == cold.to_dict(), (cluster.batch.names[first],
                                                  cluster.batch.names[second])  # fmt: skip
    return len(pairs)


@pytest.mark.parametrize("family", ["basic", "pts", "ipa", "mixed"])
@pytest.mark.parametrize("seed", range(3))
def test_a_pod_after_one_differing_in_one_field_equals_it_cold(family, seed):
    objects = profile_scenario(seed, family=family, max_pending=8)
    assert _assert_mutants_equal_cold(objects, seed) > 0


@pytest.mark.parametrize(
    "scenario",
    [volume_scenario, disk_scenario, binding_scenario, ephemeral_binding_scenario,
     ephemeral_disk_scenario],
)  # fmt: skip
@pytest.mark.parametrize("seed", range(3))
def test_the_volume_plugins_states_by_a_pods_volumes(scenario, seed):
    assert _assert_mutants_equal_cold(scenario(seed), seed) > 0


@pytest.mark.parametrize("seed", range(4))
def test_a_snapshot_whose_storage_changed_does_not_read_the_former_states(seed):
    """As a run whose bindings completed makes it: the snapshot's cache shared, the
    storage objects replaced (here: every claim gone)."""
    cluster = api.load_cluster(objects=ephemeral_binding_scenario(seed))
    fw, _ = _framework(cluster, None, None, None, None)
    snapshot = cluster.snapshot
    assert snapshot.storage.claims
    for i in range(len(cluster.batch)):  # (the states kept, then the cache shared)
        fw.run(snapshot, _lone(cluster, i), scores="all", explain=True)
    changed = dataclasses.replace(
        snapshot,
        storage=dataclasses.replace(snapshot.storage, claims={}),
        cache=dict(snapshot.cache),
    )
    for i in range(len(cluster.batch)):
        warm = fw.run(changed, _lone(cluster, i), scores="all", explain=True).to_dict()
        cold = fw.run(_cold(changed), _lone(cluster, i), scores="all", explain=True).to_dict()
        assert warm == cold, cluster.batch.names[i]


def test_a_pod_equal_in_every_field_finds_the_whole_setup_kept():
    cluster = api.load_cluster(objects=profile_scenario(0, family="mixed"))
    fw, _ = _framework(cluster, None, None, None, None)
    keys = fw.table_rows.lone_keys
    assert keys.complete
    pod = cluster.batch.pods[0]
    twin = msgspec.structs.replace(pod, name=pod.name + "-twin")
    assert keys.encode(twin) == keys.encode(pod)
    fw.run(cluster.snapshot, _lone(cluster, 0), scores="all")
    kept = [v for k, v in cluster.snapshot.cache.items() if k[0] == "lone setup"]
    assert len(kept) == 1 and len(kept[0]) == 1
    fw.run(cluster.snapshot, _lone(cluster, 0), scores="all")
    assert len(kept[0]) == 1


def test_a_plugin_without_fields_is_prepared_for_every_lone_pod():
    class Plain:
        lone_fields = None
        reads_storage = False

    class Reading:
        lone_fields = ("tolerations",)
        reads_storage = True

    keys = LoneKeys([Plain(), Reading(), Reading()])
    assert not keys.complete and keys.reads_storage
    pod = PodRecord(namespace="default", name="p")
    encoded = keys.encode(pod)
    assert len(encoded) == 1
    assert keys.keys(encoded) == [None, encoded[0], encoded[0]]
