"""VolumeZone: the kernel == the scalar reference port on random clusters with storage
objects, the reference's branches (upstream's volume_zone_test.go cases, restated), and the
storage objects as the reader makes them."""

from __future__ import annotations

import pytest

from kscore_fast.errors import InputError
from kscore_fast.model.objects import PodRecord
from kscore_fast.model.storage import ClaimRecord, ClassRecord, Storage, VolumeRecord
from kscore_fast.plugins.volumezone import VolumeZone, kernels, reference
from kscore_fast.plugins.volumezone.reference import ERR_REASON_CONFLICT

from ...scenarios_volumes import BETA_REGION, BETA_ZONE, REGION, ZONE, volume_scenario
from ..harness import cluster_of as _cluster
from ..harness import filter_codes


@pytest.mark.parametrize("seed", range(60))
def test_kernel_equals_reference(seed, tmp_path):
    c = _cluster(volume_scenario(seed, max_nodes=10, max_pending=12), tmp_path)
    snap, batch = c.snapshot, c.batch
    plugin = VolumeZone()
    state = plugin.prepare(snap, batch)
    codes = filter_codes(kernels, state, len(batch), snap.n_nodes)
    for p, pod in enumerate(batch.pods):
        for n, labels in enumerate(snap.node_labels):
            want = reference.filter(pod, labels, snap.storage)
            code = int(codes[p, n])
            got = None if code == 0 else plugin.reasons(state, code)[0]
            assert got == want, (seed, pod.key, snap.node_names[n])
    key = plugin.filter_key(state)  # equal keys, equal verdicts
    for k in set(key.tolist()):
        rows = codes[key == k]
        assert (rows == rows[0]).all()


STORAGE = Storage.of([
    ClaimRecord("default", "bound-a", "pv-a"),
    ClaimRecord("default", "bound-ab", "pv-ab"),
    ClaimRecord("default", "bound-bad", "pv-bad"),
    ClaimRecord("default", "bound-region", "pv-region"),
    ClaimRecord("default", "bound-beta", "pv-beta"),
    ClaimRecord("default", "bound-absent", "pv-absent"),
    ClaimRecord("default", "wffc", "", "late"),
    ClaimRecord("default", "immediate", "", "now"),
    ClaimRecord("default", "no-class", ""),
    ClaimRecord("default", "ghost-class", "", "ghost"),
    VolumeRecord("pv-a", {ZONE: "a", "app": "db"}),
    VolumeRecord("pv-ab", {ZONE: "a__ b"}),
    VolumeRecord("pv-bad", {ZONE: "a____b"}),
    VolumeRecord("pv-region", {REGION: "r1"}),
    VolumeRecord("pv-beta", {BETA_ZONE: "a", BETA_REGION: "r1"}),
    ClassRecord("late", "WaitForFirstConsumer"),
    ClassRecord("now", "Immediate"),
])  # fmt: skip
NODE_A = {ZONE: "a", REGION: "r1", "kubernetes.io/hostname": "n"}
NODE_B = {ZONE: "b"}


@pytest.mark.parametrize(
    ("claims", "node", "want"),
    [
        ((), NODE_A, None),
        (("bound-a",), {"kubernetes.io/hostname": "n"}, None),  # no zone labels: fits
        (("missing",), {}, None),  # (not even looked up)
        (("bound-a",), NODE_A, None),
        (("bound-a",), NODE_B, ERR_REASON_CONFLICT),
        (("bound-ab",), NODE_B, None),  # a multi-zone label, trimmed
        (("bound-bad",), NODE_B, None),  # an empty zone: the label is ignored
        (("bound-region",), NODE_A, None),
        (("bound-region",), NODE_B, ERR_REASON_CONFLICT),  # no region on the node: ""
        (("bound-beta",), NODE_A, ERR_REASON_CONFLICT),  # GA labels do not stand for beta
        (("bound-beta",), {BETA_ZONE: "a", BETA_REGION: "r1"}, None),
        (("missing",), NODE_A, 'persistentvolumeclaim "missing" not found'),
        (("bound-absent",), NODE_A, 'persistentvolume "pv-absent" not found'),
        (("wffc", "bound-a"), NODE_A, None),  # unbound WaitForFirstConsumer: skipped
        (("wffc", "bound-a"), NODE_B, ERR_REASON_CONFLICT),
        (("immediate",), NODE_A, "PersistentVolume had no name"),
        (("no-class",), NODE_A, "PersistentVolumeClaim had no pv name and storageClass name"),
        (("ghost-class",), NODE_A, 'storageclass.storage.k8s.io "ghost" not found'),
        (("bound-a", "missing"), NODE_B, ERR_REASON_CONFLICT),  # the first failing volume
        (("missing", "bound-a"), NODE_B, 'persistentvolumeclaim "missing" not found'),
    ],
)
def test_reference(claims, node, want):
    pod = PodRecord("default", "p", claims=claims)
    assert reference.filter(pod, node, STORAGE) == want


def test_claims_of_another_namespace_are_not_found():
    pod = PodRecord("other", "p", claims=("bound-a",))
    assert reference.filter(pod, NODE_A, STORAGE) == 'persistentvolumeclaim "bound-a" not found'


def _objects(*extra):
    return [
        {"kind": "Node", "metadata": {"name": "n", "labels": {ZONE: "a"}},
         "status": {"allocatable": {"cpu": "1", "memory": "1Gi", "pods": "10"}}},
        *extra,
    ]  # fmt: skip


@pytest.mark.parametrize("how", ["json", "yaml"])
def test_the_reader_keeps_what_the_plugin_reads(tmp_path, how):
    """A StorageClass's binding mode defaults to Immediate; a claim's class is the beta
    annotation's before spec.storageClassName; PersistentVolumes and StorageClasses have no
    namespace; none of them is a skipped kind."""
    c = _cluster(_objects(
        {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": "s"},
         "provisioner": "x"},
        {"kind": "StorageClass", "metadata": {"name": "w"},
         "volumeBindingMode": "WaitForFirstConsumer"},
        {"kind": "PersistentVolume", "metadata": {"name": "pv", "namespace": "x",
                                                  "labels": {ZONE: "a"}}},
        {"kind": "PersistentVolumeClaim", "metadata": {
            "name": "c", "annotations": {"volume.beta.kubernetes.io/storage-class": "w",
                                         "big": "x" * 10_000}},
         "spec": {"storageClassName": "s", "volumeName": ""}},
        {"kind": "PersistentVolumeClaim", "metadata": {"name": "d", "namespace": "ns"},
         "spec": {"storageClassName": "s", "volumeName": "pv"}},
    ), tmp_path, how)  # fmt: skip
    st = c.snapshot.storage
    assert st.classes == {"s": ClassRecord("s", "Immediate", "x"),
                          "w": ClassRecord("w", "WaitForFirstConsumer")}  # fmt: skip
    assert st.volumes == {"pv": VolumeRecord("pv", {ZONE: "a"})}
    assert st.claims == {("default", "c"): ClaimRecord("default", "c", "", "w", "s"),
                         ("ns", "d"): ClaimRecord("ns", "d", "pv", "s", "s")}  # fmt: skip
    assert c.skipped_kinds == {}


@pytest.mark.parametrize(
    ("obj", "field"),
    [
        ({"kind": "StorageClass", "metadata": {"name": "s"}, "volumeBindingMode": "Later"},
         "volumeBindingMode"),
        ({"kind": "PersistentVolumeClaim", "metadata": {"name": "c", "annotations": {"a": 1}}},
         "metadata.annotations"),
        ({"kind": "PersistentVolumeClaim", "metadata": {"name": "c"},
          "spec": {"volumeName": 5}}, "spec.volumeName"),
        ({"kind": "PersistentVolume", "metadata": {"name": "Bad_Name"}}, "metadata.name"),
    ],
)  # fmt: skip
@pytest.mark.parametrize("how", ["json", "yaml"])
def test_bad_storage_objects_are_one_clear_error(obj, field, tmp_path, how):
    with pytest.raises(InputError) as err:
        _cluster(_objects(obj), tmp_path, how)
    assert field in str(err.value) and obj["kind"] in str(err.value)


@pytest.mark.parametrize("seed", range(10))
def test_a_batch_without_claims_reads_no_node_labels(seed, tmp_path):
    """No pending pod has a claim: every node passes, and the nodes' zone classes (a
    Python pass over every node) are not made."""
    objs = [o for o in volume_scenario(seed, max_nodes=10, max_pending=12)
            if not (o["kind"] == "Pod" and "nodeName" not in o["spec"]
                    and any("persistentVolumeClaim" in v or "ephemeral" in v
                            for v in o["spec"].get("volumes", [])))]  # fmt: skip
    c = _cluster(objs, tmp_path)
    plugin = VolumeZone()
    state = plugin.prepare(c.snapshot, c.batch)
    assert "volume_zone_nodes" not in c.snapshot.cache
    assert plugin.passes_all(state)
    assert not filter_codes(kernels, state, len(c.batch), c.snapshot.n_nodes).any()
