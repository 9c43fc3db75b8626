"""Compile every kernel once (``kscore warmup``), filling numba's cache.

Runs a tiny cluster through every registered score plugin, serial and parallel, so each
kernel is compiled with the dtypes the engine uses. Later processes load the cached
machine code.
"""

from __future__ import annotations

from . import _jit
from .framework.runtime import Framework, WeightedPlugin
from .model.objects import NodeRecord, OwnerReference, PodRecord, ServiceRecord
from .model.snapshot import build_cluster
from .plugins.registry import IN_TREE


def warmup() -> int:
    """Compile all kernels; return how many kernels exist."""
    nodes = [NodeRecord(f"n{i}", {"topology.kubernetes.io/zone": f"z{i % 2}"}) for i in range(3)]
    ref = (OwnerReference("apps/v1", "ReplicaSet", "rs", True),)
    pods = [PodRecord("default", f"e{i}", {"app": "a"}, node_name=f"n{i % 3}") for i in range(4)]
    pods += [PodRecord("default", "p", {"app": "a"}, owner_references=ref)]
    cluster = build_cluster(nodes, pods, [ServiceRecord("default", "s", {"app": "a"})])
    plugins = [cls() for _, cls in IN_TREE.items()]
    framework = Framework([WeightedPlugin(p, 1) for p in plugins if p.scores], 0,
                          [p for p in plugins if p.filters])  # fmt: skip
    threshold = _jit.PARALLEL_MIN_WORK
    try:
        for _jit.PARALLEL_MIN_WORK in (threshold, 0):  # serial, then parallel variants
            for scores in ("all", "top:1"):
                cluster.batch.cache.clear()
                framework.run(cluster.snapshot, cluster.batch, scores=scores)
            Framework([]).run(cluster.snapshot, cluster.batch)
    finally:
        _jit.PARALLEL_MIN_WORK = threshold
    return len(_jit.REGISTERED)
