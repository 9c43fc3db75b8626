"""``ClusterCache.copy`` shares the nodes' pod lists until one side changes one: each
side then sees only its own changes, in ``NodeInfo.Pods`` order."""

from __future__ import annotations

import json
import random

from kscore_fast import api
from kscore_fast.framework.cluster_cache import ClusterCache

from ..scenarios_preemption import preemption_scenario


def test_copies_keep_their_own_node_lists(tmp_path):
    path = tmp_path / "cluster.json"
    items = preemption_scenario(8_100_000, 6, 6)
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
    cluster = api.load_cluster(str(path))
    rng = random.Random(0)
    a = ClusterCache.of(cluster)
    lists = {name: list(keys) for name, keys in a.on_node.items()}
    b = a.copy()
    names = [n for n, keys in lists.items() if keys]
    gone = rng.choice(names)
    key = lists[gone][0]
    a.drop_existing(key)  # (the original changes: the copy keeps its list)
    left = list(lists[gone])  # (RemovePod: the last pod takes the removed one's place)
    left[0] = left[-1]
    left.pop()
    want_a = {**lists, gone: left}
    assert a.on_node == want_a
    assert b.on_node == lists
    pending = next(iter(b.pending))
    b.bind(pending, gone)  # (the copy changes: the original keeps its list)
    assert b.on_node[gone] == [*lists[gone], pending]
    assert a.on_node == want_a
    c = b.copy()
    b.drop_pending(pending)
    assert c.on_node[gone] == [*lists[gone], pending] and b.on_node[gone] == lists[gone]
