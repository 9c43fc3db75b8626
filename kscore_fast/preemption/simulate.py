"""``simulate`` with DefaultPreemption applied (``kscore simulate --preemption``): the
pending pods scheduled one after the other, each cycle's filters counting the nominated
pods (``RunFilterPluginsWithNominatedPods``), and after a ``FitError`` the profile's
PostFilter run and applied as ``scheduleOne`` applies it:

* the victims are deleted (``RemovePod``: the plugins' ``remove`` kernels; the node's
  last pod takes a victim's place in ``NodeInfo.Pods``);
* pods of lower priority nominated to that node lose their nomination, and the preemptor
  is nominated to it (``AddNominatedPod``); a pod whose PostFilter nominates nothing keeps
  the nomination it had;
* the preemptor is not tried again in the same pass (as ``goref simulate --preemption``
  without ``--retry-nominated``): it stays pending, nominated, and the later pods' filters
  count it on its node; with ``retry``, it is tried once more at once, its victims gone,
  its nominated node first (the pod's row then holds that second cycle, and its
  ``preemption`` the first one's error, ``firstError``);
* a pod that binds leaves the nominator; a cycle that fails otherwise than with a
  FitError clears the pod's nomination (``clearNominatedNode``).

With ``retry``, runs of consecutive pods that no nomination concerns are scheduled in
compiled chains (:mod:`.chain`, :mod:`.chain_kernel`), each pod as this loop would.

The pods' own ``status.nominatedNodeName`` counts from the start, as the real queue's
``Add`` nominates them. With ``--tie-break go-rand`` the candidates' offset is
``rand.Int31n`` drawn from the same source as the hosts' ties, only when PostFilter draws
it; otherwise kscore's seeded draw per pod.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from ..framework.gorand import GoRand
from ..framework.result import ScoreResult, ScoresMode
from ..framework.runtime import Framework
from ..framework.sequential import TIE_GO_RAND
from ..framework.simulation import begin_sequential, random_source, record_volume_bindings
from ..model.disruption import BudgetRecord
from ..model.snapshot import Cluster
from .chain import CHAIN_PODS, chain_for
from .compiled import preempt_brief
from .dryrun import DryRuns
from .explain import OFFSET_STREAM, entry_of, mark_retried
from .offset import OffsetDraw


def simulate_preemption(
    fw: Framework,
    cluster: Cluster,
    *,
    seed: int = 0,
    tie_break: str = "uniform",
    scores: ScoresMode = "all",
    explain: bool = False,
    progress: Callable[[int], None] | None = None,
    refused: Mapping[int, str] | None = None,
    retry: bool = False,
    chains: bool = True,
) -> ScoreResult:
    """Schedule the pods of ``cluster``'s batch in order with preemption (see the module
    docstring); each failed pod's result holds what PostFilter did (``preemptions``).
    ``chains``: consecutive pods scheduled in compiled chains where they may be
    (:mod:`.chain`); off: each pod's cycles and PostFilter called from Python."""
    assert fw.preemption is not None
    pct, absolute = fw.preemption
    batch = cluster.batch
    result, skip, num_to_find = begin_sequential(fw, cluster.snapshot, batch, scores, explain,
                                                 refused)  # fmt: skip
    if num_to_find == 0:
        return result
    runs = DryRuns(fw, cluster, num_to_find, explain)
    seq, first = runs.seq, runs.offset
    for i in np.flatnonzero(batch.nominated >= 0).tolist():  # (the queue's Add)
        runs.nominated[first + i] = int(batch.nominated[i])
    tie, rng = random_source(tie_break, seed)
    source = GoRand.over(rng) if tie == TIE_GO_RAND else None
    ops = np.zeros(1, dtype=np.int8)
    row = np.zeros(1, dtype=np.int64)
    stepped = result.keep == 0 and not seq.explain  # (a step's buffers: no scores kept)

    def cycle(i: int) -> int:
        pod = first + i
        runs.view(pod)
        nominated = runs.nominated  # (itself alone: no verdict changes, none overridden)
        overridden = len(nominated) > (pod in nominated)
        if overridden:
            seq.override[:] = runs.nominated_verdicts()
        seq.batch.nominated[pod] = runs.nominated.get(pod, -1)
        row[0] = i
        if stepped:
            seq.step(pod, tie, seed, rng, True)
            seq.record_one(result, i)
        else:
            seq.chunk(np.array([pod], np.int64), tie, seed, rng, result, row, True, ops)
        if overridden:
            seq.override[:] = 0
        host = int(result.hosts[i])
        if host >= 0:
            runs.bound_to(pod, host)
            if seq.completing is not None and seq.completing[pod]:
                seq.complete_bindings(pod)
        return host

    def preempt(i: int, verdicts: np.ndarray | None) -> None:
        """PostFilter of row ``i`` after its FitError (``verdicts``: its diagnosis), then
        its retry."""
        entry = result.preemptions[i] = _post_filter(runs, first + i, i, seed, source,
                                                     cluster.budgets, pct, absolute,
                                                     result.node_names, verdicts)  # fmt: skip
        if retry and entry["victims"]:  # (PostFilter's Success: the node nominated)
            mark_retried(entry, result.errors, i)
            cycle(i)

    def schedule(i: int) -> None:
        pod = first + i
        host = cycle(i)
        fit_error = result.feasible[i] == 0 and (result.errors[i] or "").startswith("0/")
        if host < 0 and not fit_error:
            runs.nominated.pop(pod, None)  # (clearNominatedNode)
        elif host < 0:
            preempt(i, seq.last_verdicts(pod))  # (the failed cycle's diagnosis)

    chain = chain_for(runs, first, retry and chains, stepped, tie=tie, seed=seed, rng=rng,
                      source=source, budgets=cluster.budgets, pct=pct,
                      absolute=absolute)  # fmt: skip
    todo, k = np.flatnonzero(~skip).tolist(), 0
    while k < len(todo):
        done = 0
        if chain is not None and not runs.nominated:  # (compiled, pods at a time)
            done, verdicts = chain.run(todo[k : k + CHAIN_PODS], result)
            if verdicts is not None:  # (stopped after a failed cycle: its PostFilter here)
                preempt(todo[k + done], verdicts)
                done += 1
        if not done:
            schedule(todo[k])
            done = 1
        k += done
        if progress is not None:
            progress(done)
    if progress is not None and skip.any():
        progress(int(skip.sum()))
    rows = np.flatnonzero(~skip).astype(np.int64)
    record_volume_bindings(seq, first + rows, rows, result)
    result.finish()
    return result


def _post_filter(runs: DryRuns, pod: int, row: int, seed: int, source: GoRand | None,
                 budgets: Sequence[BudgetRecord], pct: int, absolute: int,
                 names: Sequence[str], verdicts: np.ndarray | None) -> dict[str, Any]:  # fmt: skip
    """PostFilter of ``pod`` (result row ``row``) after its FitError, applied
    (``verdicts``: the failed cycle's, on every node)."""
    offset = OffsetDraw(source.state if source is not None else None, seed, OFFSET_STREAM + row)
    view = runs.view(pod)
    records = runs.records
    try:
        found = preempt_brief(view, records[pod], budgets, offset, pct, absolute, verdicts)
    finally:
        view.restore()
    runs.nominate(pod, found.node, found.reason)
    entry = entry_of(found.node, map(records.__getitem__, found.victims), found.pdb_violations,
                     found.ties, found.candidates, found.reason, names, found.error)  # fmt: skip
    node = runs.nominated.get(pod, -1)
    entry["nominatedNode"] = names[node] if node >= 0 else None
    return entry
