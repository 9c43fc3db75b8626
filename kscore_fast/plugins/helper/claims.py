"""Pods grouped by their PersistentVolumeClaims, for the volume plugins: pods of one
namespace with the same claim names get the same verdicts from them."""

from __future__ import annotations

from collections.abc import Callable
from operator import attrgetter
from typing import Any

import numpy as np

from ...model.objects import PodRecord
from ...model.snapshot import PodBatch

_claims = attrgetter("claims")


def claim_classes(batch: PodBatch, admit: Callable[[PodRecord], bool] | None = None
                  ) -> tuple[np.ndarray, list[Any]]:  # fmt: skip
    """int32[B]: each pod's class (0: no claim, or ``admit`` refuses the pod; else one per
    namespace and claim names), and a pod of each class (None for class 0)."""
    ids: dict[tuple[str, tuple[str, ...]], int] = {}
    reps: list[Any] = [None]
    of_pod = np.zeros(len(batch), dtype=np.int32)
    pods = batch.pods
    for i in [i for i, claims in enumerate(map(_claims, pods)) if claims]:
        key = (pods[i].namespace, pods[i].claims)
        c = ids.get(key)
        if c is None:
            if admit is not None and not admit(pods[i]):
                c = ids[key] = 0
            else:
                c = ids[key] = len(reps)
                reps.append(pods[i])
        of_pod[i] = c
    return of_pod, reps
