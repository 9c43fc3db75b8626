"""Which counters and existing terms a pod can match, without trying every one.

A term set's *anchor* is the first ``In`` requirement of its selectors (``kernels.anchors``):
a pod matching the set holds one of the anchor's values in its column, so the set needs
trying only on the pods (classes) holding one of them. With a selector per Deployment,
each term matches a handful of classes: trying every (class, term) pair, and every
counter on each ``assume``, cost classes × terms (minutes for 8,000 pending pods with 20
terms each), where trying the anchored candidates costs about the matches.

Buckets number (column, local value id) pairs: ``col_off[column] + value``.
"""

from __future__ import annotations

import numpy as np

from . import kernels as k

I64 = np.int64


def column_offsets(terms: tuple, cls_vals: np.ndarray) -> tuple[np.ndarray, int]:
    """(int64[L] the first bucket of each column, wide enough for every local value id
    the classes and the selectors hold; the number of buckets)."""
    n_cols = cls_vals.shape[1]
    top = cls_vals.max(axis=0).astype(I64) if len(cls_vals) else np.zeros(n_cols, I64)
    sel_key, sel_vptr, sel_vals = terms[1], terms[3], terms[4]
    if len(sel_vals):
        keys = np.repeat(sel_key.astype(I64), np.diff(sel_vptr))
        np.maximum.at(top, keys, sel_vals.astype(I64))
    size = np.maximum(top, 1) + 1
    return (np.cumsum(size) - size).astype(I64), int(size.sum())


def class_buckets(cls_vals: np.ndarray, col_off: np.ndarray, n_buckets: int
                  ) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """(bucket_ptr, bucket_cls): the classes holding each bucket's value."""
    n_cls, n_cols = cls_vals.shape
    bucket = (col_off[None, :] + cls_vals.astype(I64)).reshape(-1)
    return _by_bucket(bucket, np.repeat(np.arange(n_cls, dtype=I64), n_cols), n_buckets)


def _by_bucket(bucket: np.ndarray, items: np.ndarray, n_buckets: int
               ) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """(ptr, items): ``items`` grouped by their ``bucket``, CSR over every bucket."""
    order = np.argsort(bucket, kind="stable")
    ptr = np.searchsorted(bucket[order], np.arange(n_buckets + 1)).astype(I64)
    return ptr, items[order]


def matches(terms: tuple, item_ptr: np.ndarray, item_rt: np.ndarray, item_on: np.ndarray,
            anchor: tuple[np.ndarray, ...], cls_ns: np.ndarray, cls_vals: np.ndarray,
            buckets: tuple[np.ndarray, np.ndarray], col_off: np.ndarray
            ) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """(classes, items): every (class, item) pair where the item's terms all match a pod
    of the class (items where ``item_on``; ``anchor``: ``kernels.anchors`` of the items),
    sorted by class, then item."""
    qs, xs, n = k.match_classes(terms, item_ptr, item_rt, item_on, *anchor, cls_ns, cls_vals,
                                *buckets, col_off)  # fmt: skip
    qs, xs = qs[:n], xs[:n]
    order = np.lexsort((xs, qs))
    return qs[order], xs[order]


def class_lists(qs: np.ndarray, xs: np.ndarray, xt_anti: np.ndarray, n_cls: int
                ) -> tuple[np.ndarray, ...]:  # fmt: skip
    """(anti_ptr, anti, score_ptr, score): per class, the existing terms matching it."""
    out: list[np.ndarray] = []
    for part in (xt_anti[xs], ~xt_anti[xs]):
        out += [np.searchsorted(qs[part], np.arange(n_cls + 1)).astype(I64),
                np.ascontiguousarray(xs[part], dtype=I64)]  # fmt: skip
    return tuple(out)


def assume_index(anchor: tuple[np.ndarray, ...], by_ns: tuple[np.ndarray, ...],
                 col_off: np.ndarray, n_buckets: int) -> tuple[np.ndarray, ...]:  # fmt: skip
    """The state's entries ``COL_OFF``..``ALL_UN``: the anchored counters (``anchor``:
    ``kernels.anchors`` of the counters) by bucket, and the others by namespace (as
    ``by_ns`` lists them)."""
    key, vptr, vals = anchor
    counter = np.repeat(np.arange(len(key), dtype=I64), np.diff(vptr))
    bucket = col_off[key[counter]] + vals if len(vals) else np.zeros(0, I64)
    b_ptr, b_cnt = _by_bucket(bucket, counter, n_buckets)
    ns_ptr, ns_cnt, all_cnt = by_ns
    free = key[ns_cnt] < 0
    un_ptr = np.concatenate(([0], np.cumsum(free)))[ns_ptr].astype(I64)
    return col_off, b_ptr, b_cnt, un_ptr, ns_cnt[free], all_cnt[key[all_cnt] < 0]
