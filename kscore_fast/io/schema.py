"""The part of the Kubernetes API that kscore_fast reads, as typed msgspec structures.

Decoding a kubectl JSON dump into these types reads only the fields the scheduler uses
and skips the rest at C speed (``msgspec.json.decode(data, type=Document)``); parsed YAML
is converted into the same types (``msgspec.convert``). Every field accepts exactly what
the located validator of :mod:`kscore_fast.io.explain` accepts (``null`` for a missing
mapping, list or string; any value where the check is a value check, such as resource
quantities), so a decoding failure always means bad input, which the validator then
explains with file, object and field. Value checks (label syntax, names, quantities,
selector operators) are made on the decoded values, once per distinct value.

``spec`` and ``status`` hold the union of the fields read from every kind; a field
whose shape depends on the kind (``spec.selector``: a label map for Services and
ReplicationControllers, a ``LabelSelector`` for ReplicaSets and StatefulSets) is kept
as parsed and checked per kind.
"""

from __future__ import annotations

from typing import Any

import msgspec


class OwnerRef(msgspec.Struct, rename="camel", gc=False):
    api_version: str | None = None
    kind: str | None = None
    name: str | None = None
    controller: bool | None = None


class Metadata(msgspec.Struct, rename="camel", gc=False):
    name: Any = None
    namespace: str | None = None
    labels: dict[str, str] | None = None
    owner_references: list[OwnerRef | None] | None = None
    deletion_timestamp: Any = None


class Resources(msgspec.Struct, gc=False):
    requests: dict[Any, Any] | None = None
    limits: dict[Any, Any] | None = None


class Container(msgspec.Struct, gc=False):
    resources: Resources | None = None


class Spec(msgspec.Struct, rename="camel", gc=False):
    # Pod
    node_name: str | None = None
    containers: list[Container | None] | None = None
    init_containers: list[Container | None] | None = None
    overhead: dict[Any, Any] | None = None
    topology_spread_constraints: list[Any] | None = None
    # Service, ReplicationController, ReplicaSet, StatefulSet
    selector: Any = None


class Status(msgspec.Struct, rename="camel", gc=False):
    # Pod
    phase: str | None = None
    nominated_node_name: str | None = None
    # Node
    allocatable: dict[Any, Any] | None = None
    capacity: dict[Any, Any] | None = None


class Resource(msgspec.Struct, gc=False):
    """A Kubernetes object. Parsed objects are converted into this: their ``items`` count
    only when their kind is a List, which the walker sees before converting."""

    kind: str | msgspec.UnsetType | None = msgspec.UNSET
    metadata: Metadata | None = None
    spec: Spec | None = None
    status: Status | None = None


class Object(Resource, gc=False):
    """A decoded JSON document: an object, or a ``List`` of them (``items``)."""

    items: list[Object | None] | msgspec.UnsetType | None = msgspec.UNSET


#: a JSON document: one object (possibly a List)
Document = Object

json_decoder = msgspec.json.Decoder(Document)
