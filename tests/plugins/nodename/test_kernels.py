"""NodeName kernels == the scalar reference port, on seeded random pods naming existing
nodes, absent nodes and no node."""

from __future__ import annotations

import numpy as np
import pytest

from kscore_fast.model.objects import NodeRecord, PodRecord
from kscore_fast.model.snapshot import build_cluster
from kscore_fast.plugins.nodename import NodeName, kernels, reference

from ..harness import filter_codes
from ..tainttoleration.support import check_records, check_shape
from .test_upstream import batch_of


@pytest.mark.parametrize("seed", range(200))
def test_filter_equals_reference(seed):
    rng = np.random.default_rng(seed)
    nodes = [NodeRecord(f"n{i}", {"topology.kubernetes.io/zone": f"z{i % 3}"})
             for i in range(int(rng.integers(0, 12)))]  # fmt: skip
    names = [n.name for n in nodes] + ["", "", "absent", "N0"]
    pods = [PodRecord("", f"p{i}", node_name=names[int(rng.integers(len(names)))])
            for i in range(int(rng.integers(1, 20)))]  # fmt: skip
    check_records(NodeName(), kernels, reference.filter, *batch_of(nodes, pods))


def test_pending_pods_pass_everywhere():
    c = build_cluster([NodeRecord("a"), NodeRecord("b")], [PodRecord("", "p")])
    plugin = NodeName()
    assert not filter_codes(kernels, plugin.prepare(c.snapshot, c.batch), 1, 2).any()


def test_plugin_shape():
    plugin = NodeName()
    c = build_cluster([NodeRecord("a")], [PodRecord("", "p")])
    assert plugin.name == "NodeName"
    check_shape(plugin, plugin.prepare(c.snapshot, c.batch), (True, False, False))
    assert plugin.reasons((), 1) == ["node(s) didn't match the requested node name"]
