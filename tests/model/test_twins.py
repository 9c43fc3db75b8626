"""``pod_twins``: pending pods are twins exactly when their records are equal but for the
name and nominated node, however their containers are held (shared objects, as a
template's pods get them from the reader, or equal copies)."""

from __future__ import annotations

from kscore_fast.model.objects import ContainerRecord, NodeRecord, PodRecord
from kscore_fast.model.quantity import parse_quantity
from kscore_fast.model.snapshot import build_cluster, pod_twins


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
