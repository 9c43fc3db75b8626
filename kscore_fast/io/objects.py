"""Turn decoded Kubernetes objects into model records, validating them.

Objects arrive typed (:mod:`kscore_fast.io.schema`: JSON decoded straight into structs)
or parsed (dicts from YAML, from a JSON file typed decoding refused, or from the Python
API), which are converted into the same structs. Kinds, lists and typed lists are
expanded here; objects of kinds the scheduler does not read are counted, not checked.

Every check of :mod:`kscore_fast.io.validate` applies, but each distinct label key, label
value, namespace and quantity is checked once: a 100,000-pod cluster has a few hundred
of them. The scheduling fields (containers, tolerations, taints, node affinity, ...) are
turned into model records once per distinct value (:class:`_Fields`), so that pods of one
template share their records, quantities included. A parsed object the structs refuse is
handed to :func:`~kscore_fast.io.validate.explain`, which names the file, object and field.

Defaults the API server applies and the scheduler therefore sees are applied: a missing
namespace is ``default``, a missing ``schedulerName`` ``default-scheduler``, a port's
missing protocol ``TCP``, a Namespace's ``kubernetes.io/metadata.name`` label its name
(``SetDefaults_Namespace``), a container's request of a resource it limits but does not
request its limit (``SetDefaults_Pod``); the namespace of a cluster-scoped object is
ignored (the API server clears it). Other defaulting (host ports of ``hostNetwork`` pods)
is not: kubectl prints objects already defaulted.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import chain
from typing import Any, TypeVar

import msgspec
from msgspec import UNSET

from ..errors import InputError
from ..model.disruption import BudgetRecord
from ..model.objects import (
    DEFAULT_SCHEDULER_NAME,
    RC_KIND,
    RS_KIND,
    SS_KIND,
    ContainerImage,
    ContainerPort,
    ContainerRecord,
    ControllerRecord,
    NamespaceRecord,
    NodeAffinity,
    NodeRecord,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    OwnerReference,
    PodAffinity,
    PodAffinityTerm,
    PodRecord,
    PreferredSchedulingTerm,
    PriorityClassRecord,
    ResourceList,
    ServiceRecord,
    Taint,
    Toleration,
    TopologySpreadConstraint,
    WeightedPodAffinityTerm,
    object_uid,
)
from ..model.priority import class_problem
from ..model.quantity import Quantity
from ..model.selectors import LabelSelector
from ..model.storage import (
    BETA_STORAGE_CLASS_ANNOTATION,
    BIND_COMPLETED_ANNOTATION,
    CLAIM_LOST,
    DEFAULT_CLASS_ANNOTATIONS,
    FILESYSTEM,
    IMMEDIATE,
    SELECTED_NODE_ANNOTATION,
    VOLUME_AVAILABLE,
    WAIT_FOR_FIRST_CONSUMER,
    ClaimRecord,
    ClassRecord,
    StorageRecord,
    VolumeRecord,
)
from ..model.times import rfc3339_problem
from ..model.validation import valid_dns1123_subdomain, valid_label_value
from . import schema
from .capacities import KIND as CAPACITY_KIND
from .capacities import capacity_record
from .disks import CSI_KINDS, PV_SOURCES, csi_record, pod_disks, volume_record
from .validate import (
    CLUSTER_SCOPED,
    INT32,
    INT64,
    PREFERRED,
    REQUIRED,
    Problem,
    Where,
    affinity_term_problem,
    explain,
    field_requirement_problem,
    found,
    integer_problem,
    label_problem,
    label_selector,
    listing,
    map_selector,
    mapping,
    name_problem,
    namespace_problem,
    object_label,
    pod_priority_problem,
    port_problem,
    preemption_policy_problem,
    requirement_problem,
    resource_name_problem,
    resource_quantity,
    spread_constraint_problem,
    string,
    taint_problem,
    toleration_problem,
    typed_label_selector,
    weight_problem,
)

#: the storage objects' kinds (:mod:`kscore_fast.model.storage`)
STORAGE_KINDS = ("PersistentVolumeClaim", "PersistentVolume", "StorageClass", *CSI_KINDS,
                 CAPACITY_KIND)  # fmt: skip
BUDGET_KIND = "PodDisruptionBudget"
USED_KINDS = frozenset(("Node", "Pod", "Service", RC_KIND, RS_KIND, SS_KIND, "Namespace",
                        "PriorityClass", BUDGET_KIND, *STORAGE_KINDS))  # fmt: skip
#: the label the API server sets on every namespace (``SetDefaults_Namespace``)
NAMESPACE_NAME_LABEL = "kubernetes.io/metadata.name"
_NO_OWNER = OwnerReference("", "", "", False)
_NO_METADATA = schema.Metadata()
_NO_SPEC = schema.Spec()
_NO_STATUS = schema.Status()
_NO_CLAIM_RESOURCES = schema.Resources()
#: shared by every record without them (records and their dicts are never mutated)
_NO_RESOURCES: ResourceList = {}
_NO_LABELS: dict[str, str] = {}
_NO_CONTAINER = (ContainerRecord(), False)
#: a volume list without claims: (claim names, positions of ephemeral ones)
_NO_CLAIMS: tuple[tuple[str, ...], tuple[int, ...]] = ((), ())
#: the fields each kind reads (the structs hold those of every kind): others are ignored
_OWN_FIELDS = {
    "Pod": ({"nodeName", "containers", "initContainers", "overhead", "topologySpreadConstraints",
             "schedulerName", "priority", "nodeSelector", "affinity", "tolerations", "volumes",
             "priorityClassName", "preemptionPolicy"},
            {"phase", "nominatedNodeName", "startTime", "conditions"}),
    "Node": ({"unschedulable", "taints"}, {"allocatable", "capacity", "images"}),
    "Namespace": (set(), set()),
    "PriorityClass": (set(), set()),
    "PersistentVolumeClaim": ({"volumeName", "storageClassName", "selector", "accessModes",
                               "volumeMode", "resources"}, {"phase"}),
    "PersistentVolume": ({*PV_SOURCES, "nodeAffinity", "capacity", "claimRef", "accessModes",
                          "volumeMode", "storageClassName"}, {"phase"}),
    "StorageClass": (set(), set()),
    "CSINode": ({"drivers"}, set()),
    "CSIDriver": ({"attachRequired", "storageCapacity"}, set()),
    CAPACITY_KIND: (set(), set()),
    BUDGET_KIND: ({"selector", "minAvailable", "maxUnavailable"},
                  {"disruptionsAllowed", "disruptedPods"}),
}  # fmt: skip


#: kubectl's table output (``kubectl get pods``), read as one YAML string: a header of
#: upper-case column names, NAME first
_KUBECTL_TABLE = re.compile(r"NAME(?:\s+[A-Z][A-Z-]*(?:\([A-Z]+\))?)+\s")
_TABLE_HINT = " (kubectl's table output: give kscore what kubectl get -o json or -o yaml prints)"


@dataclass
class Objects:
    """The records of a set of manifests, in input order."""

    nodes: list[NodeRecord] = field(default_factory=list)
    pods: list[PodRecord] = field(default_factory=list)
    services: list[ServiceRecord] = field(default_factory=list)
    controllers: list[ControllerRecord] = field(default_factory=list)
    namespaces: list[NamespaceRecord] = field(default_factory=list)
    priority_classes: list[PriorityClassRecord] = field(default_factory=list)
    #: PersistentVolumeClaims, PersistentVolumes and StorageClasses
    storage: list[StorageRecord] = field(default_factory=list)
    #: PodDisruptionBudgets
    budgets: list[BudgetRecord] = field(default_factory=list)
    #: kinds skipped → count
    skipped: Counter[str] = field(default_factory=Counter)
    #: objects read, of every kind
    total: int = 0


class ItemsFrom:
    """The items of a top-level List from item :attr:`first` on, which is known only once
    the items before them have been counted (a range read in parallel, :mod:`.parallel`)."""

    __slots__ = ("first",)

    def __init__(self) -> None:
        self.first = 0


#: where an object is in its file: ``""``, a text, or (the List's location, item index)
#: where the List's location may be an :class:`ItemsFrom`, formatted only when a message
#: needs it
Location = str | tuple[Any, int]


def where_text(where: Location) -> str:
    """``items[3]``, ``document 2, items[0]``, ..."""
    if isinstance(where, tuple):
        parent, i = where
        if isinstance(parent, ItemsFrom):
            parent, i = "", parent.first + i
        parent = where_text(parent)
        return f"{parent + ', ' if parent else ''}items[{i}]"
    return where


#: where an object is, for messages: (file, place in the file, (kind, namespace, name))
At = tuple[str, Location, tuple[str, str, str]]
#: what a pod's template decides: its spread constraints and the fields of its PodRecord
#: from ``scheduler_name`` on
Template = tuple[tuple[TopologySpreadConstraint, ...], tuple[Any, ...]]


class _Fields:
    """The scheduling fields of pods and nodes, validated and turned into model records
    once per distinct value: pods of one template share their container records (requests
    and quantities included), tolerations and node affinity."""

    def __init__(self) -> None:
        self._keys_ok: set[str] = set()
        self._values_ok: set[str] = set()
        #: valid quantities: texts, and other YAML values as (type, value) → parsed value;
        #: the valid texts again as a set, for one-pass membership tests
        self._quantities: dict[Any, Quantity] = {}
        self._quantity_texts_ok: set[str] = set()
        self._resource_lists: dict[tuple[Any, ...], ResourceList] = {}
        #: (image, ports, requests) → (record, whether it has host ports)
        self._containers: dict[tuple[Any, ...], tuple[ContainerRecord, bool]] = {}
        self._ports: dict[schema.Port, ContainerPort] = {}
        self._tolerations: dict[tuple[Any, ...], tuple[Toleration, ...]] = {}
        self._taints: dict[tuple[Any, ...], tuple[Taint, ...]] = {}
        self._images: dict[tuple[Any, ...], tuple[ContainerImage, ...]] = {}
        self._affinities: dict[schema.NodeAffinity, NodeAffinity] = {}
        #: spread constraints and pod (anti-)affinities by their msgpack encoding
        self._spreads: dict[bytes, tuple[TopologySpreadConstraint, ...]] = {}
        self._pod_affinities: dict[bytes, PodAffinity] = {}
        self._selectors: dict[tuple[tuple[str, str], ...], dict[str, str]] = {}
        self._no_claims: set[tuple[schema.Volume | None, ...]] = set()
        #: volume lists → their disks
        self._disks: dict[tuple[schema.Volume | None, ...], tuple[Any, Any]] = {}
        #: the last container and toleration list recorded, and their records
        self._last_container: tuple[Any, tuple[ContainerRecord, bool]] = (None, _NO_CONTAINER)
        self._last_tolerations: tuple[Any, tuple[Toleration, ...]] = (None, ())
        #: the last pod spec (without ``nodeName``) whose quantities are all texts, and its
        #: fields (:meth:`template_fields`)
        self._last_spec: tuple[Any, Template] = (None, ((), ()))

    def _where(self, file: str, where: Location, key: tuple[str, str, str]) -> Where:
        return Where(file, where_text(where), object_label(*key))

    def _fail(self, at: At, path: str, problem: Problem) -> InputError:
        field, message = problem
        if path:
            field = f"{path}{'' if field[0] == '[' else '.'}{field}"
        return self._where(*at).error(field, message)

    def template_fields(self, spec: schema.Spec, at: At) -> Template:
        """A pod's spread constraints and :meth:`pod_fields`: what its template decides.

        Pods of a template come one after the other, and their specs are equal but for
        ``nodeName`` (the structs hold only what the scheduler reads: no volume names or
        mounts): such a pod gets the previous pod's records, checked already, and the texts
        a JSON document's spec keeps (:class:`~kscore_fast.io.schema.JsonSpec`) are decoded
        only for a new one. Only a spec whose quantities are all texts is remembered (``1 ==
        True``, only one is a valid quantity; a text equals only a text).
        ``spec.node_name`` is cleared: read it first. Raises ``schema.Refused``.
        """
        spec.node_name = None
        last, fields = self._last_spec
        if spec == last:
            return fields
        typed = schema.typed_spec(spec)
        constraints = typed.topology_spread_constraints
        spread = self.spread_constraints(constraints, at) if constraints else ()
        fields = (spread, self.pod_fields(typed, at))
        if self._quantities_are_texts(typed):
            self._last_spec = (spec, fields)
        return fields

    def _quantities_are_texts(self, spec: schema.Spec) -> bool:
        """Every quantity of ``spec`` (overhead, requests, limits) is a valid text."""
        ok = self._quantity_texts_ok
        if not _texts(ok, spec.overhead):
            return False
        for c in chain(spec.containers or (), spec.init_containers or ()):
            res = c.resources if c is not None else None
            if res is not None and not (_texts(ok, res.requests) and _texts(ok, res.limits)):
                return False
        return True

    def pod_fields(self, spec: schema.Spec, at: At) -> tuple[Any, ...]:
        """The fields of a PodRecord from ``scheduler_name`` on, in order."""
        init = containers = ()
        if spec.init_containers:
            init = self._container_list(spec.init_containers, "initContainers", at)
        if spec.containers:
            containers = self._container_list(spec.containers, "containers", at)
        overhead = _NO_RESOURCES
        if spec.overhead:
            overhead = self._resource_list(spec.overhead, "spec.overhead", at)
        priority = spec.priority
        if priority is not None and not INT32[0] <= priority <= INT32[1]:
            raise self._fail(at, "spec", integer_problem("priority", priority, INT32))
        named = spec.priority_class_name or spec.preemption_policy is not None
        if named and (problem := pod_priority_problem(spec)):
            raise self._fail(at, "spec", problem)
        selector = self._node_selector(spec.node_selector, at) if spec.node_selector else _NO_LABELS
        affinity = pod_affinity = pod_anti_affinity = None
        if spec.affinity is not None:
            affinity = spec.affinity.node_affinity
            if affinity is not None:
                affinity = self._affinities.get(affinity) or self._node_affinity(affinity, at)
            if spec.affinity.pod_affinity is not None:
                pod_affinity = self.pod_affinity(spec.affinity.pod_affinity, "podAffinity", at)
            if spec.affinity.pod_anti_affinity is not None:
                pod_anti_affinity = self.pod_affinity(
                    spec.affinity.pod_anti_affinity, "podAntiAffinity", at
                )
        tolerations = spec.tolerations or ()
        if tolerations:
            tolerations = self._toleration_list(tolerations, at)
        volumes = spec.volumes
        pvc, ephemeral = _NO_CLAIMS
        if volumes and volumes not in self._no_claims:
            pvc, ephemeral = self._claims(volumes, at)
        disks = pod_disks(volumes, self._disks, self._where(*at)) if volumes else ()
        return (spec.scheduler_name or DEFAULT_SCHEDULER_NAME, priority, containers, init,
                overhead, selector, affinity, tolerations, pvc, pod_affinity,
                pod_anti_affinity, spec.priority_class_name or "",
                spec.preemption_policy, disks, ephemeral)  # fmt: skip

    def _toleration_list(self, tolerations: tuple[schema.Toleration | None, ...],
                         at: At) -> tuple[Toleration, ...]:  # fmt: skip
        last = self._last_tolerations
        if tolerations == last[0]:  # as the previous pod's (pods of a template come together)
            return last[1]
        got = self._tolerations.get(tolerations) or self._records(
            self._tolerations, tolerations, "spec.tolerations", at, _NO_TOLERATION,
            toleration_problem, _toleration)  # fmt: skip
        self._last_tolerations = (tolerations, got)
        return got

    def node_record(self, labels: dict[str, str], spec: schema.Spec, status: schema.Status,
                    at: At) -> NodeRecord:  # fmt: skip
        allocatable = _NO_RESOURCES
        if status.allocatable:
            allocatable = self._resource_list(status.allocatable, "status.allocatable", at)
        if status.capacity:
            self._resource_list(status.capacity, "status.capacity", at)
        taints = images = ()
        if spec.taints:
            taints = self._records(self._taints, spec.taints, "spec.taints", at, _NO_TAINT,
                                   taint_problem, _taint, _unique_taints)  # fmt: skip
        if status.images:
            images = self._records(self._images, status.images, "status.images", at,
                                   _NO_IMAGE, _image_problem, _image)  # fmt: skip
        return NodeRecord(at[2][2], labels, allocatable, bool(spec.unschedulable), taints, images)

    def _records(self, memo: dict[tuple[Any, ...], tuple[Any, ...]], values: tuple[Any, ...],
                 path: str, at: At, empty: Any, check: Callable[[Any], Problem | None],
                 make: Callable[[Any], Any],
                 check_all: Callable[[tuple[Any, ...]], Problem | None] | None = None
                 ) -> tuple[Any, ...]:  # fmt: skip
        """The records of a list of structs (a null entry is an empty one), checked."""
        got = memo.get(values)
        if got is None:
            items = [empty if v is None else v for v in values]
            for i, v in enumerate(items):
                if problem := check(v):
                    raise self._fail(at, f"{path}[{i}]", problem)
            got = tuple(map(make, items))
            if check_all is not None and (problem := check_all(got)):
                raise self._fail(at, path, problem)
            memo[values] = got
        return got

    def _container_list(self, containers: list[schema.Container | None], group: str,
                        at: At) -> tuple[ContainerRecord, ...]:  # fmt: skip
        records = []
        host_ports = False
        last = self._last_container
        for i, c in enumerate(containers):
            if c is None:
                hit = _NO_CONTAINER
            elif c == last[0]:  # as the previous container (pods of a template come together)
                hit = last[1]
            else:
                hit = self._shared_container(c, f"spec.{group}[{i}]", at)
                last = self._last_container
            records.append(hit[0])
            host_ports = host_ports or hit[1]
        if host_ports:
            self._check_host_ports(records, group, at)
        return tuple(records)

    def _shared_container(self, c: schema.Container, path: str, at: At
                          ) -> tuple[ContainerRecord, bool]:  # fmt: skip
        """(record, whether it has host ports), one record for every container with the
        same image, ports, requests and limits (requests default to limits)."""
        key = self._container_key(c)
        hit = self._containers.get(key) if key is not None else None
        if hit is None:
            hit = self._container(c, path, at)
            key = key or self._container_key(c)  # (its quantities are known now)
            if key is None:
                return hit  # quantities that are not texts: not shared
            self._containers[key] = hit
        self._last_container = (c, hit)
        return hit

    def _container_key(self, c: schema.Container) -> tuple[Any, ...] | None:
        """What a container's record depends on, once each of its quantities is a known
        valid text (None before: 1 and True are equal keys, only one a valid quantity)."""
        res = c.resources
        if res is None:
            return (c.image, c.ports)
        req, lim, ok = res.requests, res.limits, self._quantity_texts_ok
        if (not req or _all_in(ok, req)) and (not lim or _all_in(ok, lim)):
            return (c.image, c.ports, tuple(req.items()) if req else None,
                    tuple(lim.items()) if lim else None)  # fmt: skip
        return None

    def _container(self, c: schema.Container, path: str, at: At) -> tuple[ContainerRecord, bool]:
        res = c.resources or _NO_RESOURCES_SPEC
        requests = _NO_RESOURCES
        if res.requests:
            requests = self._resource_list(res.requests, f"{path}.resources.requests", at)
        if res.limits:
            limits = self._resource_list(res.limits, f"{path}.resources.limits", at)
            if not limits.keys() <= requests.keys():  # (both dicts are shared: copied)
                requests = _requested_at_limits(requests, limits)
        ports = []
        for j, p in enumerate(c.ports or ()):
            p = p or _NO_PORT
            port = self._ports.get(p)
            if port is None:
                if problem := port_problem(p):
                    raise self._fail(at, f"{path}.ports[{j}]", problem)
                port = self._ports[p] = ContainerPort(
                    p.container_port or 0, p.host_port or 0, p.protocol or "TCP", p.host_ip or ""
                )
            ports.append(port)
        record = ContainerRecord(c.image or "", requests, tuple(ports))
        return record, any(p.host_port for p in ports)

    def _check_host_ports(self, containers: list[ContainerRecord], group: str, at: At) -> None:
        """``AccumulateUniqueHostPorts``: a host port (protocol, IP, port) is used once by
        the containers, and once by each init container."""
        seen: set[tuple[str, str, int]] = set()
        for i, c in enumerate(containers):
            if group == "initContainers":
                seen = set()
            for j, p in enumerate(c.ports):
                if not p.host_port:
                    continue
                ident = (p.protocol, p.host_ip, p.host_port)
                if ident in seen:
                    raise self._where(*at).error(
                        f"spec.{group}[{i}].ports[{j}].hostPort",
                        f'duplicate host port "{p.protocol}/{p.host_ip}/{p.host_port}"',
                    )
                seen.add(ident)

    def _resource_list(self, values: dict[Any, Any], path: str, at: At) -> ResourceList:
        """A resource list's parsed quantities (one shared dict per distinct list)."""
        key = None
        if _all_in(self._quantity_texts_ok, values):
            key = tuple(values.items())
            got = self._resource_lists.get(key)
            if got is not None:
                return got
        quantities = self._quantities
        out = {}
        for name, q in values.items():
            if problem := resource_name_problem(name):
                raise self._where(*at).error(path, problem)
            memo = q if q.__class__ is str else _hashable(q)
            quantity = quantities.get(memo) if memo is not None else None
            if quantity is None:
                try:
                    quantity = resource_quantity(q)
                except ValueError as exc:
                    raise self._where(*at).error(f"{path}.{name}", str(exc)) from None
                if memo is not None:
                    quantities[memo] = quantity
                if q.__class__ is str:
                    self._quantity_texts_ok.add(q)
            out[name] = quantity
        if key is not None or _all_in(self._quantity_texts_ok, values):  # (texts, now known)
            self._resource_lists[key or tuple(values.items())] = out
        return out

    def _node_selector(self, selector: dict[str, str], at: At) -> dict[str, str]:
        key = tuple(selector.items())
        got = self._selectors.get(key)
        if got is None:
            self._check_labels(selector, "spec.nodeSelector", at)
            got = self._selectors[key] = selector
        return got

    def _node_affinity(self, na: schema.NodeAffinity, at: At) -> NodeAffinity:
        base = "spec.affinity.nodeAffinity"
        required = None
        if na.required is not None:
            path = f"{base}.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms"
            terms = na.required.node_selector_terms or ()
            if not terms:
                raise self._where(*at).error(path, "must have at least one node selector term")
            required = tuple(self._term(t, f"{path}[{i}]", at) for i, t in enumerate(terms))
        preferred = []
        for i, p in enumerate(na.preferred or ()):
            p = p or _NO_PREFERRED
            path = f"{base}.{PREFERRED}[{i}]"
            if problem := weight_problem(p.weight):
                raise self._fail(at, path, problem)
            term = self._term(p.preference, f"{path}.preference", at)
            preferred.append(PreferredSchedulingTerm(p.weight or 0, term))
        got = self._affinities[na] = NodeAffinity(required, tuple(preferred))
        return got

    def _term(self, term: schema.Term | None, path: str, at: At) -> NodeSelectorTerm:
        term = term or _NO_TERM
        parts = []
        for part, values, check in (
            ("matchExpressions", term.match_expressions, requirement_problem),
            ("matchFields", term.match_fields, field_requirement_problem),
        ):
            out = []
            for j, r in enumerate(values or ()):
                r = r or _NO_REQUIREMENT
                if problem := check(r):
                    raise self._fail(at, f"{path}.{part}[{j}]", problem)
                out.append(NodeSelectorRequirement(r.key or "", r.operator or "", r.values or ()))
            parts.append(tuple(out))
        return NodeSelectorTerm(*parts)

    def spread_constraints(self, constraints: tuple[schema.SpreadConstraint | None, ...],
                           at: At) -> tuple[TopologySpreadConstraint, ...]:  # fmt: skip
        """``spec.topologySpreadConstraints``, one record tuple per distinct list."""
        return _remembered(self._spreads, constraints, self._spread_records, at)

    def pod_affinity(self, value: schema.PodAffinity, part: str, at: At) -> PodAffinity:
        """``spec.affinity.podAffinity`` or ``podAntiAffinity`` (``part``), one record per
        distinct value."""
        return _remembered(self._pod_affinities, value, self._pod_affinity, part, at)

    def _spread_records(self, constraints: tuple[schema.SpreadConstraint | None, ...],
                        at: At) -> tuple[TopologySpreadConstraint, ...]:  # fmt: skip
        path = "spec.topologySpreadConstraints"
        out = []
        for i, c in enumerate(constraints):
            c = c or _NO_SPREAD
            if problem := spread_constraint_problem(c):
                raise self._fail(at, f"{path}[{i}]", problem)
            pair = (c.topology_key, c.when_unsatisfiable)
            for later in constraints[i + 1 :]:  # (reported at the first, as Go does)
                if later is not None and (later.topology_key, later.when_unsatisfiable) == pair:
                    raise self._where(*at).error(
                        f"{path}[{i}].{{topologyKey, whenUnsatisfiable}}",
                        f"duplicate {{{pair[0]}, {pair[1]}}}: constraints must be unique by "
                        "topologyKey and whenUnsatisfiable",
                    )
            selector = self._label_selector(c.label_selector, f"{path}[{i}].labelSelector", at)
            out.append(TopologySpreadConstraint(c.max_skew or 0, c.topology_key or "",
                                                c.when_unsatisfiable or "", selector))  # fmt: skip
        return tuple(out)

    def _pod_affinity(self, value: schema.PodAffinity, part: str, at: At) -> PodAffinity:
        path = f"spec.affinity.{part}"
        required = tuple(self._affinity_term(t, f"{path}.{REQUIRED}[{i}]", at)
                         for i, t in enumerate(value.required or ()))  # fmt: skip
        preferred = []
        for i, w in enumerate(value.preferred or ()):
            w = w or _NO_WEIGHTED_TERM
            p = f"{path}.{PREFERRED}[{i}]"
            if problem := weight_problem(w.weight):
                raise self._fail(at, p, problem)
            term = self._affinity_term(w.pod_affinity_term, f"{p}.podAffinityTerm", at)
            preferred.append(WeightedPodAffinityTerm(w.weight or 0, term))
        return PodAffinity(required, tuple(preferred))

    def _affinity_term(self, t: schema.PodAffinityTerm | None, path: str,
                       at: At) -> PodAffinityTerm:  # fmt: skip
        t = t or _NO_AFFINITY_TERM
        labels = self._label_selector(t.label_selector, f"{path}.labelSelector", at)
        namespaces = self._label_selector(t.namespace_selector, f"{path}.namespaceSelector", at)
        if problem := affinity_term_problem(t):
            raise self._fail(at, path, problem)
        return PodAffinityTerm(labels, t.namespaces or (), t.topology_key or "", namespaces)

    def _label_selector(self, sel: schema.LabelSelector | None, path: str,
                        at: At) -> LabelSelector | None:  # fmt: skip
        """A pod's label selector (None stays None: it selects nothing)."""
        if sel is None:
            return None
        return typed_label_selector(self._where(*at), sel, path)

    def _claims(self, volumes: tuple[schema.Volume | None, ...], at: At
                ) -> tuple[tuple[str, ...], tuple[int, ...]]:  # fmt: skip
        """The claim names of the ``persistentVolumeClaim`` volumes and the names of the
        ``ephemeral`` volumes (:func:`own_claims` makes them their claims' names), in
        order, and the positions of the latter; lists without one are remembered (lists
        with one name each pod's own claims)."""
        names, ephemeral = [], []
        for i, v in enumerate(volumes):
            if v is None:
                continue
            if (claim := v.persistent_volume_claim) is not None:
                if not claim.claim_name:
                    raise self._where(*at).error(
                        f"spec.volumes[{i}].persistentVolumeClaim.claimName",
                        "required: the name of a PersistentVolumeClaim in the pod's namespace",
                    )
                names.append(claim.claim_name)
            elif v.ephemeral is not None:
                if not v.name:
                    raise self._where(*at).error(f"spec.volumes[{i}].name", "required")
                ephemeral.append(len(names))
                names.append(v.name)
        if not names:
            self._no_claims.add(volumes)
        return tuple(names), tuple(ephemeral)

    def _check_labels(self, labels: dict[str, str], path: str, at: At) -> None:
        """A label map (labels, a node selector): every key and value, each checked once."""
        keys_ok, values_ok = self._keys_ok, self._values_ok
        if keys_ok.issuperset(labels) and values_ok.issuperset(labels.values()):
            return
        for k, v in labels.items():  # str → str: the typed structs checked the types
            if k in keys_ok and (v in values_ok or valid_label_value(v)):
                values_ok.add(v)
                continue
            if problem := label_problem(path, k, v):
                raise self._where(*at).error(*problem)
            keys_ok.add(k)
            values_ok.add(v)


_NO_RESOURCES_SPEC = schema.Resources()
_NO_TOLERATION = schema.Toleration()
_NO_TAINT = schema.Taint()
_NO_IMAGE = schema.Image()
_NO_PORT = schema.Port()
_NO_PREFERRED = schema.Preferred()
_NO_TERM = schema.Term()
_NO_REQUIREMENT = schema.Requirement()
_NO_SPREAD = schema.SpreadConstraint()
_NO_AFFINITY_TERM = schema.PodAffinityTerm()
_NO_WEIGHTED_TERM = schema.WeightedPodAffinityTerm()
_memo_encode = msgspec.msgpack.Encoder().encode
_R = TypeVar("_R")
_V = TypeVar("_V")


def _remembered(memo: dict[bytes, _R], value: _V, build: Callable[..., _R], *args: Any) -> _R:
    """``build(value, *args)``, once per distinct typed ``value``: remembered by its msgpack
    encoding (its fields' types are fixed, so equal encodings are equal values), unless
    it holds an integer msgpack cannot encode (then invalid: these fields hold int32s)."""
    try:
        key = _memo_encode(value)
    except OverflowError:
        return build(value, *args)
    got = memo.get(key)
    if got is None:
        got = memo[key] = build(value, *args)
    return got


def _hashable(value: Any) -> tuple[type, Any] | None:
    """A memo key for a non-text quantity (1 and True are equal, only one is valid); None
    for a mapping or list (never a quantity)."""
    try:
        hash(value)
    except TypeError:
        return None
    return (type(value), value)


def _toleration(t: schema.Toleration) -> Toleration:
    return Toleration(t.key or "", t.operator or "", t.value or "", t.effect or "",
                      t.toleration_seconds)  # fmt: skip


def _taint(t: schema.Taint) -> Taint:
    return Taint(t.key or "", t.value or "", t.effect or "")


def _unique_taints(taints: tuple[Taint, ...]) -> Problem | None:
    """``validateNodeTaints``: taints are unique by key and effect."""
    seen = set()
    for i, t in enumerate(taints):
        if (t.key, t.effect) in seen:
            why = "taints must be unique by key and effect"
            return f"[{i}]", f"duplicate taint {t.key}:{t.effect} ({why})"
        seen.add((t.key, t.effect))
    return None


def _image_problem(image: schema.Image) -> Problem | None:
    return integer_problem("sizeBytes", image.size_bytes, INT64)


def _image(image: schema.Image) -> ContainerImage:
    return ContainerImage(image.names or (), image.size_bytes or 0)


class ObjectReader(_Fields):
    """Accumulates records from objects, checking names are unique."""

    def __init__(self) -> None:
        super().__init__()
        self.objects = Objects()
        self._seen: dict[tuple[str, str, str], tuple[str, Location]] = {}
        #: valid namespaces, each to itself: records and keys share one text per namespace
        #: (pods of a namespace pickle it once, :mod:`.parallel`); so do pods' phases
        self._namespaces_ok: dict[str, str] = {}
        self._phases: dict[str, str] = {}
        self._owners: dict[tuple[Any, ...], OwnerReference] = {}
        self._last_owners: tuple[Any, tuple[OwnerReference, ...]] = (None, ())

    def checkpoint(self) -> tuple[Any, ...]:
        """The state to return to with :meth:`rollback` (to read a document again)."""
        o = self.objects
        return (len(o.nodes), len(o.pods), len(o.services), len(o.controllers),
                len(o.namespaces), len(o.priority_classes), len(o.storage), len(o.budgets),
                Counter(o.skipped), o.total, len(self._seen))  # fmt: skip

    def detach(self) -> tuple[Objects, dict[tuple[str, str, str], tuple[str, Location]]]:
        """The records read so far and where each object was; the reader starts over (with
        what it has checked: a range's reader of :mod:`.parallel` reads the next range)."""
        read, seen = self.objects, self._seen
        self.objects, self._seen = Objects(), {}
        return read, seen

    def rollback(self, mark: tuple[Any, ...]) -> None:
        o = self.objects
        (n_nodes, n_pods, n_services, n_controllers, n_namespaces, n_classes, n_storage,
         n_budgets, skipped, o.total, n_seen) = mark  # fmt: skip
        del o.nodes[n_nodes:], o.pods[n_pods:], o.services[n_services:]
        del o.controllers[n_controllers:], o.namespaces[n_namespaces:]
        del o.priority_classes[n_classes:], o.storage[n_storage:], o.budgets[n_budgets:]
        o.skipped = skipped
        for key in list(self._seen)[n_seen:]:
            del self._seen[key]

    # -- walking documents ------------------------------------------------------------------

    def add_typed(self, obj: schema.Object | None, file: str, where: Location = "",
                  item_kind: str | None = None) -> None:  # fmt: skip
        """A decoded document: one object or a (typed) List of them."""
        if obj is None:
            return
        kind = item_kind if obj.kind is UNSET else obj.kind
        if obj.items is UNSET or kind is None or not kind.endswith("List"):
            self._add(obj, kind, file, where)
            return
        # "List" → items carry their own kind
        self.add_items(obj.items or (), file, where, kind[: -len("List")] or None)

    def add_items(self, items: Iterable[schema.Object | None], file: str,
                  parent: Location | ItemsFrom, item_kind: str | None,
                  start: int = 0) -> None:  # fmt: skip
        """Decoded items of a List (``parent``: where it is; the first is item ``start``),
        of kind ``item_kind`` unless they say theirs. (:meth:`add_typed` and :meth:`_add`
        inlined for pods: this runs once per item of 100,000s.)"""
        objects, common_pod, add = self.objects, self._common_pod, self._add_object
        for i, item in enumerate(items, start):
            if item is None:
                continue
            kind = item_kind if item.kind is UNSET else item.kind
            if kind == "Pod":
                objects.total += 1
                if not common_pod(item, file, (parent, i)):
                    add(item, kind, file, (parent, i))
            elif item.items is UNSET or kind is None or not kind.endswith("List"):
                objects.total += 1
                add(item, kind, file, (parent, i))
            else:
                self.add_typed(item, file, (parent, i), item_kind)

    def add_parsed(self, obj: Any, file: str, where: Location = "",
                   item_kind: str | None = None) -> None:  # fmt: skip
        """A parsed document (dicts and lists), as ``kubectl`` would read it."""
        if obj is None:
            return  # an empty YAML document
        if not isinstance(obj, Mapping):
            hint = _TABLE_HINT if isinstance(obj, str) and _KUBECTL_TABLE.match(obj) else ""
            raise InputError(
                f"expected a Kubernetes object (a mapping), found {type(obj).__name__}{hint}",
                file=file,
                obj=where_text(where) or None,
            )
        kind = obj.get("kind", item_kind)
        if isinstance(kind, str) and kind.endswith("List") and "items" in obj:
            items = obj["items"]
            if items is None:
                return
            if not isinstance(items, list):
                raise InputError(
                    "items must be a list", file=file, obj=where_text(where) or kind, field="items"
                )
            inner = kind[: -len("List")] or None
            for i, item in enumerate(items):
                self.add_parsed(item, file, (where, i), inner)
            return
        if not isinstance(kind, str) or kind not in USED_KINDS:
            self._add(None, kind, file, where)  # counted (or refused) without converting
            return
        try:
            typed = msgspec.convert(obj, schema.Resource)
        except msgspec.ValidationError as exc:
            typed = _refused(obj, kind, file, where, exc)
        self._add(typed, kind, file, where)

    # -- one object -------------------------------------------------------------------------

    def _add(self, obj: schema.Resource | None, kind: Any, file: str, where: Location) -> None:
        self.objects.total += 1
        if kind != "Pod" or not self._common_pod(obj, file, where):
            self._add_object(obj, kind, file, where)

    def _add_object(self, obj: schema.Resource | None, kind: Any, file: str,
                    where: Location) -> None:  # fmt: skip
        """An object (counted already) by the general path, which names what is wrong."""
        if not isinstance(kind, str) or not kind:
            what = "object without kind"
            if kind is not None and not isinstance(kind, str):
                what = f"must be a string, found {found(kind)}"
            raise InputError(what, file=file, obj=where_text(where) or None, field="kind")
        if kind not in USED_KINDS:
            if kind not in self.objects.skipped:
                _check_text(kind, file, where)
            self.objects.skipped[kind] += 1
            return
        assert obj is not None
        meta, key = self._identify(obj, kind, file, where)
        labels = meta.labels or {}
        at = (file, where, key)
        if labels:
            self._check_labels(labels, "metadata.labels", at)
        if kind == "Pod":
            self._record_pod(meta, obj.spec or _NO_SPEC, obj.status or _NO_STATUS, labels, at)
        elif kind == "Node":
            self.objects.nodes.append(
                self.node_record(labels, obj.spec or _NO_SPEC, obj.status or _NO_STATUS, at)
            )
        elif kind == "Namespace":
            name = key[2]
            if labels.get(NAMESPACE_NAME_LABEL) != name:
                labels = {**labels, NAMESPACE_NAME_LABEL: name}
            self.objects.namespaces.append(NamespaceRecord(name, labels))
        elif kind == "PriorityClass":
            self.objects.priority_classes.append(self._priority_class(obj, at))
        elif kind in STORAGE_KINDS:
            self.objects.storage.append(self._storage(kind, meta, obj, labels, at))
        elif kind == BUDGET_KIND:
            self.objects.budgets.append(self._budget(obj, at))
        else:
            self._selecting(obj, file, where, key)

    def _priority_class(self, obj: schema.Resource, at: At) -> PriorityClassRecord:
        """A PriorityClass, checked as the API server validates one (its v1 defaults:
        value 0, globalDefault false, preemptionPolicy PreemptLowerPriority)."""
        value, default, policy = obj.value, obj.global_default, obj.preemption_policy
        if value is None:
            value = 0
        elif value.__class__ is not int:
            raise self._fail(at, "", ("value", f"must be an integer, found {found(value)}"))
        elif problem := integer_problem("value", value, INT32):
            raise self._fail(at, "", problem)
        if default is None:
            default = False
        elif default.__class__ is not bool:
            raise self._fail(at, "", ("globalDefault", f"must be true or false, found "
                                                       f"{found(default)}"))  # fmt: skip
        if policy is None:
            policy = "PreemptLowerPriority"
        elif policy.__class__ is not str:
            raise self._fail(at, "", ("preemptionPolicy", f"must be a string, found "
                                                          f"{found(policy)}"))  # fmt: skip
        elif problem := preemption_policy_problem("preemptionPolicy", policy):
            raise self._fail(at, "", problem)
        record = PriorityClassRecord(at[2][2], value, default, policy)
        if problem := class_problem(record):
            raise self._fail(at, "", problem)
        return record

    def _storage(self, kind: str, meta: schema.Metadata, obj: schema.Resource,
                 labels: dict[str, str], at: At) -> StorageRecord:  # fmt: skip
        """A storage object (``STORAGE_KINDS``): what the volume plugins read of it, with
        the API server's defaults."""
        if kind in CSI_KINDS:
            return csi_record(kind, at[2][2], meta, obj, self._where(*at))
        if kind == CAPACITY_KIND:
            return capacity_record(at[2][1], at[2][2], obj, self._where(*at))
        if kind == "StorageClass":
            return self._storage_class(meta, obj, at)
        spec = obj.spec or _NO_SPEC
        try:
            notes = schema.annotations(meta)
        except (msgspec.ValidationError, msgspec.DecodeError):
            notes = 0  # (not a mapping of strings: refused below)
        if notes is not None and not (
            isinstance(notes, dict)
            and all(isinstance(k, str) and isinstance(v, str) for k, v in notes.items())
        ):
            raise self._fail(at, "", ("metadata.annotations", "expected a mapping of strings"))
        notes = notes or {}
        cls = notes.get(BETA_STORAGE_CLASS_ANNOTATION)
        if cls is None:
            cls = spec.storage_class_name or ""
        if kind == "PersistentVolume":
            return self._volume(meta, spec, obj.status or _NO_STATUS, labels, cls, at)
        return self._claim(meta, spec, obj.status or _NO_STATUS, notes, cls, at)

    def _storage_class(self, meta: schema.Metadata, obj: schema.Resource, at: At
                       ) -> ClassRecord:  # fmt: skip
        """A StorageClass: binding mode (defaulted), provisioner, allowed topologies,
        whether it is a default class (``IsDefaultAnnotation``), parameters."""
        mode = obj.volume_binding_mode
        if mode is None:  # (SetDefaults_StorageClass)
            mode = IMMEDIATE
        elif mode not in (IMMEDIATE, WAIT_FOR_FIRST_CONSUMER):
            expected = f"expected {IMMEDIATE} or {WAIT_FOR_FIRST_CONSUMER}"
            problem = f"unsupported value {found(mode)}: {expected}"
            raise self._fail(at, "", ("volumeBindingMode", problem))
        ctx = self._where(*at)
        provisioner = string(ctx, obj.provisioner, "provisioner")
        terms = []
        for i, t in enumerate(listing(ctx, obj.allowed_topologies, "allowedTopologies")):
            path = f"allowedTopologies[{i}].matchLabelExpressions"
            exprs = listing(ctx, mapping(ctx, t, path[:-22]).get("matchLabelExpressions"), path)
            term = []
            for j, e in enumerate(exprs):
                e = mapping(ctx, e, f"{path}[{j}]")
                values = listing(ctx, e.get("values"), f"{path}[{j}].values")
                key = string(ctx, e.get("key"), f"{path}[{j}].key")
                term.append((key, tuple(string(ctx, v, f"{path}[{j}].values") for v in values)))
            terms.append(tuple(term))
        try:
            notes = schema.annotations(meta) or {}
        except (msgspec.ValidationError, msgspec.DecodeError):
            raise self._fail(at, "", ("metadata.annotations", "expected a mapping of strings")
                             ) from None  # fmt: skip
        default = any(notes.get(k) == "true" for k in DEFAULT_CLASS_ANNOTATIONS)
        params = mapping(ctx, obj.parameters, "parameters")
        parameters = tuple((str(k), string(ctx, v, f"parameters.{k}")) for k, v in params.items())
        return ClassRecord(at[2][2], mode, provisioner or "", tuple(terms), default, parameters)

    def _volume(self, meta: schema.Metadata, spec: schema.Spec, status: schema.Status,
                labels: dict[str, str], cls: str, at: At) -> VolumeRecord:  # fmt: skip
        """A PersistentVolume: what VolumeZone and VolumeBinding read of it."""
        capacity = self._resource_list(spec.capacity or {}, "spec.capacity", at)
        ref = spec.claim_ref
        claim_ref = None if ref is None else (ref.namespace or "", ref.name or "", ref.uid or "")
        storage = capacity.get("storage")
        disks = volume_record(at[2][2], labels, spec, self._where(*at))  # (its disk sources)
        return msgspec.structs.replace(
            disks, node_affinity=self._volume_affinity(spec, at), class_name=cls,
            capacity=Fraction(0) if storage is None else storage.as_fraction(),
            access_modes=tuple(spec.access_modes or ()),
            volume_mode=spec.volume_mode or FILESYSTEM, claim_ref=claim_ref,
            available=status.phase == VOLUME_AVAILABLE,
            deleting=meta.deletion_timestamp is not None,
        )  # fmt: skip

    def _claim(self, meta: schema.Metadata, spec: schema.Spec, status: schema.Status,
               notes: dict[str, str], cls: str, at: At) -> ClaimRecord:  # fmt: skip
        """A PersistentVolumeClaim: what VolumeZone and VolumeBinding read of it."""
        resources = spec.resources or _NO_CLAIM_RESOURCES
        requests = self._resource_list(resources.requests or {}, "spec.resources.requests", at)
        storage = requests.get("storage")
        ctx = self._where(*at)
        selector = label_selector(ctx, spec.selector, "spec.selector")
        return ClaimRecord(
            at[2][1], at[2][2], volume_name=spec.volume_name or "", class_name=cls,
            spec_class=spec.storage_class_name or "",
            bind_completed=BIND_COMPLETED_ANNOTATION in notes, lost=status.phase == CLAIM_LOST,
            deleting=meta.deletion_timestamp is not None, uid=str(meta.uid or ""),
            request=Fraction(0) if storage is None else storage.as_fraction(),
            access_modes=tuple(spec.access_modes or ()),
            volume_mode=spec.volume_mode or FILESYSTEM,
            selector=None if selector is None else selector.as_selector(),
            selected_node=notes.get(SELECTED_NODE_ANNOTATION, ""),
            request_value=None if storage is None else storage.value(),
            controller_uid=_controller_uid(meta.owner_references),
        )  # fmt: skip

    def _volume_affinity(self, spec: schema.Spec, at: At) -> tuple[NodeSelectorTerm, ...] | None:
        """A PersistentVolume's ``spec.nodeAffinity.required`` terms (None: absent)."""
        required = spec.node_affinity.required if spec.node_affinity is not None else None
        if required is None:
            return None
        path = "spec.nodeAffinity.required.nodeSelectorTerms"
        terms = required.node_selector_terms or ()
        if not terms:
            raise self._where(*at).error(path, "must have at least one node selector term")
        return tuple(self._term(t, f"{path}[{i}]", at) for i, t in enumerate(terms))

    def _budget(self, obj: schema.Resource, at: At) -> BudgetRecord:
        """A PodDisruptionBudget: what DefaultPreemption reads of it, its status computed
        when absent (:mod:`kscore_fast.model.disruption`)."""
        spec, status = obj.spec or _NO_SPEC, obj.status
        ctx = Where(at[0], where_text(at[1]), f"{BUDGET_KIND} {at[2][1]}/{at[2][2]}")
        selector = label_selector(ctx, spec.selector, "spec.selector")
        if obj.api_version == "policy/v1beta1" and selector == LabelSelector():
            selector = None  # (the API server converts v1beta1's empty selector to "none")
        lowest, highest = spec.min_available, spec.max_unavailable
        for path, value in (("spec.minAvailable", lowest), ("spec.maxUnavailable", highest)):
            if value is not None and not _int_or_percent(value):
                raise ctx.error(path, f"expected an integer or a percentage, found {found(value)}")
        if lowest is not None and highest is not None:
            raise ctx.error("spec", "minAvailable and maxUnavailable cannot be both set")
        record = BudgetRecord(at[2][1], at[2][2], selector)
        if status is not None:
            allowed, disrupted = status.disruptions_allowed, status.disrupted_pods
            if allowed is None:
                allowed = 0
            elif allowed.__class__ is not int or not INT32[0] <= allowed <= INT32[1]:
                raise ctx.error("status.disruptionsAllowed", f"expected an integer, found "
                                                             f"{found(allowed)}")  # fmt: skip
            if disrupted is not None and not isinstance(disrupted, dict):
                raise ctx.error("status.disruptedPods", f"expected a mapping, found "
                                                        f"{found(disrupted)}")  # fmt: skip
            return msgspec.structs.replace(
                record,
                disruptions_allowed=allowed,
                disrupted_pods=frozenset(map(str, disrupted or ())),
            )
        if highest is not None or isinstance(lowest, str):
            raise ctx.error("status", "absent: kscore computes a budget's status only for an "
                                      "integer minAvailable (a percentage or maxUnavailable "
                                      "needs the controllers' scale); give the object as "
                                      "kubectl prints it, with its status")  # fmt: skip
        if lowest is None:  # (no pod is expected: the controller allows no disruption)
            return record
        return msgspec.structs.replace(record, min_available=lowest)

    def _identify(self, obj: schema.Resource, kind: str, file: str, where: Location
                  ) -> tuple[schema.Metadata, tuple[str, str, str]]:  # fmt: skip
        """The object's metadata and (kind, namespace, name), checked and unique."""
        meta = obj.metadata or _NO_METADATA
        name = meta.name
        if problem := name_problem(kind, name):  # (it tries the fast check first)
            raise Where(file, where_text(where), kind).error("metadata.name", problem)
        namespace = ""
        if kind not in CLUSTER_SCOPED:  # (the API server clears a namespace given them)
            namespace = meta.namespace or "default"
            known = self._namespaces_ok.get(namespace)
            if known is None:
                if problem := namespace_problem(namespace):
                    raise Where(file, where_text(where), kind).error("metadata.namespace", problem)
                known = self._namespaces_ok[namespace] = namespace
            namespace = known
        key = (kind, namespace, name)
        self._register(key, file, where)
        return meta, key

    def _register(self, key: tuple[str, str, str], file: str, where: Location) -> None:
        """Remember where ``key`` (kind, namespace, name) is defined; refuse a second."""
        here = (file, where)
        first = self._seen.setdefault(key, here)
        if first is not here:  # setdefault kept an earlier location
            text = where_text(first[1])
            raise self._where(file, where, key).error(
                "metadata.name",
                f"duplicate {key[0]} (first defined in {first[0]}{': ' + text if text else ''})",
            )

    def seen_items(self) -> Iterable[tuple[tuple[str, str, str], tuple[str, Location]]]:
        """Every object of a used kind read so far: its key and where it was defined."""
        return self._seen.items()

    def merge(self, part: Objects, seen: dict[tuple[str, str, str], tuple[str, Location]]
              ) -> None:  # fmt: skip
        """Records read elsewhere (by another reader, maybe in a worker process), in input
        order, with the keys and places of their objects, which are registered as if read
        here."""
        if self._seen.keys().isdisjoint(seen):  # (a part has no repeats)
            self._seen.update(seen)
        else:  # a name repeated across parts: register one by one, to say which
            for key, (file, where) in seen.items():
                self._register(key, file, where)
        o = self.objects
        o.nodes += part.nodes
        o.pods += part.pods
        o.services += part.services
        o.controllers += part.controllers
        o.namespaces += part.namespaces
        o.priority_classes += part.priority_classes
        o.storage += part.storage
        o.budgets += part.budgets
        o.skipped.update(part.skipped)
        o.total += part.total

    def _selecting(self, obj: schema.Resource, file: str, where: Location,
                   key: tuple[str, str, str]) -> None:  # fmt: skip
        """A Service, ReplicationController, ReplicaSet or StatefulSet: its selector."""
        kind, namespace, name = key
        ctx = self._where(file, where, key)
        selector = obj.spec.selector if obj.spec is not None else None
        if kind == "Service":
            self.objects.services.append(
                ServiceRecord(namespace, name, map_selector(ctx, selector))
            )
        elif kind == RC_KIND:
            self.objects.controllers.append(
                ControllerRecord(kind, namespace, name, map_selector(ctx, selector))
            )
        else:  # ReplicaSet, StatefulSet
            sel = label_selector(ctx, selector, "spec.selector")
            self.objects.controllers.append(ControllerRecord(kind, namespace, name, sel))

    def _common_pod(self, obj: schema.Resource | None, file: str, where: Location) -> bool:
        """A pod whose name, namespace and labels pass the memoized checks, recorded in one
        go (most pods; :meth:`_record_pod` and the memo hit of :meth:`template_fields`
        written out: this runs once per pod). False, with nothing
        recorded, sends it through :meth:`_add`'s general path, which checks each of those
        and names what is wrong."""
        meta = obj.metadata if obj is not None else None
        spec = obj.spec if obj is not None else None
        if meta is None or spec is None:
            return False
        name, labels = meta.name, meta.labels or _NO_LABELS
        namespace = self._namespaces_ok.get(meta.namespace or "default")
        if not (name.__class__ is str and namespace is not None
                and valid_dns1123_subdomain(name) and self._keys_ok.issuperset(labels)
                and (self._values_ok.issuperset(labels.values())
                     or self._new_values_valid(labels))):  # fmt: skip
            return False
        status = obj.status or _NO_STATUS
        started, ready = "", None
        if status.start_time is not None or status.conditions is not None:
            if (run := _pod_run(status)) is None:
                return False  # (the general path names the field)
            started, ready = run
        key = ("Pod", namespace, name)
        here = (file, where)
        if self._seen.setdefault(key, here) is not here:
            return False  # a duplicate: the general path says so
        node_name = spec.node_name or ""
        spec.node_name = None
        last, (spread, fields) = self._last_spec
        if spec != last:
            spread, fields = self.template_fields(spec, (file, where, key))
        refs = meta.owner_references
        phase = status.phase or ""
        pod = PodRecord(namespace, name, labels, node_name, self._phases.setdefault(phase, phase),
                        meta.deletion_timestamp is not None,
                        self._owner_list(refs) if refs else (), spread,
                        status.nominated_node_name or "", *fields, started, ready)  # fmt: skip
        if fields[14]:
            pod = self._own_claims(pod, meta.uid, (file, where, key))
        self.objects.pods.append(pod)
        return True

    def _own_claims(self, pod: PodRecord, uid: Any, at: At) -> PodRecord:
        """A pod with ephemeral volumes: its claims of those named after it (``<pod
        name>-<volume name>``, ``ephemeral.VolumeClaimName``), and its uid (the claims'
        owner), :func:`object_uid` when absent."""
        if uid is None or uid == "":
            uid = object_uid(pod.namespace, pod.name)
        elif uid.__class__ is not str:
            raise self._where(*at).error("metadata.uid", f"must be a string, found {found(uid)}")
        claims = list(pod.claims)
        for i in pod.ephemeral:
            claims[i] = f"{pod.name}-{claims[i]}"
        return msgspec.structs.replace(pod, claims=tuple(claims), uid=uid)

    def _record_pod(self, meta: schema.Metadata, spec: schema.Spec, status: schema.Status,
                    labels: dict[str, str], at: At) -> None:  # fmt: skip
        owners = self._owner_list(meta.owner_references) if meta.owner_references else ()
        key = at[2]
        node_name = spec.node_name or ""
        spread, fields = self.template_fields(spec, at)
        run = _pod_run(status)
        if run is None:
            ctx = Where(at[0], where_text(at[1]), f"Pod {key[1]}/{key[2]}")
            problem = rfc3339_problem(status.start_time)
            raise ctx.error("status.startTime", f"{problem}, found {found(status.start_time)}")
        pod = PodRecord(key[1], key[2], labels, node_name, status.phase or "",
                        meta.deletion_timestamp is not None, owners, spread,
                        status.nominated_node_name or "", *fields, *run)  # fmt: skip
        if fields[14]:
            pod = self._own_claims(pod, meta.uid, at)
        self.objects.pods.append(pod)

    # -- memoized value checks --------------------------------------------------------------

    def _new_values_valid(self, labels: dict[str, str]) -> bool:
        """Every value of ``labels`` valid, those not checked yet checked (remembered)."""
        values_ok = self._values_ok
        for v in labels.values():
            if v not in values_ok:
                if not valid_label_value(v):
                    return False
                values_ok.add(v)
        return True

    def _owner_list(self, refs: list[schema.OwnerRef | None]) -> tuple[OwnerReference, ...]:
        """The records of a pod's owner references: one tuple for the pods of a controller,
        which come one after the other (the snapshot resolves each tuple once)."""
        last, owners = self._last_owners
        if refs != last:
            owners = tuple(map(self._owner, refs))
            self._last_owners = (refs, owners)
        return owners

    def _owner(self, ref: schema.OwnerRef | None) -> OwnerReference:
        if ref is None:
            return _NO_OWNER
        memo = (ref.api_version, ref.kind, ref.name, ref.controller)
        owner = self._owners.get(memo)
        if owner is None:
            owner = self._owners[memo] = OwnerReference(
                ref.api_version or "", ref.kind or "", ref.name or "", bool(ref.controller)
            )
        return owner


def _requested_at_limits(requests: ResourceList, limits: ResourceList) -> ResourceList:
    """A container's requests as the API server defaults them (``SetDefaults_Pod``,
    pkg/apis/core/v1/defaults.go): a resource with a limit and no request is requested
    at its limit."""
    return {**requests, **{name: q for name, q in limits.items() if name not in requests}}


def _all_in(ok: set[str], values: dict[Any, Any]) -> bool:
    """Every value of ``values`` is in ``ok`` (one C-level pass; False if unhashable)."""
    try:
        return ok.issuperset(values.values())
    except TypeError:
        return False


def _texts(ok: set[str], quantities: dict[Any, Any] | None) -> bool:
    """Every quantity of a resource list (None: none) is in ``ok``, a set of texts."""
    return not quantities or _all_in(ok, quantities)


def _refused(obj: Mapping[Any, Any], kind: str, file: str, where: Location,
             exc: msgspec.ValidationError) -> schema.Resource:  # fmt: skip
    """A parsed object the structs refused: the object without the fields its kind does
    not read (the structs hold those of every kind), or else its located problem."""
    own = _own_fields(obj, kind)
    if own is not None:
        try:
            return msgspec.convert(own, schema.Resource)
        except msgspec.ValidationError as again:
            obj, exc = own, again
    explain(obj, kind, file, where_text(where), exc)  # raises the located reason
    raise InputError(str(exc), file=file, obj=where_text(where) or kind)  # (not reached)


def _own_fields(obj: Mapping[Any, Any], kind: str) -> dict[Any, Any] | None:
    """``obj`` with only its kind's fields in ``spec`` and ``status``; None if it has no
    other."""
    out = None
    for part, names in zip(("spec", "status"), _OWN_FIELDS.get(kind, ({"selector"}, set())),
                           strict=True):  # fmt: skip
        value = obj.get(part)
        if isinstance(value, Mapping) and not names.issuperset(value):
            out = dict(obj) if out is None else out
            out[part] = {k: v for k, v in value.items() if k in names}
    return out


def _controller_uid(refs: list[schema.OwnerRef | None] | None) -> str | None:
    """The uid of the first owner reference with ``controller: true`` ("" when it has
    none), None when there is none (``metav1.GetControllerOfNoCopy``)."""
    for ref in refs or ():
        if ref is not None and ref.controller:
            return ref.uid or ""
    return None


def _pod_run(status: schema.Status) -> tuple[str, bool | None] | None:
    """A pod's ``status.startTime`` ("" absent; checked) and whether its ``Ready``
    condition is ``True`` (None: it has none); None when the time is malformed."""
    started = status.start_time
    if started is None:
        started = ""
    elif rfc3339_problem(started) is not None:
        return None
    ready = None
    for c in status.conditions or ():
        if c is not None and c.type == "Ready":  # (GetPodCondition: the first of the type)
            ready = c.status == "True"
            break
    return started, ready


def _int_or_percent(value: Any) -> bool:
    """An ``intstr.IntOrString`` as ``GetScaledValueFromIntOrPercent`` accepts it."""
    if value.__class__ is int:
        return INT32[0] <= value <= INT32[1]
    return isinstance(value, str) and re.fullmatch(r"[0-9]+%", value) is not None


def _check_text(kind: str, file: str, where: Location) -> None:
    """A kind is printed in the warning line: it must be valid text."""
    try:
        kind.encode("utf-8")
    except UnicodeEncodeError:
        raise InputError(
            f"kind {kind!r} is not valid UTF-8 text",
            file=file,
            obj=where_text(where) or None,
            field="kind",
        ) from None
