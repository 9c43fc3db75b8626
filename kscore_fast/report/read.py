"""Reading kscore's results back: which kind a file or directory is, and its rows.

A result is one of:

* :class:`RunResult`: ``kscore score`` or ``kscore simulate`` (the JSON document of
  docs/contract.md, or the ``placements``/``scores`` tables of ``--format parquet|arrow``);
  its ``mode`` says which (the document's ``mode``, the placements table's schema metadata
  ``kscore.mode``).
* :class:`TimedResult`: ``kscore simulate --events`` (docs/queue.md: attempts, pods'
  stories, the timeline and the nodes at the end).
* :class:`SweepResult`: ``kscore sweep`` (metrics and placements; JSON, Parquet, Arrow or
  CSV tables).

Anything else (a manifest, another program's JSON, a capacity result, a table missing a
column) is an :class:`~kscore_fast.errors.InputError` naming the file and what was
expected. Scores are read only for the pods a report draws (:meth:`RunResult.scores`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import msgspec

from ..errors import InputError

TABLE_FORMATS = ("parquet", "arrow", "csv")
MODES = ("score", "simulate")


@dataclass(frozen=True)
class NodeScore:
    """One scored node of a pod: its total and, per plugin, (raw, normalized, weighted)."""

    node: str
    total: int
    plugins: dict[str, tuple[int, int, int]]


@dataclass
class RunResult:
    """A ``score`` or ``simulate`` result: one row per pod, in the result's order."""

    path: str
    mode: str
    pods: list[str]
    hosts: list[str | None]
    errors: list[str | None]
    feasible: list[int]
    evaluated: list[int]
    #: the pods whose scores the result kept (``--scores none``: none)
    scored: set[str]
    #: pods → their kept scores, in the result's order (see :meth:`scores`)
    _load: Callable[[Sequence[str]], dict[str, list[NodeScore]]] = field(repr=False)

    kind = "run"

    @cached_property
    def position(self) -> dict[str, int]:
        """Pod → its row."""
        return {p: i for i, p in enumerate(self.pods)}

    def scores(self, pods: Sequence[str]) -> dict[str, list[NodeScore]]:
        """The kept scores of ``pods`` (those with none are left out)."""
        return self._load([p for p in pods if p in self.scored])


@dataclass
class TimedResult:
    """A timed replay's result (docs/queue.md)."""

    path: str
    #: time (s), pod, host, error of every attempt, in order
    attempts: list[tuple[float, str, str | None, str | None]]
    #: pod → its final state (bound, pending, deleted)
    states: dict[str, str]
    #: the timeline's columns (timeNs, active, backoff, unschedulable, boundPods,
    #: cpuMilli, memoryBytes, gpus)
    timeline: dict[str, list[int]]
    #: the nodes at the end (node, *Allocatable, pods, cpuMilli, memoryBytes, gpus), or
    #: None for a replay written before kscore kept them
    nodes: dict[str, list[Any]] | None

    kind = "timed"


@dataclass
class SweepResult:
    """A sweep's metrics, a row per run (``kscore_fast.sweep_runs.METRICS`` and more)."""

    path: str
    metrics: list[dict[str, Any]]

    kind = "sweep"


Result = RunResult | TimedResult | SweepResult

#: what each kind's rows must hold: column → Python types accepted
_PLACEMENTS = {"pod": str, "host": (str, type(None)), "feasible": int, "evaluated": int,
               "error": (str, type(None))}  # fmt: skip
_SCORES = ("pod", "node", "plugin", "raw", "normalized", "weighted", "total")
_ATTEMPTS = {"time": (float, int), "pod": str, "host": (str, type(None)),
             "error": (str, type(None))}  # fmt: skip
_STORIES = {"pod": str, "state": str}
TIMELINE = ("timeNs", "active", "backoff", "unschedulable", "boundPods", "cpuMilli",
            "memoryBytes", "gpus")  # fmt: skip
NODES = ("node", "cpuMilliAllocatable", "memoryBytesAllocatable", "gpusAllocatable", "pods",
         "cpuMilli", "memoryBytes", "gpus")  # fmt: skip
_METRICS = {"run": int, "snapshot": str, "config": str, "seed": int, "mode": str,
            "pods": int, "placed": int, "unschedulable": int, "nodes_used": int,
            "cpu_mean": (float, int), "cpu_min": (float, int), "cpu_max": (float, int),
            "memory_mean": (float, int), "memory_min": (float, int),
            "memory_max": (float, int), "gpu_mean": (float, int), "gpu_min": (float, int),
            "gpu_max": (float, int), "gpu_idle_on_used_nodes": int,
            "fit_error_reasons": str, "seconds": (float, int)}  # fmt: skip

_EMPTY = re.compile(rb"\[\s*\]")
_CSV_TEXT = ("snapshot", "config", "mode", "fit_error_reasons", "pod", "host")
_WHAT = ("expected a result of kscore score or simulate (JSON, or a directory of "
         "Parquet/Arrow tables), of simulate --events, or of kscore sweep")  # fmt: skip


def read_result(path: str) -> Result:
    """The result in ``path`` (a JSON file or a directory of tables)."""
    shown = path
    try:
        if os.path.isdir(path):
            return _read_dir(path, shown)
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError as exc:
        raise InputError(f"{shown}: cannot read it: {exc.strerror or exc}") from None
    return _read_json(data, shown)


# -- JSON -------------------------------------------------------------------------------------


class _PluginScore(msgspec.Struct):
    raw: int
    normalized: int
    weighted: int


class _NodeScore(msgspec.Struct):
    node: str
    total: int
    plugins: dict[str, _PluginScore]


class _Entry(msgspec.Struct):
    pod: str
    host: str | None
    feasibleNodes: int  # (the document's names)
    evaluatedNodes: int
    error: str | None
    #: decoded for the pods drawn only (a result of every score holds millions)
    scores: msgspec.Raw = msgspec.Raw(b"[]")


class _Attempt(msgspec.Struct):
    time: float
    pod: str
    host: str | None
    error: str | None


class _Story(msgspec.Struct):
    pod: str
    state: str


class _Document(msgspec.Struct):
    """Every kind's top-level fields (unknown ones ignored)."""

    results: list[_Entry] | None = None
    mode: str | None = None
    #: Kubernetes objects' (manifests, --format kss's pods: refused)
    kind: Any = None
    attempts: list[_Attempt] | None = None
    pods: list[_Story] | None = None
    timeline: dict[str, list[int]] | None = None
    nodes: dict[str, list[str | int]] | None = None
    metrics: list[dict[str, Any]] | None = None
    placements: list[dict[str, Any]] | None = None
    #: a capacity result's (refused)
    template: Any = None
    drained: Any = None


def _read_json(data: bytes, shown: str) -> Result:
    try:
        doc = msgspec.json.decode(data, type=_Document)
    except msgspec.ValidationError as exc:
        raise InputError(f"{shown}: not a kscore result ({exc}); {_WHAT}") from None
    except msgspec.DecodeError as exc:
        raise InputError(f"{shown}: not a kscore result: not JSON ({exc}); {_WHAT}") from None
    if doc.results is not None:
        return _run_from_json(doc, shown)
    if doc.attempts is not None:
        if doc.pods is None or doc.timeline is None:
            raise InputError(f"{shown}: a timed replay's result without pods or timeline")
        nodes = None if doc.nodes is None else _columns(doc.nodes, NODES, shown, "nodes")
        return TimedResult(shown, [(a.time, a.pod, a.host, a.error) for a in doc.attempts],
                           {s.pod: s.state for s in doc.pods},
                           _columns(doc.timeline, TIMELINE, shown, "timeline"), nodes)  # fmt: skip
    if doc.metrics is not None:
        return SweepResult(shown, _rows(doc.metrics, _METRICS, shown, "metrics"))
    if doc.kind is not None:
        raise InputError(f"{shown}: not a kscore result: Kubernetes objects (manifests, or the "
                         f"pods of --format kss); {_WHAT}")  # fmt: skip
    if doc.template is not None or doc.drained is not None:
        raise InputError(f"{shown}: a kscore capacity result: the report draws score, "
                         "simulate (--events) and sweep results, not capacity results")  # fmt: skip
    raise InputError(f"{shown}: not a kscore result (no results, attempts or metrics); {_WHAT}")


def _run_from_json(doc: _Document, shown: str) -> RunResult:
    entries = doc.results or []
    mode = _mode(doc.mode, shown, "its mode")
    at = {e.pod: i for i, e in enumerate(entries)}
    if len(at) != len(entries):
        raise InputError(f"{shown}: results: a pod is listed twice")

    def load(pods: Sequence[str]) -> dict[str, list[NodeScore]]:
        out = {}
        for p in pods:
            try:
                got = msgspec.json.decode(entries[at[p]].scores, type=list[_NodeScore])
            except msgspec.ValidationError as exc:
                raise InputError(f"{shown}: results[{at[p]}].scores: {exc}") from None
            out[p] = [NodeScore(s.node, s.total, {k: (v.raw, v.normalized, v.weighted)
                                                  for k, v in s.plugins.items()})
                      for s in got]  # fmt: skip
        return out

    scored = {e.pod for e in entries if not _EMPTY.fullmatch(bytes(e.scores))}
    return RunResult(
        shown, mode, [e.pod for e in entries], [e.host for e in entries],
        [e.error for e in entries], [e.feasibleNodes for e in entries],
        [e.evaluatedNodes for e in entries], scored, load,
    )  # fmt: skip


def _mode(mode: str | bytes | None, shown: str, where: str) -> str:
    if isinstance(mode, bytes):
        mode = mode.decode("utf-8", "replace")
    if mode is None:
        raise InputError(f"{shown}: a score result without {where} (written by an older "
                         "kscore): run kscore score or simulate again")  # fmt: skip
    if mode not in MODES:
        raise InputError(f"{shown}: {where}: expected score or simulate, got {mode!r}")
    return mode


def _columns(cols: dict[str, list[Any]], names: Sequence[str], shown: str,
             what: str) -> dict[str, list[Any]]:  # fmt: skip
    """``cols`` holding ``names``, each a list of the same length."""
    missing = [n for n in names if n not in cols]
    if missing:
        raise InputError(f"{shown}: {what}: no column {', '.join(missing)}")
    lengths = {len(cols[n]) for n in names}
    if len(lengths) > 1:
        raise InputError(f"{shown}: {what}: columns of different lengths")
    return {n: list(cols[n]) for n in names}


def _rows(rows: list[dict[str, Any]], need: dict[str, Any], shown: str,
          what: str) -> list[dict[str, Any]]:  # fmt: skip
    """``rows``, each holding ``need``'s fields of their types."""
    for k, row in enumerate(rows):
        for name, types in need.items():
            if name not in row:
                raise InputError(f"{shown}: {what}[{k}]: no field {name}")
            value = row[name]
            if not isinstance(value, types) or isinstance(value, bool):
                raise InputError(f"{shown}: {what}[{k}]: {name}: unexpected value {value!r}")
    return rows


# -- tables -----------------------------------------------------------------------------------


def _read_dir(path: str, shown: str) -> Result:
    names = set(os.listdir(path))
    for fmt in TABLE_FORMATS:
        if f"attempts.{fmt}" in names:
            return _timed_tables(path, fmt, names, shown)
        if f"metrics.{fmt}" in names:
            metrics = _table(path, "metrics", fmt).to_pylist()
            return SweepResult(shown, _rows(metrics, _METRICS, _file(shown, "metrics", fmt),
                                            "row"))  # fmt: skip
        if f"placements.{fmt}" in names and fmt != "csv":
            return _run_tables(path, fmt, names, shown)
    raise InputError(f"{shown}: a directory without kscore's tables (placements, attempts or "
                     f"metrics .parquet, .arrow or .csv); {_WHAT}")  # fmt: skip


def _file(shown: str, name: str, fmt: str) -> str:
    return os.path.join(shown, f"{name}.{fmt}")


def _table(path: str, name: str, fmt: str, columns: Sequence[str] | None = None,
           pods: Sequence[str] | None = None) -> Any:  # fmt: skip
    """Table ``name`` of the directory (only ``columns``; only the rows of ``pods``)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    file = os.path.join(path, f"{name}.{fmt}")
    try:
        if fmt == "parquet":
            import pyarrow.parquet as pq

            where = None if pods is None else [("pod", "in", list(pods))]
            cols = None if columns is None else list(columns)
            table = pq.read_table(file, columns=cols, filters=where)
        elif fmt == "arrow":
            with pa.memory_map(file) as source:
                table = pa.ipc.open_file(source).read_all()
        else:
            import pyarrow.csv as pcsv

            text = {c: pa.string() for c in _CSV_TEXT}  # (a config named 1 stays "1")
            table = pcsv.read_csv(file, convert_options=pcsv.ConvertOptions(column_types=text))
    except OSError as exc:
        raise InputError(f"{file}: cannot read it: {exc.strerror or exc}") from None
    except (pa.ArrowException, ValueError) as exc:
        raise InputError(f"{file}: not a {fmt} table of kscore's ({exc})") from None
    missing = [c for c in columns or () if c not in table.column_names]
    if missing:
        raise InputError(f"{file}: no column {', '.join(missing)}")
    if columns is not None:
        table = table.select(list(columns))
    if pods is not None and fmt != "parquet":
        table = table.filter(pc.is_in(table["pod"], value_set=pa.array(list(pods), pa.string())))
    return table


def _run_tables(path: str, fmt: str, names: set[str], shown: str) -> RunResult:
    table = _table(path, "placements", fmt, list(_PLACEMENTS))
    meta = (table.schema.metadata or {}).get(b"kscore.mode")
    where = f"the kscore.mode metadata of placements.{fmt}"
    mode = _mode(meta, shown, where)
    rows = _rows(table.to_pylist(), _PLACEMENTS, _file(shown, "placements", fmt), "row")
    has_scores = f"scores.{fmt}" in names
    scored: set[str] = set()
    if has_scores:
        pods = _table(path, "scores", fmt, ["pod"]).column("pod")
        scored = {p for p in pods.unique().to_pylist() if p is not None}

    def load(chosen: Sequence[str]) -> dict[str, list[NodeScore]]:
        if not chosen:
            return {}
        rows = _table(path, "scores", fmt, _SCORES, chosen).to_pylist()
        out: dict[str, dict[str, NodeScore]] = {p: {} for p in chosen}
        for r in rows:  # (a pod's rows: node by node, plugin by plugin)
            nodes = out[r["pod"]]
            score = nodes.get(r["node"])
            if score is None:
                score = nodes[r["node"]] = NodeScore(r["node"], r["total"], {})
            if r["plugin"] is not None:
                score.plugins[r["plugin"]] = (r["raw"], r["normalized"], r["weighted"])
        return {p: list(nodes.values()) for p, nodes in out.items()}

    return RunResult(shown, mode, [r["pod"] for r in rows], [r["host"] for r in rows],
                     [r["error"] for r in rows], [r["feasible"] for r in rows],
                     [r["evaluated"] for r in rows], scored, load)  # fmt: skip


def _timed_tables(path: str, fmt: str, names: set[str], shown: str) -> TimedResult:
    for needed in ("pods", "timeline"):
        if f"{needed}.{fmt}" not in names:
            raise InputError(f"{shown}: a timed replay's tables without {needed}.{fmt}")
    attempts = _rows(_table(path, "attempts", fmt, list(_ATTEMPTS)).to_pylist(), _ATTEMPTS,
                     _file(shown, "attempts", fmt), "row")  # fmt: skip
    stories = _rows(_table(path, "pods", fmt, list(_STORIES)).to_pylist(), _STORIES,
                    _file(shown, "pods", fmt), "row")  # fmt: skip
    timeline = _table(path, "timeline", fmt, TIMELINE).to_pydict()
    nodes = _table(path, "nodes", fmt, NODES).to_pydict() if f"nodes.{fmt}" in names else None
    return TimedResult(shown, [(a["time"], a["pod"], a["host"], a["error"]) for a in attempts],
                       {s["pod"]: s["state"] for s in stories}, timeline, nodes)  # fmt: skip
