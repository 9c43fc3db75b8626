"""Resource-name classes, as kube-scheduler v1.23.6 tells them apart.

Mirrors pkg/apis/core/v1/helper/helpers.go (``IsExtendedResourceName``,
``IsPrefixedNativeResource``, ``IsNativeResource``, ``IsHugePageResourceName``,
``IsAttachableVolumeResourceName``) and pkg/scheduler/util/utils.go
(``IsScalarResourceName``), with the prefixes of k8s.io/api core/v1 types.go.
"""

from __future__ import annotations

from functools import lru_cache

from ...model.validation import is_qualified_name

CPU = "cpu"
MEMORY = "memory"
EPHEMERAL_STORAGE = "ephemeral-storage"
PODS = "pods"

#: v1.ResourceDefaultNamespacePrefix, ResourceHugePagesPrefix,
#: ResourceAttachableVolumesPrefix, DefaultResourceRequestsPrefix
DEFAULT_NAMESPACE_PREFIX = "kubernetes.io/"
HUGEPAGES_PREFIX = "hugepages-"
ATTACHABLE_VOLUMES_PREFIX = "attachable-volumes-"
REQUESTS_PREFIX = "requests."


def is_prefixed_native_resource(name: str) -> bool:
    """``IsPrefixedNativeResource``: the name is in the ``*kubernetes.io/`` namespace."""
    return DEFAULT_NAMESPACE_PREFIX in name


def is_native_resource(name: str) -> bool:
    """``IsNativeResource``: no ``/`` at all, or ``*kubernetes.io/``."""
    return "/" not in name or is_prefixed_native_resource(name)


def is_extended_resource_name(name: str) -> bool:
    """``IsExtendedResourceName``: not native, not ``requests.``-prefixed, and
    ``requests.<name>`` is a qualified name."""
    if is_native_resource(name) or name.startswith(REQUESTS_PREFIX):
        return False
    return not is_qualified_name(REQUESTS_PREFIX + name)


def is_hugepage_resource_name(name: str) -> bool:
    """``IsHugePageResourceName``."""
    return name.startswith(HUGEPAGES_PREFIX)


def is_attachable_volume_resource_name(name: str) -> bool:
    """``IsAttachableVolumeResourceName``."""
    return name.startswith(ATTACHABLE_VOLUMES_PREFIX)


@lru_cache(maxsize=4096)
def is_scalar_resource_name(name: str) -> bool:
    """``schedutil.IsScalarResourceName``: extended, hugepages, ``*kubernetes.io/`` or
    attachable-volumes resources (never cpu, memory, ephemeral-storage or pods)."""
    return (
        is_extended_resource_name(name)
        or is_hugepage_resource_name(name)
        or is_prefixed_native_resource(name)
        or is_attachable_volume_resource_name(name)
    )
