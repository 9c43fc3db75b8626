"""Run one compiled plugin over every (pod, node) pair, for plugin tests.

The kernels are passed to small uncached numba loops as first-class functions, so any
plugin following the shape of ``kscore_fast/framework/interface.py`` can be tested alone,
without the driver.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType
from typing import Any

import numba
import numpy as np


@numba.njit
def _filter_all(filter_node, state, n_pods, n_nodes, out):  # pragma: no cover - compiled
    for p in range(n_pods):
        for n in range(n_nodes):
            out[p, n] = filter_node(state, p, n)


@numba.njit
def _score_lists(score_pod, state, pods, ptr, nodes, out):  # pragma: no cover - compiled
    for p in range(ptr.shape[0] - 1):
        score_pod(state, pods[p], nodes[ptr[p] : ptr[p + 1]], out[ptr[p] : ptr[p + 1]])


@numba.njit
def _normalize_lists(normalize_pod, state, pods, ptr, nodes, scores):  # pragma: no cover
    for p in range(ptr.shape[0] - 1):
        normalize_pod(state, pods[p], nodes[ptr[p] : ptr[p + 1]], scores[ptr[p] : ptr[p + 1]])


@numba.njit
def _score_normalize_lists(score_normalize_pod, state, pods, ptr, nodes, raw, scores, done
                           ):  # fmt: skip  # pragma: no cover - compiled
    for p in range(ptr.shape[0] - 1):
        lo, hi = ptr[p], ptr[p + 1]
        done[p] = score_normalize_pod(state, pods[p], nodes[lo:hi], raw[lo:hi], scores[lo:hi])


def score_normalize_lists(
    kernels: ModuleType, state: Any, lists: list[list[int]], pods: list[int]
) -> tuple[list[list[int]], list[list[int]], list[bool]]:
    """Raw and normalized scores of pod ``pods[i]`` on ``lists[i]`` in one call per pod
    (the plugin's ``score_normalize_pod``), and whether it scored each (else the lists'
    entries are left as they were: -7)."""
    ptr = np.zeros(len(lists) + 1, dtype=np.int64)
    np.cumsum([len(x) for x in lists], out=ptr[1:])
    nodes = np.array([n for x in lists for n in x], dtype=np.int32)
    raw = np.full(len(nodes), -7, dtype=np.int64)  # (every entry must be written)
    scores = np.full(len(nodes), -7, dtype=np.int64)
    done = np.zeros(len(lists), dtype=np.bool_)
    _score_normalize_lists(kernels.score_normalize_pod, state, np.asarray(pods, np.int64), ptr,
                           nodes, raw, scores, done)  # fmt: skip
    split = lambda a: [a[ptr[i] : ptr[i + 1]].tolist() for i in range(len(lists))]  # noqa: E731
    return split(raw), split(scores), done.tolist()


def filter_codes(kernels: ModuleType, state: Any, n_pods: int, n_nodes: int) -> np.ndarray:
    """int64[P, N]: ``filter_node`` of every pod on every node."""
    out = np.zeros((n_pods, n_nodes), dtype=np.int64)
    _filter_all(kernels.filter_node, state, n_pods, n_nodes, out)
    return out


def score_lists(
    kernels: ModuleType,
    state: Any,
    lists: list[list[int]],
    normalize: bool,
    pods: list[int] | None = None,
) -> tuple[list[list[int]], list[list[int]]]:
    """Raw and (if ``normalize``) normalized scores of pod ``pods[i]`` (default ``i``) on
    ``lists[i]``."""
    pod_idx = np.arange(len(lists), dtype=np.int64) if pods is None else np.asarray(pods, np.int64)
    ptr = np.zeros(len(lists) + 1, dtype=np.int64)
    np.cumsum([len(x) for x in lists], out=ptr[1:])
    nodes = np.array([n for x in lists for n in x], dtype=np.int32)
    raw = np.zeros(len(nodes), dtype=np.int64)
    _score_lists(kernels.score_pod, state, pod_idx, ptr, nodes, raw)
    norm = raw.copy()
    if normalize:
        _normalize_lists(kernels.normalize_pod, state, pod_idx, ptr, nodes, norm)
    split = lambda a: [a[ptr[i] : ptr[i + 1]].tolist() for i in range(len(lists))]  # noqa: E731
    return split(raw), split(norm)


def cluster_of(objs: list[dict[str, Any]], tmp_path: Path, how: str = "json") -> Any:
    """``load_cluster`` of ``objs`` written as one List document (``how``: json or yaml)."""
    import yaml

    from kscore_fast.api import load_cluster

    doc = {"apiVersion": "v1", "kind": "List", "items": objs}
    path = tmp_path / f"c.{how}"
    path.write_text(json.dumps(doc) if how == "json" else yaml.safe_dump(doc))
    return load_cluster([path])
