"""A pod that fails PreFilter while it has ``status.nominatedNodeName``: Go's
``findNodesThatFitPod`` returns at the PreFilter failure, before ``evaluateNominatedNode``,
so ``nextStartNodeIndex`` is left where it was (evaluating the nominated node would have
reset it to 0). On 200 nodes with ``percentageOfNodesToScore: 50`` every cycle examines
about half of them, so the pods after it find other nodes if the index moved. Compared with
the real kube-scheduler v1.23.6 (benchmarks/goref) in ``score`` and in ``simulate`` with
Go's tie-breaks: counts, node lists, scores and hosts."""

from __future__ import annotations

import copy

import pytest

from ..goref import goref_missing
from ..scenarios_volume_binding import VOLUME_BINDING_CONFIG
from .storage_runs import differences

pytestmark = [
    pytest.mark.goref,
    pytest.mark.skipif(goref_missing() is not None, reason=str(goref_missing())),
]

CONFIG = copy.deepcopy(VOLUME_BINDING_CONFIG)
CONFIG["percentageOfNodesToScore"] = 50


def _node(i: int) -> dict:
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": f"n{i:03d}", "labels": {"kubernetes.io/hostname": f"n{i:03d}"}},
            "status": {"allocatable": {"cpu": "8", "memory": "16Gi", "pods": "110"}}}  # fmt: skip


def _pod(name: str, claim: str | None = None, nominated: str | None = None) -> dict:
    spec: dict = {"containers": [{"name": "c", "image": "busybox",
                                  "resources": {"requests": {"cpu": "100m"}}}]}  # fmt: skip
    if claim is not None:
        spec["volumes"] = [{"name": "data", "persistentVolumeClaim": {"claimName": claim}}]
    pod = {"apiVersion": "v1", "kind": "Pod",
           "metadata": {"name": name, "namespace": "default", "uid": f"uid-{name}"},
           "spec": spec, "status": {"phase": "Pending"}}  # fmt: skip
    if nominated is not None:
        pod["status"]["nominatedNodeName"] = nominated
    return pod


def _scenario(position: int) -> list[dict]:
    """Plain pods, with the one whose claim is absent (nominated to n005) at ``position``."""
    pods = [_pod(f"p{k}") for k in range(6)]
    pods.insert(position, _pod("stuck", claim="absent", nominated="n005"))
    return [*(_node(i) for i in range(200)), *pods]


@pytest.mark.parametrize("position", [0, 1, 3])
@pytest.mark.parametrize("mode", ["score", "simulate"])
def test_prefilter_failure_skips_the_nominated_node(tmp_path, mode, position):
    diffs = differences(tmp_path, 7 + position, mode, _scenario(position), CONFIG)
    assert not diffs, "\n".join(diffs[:20])
