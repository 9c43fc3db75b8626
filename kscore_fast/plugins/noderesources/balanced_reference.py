"""Scalar reference port of NodeResourcesBalancedAllocation, line by line.

Mirrors pkg/scheduler/framework/plugins/noderesources/balanced_allocation.go at
kube-scheduler v1.23.6: ``NewBalancedAllocation`` (``useRequested``, the incoming pod's
overhead added through ``quantity.Value()``, cpu included) and
``balancedResourceScorer``. v1.23 has no volume term (the
``BalanceAttachedNodeVolumes`` part is gone). Go sums the fractions in random map order;
here they are summed in the order of the configured resources, as the kernels do.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from ...goarith import MAX_NODE_SCORE, go_float_to_int64
from ...model.objects import PodRecord
from .resources_reference import NodeInfo, ResourceAllocationScorer, resources_to_weight_map

NAME = "NodeResourcesBalancedAllocation"


def balanced_resource_scorer(requested: dict[str, int], allocable: dict[str, int]) -> int:
    """``balancedResourceScorer``."""
    fractions = []
    total_fraction = 0.0
    for name, value in requested.items():
        fraction = float(value) / float(allocable[name])
        if fraction > 1:
            fraction = 1.0
        total_fraction += fraction
        fractions.append(fraction)
    std = 0.0
    if len(fractions) == 2:
        std = abs((fractions[0] - fractions[1]) / 2)
    elif len(fractions) > 2:
        mean = total_fraction / float(len(fractions))
        total = 0.0
        for fraction in fractions:
            total = total + (fraction - mean) * (fraction - mean)
        std = math.sqrt(total / float(len(fractions)))
    return go_float_to_int64((1 - std) * float(MAX_NODE_SCORE))


def new_scorer(resources: Sequence[tuple[str, int]]) -> ResourceAllocationScorer:
    """``NewBalancedAllocation``'s scorer (PodOverhead on)."""
    weights = resources_to_weight_map(resources)
    return ResourceAllocationScorer(NAME, True, balanced_resource_scorer, weights, True)


def score_nodes(
    infos: Sequence[NodeInfo],
    pod: PodRecord,
    nodes: Sequence[int],
    resources: Sequence[tuple[str, int]],
) -> list[int]:
    """``Score`` of ``pod`` on each of ``nodes`` (indices into ``infos``)."""
    scorer = new_scorer(resources)
    return [scorer.score(pod, infos[n]) for n in nodes]
