"""Ported upstream tables: pkg/scheduler/framework/plugins/imagelocality/image_locality_test.go
(kube-scheduler v1.23.6): ``TestImageLocalityPriority`` and ``TestNormalizedImageName``.
Test ids are the Go case names.

Go's test builds its snapshot with ``cache.NewSnapshot(nil, nodes)``, which counts an
image's nodes over *all* nodes and keeps each node's own size; a running scheduler's cache
(what kscore_fast scores by default) takes each node's view when the node is added. The
expectations are Go's, so these cases are run on the test snapshot's image states
(``build_state(..., test_snapshot=True)``, ``reference.score_pod(..., test_snapshot=True)``);
``test_cache_image_states_*`` below check the cache's own semantics.
"""

from __future__ import annotations

import hashlib

import pytest

from kscore_fast.model.objects import ContainerImage, ContainerRecord, NodeRecord, PodRecord
from kscore_fast.model.snapshot import build_cluster
from kscore_fast.plugins.imagelocality import ImageLocality, kernels, reference
from kscore_fast.plugins.imagelocality.plugin import build_state
from kscore_fast.plugins.imagelocality.reference import (
    ImageStateSummary,
    cache_image_states,
    normalized_image_name,
)

from ..harness import score_lists

MB = 1024 * 1024


def images(*entries: tuple[tuple[str, ...], int]) -> tuple[ContainerImage, ...]:
    """``v1.NodeStatus.Images``: (names, size in MB) per entry."""
    return tuple(ContainerImage(names, size * MB) for names, size in entries)


def image_pod(*image_names: str) -> PodRecord:
    return PodRecord("", "p", containers=tuple(ContainerRecord(image=i) for i in image_names))


def image_node(name: str, imgs: tuple[ContainerImage, ...] = ()) -> NodeRecord:
    """``makeImageNode``."""
    return NodeRecord(name, images=imgs)


TEST_40_250 = image_pod("gcr.io/40", "gcr.io/250")
TEST_40_300 = image_pod("gcr.io/40", "gcr.io/300")
TEST_MIN_MAX = image_pod("gcr.io/10", "gcr.io/4000")
TEST_300_600_900 = image_pod("gcr.io/300", "gcr.io/600", "gcr.io/900")
TEST_30_40 = image_pod("gcr.io/30", "gcr.io/40")

NODE_40_300_2000 = images((("gcr.io/40:latest", "gcr.io/40:v1", "gcr.io/40:v1"), 40),
                          (("gcr.io/300:latest", "gcr.io/300:v1"), 300),
                          (("gcr.io/2000:latest",), 2000))  # fmt: skip
NODE_250_10 = images((("gcr.io/250:latest",), 250), (("gcr.io/10:latest", "gcr.io/10:v1"), 10))
NODE_600_40_900 = images((("gcr.io/600:latest",), 600), (("gcr.io/40:latest",), 40),
                         (("gcr.io/900:latest",), 900))  # fmt: skip
NODE_300_600_900 = images((("gcr.io/300:latest",), 300), (("gcr.io/600:latest",), 600),
                          (("gcr.io/900:latest",), 900))  # fmt: skip
NODE_4000_30 = images((("gcr.io/4000:latest",), 4000), (("gcr.io/30:latest",), 30))
NODE_20_30_40 = images((("gcr.io/20:latest",), 20), (("gcr.io/30:latest",), 30),
                       (("gcr.io/40:latest",), 40))  # fmt: skip
NO_IMAGES = images()

# (name, pod, nodes [(name, images)], expected scores in node order)
CASES = [
    ("two images spread on two nodes, prefer the larger image one", TEST_40_250,
     [("machine1", NODE_40_300_2000), ("machine2", NODE_250_10)], [0, 5]),
    ("two images on one node, prefer this node", TEST_40_300,
     [("machine1", NODE_40_300_2000), ("machine2", NODE_250_10)], [7, 0]),
    ("if exceed limit, use limit", TEST_MIN_MAX,
     [("machine1", NODE_4000_30), ("machine2", NODE_250_10)], [100, 0]),
    ("if exceed limit, use limit (with node which has no images present)", TEST_MIN_MAX,
     [("machine1", NODE_4000_30), ("machine2", NODE_250_10), ("machine3", NO_IMAGES)], [66, 0, 0]),
    ("pod with multiple large images, machine2 is preferred", TEST_300_600_900,
     [("machine1", NODE_600_40_900), ("machine2", NODE_300_600_900), ("machine3", NO_IMAGES)],
     [32, 36, 0]),
    ("pod with multiple small images", TEST_30_40,
     [("machine1", NODE_20_30_40), ("machine2", NODE_4000_30)], [1, 0]),
]  # fmt: skip


@pytest.mark.parametrize(("pod", "nodes", "want"), [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])  # fmt: skip
def test_image_locality_priority(pod, nodes, want):
    c = build_cluster([image_node(n, imgs) for n, imgs in nodes], [pod])
    lists = [[c.snapshot.node_names.index(n) for n, _ in nodes]]
    state = build_state(c.snapshot, c.batch, test_snapshot=True)
    raw, _ = score_lists(kernels, state, lists, False)
    assert raw == [want]
    assert reference.score_pod(c.snapshot, pod, lists[0], test_snapshot=True) == want


def _fake_digest(content: str) -> str:
    """``getImageFakeDigest``."""
    return "sha256:" + hashlib.sha256(content.encode()).hexdigest()


@pytest.mark.parametrize(
    ("name", "want"),
    [("root", "root:latest"), ("gcr.io:5000/root", "gcr.io:5000/root:latest"),
     ("root:tag", "root:tag"), ("root@" + _fake_digest("root"), "root@" + _fake_digest("root"))],
    ids=["add :latest postfix 1", "add :latest postfix 2", "keep it as is 1", "keep it as is 2"],
)  # fmt: skip
def test_normalized_image_name(name, want):
    assert normalized_image_name(name) == want


# -- the scheduler cache's image states (not covered by the upstream tables) -------------


def test_cache_image_states_first_size_and_counts_so_far():
    """Nodes a, b, c added in this order, each with img:latest of sizes 100/200/300:
    summaries (100, 1), (100, 2), (100, 3) (cache.go addNodeImageStates)."""
    nodes = [image_node(n, ((ContainerImage(("img:latest",), s)),))
             for n, s in (("a", 100), ("b", 200), ("c", 300))]  # fmt: skip
    states = cache_image_states(nodes)
    assert [s["img:latest"] for s in states] == [
        ImageStateSummary(100, 1),
        ImageStateSummary(100, 2),
        ImageStateSummary(100, 3),
    ]


def test_cache_image_states_within_a_node_first_entry():
    """A name listed by two entries of one node: the first entry's size; the test
    snapshot keeps the last."""
    n = image_node("a", images((("x:1",), 10), (("x:1", "y:1"), 20)))
    assert cache_image_states([n])[0] == {"x:1": ImageStateSummary(10 * MB, 1),
                                          "y:1": ImageStateSummary(20 * MB, 1)}  # fmt: skip
    assert reference.snapshot_image_states([n])[0]["x:1"] == ImageStateSummary(20 * MB, 1)


def test_scores_follow_input_order_not_node_tree_order():
    """Zones interleave the node tree; the cache added nodes in input order."""
    zone = "topology.kubernetes.io/zone"
    specs = [("a", "z1", 600), ("b", "z1", 300), ("c", "z2", 900)]
    nodes = [NodeRecord(n, {zone: z}, images=images((("big:latest",), s))) for n, z, s in specs]
    c = build_cluster(nodes, [image_pod("big")])
    assert c.snapshot.node_names == ["a", "c", "b"]  # node-tree order
    state = ImageLocality().prepare(c.snapshot, c.batch)
    raw, _ = score_lists(kernels, state, [[0, 1, 2]], False)
    # a: 600 MB * 1/3, b: 600 MB * 2/3, c: 600 MB * 3/3 (first size reported: a's)
    want = [reference.calculate_priority(int(600 * MB * f), 1) for f in (1 / 3, 1.0, 2 / 3)]
    assert raw == [want] == [reference.score_pod(c.snapshot, c.batch.pods[0], [0, 1, 2])]
