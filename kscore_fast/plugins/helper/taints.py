"""Taints and tolerations as interned ids: the matching shared by NodeUnschedulable and
TaintToleration, as kernels and as the scalar Go port they are tested against.

Go, at v1.23.6: k8s.io/api/core/v1/toleration.go ``ToleratesTaint``;
k8s.io/component-helpers/scheduling/corev1/helpers.go ``TolerationsTolerateTaint``,
``FindMatchingUntoleratedTaint``, ``getFilteredTaints``.

Every key, value and effect string of the nodes' taints and the pending pods' tolerations
gets an id (:class:`TaintColumns`), the first ones fixed: ``EMPTY`` (the empty string),
``NO_SCHEDULE``, ``PREFER_NO_SCHEDULE``, ``NO_EXECUTE`` and ``UNSCHEDULABLE_KEY``
(``node.kubernetes.io/unschedulable``). Go compares these strings for equality only, so
comparing ids is the same. Layout:

* ``node_unschedulable`` (bool[N]): ``spec.unschedulable`` (the taint NodeUnschedulable
  checks);
* node taints, in spec order: node ``i``'s are ``taint_ptr[i]:taint_ptr[i+1]`` (int64[N+1])
  of ``taint_key``, ``taint_value``, ``taint_effect`` (int32[E]);
* tolerations: pods whose tolerations (operator, key, value, effect; ``tolerationSeconds``
  is never read) are the same set share a *set*: ``pod_set`` (int64[B]); set ``s`` holds
  ``set_ptr[s]:set_ptr[s+1]`` (int64[S+1]) of ``tol_op`` (``OP_EQUAL`` for "" and "Equal",
  ``OP_EXISTS``, ``OP_OTHER`` for anything else), ``tol_key``, ``tol_value``,
  ``tol_effect`` (int32[T]). Any toleration of a set tolerating a taint is what Go asks, so
  order and repeats within a pod's list do not matter;
* strings for reason texts: string ``i`` is ``str_bytes[str_ptr[i]:str_ptr[i+1]]``
  (uint8, UTF-8 with surrogates passed through; int64[S+1]).

The kernels take the tolerations as one tuple ``tols = (set_ptr, tol_op, tol_key,
tol_value, tol_effect)``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ..._jit import inline_kernel, kernel
from ...model.objects import NodeRecord, PodRecord, Taint, Toleration
from ...model.snapshot import ClusterSnapshot, PodBatch, spec_representatives

EMPTY, NO_SCHEDULE, PREFER_NO_SCHEDULE, NO_EXECUTE, UNSCHEDULABLE_KEY = 0, 1, 2, 3, 4
#: the strings of the fixed ids, in id order
FIXED_STRINGS = ("", "NoSchedule", "PreferNoSchedule", "NoExecute",
                 "node.kubernetes.io/unschedulable")  # fmt: skip
OP_EQUAL, OP_EXISTS, OP_OTHER = 0, 1, 2

_NODE_KEY = "taints.nodes"
_CACHE_KEY = "helper/taints"


# -- scalar reference (the Go code, on records) -----------------------------------------------


def tolerates_taint(t: Toleration, taint: Taint) -> bool:
    """toleration.go ``(*Toleration).ToleratesTaint``."""
    if len(t.effect) > 0 and t.effect != taint.effect:
        return False
    if len(t.key) > 0 and t.key != taint.key:
        return False
    if t.operator in ("", "Equal"):  # empty operator means Equal
        return t.value == taint.value
    return t.operator == "Exists"


def tolerations_tolerate_taint(tolerations: Sequence[Toleration], taint: Taint) -> bool:
    """helpers.go ``TolerationsTolerateTaint``."""
    return any(tolerates_taint(t, taint) for t in tolerations)


def find_matching_untolerated_taint(
    taints: Sequence[Taint],
    tolerations: Sequence[Toleration],
    inclusion_filter: Callable[[Taint], bool] | None,
) -> tuple[Taint | None, bool]:
    """helpers.go ``FindMatchingUntoleratedTaint`` (with ``getFilteredTaints``): the first
    taint passing the filter that no toleration tolerates."""
    filtered = taints if inclusion_filter is None else [t for t in taints if inclusion_filter(t)]
    for taint in filtered:
        if not tolerations_tolerate_taint(tolerations, taint):
            return taint, True
    return None, False


# -- kernels ------------------------------------------------------------------------------------


@inline_kernel
def tolerates(op, t_key, t_value, t_effect, key, value, effect):  # pragma: no cover - compiled
    """``ToleratesTaint`` on ids."""
    if t_effect != EMPTY and t_effect != effect:
        return False
    if t_key != EMPTY and t_key != key:
        return False
    if op == OP_EQUAL:
        return t_value == value
    return op == OP_EXISTS


@inline_kernel
def set_tolerates(tols, s, key, value, effect, prefer_only):  # pragma: no cover - compiled
    """``TolerationsTolerateTaint`` for toleration set ``s``; with ``prefer_only`` over the
    tolerations of effect "" or PreferNoSchedule only (TaintToleration's PreScore list)."""
    set_ptr, op, t_key, t_value, t_effect = tols
    for j in range(set_ptr[s], set_ptr[s + 1]):
        e = t_effect[j]
        if prefer_only and e != EMPTY and e != PREFER_NO_SCHEDULE:
            continue
        if tolerates(op[j], t_key[j], t_value[j], e, key, value, effect):
            return True
    return False


@kernel
def sets_tolerate(tols, key, value, effect):  # pragma: no cover - compiled
    """bool[S]: whether each toleration set tolerates the taint (key, value, effect)."""
    n_sets = tols[0].shape[0] - 1
    out = np.zeros(n_sets, dtype=np.bool_)
    for s in range(n_sets):
        out[s] = set_tolerates(tols, s, key, value, effect, False)
    return out


# -- interning ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class TaintColumns:
    """The nodes' taints and the batch's toleration sets over one string table."""

    node_unschedulable: np.ndarray
    taint_ptr: np.ndarray
    taint_key: np.ndarray
    taint_value: np.ndarray
    taint_effect: np.ndarray
    pod_set: np.ndarray
    tols: tuple[np.ndarray, ...]
    str_bytes: np.ndarray
    str_ptr: np.ndarray


def string_at(str_bytes: np.ndarray, str_ptr: np.ndarray, i: int) -> str:
    """String ``i`` of the table."""
    return bytes(str_bytes[str_ptr[i] : str_ptr[i + 1]]).decode("utf-8", "surrogatepass")


def _op_code(operator: str) -> int:
    if operator in ("", "Equal"):
        return OP_EQUAL
    return OP_EXISTS if operator == "Exists" else OP_OTHER


def _taint_columns(nodes: Sequence[NodeRecord], sid: Callable[[str], int]) -> list[np.ndarray]:
    ptr = np.zeros(len(nodes) + 1, dtype=np.int64)
    np.cumsum([len(n.taints) for n in nodes], out=ptr[1:])
    ids = [sid(x) for n in nodes for t in n.taints for x in (t.key, t.value, t.effect)]
    flat = np.array(ids, dtype=np.int32).reshape(-1, 3)
    return [ptr, *(np.ascontiguousarray(flat[:, j]) for j in range(3))]


def _toleration_sets(
    pods: Sequence[PodRecord], sid: Callable[[str], int]
) -> tuple[np.ndarray, tuple[np.ndarray, ...]]:
    quads: dict[Toleration, tuple[int, int, int, int]] = {}
    sets: dict[tuple, int] = {}
    pod_set = np.empty(len(pods), dtype=np.int64)
    for i, p in enumerate(pods):
        members = []
        for t in p.tolerations:
            q = quads.get(t)
            if q is None:
                q = quads[t] = (_op_code(t.operator), sid(t.key), sid(t.value), sid(t.effect))
            members.append(q)
        pod_set[i] = sets.setdefault(tuple(sorted(set(members))), len(sets))
    set_ptr = np.zeros(len(sets) + 1, dtype=np.int64)
    np.cumsum([len(s) for s in sets], out=set_ptr[1:])
    flat = np.array([q for s in sets for q in s], dtype=np.int32).reshape(-1, 4)
    return pod_set, (set_ptr, *(np.ascontiguousarray(flat[:, j]) for j in range(4)))


def _node_taints(snapshot: ClusterSnapshot) -> tuple[dict[str, int], list[np.ndarray]]:
    """The strings interned for the nodes' taints, and (unschedulable, taint_ptr, key,
    value, effect), once per snapshot (never written)."""
    cached = snapshot.cache.get(_NODE_KEY)
    if cached is None:
        ids = {s: i for i, s in enumerate(FIXED_STRINGS)}

        def sid(s: str) -> int:
            return ids.setdefault(s, len(ids))

        unschedulable = np.array([n.unschedulable for n in snapshot.nodes], dtype=np.bool_)
        cached = (ids, [unschedulable.reshape(-1), *_taint_columns(snapshot.nodes, sid)])
        snapshot.cache[_NODE_KEY] = cached
    return cached


def taint_columns(snapshot: ClusterSnapshot, batch: PodBatch) -> TaintColumns:
    """Intern the snapshot's taints and the batch's tolerations (cached on the batch, for
    this snapshot)."""
    return batch.prepared(_CACHE_KEY, snapshot, lambda: _interned(snapshot, batch))


def _strings(ids: dict[str, int]) -> tuple[np.ndarray, np.ndarray]:
    """The string table (bytes, ptr) of ``ids`` (in id order)."""
    encoded = [s.encode("utf-8", "surrogatepass") for s in ids]
    str_ptr = np.zeros(len(encoded) + 1, dtype=np.int64)
    np.cumsum([len(b) for b in encoded], out=str_ptr[1:])
    return np.frombuffer(b"".join(encoded), dtype=np.uint8).copy(), str_ptr


def _interned(snapshot: ClusterSnapshot, batch: PodBatch) -> TaintColumns:
    node_ids, node_cols = _node_taints(snapshot)
    ids = dict(node_ids)

    def sid(s: str) -> int:
        return ids.setdefault(s, len(ids))

    unschedulable, taint_ptr, taint_key, taint_value, taint_effect = node_cols
    reps, twins = spec_representatives(batch)
    rep_set, tols = _toleration_sets(reps, sid)
    pod_set = np.ascontiguousarray(rep_set[twins])
    if len(ids) == len(node_ids):  # (no string of the nodes' own: theirs, kept)
        str_bytes, str_ptr = snapshot.kept("taints.strings", None, lambda: _strings(ids), 1)
    else:
        str_bytes, str_ptr = _strings(ids)
    return TaintColumns(unschedulable, taint_ptr, taint_key, taint_value,
                        taint_effect, pod_set, tols, str_bytes, str_ptr)  # fmt: skip
