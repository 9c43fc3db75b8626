"""What a timed replay gives: every scheduling attempt, each pod's story (arrival,
attempts, binding, final state) and the cluster over time (queue sizes, bound pods and
their requests), as the JSON document of docs/queue.md and as Arrow tables
(``attempts``, ``pods``, ``timeline``, ``nodes``; ``preemptions`` with preemption;
``volume_bindings`` when a Reserve bound claims)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

#: the attempts table's columns and Arrow types (names as in the JSON rows)
ATTEMPT_COLUMNS = (("time", "float64"), ("timeNs", "int64"), ("pod", "string"),
                   ("attempt", "int64"), ("cycle", "int64"), ("host", "string"),
                   ("error", "string"), ("feasibleNodes", "int64"),
                   ("evaluatedNodes", "int64"), ("queue", "string"))  # fmt: skip
POD_COLUMNS = (("pod", "string"), ("arrivalNs", "int64"), ("attempts", "int64"),
               ("boundNs", "int64"), ("host", "string"), ("state", "string"))  # fmt: skip


@dataclass
class TimedResult:
    """A timed replay's rows (docs/queue.md)."""

    attempts: list[dict[str, Any]]
    #: per pod that entered the queue: pod, arrivalNs, attempts, boundNs, host, state
    #: ("bound", "pending" or "deleted")
    pods: list[dict[str, Any]]
    #: the pods still in the queue at the end
    pending: list[str]
    end_ns: int
    #: the cluster over time, a row after each event and each attempt, as columns:
    #: timeNs, active, backoff, unschedulable (the sub-queues' sizes), boundPods,
    #: cpuMilli, memoryBytes, gpus (the bound pods' requests summed)
    timeline: dict[str, list[int]] = field(default_factory=dict)
    #: the nodes at the end, as columns: node, cpuMilliAllocatable,
    #: memoryBytesAllocatable, gpusAllocatable, and the bound pods there (pods) and their
    #: requests summed (cpuMilli, memoryBytes, gpus)
    nodes: dict[str, list[Any]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"attempts": self.attempts, "pods": self.pods, "pending": self.pending,
                "endNs": self.end_ns, "timeline": self.timeline,
                "nodes": self.nodes}  # fmt: skip

    def json_pieces(self) -> Iterator[str]:
        """The JSON document, one attempt per line."""
        yield '{"attempts": ['
        for k, row in enumerate(self.attempts):
            yield ("\n" if k == 0 else ",\n") + json.dumps(row, ensure_ascii=False)
        yield '],\n"pods": ['
        for k, row in enumerate(self.pods):
            yield ("\n" if k == 0 else ",\n") + json.dumps(row, ensure_ascii=False)
        yield f'],\n"pending": {json.dumps(self.pending)},\n"endNs": {self.end_ns},\n'
        yield f'"timeline": {json.dumps(self.timeline)},\n'
        yield f'"nodes": {json.dumps(self.nodes, ensure_ascii=False)}}}\n'

    def tables(self) -> dict[str, Any]:
        """``attempts``, ``pods``, ``timeline`` and ``nodes`` as pyarrow Tables
        (``unschedulablePlugins`` as a list of strings)."""
        import pyarrow as pa

        def table(rows: list[dict[str, Any]], columns: tuple[tuple[str, str], ...],
                  extra: dict[str, Any] | None = None) -> pa.Table:  # fmt: skip
            data = {name: pa.array([r.get(name) for r in rows], type=getattr(pa, kind)())
                    for name, kind in columns}  # fmt: skip
            data.update(extra or {})
            return pa.table(data)

        plugins = pa.array([r["unschedulablePlugins"] for r in self.attempts],
                           type=pa.list_(pa.string()))  # fmt: skip
        timeline = pa.table({k: pa.array(v, type=pa.int64()) for k, v in self.timeline.items()})
        nodes = pa.table({k: pa.array(v, type=pa.string() if k == "node" else pa.int64())
                          for k, v in self.nodes.items()})  # fmt: skip
        tables = {"attempts": table(self.attempts, ATTEMPT_COLUMNS,
                                    {"unschedulablePlugins": plugins}),
                  "pods": table(self.pods, POD_COLUMNS), "timeline": timeline,
                  "nodes": nodes}  # fmt: skip
        if any("preemption" in r for r in self.attempts):
            tables["preemptions"] = self._preemptions()
        if any("volumeBindings" in r for r in self.attempts):
            tables["volume_bindings"] = self._volume_bindings()
        return tables

    def _volume_bindings(self) -> Any:
        """One row per claim a bound attempt's Reserve bound or provisioned
        (``volumeBindings``): its time, pod and attempt, then the columns of
        ``simulate``'s volume bindings table."""
        import pyarrow as pa

        from ..framework.result import volume_binding_columns

        rows = [(r, b) for r in self.attempts for b in r.get("volumeBindings", ())]
        return pa.table({
            "timeNs": pa.array([r["timeNs"] for r, _ in rows], pa.int64()),
            "pod": pa.array([r["pod"] for r, _ in rows], pa.string()),
            "attempt": pa.array([r["attempt"] for r, _ in rows], pa.int64()),
            **volume_binding_columns([b for _, b in rows]),
        })  # fmt: skip

    def _preemptions(self) -> Any:
        """One row per attempt whose PostFilter ran (``preemption``, with preemption):
        its time, pod and attempt, then the columns of ``simulate``'s preemptions table."""
        import pyarrow as pa

        from ..framework.result import preemption_columns

        rows = [r for r in self.attempts if "preemption" in r]
        return pa.table({
            "timeNs": pa.array([r["timeNs"] for r in rows], pa.int64()),
            "pod": pa.array([r["pod"] for r in rows], pa.string()),
            "attempt": pa.array([r["attempt"] for r in rows], pa.int64()),
            **preemption_columns([r["preemption"] for r in rows]),
        })  # fmt: skip
