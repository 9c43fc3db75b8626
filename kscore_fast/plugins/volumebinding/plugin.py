"""VolumeBinding's Score, which is 0 on every node in v1.23.6.

pkg/scheduler/framework/plugins/volumebinding/volume_binding.go ``Score`` returns 0
unless the ``VolumeCapacityPriority`` feature gate (alpha, off by default in 1.23) gave the
plugin a scorer; there is no ``NormalizeScore``. The default profile still lists the plugin
at Score (weight 1), so its zeros appear in every score breakdown, as kscore_fast shows
them. Its PreFilter/Filter (binding PersistentVolumeClaims) are not simulated: the
framework builder names them on stderr and counts the pods with PVC volumes.
"""

from __future__ import annotations

import numpy as np

from ...model.snapshot import ClusterSnapshot, PodBatch
from ..helper.base import NoArgs
from . import kernels

NAME = "VolumeBinding"


class VolumeBinding(NoArgs):
    name = NAME
    filters = False
    scores = True
    normalizes = False
    #: its interfaces in v1.23.6 (pkg/scheduler/framework/plugins/volumebinding)
    extension_points = frozenset({"preFilter", "filter", "reserve", "preBind", "score"})
    kernels = kernels
    #: a raw score depends on the pod and the node only
    row_independent = True
    #: no node aggregates: binding a pod changes nothing it reads
    bind_independent = True

    def prepare(self, snapshot: ClusterSnapshot, batch: PodBatch) -> tuple:
        return self.empty_state()

    def empty_state(self) -> tuple:
        return (np.zeros(0, dtype=np.int64),)

    @staticmethod
    def constant_scores(state: tuple) -> bool:
        """Every pod scores 0 on every node."""
        return True
