"""VolumeBinding's storage capacity check (binder.go ``hasEnoughCapacity``,
``capacitySufficient``, ``nodeHasAccess``; upstream's binder_test.go ``TestCapacity`` cases
restated): the kernel and the reference on small clusters read from manifests, the
CSIStorageCapacity objects as the reader makes them, and the bad ones it refuses."""

from __future__ import annotations

from typing import Any

import pytest

from kscore_fast.errors import InputError
from kscore_fast.model.selectors import EQUALS, Requirement, Selector
from kscore_fast.model.storage import CapacityRecord
from kscore_fast.plugins.volumebinding import VolumeBinding, kernels, reference
from kscore_fast.plugins.volumebinding.reference import (
    ERR_REASON_BIND_CONFLICT,
    ERR_REASON_NOT_ENOUGH_SPACE,
)

from ..harness import cluster_of, filter_codes

DRIVER = "csi.example.com"
ZONE = "topology.kubernetes.io/zone"
NODES = (("n1", "a"), ("n2", "b"))


def _objects(driver: dict[str, Any] | None, capacities: list[dict[str, Any]],
             claims: list[tuple[str, str | None, str]]) -> list[dict[str, Any]]:  # fmt: skip
    """Two nodes (zones a and b), a class ``fast`` of ``DRIVER``, a class ``none`` that
    never provisions, ``driver``'s spec as its CSIDriver (None: no object), the
    capacities, claims (name, storage request or None, class) and one pod of them."""
    objs: list[dict[str, Any]] = [
        {"kind": "Node", "metadata": {"name": name, "labels": {ZONE: zone}},
         "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "10"}}}
        for name, zone in NODES
    ]  # fmt: skip
    for cls, provisioner in (("fast", DRIVER), ("none", "kubernetes.io/no-provisioner")):
        objs.append({"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
                     "metadata": {"name": cls}, "provisioner": provisioner,
                     "volumeBindingMode": "WaitForFirstConsumer"})  # fmt: skip
    if driver is not None:
        objs.append({"apiVersion": "storage.k8s.io/v1", "kind": "CSIDriver",
                     "metadata": {"name": DRIVER}, "spec": driver})  # fmt: skip
    for i, capacity in enumerate(capacities):
        objs.append({"apiVersion": "storage.k8s.io/v1beta1", "kind": "CSIStorageCapacity",
                     "metadata": {"name": f"csisc-{i}", "namespace": "kube-system"},
                     "storageClassName": "fast", **capacity})  # fmt: skip
    for name, request, cls in claims:
        spec: dict[str, Any] = {"storageClassName": cls, "accessModes": ["ReadWriteOnce"]}
        if request is not None:
            spec["resources"] = {"requests": {"storage": request}}
        objs.append(
            {
                "kind": "PersistentVolumeClaim",
                "metadata": {"name": name, "namespace": "default"},
                "spec": spec,
            }
        )
    volumes = [{"name": f"v{i}", "persistentVolumeClaim": {"claimName": name}}
               for i, (name, _, _) in enumerate(claims)]  # fmt: skip
    objs.append({"kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
                 "spec": {"containers": [{"name": "c"}], "volumes": volumes}})  # fmt: skip
    return objs


def _reasons(tmp_path, objs: list[dict[str, Any]]) -> list[list[str]]:
    """The pod's reasons on each node: the kernel's, checked equal to the reference's."""
    c = cluster_of(objs, tmp_path)
    snap, plugin = c.snapshot, VolumeBinding()
    state = plugin.prepare(snap, c.batch)
    codes = filter_codes(kernels, state, 1, snap.n_nodes)
    out = []
    for n, labels in enumerate(snap.node_labels):
        got = plugin.reasons(state, int(codes[0, n]))
        want = reference.filter(c.batch.pods[0], snap.node_names[n], labels, snap.storage)
        assert got == want
        out.append(got)
    return out


ON = {"storageCapacity": True}
IN_A = {"nodeTopology": {"matchLabels": {ZONE: "a"}}}
ANY = {"nodeTopology": {}}
FITS, NO_ROOM = [], [ERR_REASON_NOT_ENOUGH_SPACE]


@pytest.mark.parametrize(
    ("driver", "capacities", "size", "want"),
    [
        (None, [], "1Gi", [FITS, FITS]),  # no CSIDriver: not checked
        ({}, [], "1Gi", [FITS, FITS]),  # storageCapacity defaults to false
        ({"storageCapacity": False}, [], "1Gi", [FITS, FITS]),
        (ON, [], "1Gi", [NO_ROOM, NO_ROOM]),
        (ON, [], None, [FITS, FITS]),  # no storage request: nothing to check
        (ON, [{**IN_A, "capacity": "1Gi"}], "1Gi", [FITS, NO_ROOM]),  # equal is enough
        (ON, [{**IN_A, "capacity": "1Gi"}], "1025Mi", [NO_ROOM, NO_ROOM]),
        (ON, [{**IN_A, "capacity": "2G"}], "1907Mi", [FITS, NO_ROOM]),  # 2e9 >= 1999634432
        (ON, [{**IN_A, "capacity": "1500m"}], "2", [FITS, NO_ROOM]),  # Value() rounds up
        (ON, [{**IN_A, "capacity": "0"}], "0", [FITS, NO_ROOM]),
        (ON, [{**IN_A}], "0", [NO_ROOM, NO_ROOM]),  # neither capacity nor maximum
        # maximumVolumeSize is preferred to capacity, either way
        (ON, [{**IN_A, "capacity": "10Gi", "maximumVolumeSize": "1Gi"}], "2Gi",
         [NO_ROOM, NO_ROOM]),
        (ON, [{**IN_A, "capacity": "1Gi", "maximumVolumeSize": "10Gi"}], "2Gi",
         [FITS, NO_ROOM]),
        (ON, [{**IN_A, "maximumVolumeSize": "-1"}], "0", [NO_ROOM, NO_ROOM]),
        (ON, [{"capacity": "10Gi"}], "1Gi", [NO_ROOM, NO_ROOM]),  # no topology: no node
        (ON, [{**ANY, "capacity": "10Gi"}], "1Gi", [FITS, FITS]),  # empty: every node
        (ON, [{"nodeTopology": {"matchExpressions": [{"key": ZONE, "operator": "NotIn",
                                                      "values": ["a"]}]},
               "capacity": "10Gi"}], "1Gi", [NO_ROOM, FITS]),
        # any one capacity of the class that is large enough and accessible
        (ON, [{**ANY, "capacity": "1Gi"}, {**IN_A, "capacity": "5Gi"},
              {**ANY, "capacity": "1Gi", "storageClassName": "other"}], "3Gi",
         [FITS, NO_ROOM]),
        (ON, [{**ANY, "capacity": "5Gi", "storageClassName": "other"}], "3Gi",
         [NO_ROOM, NO_ROOM]),
    ],
)  # fmt: skip
def test_has_enough_capacity(tmp_path, driver, capacities, size, want):
    objs = _objects(driver, capacities, [("data", size, "fast")])
    assert _reasons(tmp_path, objs) == want


@pytest.mark.parametrize(
    ("claims", "want"),
    [
        # checkVolumeProvisions: the first claim that fails decides, in request order
        # (a stable sort)
        ([("big", "3Gi", "fast"), ("local", "3Gi", "none")], [NO_ROOM, NO_ROOM]),
        ([("local", "3Gi", "none"), ("big", "3Gi", "fast")],
         [[ERR_REASON_BIND_CONFLICT]] * 2),
        ([("big", "5Gi", "fast"), ("local", "1Gi", "none")],
         [[ERR_REASON_BIND_CONFLICT]] * 2),
        # no volume matched, then not enough storage: only the storage reason
        ([("small", "1Gi", "fast"), ("big", "5Gi", "fast")], [NO_ROOM, NO_ROOM]),
        ([("small", "1Gi", "fast")], [FITS, FITS]),
    ],
)  # fmt: skip
def test_the_first_claim_to_provision_decides(tmp_path, claims, want):
    objs = _objects(ON, [{**ANY, "capacity": "2Gi"}], claims)
    assert _reasons(tmp_path, objs) == want


def test_reserve_consumes_no_capacity(tmp_path):
    """Two pods provision 2Gi each from one 2Gi CSIStorageCapacity: both are placed, on
    the node it is accessible from (the driver updates the objects, not the scheduler)."""
    from kscore_fast.api import simulate

    objs = _objects(ON, [{**IN_A, "capacity": "2Gi"}], [("d0", "2Gi", "fast")])
    claim = next(o for o in objs if o["kind"] == "PersistentVolumeClaim")
    objs.append({**claim, "metadata": {"name": "d1", "namespace": "default"}})
    objs.append({"kind": "Pod", "metadata": {"name": "q", "namespace": "default"},
                 "spec": {"containers": [{"name": "c"}], "volumes": [
                     {"name": "v", "persistentVolumeClaim": {"claimName": "d1"}}]}})  # fmt: skip
    result = simulate(cluster_of(objs, tmp_path))
    assert result.host_names == ["n1", "n1"]


def test_the_reader_keeps_what_the_check_reads(tmp_path):
    objs = _objects(ON, [{"nodeTopology": {"matchLabels": {ZONE: "a"}}, "capacity": "1500m",
                          "maximumVolumeSize": "-2.5"},
                         {"apiVersion": "storage.k8s.io/v1", "capacity": 7}], [])  # fmt: skip
    next(o for o in objs if o["kind"] == "CSIStorageCapacity")["metadata"].pop("namespace")
    storage = cluster_of(objs, tmp_path, "yaml").snapshot.storage
    zone_a = Selector((Requirement(ZONE, EQUALS, ("a",)),))
    assert list(storage.capacities.values()) == [
        CapacityRecord("default", "csisc-0", "fast", zone_a, 2, -3),
        CapacityRecord("kube-system", "csisc-1", "fast", None, 7, None),
    ]
    assert storage.claims == {}
    one = cluster_of(_objects(ON, [], [("c", "1500m", "fast"), ("d", None, "fast")]), tmp_path)
    claims = one.snapshot.storage.claims
    assert claims[("default", "c")].request_value == 2
    assert claims[("default", "d")].request_value is None


@pytest.mark.parametrize(
    ("capacity", "field"),
    [
        ({"storageClassName": ""}, "storageClassName"),
        ({"storageClassName": "Fast_Class"}, "storageClassName"),
        ({"capacity": "-1Gi"}, "capacity"),
        ({"capacity": "lots"}, "capacity"),
        ({"maximumVolumeSize": "1 Gi"}, "maximumVolumeSize"),
        ({"nodeTopology": {"matchExpressions": [{"key": ZONE, "operator": "In"}]}},
         r"nodeTopology\.matchExpressions\[0\]\.values"),
        ({"nodeTopology": {"matchLabels": {ZONE: "a b"}}}, r"nodeTopology\.matchLabels"),
    ],
)  # fmt: skip
def test_bad_capacities_are_refused(tmp_path, capacity, field):
    objs = _objects(ON, [capacity], [])
    where = r"CSIStorageCapacity kube-system/csisc-0.*"
    with pytest.raises(InputError, match=where + field):
        cluster_of(objs, tmp_path)
