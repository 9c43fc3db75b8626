"""``preCheckForNode`` (pkg/scheduler/eventhandlers.go, v1.23.6): which unschedulable pods
a node's arrival may help, checked before they are moved (``NodeAdd``).

The node as the cache holds it after ``AddNode``: with the pods already bound to its
name. A pod passes when it fits the node's free resources (``noderesources.Fits``), its
required node affinity and node selector match, ``spec.nodeName`` is empty or the node's,
its host ports are free there, and it tolerates the node's ``NoSchedule`` and
``NoExecute`` taints. Built on the plugins' scalar references.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from ..model.objects import NodeRecord, PodRecord
from ..plugins.nodeaffinity.reference import get_required_node_affinity, required_match
from ..plugins.nodename.reference import fits as node_name_fits
from ..plugins.nodeports.reference import HostPortInfo, fits_ports, get_container_ports
from ..plugins.noderesources.fit_reference import compute_pod_resource_request, fits_request
from ..plugins.noderesources.resources_reference import new_node_info
from ..plugins.tainttoleration.reference import filter as taint_filter


def pre_check_for_node(node: NodeRecord, pods: Iterable[PodRecord],
                       used_ports: HostPortInfo | None) -> Callable[[PodRecord], bool]:  # fmt: skip
    """The check for ``node`` holding ``pods`` (whose host ports ``used_ports`` holds)."""
    info = new_node_info(node, pods)
    ports = used_ports if used_ports is not None else HostPortInfo()

    def check(pod: PodRecord) -> bool:
        if fits_request(compute_pod_resource_request(pod), info, set(), set()):
            return False
        # (a node selector that does not parse matches nothing, as Go ignores the error)
        if not required_match(get_required_node_affinity(pod), node):
            return False
        if not node_name_fits(pod, node):
            return False
        if not fits_ports(get_container_ports(pod), ports):
            return False
        return taint_filter(pod, node) is None

    return check
