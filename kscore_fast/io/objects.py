"""Turn decoded Kubernetes objects into model records, validating them.

Objects arrive typed (:mod:`kscore_fast.io.schema`: JSON decoded straight into structs)
or parsed (dicts from YAML, from a JSON file typed decoding refused, or from the Python
API), which are converted into the same structs. Kinds, lists and typed lists are
expanded here; objects of kinds the scheduler does not read are counted, not checked.

Every check of :mod:`kscore_fast.io.validate` applies, but each distinct label key, label
value, namespace and quantity is checked once: a 100,000-pod cluster has a few hundred
of them. A parsed object the structs refuse is handed to
:func:`~kscore_fast.io.validate.explain`, which names the file, object and field.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import msgspec
from msgspec import UNSET

from ..errors import InputError
from ..model.objects import (
    RC_KIND,
    RS_KIND,
    SS_KIND,
    ControllerRecord,
    NodeRecord,
    OwnerReference,
    PodRecord,
    ServiceRecord,
)
from ..model.validation import valid_dns1123_subdomain, valid_label_value
from . import schema
from .validate import (
    Where,
    explain,
    label_problem,
    label_selector,
    map_selector,
    name_problem,
    namespace_problem,
    object_label,
    quantity_problem,
)

USED_KINDS = frozenset(("Node", "Pod", "Service", RC_KIND, RS_KIND, SS_KIND))
_NO_OWNER = OwnerReference("", "", "", False)
_NO_METADATA = schema.Metadata()
_NO_SPEC = schema.Spec()
_NO_STATUS = schema.Status()


@dataclass
class Objects:
    """The records of a set of manifests, in input order."""

    nodes: list[NodeRecord] = field(default_factory=list)
    pods: list[PodRecord] = field(default_factory=list)
    services: list[ServiceRecord] = field(default_factory=list)
    controllers: list[ControllerRecord] = field(default_factory=list)
    #: kinds skipped → count
    skipped: Counter[str] = field(default_factory=Counter)
    #: objects read, of every kind
    total: int = 0


#: where an object is in its file: ``""``, a text, or (the List's location, item index),
#: formatted only when a message needs it
Location = str | tuple[Any, int]


def where_text(where: Location) -> str:
    """``items[3]``, ``document 2, items[0]``, ..."""
    if isinstance(where, tuple):
        parent, i = where
        parent = where_text(parent)
        return f"{parent + ', ' if parent else ''}items[{i}]"
    return where


class ObjectReader:
    """Accumulates records from objects, checking names are unique."""

    def __init__(self) -> None:
        self.objects = Objects()
        self._seen: dict[tuple[str, str, str], tuple[str, Location]] = {}
        self._keys_ok: set[str] = set()
        self._values_ok: set[str] = set()
        self._namespaces_ok: set[str] = set()
        self._quantities_ok: set[tuple[type, Any]] = set()
        self._quantity_texts_ok: set[str] = set()
        self._owners: dict[tuple[Any, ...], OwnerReference] = {}

    def checkpoint(self) -> tuple[Any, ...]:
        """The state to return to with :meth:`rollback` (to read a document again)."""
        o = self.objects
        return (len(o.nodes), len(o.pods), len(o.services), len(o.controllers),
                Counter(o.skipped), o.total, len(self._seen))  # fmt: skip

    def rollback(self, mark: tuple[Any, ...]) -> None:
        o = self.objects
        n_nodes, n_pods, n_services, n_controllers, skipped, o.total, n_seen = mark
        del o.nodes[n_nodes:], o.pods[n_pods:], o.services[n_services:]
        del o.controllers[n_controllers:]
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
        inner = kind[: -len("List")] or None  # "List" → items carry their own kind
        add = self._add
        for i, item in enumerate(obj.items or ()):  # (add_typed inlined: 100,000s of items)
            if item is None:
                continue
            k = inner if item.kind is UNSET else item.kind
            if item.items is UNSET or k is None or not k.endswith("List"):
                add(item, k, file, (where, i))
            else:
                self.add_typed(item, file, (where, i), inner)

    def add_parsed(self, obj: Any, file: str, where: Location = "",
                   item_kind: str | None = None) -> None:  # fmt: skip
        """A parsed document (dicts and lists), as ``kubectl`` would read it."""
        if obj is None:
            return  # an empty YAML document
        if not isinstance(obj, Mapping):
            raise InputError(
                f"expected a Kubernetes object (a mapping), found {type(obj).__name__}",
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
            explain(obj, kind, file, where_text(where))  # raises the located reason
            raise InputError(str(exc), file=file, obj=where_text(where) or kind) from None
        self._add(typed, kind, file, where)

    # -- one object -------------------------------------------------------------------------

    def _add(self, obj: schema.Resource | None, kind: Any, file: str, where: Location) -> None:
        self.objects.total += 1
        if kind == "Pod" and self._common_pod(obj, file, where):
            return
        if not isinstance(kind, str) or not kind:
            raise InputError(
                "object without kind", file=file, obj=where_text(where) or None, field="kind"
            )
        if kind not in USED_KINDS:
            if kind not in self.objects.skipped:
                _check_text(kind, file, where)
            self.objects.skipped[kind] += 1
            return
        assert obj is not None
        meta, key = self._identify(obj, kind, file, where)
        labels = meta.labels or {}
        if labels:
            self._check_labels(labels, file, where, key)
        if kind == "Pod":
            self._pod(obj, meta, labels, file, where, key)
        elif kind == "Node":
            status = obj.status
            if status is not None:
                self._check_quantities(status.allocatable, "status.allocatable", file, where, key)
                self._check_quantities(status.capacity, "status.capacity", file, where, key)
            self.objects.nodes.append(NodeRecord(key[2], labels))
        else:
            self._selecting(obj, file, where, key)

    def _identify(self, obj: schema.Resource, kind: str, file: str, where: Location
                  ) -> tuple[schema.Metadata, tuple[str, str, str]]:  # fmt: skip
        """The object's metadata and (kind, namespace, name), checked and unique."""
        meta = obj.metadata or _NO_METADATA
        name = meta.name
        if problem := name_problem(kind, name):  # (it tries the fast check first)
            raise Where(file, where_text(where), kind).error("metadata.name", problem)
        namespace = ""
        if kind != "Node":
            namespace = meta.namespace or "default"
            if namespace not in self._namespaces_ok:
                if problem := namespace_problem(namespace):
                    raise Where(file, where_text(where), kind).error("metadata.namespace", problem)
                self._namespaces_ok.add(namespace)
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

    def merge(self, part: Objects, file: str,
              located: list[tuple[tuple[str, str, str], Location]]) -> None:  # fmt: skip
        """Records read elsewhere (by a worker process), in input order, with the keys
        and places of their objects, which are registered as if read here."""
        if self._seen.keys().isdisjoint(key for key, _ in located):  # (a part has no repeats)
            self._seen.update((key, (file, where)) for key, where in located)
        else:  # a name repeated across parts: register one by one, to say which
            for key, where in located:
                self._register(key, file, where)
        o = self.objects
        o.nodes += part.nodes
        o.pods += part.pods
        o.services += part.services
        o.controllers += part.controllers
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
        """A pod whose every value passes the memoized checks, recorded in one go (most
        pods). False, with nothing recorded, sends it through :meth:`_add`'s general path,
        which checks each field and names what is wrong."""
        meta = obj.metadata if obj is not None else None
        spec = obj.spec if obj is not None else None
        if meta is None or spec is None:
            return False
        name, labels = meta.name, meta.labels or {}
        namespace = meta.namespace or "default"
        if not (name.__class__ is str and namespace in self._namespaces_ok
                and valid_dns1123_subdomain(name) and self._labels_valid(labels)
                and self._quantities_known(spec)):  # fmt: skip
            return False
        key = ("Pod", namespace, name)
        here = (file, where)
        if self._seen.setdefault(key, here) is not here:
            return False  # a duplicate: the general path says so
        self._record_pod(meta, spec, obj.status or _NO_STATUS, labels, key)
        return True

    def _pod(self, obj: schema.Resource, meta: schema.Metadata, labels: dict[str, str],
             file: str, where: Location, key: tuple[str, str, str]) -> None:  # fmt: skip
        spec = obj.spec or _NO_SPEC
        if spec.init_containers:
            self._check_containers(spec.init_containers, "initContainers", file, where, key)
        if spec.containers:
            self._check_containers(spec.containers, "containers", file, where, key)
        self._check_quantities(spec.overhead, "spec.overhead", file, where, key)
        self._record_pod(meta, spec, obj.status or _NO_STATUS, labels, key)

    def _record_pod(self, meta: schema.Metadata, spec: schema.Spec, status: schema.Status,
                    labels: dict[str, str], key: tuple[str, str, str]) -> None:  # fmt: skip
        owners = ()
        if meta.owner_references:
            owners = tuple(self._owner(r) for r in meta.owner_references)
        self.objects.pods.append(
            PodRecord(
                key[1],
                key[2],
                labels,
                spec.node_name or "",
                status.phase or "",
                meta.deletion_timestamp is not None,
                owners,
                len(spec.topology_spread_constraints or ()),
                status.nominated_node_name or "",
            )
        )

    # -- memoized value checks --------------------------------------------------------------

    def _where(self, file: str, where: Location, key: tuple[str, str, str]) -> Where:
        return Where(file, where_text(where), object_label(*key))

    def _labels_valid(self, labels: dict[str, str]) -> bool:
        """Every key already checked and every value valid (remembered); False when some
        key is new or some value invalid (the general path then checks and explains)."""
        if not self._keys_ok.issuperset(labels):
            return False
        values_ok = self._values_ok
        for v in labels.values():
            if v not in values_ok:
                if not valid_label_value(v):
                    return False
                values_ok.add(v)
        return True

    def _quantities_known(self, spec: schema.Spec) -> bool:
        """Every resource quantity of the pod one already checked."""
        ok = self._quantity_texts_ok
        for containers in (spec.containers, spec.init_containers):
            for c in containers or ():
                if c is None:
                    return False
                res = c.resources
                if res is not None and (
                    (res.requests and not _all_in(ok, res.requests))
                    or (res.limits and not _all_in(ok, res.limits))
                ):
                    return False
        return not spec.overhead or _all_in(ok, spec.overhead)

    def _check_labels(self, labels: dict[str, str], file: str, where: Location,
                      key: tuple[str, str, str]) -> None:  # fmt: skip
        keys_ok, values_ok = self._keys_ok, self._values_ok
        if keys_ok.issuperset(labels) and values_ok.issuperset(labels.values()):
            return
        for k, v in labels.items():  # str → str: the typed structs checked the types
            if k in keys_ok and (v in values_ok or valid_label_value(v)):
                values_ok.add(v)
                continue
            if problem := label_problem("metadata.labels", k, v):
                raise self._where(file, where, key).error(*problem)
            keys_ok.add(k)
            values_ok.add(v)

    def _check_containers(self, containers: list[schema.Container | None], group: str,
                          file: str, where: Location, key: tuple[str, str, str]
                          ) -> None:  # fmt: skip
        bad, ok_text = self._bad_quantity, self._quantity_texts_ok
        for i, c in enumerate(containers):
            if c is None or (res := c.resources) is None:
                continue
            for part, values in (("requests", res.requests), ("limits", res.limits)):
                if values and not _all_in(ok_text, values) and (problem := bad(values)):
                    path = f"spec.{group}[{i}].resources.{part}.{problem[0]}"
                    raise self._where(file, where, key).error(path, problem[1])

    def _check_quantities(self, values: dict[Any, Any] | None, path: str, file: str,
                          where: Location, key: tuple[str, str, str]) -> None:  # fmt: skip
        if (values and not _all_in(self._quantity_texts_ok, values)
                and (problem := self._bad_quantity(values))):  # fmt: skip
            raise self._where(file, where, key).error(f"{path}.{problem[0]}", problem[1])

    def _bad_quantity(self, values: dict[Any, Any]) -> tuple[Any, str] | None:
        """(name, why) of the first invalid quantity of a resource map, or None."""
        ok_text, ok = self._quantity_texts_ok, self._quantities_ok
        for name, q in values.items():
            if q.__class__ is str and q in ok_text:
                continue
            try:
                memo = (type(q), q)  # 1 and True are equal, and only one is a quantity
                if memo in ok:
                    continue
            except TypeError:  # unhashable: a mapping or list, never a quantity
                memo = None
            if problem := quantity_problem(q):
                return name, problem
            if q.__class__ is str:
                ok_text.add(q)
            elif memo is not None:
                ok.add(memo)
        return None

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


def _all_in(ok: set[str], values: dict[Any, Any]) -> bool:
    """Every value of ``values`` is in ``ok`` (one C-level pass; False if unhashable)."""
    try:
        return ok.issuperset(values.values())
    except TypeError:
        return False


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
