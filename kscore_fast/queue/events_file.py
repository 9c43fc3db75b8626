"""The timed events of a replay (docs/queue.md): JSON Lines, YAML, or the same events
given from Python.

Each event has ``time`` (seconds since the start, a number read as an exact decimal that comes to a
whole number of nanoseconds: the clock counts them; non-decreasing from event to event) and
``op``: ``addPod`` (``pod``: a Pod object), ``delete`` (``pod``: ``"namespace/name"``),
``addNode`` (``node``: a Node object) or ``removeNode`` (``node``: its name).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from ..errors import InputError

NS = 10**9
#: op → (its field, whether that is an object, else a name)
OPS = {"addPod": ("pod", True), "delete": ("pod", False), "addNode": ("node", True),
       "removeNode": ("node", False), "addCapacity": ("capacity", True),
       "updateCapacity": ("capacity", True), "deleteCapacity": ("capacity", False)}  # fmt: skip


@dataclass(frozen=True)
class TimedEvent:
    """One event: its time in ns, its op, and its object (addPod, addNode, addCapacity,
    updateCapacity) or name."""

    time_ns: int
    op: str
    arg: Any
    #: where it came from, for errors ("events.jsonl line 3", "events[2]")
    where: str = ""


def time_ns(value: Any, where: str) -> int:
    """``value`` seconds as an exact count of nanoseconds (an int, a Decimal, or a float
    whose shortest repr is meant); it must come to a whole number of nanoseconds.
    ``where``: the value's name in errors (``"events.jsonl line 3: time"``)."""
    if isinstance(value, bool) or not isinstance(value, int | float | Decimal):
        raise InputError(f"{where}: expected a number of seconds, got {value!r}")
    try:
        seconds = Decimal(repr(value) if isinstance(value, float) else value)
    except (InvalidOperation, ValueError):  # pragma: no cover - (every number converts)
        raise InputError(f"{where}: {value!r} is not a number of seconds") from None
    if not seconds.is_finite() or seconds < 0:
        raise InputError(f"{where}: expected a number of seconds >= 0, got {value}")
    ns = seconds * NS
    if ns != ns.to_integral_value():
        raise InputError(f"{where}: {value} s is not a whole number of nanoseconds "
                         "(the clock counts nanoseconds)")  # fmt: skip
    return int(ns)


def event(obj: Any, where: str, after: int = 0) -> TimedEvent:
    """One event from its mapping; ``after``: the previous event's time."""
    if not isinstance(obj, Mapping):
        raise InputError(f"{where}: expected an object with time and op, got {obj!r}")
    op = obj.get("op")
    if op not in OPS:
        raise InputError(f"{where}: op: expected one of {', '.join(OPS)}, got {op!r}")
    if "time" not in obj:
        raise InputError(f"{where}: time: missing")
    t = time_ns(obj["time"], f"{where}: time")
    if t < after:
        raise InputError(f"{where}: time {obj['time']} is before the previous event's "
                         f"({after / NS:g} s): events must be in time order")  # fmt: skip
    field, is_object = OPS[op]
    arg = obj.get(field)
    if is_object and not isinstance(arg, Mapping):
        raise InputError(f"{where}: {op}: {field!r} must be an object")
    if not is_object and not (isinstance(arg, str) and arg):
        raise InputError(f"{where}: {op}: {field!r} must be a non-empty string")
    extra = set(obj) - {"time", "op", field}
    if extra:
        raise InputError(f"{where}: unknown field(s) {', '.join(sorted(extra))}")
    return TimedEvent(t, op, arg, where)


def read_events(path: str | os.PathLike[str]) -> list[TimedEvent]:
    """The events of a JSON Lines file (blank lines skipped), or of a YAML file
    (``.yaml``/``.yml``: documents that are events, or lists of events)."""
    name = os.fspath(path)
    if name.endswith((".yaml", ".yml")):
        return _read_yaml(name)
    out: list[TimedEvent] = []
    try:
        with open(name, encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                if not line.strip():
                    continue
                where = f"{name} line {n}"
                try:
                    obj = json.loads(line, parse_float=Decimal)
                except ValueError as exc:
                    raise InputError(f"{where}: not JSON ({exc})") from None
                out.append(event(obj, where, out[-1].time_ns if out else 0))
    except OSError as exc:
        raise InputError(f"{name}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise InputError(f"{name}: not UTF-8 text") from None
    return out


def timed_events(events: Iterable[Any], name: str = "events") -> list[TimedEvent]:
    """Events given from Python: :class:`TimedEvent`, mappings as in the file, or
    ``(time, op, pod or node)`` tuples."""
    if isinstance(events, str | bytes | Mapping) or not isinstance(events, Iterable):
        raise InputError(f"{name}: expected an iterable of events")
    out: list[TimedEvent] = []
    for k, item in enumerate(events):
        where = f"{name}[{k}]"
        if isinstance(item, TimedEvent):
            item = {"time": Decimal(item.time_ns) / NS, "op": item.op,
                    OPS.get(item.op, ("pod",))[0]: item.arg}  # fmt: skip
        elif isinstance(item, tuple | list):
            if len(item) != 3:
                raise InputError(f"{where}: expected (time, op, pod or node), got {item!r}")
            item = {"time": item[0], "op": item[1], OPS.get(item[1], ("pod",))[0]: item[2]}
        out.append(event(item, where, out[-1].time_ns if out else 0))
    return out


def _read_yaml(name: str) -> list[TimedEvent]:
    import yaml

    try:
        with open(name, encoding="utf-8") as f:
            docs = list(yaml.safe_load_all(f))
    except OSError as exc:
        raise InputError(f"{name}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise InputError(f"{name}: not UTF-8 text") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" line {mark.line + 1}" if mark is not None else ""
        raise InputError(f"{name}{where}: not YAML ({getattr(exc, 'problem', exc)})") from None
    out: list[TimedEvent] = []
    for d, doc in enumerate(docs):
        items = doc if isinstance(doc, list) else [] if doc is None else [doc]
        for k, item in enumerate(items):
            where = f"{name} document {d + 1}" + (f" item {k + 1}" if isinstance(doc, list) else "")
            out.append(event(item, where, out[-1].time_ns if out else 0))
    return out
