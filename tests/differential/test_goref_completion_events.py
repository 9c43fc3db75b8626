"""kscore == the real kube-scheduler v1.23.6 (benchmarks/goref) on the cluster events of
completed volume bindings in the timed queue (``replay_timed``, ``goref replay``): the
PersistentVolume and PersistentVolumeClaim writes of a bound pod's bindings (a static
binding's volume and claim updated, a provisioned volume created and its claim updated,
an in-tree provisioner's claim given its selected node) reach the scheduler's informer
handlers (``addAllEventHandlers``: PvAdd, PvUpdate, PvcUpdate), which move the
unschedulable pods those events may help. goref's replay registers the same handlers on
its informers; kscore raises the events after each completion. The pending pods of
:mod:`tests.scenarios_volume_completion`'s clusters queued at once, attempt by attempt,
under the VolumeBinding profile and the whole default profile (odd seeds).
``KSCORE_DIFF_VOLUME_SCENARIOS`` (default 40) scenarios; ``-m slow``: 1,000 more.
"""

from __future__ import annotations

import json
import os

import pytest
import yaml

from kscore_fast.queue import timed

from ..goref import goref_missing
from ..scenarios_disks import DISK_CONFIG
from ..scenarios_volume_binding import VOLUME_BINDING_CONFIG
from ..scenarios_volume_completion import completion_scenario
from .timed import queued_at_once

pytestmark = [
    pytest.mark.goref,
    pytest.mark.skipif(goref_missing() is not None, reason=str(goref_missing())),
]

N_SCENARIOS = int(os.environ.get("KSCORE_DIFF_VOLUME_SCENARIOS", 40))
SEEDS = 3_700_000


def _inputs(tmp_path, seed: int, **sizes):
    path, config = tmp_path / "scenario.json", tmp_path / "config.yaml"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List",
                                "items": completion_scenario(seed, **sizes)}))  # fmt: skip
    config.write_text(yaml.safe_dump(DISK_CONFIG if seed % 2 else VOLUME_BINDING_CONFIG))
    return path, config


def _check(tmp_path, seed: int, **sizes) -> None:
    path, config = _inputs(tmp_path, seed, **sizes)
    diffs = queued_at_once(path, config, seed)
    assert not diffs, f"completion events queue scenario {seed}:\n" + "\n".join(diffs[:20])


@pytest.mark.parametrize("seed", range(N_SCENARIOS))
def test_the_completions_events_move_pods_as_go(tmp_path, seed):
    _check(tmp_path, SEEDS + seed)


def test_the_completions_events_move_pods(tmp_path, monkeypatch):
    """Over the first scenarios, the completions' events move waiting pods (kscore's
    side: the attempts compared above would differ from Go's without them)."""
    from kscore_fast.queue import replay_timed

    moved: list[str] = []
    move_all = timed.PriorityQueue.move_all

    def spy(self, event, pre_check=None):
        out = move_all(self, event, pre_check)
        if event.resource in ("PersistentVolume", "PersistentVolumeClaim"):
            moved.extend(event.label for _ in out)
        return out

    monkeypatch.setattr(timed.PriorityQueue, "move_all", spy)
    events = tmp_path / "events.jsonl"
    events.write_text("")
    for seed in range(SEEDS, SEEDS + 20):
        path, config = _inputs(tmp_path, seed)
        replay_timed([path], events, config=config, seed=seed, tie_break="go-rand")
    assert len(moved) >= 10 and set(moved) >= {"PvUpdate", "PvAdd"}, moved


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(1_000))
def test_many_more_completion_event_scenarios(tmp_path, seed):
    _check(tmp_path, SEEDS + 50_000 + seed, max_nodes=20, max_pending=20)
