"""The figures of a sweep: its metrics per configuration side by side (a group of bars
per configuration, a bar per snapshot: the mean over seeds, error bars from the lowest to
the highest run), and the FitError reasons of each configuration.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from typing import Any

import numpy as np

from .charts import layout, text

#: the count panels: (metric, title)
COUNTS = (("placed", "pods placed"), ("unschedulable", "pods unschedulable"),
          ("nodes_used", "nodes used"), ("gpu_idle_on_used_nodes", "idle GPUs on used nodes"),
          ("seconds", "seconds per run"))  # fmt: skip
SHARES = (("cpu", "CPU"), ("memory", "memory"), ("gpu", "GPU"))
#: reasons drawn at most (the others summed as one)
MAX_REASONS = 12
_COLORS = ("#4c78a8", "#f58518", "#54a24b", "#e45756", "#72b7b2", "#b279a2", "#ff9da6",
           "#9d755d", "#bab0ac", "#eeca3b")  # fmt: skip


def _order(values: Sequence[str]) -> list[str]:
    """Distinct values in order of first appearance."""
    return list(dict.fromkeys(values))


def snapshot_labels(snapshots: Sequence[str]) -> dict[str, str]:
    """Short names of the snapshots (their paths' last parts), unless two would clash."""
    short = {s: ", ".join(os.path.basename(p.rstrip("/")) or p for p in s.split(","))
             for s in snapshots}  # fmt: skip
    return short if len(set(short.values())) == len(short) else {s: s for s in snapshots}


def _groups(rows: Sequence[dict[str, Any]]) -> tuple[list[str], list[str], dict[tuple, list]]:
    """Configurations, snapshots (in order) and the rows of each (config, snapshot)."""
    configs = _order([r["config"] for r in rows])
    snaps = _order([r["snapshot"] for r in rows])
    groups: dict[tuple, list] = {}
    for r in rows:
        groups.setdefault((r["config"], r["snapshot"]), []).append(r)
    return configs, snaps, groups


def _bars(fig: Any, rows: Sequence[dict[str, Any]], metric: str, scale: float, where: dict,
          legend: bool, low: str | None = None, high: str | None = None) -> None:  # fmt: skip
    """One bar per (configuration, snapshot): the mean of ``metric`` over its seeds (× scale),
    error bars down to the least of ``low`` and up to the most of ``high`` (default: the
    metric's own spread over seeds)."""
    import plotly.graph_objects as go

    configs, snaps, groups = _groups(rows)
    labels = snapshot_labels(snaps)
    for k, snap in enumerate(snaps):
        x, y, minus, plus, hover = [], [], [], [], []
        for config in configs:
            runs = groups.get((config, snap))
            if not runs:
                continue
            values = np.array([r[metric] for r in runs], np.float64) * scale
            lo = min(r[low or metric] for r in runs) * scale
            hi = max(r[high or metric] for r in runs) * scale
            mean = float(values.mean())
            x.append(text(config))
            y.append(mean)
            minus.append(mean - lo)
            plus.append(hi - mean)
            pairs = zip(runs, values.tolist(), strict=True)
            seeds = ", ".join(f"seed {r['seed']}: {v:.4g}" for r, v in pairs)
            hover.append(f"{text(config)} · {text(labels[snap])}<br>mean {mean:.4g} "
                         f"(from {lo:.4g} to {hi:.4g})<br>{seeds}")  # fmt: skip
        fig.add_trace(go.Bar(x=x, y=y, name=text(labels[snap]), legendgroup=snap,
                             showlegend=legend, marker_color=_COLORS[k % len(_COLORS)],
                             error_y={"type": "data", "symmetric": False, "array": plus,
                                      "arrayminus": minus, "visible": len(rows) > len(groups)
                                      or low is not None},
                             hovertext=hover, hovertemplate="%{hovertext}<extra></extra>"),
                      **where)  # fmt: skip


def counts(rows: Sequence[dict[str, Any]]) -> Any:
    """Pods placed and unschedulable, nodes used, idle GPUs and seconds, per configuration."""
    from plotly.subplots import make_subplots

    fig = make_subplots(rows=2, cols=3, subplot_titles=[t for _, t in COUNTS],
                        vertical_spacing=0.22, horizontal_spacing=0.07)  # fmt: skip
    for k, (metric, _) in enumerate(COUNTS):
        _bars(fig, rows, metric, 1.0, {"row": k // 3 + 1, "col": k % 3 + 1}, k == 0)
    fig.update_layout(barmode="group")
    fig.update_yaxes(rangemode="tozero")
    return layout(fig, "Runs per configuration: mean over seeds, bars from the lowest to the "
                  "highest run", 620)  # fmt: skip


def shares(rows: Sequence[dict[str, Any]]) -> Any:
    """CPU, memory and GPU requested of allocatable per node, per configuration: the mean
    node's share (averaged over seeds), error bars from the emptiest node to the fullest."""
    from plotly.subplots import make_subplots

    gpu = any(r["gpu_max"] > 0 for r in rows)
    shown = [s for s in SHARES if s[0] != "gpu" or gpu]
    fig = make_subplots(rows=1, cols=len(shown), subplot_titles=[f"{t} (%)" for _, t in shown],
                        horizontal_spacing=0.07)  # fmt: skip
    for k, (name, _) in enumerate(shown):
        _bars(fig, rows, f"{name}_mean", 100.0, {"row": 1, "col": k + 1}, k == 0,
              f"{name}_min", f"{name}_max")  # fmt: skip
    fig.update_layout(barmode="group")
    return layout(fig, "Requested of allocatable per node: the mean node, bars from the "
                  "emptiest to the fullest node", 440)  # fmt: skip


def reasons(rows: Sequence[dict[str, Any]]) -> Any | None:
    """Stacked bars of the FitError reasons per configuration (and snapshot), pods per
    reason averaged over seeds; None when no run had one."""
    import plotly.graph_objects as go

    configs, snaps, groups = _groups(rows)
    labels = snapshot_labels(snaps)
    per: dict[tuple, dict[str, float]] = {}
    totals: dict[str, float] = {}
    for key, runs in groups.items():
        mean: dict[str, float] = {}
        for r in runs:
            for reason, n in json.loads(r["fit_error_reasons"] or "{}").items():
                mean[reason] = mean.get(reason, 0.0) + n / len(runs)
        per[key] = mean
        for reason, n in mean.items():
            totals[reason] = totals.get(reason, 0.0) + n
    if not totals:
        return None
    ranked = sorted(totals, key=lambda r: (-totals[r], r))
    drawn, rest = ranked[:MAX_REASONS], ranked[MAX_REASONS:]
    keys = [(c, s) for c in configs for s in snaps if (c, s) in groups]
    x = [text(c) if len(snaps) == 1 else f"{text(c)} · {text(labels[s])}" for c, s in keys]
    fig = go.Figure()
    for k, reason in enumerate([*drawn, *(["other reasons"] if rest else [])]):
        names = rest if reason == "other reasons" and rest else [reason]
        y = [sum(per[key].get(n, 0.0) for n in names) for key in keys]
        fig.add_trace(
            go.Bar(
                x=x,
                y=y,
                name=text(reason[:80]),
                marker_color=_COLORS[k % len(_COLORS)],
                hovertemplate=f"{text(reason)}: %{{y:.4g}} pods<extra></extra>",
            )
        )
    fig.update_layout(barmode="stack")
    fig.update_yaxes(title_text="pods (mean over seeds)")
    return layout(fig, "FitError reasons per configuration, by the pods whose error names "
                  "them", 480)  # fmt: skip
