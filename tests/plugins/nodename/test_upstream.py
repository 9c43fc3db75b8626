"""Ported upstream table: pkg/scheduler/framework/plugins/nodename/node_name_test.go (v1.23.6):
``TestNodeName``. Test ids are the Go case names; each case runs through the kernels
(tests/plugins/harness.py) and the reference.

A pod with ``spec.nodeName`` is a bound pod for ``build_cluster``, so the batch is built
with the pod unbound and then given the table's pod (NodeName reads ``batch.pods`` only).
"""

from __future__ import annotations

import dataclasses

import msgspec

from kscore_fast.model.objects import NodeRecord, PodRecord
from kscore_fast.model.snapshot import build_cluster
from kscore_fast.plugins.nodename import NodeName, kernels, reference

from ..tainttoleration.support import upstream, verdicts

ERR = "node(s) didn't match the requested node name"

CASES = [
    ("no host specified", PodRecord("", ""), NodeRecord(""), None),
    ("host matches", PodRecord("", "", node_name="foo"), NodeRecord("foo"), None),
    ("host doesn't match", PodRecord("", "", node_name="bar"), NodeRecord("foo"), ERR),
]


def batch_of(nodes: list[NodeRecord], pods: list[PodRecord]):
    """The cluster of ``nodes`` (no bound pods) with ``pods`` as its pending batch."""
    c = build_cluster(nodes, [msgspec.structs.replace(p, node_name="") for p in pods])
    return c.snapshot, dataclasses.replace(c.batch, pods=list(pods), cache={})


@upstream("pod, node, expected", CASES)
def test_node_name(pod, node, expected):
    snapshot, batch = batch_of([node], [pod])
    plugin = NodeName()
    _, texts = verdicts(plugin, kernels, plugin.prepare(snapshot, batch), 1, 1)
    assert texts[0][0] == (expected and [expected])
    assert reference.filter(pod, node) == expected
