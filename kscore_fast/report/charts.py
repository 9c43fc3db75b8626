"""The figures of a score, simulate or timed result (plotly): per-node allocation, the
score breakdown of a pod, FitError reasons, and the run's course.

Text that reaches plotly (names, reasons) is escaped: plotly reads ``<b>``, ``<br>`` and
entities in labels. Long series are drawn with at most :data:`MAX_POINTS` points, and the
title says so: a run's cycles every k-th (and the last: its counts only grow), a replay's
timeline the most of each run of k rows (its queues spike and empty again).
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

import numpy as np

from .allocation import RESOURCES, NodeAllocation, Steps
from .read import NodeScore

MAX_POINTS = 2000
#: nodes past which their names are not written under the heat map
MAX_NODE_LABELS = 60
#: reasons drawn at most (the others are summed in one bar)
MAX_REASONS = 25


def text(value: object) -> str:
    """``value`` as plotly shows it literally."""
    return html.escape(str(value), quote=False)


def layout(fig: Any, title: str, height: int) -> Any:
    """The common look: a title, a height, small margins, white background."""
    fig.update_layout(title={"text": text(title), "x": 0.01}, height=height,
                      template="plotly_white", margin={"l": 60, "r": 30, "t": 60, "b": 100},
                      legend={"orientation": "h", "yref": "container", "y": 0.005,
                              "yanchor": "bottom"})  # fmt: skip
    return fig


def allocation(alloc: NodeAllocation, kind: str) -> Any:
    """A heat map of each node's requested share of CPU, memory and GPUs (nodes sorted by
    CPU, then memory share), over bars of the pods there. ``kind``: score, simulate or
    timed (what the bars count)."""
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    with np.errstate(divide="ignore", invalid="ignore"):
        share = np.where(alloc.allocatable > 0, 100 * alloc.requested / alloc.allocatable,
                         np.nan)  # fmt: skip
    shown = [r for r in range(3) if r < 2 or (alloc.allocatable[:, r] > 0).any()]
    keys = [np.nan_to_num(share[:, r], nan=-1.0) for r in reversed(shown)]
    order = np.lexsort([np.arange(len(alloc.nodes)), *[-k for k in keys]])
    names = [alloc.nodes[i] for i in order]
    hover, z = [], []
    for r in shown:
        _, label, unit_div, unit = RESOURCES[r]
        z.append([None if np.isnan(v) else round(float(v), 2) for v in share[order, r]])
        hover.append([
            f"{text(alloc.nodes[i])}<br>{label}: {_amount(alloc.requested[i, r], unit_div)} "
            f"of {_amount(alloc.allocatable[i, r], unit_div)} {unit} requested"
            + ("" if np.isnan(share[i, r]) else f" ({share[i, r]:.1f}%)")
            for i in order
        ])  # fmt: skip
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, row_heights=[0.55, 0.45],
                        vertical_spacing=0.08)  # fmt: skip
    top = max(100.0, float(np.nanmax(share[:, shown])) if np.isfinite(share[:, shown]).any()
              else 100.0)  # fmt: skip
    fig.add_trace(go.Heatmap(z=z, x=names, y=[RESOURCES[r][1] for r in shown], text=hover,
                             hovertemplate="%{text}<extra></extra>", zmin=0, zmax=top,
                             colorscale="YlOrRd", xgap=1 if len(names) <= 200 else 0, ygap=2,
                             colorbar={"title": {"text": "% requested"}, "len": 0.55,
                                       "y": 1, "yanchor": "top"}), row=1, col=1)  # fmt: skip
    before = alloc.pods[order]
    if kind == "timed":
        fig.add_trace(go.Bar(x=names, y=alloc.pods[order], name="pods bound at the end",
                             marker_color="#4c78a8"), row=2, col=1)  # fmt: skip
    elif kind == "simulate":
        before = before - alloc.placed[order]  # (pods: bound before and placed)
        fig.add_trace(go.Bar(x=names, y=before, name="pods bound before the run",
                             marker_color="#9ecae9"), row=2, col=1)  # fmt: skip
        fig.add_trace(go.Bar(x=names, y=alloc.placed[order], name="pods the run placed",
                             marker_color="#4c78a8"), row=2, col=1)  # fmt: skip
        fig.update_layout(barmode="stack")
    else:
        fig.add_trace(go.Bar(x=names, y=before, name="pods bound", marker_color="#9ecae9"),
                      row=2, col=1)  # fmt: skip
        fig.add_trace(go.Bar(x=names, y=alloc.placed[order],
                             name="pending pods whose host it is (each scored alone)",
                             marker_color="#4c78a8"), row=2, col=1)  # fmt: skip
        fig.update_layout(barmode="group")
    many = len(names) > MAX_NODE_LABELS
    fig.update_traces(marker_line_width=0, selector={"type": "bar"})  # (thin bars: no rims)
    fig.update_xaxes(showticklabels=not many, row=1, col=1)
    fig.update_xaxes(showticklabels=not many, row=2, col=1,
                     title_text=f"{len(names)} nodes, by CPU then memory share")  # fmt: skip
    fig.update_yaxes(title_text="pods", rangemode="tozero", row=2, col=1)
    fig.update_yaxes(autorange="reversed", row=1, col=1)  # (CPU on top)
    when = {"score": "as scored", "simulate": "after the run", "timed": "at the end"}[kind]
    return layout(fig, f"Requested of allocatable per node, {when}", 560)


def _amount(value: int, divisor: int) -> str:
    return f"{value / divisor:,.4g}" if divisor > 1 else f"{value:,}"


def breakdown(pod: str, host: str | None, scores: Sequence[NodeScore], top: int,
              feasible: int, evaluated: int) -> Any:  # fmt: skip
    """Stacked bars of each plugin's weighted score on the pod's best ``top`` nodes (its
    host first, then by total), hover giving raw and normalized scores."""
    import plotly.graph_objects as go

    ranked = sorted(scores, key=lambda s: (s.node != host, -s.total))[:top]
    plugins: list[str] = []
    for s in ranked:
        plugins += [p for p in s.plugins if p not in plugins]
    labels = [text(s.node) + (" (host)" if s.node == host else "") for s in ranked]
    fig = go.Figure()
    for p in plugins:
        values = [s.plugins.get(p, (0, 0, 0)) for s in ranked]
        fig.add_trace(go.Bar(
            y=labels, x=[v[2] for v in values], name=text(p), orientation="h",
            customdata=[[v[0], v[1]] for v in values],
            hovertemplate=(f"{text(p)}: raw %{{customdata[0]}}, normalized "
                           "%{customdata[1]}, weighted %{x}<extra></extra>"),
        ))  # fmt: skip
    fig.add_trace(go.Scatter(y=labels, x=[s.total for s in ranked], mode="text",
                             text=[f" {s.total}" for s in ranked], textposition="middle right",
                             showlegend=False, hoverinfo="skip"))  # fmt: skip
    fig.update_layout(barmode="stack")
    fig.update_yaxes(autorange="reversed")
    fig.update_xaxes(title_text="weighted score (normalized × weight), total at the end")
    head = f"{pod} → {host}" if host else f"{pod} (no host)"
    title = (
        f"{head}: the {len(ranked)} best of the {len(scores)} scored nodes the result "
        f"keeps ({feasible} feasible of {evaluated} evaluated)"
    )
    return layout(fig, title, 170 + 30 * len(ranked))


def reasons(counts: Sequence[tuple[str, int, int]], unit: str) -> Any:
    """Horizontal bars of FitError reasons ``(reason, count, nodes)``: ``count`` pods (or
    attempts: ``unit``) whose error gave the reason, ``nodes`` the nodes it rejected in
    all of them."""
    import plotly.graph_objects as go

    ranked = sorted(counts, key=lambda c: (-c[1], c[0]))
    title = f"FitError reasons, by the {unit} whose error names them"
    if len(ranked) > MAX_REASONS:
        rest = ranked[MAX_REASONS - 1 :]
        ranked = [
            *ranked[: MAX_REASONS - 1],
            (f"{len(rest)} other reasons", sum(c[1] for c in rest), sum(c[2] for c in rest)),
        ]
        title += f" (the first {MAX_REASONS - 1} and the rest)"
    fig = go.Figure(go.Bar(
        y=[_wrap(r) for r, _, _ in ranked], x=[c for _, c, _ in ranked], orientation="h",
        marker_color="#e45756", customdata=[n for _, _, n in ranked],
        hovertemplate=f"%{{x}} {unit}, %{{customdata}} node rejections in all<extra></extra>",
    ))  # fmt: skip
    fig.update_yaxes(autorange="reversed")
    fig.update_xaxes(title_text=unit, dtick=1 if max(c for _, c, _ in ranked) <= 10 else None)
    return layout(fig, title, 150 + 34 * len(ranked))


def _wrap(reason: str, width: int = 60) -> str:
    """A reason on lines of about ``width`` characters (plotly's ``<br>``)."""
    words, lines, line = text(reason).split(" "), [], ""
    for w in words:
        if line and len(line) + 1 + len(w) > width:
            lines.append(line)
            line = w
        else:
            line = f"{line} {w}" if line else w
    return "<br>".join([*lines, line])


def thin(n: int) -> tuple[np.ndarray, int]:
    """Positions of at most :data:`MAX_POINTS` of ``n`` points (every k-th and the last),
    and k."""
    step = max(1, -(-n // MAX_POINTS))
    keep = np.arange(0, n, step)
    if n and keep[-1] != n - 1:
        keep = np.append(keep, n - 1)
    return keep, step


def steps(course: Steps) -> Any:
    """A sequential run cycle by cycle: pods bound, pods that fit nowhere and pods still
    waiting for their cycle; the cluster's requested share of each resource."""
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    n = len(course.bound)
    keep, every = thin(n + 1)  # (cycle 0: before the first)
    cycle = keep
    bound = np.concatenate([[0], course.bound])[keep]
    failed = np.concatenate([[0], course.failed])[keep]
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, vertical_spacing=0.1,
                        subplot_titles=("pending pods, cycle by cycle",
                                        "requested of the cluster's allocatable"))  # fmt: skip
    for name, values, color in (("waiting for their cycle", n - cycle, "#bab0ac"),
                                ("fit nowhere (pending)", failed, "#e45756"),
                                ("bound", bound, "#4c78a8")):  # fmt: skip
        fig.add_trace(
            go.Scatter(
                x=cycle, y=values, name=name, mode="lines", line={"color": color, "shape": "hv"}
            ),
            row=1,
            col=1,
        )
    for r, (_, label, _, _) in enumerate(RESOURCES):
        if course.allocatable[r] <= 0:
            continue
        share = 100 * course.requested[keep, r] / course.allocatable[r]
        fig.add_trace(go.Scatter(x=cycle, y=share, name=f"{label} requested (%)",
                                 mode="lines"), row=2, col=1)  # fmt: skip
    fig.update_yaxes(title_text="pods", row=1, col=1)
    fig.update_yaxes(title_text="%", row=2, col=1)
    fig.update_xaxes(title_text="scheduling cycle", row=2, col=1)
    note = "" if every == 1 else f" (every {every}th cycle drawn)"
    return layout(fig, f"The run, one scheduling cycle after the other{note}", 620)


def timeline(columns: dict[str, list[int]]) -> Any:
    """A timed replay over time: the scheduling queue's sub-queues (pending pods), the
    bound pods, and their requested CPU, memory and GPUs."""
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    n = len(columns["timeNs"])
    every = max(1, -(-n // MAX_POINTS))
    starts = np.arange(0, n, every)
    seconds = np.asarray(columns["timeNs"], np.float64)[starts] / 1e9
    col = {k: np.maximum.reduceat(np.asarray(v, np.int64), starts) if n else np.zeros(0)
           for k, v in columns.items()}  # fmt: skip
    gpus = bool(np.asarray(columns["gpus"]).any())
    rows = [("pending pods in the scheduling queue", "pods"), ("bound pods", "pods"),
            ("requested CPU", "cores"), ("requested memory", "GiB")]  # fmt: skip
    if gpus:
        rows.append(("requested GPUs", "GPUs"))
    fig = make_subplots(rows=len(rows), cols=1, shared_xaxes=True, vertical_spacing=0.05,
                        subplot_titles=[r[0] for r in rows])  # fmt: skip
    for name, color in (("active", "#4c78a8"), ("backoff", "#f58518"),
                        ("unschedulable", "#e45756")):  # fmt: skip
        fig.add_trace(go.Scatter(x=seconds, y=col[name], name=name, mode="lines",
                                 stackgroup="queue", line={"color": color, "shape": "hv"}),
                      row=1, col=1)  # fmt: skip
    series = [("bound pods", col["boundPods"]), ("CPU (cores)", col["cpuMilli"] / 1000),
              ("memory (GiB)", col["memoryBytes"] / 2**30)]  # fmt: skip
    if gpus:
        series.append(("GPUs", col["gpus"]))
    for k, (name, values) in enumerate(series):
        fig.add_trace(go.Scatter(x=seconds, y=values, name=name, mode="lines",
                                 line={"shape": "hv"}), row=k + 2, col=1)  # fmt: skip
    for k, (_, unit) in enumerate(rows):
        fig.update_yaxes(title_text=unit, row=k + 1, col=1)
    fig.update_xaxes(title_text="simulated time (s)", row=len(rows), col=1)
    note = "" if every == 1 else f" (the most of every {every} rows drawn)"
    return layout(fig, f"The replay over time{note}", 170 * len(rows) + 120)
