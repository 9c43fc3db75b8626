"""VolumeBinding (pkg/scheduler/framework/plugins/volumebinding, v1.23.6): PreFilter,
Filter, Reserve and Score.

* PreFilter (:class:`PreFilterGate`): a missing, lost or deleting claim, or an unbound
  claim of an Immediate class, fails the pod on every node before any Filter runs
  (``findNodesThatFitPod`` gives every node that status). The framework builder runs it
  as the profile's first filter (``pre_filter_gate``): the same status on every node.
* Filter (``FindPodVolumes``): the volumes of the pod's bound claims must exist and match
  the node (in-tree volumes translated to CSI where the node's CSINode migrates their
  plugin: ``translate``; a failed translation is refused, not simulated); its unbound
  WaitForFirstConsumer claims need a matching available volume or a class that
  provisions on the node (``kernels``, state: ``state``).
* Reserve (``AssumePodVolumes``, the ``assume`` kernel): the matched volumes get the claim
  as owner, the claims to provision the host as selected node; later pods see them, and
  deleting the pod reverts nothing. As in goref (the real scheduler over a fake
  clientset, no PreBind, no PV controller), no binding completes: the claims stay
  unbound, bound to their volumes only in the binder's assume cache.
* Score: 0 on every node (``VolumeCapacityPriority``, alpha, is off in 1.23; there is no
  ``NormalizeScore``).

Where Go's choice is random, kscore_fast takes the first volume by name: among available
volumes of equal capacity, and among the volumes bound to one claim (a pod that lists a
claim twice binds two volumes to it; Go's later pods of that claim meet one of them in map
order).

The CSIStorageCapacity check is on, as v1.23's default feature gates have it: a claim
to provision through a CSIDriver with ``storageCapacity: true`` needs a CSIStorageCapacity
object of its class, large enough and accessible from the node (``hasEnoughCapacity``);
Reserve consumes no capacity.
"""

from __future__ import annotations

from operator import attrgetter

import numpy as np

from ...framework.cluster_events import (
    ADD,
    CSI_NODE,
    CSI_STORAGE_CAPACITY,
    NODE,
    PV,
    PVC,
    STORAGE_CLASS,
    UPDATE,
    events,
)
from ...model.snapshot import ClusterSnapshot, PodBatch
from ...model.storage import Storage
from ..helper.base import NoArgs
from ..helper.pod_fields import VOLUMES
from ..helper.texts import text_at, text_table
from . import gate_kernels, kernels, state
from .reference import (
    ERR_REASON_BIND_CONFLICT,
    ERR_REASON_NODE_CONFLICT,
    ERR_REASON_NOT_ENOUGH_SPACE,
    ERR_REASON_PV_NOT_EXIST,
    pre_filter,
)

NAME = "VolumeBinding"
_claims = attrgetter("claims")
#: ``EventsToRegister`` (CSIDriver and CSIStorageCapacity: with the capacity check)
_EVENTS = events(
    (STORAGE_CLASS, ADD | UPDATE),
    (PVC, ADD | UPDATE),
    (PV, ADD | UPDATE),
    (NODE, ADD | UPDATE),
    (CSI_NODE, ADD | UPDATE),
    ("CSIDriver", ADD | UPDATE),
    (CSI_STORAGE_CAPACITY, ADD | UPDATE),
)


class PreFilterGate(NoArgs):
    """VolumeBinding's PreFilter, run as the profile's first filter: a pod it fails gets
    that status on every node (what ``findNodesThatFitPod`` records), and no other
    filter is reached. Named as the plugin (Go's ``FailedPlugin``)."""

    name = NAME
    #: what ``prepare`` reads of a pod (a lone pod's state is kept by them)
    lone_fields = VOLUMES
    events_to_register = _EVENTS
    filters = True
    scores = False
    normalizes = False
    extension_points = frozenset({"preFilter"})
    #: ``PreFilter`` fails with ``UnschedulableAndUnresolvable``
    all_unresolvable = True
    kernels = gate_kernels
    bind_independent = True
    reads_storage = True

    def prepare(self, snapshot: ClusterSnapshot, batch: PodBatch) -> tuple:
        return batch.prepared("VolumeBinding.preFilter", snapshot,
                              lambda: _gate_state(snapshot.storage, batch))  # fmt: skip

    def empty_state(self) -> tuple:
        return (np.zeros(0, np.int64), np.zeros(1, np.int64), np.zeros(0, np.uint8))

    def filter_key(self, state: tuple) -> np.ndarray:
        return state[0]

    def passes_all(self, state: tuple) -> bool:
        """No pod of the batch fails PreFilter."""
        return not state[0].any()

    def pre_filter_failures(self, state: tuple) -> np.ndarray:
        return state[0] != 0

    def reasons(self, state: tuple, code: int) -> list[str]:
        return [text_at(state[1], state[2], code - 1)]


class VolumeBinding(NoArgs):
    """The VolumeBinding plugin (Filter, Reserve and Score; PreFilter:
    :class:`PreFilterGate`)."""

    name = NAME
    #: what ``prepare`` reads of a pod (a lone pod's state is kept by them)
    lone_fields = VOLUMES
    events_to_register = _EVENTS
    filters = True
    scores = True
    normalizes = False
    #: its interfaces in v1.23.6 (pkg/scheduler/framework/plugins/volumebinding)
    extension_points = frozenset({"preFilter", "filter", "reserve", "preBind", "score"})
    #: the framework builder runs this PreFilter first among the filters
    pre_filter_gate = PreFilterGate
    #: every failure is UnschedulableAndUnresolvable
    all_unresolvable = True
    kernels = kernels
    kernels_allocate = ("filter_node", "assume")
    #: ``assume`` is Reserve's ``AssumePodVolumes``
    assume_reserves = True
    reads_storage = True
    #: a raw score depends on the pod and the node only
    row_independent = True

    def prepare(self, snapshot: ClusterSnapshot, batch: PodBatch) -> tuple:
        return batch.prepared(NAME, snapshot, lambda: state.build(snapshot, batch))

    def own_state(self, s: tuple) -> tuple:
        """Own copies of the volumes' owners and the claims' bound volumes and selected
        nodes (what ``assume`` changes); the rest shared."""
        return tuple(x.copy() if i in state.DYNAMIC else x for i, x in enumerate(s))

    def empty_state(self) -> tuple:
        return state.empty_state()

    @staticmethod
    def assumed_storage(s: tuple, snapshot: ClusterSnapshot, batch: PodBatch,
                        base: Storage | None = None) -> Storage:  # fmt: skip
        """The storage objects (``base``, default: the snapshot's) with what binds
        assumed in ``s`` (kept when a simulator prepares its states again)."""
        return state.assumed_storage(s, snapshot, batch, base)

    @staticmethod
    def reserved(s: tuple, batch: PodBatch, pod: int) -> list[tuple[str, str | None]]:
        """What Reserve decided for batch pod ``pod`` (``state.reserved``)."""
        return state.reserved(s, batch, pod)

    @staticmethod
    def binds_claims(s: tuple) -> np.ndarray:
        """bool[B]: the pods a Reserve may bind claims of (``state.binds_claims``)."""
        return state.binds_claims(s)

    @staticmethod
    def completed_storage(s: tuple, snapshot: ClusterSnapshot, batch: PodBatch, pod: int,
                          host: int, base: Storage) -> state.Completed | None:  # fmt: skip
        """``base`` once pod ``pod``'s bindings completed on ``host``, its
        ``volumeBindings``, who sees the change (``state.completed_storage``; None:
        nothing reserved)."""
        return state.completed_storage(s, snapshot, batch, pod, host, base)

    @staticmethod
    def reserved_pods(s: tuple, pods: np.ndarray) -> np.ndarray:
        """bool per pod of ``pods``: a Reserve recorded a decision for it."""
        return state.reserved_pods(s, pods)

    def filter_key(self, s: tuple) -> np.ndarray:
        """Pods of one class get the same verdicts, and so do pods of classes whose bound
        claims give equal verdicts on every node class while every claim they bind may be
        provisioned on any node (which volumes match then decides nothing)."""
        return state.filter_key(s)

    def passes_all(self, s: tuple) -> bool:
        """No pod of the batch has a claim that PreFilter passes."""
        return not s[1].any()

    def reasons(self, s: tuple, code: int) -> list[str]:
        """The reasons of the bits of ``code``, in ``FindPodVolumes``' order."""
        return [reason for bit, reason in _REASON_BITS if code & bit]

    @staticmethod
    def constant_scores(s: tuple) -> bool:
        """Every pod scores 0 on every node."""
        return True


_REASON_BITS = (
    (kernels.NODE_CONFLICT, ERR_REASON_NODE_CONFLICT),
    (kernels.BIND_CONFLICT, ERR_REASON_BIND_CONFLICT),
    (kernels.NOT_ENOUGH_SPACE, ERR_REASON_NOT_ENOUGH_SPACE),
    (kernels.PV_NOT_EXIST, ERR_REASON_PV_NOT_EXIST),
)


def _gate_state(storage: Storage, batch: PodBatch) -> tuple:
    """:class:`PreFilterGate`'s state: each pod's PreFilter failure code, the reasons."""
    code = np.zeros(len(batch), dtype=np.int64)
    reasons: dict[str, int] = {}
    pods = batch.pods
    for i in [i for i, claims in enumerate(map(_claims, pods)) if claims]:
        reason = pre_filter(pods[i], storage)
        if reason is not None:
            code[i] = reasons.setdefault(reason, len(reasons)) + 1
    return (code, *text_table(list(reasons)))
