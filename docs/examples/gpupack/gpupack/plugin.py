"""GpuPacking: prefer the node where a GPU pod leaves the fewest whole GPUs idle, and keep
pods without GPUs off GPU nodes (the packing the FGD study measures fragmentation
against). Score only; node aggregates: the GPUs each node's pods request."""

import numpy as np

from kscore_fast import Plugin
from kscore_fast.model.snapshot import ClusterSnapshot, PodBatch

from . import kernels
from .reference import node_gpus, pod_gpus


class GpuPacking(Plugin):
    name = "GpuPacking"
    scores = True
    kernels = kernels
    #: a raw score depends on the pod and the node only (not on the node list)
    row_independent = True

    def prepare(self, snapshot: ClusterSnapshot, batch: PodBatch) -> tuple:
        gpus = np.array([node_gpus(n) for n in snapshot.nodes], dtype=np.int64)
        used = np.zeros(snapshot.n_nodes, dtype=np.int64)
        for pod, node in zip(snapshot.pods, snapshot.pod_node.tolist(), strict=True):
            if node >= 0:
                used[node] += pod_gpus(pod)
        want = np.array([pod_gpus(p) for p in batch.pods], dtype=np.int64)
        return gpus, used, want

    def empty_state(self) -> tuple:
        return kernels.empty()
