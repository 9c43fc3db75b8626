"""PodDisruptionBudgets as DefaultPreemption reads them (policy/v1): the namespace, the
selector, ``status.disruptionsAllowed`` and the names in ``status.disruptedPods``.

A budget given without ``status`` (an object written by hand, not printed by kubectl) has
its status computed as the disruption controller would (pkg/controller/disruption
``getExpectedPodCount``, ``countHealthyPods``, ``updatePdbStatus``) for the case it can
be computed from the input alone: an integer ``minAvailable``. Then the expected count
is the number of pods the selector matches in the namespace, the desired healthy count
is ``minAvailable``, a pod is healthy when it is not being deleted and its ``Ready``
condition is ``True`` (a pod without one: bound, and Running or without a phase, as the
kubelet would leave it; the reference harness reads it the same way), and
``disruptionsAllowed = currentHealthy - desiredHealthy`` (0
when that or the expected count is not positive). A percentage or ``maxUnavailable``
needs the scale of the pods' controllers, which the reader refuses without a status.
"""

from __future__ import annotations

from collections.abc import Iterable

import msgspec

from .objects import PodRecord
from .selectors import LabelSelector, label_selector_as_selector


class BudgetRecord(msgspec.Struct, frozen=True, gc=False):
    """A PodDisruptionBudget. ``selector`` None: ``spec.selector`` absent (it matches no
    pod: ``LabelSelectorAsSelector(nil)`` is ``Nothing``). ``min_available`` is the
    integer ``spec.minAvailable`` of a budget given without a status (None otherwise)."""

    namespace: str
    name: str
    selector: LabelSelector | None = None
    disruptions_allowed: int = 0
    disrupted_pods: frozenset[str] = frozenset()
    min_available: int | None = None


def healthy_pod(pod: PodRecord) -> bool:
    """``countHealthyPods``' test: not being deleted, and Ready. A pod given without a
    ``Ready`` condition (an object written by hand, not printed by kubectl) is read as the
    kubelet would leave it: Ready when it is bound and Running or without a phase."""
    if pod.deleting:
        return False
    if pod.ready is not None:
        return pod.ready
    return bool(pod.node_name) and pod.phase in ("Running", "")


def with_status(budgets: Iterable[BudgetRecord], pods: Iterable[PodRecord]) -> list[BudgetRecord]:
    """The budgets, each given without a status (``min_available`` set) given the one the
    disruption controller would compute over ``pods`` (the input's, as listed)."""
    budgets = list(budgets)
    todo = [b for b in budgets if b.min_available is not None]
    if not todo:
        return budgets
    pods = list(pods)
    done = {}
    for b in todo:
        assert b.min_available is not None
        selector = label_selector_as_selector(b.selector) if b.selector is not None else None
        expected = healthy = 0
        for pod in pods:
            if pod.namespace != b.namespace or selector is None:
                continue
            if not selector.matches(pod.labels):
                continue
            expected += 1
            if healthy_pod(pod):
                healthy += 1
        allowed = healthy - b.min_available
        if expected <= 0 or allowed <= 0:
            allowed = 0
        done[id(b)] = msgspec.structs.replace(b, disruptions_allowed=allowed, min_available=None)
    return [done.get(id(b), b) for b in budgets]
