"""Filter verdicts of many pod classes at once (the batch runtime), in parallel.

Pods with equal ``filter_key``s of every filter plugin of the profile form one *class*
and get equal verdicts on every node (``RunFilterPlugins``); a class's verdicts are one
row of a table (:mod:`.search`). When every node is examined anyway, or when the verdicts
are kept for a whole run, rows are filled up front: class by class split across threads,
or plugin by plugin (:func:`prefill`).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import Any

import numpy as np

from .._jit import kernel, run_threaded, split_work
from ..model.rows import unique_rows
from . import search


@kernel
def fill_classes(lo, hi, fids, table, reps, todo, memo, done):  # pragma: no cover - compiled
    """Every verdict of pod classes ``todo[lo:hi]`` (when every node is examined anyway)."""
    for q in range(lo, hi):
        c = todo[q]
        for b in range(done.shape[1]):
            if not done[c, b]:
                search.fill_block(fids, table, reps, c, b, search.BLOCK, memo, done)


def prefill(fids: np.ndarray, table: np.ndarray, reps: np.ndarray, todo: np.ndarray,
            memo: np.ndarray, done: np.ndarray, keys: np.ndarray | None = None
            ) -> None:  # fmt: skip
    """Every verdict of the pod classes ``todo``, classes split across threads; with
    ``keys`` (:func:`plugin_keys`), plugin by plugin (:func:`_prefill_by_plugin`)."""
    todo = todo.astype(np.int64)
    by_plugin = keys is not None and len(fids) > 1 and len(todo) > 1
    if by_plugin and _prefill_by_plugin(fids, table, reps[todo], keys, todo, memo):
        done[todo] = True
        return
    work = np.arange(len(todo) + 1, dtype=np.int64) * memo.shape[1]
    run_threaded([partial(fill_classes, a, b, fids, table, reps, todo, memo, done)
                  for a, b in split_work(work, int(work[-1]))])  # fmt: skip


#: verdict entries the plugins' rows may hold beyond twice the classes' (8 MB)
BY_PLUGIN_ENTRIES = 1 << 20


def _prefill_by_plugin(fids: np.ndarray, table: np.ndarray, pods: np.ndarray,
                       keys: np.ndarray, todo: np.ndarray, memo: np.ndarray) -> bool:  # fmt: skip
    """``RunFilterPlugins``' first failure per node of the classes ``todo`` (representative
    ``pods``) from each plugin's own verdicts: plugin ``k`` filters every node once per
    distinct ``filter_key`` of its among the classes (pods with equal keys get equal
    verdicts from it), into one table of every plugin's rows; then each class's row takes,
    node by node, the first plugin's failure (:func:`first_failures`). Classes differ
    mostly by a few plugins' keys (resources, topology): each plugin runs for its own
    keys only, not once per combination. False (nothing done) when the plugins' rows
    would outnumber twice the classes' and hold more than ``BY_PLUGIN_ENTRIES``: the
    classes are then filled one by one."""
    n_plugins = len(fids)
    row_of = np.empty((len(pods), n_plugins), dtype=np.int64)  # each class's row per plugin
    firsts, offsets = [], [0]  # plugin k's rows: offsets[k]:offsets[k + 1]
    for k in range(n_plugins):
        _, first, key_of = np.unique(keys[pods, k], return_index=True, return_inverse=True)
        row_of[:, k] = key_of.reshape(-1) + offsets[k]
        firsts.append(first)
        offsets.append(offsets[k] + len(first))
    n = memo.shape[1]
    if offsets[-1] > 2 * len(todo) and offsets[-1] * n > BY_PLUGIN_ENTRIES:
        return False
    rows_table = np.empty((offsets[-1], n), dtype=np.int64)
    done = np.zeros((offsets[-1], -(-n // search.BLOCK)), dtype=np.bool_)
    reps = pods[np.concatenate(firsts)].astype(np.int64)
    for k in range(n_plugins):
        rows = np.arange(offsets[k], offsets[k + 1], dtype=np.int64)
        prefill(fids[k : k + 1].copy(), table, reps, rows, rows_table, done)
    work = np.arange(len(todo) + 1, dtype=np.int64) * n
    run_threaded([partial(first_failures, rows_table, row_of[a:b], memo, todo[a:b])
                  for a, b in split_work(work, int(work[-1]))])  # fmt: skip
    return True


@kernel
def first_failures(table, row_of, memo, todo):  # pragma: no cover - compiled
    """Row ``todo[q]`` of ``memo``: on each node, the first plugin ``k`` whose verdict row
    ``row_of[q, k]`` of ``table`` fails there (its failure moved to slot ``k``: the rows
    hold a one-plugin profile's verdicts), else 0."""
    shift = np.int64(search.SLOT_SHIFT)
    for q in range(todo.shape[0]):
        c = todo[q]
        for node in range(memo.shape[1]):
            v = np.int64(0)
            for k in range(row_of.shape[1]):
                x = table[row_of[q, k], node]
                if x != 0:
                    v = x + (np.int64(k) << shift)
                    break
            memo[c, node] = v


def plugin_keys(filters: Sequence[Any], states: Sequence[tuple[Any, ...]],
                n_pods: int) -> np.ndarray:  # fmt: skip
    """int64[B, F]: each pod's ``filter_key`` per filter plugin of the profile (``states``:
    each filter plugin's state, in order)."""
    if not filters:
        return np.zeros((n_pods, 0), dtype=np.int64)
    keys = [f.filter_key(s) for f, s in zip(filters, states, strict=True)]
    every_pod = np.arange(n_pods, dtype=np.int64)  # (None: every pod its own)
    return np.stack([every_pod if k is None else np.asarray(k, np.int64) for k in keys], axis=1)


def filter_classes(keys: np.ndarray) -> np.ndarray:
    """int64[B]: pods with equal class get equal verdicts on every node (the profile's
    filter plugins' keys, :func:`plugin_keys`, combined)."""
    if keys.shape[1] == 0 or keys.shape[0] < 2:  # (one class)
        return np.zeros(keys.shape[0], dtype=np.int64)
    _, cls = unique_rows(keys)
    return cls.reshape(-1).astype(np.int64)
