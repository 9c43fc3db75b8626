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
from kscore_fast.plugins.helper.ephemeral import foreign_claim

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
    """Every verdict equal to the reference's, as pods are assumed and removed (not those
    with an ephemeral volume's claim another owns: no scheduling cycle binds them); how
    many verdicts were failures (so that a test can ask for some)."""
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
        if foreign_claim(batch.pods[p], claims) is not None:
            continue
        plugin.kernels.assume(state, np.int64(p), np.int64(n))
        on_node[n].append(batch.pods[p])
        placed.append((p, n))
    verify()
    for p, n in placed[::2]:
        plugin.kernels.remove(state, np.int64(p), np.int64(n))
        on_node[n].remove(batch.pods[p])
    del placed[::2]
    verify()
    return failures
