"""VolumeRestrictions: the kernel == the scalar reference port on random clusters (with
pods assumed and removed), and the reference's branches (upstream's
volume_restrictions_test.go cases, restated)."""

from __future__ import annotations

import pytest

from kscore_fast.model.disks import AWS_EBS, AZURE_DISK, GCE_PD, ISCSI, RBD, DiskVolume
from kscore_fast.model.objects import PodRecord
from kscore_fast.plugins.volumerestrictions import VolumeRestrictions, reference
from kscore_fast.plugins.volumerestrictions.reference import ERR_REASON_DISK_CONFLICT

from ..disk_checks import check_against_reference


@pytest.mark.parametrize("seed", range(40))
def test_kernel_equals_reference(seed, tmp_path):
    check_against_reference(
        VolumeRestrictions(), lambda pod, n, pods, snap: reference.filter(pod, pods), seed,
        tmp_path,
    )  # fmt: skip


def test_scenarios_find_conflicts(tmp_path):
    plugin = VolumeRestrictions()
    failures = sum(
        check_against_reference(
            plugin, lambda pod, n, pods, s: reference.filter(pod, pods), seed, tmp_path
        )
        for seed in range(100, 110)
    )
    assert failures > 0


def _pod(*disks: DiskVolume) -> PodRecord:
    return PodRecord("default", "p", disks=disks)


def _gce(name, ro=False):
    return DiskVolume(GCE_PD, name, ro)


def _rbd(image, monitors, pool="rbd", ro=False):
    return DiskVolume(RBD, image, ro, pool, tuple(monitors))


@pytest.mark.parametrize(
    ("pod", "existing", "conflict"),
    [
        (_pod(), [_pod(_gce("a"))], False),
        (_pod(_gce("a")), [_pod(_gce("a"))], True),
        (_pod(_gce("a")), [_pod(_gce("b"))], False),
        (_pod(_gce("a", True)), [_pod(_gce("a", True))], False),  # both read-only
        (_pod(_gce("a", True)), [_pod(_gce("a"))], True),
        (_pod(DiskVolume(AWS_EBS, "v", True)), [_pod(DiskVolume(AWS_EBS, "v", True))], True),
        (_pod(DiskVolume(AWS_EBS, "v")), [_pod(DiskVolume(AWS_EBS, "w"))], False),
        (_pod(DiskVolume(ISCSI, "iqn", True)), [_pod(DiskVolume(ISCSI, "iqn", True))], False),
        (_pod(DiskVolume(ISCSI, "iqn")), [_pod(DiskVolume(ISCSI, "iqn", True))], True),
        (_pod(_rbd("i", ["a", "b"])), [_pod(_rbd("i", ["b", "c"]))], True),  # monitor b
        (_pod(_rbd("i", ["a"])), [_pod(_rbd("i", ["c"]))], False),
        (_pod(_rbd("i", ["a"])), [_pod(_rbd("i", ["a"], pool="p2"))], False),
        (_pod(_rbd("i", ["a"], ro=True)), [_pod(_rbd("i", ["a"], ro=True))], False),
        (_pod(_rbd("i", ["a"], ro=True)), [_pod(_rbd("j", ["a"]))], False),
        # Azure Disk and Cinder are not checked
        (_pod(DiskVolume(AZURE_DISK, "d")), [_pod(DiskVolume(AZURE_DISK, "d"))], False),
        # a GCE PD and an EBS volume of one name do not conflict
        (_pod(_gce("x")), [_pod(DiskVolume(AWS_EBS, "x"))], False),
    ],
)
def test_reference_cases(pod, existing, conflict):
    assert reference.filter(pod, existing) == (ERR_REASON_DISK_CONFLICT if conflict else None)


def test_plugin_is_unschedulable_not_unresolvable():
    plugin = VolumeRestrictions()
    assert not plugin.unresolvable(plugin.empty_state(), 1)
