"""Typed records of the Kubernetes objects the scheduler reads.

Only the fields kube-scheduler v1.23 uses are kept. Records are built by
:mod:`kscore_fast.io.objects` (from manifests) or directly (tests, simulators). They are
frozen ``msgspec.Struct``s: an order of magnitude cheaper to create than dataclasses,
which matters at 100,000 pods. A namespace
of ``""`` is kept as is: only the manifest loader maps a missing namespace to
``default``; the model follows the Go listers for ``""`` (see ``snapshot``).
"""

from __future__ import annotations

import msgspec

from .selectors import LabelSelector

RC_KIND = "ReplicationController"
RS_KIND = "ReplicaSet"
SS_KIND = "StatefulSet"


class OwnerReference(msgspec.Struct, frozen=True, gc=False):
    """``metav1.OwnerReference`` (only what ``GetControllerOf`` and the listers use)."""

    api_version: str
    kind: str
    name: str
    controller: bool = False


class NodeRecord(msgspec.Struct, frozen=True, gc=False):
    name: str
    labels: dict[str, str] = {}


class PodRecord(msgspec.Struct, frozen=True, gc=False):
    namespace: str
    name: str
    labels: dict[str, str] = {}
    node_name: str = ""
    phase: str = ""
    deleting: bool = False
    owner_references: tuple[OwnerReference, ...] = ()
    topology_spread_constraints: int = 0
    nominated_node_name: str = ""

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    def controller_ref(self) -> OwnerReference | None:
        """``metav1.GetControllerOfNoCopy``: the first reference with controller=true."""
        for ref in self.owner_references:
            if ref.controller:
                return ref
        return None


class ServiceRecord(msgspec.Struct, frozen=True, gc=False):
    namespace: str
    name: str
    #: ``spec.selector``; None when absent (a nil selector matches no pod)
    selector: dict[str, str] | None = None


class ControllerRecord(msgspec.Struct, frozen=True, gc=False):
    """A ReplicationController (map selector) or a ReplicaSet/StatefulSet (LabelSelector)."""

    kind: str
    namespace: str
    name: str
    selector: dict[str, str] | LabelSelector | None = None
