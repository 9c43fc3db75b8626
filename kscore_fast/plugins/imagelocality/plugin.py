"""ImageLocality: favour nodes that already hold the pod's container images.

Wiring of pkg/scheduler/framework/plugins/imagelocality/image_locality.go onto the
compiled plugin shape (``framework/interface.py``). Per snapshot (cached): every node's
``ImageStates`` as the scheduler cache builds them (``reference.cache_image_states``:
nodes added in input order, ``snapshot.node_input_order``), each (node, image name)
turned into its ``scaledImageScore`` over all nodes. Per batch (cached): the normalized
image name of every container of every pending pod, as an id of the images the batch
uses; the node entries are cut down to those images (layout in ``kernels``).

``build_state(..., test_snapshot=True)`` builds the state from ``cache.NewSnapshot``'s
image states instead (``reference.snapshot_image_states``: every node's own size, counts
over all nodes), for the upstream unit tests, whose expectations were computed that way.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ...errors import InputError
from ...framework.interface import Plugin
from ...model.snapshot import ClusterSnapshot, PodBatch, spec_representatives
from ..helper.pod_fields import CONTAINERS
from ..helper.twins import expand_rows
from . import kernels
from .reference import INT64_MIN, NAME, node_image_states, normalized_image_name

_TWO63 = 2.0**63


def _scaled_scores(sizes: np.ndarray, nums: np.ndarray, n_nodes: int) -> np.ndarray:
    """``scaledImageScore``, vectorized: ``int64(float64(size) * (float64(num) /
    float64(total)))``, out-of-range conversions giving math.MinInt64 as on amd64."""
    spread = nums.astype(np.float64) / np.float64(n_nodes)
    f = sizes.astype(np.float64) * spread
    ok = (f >= -_TWO63) & (f < _TWO63)
    return np.where(ok, np.where(ok, f, 0.0).astype(np.int64), np.int64(INT64_MIN))


def _node_tables(snapshot: ClusterSnapshot, test_snapshot: bool
                 ) -> tuple[dict[str, int], *tuple[np.ndarray, ...]]:  # fmt: skip
    """(image name → id, node_ptr, node_img, node_score, entry_node) over every image name
    of every node (cached on the snapshot; never written)."""
    key = (NAME, test_snapshot)
    cached = snapshot.cache.get(key)
    if cached is not None:
        return cached
    vocab: dict[str, int] = {}
    node, img, size, num = [], [], [], []
    for i, states in enumerate(node_image_states(snapshot, test_snapshot)):
        for name, st in states.items():
            node.append(i)
            img.append(vocab.setdefault(name, len(vocab)))
            size.append(st.size)
            num.append(st.num_nodes)
    try:
        sizes = np.array(size, dtype=np.int64)
    except OverflowError:
        raise InputError("a node's status.images sizeBytes does not fit an int64") from None
    node_a, img_a = np.array(node, dtype=np.int64), np.array(img, dtype=np.int64)
    order = np.lexsort((img_a, node_a))
    ptr = np.zeros(snapshot.n_nodes + 1, dtype=np.int64)
    np.cumsum(np.bincount(node_a, minlength=snapshot.n_nodes), out=ptr[1:])
    scores = _scaled_scores(sizes, np.array(num, dtype=np.int64), snapshot.n_nodes)
    entry_node = np.repeat(np.arange(snapshot.n_nodes), np.diff(ptr))
    cached = snapshot.cache[key] = (vocab, ptr, img_a[order], scores[order], entry_node)
    return cached


def build_state(snapshot: ClusterSnapshot, batch: PodBatch, test_snapshot: bool = False
                ) -> tuple[np.ndarray, ...]:  # fmt: skip
    """The kernels' state (``test_snapshot``: image states as ``cache.NewSnapshot``
    counts them, for the upstream unit tests)."""
    vocab, node_ptr, node_img, node_score, entry_node = _node_tables(snapshot, test_snapshot)
    get = vocab.get
    reps, twins = spec_representatives(batch)
    rep_img = np.array(
        [get(normalized_image_name(c.image), -1) for p in reps for c in p.containers],
        dtype=np.int64,
    ).reshape(-1)
    rep_ptr = np.zeros(len(reps) + 1, dtype=np.int64)
    np.cumsum([len(p.containers) for p in reps], out=rep_ptr[1:])
    pod_ptr, take = expand_rows(rep_ptr, twins)
    pod_img = rep_img[take]
    used = np.unique(pod_img[pod_img >= 0])
    compact = np.full(len(vocab) + 1, -1, dtype=np.int64)  # +1: never empty
    compact[used] = np.arange(len(used))
    keep = compact[node_img] >= 0
    ptr = np.zeros_like(node_ptr)
    np.cumsum(np.bincount(entry_node[keep], minlength=snapshot.n_nodes), out=ptr[1:])
    return (
        ptr,
        compact[node_img[keep]].astype(np.int32),
        np.ascontiguousarray(node_score[keep]),
        pod_ptr,
        np.where(pod_img >= 0, compact[pod_img], -1).astype(np.int32),
    )


class ImageLocality(Plugin):
    """The ImageLocality score plugin (Score only; no NormalizeScore).

    It takes no args (Go's ``New`` ignores them).
    """

    name = NAME
    #: what ``prepare`` reads of a pod (a lone pod's state is kept by them)
    lone_fields = CONTAINERS
    filters = False
    scores = True
    normalizes = False
    #: its interfaces in v1.23.6 (pkg/scheduler/framework/plugins/imagelocality)
    extension_points = frozenset({"score"})
    kernels = kernels
    #: a raw score depends on the pod and the node only
    row_independent = True
    #: no node aggregates: binding a pod changes nothing it reads
    bind_independent = True
    #: reads only the pod's spec: pods of one ``spec_twins`` group score alike
    spec_only = True

    def __init__(self, args: Mapping[str, Any] | None = None) -> None:
        self.args = args

    def prepare(self, snapshot: ClusterSnapshot, batch: PodBatch) -> tuple[np.ndarray, ...]:
        """The kernels' state (cached on the batch)."""
        cached = batch.cache.get(NAME)
        if cached is None or cached[0] is not snapshot:
            cached = batch.cache[NAME] = (snapshot, build_state(snapshot, batch))
        return cached[1]

    @staticmethod
    def empty_state() -> tuple[np.ndarray, ...]:
        z64, z32 = np.zeros(1, np.int64), np.zeros(0, np.int32)
        return (z64, z32, np.zeros(0, np.int64), z64.copy(), z32.copy())

    @staticmethod
    def constant_scores(state: tuple) -> np.ndarray:
        """bool[B]: the pods none of whose images is on any node (``calculatePriority`` of
        a sum of 0 on every node)."""
        pod_ptr, pod_img = state[3], state[4]
        on_nodes = np.concatenate(([0], np.cumsum(pod_img >= 0)))
        return on_nodes[pod_ptr[1:]] == on_nodes[pod_ptr[:-1]]
