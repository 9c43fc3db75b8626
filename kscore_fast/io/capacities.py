"""The reader's part for CSIStorageCapacity objects (storage.k8s.io/v1beta1, the version
v1.23's scheduler lists; v1 has the same fields): checked as the API server validates
them (``ValidateCSIStorageCapacity``: a class name that is a DNS subdomain, a valid
``nodeTopology`` selector, a ``capacity`` that is not negative; ``maximumVolumeSize`` is
not validated) and turned into :class:`kscore_fast.model.storage.CapacityRecord` with
each quantity's ``Value()``, as ``capacitySufficient`` compares it.
"""

from __future__ import annotations

from typing import Any

from ..model.quantity import quantity_from_yaml
from ..model.storage import CapacityRecord
from ..model.validation import is_dns1123_subdomain
from . import schema
from .validate import Where, found, label_selector, resource_quantity

KIND = "CSIStorageCapacity"


def capacity_record(namespace: str, name: str, obj: schema.Resource, where: Where
                    ) -> CapacityRecord:  # fmt: skip
    """A CSIStorageCapacity: its class, node topology, capacity and maximum volume size."""
    cls = obj.storage_class_name
    if not isinstance(cls, str) or not cls:
        raise where.error("storageClassName", f"required: a StorageClass name, found {found(cls)}")
    if errs := is_dns1123_subdomain(cls):
        raise where.error("storageClassName", f"invalid name {cls!r}: {'; '.join(errs)}")
    topology = label_selector(where, obj.node_topology, "nodeTopology")
    return CapacityRecord(
        namespace, name, cls,
        node_topology=None if topology is None else topology.as_selector(),
        capacity=_value(obj.capacity, "capacity", where, resource_quantity),
        maximum_volume_size=_value(obj.maximum_volume_size, "maximumVolumeSize", where,
                                   quantity_from_yaml),
    )  # fmt: skip


def _value(value: Any, path: str, where: Where, parse: Any) -> int | None:
    """``Quantity.Value()`` of an optional quantity field (None: absent)."""
    if value is None:
        return None
    try:
        return parse(value).value()
    except ValueError as exc:
        raise where.error(path, str(exc)) from None
