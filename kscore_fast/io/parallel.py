"""Reading a large List on every core.

A large kubectl List (:mod:`.streaming`) is cut into byte ranges of its items region;
forked worker processes each read the items that start in a range (decode, validate,
build records, exactly as one process would) and send back their records, pickled; the
parent merges them in file order, checking names across ranges. Workers are forked, so
they share the parent's loaded modules and the job description; only range bounds go out
and encoded records come back. They never touch numba.

Records go as pickled tuples of their fields rather than msgpack: pickle sends an object
shared by many records once (pods of one template share their containers, requests and
quantities, which stay shared in the parent), carries quantities of any size (msgpack
integers stop at 64 bits), and loads faster in the parent, whose merging is the serial
part (a pod of kubectl's shape: 0.5 against 2.4 µs, 92 against 719 bytes).

Anything a worker cannot settle on its own (an error to report with its place in the
file, an item that does not decode alone) makes the parent read the file in one process
instead, which then reports exactly what a sequential read reports. Standard input and
tests can set ``KSCORE_READ_WORKERS`` (1: never in parallel).
"""

from __future__ import annotations

import multiprocessing
import os
import pickle
import signal
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import pairwise, starmap

from msgspec.structs import astuple

from ..errors import InputError
from ..model.objects import NodeRecord, PodRecord
from . import streaming
from .manifests import Source, load_yaml
from .objects import Location, ObjectReader, Objects

#: files smaller than this are read in one process (forking costs ~10 ms a worker)
PARALLEL_BYTES = 16 << 20
#: bytes of items per task
RANGE_BYTES = 4 << 20


def workers_for(size: int) -> int:
    """How many processes should read an input of ``size`` bytes."""
    setting = os.environ.get("KSCORE_READ_WORKERS", "")
    n = int(setting) if setting.isdigit() else (os.cpu_count() or 1)
    if n < 2 or size < PARALLEL_BYTES or not sys.platform.startswith("linux"):
        return 1
    return min(n, 8, -(-size // RANGE_BYTES))


@dataclass(frozen=True)
class _Job:
    source: Source
    layout: streaming.Layout
    is_json: bool
    inner: str | None


#: the job the forked workers read (set in the parent just before forking)
_JOB: _Job | None = None


class WorkerFailed(Exception):
    """A range a worker could not settle alone: read the file in one process."""


def read_ranges(source: Source, layout: streaming.Layout, is_json: bool, inner: str | None,
                workers: int) -> Iterator[tuple[int, bytes]]:  # fmt: skip
    """``(range size, encoded records)`` of every range, in file order."""
    global _JOB
    bounds = [*range(layout.start, layout.end, RANGE_BYTES), layout.end]
    _JOB = _Job(source, layout, is_json, inner)
    try:
        ctx = multiprocessing.get_context("fork")
        with ctx.Pool(workers, initializer=_worker_signals) as pool:
            tasks = list(pairwise(bounds))
            for (lo, hi), encoded in zip(tasks, pool.imap(_read_range, tasks), strict=True):
                if encoded is None:
                    raise WorkerFailed()
                yield hi - lo, encoded
    finally:
        _JOB = None


def _worker_signals() -> None:
    """Workers leave Ctrl-C and stop signals to the parent, which ends them."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGHUP, signal.SIG_DFL)


def _read_range(bounds: tuple[int, int]) -> bytes | None:
    """In a worker: the records of the items starting in ``bounds``, or None."""
    job = _JOB
    assert job is not None
    name = job.source.name
    reader = ObjectReader()
    n_items = 0
    try:
        with job.source.open() as fh:
            chunk = streaming.range_chunk(fh, job.layout, *bounds)
        if chunk is not None:
            if job.is_json:
                items = streaming.chunk_items(chunk, job.layout.item_start)
                for n_items, item in enumerate(items, 1):
                    reader.add_typed(item, name, ("", n_items - 1), job.inner)
            else:
                items = streaming.parse_yaml_chunk(chunk, lambda text: load_yaml(text, name))
                for n_items, item in enumerate(items, 1):
                    reader.add_parsed(item, name, ("", n_items - 1), job.inner)
    except (InputError, streaming.NotStreamable):
        return None
    o = reader.objects
    seen = [(*key, where[1]) for key, (_, where) in reader.seen_items()]
    # records as tuples of their fields: these pickle a third faster than the records
    nodes, pods = list(map(astuple, o.nodes)), list(map(astuple, o.pods))
    part = (nodes, pods, o.services, o.controllers, o.namespaces, dict(o.skipped), o.total, seen,
            n_items)  # fmt: skip
    return pickle.dumps(part, pickle.HIGHEST_PROTOCOL)


def merge(reader: ObjectReader, encoded: bytes, name: str, offset: int) -> int:
    """Add a range's records to ``reader`` (item ``j`` of the range is item
    ``offset + j`` of the file); return how many items the range held."""
    nodes, pods, services, controllers, namespaces, skipped, total, seen, n_items = pickle.loads(
        encoded
    )
    part = Objects(list(starmap(NodeRecord, nodes)), list(starmap(PodRecord, pods)), services,
                   controllers, namespaces)  # fmt: skip
    part.skipped.update(skipped)
    part.total = total
    located: list[tuple[tuple[str, str, str], Location]] = [
        ((kind, ns, nm), ("", offset + j)) for kind, ns, nm, j in seen
    ]
    reader.merge(part, name, located)
    return n_items
