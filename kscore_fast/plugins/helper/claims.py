"""Pods grouped by their PersistentVolumeClaims, for the volume plugins: pods of one
namespace with the same claim names (and, for ephemeral volumes' claims, the same owner
uid) get the same verdicts from them."""

from __future__ import annotations

from collections.abc import Callable
from operator import attrgetter
from typing import Any

import numpy as np

from ...model.objects import PodRecord
from ...model.snapshot import PodBatch

_claims = attrgetter("claims")


def claim_classes(batch: PodBatch, admit: Callable[[PodRecord], bool] | None = None,
                  ephemeral: bool = True) -> tuple[np.ndarray, list[Any]]:  # fmt: skip
    """int32[B]: each pod's class (0: no claim, or ``admit`` refuses the pod; else one per
    namespace and claim names, and for pods with ephemeral volumes their positions and
    the pod's uid, which their claims' owner must be), and a pod of each class (None for
    class 0). ``ephemeral`` False: the claims of ``persistentVolumeClaim`` volumes only
    (VolumeZone reads no other)."""
    ids: dict[tuple[Any, ...], int] = {}
    reps: list[Any] = [None]
    of_pod = np.zeros(len(batch), dtype=np.int32)
    pods = batch.pods
    for i in [i for i, claims in enumerate(map(_claims, pods)) if claims]:
        pod = pods[i]
        if not pod.ephemeral:
            key: tuple[Any, ...] = (pod.namespace, pod.claims)
        elif ephemeral:
            key = (pod.namespace, pod.claims, pod.ephemeral, pod.uid)
        elif pod.pvc_claims:
            key = (pod.namespace, pod.pvc_claims)
        else:
            continue
        c = ids.get(key)
        if c is None:
            if admit is not None and not admit(pods[i]):
                c = ids[key] = 0
            else:
                c = ids[key] = len(reps)
                reps.append(pods[i])
        of_pod[i] = c
    return of_pod, reps
