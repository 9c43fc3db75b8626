"""Each result's section of the report: what it says and which figures it draws.

* score / simulate: per-node allocation (with the cluster), the score breakdown of the
  chosen pods, FitError reasons and the pods that fit nowhere; for simulate, the run
  cycle by cycle.
* timed replay: per-node allocation at the end, FitError reasons of the failed attempts
  and the pods left pending, the queue and the cluster over time.
* sweep: the metrics per configuration side by side, FitError reasons per configuration,
  and the metrics table.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import count
from typing import Any

from ..framework.result import fit_error_reasons
from ..model.snapshot import Cluster
from . import allocation, charts, sweep_charts
from .page import Section
from .read import RunResult, SweepResult, TimedResult

#: pods drawn when none is chosen (the first ones with kept scores)
DEFAULT_PODS = 3
#: rows of a table of pods at most
MAX_ROWS = 100


def reason_counts(errors: Sequence[str]) -> list[tuple[str, int, int]]:
    """Per reason: the errors naming it, and the nodes it rejected in all of them (a
    FitError's counts; an error of another kind is its own reason, of no node)."""
    found: dict[str, list[int]] = {}
    for error in errors:
        parts = fit_error_reasons(error)
        for nodes, reason in [(0, error)] if parts is None else parts:
            entry = found.setdefault(reason, [0, 0])
            entry[0] += 1
            entry[1] += nodes
    return [(reason, n, nodes) for reason, (n, nodes) in found.items()]


def run_section(run: RunResult, cluster: Cluster, chosen: Sequence[str], top: int,
                numbers: count, cluster_paths: Sequence[str]) -> Section:  # fmt: skip
    """A score or simulate result's section (``chosen``: the pods to break down; empty:
    the first ones with kept scores)."""
    failed = [(p, e) for p, h, e in zip(run.pods, run.hosts, run.errors, strict=True)
              if h is None]  # fmt: skip
    section = Section(
        f"{run.mode} result: {run.path}",
        f"{len(run.pods)} pending pods, {len(run.pods) - len(failed)} placed, "
        f"{len(failed)} fit nowhere; {cluster.snapshot.n_nodes} nodes "
        f"(cluster: {' '.join(cluster_paths)})"
        + ("; pods scored one after the other, each bound before the next"
           if run.mode == "simulate" else "; every pod scored against the same cluster"),
    )  # fmt: skip
    nodes, course = allocation.of_run(cluster, run)
    section.heading("Per-node allocation")
    section.figure(charts.allocation(nodes, run.mode), next(numbers))
    _breakdowns(section, run, chosen, top, numbers)
    section.heading("FitError reasons")
    _failures(section, [e or "" for _, e in failed], failed, "pods", numbers)
    if course is not None:
        section.heading("Over the run")
        section.figure(charts.steps(course), next(numbers))
    return section


def _breakdowns(section: Section, run: RunResult, chosen: Sequence[str], top: int,
                numbers: count) -> None:  # fmt: skip
    section.heading("Scores per plugin")
    if not chosen:
        if not run.scored:
            section.note("This result kept no scores (written with --scores none): run "
                         "with --scores all or top:K to draw them.")  # fmt: skip
            return
        chosen = [p for p in run.pods if p in run.scored][:DEFAULT_PODS]
        section.note(f"The first {len(chosen)} pods with scores (choose others with --pod "
                     "NAMESPACE/NAME).")  # fmt: skip
    mine = [p for p in chosen if p in run.position]
    if not mine:
        section.note("None of the pods given with --pod is in this result.")
        return
    scores = run.scores(mine)
    for pod in mine:
        i = run.position[pod]
        host, error = run.hosts[i], run.errors[i]
        if pod in scores:
            section.figure(charts.breakdown(pod, host, scores[pod], top, run.feasible[i],
                                            run.evaluated[i]), next(numbers))  # fmt: skip
        elif host is None:
            section.note(f"{pod} fits nowhere: {error}")
        elif run.feasible[i] == 1:
            section.note(f"{pod}: only {host} passed the filters; it is the host and "
                         "nothing was scored.")  # fmt: skip
        else:
            section.note(f"{pod} → {host}: the result kept no scores for it.")


def _failures(section: Section, errors: Sequence[str], failed: Sequence[tuple[str, Any]],
              unit: str, numbers: count) -> None:  # fmt: skip
    """FitError reasons of ``errors`` (a figure) and the ``failed`` (pod, error) rows."""
    if not errors:
        section.note(f"No FitError: every {unit[:-1]} found a node.")
        return
    section.figure(charts.reasons(reason_counts(errors), unit), next(numbers))
    rows = [(p, e) for p, e in failed]
    section.table(["pod", "error"], rows[:MAX_ROWS], max(0, len(rows) - MAX_ROWS))


def timed_section(timed: TimedResult, numbers: count) -> Section:
    """A timed replay's section."""
    states = list(timed.states.values())
    errors = [a[3] for a in timed.attempts if a[2] is None and a[3]]
    end = timed.timeline["timeNs"][-1] / 1e9 if timed.timeline["timeNs"] else 0.0
    section = Section(
        f"timed replay (simulate --events): {timed.path}",
        f"{len(timed.attempts)} scheduling attempts of {len(timed.states)} pods, "
        f"{len(errors)} failed; at the end {states.count('bound')} bound, "
        f"{states.count('pending')} pending, {states.count('deleted')} deleted; "
        f"{end:,.0f} s simulated" if end >= 1000 else f"{end:.6g} s simulated",
    )  # fmt: skip
    section.heading("Per-node allocation")
    if timed.nodes is None:
        section.note(
            "This replay's output has no nodes table (written before kscore kept "
            "it): run kscore simulate --events again to draw per-node allocation."
        )
    else:
        section.figure(charts.allocation(allocation.of_timed(timed.nodes), "timed"),
                       next(numbers))  # fmt: skip
    section.heading("FitError reasons")
    last: dict[str, str] = {}
    for _, pod, host, error in timed.attempts:
        if host is None and error:
            last[pod] = error
    pending = [(p, last.get(p, "")) for p, s in timed.states.items() if s == "pending"]
    _failures(section, errors, pending, "attempts", numbers)
    section.heading("Over time")
    section.figure(charts.timeline(timed.timeline), next(numbers))
    return section


def sweep_section(sweep: SweepResult, numbers: count) -> Section:
    """A sweep's section."""
    rows = sweep.metrics
    configs = list(dict.fromkeys(r["config"] for r in rows))
    snaps = list(dict.fromkeys(r["snapshot"] for r in rows))
    seeds = list(dict.fromkeys(r["seed"] for r in rows))
    modes = ", ".join(dict.fromkeys(r["mode"] for r in rows))
    section = Section(
        f"sweep: {sweep.path}",
        f"{len(rows)} runs ({modes}): {len(configs)} configurations × {len(snaps)} "
        f"snapshots × {len(seeds)} seeds",
    )  # fmt: skip
    if not rows:
        section.note("The sweep has no runs.")
        return section
    section.heading("Metrics per configuration")
    section.figure(sweep_charts.counts(rows), next(numbers))
    section.figure(sweep_charts.shares(rows), next(numbers))
    section.heading("FitError reasons")
    fig = sweep_charts.reasons(rows)
    if fig is None:
        section.note("No FitError in any run.")
    else:
        section.figure(fig, next(numbers))
    section.heading("Runs")
    labels = sweep_charts.snapshot_labels(snaps)
    cols: list[tuple[str, Callable[[dict], Any]]] = [
        ("run", lambda r: r["run"]), ("config", lambda r: r["config"]),
        ("snapshot", lambda r: labels[r["snapshot"]]), ("seed", lambda r: r["seed"]),
        ("placed", lambda r: r["placed"]), ("unschedulable", lambda r: r["unschedulable"]),
        ("nodes used", lambda r: r["nodes_used"]),
        ("CPU share, mean node", lambda r: r["cpu_mean"]),
        ("memory share", lambda r: r["memory_mean"]), ("GPU share", lambda r: r["gpu_mean"]),
        ("idle GPUs", lambda r: r["gpu_idle_on_used_nodes"]), ("s", lambda r: r["seconds"]),
    ]  # fmt: skip
    section.table([c for c, _ in cols], [[f(r) for _, f in cols] for r in rows[:MAX_ROWS]],
                  max(0, len(rows) - MAX_ROWS))  # fmt: skip
    return section
