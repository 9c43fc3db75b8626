"""``replay_timed``: a cluster and its timed events replayed with the scheduling queue
(docs/queue.md), the pods that arrive pending loaded with the cluster."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence
from typing import Any

from ..errors import InputError
from ..model.objects import object_key
from ..model.snapshot import Cluster
from .events_file import TimedEvent, read_events, timed_events
from .result import TimedResult
from .timed import TimedSimulator, _all_timed


def replay_timed(cluster: Cluster | str | os.PathLike[str] | Sequence[Any], events: Any, *,
                 config: Any = None, plugins: Any = None, seed: int = 0,
                 tie_break: str = "uniform", percentage_of_nodes_to_score: int | None = None,
                 until: float | None = None, progress: Callable[[int], None] | None = None,
                 notice: Callable[[str], None] | None = None,
                 preemption: bool = False) -> TimedResult:  # fmt: skip
    """Replay ``events`` (a JSON Lines file, or events as :func:`.events_file.timed_events`
    takes them) over ``cluster`` (a :class:`~kscore_fast.Cluster`, or manifest paths)
    with kube-scheduler's queue on a simulated clock (docs/queue.md). Given paths, the
    pods that arrive pending are loaded with the cluster (not queued before they arrive),
    so that an arrival costs no new preparation of the plugins' states. ``preemption``: a
    pod that fits nowhere preempts (docs/preemption.md)."""
    from .. import params
    from ..api import load_cluster

    params.cluster("replay_timed", cluster)
    if isinstance(events, str | os.PathLike):
        todo = read_events(events)
    else:
        todo = list(events) if _all_timed(events) else timed_events(events)
    later: list[TimedEvent] = []
    if not isinstance(cluster, Cluster):
        later = _loaded_with_cluster(todo)
        try:
            cluster = load_cluster(cluster, objects=[e.arg for e in later])
        except InputError as exc:
            raise _named(exc, later) from None
        if notice is not None and (line := cluster.warning()):
            notice(line)
    keys = [object_key(e.arg) for e in later]
    for e, key in zip(later, keys, strict=True):
        if key in cluster.refused_pods:
            raise InputError(f"{e.where}: addPod: {cluster.refused_pods[key]}")
    timed = TimedSimulator(cluster, config=config, plugins=plugins, seed=seed,
                           tie_break=tie_break, notice=notice, later=keys, preemption=preemption,
                           percentage_of_nodes_to_score=percentage_of_nodes_to_score)  # fmt: skip
    timed.replay(todo, until, progress)
    return timed.result()


def _loaded_with_cluster(events: list[TimedEvent]) -> list[TimedEvent]:
    """The ``addPod`` events of pending pods that may be loaded with the cluster: the
    only arrival of their name, with no deletion of that name before it (a pod deleted
    and added again arrives by ``add_pod`` at its time)."""
    arrivals: dict[str, int] = {}
    deleted_first: set[str] = set()
    for e in events:
        if e.op == "delete" and e.arg not in arrivals:
            deleted_first.add(e.arg)
        elif e.op == "addPod":
            key = object_key(e.arg)
            arrivals[key] = arrivals.get(key, 0) + 1
    return [e for e in events
            if e.op == "addPod" and not _bound(e.arg) and arrivals[object_key(e.arg)] == 1
            and object_key(e.arg) not in deleted_first]  # fmt: skip


def _bound(pod: dict[str, Any]) -> bool:
    spec = pod.get("spec")
    return isinstance(spec, dict) and bool(spec.get("nodeName"))


def _named(exc: InputError, later: list[TimedEvent]) -> InputError:
    """A loading error about the k-th arrival, naming its event's line instead."""
    text = str(exc)
    match = re.match(r"<objects>: (.*?)\(\[(\d+)\]\)(.*)", text, re.S)
    if match is None:
        return exc
    k = int(match.group(2))
    return InputError(f"{later[k].where}: addPod: {match.group(1).strip()}{match.group(3)}")
