"""Large kubectl Lists, read in bounded chunks of items.

``kubectl get -o json|yaml`` prints a cluster as one ``List`` document. Parsed whole, a
100,000-pod dump costs memory for the whole text (and, for YAML, for PyYAML's node graph
of it, several times the text). These readers find where the ``items`` are, go through
the file in chunks that end on an item boundary, and decode each chunk's items on their
own, so that memory is bounded by a chunk and the records built.

The file is mapped privately rather than read: msgspec decodes the mapped pages where
they are (copying a kubectl dump into a buffer costs ~0.75 µs of a 4.5 KB object's ~9),
the markers the decoder needs at a piece's ends are written into this process's copy of
a page only, and a chunk's pages are given back once it is read, so the file does not
stay resident.

Item boundaries are found from the layout kubectl prints, never guessed inside a value:

* JSON (pretty-printed): a JSON string cannot hold a raw newline, so every line break is
  structural; the items of the top-level ``"items": [`` array are the lines holding just
  ``{`` at the items' indentation.
* YAML: ``items:`` at column 0 followed by a block sequence at column 0; an item starts
  at each line beginning with ``- ``. A quoted or flow scalar running past such a line,
  or an alias between items, makes a chunk fail to parse on its own.

The document without its items (the *envelope*, which says what kind of List it is)
is decoded first. Whatever does not fit this layout, and any chunk that fails to decode,
is reported as :class:`NotStreamable`, and the caller reads the whole document instead
(which then gives the located error, or the right reading).
"""

from __future__ import annotations

import mmap
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, BinaryIO

import msgspec

from . import schema

#: bytes read at a time (grown when one item is larger)
CHUNK_BYTES = 16 << 20
#: how much of a file's head and tail is searched for the items' bounds
_EDGE_BYTES = 1 << 20
_json_items = msgspec.json.Decoder(list[schema.Object | None])


class NotStreamable(Exception):
    """The file is not a List in kubectl's layout, or a chunk of it did not decode."""


@dataclass(frozen=True)
class Layout:
    """Where a List document keeps its items: ``[start, end)`` of the file, each item
    beginning with ``item_start``; ``envelope`` is the document with an empty list."""

    start: int
    end: int
    item_start: bytes
    envelope: bytes


def _edges(fh: BinaryIO, size: int) -> tuple[bytes, bytes, int]:
    fh.seek(0)
    head = fh.read(min(size, _EDGE_BYTES))
    tail_at = max(0, size - _EDGE_BYTES)
    fh.seek(tail_at)
    return head, fh.read(), tail_at


_JSON_ITEMS = re.compile(rb"\n( +)\"items\": \[\n( +)\{\n")


def json_layout(fh: BinaryIO, size: int) -> Layout:
    head, tail, tail_at = _edges(fh, size)
    m = _JSON_ITEMS.search(head)
    if m is None or len(m.group(2)) <= len(m.group(1)):
        raise NotStreamable()
    outer, indent = m.group(1), m.group(2)
    start = m.start(2)
    close = tail.rfind(b"\n" + outer + b"]")
    if close < 0 or tail_at + close <= start:
        raise NotStreamable()
    end = tail_at + close + 1  # past the line break that ends the last item
    envelope = head[: m.start(2)] + b"]" + tail[close + len(outer) + 2 :]
    return Layout(start, end, b"\n" + indent + b"{\n", envelope)


_YAML_ITEMS = re.compile(rb"^items:[ \t]*(?:#[^\n]*)?\n(?:[ \t]*(?:#[^\n]*)?\n)*(?=-[ \n])", re.M)
_YAML_ITEM = re.compile(rb"^-[ \n]", re.M)
_YAML_TOP = re.compile(rb"^[^ \t#\n-]", re.M)
_YAML_DOC_MARKER = re.compile(rb"^(?:---|\.\.\.)(?:[ \t\r]|$)", re.M)


def yaml_layout(fh: BinaryIO, size: int) -> Layout:
    head, tail, tail_at = _edges(fh, size)
    m = _YAML_ITEMS.search(head)
    if m is None or head.startswith(b"%") or _YAML_DOC_MARKER.search(head, 1):
        raise NotStreamable()
    last = None
    for last in _YAML_ITEM.finditer(tail):  # noqa: B007 - the last item start
        pass
    if last is None or _YAML_DOC_MARKER.search(tail):
        raise NotStreamable()
    top = _YAML_TOP.search(tail, last.end())
    close = len(tail) if top is None else top.start()
    end = tail_at + close
    if end <= m.end():
        raise NotStreamable()
    envelope = head[: m.start()] + b"items: []\n" + tail[close:]
    return Layout(m.end(), end, b"\n- ", envelope)


def map_file(fh: BinaryIO) -> mmap.mmap:
    """The file as a private mapping: read without copying, writable (writes stay in this
    process, where they mark the ends of a piece for the decoder)."""
    return mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_COPY)


def release(data: mmap.mmap, lo: int, hi: int) -> None:
    """Give back the pages of ``data[lo:hi]`` that are read (they count as this process's
    memory while mapped)."""
    page = mmap.PAGESIZE
    first, last = -(-lo // page) * page, hi // page * page
    if last > first and hasattr(mmap, "MADV_DONTNEED"):
        data.madvise(mmap.MADV_DONTNEED, first, last - first)


def _chunks(data: mmap.mmap, layout: Layout, progress: Callable[[int], None] | None
            ) -> Iterator[tuple[int, int]]:  # fmt: skip
    """The items region in chunks ``data[lo:hi]`` of about :data:`CHUNK_BYTES` that each
    hold whole items: every chunk starts with the line break before an item and ends
    before the next item's. The caller may write into a chunk while it decodes it (and
    puts the bytes back); its pages are given back when the next chunk is asked for.
    ``progress(n)`` is told of each chunk's bytes."""
    lo, end = layout.start - 1, layout.end
    while lo < end:
        hi = _item_at_or_after(data, layout, lo + 1 + CHUNK_BYTES) - 1
        if hi <= lo or hi >= end - 1:
            hi = end
        yield lo, hi
        if progress is not None:
            progress(hi - lo)
        release(data, lo, hi)
        lo = hi


def json_pieces(fh: BinaryIO, layout: Layout, progress: Callable[[int], None] | None = None
                ) -> Iterator[list[schema.Object | None]]:  # fmt: skip
    """Every item, decoded into the typed structs, a piece (:func:`chunk_pieces`) at a
    time, chunk after chunk."""
    data = map_file(fh)
    for lo, hi in _chunks(data, layout, progress):
        yield from chunk_pieces(data, lo, hi, layout.item_start)


#: bytes of items decoded at a time: their records are then built while the decoded
#: objects are still in the processor's cache (~15% faster than 16 MiB at a time)
PIECE_BYTES = 1 << 18


def chunk_pieces(data: mmap.mmap, lo: int, hi: int, item_start: bytes
                 ) -> Iterator[list[schema.Object | None]]:  # fmt: skip
    """The items of the chunk ``data[lo:hi]`` (see :func:`_chunks`), decoded a piece of
    :data:`PIECE_BYTES` at a time."""
    while lo < hi:
        cut = hi if hi - lo <= PIECE_BYTES else data.find(item_start, lo + PIECE_BYTES, hi)
        if cut < 0:
            cut = hi
        with memoryview(data) as view:
            items = decode_json_chunk(view[lo:cut])
        yield items
        lo = cut


def decode_json_chunk(chunk: memoryview) -> list[schema.Object | None]:
    """The items of one chunk (see :func:`_chunks`), decoded with brackets written over
    its first byte and the comma after its last item, then put back: a line break the
    brackets replaced may be where a later search for an item's start (another range,
    read later) must find it."""
    end = len(chunk) - 1
    while end > 0 and chunk[end] in b" \t\r\n":
        end -= 1
    if chunk[end] != ord(","):  # the last item: no comma follows it
        end += 1
        if end >= len(chunk):
            raise NotStreamable()
    first, last = chunk[0], chunk[end]
    chunk[0], chunk[end] = ord("["), ord("]")
    try:
        return _json_items.decode(chunk[: end + 1])
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
        raise NotStreamable() from None
    finally:
        chunk[0], chunk[end] = first, last


def yaml_items(fh: BinaryIO, layout: Layout, load: Callable[[str], Any],
               progress: Callable[[int], None] | None = None) -> Iterator[Any]:  # fmt: skip
    """Every item, parsed a few hundred at a time by ``load`` (PyYAML with kscore's
    limits: one text → one document, or an exception)."""
    data = map_file(fh)
    for lo, hi in _chunks(data, layout, progress):
        yield from parse_yaml_chunk(data[lo:hi], load)


def parse_yaml_chunk(chunk: bytes, load: Callable[[str], Any]) -> Iterator[Any]:
    """The items of one chunk (see :func:`_chunks`), in pieces PyYAML parses fastest
    (its node graph is ~20× a piece)."""
    piece_bytes = 1 << 18
    data = chunk[1:]
    starts = [m.start() for m in _YAML_ITEM.finditer(data)]
    if not starts or starts[0] != 0:
        raise NotStreamable()
    lo = 0
    while lo < len(starts):
        hi = lo + 1
        while hi < len(starts) and starts[hi] - starts[lo] < piece_bytes:
            hi += 1
        end = starts[hi] if hi < len(starts) else len(data)
        yield from _yaml_piece(data[starts[lo] : end], hi - lo, load)
        lo = hi


def _yaml_piece(data: bytes, n_items: int, load: Callable[[str], Any]) -> list[Any]:
    try:
        items = load(data.decode("utf-8"))
    except Exception:
        raise NotStreamable() from None
    if not isinstance(items, list) or len(items) != n_items:
        raise NotStreamable()
    return items


def range_chunk(data: mmap.mmap, layout: Layout, lo: int, hi: int) -> tuple[int, int] | None:
    """The items that start in ``[lo, hi)`` of the file ``data``, as a chunk in
    :func:`_chunks`' format (None when no item starts there), so that ranges that tile the
    items region share every item out exactly once."""
    start = layout.start if lo <= layout.start else _item_at_or_after(data, layout, lo)
    if start >= min(hi, layout.end):
        return None
    stop = layout.end if hi >= layout.end else _item_at_or_after(data, layout, hi)
    if stop < layout.end:
        stop -= 1  # the line break before the next item belongs to it (as in _chunks)
    return start - 1, stop


def _item_at_or_after(data: mmap.mmap, layout: Layout, pos: int) -> int:
    """Where the first item starting at or after ``pos`` starts (``layout.end``: none)."""
    # an item starting exactly at pos has its line break at pos - 1; one starting before
    # the end has its line break before it
    found = data.find(layout.item_start, pos - 1, layout.end - 1 + len(layout.item_start))
    return layout.end if found < 0 else found + 1
