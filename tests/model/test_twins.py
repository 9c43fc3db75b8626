"""``pod_twins``: pending pods are twins exactly when their records are equal but for the
name and nominated node, however their containers are held (shared objects, as a
template's pods get them from the reader, or equal copies); pods whose label set is their
own are found without their records' texts."""

from __future__ import annotations

import numpy as np
import pytest

from kscore_fast.model import snapshot
from kscore_fast.model.labels import LabelInterner
from kscore_fast.model.objects import ContainerRecord, NodeRecord, PodRecord
from kscore_fast.model.quantity import parse_quantity
from kscore_fast.model.snapshot import build_cluster, lone_label_sets, pod_twins


@pytest.fixture(autouse=True, params=["hashed", "few"])
def way(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Every test both ways: label sets hashed first (large batches) and records only."""
    monkeypatch.setattr(snapshot, "FEW_PODS", 0 if request.param == "hashed" else 1 << 30)
    return request.param


def _container(cpu: str, image: str = "nginx") -> ContainerRecord:
    return ContainerRecord(image=image, requests={"cpu": parse_quantity(cpu)})


def _twins(pods: list[PodRecord]) -> list[int]:
    cluster = build_cluster([NodeRecord("n0")], pods)
    return pod_twins(cluster.batch).tolist()


def test_equal_containers_make_twins_whether_shared_or_copied() -> None:
    shared = _container("1")
    pods = [
        PodRecord("default", "a", containers=(shared,)),
        PodRecord("default", "b", containers=(shared,), nominated_node_name="n0"),
        PodRecord("default", "c", containers=(_container("1"),)),  # an equal copy
        PodRecord("default", "d", containers=(_container("1000m"),)),  # another value
        PodRecord("default", "e", containers=(_container("1", "redis"),)),
        PodRecord("default", "f", containers=(shared, shared)),
        PodRecord("default", "g", containers=(shared,), init_containers=(shared,)),
        PodRecord("default", "h", init_containers=(shared,)),
        PodRecord("default", "i", containers=(shared,), labels={"app": "x"}),
    ]
    assert _twins(pods) == [0, 0, 0, 1, 2, 3, 4, 5, 6]


def test_containers_and_init_containers_are_not_interchangeable() -> None:
    one, two = _container("1"), _container("2")
    pods = [
        PodRecord("default", "a", containers=(one,), init_containers=(two,)),
        PodRecord("default", "b", containers=(two,), init_containers=(one,)),
        PodRecord("default", "c", containers=(one, two)),
        PodRecord("default", "d", containers=(two, one)),
        PodRecord("default", "e", containers=(one,), init_containers=(two,)),
    ]
    assert _twins(pods) == [0, 1, 2, 3, 0]


def test_lone_label_sets_whatever_the_order_of_the_labels() -> None:
    table = LabelInterner().table(
        [{"a": "1", "b": "2"}, {"b": "2", "a": "1"}, {"a": "1"}, {}, {"a": "2", "b": "1"}, {}]
    )
    assert lone_label_sets(table).tolist() == [False, False, True, False, True, False]
    # every set its own (found by one sort), and one shared pair among many
    alone = [{"id": str(i), "app": "a"} for i in range(50)]
    assert lone_label_sets(LabelInterner().table(alone)).all()
    pair = LabelInterner().table([*alone, {"app": "a", "id": "7"}])
    assert np.flatnonzero(~lone_label_sets(pair)).tolist() == [7, 50]


def test_ids_in_order_of_first_appearance_with_lone_pods_between() -> None:
    c = _container("1")
    pods = [
        PodRecord("default", "a", labels={"id": "0"}, containers=(c,)),
        PodRecord("default", "b", labels={"app": "x"}, containers=(c,)),
        PodRecord("default", "c", labels={"id": "1"}, containers=(c,)),
        PodRecord("default", "d", labels={"app": "x"}, containers=(c,)),
        PodRecord("default", "e", labels={"app": "x"}, containers=(_container("2"),)),
        PodRecord("default", "f", labels={"id": "2"}),
    ]
    assert _twins(pods) == [0, 1, 2, 1, 3, 4]


def test_a_hash_collision_only_costs_a_full_comparison(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every label set taken for shared: the records' texts still decide."""
    monkeypatch.setattr(snapshot, "lone_label_sets", lambda t: np.zeros(len(t), np.bool_))
    c = _container("1")
    pods = [
        PodRecord("default", "a", labels={"id": "0"}, containers=(c,)),
        PodRecord("default", "b", labels={"id": "1"}, containers=(c,)),
        PodRecord("default", "c", labels={"id": "0"}, containers=(c,)),
    ]
    assert _twins(pods) == [0, 1, 0]


def _spec(pods: list[PodRecord]) -> list[int]:
    cluster = build_cluster([NodeRecord("n0")], pods)
    groups = snapshot.spec_twins(cluster.batch)
    reps, again = snapshot.spec_representatives(cluster.batch)
    assert again is groups and [r.name for r in reps] == [
        pods[i].name for i in np.unique(groups, return_index=True)[1].tolist()
    ]
    return groups.tolist()


def test_spec_twins_differ_in_name_namespace_labels_owners_claims_only() -> None:
    from kscore_fast.model.objects import OwnerReference, Toleration

    shared = _container("1")
    owner = (OwnerReference("apps/v1", "ReplicaSet", "rs", True),)
    pods = [
        PodRecord("default", "a", containers=(shared,)),
        PodRecord("ns1", "b", containers=(shared,), labels={"id": "1"}),
        PodRecord(
            "ns2",
            "c",
            containers=(_container("1"),),
            owner_references=owner,
            nominated_node_name="n0",
        ),
        PodRecord("default", "d", containers=(_container("2"),), labels={"id": "2"}),
        PodRecord("default", "e", containers=(shared,), priority=5),
        PodRecord("default", "f", containers=(shared,), scheduler_name="other"),
        PodRecord("default", "g", containers=(shared,), node_selector={"disk": "ssd"}),
        PodRecord(
            "default",
            "h",
            containers=(shared,),
            tolerations=(Toleration("k", "Exists", "", "NoSchedule"),),
        ),
        PodRecord("default", "i", containers=(shared,), claims=("data",)),
        PodRecord("default", "j", containers=(shared,), labels={"id": "3"}, priority=5),
    ]
    assert _spec(pods) == [0, 0, 0, 1, 2, 3, 4, 5, 0, 2]  # (claim names: no spec_only plugin's)
    assert len(set(_twins(pods))) == len(pods)  # none of them are twins


def test_spec_twins_of_equal_values_in_other_objects() -> None:
    """Pods holding equal values in distinct objects are grouped by their texts; pods
    holding the very same objects without them."""
    a = PodRecord("default", "a", containers=(_container("1"),), node_selector={"x": "y"})
    b = PodRecord("default", "b", containers=(_container("1"),), node_selector={"x": "y"})
    c = PodRecord("default", "c", containers=a.containers, node_selector=a.node_selector)
    d = PodRecord("default", "d", containers=a.containers, node_selector={"x": "z"})
    assert _spec([a, b, c, d]) == [0, 0, 0, 1]
