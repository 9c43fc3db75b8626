"""GpuPacking's scalar reference: the same scores, one node at a time, from the records."""

from kscore_fast.model.objects import NodeRecord, PodRecord

RESOURCE = "nvidia.com/gpu"


def node_gpus(node: NodeRecord) -> int:
    q = node.allocatable.get(RESOURCE)
    return 0 if q is None else q.value()


def pod_gpus(pod: PodRecord) -> int:
    total = 0
    for c in pod.containers:
        q = c.requests.get(RESOURCE)
        total += 0 if q is None else q.value()
    return total


def score(pod: PodRecord, node: NodeRecord, used: int) -> int:
    gpus, want = node_gpus(node), pod_gpus(pod)
    if gpus == 0:
        return 100 if want == 0 else 0
    if want == 0:
        return 0
    idle = max(gpus - used - want, 0)
    return 100 - 100 * idle // gpus
