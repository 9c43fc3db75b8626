"""Ported upstream tables, v1.23.6:

* pkg/scheduler/framework/plugins/nodeports/node_ports_test.go: ``TestNodePorts`` (through
  the kernels and the reference) and ``TestGetContainerPorts`` (the reference);
  ``TestPreFilterDisabled`` has no counterpart (no cycle state: PreFilter's port list is
  part of ``prepare``);
* pkg/scheduler/framework/types_test.go: ``TestHostPortInfo_AddRemove`` (the reference;
  the add-only cases also through the kernels' used-ports tables, filled by ``prepare``
  from bound pods and by ``assume``) and ``TestHostPortInfo_Check`` (both).

Test ids are the Go case names.
"""

from __future__ import annotations

from kscore_fast.model.objects import ContainerPort, ContainerRecord, NodeRecord, PodRecord
from kscore_fast.model.snapshot import build_cluster
from kscore_fast.plugins.nodeports import NodePorts, kernels, reference
from kscore_fast.plugins.nodeports.plugin import used_port_count

from ..tainttoleration.support import upstream, verdicts

ERR = "node(s) didn't have free ports for the requested pod ports"


def new_pod(host: str, *host_port_infos: str, name: str = "") -> PodRecord:
    """node_ports_test.go ``newPod``: "PROTOCOL/IP/PORT" strings, one container."""
    ports = []
    for info in host_port_infos:
        protocol, ip, port = info.split("/")
        ports.append(ContainerPort(host_ip=ip, host_port=int(port), protocol=protocol))
    return PodRecord("", name, node_name=host, containers=(ContainerRecord(ports=tuple(ports)),))


def run_filter(pod: PodRecord, existing: list[PodRecord]) -> str | None:
    """The kernel's verdict for ``pod`` on node m1 holding ``existing``."""
    pending = PodRecord(pod.namespace, "pending", containers=pod.containers)
    c = build_cluster([NodeRecord("m1")], [*existing, pending])
    plugin = NodePorts()
    state = plugin.prepare(c.snapshot, c.batch)
    texts = verdicts(plugin, kernels, state, 1, 1)[1][0][0]
    return texts and texts[0]


NODE_PORTS = [
    ("nothing running", PodRecord("", ""), [], None),
    ("other port", new_pod("m1", "UDP/127.0.0.1/8080"), [new_pod("m1", "UDP/127.0.0.1/9090")], None),
    ("same udp port", new_pod("m1", "UDP/127.0.0.1/8080"), [new_pod("m1", "UDP/127.0.0.1/8080")], ERR),
    ("same tcp port", new_pod("m1", "TCP/127.0.0.1/8080"), [new_pod("m1", "TCP/127.0.0.1/8080")], ERR),
    ("different host ip", new_pod("m1", "TCP/127.0.0.1/8080"), [new_pod("m1", "TCP/127.0.0.2/8080")], None),
    ("different protocol", new_pod("m1", "UDP/127.0.0.1/8080"), [new_pod("m1", "TCP/127.0.0.1/8080")], None),
    ("second udp port conflict", new_pod("m1", "UDP/127.0.0.1/8000", "UDP/127.0.0.1/8080"),
     [new_pod("m1", "UDP/127.0.0.1/8080")], ERR),
    ("first tcp port conflict", new_pod("m1", "TCP/127.0.0.1/8001", "UDP/127.0.0.1/8080"),
     [new_pod("m1", "TCP/127.0.0.1/8001", "UDP/127.0.0.1/8081")], ERR),
    ("first tcp port conflict due to 0.0.0.0 hostIP", new_pod("m1", "TCP/0.0.0.0/8001"),
     [new_pod("m1", "TCP/127.0.0.1/8001")], ERR),
    ("TCP hostPort conflict due to 0.0.0.0 hostIP", new_pod("m1", "TCP/10.0.10.10/8001", "TCP/0.0.0.0/8001"),
     [new_pod("m1", "TCP/127.0.0.1/8001")], ERR),
    ("second tcp port conflict to 0.0.0.0 hostIP", new_pod("m1", "TCP/127.0.0.1/8001"),
     [new_pod("m1", "TCP/0.0.0.0/8001")], ERR),
    ("second different protocol", new_pod("m1", "UDP/127.0.0.1/8001"), [new_pod("m1", "TCP/0.0.0.0/8001")], None),
    ("UDP hostPort conflict due to 0.0.0.0 hostIP", new_pod("m1", "UDP/127.0.0.1/8001"),
     [new_pod("m1", "TCP/0.0.0.0/8001", "UDP/0.0.0.0/8001")], ERR),
]  # fmt: skip


@upstream("pod, existing, expected", NODE_PORTS)
def test_node_ports(pod, existing, expected):
    existing = [PodRecord("", f"e{i}", node_name="m1", containers=p.containers)
                for i, p in enumerate(existing)]  # fmt: skip
    assert run_filter(pod, existing) == expected
    assert reference.filter(pod, reference.used_ports(existing)) == expected


def test_get_container_ports():
    def pod(*ports_per_container):
        return PodRecord("", "", containers=tuple(
            ContainerRecord(ports=tuple(ContainerPort(container_port=p, protocol="TCP") for p in ps))
            for ps in ports_per_container))  # fmt: skip

    pod1, pod2 = pod((8001, 8002), (8003, 8004)), pod((8011, 8012), (8013, 8014))
    got = reference.get_container_ports(pod1, pod2)
    assert [(p.container_port, p.protocol) for p in got] == [
        (p, "TCP") for p in (8001, 8002, 8003, 8004, 8011, 8012, 8013, 8014)]  # fmt: skip


# (desc, added, removed, length); params are (protocol, ip, port) as in types_test.go
ADD_REMOVE = [
    ("normal add case",
     [("TCP", "127.0.0.1", 79), ("UDP", "127.0.0.1", 80), ("TCP", "127.0.0.1", 81), ("TCP", "127.0.0.1", 82),
      ("TCP", "0.0.0.0", 79), ("UDP", "0.0.0.0", 80), ("TCP", "0.0.0.0", 81), ("TCP", "0.0.0.0", 82),
      ("TCP", "0.0.0.0", 0), ("TCP", "0.0.0.0", -1)], [], 8),
    ("empty ip and protocol add should work",
     [("", "127.0.0.1", 79), ("UDP", "127.0.0.1", 80), ("", "127.0.0.1", 81), ("", "127.0.0.1", 82),
      ("", "", 79), ("UDP", "", 80), ("", "", 81), ("", "", 82), ("", "", 0), ("", "", -1)], [], 8),
    ("normal remove case",
     [("TCP", "127.0.0.1", 79), ("UDP", "127.0.0.1", 80), ("TCP", "127.0.0.1", 81), ("TCP", "127.0.0.1", 82),
      ("TCP", "0.0.0.0", 79), ("UDP", "0.0.0.0", 80), ("TCP", "0.0.0.0", 81), ("TCP", "0.0.0.0", 82)],
     [("TCP", "127.0.0.1", 79), ("UDP", "127.0.0.1", 80), ("TCP", "127.0.0.1", 81), ("TCP", "127.0.0.1", 82),
      ("TCP", "0.0.0.0", 79), ("UDP", "0.0.0.0", 80), ("TCP", "0.0.0.0", 81), ("TCP", "0.0.0.0", 82)], 0),
    ("empty ip and protocol remove should work",
     [("TCP", "127.0.0.1", 79), ("UDP", "127.0.0.1", 80), ("TCP", "127.0.0.1", 81), ("TCP", "127.0.0.1", 82),
      ("TCP", "0.0.0.0", 79), ("UDP", "0.0.0.0", 80), ("TCP", "0.0.0.0", 81), ("TCP", "0.0.0.0", 82)],
     [("", "127.0.0.1", 79), ("", "127.0.0.1", 81), ("", "127.0.0.1", 82), ("UDP", "127.0.0.1", 80),
      ("", "", 79), ("", "", 81), ("", "", 82), ("UDP", "", 80)], 0),
]  # fmt: skip


def _pod_with(params, name="", node=""):
    ports = tuple(
        ContainerPort(host_port=port, protocol=proto, host_ip=ip) for proto, ip, port in params
    )
    return PodRecord("", name, node_name=node, containers=(ContainerRecord(ports=ports),))


def _host_port_info(added):
    hp = reference.HostPortInfo()
    for proto, ip, port in added:
        hp.add(ip, proto, port)
    return hp


@upstream("added, removed, length", ADD_REMOVE)
def test_host_port_info_add_remove(added, removed, length):
    hp = _host_port_info(added)
    for proto, ip, port in removed:
        hp.remove(ip, proto, port)
    assert len(hp) == length
    if removed:
        return  # the kernels only add (assume); removal is not part of the contract yet
    plugin = NodePorts()
    bound = build_cluster([NodeRecord("n")], [_pod_with(added, "b", "n"), PodRecord("", "p")])
    assert used_port_count(plugin.prepare(bound.snapshot, bound.batch), 0) == length
    pending = build_cluster([NodeRecord("n")], [_pod_with(added, "p")])
    state = plugin.own_state(plugin.prepare(pending.snapshot, pending.batch))
    assert used_port_count(state, 0) == 0
    kernels.assume(state, 0, 0)
    assert used_port_count(state, 0) == length


# (desc, added, check, expect)
CHECK = [
    ("empty check should check 0.0.0.0 and TCP", [("TCP", "127.0.0.1", 80)], ("", "", 81), False),
    ("empty check should check 0.0.0.0 and TCP (conflicted)", [("TCP", "127.0.0.1", 80)], ("", "", 80), True),
    ("empty port check should pass", [("TCP", "127.0.0.1", 80)], ("", "", 0), False),
    ("0.0.0.0 should check all registered IPs", [("TCP", "127.0.0.1", 80)], ("TCP", "0.0.0.0", 80), True),
    ("0.0.0.0 with different protocol should be allowed", [("UDP", "127.0.0.1", 80)], ("TCP", "0.0.0.0", 80), False),
    ("0.0.0.0 with different port should be allowed",
     [("TCP", "127.0.0.1", 79), ("TCP", "127.0.0.1", 81), ("TCP", "127.0.0.1", 82)], ("TCP", "0.0.0.0", 80), False),
    ("normal ip should check all registered 0.0.0.0", [("TCP", "0.0.0.0", 80)], ("TCP", "127.0.0.1", 80), True),
    ("normal ip with different port/protocol should be allowed (0.0.0.0)",
     [("TCP", "0.0.0.0", 79), ("UDP", "0.0.0.0", 80), ("TCP", "0.0.0.0", 81), ("TCP", "0.0.0.0", 82)],
     ("TCP", "127.0.0.1", 80), False),
    ("normal ip with different port/protocol should be allowed",
     [("TCP", "127.0.0.1", 79), ("UDP", "127.0.0.1", 80), ("TCP", "127.0.0.1", 81), ("TCP", "127.0.0.1", 82)],
     ("TCP", "127.0.0.1", 80), False),
]  # fmt: skip


@upstream("added, check, expect", CHECK)
def test_host_port_info_check(added, check, expect):
    hp = _host_port_info(added)
    proto, ip, port = check
    assert hp.check_conflict(ip, proto, port) == expect
    got = run_filter(_pod_with([check]), [_pod_with(added, "b", "m1")])
    assert got == (ERR if expect else None)
