"""What the tests of VolumeRestrictions and the volume limits share: the kernel == the
scalar reference on random disk scenarios, before and after pods are assumed on nodes
and removed again (the node aggregates ``assume``/``remove`` keep)."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

import numpy as np

from kscore_fast.api import load_cluster
from kscore_fast.framework.search import ERROR_FLAG
from kscore_fast.plugins.helper.ephemeral import foreign_claim
from kscore_fast.plugins.nodevolumelimits.reference import ErrorStatus

from ..scenarios_disks import disk_scenario
from .harness import filter_codes

#: reference(pod, node index, pods on the node, snapshot) → reason or None
Reference = Callable[[Any, int, list[Any], Any], "str | None"]


def load(seed: int, tmp_path, make: Callable[..., Any] = disk_scenario, **sizes) -> Any:
    path = tmp_path / f"s{seed}.json"
    items = make(seed, **sizes)
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
    return load_cluster([path])


def check_against_reference(plugin: Any, reference: Reference, seed: int, tmp_path,
                            make: Callable[..., Any] = disk_scenario) -> int:  # fmt: skip
    """Every verdict equal to the reference's (an ``Error`` status where the reference
    gives one), as pods are assumed and removed (``NodeInfo.RemovePod`` moves the last
    pod to the removed one's place); pods with an ephemeral volume's claim another owns
    are assumed too, up to two on a node; how many verdicts were failures (so that a test
    can ask for some)."""
    c = load(seed, tmp_path, make, max_nodes=6, max_pending=10)
    snap, batch = c.snapshot, c.batch
    state = plugin.own_state(plugin.prepare(snap, batch))
    on_node = {n: [p for p, k in zip(snap.pods, snap.pod_node.tolist(), strict=True) if k == n]
               for n in range(snap.n_nodes)}  # fmt: skip
    rng, failures, placed = random.Random(seed), 0, []  # placed: (pod, node) assumed

    def verify() -> None:
        nonlocal failures
        codes = filter_codes(plugin.kernels, state, len(batch), snap.n_nodes)
        on = {p for p, _ in placed}
        for p, pod in enumerate(batch.pods):
            if p in on:  # (a pod on a node is not filtered again: bound, or nominated)
                continue
            for n in range(snap.n_nodes):
                want = reference(pod, n, on_node[n], snap)
                code = int(codes[p, n])
                got = None if code == 0 else plugin.reasons(state, code)[0]
                assert got == want, (seed, pod.key, snap.node_names[n], placed)
                is_error = code & ERROR_FLAG != 0
                assert is_error == isinstance(want, ErrorStatus), (seed, pod.key, n)
                failures += code != 0
        key = plugin.filter_key(state)
        waiting = np.array([p not in on for p in range(len(batch))], dtype=np.bool_)
        for k in set(key.tolist()):
            rows = codes[(key == k) & waiting]
            assert not len(rows) or (rows == rows[0]).all()

    verify()
    claims = snap.storage.claims
    for p in rng.sample(range(len(batch)), (len(batch) + 1) // 2):  # (the others checked)
        n = rng.randrange(snap.n_nodes)
        foreign = sum(foreign_claim(q, claims) is not None for q in on_node[n])
        if foreign_claim(batch.pods[p], claims) is not None and foreign >= 2:
            continue
        plugin.kernels.assume(state, np.int64(p), np.int64(n))
        on_node[n].append(batch.pods[p])
        placed.append((p, n))
    verify()
    for p, n in placed[::2]:
        plugin.kernels.remove(state, np.int64(p), np.int64(n))
        pods = on_node[n]
        at = pods.index(batch.pods[p])
        pods[at] = pods[-1]
        pods.pop()
    del placed[::2]
    verify()
    return failures
