"""ImageLocality kernels == the scalar reference port, on seeded random clusters (both the
scheduler cache's image states and the upstream test snapshot's)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from kscore_fast.model.objects import ContainerImage, ContainerRecord, NodeRecord, PodRecord
from kscore_fast.model.snapshot import build_cluster
from kscore_fast.plugins.imagelocality import ImageLocality, kernels, reference
from kscore_fast.plugins.imagelocality.plugin import build_state

from ..harness import score_lists

MB = 1024 * 1024
ZONE = "topology.kubernetes.io/zone"
REPOS = ["nginx", "gcr.io/app", "gcr.io:5000/root", "quay.io/x/y", "busybox", ""]
TAGS = ["", ":latest", ":v1", "@sha256:abc"]
SIZES = [0, 1, 10 * MB, 23 * MB, 24 * MB, 300 * MB, 999 * MB, 1000 * MB, 4000 * MB,
         2**62, 2**63 - 1, 2**63 - 2**9, -(5 * MB)]  # fmt: skip


def _image_name(r: random.Random) -> str:
    return r.choice(REPOS) + r.choice(TAGS)


def random_cluster(seed: int):
    r = random.Random(seed)
    huge = r.random() < 0.2
    sizes = SIZES if huge else SIZES[:9]
    nodes = []
    for i in range(r.randint(1, 14)):
        imgs = tuple(
            ContainerImage(tuple(_image_name(r) for _ in range(r.randint(0, 3))), r.choice(sizes))
            for _ in range(r.randint(0, 5))
        )
        labels = {ZONE: r.choice(["z1", "z2", "z3"])} if r.random() < 0.8 else {}
        nodes.append(NodeRecord(f"n{i}", labels, images=imgs))
    pods = [
        PodRecord("", f"p{j}", containers=tuple(
            ContainerRecord(image=_image_name(r)) for _ in range(r.randint(0, 5))),
            init_containers=(ContainerRecord(image=_image_name(r)),))
        for j in range(r.randint(1, 6))
    ]  # fmt: skip
    return r, build_cluster(nodes, pods)


@pytest.mark.parametrize("test_snapshot", [False, True], ids=["cache", "test-snapshot"])
@pytest.mark.parametrize("seed", range(250))
def test_kernels_equal_reference(seed, test_snapshot):
    r, c = random_cluster(seed)
    n = c.snapshot.n_nodes
    lists = [sorted(r.sample(range(n), r.randint(1, n))) for _ in c.batch.pods]
    if test_snapshot:
        state = build_state(c.snapshot, c.batch, test_snapshot=True)
    else:
        state = ImageLocality().prepare(c.snapshot, c.batch)
    raw, norm = score_lists(kernels, state, lists, False)
    want = [reference.score_pod(c.snapshot, p, ns, test_snapshot)
            for p, ns in zip(c.batch.pods, lists, strict=True)]  # fmt: skip
    assert raw == want == norm
    assert all(0 <= s <= 100 for row in raw for s in row)


def test_huge_sizes_wrap_as_go():
    """Sizes near 2^63: ``int64(float64(size) * 1.0)`` is out of range (math.MinInt64 on
    amd64) and int64 sums wrap."""
    big = 2**63 - 1
    nodes = [NodeRecord("n", images=(ContainerImage(("a:latest",), big),
                                      ContainerImage(("b:latest",), 2**62)))]  # fmt: skip
    pods = [PodRecord("", "p", containers=(ContainerRecord("a"),)),
            PodRecord("", "q", containers=(ContainerRecord("b"),) * 3)]  # fmt: skip
    c = build_cluster(nodes, pods)
    assert reference.scaled_image_score(reference.ImageStateSummary(big, 1), 1) == -(2**63)
    assert reference.sum_image_scores({"b:latest": reference.ImageStateSummary(2**62, 1)},
                                      pods[1].containers, 1) == -(2**62)  # fmt: skip
    raw, _ = score_lists(kernels, ImageLocality().prepare(c.snapshot, c.batch), [[0], [0]], False)
    assert raw == [[0], [0]] == [reference.score_pod(c.snapshot, p, [0]) for p in pods]


def test_no_containers_scores_zero():
    c = build_cluster([NodeRecord("n", images=(ContainerImage(("x:latest",), MB),))],
                      [PodRecord("", "p")])  # fmt: skip
    raw, _ = score_lists(kernels, ImageLocality().prepare(c.snapshot, c.batch), [[0]], False)
    assert raw == [[0]]


def test_state_types_match_empty_state():
    _, c = random_cluster(3)
    plugin = ImageLocality()
    full, empty = plugin.prepare(c.snapshot, c.batch), plugin.empty_state()
    assert [(a.dtype, a.ndim) for a in full] == [(b.dtype, b.ndim) for b in empty]
    assert all(a.flags.c_contiguous for a in full)
    assert plugin.prepare(c.snapshot, c.batch) is full
    assert (ImageLocality.filters, ImageLocality.scores, ImageLocality.normalizes) == (
        False, True, False
    )  # fmt: skip


def test_state_keeps_only_the_batch_images():
    nodes = [NodeRecord("n0", images=(ContainerImage(("a:latest", "b:latest"), MB),
                                      ContainerImage(("c:latest",), MB))),
             NodeRecord("n1", images=(ContainerImage(("c:latest",), MB),))]  # fmt: skip
    c = build_cluster(nodes, [PodRecord("", "p", containers=(ContainerRecord("c"),
                                                             ContainerRecord("zz")))])  # fmt: skip
    node_ptr, node_img, _, pod_ptr, pod_img = ImageLocality().prepare(c.snapshot, c.batch)
    assert node_ptr.tolist() == [0, 1, 2] and node_img.tolist() == [0, 0]
    assert pod_ptr.tolist() == [0, 2] and pod_img.tolist() == [0, -1]
    assert np.asarray(node_img).dtype == np.int32
