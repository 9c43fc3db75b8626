"""Scalar reference port of ImageLocality, function by function from the Go source.

Mirrors, at kube-scheduler v1.23.6:

* pkg/scheduler/framework/plugins/imagelocality/image_locality.go: ``Score``,
  ``calculatePriority``, ``sumImageScores``, ``scaledImageScore``, ``normalizedImageName``
  (only ``pod.Spec.Containers``: init containers are not considered);
* pkg/scheduler/internal/cache/cache.go: ``addNodeImageStates`` and
  ``createImageStateSummary``, what a running scheduler's cache holds
  (:func:`cache_image_states`): nodes added one by one in input order, each node's
  summary of an image taken when that node is added (size: the first size reported for
  the name in the cache; NumNodes: the nodes having it so far), never refreshed by later
  nodes;
* pkg/scheduler/internal/cache/snapshot.go: ``createNodeInfoMap``, ``getNodeImageStates``,
  ``createImageExistenceMap``, what ``cache.NewSnapshot`` (the upstream unit tests'
  snapshot) holds (:func:`snapshot_image_states`): each node's own size (its last entry
  naming the image), NumNodes over all nodes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ...goarith import MAX_NODE_SCORE
from ...model.objects import ContainerRecord, NodeRecord, PodRecord
from ...model.snapshot import ClusterSnapshot

NAME = "ImageLocality"
MB = 1024 * 1024
MIN_THRESHOLD = 23 * MB
MAX_CONTAINER_THRESHOLD = 1000 * MB

INT64_MIN = -(2**63)
_TWO63 = 2.0**63


@dataclass(frozen=True)
class ImageStateSummary:
    """framework.ImageStateSummary."""

    size: int
    num_nodes: int


def go_int64_of_float(f: float) -> int:
    """Go's ``int64(f)`` on amd64 (``CVTTSD2SQ``): truncation toward zero; out of range
    (or NaN) gives the "integer indefinite" value, math.MinInt64."""
    if not (-_TWO63 <= f < _TWO63):
        return INT64_MIN
    return int(f)


def wrap_int64(x: int) -> int:
    """Go's int64 overflow: wrap around."""
    return (x + 2**63) % 2**64 - 2**63


def input_order(snapshot: ClusterSnapshot) -> list[int]:
    """Node indices (node-tree order) in the order the nodes were given, i.e. added to the
    cache (``snapshot.node_input_order`` holds each node's input position)."""
    return np.argsort(snapshot.node_input_order, kind="stable").tolist()


class ImageStateCache:
    """The scheduler cache's ``imageStates`` (pkg/scheduler/internal/cache/cache.go): per
    image name, its size (the first reported while the name is cached) and the nodes that
    have it. A node's summaries are taken when it is added, and never refreshed."""

    def __init__(self) -> None:
        self.states: dict[str, tuple[int, set[str]]] = {}

    def copy(self) -> ImageStateCache:
        other = ImageStateCache()
        other.states = {name: (size, set(nodes)) for name, (size, nodes) in self.states.items()}
        return other

    def add_node(self, node: NodeRecord) -> dict[str, ImageStateSummary]:
        """``addNodeImageStates``: the node's ``NodeInfo.ImageStates``."""
        new_sum: dict[str, ImageStateSummary] = {}
        for image in node.images:
            for name in image.names:
                state = self.states.get(name)
                if state is None:
                    state = self.states[name] = (image.size_bytes, {node.name})
                else:
                    state[1].add(node.name)
                if name not in new_sum:  # createImageStateSummary
                    new_sum[name] = ImageStateSummary(state[0], len(state[1]))
        return new_sum

    def remove_node(self, node: NodeRecord) -> None:
        """``removeNodeImageStates``."""
        for image in node.images:
            for name in image.names:
                state = self.states.get(name)
                if state is not None:
                    state[1].discard(node.name)
                    if not state[1]:
                        del self.states[name]


def cache_image_states(nodes: Sequence[NodeRecord]) -> list[dict[str, ImageStateSummary]]:
    """``AddNode`` → ``addNodeImageStates`` for ``nodes`` in the order given: each node's
    ``NodeInfo.ImageStates``."""
    cache = ImageStateCache()
    return [cache.add_node(node) for node in nodes]


def snapshot_image_states(nodes: Sequence[NodeRecord]) -> list[dict[str, ImageStateSummary]]:
    """``cache.NewSnapshot``'s ``getNodeImageStates`` for every node of ``nodes``."""
    existence: dict[str, set[str]] = {}  # createImageExistenceMap
    for node in nodes:
        for image in node.images:
            for name in image.names:
                existence.setdefault(name, set()).add(node.name)
    out = []
    for node in nodes:
        states = {}
        for image in node.images:
            for name in image.names:
                states[name] = ImageStateSummary(image.size_bytes, len(existence[name]))
        out.append(states)
    return out


def node_image_states(snapshot: ClusterSnapshot, test_snapshot: bool = False
                      ) -> list[dict[str, ImageStateSummary]]:  # fmt: skip
    """Every node's ``ImageStates`` (node-tree order): the scheduler cache's, nodes added
    in input order, or (``test_snapshot``) ``cache.NewSnapshot``'s."""
    if test_snapshot:
        return snapshot_image_states(snapshot.nodes)
    if snapshot.image_states is not None:  # a simulator's node history
        return snapshot.image_states
    order = input_order(snapshot)
    states = cache_image_states([snapshot.nodes[i] for i in order])
    out: list[dict[str, ImageStateSummary]] = [{} for _ in order]
    for pos, i in enumerate(order):
        out[i] = states[pos]
    return out


def normalized_image_name(name: str) -> str:
    """``normalizedImageName``: add ``:latest`` when the last ':' is not after the last '/'
    (code-point and byte indices order the ASCII ':' and '/' alike)."""
    if name.rfind(":") <= name.rfind("/"):
        name = name + ":latest"
    return name


def scaled_image_score(state: ImageStateSummary, total_num_nodes: int) -> int:
    """``scaledImageScore``."""
    spread = float(state.num_nodes) / float(total_num_nodes)
    return go_int64_of_float(float(state.size) * spread)


def sum_image_scores(
    image_states: dict[str, ImageStateSummary],
    containers: Sequence[ContainerRecord],
    total_num_nodes: int,
) -> int:
    """``sumImageScores``."""
    total = 0
    for c in containers:
        state = image_states.get(normalized_image_name(c.image))
        if state is not None:
            total = wrap_int64(total + scaled_image_score(state, total_num_nodes))
    return total


def calculate_priority(sum_scores: int, num_containers: int) -> int:
    """``calculatePriority`` (Go's int64 division, truncating toward zero)."""
    max_threshold = MAX_CONTAINER_THRESHOLD * num_containers
    if sum_scores < MIN_THRESHOLD:
        sum_scores = MIN_THRESHOLD
    elif sum_scores > max_threshold:
        sum_scores = max_threshold
    num = MAX_NODE_SCORE * (sum_scores - MIN_THRESHOLD)
    den = max_threshold - MIN_THRESHOLD
    q = abs(num) // abs(den)
    return q if (num >= 0) == (den > 0) else -q


def score(pod: PodRecord, image_states: dict[str, ImageStateSummary], total_num_nodes: int
          ) -> int:  # fmt: skip
    """``Score`` of ``pod`` on a node with ``image_states``."""
    return calculate_priority(
        sum_image_scores(image_states, pod.containers, total_num_nodes), len(pod.containers)
    )


def score_pod(snapshot: ClusterSnapshot, pod: PodRecord, nodes: Sequence[int],
              test_snapshot: bool = False) -> list[int]:  # fmt: skip
    """Scores of ``pod`` on the nodes ``nodes`` (indices; no NormalizeScore)."""
    states = node_image_states(snapshot, test_snapshot)
    return [score(pod, states[n], snapshot.n_nodes) for n in nodes]
