"""Ported upstream tables: pkg/scheduler/framework/plugins/noderesources/fit_test.go
(kube-scheduler v1.23.6): ``TestEnoughRequests``, ``TestNotEnoughRequests``,
``TestStorageRequests``. Test ids are the Go case names.

Each case is one node holding one existing pod (``framework.NewNodeInfo(pod)``) and the
pending pod; the expected reasons are those of ``wantStatus`` (nil: none), checked through
the kernels (``Filter``) and the reference port. ``TestPreFilterDisabled`` has no
counterpart: PreFilter always runs before the filter here.
"""

from __future__ import annotations

import pytest

from kscore_fast.plugins.noderesources import NodeResourcesFit

from ._build import EXT_A, EXT_B, HUGE_A, K8S_IO_A, K8S_IO_B, cluster, fit_filter, node, pod
from ._build import res as R

CPU, MEM, EPH = "Insufficient cpu", "Insufficient memory", "Insufficient ephemeral-storage"
TOO_MANY = "Too many pods"


def _i(name: str) -> str:
    return f"Insufficient {name}"


def _alloc(milli_cpu, memory, pods, ext_a, storage, huge_a):
    """fit_test.go ``makeAllocatableResources``."""
    return {"cpu": f"{milli_cpu}m", "memory": memory, "pods": pods, EXT_A: ext_a,
            "ephemeral-storage": storage, HUGE_A: huge_a}  # fmt: skip


# (name, pending pod (containers, init containers, overhead), existing pod's requests, args,
#  reasons)
ENOUGH_REQUESTS = [
    ("no resources requested always fits", ([], [], None), R(10, 20), {}, []),
    ("too many resources fails", ([R(1, 1)], [], None), R(10, 20), {}, [CPU, MEM]),
    ("too many resources fails due to init container cpu",
     ([R(1, 1)], [R(3, 1)], None), R(8, 19), {}, [CPU]),
    ("too many resources fails due to highest init container cpu",
     ([R(1, 1)], [R(3, 1), R(2, 1)], None), R(8, 19), {}, [CPU]),
    ("too many resources fails due to init container memory",
     ([R(1, 1)], [R(1, 3)], None), R(9, 19), {}, [MEM]),
    ("too many resources fails due to highest init container memory",
     ([R(1, 1)], [R(1, 3), R(1, 2)], None), R(9, 19), {}, [MEM]),
    ("init container fits because it's the max, not sum, of containers and init containers",
     ([R(1, 1)], [R(1, 1)], None), R(9, 19), {}, []),
    ("multiple init containers fit because it's the max, not sum, of containers and init "
     "containers", ([R(1, 1)], [R(1, 1), R(1, 1)], None), R(9, 19), {}, []),
    ("both resources fit", ([R(1, 1)], [], None), R(5, 5), {}, []),
    ("one resource memory fits", ([R(2, 1)], [], None), R(9, 5), {}, [CPU]),
    ("one resource cpu fits", ([R(1, 2)], [], None), R(5, 19), {}, [MEM]),
    ("equal edge case", ([R(5, 1)], [], None), R(5, 19), {}, []),
    ("equal edge case for init container", ([R(4, 1)], [R(5, 1)], None), R(5, 19), {}, []),
    ("extended resource fits", ([R(scalars={EXT_A: 1})], [], None), R(), {}, []),
    ("extended resource fits for init container",
     ([R()], [R(scalars={EXT_A: 1})], None), R(), {}, []),
    ("extended resource capacity enforced", ([R(1, 1, scalars={EXT_A: 10})], [], None),
     R(scalars={EXT_A: 0}), {}, [_i(EXT_A)]),
    ("extended resource capacity enforced for init container",
     ([R()], [R(1, 1, scalars={EXT_A: 10})], None), R(scalars={EXT_A: 0}), {}, [_i(EXT_A)]),
    ("extended resource allocatable enforced", ([R(1, 1, scalars={EXT_A: 1})], [], None),
     R(scalars={EXT_A: 5}), {}, [_i(EXT_A)]),
    ("extended resource allocatable enforced for init container",
     ([R()], [R(1, 1, scalars={EXT_A: 1})], None), R(scalars={EXT_A: 5}), {}, [_i(EXT_A)]),
    ("extended resource allocatable enforced for multiple containers",
     ([R(1, 1, scalars={EXT_A: 3}), R(1, 1, scalars={EXT_A: 3})], [], None),
     R(scalars={EXT_A: 2}), {}, [_i(EXT_A)]),
    ("extended resource allocatable admits multiple init containers",
     ([R()], [R(1, 1, scalars={EXT_A: 3}), R(1, 1, scalars={EXT_A: 3})], None),
     R(scalars={EXT_A: 2}), {}, []),
    ("extended resource allocatable enforced for multiple init containers",
     ([R()], [R(1, 1, scalars={EXT_A: 6}), R(1, 1, scalars={EXT_A: 3})], None),
     R(scalars={EXT_A: 2}), {}, [_i(EXT_A)]),
    ("extended resource allocatable enforced for unknown resource",
     ([R(1, 1, scalars={EXT_B: 1})], [], None), R(), {}, [_i(EXT_B)]),
    ("extended resource allocatable enforced for unknown resource for init container",
     ([R()], [R(1, 1, scalars={EXT_B: 1})], None), R(), {}, [_i(EXT_B)]),
    ("kubernetes.io resource capacity enforced",
     ([R(1, 1, scalars={K8S_IO_A: 10})], [], None), R(), {}, [_i(K8S_IO_A)]),
    ("kubernetes.io resource capacity enforced for init container",
     ([R()], [R(1, 1, scalars={K8S_IO_B: 10})], None), R(), {}, [_i(K8S_IO_B)]),
    ("hugepages resource capacity enforced", ([R(1, 1, scalars={HUGE_A: 10})], [], None),
     R(scalars={HUGE_A: 0}), {}, [_i(HUGE_A)]),
    ("hugepages resource capacity enforced for init container",
     ([R()], [R(1, 1, scalars={HUGE_A: 10})], None), R(scalars={HUGE_A: 0}), {},
     [_i(HUGE_A)]),
    ("hugepages resource allocatable enforced for multiple containers",
     ([R(1, 1, scalars={HUGE_A: 3}), R(1, 1, scalars={HUGE_A: 3})], [], None),
     R(scalars={HUGE_A: 2}), {}, [_i(HUGE_A)]),
    ("skip checking ignored extended resource", ([R(1, 1, scalars={EXT_B: 1})], [], None), R(),
     {"ignoredResources": ["example.com/bbb"]}, []),
    ("resources + pod overhead fits", ([R(1, 1)], [], {"cpu": "3m", "memory": "13"}),
     R(5, 5), {}, []),
    ("requests + overhead does not fit for memory",
     ([R(1, 1)], [], {"cpu": "1m", "memory": "15"}), R(5, 5), {}, [MEM]),
    ("skip checking ignored extended resource via resource groups",
     ([R(1, 1, scalars={EXT_B: 1, K8S_IO_A: 1})], [], None), R(),
     {"ignoredResourceGroups": ["example.com"]}, [_i(K8S_IO_A)]),
]  # fmt: skip

NOT_ENOUGH_REQUESTS = [
    ("even without specified resources predicate fails when there's no space for additional "
     "pod", ([], [], None), R(10, 20), [TOO_MANY]),
    ("even if both resources fit predicate fails when there's no space for additional pod",
     ([R(1, 1)], [], None), R(5, 5), [TOO_MANY]),
    ("even for equal edge case predicate fails when there's no space for additional pod",
     ([R(5, 1)], [], None), R(5, 19), [TOO_MANY]),
    ("even for equal edge case predicate fails when there's no space for additional pod due "
     "to init container", ([R(5, 1)], [R(5, 1)], None), R(5, 19), [TOO_MANY]),
]  # fmt: skip

GATE_OFF = pytest.mark.skip(reason="LocalStorageCapacityIsolation is always on (1.23 default)")
STORAGE_REQUESTS = [
    ("due to container scratch disk", [R(1, 1)], [], R(10, 10), [CPU]),
    ("pod fit", [R(1, 1)], [], R(2, 10), []),
    ("storage ephemeral local storage request exceeds allocatable", [R(eph=25)], [], R(2, 2),
     [EPH]),
    pytest.param("ephemeral local storage request is ignored due to disabled feature gate",
                 [R(eph=25)], [R(eph=25)], R(2, 2), [], marks=GATE_OFF),
    ("pod fits", [R(eph=10)], [], R(2, 2), []),
]  # fmt: skip


def _run(allocatable, spec, existing, args):
    containers, init, overhead = spec
    c = cluster([node("node", allocatable)], [pod([existing], node="node")],
                pod(containers, init, overhead))  # fmt: skip
    return fit_filter(c, NodeResourcesFit(args))


def _ids(table):
    return [getattr(case, "values", case)[0] for case in table]


@pytest.mark.parametrize(("name", "spec", "existing", "args", "want"), ENOUGH_REQUESTS,
                         ids=_ids(ENOUGH_REQUESTS))  # fmt: skip
def test_enough_requests(name, spec, existing, args, want):
    got, ref = _run(_alloc(10, 20, 32, 5, 20, 5), spec, existing, args)
    assert got == [want]
    assert ref == [want]


@pytest.mark.parametrize(("name", "spec", "existing", "want"), NOT_ENOUGH_REQUESTS,
                         ids=_ids(NOT_ENOUGH_REQUESTS))  # fmt: skip
def test_not_enough_requests(name, spec, existing, want):
    got, ref = _run(_alloc(10, 20, 1, 0, 0, 0), spec, existing, {})
    assert got == [want]
    assert ref == [want]


@pytest.mark.parametrize(("name", "containers", "init", "existing", "want"), STORAGE_REQUESTS,
                         ids=_ids(STORAGE_REQUESTS))  # fmt: skip
def test_storage_requests(name, containers, init, existing, want):
    got, ref = _run(_alloc(10, 20, 32, 5, 20, 5), (containers, init, None), existing, {})
    assert got == [want]
    assert ref == [want]
