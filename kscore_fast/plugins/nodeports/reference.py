"""Scalar reference port of NodePorts, from (v1.23.6)
pkg/scheduler/framework/plugins/nodeports/node_ports.go and the ``HostPortInfo`` and
``NodeInfo.updateUsedPorts`` parts of pkg/scheduler/framework/types.go."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ...model.objects import ContainerPort, PodRecord

#: node_ports.go ``ErrReason``
ERR_REASON = "node(s) didn't have free ports for the requested pod ports"
#: types.go ``DefaultBindAllHostIP``
DEFAULT_BIND_ALL_HOST_IP = "0.0.0.0"
#: v1.ProtocolTCP
PROTOCOL_TCP = "TCP"


def sanitize(ip: str, protocol: str) -> tuple[str, str]:
    """``HostPortInfo.sanitize``: "" is 0.0.0.0 and TCP."""
    return (ip or DEFAULT_BIND_ALL_HOST_IP, protocol or PROTOCOL_TCP)


def new_protocol_port(protocol: str, port: int) -> tuple[str, int]:
    """``NewProtocolPort``: a ``ProtocolPort`` (TCP when the protocol is empty)."""
    return (protocol or PROTOCOL_TCP, port)


class HostPortInfo:
    """types.go ``HostPortInfo``: ip → set of (protocol, port)."""

    def __init__(self) -> None:
        self.m: dict[str, set[tuple[str, int]]] = {}

    def add(self, ip: str, protocol: str, port: int) -> None:
        """``Add``."""
        if port <= 0:
            return
        ip, protocol = sanitize(ip, protocol)
        self.m.setdefault(ip, set()).add(new_protocol_port(protocol, port))

    def remove(self, ip: str, protocol: str, port: int) -> None:
        """``Remove``."""
        if port <= 0:
            return
        ip, protocol = sanitize(ip, protocol)
        if ip in self.m:
            self.m[ip].discard(new_protocol_port(protocol, port))
            if not self.m[ip]:
                del self.m[ip]

    def copy(self) -> HostPortInfo:
        other = HostPortInfo()
        other.m = {ip: set(pairs) for ip, pairs in self.m.items()}
        return other

    def triples(self) -> list[tuple[str, str, int]]:
        """Every (ip, protocol, port) held, sanitized."""
        return [(ip, proto, port) for ip, pairs in self.m.items() for proto, port in pairs]

    def __len__(self) -> int:
        """``Len``."""
        return sum(len(s) for s in self.m.values())

    def check_conflict(self, ip: str, protocol: str, port: int) -> bool:
        """``CheckConflict``: 0.0.0.0 conflicts with the pair on any IP; another IP with the
        pair on itself or on 0.0.0.0."""
        if port <= 0:
            return False
        ip, protocol = sanitize(ip, protocol)
        pp = new_protocol_port(protocol, port)
        if ip == DEFAULT_BIND_ALL_HOST_IP:
            return any(pp in s for s in self.m.values())
        return any(pp in self.m.get(key, ()) for key in (DEFAULT_BIND_ALL_HOST_IP, ip))


def get_container_ports(*pods: PodRecord) -> list[ContainerPort]:
    """node_ports.go ``getContainerPorts``: every port of every (non-init) container."""
    return [p for pod in pods for c in pod.containers for p in c.ports]


def update_used_ports(used: HostPortInfo, pod: PodRecord, add: bool = True) -> None:
    """types.go ``NodeInfo.updateUsedPorts`` (``add`` false: ``RemovePod``'s release)."""
    update = used.add if add else used.remove
    for container in pod.containers:
        for port in container.ports:
            update(port.host_ip, port.protocol, port.host_port)


def used_ports(pods: Iterable[PodRecord]) -> HostPortInfo:
    """A node's ``UsedPorts``: ``AddPod`` of each of its pods (bound and assumed)."""
    used = HostPortInfo()
    for pod in pods:
        update_used_ports(used, pod)
    return used


def fits_ports(want_ports: Sequence[ContainerPort], used: HostPortInfo) -> bool:
    """``fitsPorts``."""
    for cp in want_ports:
        if used.check_conflict(cp.host_ip, cp.protocol, cp.host_port):
            return False
    return True


def filter(pod: PodRecord, used: HostPortInfo) -> str | None:
    """``PreFilter`` then ``Filter`` on a node with ``used`` ports: the failure reason, or
    None when the pod fits."""
    want_ports = get_container_ports(pod)
    return None if fits_ports(want_ports, used) else ERR_REASON
