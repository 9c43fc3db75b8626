"""The volume limits: each plugin's kernel == the scalar reference port on random
clusters (with pods assumed and removed), and the reference's branches: defaults,
allocatable limits, migration, translation, unbound claims."""

from __future__ import annotations

import dataclasses
import json

import msgspec
import numpy as np
import pytest

from kscore_fast.api import load_cluster
from kscore_fast.framework.search import ERROR_FLAG
from kscore_fast.model.disks import (
    AWS_EBS,
    AZURE_DISK,
    GCE_PD,
    CSINodeDriver,
    CSINodeRecord,
    DiskVolume,
)
from kscore_fast.model.objects import NodeRecord, PodRecord
from kscore_fast.model.quantity import parse_quantity
from kscore_fast.model.storage import ClaimRecord, ClassRecord, Storage, VolumeRecord
from kscore_fast.plugins.nodevolumelimits import (
    AzureDiskLimits,
    EBSLimits,
    GCEPDLimits,
    NodeVolumeLimits,
    reference,
)
from kscore_fast.plugins.nodevolumelimits.reference import ERR_REASON_MAX_VOLUME_COUNT
from kscore_fast.plugins.nodevolumelimits.translate import translated

from ...scenarios_ephemeral import ephemeral_disk_scenario, foreign_disk_scenario
from ..disk_checks import check_against_reference

PLUGINS = [NodeVolumeLimits, EBSLimits, GCEPDLimits, AzureDiskLimits]


def _reference(name):
    return lambda pod, n, pods, snap: reference.filter(name, pod, snap.nodes[n], pods,
                                                       snap.storage)  # fmt: skip


@pytest.mark.parametrize("cls", PLUGINS)
@pytest.mark.parametrize("seed", range(25))
def test_kernel_equals_reference(cls, seed, tmp_path):
    check_against_reference(cls(), _reference(cls.name), seed, tmp_path)


@pytest.mark.parametrize("cls", PLUGINS)
def test_scenarios_exceed_limits(cls, tmp_path):
    failures = sum(check_against_reference(cls(), _reference(cls.name), seed, tmp_path)
                   for seed in range(200, 240))  # fmt: skip
    assert failures > 0


def _node(name="n", labels=None, **alloc):
    return NodeRecord(
        name, labels or {}, {k.replace("_", "-"): parse_quantity(str(v)) for k, v in alloc.items()}
    )


def _pod(*disks, claims=()):
    return PodRecord("default", "p", claims=tuple(claims), disks=disks)


def _gce(name):
    return DiskVolume(GCE_PD, name)


def test_non_csi_defaults_and_allocatable():
    pods = [_pod(*(_gce(f"d{i}") for i in range(16)))]
    assert reference.non_csi_filter(reference.GCE, _pod(_gce("x")), _node(), pods, Storage()) \
        == ERR_REASON_MAX_VOLUME_COUNT  # fmt: skip
    assert reference.non_csi_filter(reference.GCE, _pod(_gce("d1")), _node(), pods, Storage()) \
        is None  # (already attached: 16 of 16)  # fmt: skip
    node = _node(attachable_volumes_gce_pd=17)
    assert reference.non_csi_filter(reference.GCE, _pod(_gce("x")), node, pods, Storage()) is None
    nitro = _node(labels={"node.kubernetes.io/instance-type": "m5.large"})
    assert reference.EBS.max_volumes(nitro) == 25 and reference.EBS.max_volumes(_node()) == 39


def test_non_csi_skips_migrated_nodes_and_counts_unbound_claims():
    storage = Storage.of([
        ClaimRecord("default", "c", "", "sc", "sc"),
        ClassRecord("sc", provisioner="kubernetes.io/gce-pd"),
        CSINodeRecord("n", migrated="kubernetes.io/gce-pd"),
    ])  # fmt: skip
    node = _node(attachable_volumes_gce_pd=0)
    pod = _pod(claims=["c"])
    assert reference.non_csi_filter(reference.GCE, pod, _node("m", attachable_volumes_gce_pd=0),
                                    [], storage) == ERR_REASON_MAX_VOLUME_COUNT  # fmt: skip
    assert reference.non_csi_filter(reference.GCE, pod, node, [], storage) is None  # migrated


def test_csi_counts_per_driver_with_translation():
    storage = Storage.of([
        ClaimRecord("default", "c", "pv", ""),
        VolumeRecord("pv", {"topology.kubernetes.io/zone": "us-a-1"}, _gce("disk")),
        CSINodeRecord("n", (CSINodeDriver("pd.csi.storage.gke.io", 0),), "kubernetes.io/gce-pd"),
        CSINodeRecord("m", (CSINodeDriver("pd.csi.storage.gke.io", 0),), ""),
    ])  # fmt: skip
    pod = _pod(claims=["c"])
    assert reference.csi_filter(pod, _node("n"), [], storage) == ERR_REASON_MAX_VOLUME_COUNT
    assert reference.csi_filter(pod, _node("m"), [], storage) is None  # not migrated there
    assert translated(storage.volumes["pv"]) == (
        "pd.csi.storage.gke.io",
        "projects/UNSPECIFIED/zones/us-a-1/disks/disk",
    )


@pytest.mark.parametrize(
    ("disk", "labels", "want"),
    [
        (DiskVolume(GCE_PD, "d"), {}, "projects/UNSPECIFIED/zones/UNSPECIFIED/disks/d"),
        (
            DiskVolume(GCE_PD, "d"),
            {"failure-domain.beta.kubernetes.io/zone": "eu-w1-a__eu-w1-b"},
            "projects/UNSPECIFIED/regions/eu-w1/disks/d",
        ),
        (DiskVolume(GCE_PD, "d"), {"topology.kubernetes.io/zone": "a-b-c__d-e-f"}, None),
        (DiskVolume(AWS_EBS, "aws://us-east-1a/vol-1"), {}, "vol-1"),
        (DiskVolume(AWS_EBS, "vol-2"), {}, "vol-2"),
        (DiskVolume(AWS_EBS, "aws://x/bad"), {}, None),
        (DiskVolume(AZURE_DISK, "d", uri="/u", azure_kind="Managed"), {}, "/u"),
        (DiskVolume(AZURE_DISK, "d", uri="/u", azure_kind="Shared"), {}, None),
    ],
)
def test_translation(disk, labels, want):
    got = translated(VolumeRecord("pv", labels, disk))
    assert (got and got[1]) == want


def test_missing_claim_is_the_lookup_error():
    pod = _pod(claims=["gone"])
    assert reference.filter("EBSLimits", pod, _node(), [], Storage()) == (
        'running "EBSLimits" filter plugin: looking up PVC default/gone: '
        'persistentvolumeclaim "gone" not found'
    )


@pytest.mark.parametrize("cls", PLUGINS)
@pytest.mark.parametrize("seed", range(25))
def test_kernel_equals_reference_with_ephemeral_volumes(cls, seed, tmp_path):
    check_against_reference(cls(), _reference(cls.name), seed, tmp_path,
                            ephemeral_disk_scenario)  # fmt: skip


OWNED = ClaimRecord("default", "p-e", "pv", bind_completed=True, controller_uid="u")
CSI_STORAGE = Storage.of([
    VolumeRecord("pv", csi_driver="d.io", csi_handle="h1"),
    VolumeRecord("pv2", csi_driver="d.io", csi_handle="h2"),
    ClaimRecord("default", "q-e", "pv2", bind_completed=True, controller_uid="v"),
    CSINodeRecord("n", (CSINodeDriver("d.io", 1),)),
])  # fmt: skip


def _ephemeral_pod(name="p", uid="u", claims=("p-e",), at=(0,)):
    return PodRecord("default", name, claims=claims, ephemeral=at, uid=uid)


@pytest.mark.parametrize(
    ("claim", "want"),
    [
        (OWNED, ERR_REASON_MAX_VOLUME_COUNT),  # its own: counted (1 held + 1 > 1)
        (msgspec.structs.replace(OWNED, controller_uid="other"), "owner"),
        (msgspec.structs.replace(OWNED, controller_uid=None), "owner"),
        (None, 'running "NodeVolumeLimits" filter plugin: looking up PVC default/p-e: '
               'persistentvolumeclaim "p-e" not found'),
    ],
)  # fmt: skip
def test_ephemeral_claims_count_and_are_checked(claim, want):
    claims = dict(CSI_STORAGE.claims)
    if claim is not None:
        claims[("default", "p-e")] = claim
    storage = dataclasses.replace(CSI_STORAGE, claims=claims)
    held = [_ephemeral_pod("q", "v", ("q-e",))]
    got = reference.filter("NodeVolumeLimits", _ephemeral_pod(), _node("n"), held, storage)
    if want == "owner":
        want = ('running "NodeVolumeLimits" filter plugin: PVC default/p-e was not created '
                "for pod default/p (pod is not owner)")  # fmt: skip
    assert got == want


def test_a_pvc_volume_of_an_ephemeral_claims_name_is_not_checked():
    """The ownership is checked for ephemeral volumes only (a ``persistentVolumeClaim``
    volume naming the same claim counts it as its own)."""
    foreign = msgspec.structs.replace(OWNED, controller_uid="other")
    storage = dataclasses.replace(CSI_STORAGE, claims={("default", "p-e"): foreign})
    assert reference.csi_filter(_pod(claims=["p-e"]), _node("n"), [], storage) is None


@pytest.mark.parametrize("cls", PLUGINS)
@pytest.mark.parametrize("seed", range(25))
def test_kernel_equals_reference_with_foreign_claims_on_nodes(cls, seed, tmp_path):
    """Pods on nodes whose ephemeral volume's claim another owns: the ``Error`` status
    wherever the reference meets it."""
    check_against_reference(cls(), _reference(cls.name), seed, tmp_path, foreign_disk_scenario)


def test_a_foreign_claim_on_a_node_is_an_error(tmp_path):
    """A pod on a node whose ephemeral volume's claim another owns: Go's Filter error on
    that node for a pending pod with volumes to count."""
    objs = [
        {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"},
         "status": {"allocatable": {"cpu": "1", "memory": "1Gi", "pods": "10"}}},
        {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
         "metadata": {"name": "b-e", "namespace": "default", "ownerReferences": [
             {"apiVersion": "v1", "kind": "Pod", "name": "b", "uid": "x", "controller": True}]},
         "spec": {"volumeName": "pv"}},
        {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "b", "namespace": "default"},
         "spec": {"nodeName": "n", "containers": [{"name": "c", "image": "i"}],
                  "volumes": [{"name": "e", "ephemeral": {"volumeClaimTemplate": {}}}]}},
        {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
         "spec": {"containers": [{"name": "c", "image": "i"}],
                  "volumes": [{"name": "g", "gcePersistentDisk": {"pdName": "d"}}]}},
    ]  # fmt: skip
    path = tmp_path / "c.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objs}))
    c = load_cluster([path])
    plugin = GCEPDLimits()
    state = plugin.prepare(c.snapshot, c.batch)
    code = int(plugin.kernels.filter_node(state, np.int64(0), np.int64(0)))
    assert code & ERROR_FLAG
    assert plugin.reasons(state, code) == [
        'running "GCEPDLimits" filter plugin: PVC default/b-e was not created for pod '
        "default/b (pod is not owner)"
    ]
