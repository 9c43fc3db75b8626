"""Reading a large List on every core.

A large kubectl List (:mod:`.streaming`) is cut into byte ranges of its items region,
smaller toward the end, which this process and ``n - 1`` forked workers take one after
the other from a shared counter (so a process slowed down by other work on the machine
simply takes fewer, and all end at about the same time). Each reads the items that start
in a range (decode, validate, build records, exactly as one process would). This process
keeps the records of its own ranges as they are; a worker writes each range's records,
pickled, to a memory file of its own and announces it on a pipe. This process merges the
ranges in file order as soon as they can be, between ranges of its own, checking names
across ranges. Workers are forked, so they share the loaded modules and the job
description; they never touch numba.

Why this shape (measured on the 141 MB kubectl dump of ``benchmarks/ingest.py``, 2
cores): a ``multiprocessing`` pool of ``n`` workers left this process idle, then serial in
unpickling, for ~2.7 µs of its own per object on top of the workers' 10, and cost ~10 ms
to start (its imports, threads, locks). Reading ranges here as well removes the transport
of those ranges and a fork; plain ``os.fork``, a counter under a POSIX record lock and a
pipe start in ~1 ms. A worker never waits for this process: its records go to the memory
file (a pipe would fill while this process reads a range), and announcements are 24-byte
writes, atomic on a pipe (the workers' never interleave). Nor does this process wait for a
worker: once no range is left to take, it reads the ranges still missing itself and keeps
whichever copy comes first, so a worker slowed down by other work on the machine (as on a
shared 2-core machine, where waiting for one range cost more than reading alone) or dead
delays the end by one range at most.

Records go pickled, one tuple per field of a range's records, rather than msgpack: pickle
sends an object shared by many records once (pods of one template share their containers,
requests and quantities, which stay shared here; the reader gives the pods of a namespace
one namespace text, and of a phase one phase text, for that), carries quantities of any
size (msgpack integers stop at 64 bits), and loads faster (a pod of kubectl's shape: 0.5
against 2.4 µs, 92 against 719 bytes). A tuple per field rather than per record loads in
~0.8 µs a pod instead of ~1.2 (the records made by one ``map``).

Anything a process cannot settle on its own (an error to report with its place in the
file, an item that does not decode alone) makes this process read the file in one
process instead, which then reports exactly what a sequential read reports. Standard
input and tests can set ``KSCORE_READ_WORKERS`` (1: never in parallel).
"""

from __future__ import annotations

import atexit
import fcntl
import os
import pickle
import signal
import struct
import sys
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass
from itertools import chain, pairwise, repeat
from typing import Any, NoReturn

from msgspec.structs import astuple

from .._signals import deferred, release
from ..model.objects import NodeRecord, PodRecord
from . import streaming
from .manifests import Source, load_yaml
from .objects import ItemsFrom, Location, ObjectReader, Objects

#: files smaller than this are read in one process
PARALLEL_BYTES = 16 << 20
#: bytes of items per range, at most and at the end
RANGE_BYTES = 4 << 20
LAST_RANGE_BYTES = 1 << 19

#: where each object of a used kind is: (kind, namespace, name) → (file, place)
Seen = dict[tuple[str, str, str], tuple[str, Location]]
#: a range's records: the objects, where each object of a used kind is (its place counted
#: from the range's first item), how many items the range held, and the range's first item
Part = tuple[Objects, Seen, int, ItemsFrom]
#: a worker's announcement: (range index, offset in its memory file, length; -1: failed)
_NOTICE = struct.Struct("qqq")


def workers_for(size: int) -> int:
    """How many processes (this one included) should read an input of ``size`` bytes."""
    setting = os.environ.get("KSCORE_READ_WORKERS", "")
    n = int(setting) if setting.isdigit() else (os.cpu_count() or 1)
    if n < 2 or size < PARALLEL_BYTES or not sys.platform.startswith("linux"):
        return 1
    return min(n, 8, -(-size // RANGE_BYTES))


class WorkerFailed(Exception):
    """A range a worker could not settle alone: read the file in one process."""


@dataclass(frozen=True)
class _Job:
    source: Source
    layout: streaming.Layout
    is_json: bool
    inner: str | None
    bounds: list[tuple[int, int]]


def read_list(reader: ObjectReader, source: Source, layout: streaming.Layout, is_json: bool,
              inner: str | None, processes: int,
              progress: Callable[[int], None] | None = None) -> None:  # fmt: skip
    """Add the items of the List to ``reader``, read by this process and ``processes - 1``
    forked ones. Raises WorkerFailed, InputError or NotStreamable when some range cannot
    be read alone (the caller rolls ``reader`` back and reads in one process)."""
    job = _Job(source, layout, is_json, inner, _ranges(layout.start, layout.end, processes))
    reap(wait=False)
    with ExitStack() as stack:
        counter = _Counter(stack)
        notices, files = _start_workers(job, counter, processes - 1, stack)
        _read_and_merge(job, counter, _Merger(reader, job, progress), notices, files)


def _ranges(start: int, end: int, processes: int) -> list[tuple[int, int]]:
    """``[start, end)`` in ranges of at most :data:`RANGE_BYTES`, smaller toward the end
    (a share of what is left, down to :data:`LAST_RANGE_BYTES`), so that the processes
    finish together: a process slowed down near the end holds up the merge by a small
    range only."""
    cuts = [start]
    while cuts[-1] < end:
        share = (end - cuts[-1]) // (2 * processes)
        cuts.append(min(end, cuts[-1] + min(RANGE_BYTES, max(LAST_RANGE_BYTES, share))))
    return list(pairwise(cuts))


class _Counter:
    """The next range to take, shared by the processes: a number in a memory file, taken
    under a POSIX record lock (one process at a time; released if its holder dies)."""

    def __init__(self, stack: ExitStack) -> None:
        self._fd = _memory_file(stack)
        os.pwrite(self._fd, bytes(8), 0)

    def take(self, n: int) -> int | None:
        """The next range nobody has taken yet (None: all ``n`` are taken)."""
        fcntl.lockf(self._fd, fcntl.LOCK_EX)
        try:
            i = int.from_bytes(os.pread(self._fd, 8, 0), "little")
            os.pwrite(self._fd, (i + 1).to_bytes(8, "little"), 0)
        finally:
            fcntl.lockf(self._fd, fcntl.LOCK_UN)
        return i if i < n else None


def _start_workers(job: _Job, counter: _Counter, n: int, stack: ExitStack
                   ) -> tuple[int, list[int]]:  # fmt: skip
    """Fork ``n`` workers on ``job`` (ended with ``stack``): the read end of their
    announcements and their memory files. WorkerFailed if the system refuses a process,
    pipe or memory file."""
    try:
        notices, announce = os.pipe()
        stack.callback(os.close, notices)
        try:
            files = [_memory_file(stack) for _ in range(n)]
            for k, fd in enumerate(files):
                with deferred():  # a stop signal lands once the worker is on the stack
                    pid = os.fork()  # (and reaches the worker once it is its own)
                    if pid == 0:
                        _worker(job, counter, k, fd, announce)
                    stack.callback(_end, pid)
        finally:
            os.close(announce)  # the workers' copies stay open until they end
    except OSError:
        raise WorkerFailed() from None
    return notices, files


def _memory_file(stack: ExitStack) -> int:
    fd = os.memfd_create("kscore-read", os.MFD_CLOEXEC)
    stack.callback(os.close, fd)
    return fd


#: workers stopped and not reaped yet: a worker's exit (freeing its memory) takes a few
#: milliseconds, which nobody waits for; they are reaped by the next reading, or at exit
_stopped: list[int] = []


def _end(pid: int) -> None:
    """Reap a worker; one still running (the reading was abandoned, or it is about to
    end) is stopped, and reaped later (:func:`reap`)."""
    try:
        if os.waitpid(pid, os.WNOHANG)[0] == 0:
            os.kill(pid, signal.SIGTERM)
            _stopped.append(pid)
    except ChildProcessError:  # reaped already (a program embedding kscore ignores SIGCHLD)
        pass


@atexit.register
def reap(wait: bool = True) -> None:
    """Reap the workers stopped so far (``wait``: those still ending too)."""
    for pid in list(_stopped):
        try:
            if os.waitpid(pid, 0 if wait else os.WNOHANG)[0] == 0:
                continue
        except ChildProcessError:
            pass
        _stopped.remove(pid)


def _read_and_merge(job: _Job, counter: _Counter, merger: _Merger, notices: int,
                    files: list[int]) -> None:  # fmt: skip
    """Take ranges until none is left, merging between them what the workers announced;
    then read here the ranges the workers are still reading (the first copy of a range to
    come is kept), so that this process never waits for a worker: one slowed down by other
    work on the machine, or dead, costs at most the time of reading its range here."""
    ranges = _RangeReader(job)
    announced = _Announcements(notices, files)
    while (i := counter.take(len(job.bounds))) is not None:
        merger.add(i, ranges.read(*job.bounds[i]))
        announced.hand_over(merger)
    while (i := merger.missing()) is not None:
        merger.add(i, ranges.read(*job.bounds[i]))
        announced.hand_over(merger)


class _Announcements:
    """The read end of the workers' announcements, and their memory files."""

    def __init__(self, fd: int, files: list[int]) -> None:
        os.set_blocking(fd, False)
        self._fd, self._files = fd, files
        self._rest = b""  # the start of an announcement not read whole yet

    def hand_over(self, merger: _Merger) -> None:
        """Give ``merger`` the ranges announced so far (WorkerFailed: a worker could not
        read one alone)."""
        try:
            data = self._rest + os.read(self._fd, 1 << 16)
        except BlockingIOError:
            return
        whole = len(data) - len(data) % _NOTICE.size
        self._rest = data[whole:]
        for tag, offset, length in _NOTICE.iter_unpack(data[:whole]):
            if length < 0:
                raise WorkerFailed()
            # (a worker's number is in the top bits of the range's)
            merger.add(tag & 0xFFFFFFFF, os.pread(self._files[tag >> 32], length, offset))


def _worker(job: _Job, counter: _Counter, number: int, out: int, announce: int) -> NoReturn:
    """A forked worker's life: :func:`_work`, then the end of the process (never back into
    the caller's code, its cleanups are the parent's)."""
    code = 1
    try:
        _worker_signals()
        _work(job, counter, number, out, announce)
        code = 0
    finally:
        os._exit(code)


def _work(job: _Job, counter: _Counter, number: int, out: int, announce: int) -> None:
    """In worker ``number``: read ranges until none is left, each pickled to the memory
    file ``out`` and announced; or announce a failure (the parent then reads the file
    alone, and reports what is wrong)."""
    written = 0
    try:
        ranges = _RangeReader(job)
        while (i := counter.take(len(job.bounds))) is not None:
            data = pickle.dumps(_encode(ranges.read(*job.bounds[i])), pickle.HIGHEST_PROTOCOL)
            view = memoryview(data)
            while view:
                view = view[os.write(out, view) :]
            os.write(announce, _NOTICE.pack(i | number << 32, written, len(data)))
            written += len(data)
    except Exception:
        os.write(announce, _NOTICE.pack(number << 32, 0, -1))


def _worker_signals() -> None:
    """Workers leave Ctrl-C and stop signals to the parent, which ends them (they are
    held from the fork until then: a worker never runs the parent's handlers)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGHUP, signal.SIG_DFL)
    release()


class _RangeReader:
    """Reads ranges of a job one after the other, remembering what it has checked."""

    def __init__(self, job: _Job) -> None:
        self._job = job
        self._reader = ObjectReader()
        with job.source.open() as fh:
            self._data = streaming.map_file(fh)

    def read(self, lo: int, hi: int) -> Part:
        """The records of the items that start in ``[lo, hi)`` of the file."""
        job, reader, data = self._job, self._reader, self._data
        name = job.source.name
        n_items = 0
        first = ItemsFrom()
        chunk = streaming.range_chunk(data, job.layout, lo, hi)
        if chunk is not None:
            if job.is_json:
                for items in streaming.chunk_pieces(data, *chunk, job.layout.item_start):
                    reader.add_items(items, name, first, job.inner, n_items)
                    n_items += len(items)
            else:
                text = data[slice(*chunk)]
                items = streaming.parse_yaml_chunk(text, lambda text: load_yaml(text, name))
                for n_items, item in enumerate(items, 1):
                    reader.add_parsed(item, name, (first, n_items - 1), job.inner)
            streaming.release(data, *chunk)
        objects, seen = reader.detach()
        return objects, seen, n_items, first


def _encode(part: Part) -> tuple[Any, ...]:
    """A part as plain tuples and lists: records as one tuple per field (a pod's fields
    pickle and load ~2x faster so than as a tuple per pod, the records made in one go);
    where each object is as its item number, when it is an item of the range."""
    o, seen, n_items, first = part
    return (_columns(o.nodes), _columns(o.pods), o.services, o.controllers, o.namespaces,
            o.priority_classes, dict(o.skipped), o.total, _flat_seen(seen, first), n_items,
            first)  # fmt: skip


def _columns(records: list[Any]) -> list[tuple[Any, ...]]:
    """The fields of ``records``, one tuple per field."""
    return list(zip(*map(astuple, records), strict=True))


def _records(cls: Callable[..., Any], columns: list[tuple[Any, ...]]) -> list[Any]:
    """:func:`_columns` undone."""
    return list(map(cls, *columns)) if columns else []


def _decode(data: bytes, file: str) -> Part:
    (nodes, pods, services, controllers, namespaces, classes, skipped, total, seen, n_items,
     first) = pickle.loads(data)  # fmt: skip
    o = Objects(_records(NodeRecord, nodes), _records(PodRecord, pods), services,
                controllers, namespaces, classes, total=total)  # fmt: skip
    o.skipped.update(skipped)
    return o, _seen_of(seen, file, first), n_items, first


def _flat_seen(seen: Seen, first: ItemsFrom) -> tuple[list[str], list[int]] | Seen:
    """The keys of ``seen`` one after the other and the item number of each object, when
    every one is an item of the range (its place ``(file, (first, i))``); else ``seen``.
    Strings shared with the records and ints pickle and load ~3x faster than the tuples."""
    numbers = [w[1] if w.__class__ is tuple and w[0] is first else -1 for _, w in seen.values()]
    return seen if -1 in numbers else (list(chain.from_iterable(seen)), numbers)


def _seen_of(flat: Any, file: str, first: ItemsFrom) -> Seen:
    """:func:`_flat_seen` undone."""
    if isinstance(flat, dict):
        return flat
    keys, numbers = flat
    it = iter(keys)
    places = zip(repeat(file), zip(repeat(first), numbers, strict=False), strict=False)
    return dict(zip(zip(it, it, it, strict=True), places, strict=True))


class _Merger:
    """Adds parts (read here, or pickled by a worker) to the reader in file order, as soon
    as every part before them has been added."""

    def __init__(self, reader: ObjectReader, job: _Job,
                 progress: Callable[[int], None] | None) -> None:  # fmt: skip
        self._reader, self._job, self._progress = reader, job, progress
        self._waiting: dict[int, Part | bytes] = {}
        self._next = 0
        self._offset = 0  # items of the file before range ``_next``

    def missing(self) -> int | None:
        """The first range not here yet (None: all are merged)."""
        return self._next if self._next < len(self._job.bounds) else None

    def add(self, i: int, part: Part | bytes) -> None:
        if i < self._next or i in self._waiting:
            return  # read twice (here, while a worker was still reading it): one is kept
        self._waiting[i] = part
        while self._next in self._waiting:
            got = self._waiting.pop(self._next)
            name = self._job.source.name
            objects, seen, n_items, first = _decode(got, name) if isinstance(got, bytes) else got
            first.first = self._offset
            self._reader.merge(objects, seen)
            self._offset += n_items
            if self._progress is not None:
                lo, hi = self._job.bounds[self._next]
                self._progress(hi - lo)
            self._next += 1
