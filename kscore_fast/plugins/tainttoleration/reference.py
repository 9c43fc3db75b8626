"""Scalar reference port of TaintToleration, from (v1.23.6)
pkg/scheduler/framework/plugins/tainttoleration/taint_toleration.go and
pkg/scheduler/framework/plugins/helper/normalize_score.go; the toleration matching is
:mod:`..helper.taints`' port of toleration.go and component-helpers' helpers.go."""

from __future__ import annotations

from collections.abc import Sequence

from ...goarith import MAX_NODE_SCORE
from ...model.objects import NodeRecord, PodRecord, Taint, Toleration
from ..helper.taints import find_matching_untolerated_taint, tolerations_tolerate_taint


def reason(taint: Taint) -> str:
    """The ``errReason`` of ``Filter`` for an untolerated taint."""
    return f"node(s) had taint {{{taint.key}: {taint.value}}}, that the pod didn't tolerate"


def filter(pod: PodRecord, node: NodeRecord) -> str | None:
    """``Filter``: the failure reason, or None when the pod fits."""

    def filter_predicate(t: Taint) -> bool:
        return t.effect in ("NoSchedule", "NoExecute")

    taint, is_untolerated = find_matching_untolerated_taint(
        node.taints, pod.tolerations, filter_predicate
    )
    if not is_untolerated:
        return None
    assert taint is not None
    return reason(taint)


def get_all_toleration_prefer_no_schedule(tolerations: Sequence[Toleration]) -> list[Toleration]:
    """``getAllTolerationPreferNoSchedule``."""
    return [t for t in tolerations if len(t.effect) == 0 or t.effect == "PreferNoSchedule"]


def pre_score(pod: PodRecord) -> list[Toleration]:
    """``PreScore``: the ``tolerationsPreferNoSchedule`` of the cycle state."""
    return get_all_toleration_prefer_no_schedule(pod.tolerations)


def count_intolerable_taints_prefer_no_schedule(
    taints: Sequence[Taint], tolerations: Sequence[Toleration]
) -> int:
    """``countIntolerableTaintsPreferNoSchedule``."""
    intolerable = 0
    for taint in taints:
        if taint.effect != "PreferNoSchedule":
            continue
        if not tolerations_tolerate_taint(tolerations, taint):
            intolerable += 1
    return intolerable


def score(tolerations_prefer_no_schedule: Sequence[Toleration], node: NodeRecord) -> int:
    """``Score`` with the PreScore state."""
    return count_intolerable_taints_prefer_no_schedule(node.taints, tolerations_prefer_no_schedule)


def default_normalize_score(max_priority: int, reverse: bool, scores: list[int]) -> list[int]:
    """helper/normalize_score.go ``DefaultNormalizeScore`` (returns the new list)."""
    max_count = 0
    for s in scores:
        max_count = max(max_count, s)
    if max_count == 0:
        return [max_priority] * len(scores) if reverse else list(scores)
    out = []
    for s in scores:
        q = abs(max_priority * s) // max_count  # Go's int64 division truncates toward zero
        score_ = q if max_priority * s >= 0 else -q
        out.append(max_priority - score_ if reverse else score_)
    return out


def normalize_score(scores: list[int]) -> list[int]:
    """``NormalizeScore``."""
    return default_normalize_score(MAX_NODE_SCORE, True, scores)


def score_pod(pod: PodRecord, nodes: Sequence[NodeRecord]) -> tuple[list[int], list[int]]:
    """PreScore, Score on each of ``nodes``, NormalizeScore: (raw, normalized)."""
    tolerations = pre_score(pod)
    raw = [score(tolerations, n) for n in nodes]
    return raw, normalize_score(raw)
