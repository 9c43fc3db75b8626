"""DefaultPreemption in the :class:`~kscore_fast.Simulator` step API and the timed queue
(``Simulator(..., preemption=True)``, ``simulate --events --preemption``), as
``scheduleOne`` applies it step by step:

* the nominator (:class:`Nominations`): pending pods' nominated nodes by name, in
  nomination order; a pod queued with ``status.nominatedNodeName`` is nominated there
  (the queue's ``Add``), a pod that binds or is deleted leaves it;
* each cycle counts the nominated pods (:func:`prepare_cycle`: the pod's own nomination
  tried first, ``evaluateNominatedNode``; the filters with the node's nominated pods of
  the pod's priority or higher added first, ``RunFilterPluginsWithNominatedPods``);
* after a ``FitError``, PostFilter (:func:`post_filter`) runs on the current state: the
  dry runs of :class:`.dryrun.DryRuns` over the simulator's own run, which holds every
  bound pod as a batch pod (:func:`with_bound_pods`; each node's pods in
  ``NodeInfo.Pods`` order, followed as the simulator binds and deletes), compiled
  (:func:`.compiled.preempt_compiled`), then ``prepareCandidate``: the victims
  deleted as :meth:`Simulator.delete` deletes, lower-priority pods nominated to the node
  lose their nomination, the preemptor is nominated; without a candidate its nomination
  is cleared (unless it was not eligible to preempt: PostFilter gave no result);
* a cycle that fails otherwise (no node, an error after filtering) clears the pod's
  nomination, as ``scheduleOne`` hands ``clearNominatedNode`` to the failure record.

With ``tie_break="go-rand"`` the candidates' offset is ``rand.Int31n`` from the
simulator's source (the hosts' ties' source); else kscore's seeded draw per pod.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import repeat
from typing import TYPE_CHECKING, Any

import msgspec
import numpy as np

from ..framework.sequential import TIE_GO_RAND
from ..model.objects import NamespaceRecord, PodRecord
from ..model.snapshot import Cluster, build_cluster
from .compiled import preempt_compiled
from .dryrun import DryRuns
from .explain import OFFSET_STREAM, preemption_entry
from .nominated import by_node, nominated_verdicts
from .offset import OffsetDraw
from .reference import NOT_ELIGIBLE, priority

if TYPE_CHECKING:
    from ..simulator import Simulator


class Nominations(dict[str, str]):
    """The nominator: pending pod (``namespace/name``) → the node it is nominated to, in
    nomination order (a new nomination goes last, as ``nominator.add`` appends)."""

    def nominate(self, pod: str, node: str) -> None:
        self.pop(pod, None)
        if node:
            self[pod] = node


@dataclass
class Outcome:
    """What PostFilter did in one failed cycle: the result's ``preemption`` object, and
    the victims deleted (``namespace/name``, in ``prepareCandidate``'s order)."""

    entry: dict[str, Any]
    victims: list[str] = field(default_factory=list)


def prepare_cycle(sim: Simulator, i: int, key: str) -> int:
    """Set up the cycle of batch pod ``i`` (``key``): its nominated node (by index, in
    the batch's ``nominated``) and the nominated pods' verdicts (``override``). The
    batch's previous entry for the pod, for :func:`end_cycle`."""
    seq, nominations = sim._seq, sim._nominated
    assert seq is not None and nominations is not None
    where = sim._cluster.snapshot.node_index
    before = int(seq.batch.nominated[i])
    seq.batch.nominated[i] = where.get(nominations.get(key, ""), -1)
    if not nominations or (len(nominations) == 1 and key in nominations):  # (none but its own)
        return before
    index, count = sim._index, len(nominations)
    pods = np.fromiter(map(index.get, nominations, repeat(-1)), np.int64, count)
    nodes = np.fromiter(map(where.get, nominations.values(), repeat(-1)), np.int64, count)
    keep = (pods >= 0) & (nodes >= 0) & (pods != i)
    mine = priority(sim._cache.pending[key])
    runs = sim._runs
    if runs is not None:  # (the priorities by batch position)
        keep[keep] = runs._priority[pods[keep]] >= mine
    else:
        pending = sim._cache.pending
        keep &= [k in pending and priority(pending[k]) >= mine for k in nominations]
    if keep.any():
        memo = np.zeros((1, seq.n_nodes), dtype=np.int64)
        split = runs.split_for(i) if runs is not None and runs.narrow else None
        grouped = by_node(pods[keep], nodes[keep])
        seq.override[:] = nominated_verdicts(seq, i, grouped, memo, split)
    return before


def end_cycle(sim: Simulator, i: int, before: int) -> None:
    """Undo :func:`prepare_cycle` (the batch may be the caller's cluster's)."""
    seq = sim._seq
    assert seq is not None
    seq.batch.nominated[i] = before
    seq.override[:] = 0


def post_filter(sim: Simulator, key: str) -> Outcome:
    """DefaultPreemption's PostFilter for pending pod ``key`` after its FitError in the
    cycle just run, applied to ``sim`` (see the module docstring)."""
    nominations = sim._nominated
    assert nominations is not None and sim.framework.preemption is not None
    pct, absolute = sim.framework.preemption
    runs = _dry_runs(sim, key)
    record = msgspec.structs.replace(sim._cache.pending[key],
                                     nominated_node_name=nominations.get(key, ""))  # fmt: skip
    view = runs.view(sim._index[key])
    row = sim._index[key]
    offset = OffsetDraw(sim._rng if sim._tie == TIE_GO_RAND else None, sim._seed,
                        OFFSET_STREAM + row)  # fmt: skip
    verdicts = sim._seq.last_verdicts(row) if sim._seq is not None else None
    try:
        found = preempt_compiled(view, record, sim._cache.budgets, offset, pct, absolute,
                                 verdicts)  # fmt: skip
    finally:
        view.restore()
    entry = preemption_entry(found, runs.names)
    out = Outcome(entry, [p.key for p in found.victims])
    if found.node >= 0:  # prepareCandidate, then the preemptor's nomination
        for victim in out.victims:
            sim._delete(victim)
        node, mine = runs.names[found.node], priority(record)
        for other, at in list(nominations.items()):
            if at == node and priority(sim._cache.pending[other]) < mine:
                del nominations[other]
        nominations.nominate(key, node)
    elif found.reason != NOT_ELIGIBLE:  # NominatedNodeName(""): the nomination cleared
        nominations.pop(key, None)
    entry["nominatedNode"] = nominations.get(key)
    return out


def with_bound_pods(cluster: Cluster) -> tuple[Cluster, list[PodRecord]]:
    """``cluster`` (a simulator cache's) with its bound pods moved into the batch, after
    the pending pods (unbound copies, for the run to assume), and those pods: the state a
    preempting :class:`~kscore_fast.Simulator` runs on, so that deleting a victim is the
    plugins' ``remove`` and the dry runs read the run itself."""
    snap = cluster.snapshot
    bound = list(snap.pods)
    unbound = [msgspec.structs.replace(p, node_name="", deleting=False) for p in bound]
    controllers = [c for kind in snap.controllers.values() for c in kind]
    namespaces = [NamespaceRecord(n, labels) for n, labels in snap.namespace_labels.items()]
    built = build_cluster(list(snap.nodes), [*cluster.batch.pods, *unbound], snap.services,
                          controllers, namespaces, listed=True, storage=snap.storage)  # fmt: skip
    assert built.batch.names == [*cluster.batch.names, *(p.key for p in bound)]
    assert built.snapshot.node_names == snap.node_names
    built.snapshot.image_states = snap.image_states
    built.snapshot.used_ports = snap.used_ports
    return built, bound


def _dry_runs(sim: Simulator, key: str) -> DryRuns:
    """The dry runs over the simulator's run as it stands (each node's pods in
    ``NodeInfo.Pods`` order, followed as the simulator binds and deletes), with the other
    pending pods' nominations."""
    runs, where = sim._runs, sim._cluster.snapshot.node_index
    nominations, index = sim._nominated, sim._index
    assert runs is not None and nominations is not None
    if not runs.tracking:  # (made now, then followed as the simulator binds and deletes)
        runs.set_pods(sim._cache.on_node, where, {**index, **sim._rows})
    at = map(where.get, nominations.values(), repeat(-1))
    runs.nominated = {index[other]: node for other, node in zip(nominations, at, strict=True)
                      if node >= 0 and other != key and other in index}  # fmt: skip
    return runs
