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

Values compared to memoize records are frozen structs and tuples (hashable): containers'
ports, tolerations, taints, node affinities, volumes and node images are turned into
model records once per distinct value (:mod:`kscore_fast.io.objects`); so are spread
constraints and pod (anti-)affinity, which hold label maps (not hashable): those are
remembered by their msgpack encoding, exact for these typed values. A type the
located validator has no word for is explained from msgspec's error path
(:func:`kscore_fast.io.validate.type_problem`).
"""

from __future__ import annotations

from typing import Any

import msgspec


class OwnerRef(msgspec.Struct, rename="camel", gc=False):
    api_version: str | None = None
    kind: str | None = None
    name: str | None = None
    controller: bool | None = None
    #: read of PersistentVolumeClaims only (an ephemeral volume's claim's owner)
    uid: str | None = None


class Metadata(msgspec.Struct, rename="camel", gc=False):
    name: Any = None
    namespace: str | None = None
    labels: dict[str, str] | None = None
    owner_references: list[OwnerRef | None] | None = None
    deletion_timestamp: Any = None
    uid: Any = None
    #: read of PersistentVolumeClaims only (:func:`annotations`)
    annotations: Any = None


class JsonMetadata(Metadata, gc=False):
    """The metadata of a JSON document's object: annotations kept as their text (pods
    may carry large ones, which only a PersistentVolumeClaim's are read of)."""

    annotations: msgspec.Raw = msgspec.Raw()


_annotations = msgspec.json.Decoder(dict[str, str] | None)


def annotations(meta: Metadata) -> dict[str, str] | None:
    """``metadata.annotations`` (a :class:`JsonMetadata`'s text decoded). Raises
    ``msgspec.ValidationError`` or ``msgspec.DecodeError``; other values as they are."""
    value = meta.annotations
    if isinstance(value, msgspec.Raw):
        return _annotations.decode(value) if value else None
    return value


class Resources(msgspec.Struct, gc=False):
    requests: dict[Any, Any] | None = None
    limits: dict[Any, Any] | None = None


class Port(msgspec.Struct, rename="camel", frozen=True, gc=False):
    container_port: int | None = None
    host_port: int | None = None
    protocol: str | None = None
    host_ip: str | None = msgspec.field(default=None, name="hostIP")


class Container(msgspec.Struct, gc=False):
    image: str | None = None
    resources: Resources | None = None
    ports: tuple[Port | None, ...] | None = None


class Toleration(msgspec.Struct, rename="camel", frozen=True, gc=False):
    key: str | None = None
    operator: str | None = None
    value: str | None = None
    effect: str | None = None
    toleration_seconds: int | None = None


class Taint(msgspec.Struct, frozen=True, gc=False):
    key: str | None = None
    value: str | None = None
    effect: str | None = None


class Requirement(msgspec.Struct, frozen=True, gc=False):
    """A ``NodeSelectorRequirement``."""

    key: str | None = None
    operator: str | None = None
    values: tuple[str, ...] | None = None


class Term(msgspec.Struct, rename="camel", frozen=True, gc=False):
    """A ``NodeSelectorTerm``."""

    match_expressions: tuple[Requirement | None, ...] | None = None
    match_fields: tuple[Requirement | None, ...] | None = None


class NodeSelector(msgspec.Struct, rename="camel", frozen=True, gc=False):
    node_selector_terms: tuple[Term | None, ...] | None = None


class ClaimRef(msgspec.Struct, frozen=True, gc=False):
    """A PersistentVolume's ``spec.claimRef``."""

    namespace: str | None = None
    name: str | None = None
    uid: str | None = None


class VolumeNodeAffinity(msgspec.Struct, frozen=True, gc=False):
    """A PersistentVolume's ``spec.nodeAffinity``."""

    required: NodeSelector | None = None


class Preferred(msgspec.Struct, frozen=True, gc=False):
    """A ``PreferredSchedulingTerm``."""

    weight: int | None = None
    preference: Term | None = None


class NodeAffinity(msgspec.Struct, frozen=True, gc=False):
    required: NodeSelector | None = msgspec.field(
        default=None, name="requiredDuringSchedulingIgnoredDuringExecution"
    )
    preferred: tuple[Preferred | None, ...] | None = msgspec.field(
        default=None, name="preferredDuringSchedulingIgnoredDuringExecution"
    )


class SelectorRequirement(msgspec.Struct, frozen=True, gc=False):
    """A ``LabelSelectorRequirement``."""

    key: str | None = None
    operator: str | None = None
    values: tuple[str, ...] | None = None


class LabelSelector(msgspec.Struct, rename="camel", gc=False):
    """A ``metav1.LabelSelector`` of a pod's spread constraints and affinity terms."""

    match_labels: dict[str, str] | None = None
    match_expressions: tuple[SelectorRequirement | None, ...] | None = None


class SpreadConstraint(msgspec.Struct, rename="camel", gc=False):
    """A ``TopologySpreadConstraint``."""

    max_skew: int | None = None
    topology_key: str | None = None
    when_unsatisfiable: str | None = None
    label_selector: LabelSelector | None = None


class PodAffinityTerm(msgspec.Struct, rename="camel", gc=False):
    label_selector: LabelSelector | None = None
    namespaces: tuple[str, ...] | None = None
    topology_key: str | None = None
    namespace_selector: LabelSelector | None = None


class WeightedPodAffinityTerm(msgspec.Struct, rename="camel", gc=False):
    weight: int | None = None
    pod_affinity_term: PodAffinityTerm | None = None


class PodAffinity(msgspec.Struct, gc=False):
    """A ``PodAffinity`` or ``PodAntiAffinity`` (the same fields)."""

    required: tuple[PodAffinityTerm | None, ...] | None = msgspec.field(
        default=None, name="requiredDuringSchedulingIgnoredDuringExecution"
    )
    preferred: tuple[WeightedPodAffinityTerm | None, ...] | None = msgspec.field(
        default=None, name="preferredDuringSchedulingIgnoredDuringExecution"
    )


class Affinity(msgspec.Struct, rename="camel", gc=False):
    node_affinity: NodeAffinity | None = None
    pod_affinity: PodAffinity | None = None
    pod_anti_affinity: PodAffinity | None = None


class ClaimSource(msgspec.Struct, rename="camel", frozen=True, gc=False):
    claim_name: str | None = None


class GcePdSource(msgspec.Struct, rename="camel", frozen=True, gc=False):
    """``gcePersistentDisk`` (of a pod volume or a PersistentVolume)."""

    pd_name: str | None = None
    read_only: bool | None = None


class IdSource(msgspec.Struct, rename="camel", frozen=True, gc=False):
    """``awsElasticBlockStore`` and ``cinder``: a ``volumeID``."""

    volume_id: str | None = msgspec.field(default=None, name="volumeID")
    read_only: bool | None = None


class AzureDiskSource(msgspec.Struct, rename="camel", frozen=True, gc=False):
    disk_name: str | None = None
    disk_uri: str | None = msgspec.field(default=None, name="diskURI")
    kind: str | None = None
    read_only: bool | None = None


class RbdSource(msgspec.Struct, rename="camel", frozen=True, gc=False):
    monitors: tuple[str, ...] | None = None
    image: str | None = None
    pool: str | None = None
    read_only: bool | None = None


class IscsiSource(msgspec.Struct, rename="camel", frozen=True, gc=False):
    iqn: str | None = None
    read_only: bool | None = None


class CsiSource(msgspec.Struct, rename="camel", frozen=True, gc=False):
    """A PersistentVolume's ``csi``."""

    driver: str | None = None
    volume_handle: str | None = None


class Present(msgspec.Struct, frozen=True, gc=False):
    """A field only whose presence is read (``ephemeral``)."""


class Volume(msgspec.Struct, rename="camel", frozen=True, gc=False):
    """A pod volume: its claim, and the in-tree disk sources the volume plugins read."""

    persistent_volume_claim: ClaimSource | None = None
    name: str | None = None
    gce_persistent_disk: GcePdSource | None = None
    aws_elastic_block_store: IdSource | None = None
    azure_disk: AzureDiskSource | None = None
    cinder: IdSource | None = None
    rbd: RbdSource | None = None
    iscsi: IscsiSource | None = None
    ephemeral: Present | None = None


class Image(msgspec.Struct, rename="camel", frozen=True, gc=False):
    """An entry of a node's ``status.images``."""

    names: tuple[str, ...] | None = None
    size_bytes: int | None = None


class Spec(msgspec.Struct, rename="camel", gc=False):
    # Pod
    node_name: str | None = None
    containers: list[Container | None] | None = None
    init_containers: list[Container | None] | None = None
    overhead: dict[Any, Any] | None = None
    topology_spread_constraints: tuple[SpreadConstraint | None, ...] | None = None
    scheduler_name: str | None = None
    priority: int | None = None
    node_selector: dict[str, str] | None = None
    affinity: Affinity | None = None
    tolerations: tuple[Toleration | None, ...] | None = None
    volumes: tuple[Volume | None, ...] | None = None
    priority_class_name: str | None = None
    preemption_policy: str | None = None
    # Node
    unschedulable: bool | None = None
    taints: tuple[Taint | None, ...] | None = None
    # Service, ReplicationController, ReplicaSet, StatefulSet (and PersistentVolumeClaim)
    selector: Any = None
    # PersistentVolumeClaim
    volume_name: str | None = None
    storage_class_name: str | None = None
    # PersistentVolume
    node_affinity: VolumeNodeAffinity | None = None
    capacity: dict[Any, Any] | None = None
    claim_ref: ClaimRef | None = None
    # PersistentVolume and PersistentVolumeClaim
    access_modes: tuple[str, ...] | None = None
    volume_mode: str | None = None
    resources: Resources | None = None
    # PodDisruptionBudget (checked by the reader)
    min_available: Any = None
    max_unavailable: Any = None
    # PersistentVolume: the sources the volume limits read
    gce_persistent_disk: GcePdSource | None = None
    aws_elastic_block_store: IdSource | None = None
    azure_disk: AzureDiskSource | None = None
    cinder: IdSource | None = None
    csi: CsiSource | None = None
    # CSINode (checked by the reader)
    drivers: Any = None
    # CSIDriver (checked by the reader)
    attach_required: Any = None
    storage_capacity: Any = None


class Condition(msgspec.Struct, frozen=True, gc=False):
    """A pod condition: what ``podutil.IsPodReady`` reads."""

    type: str | None = None
    status: str | None = None


class Status(msgspec.Struct, rename="camel", gc=False):
    # Pod
    phase: str | None = None
    nominated_node_name: str | None = None
    start_time: str | None = None
    conditions: tuple[Condition | None, ...] | None = None
    # PodDisruptionBudget (checked by the reader)
    disruptions_allowed: Any = None
    disrupted_pods: Any = None
    # Node
    allocatable: dict[Any, Any] | None = None
    capacity: dict[Any, Any] | None = None
    images: tuple[Image | None, ...] | None = None


class Resource(msgspec.Struct, gc=False):
    """A Kubernetes object. Parsed objects are converted into this: their ``items`` count
    only when their kind is a List, which the walker sees before converting."""

    kind: str | msgspec.UnsetType | None = msgspec.UNSET
    metadata: Metadata | None = None
    spec: Spec | None = None
    status: Status | None = None
    api_version: Any = msgspec.field(default=None, name="apiVersion")
    # PriorityClass (checked by the reader)
    value: Any = None
    global_default: Any = msgspec.field(default=None, name="globalDefault")
    preemption_policy: Any = msgspec.field(default=None, name="preemptionPolicy")
    # StorageClass (checked by the reader)
    volume_binding_mode: Any = msgspec.field(default=None, name="volumeBindingMode")
    provisioner: Any = None
    allowed_topologies: Any = msgspec.field(default=None, name="allowedTopologies")
    parameters: Any = None
    # CSIStorageCapacity (checked by the reader)
    storage_class_name: Any = msgspec.field(default=None, name="storageClassName")
    node_topology: Any = msgspec.field(default=None, name="nodeTopology")
    capacity: Any = None
    maximum_volume_size: Any = msgspec.field(default=None, name="maximumVolumeSize")


# -- JSON documents: what pods of a template share, kept as text -------------------------------

_ABSENT = msgspec.Raw()


class JsonContainer(Container, gc=False):
    """A container of a JSON document: ``resources`` and ``ports`` kept as their JSON text
    (:func:`typed_spec` decodes them)."""

    resources: msgspec.Raw = _ABSENT
    ports: msgspec.Raw = _ABSENT


class JsonSpec(Spec, gc=False):
    """The spec of an object of a JSON document: a pod's tolerations and its containers'
    resources and ports kept as their JSON text. Pods of a template repeat these texts
    byte for byte (as their other fields read here: volume names and mounts, which differ
    from pod to pod, are not read), so a pod whose spec equals the previous one's needs
    none of it decoded; :func:`typed_spec` decodes them for a new one (~2 µs per pod of
    decoding otherwise)."""

    containers: list[JsonContainer | None] | None = None
    init_containers: list[JsonContainer | None] | None = None
    tolerations: msgspec.Raw = _ABSENT


class Object(Resource, gc=False):
    """A decoded JSON document: an object, or a ``List`` of them (``items``)."""

    metadata: JsonMetadata | None = None
    spec: JsonSpec | None = None
    items: list[Object | None] | msgspec.UnsetType | None = msgspec.UNSET


class Refused(Exception):
    """A text a JSON document's struct kept (:class:`JsonSpec`) is not of its type: the
    document is read as parsed objects instead, which explains what is wrong."""


_resources = msgspec.json.Decoder(Resources | None)
_ports = msgspec.json.Decoder(tuple[Port | None, ...] | None)
_tolerations = msgspec.json.Decoder(tuple[Toleration | None, ...] | None)


def typed_spec(spec: Spec) -> Spec:
    """``spec`` with the texts of a :class:`JsonSpec` decoded (another spec as it is).
    Raises :class:`Refused`."""
    if not isinstance(spec, JsonSpec):
        return spec
    typed = Spec(*msgspec.structs.astuple(spec))  # (the fields are in the same order)
    try:
        typed.containers = _typed_containers(spec.containers)
        typed.init_containers = _typed_containers(spec.init_containers)
        typed.tolerations = _text(_tolerations, spec.tolerations)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
        raise Refused() from None
    return typed


def _typed_containers(containers: list[JsonContainer | None] | None
                      ) -> list[Container | None] | None:  # fmt: skip
    if containers is None:
        return None
    return [None if c is None else Container(c.image, _text(_resources, c.resources),
                                             _text(_ports, c.ports))
            for c in containers]  # fmt: skip


def _text(decoder: msgspec.json.Decoder[Any], text: msgspec.Raw) -> Any:
    """A kept text decoded (None when the field was absent)."""
    return decoder.decode(text) if text else None


#: a JSON document: one object (possibly a List)
Document = Object

json_decoder = msgspec.json.Decoder(Document)
