"""Read every object of a set of inputs into records (files → documents → records)."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from typing import Any, Protocol

from ..errors import InputError
from ..model.collection import collection_paused
from . import parallel, schema, streaming
from .manifests import (
    STDIN,
    Report,
    Source,
    decode_json,
    iter_sources,
    load_yaml,
    parse_json,
    yaml_documents,
)
from .objects import ObjectReader, Objects


class ProgressLike(Protocol):
    def update(self, n: int) -> None: ...
    def close(self) -> None: ...


#: ``progress(file name, size in bytes)``: a bar for reading one large file
ProgressFactory = Callable[[str, int], ProgressLike]


def read_inputs(
    paths: Iterable[str | os.PathLike[str]],
    objects: Iterable[Any] = (),
    progress: ProgressFactory | None = None,
) -> tuple[Objects, Report]:
    """The records of every object of ``paths`` and of the already-parsed ``objects``.

    Raises :class:`~kscore_fast.errors.InputError` on bad input, and when ``paths``,
    though given, hold no object at all (as ``kubectl apply`` refuses such input).
    ``progress`` makes a bar for each large file, advanced as its items are read.
    """
    paths = [os.fspath(p) for p in paths]
    if paths.count(STDIN) > 1:
        raise InputError("standard input (-) can be read only once")
    reader = ObjectReader()
    report = Report()
    with collection_paused():
        for source in iter_sources(paths, report):
            try:
                read_source(reader, source, progress)
            finally:
                source.close()
        if paths and reader.objects.total == 0:
            raise InputError(f"no Kubernetes objects found in {', '.join(paths)}")
        for i, obj in enumerate(objects):
            reader.add_parsed(obj, "<objects>", f"[{i}]")
    return reader.objects, report


def _looks_like_json(data: Any) -> bool:
    return bytes(data[:64]).lstrip()[:1] in (b"{", b"[")


def read_source(reader: ObjectReader, source: Source,
                progress: ProgressFactory | None = None) -> None:  # fmt: skip
    """Add the objects of one input to ``reader``."""
    if source.data is None:  # a large file: item by item when it is a List
        mark = reader.checkpoint()
        bar = progress(source.name, source.size) if progress is not None else None
        try:
            _stream(reader, source, bar.update if bar is not None else None)
            return
        except (streaming.NotStreamable, schema.Refused):
            reader.rollback(mark)
        finally:
            if bar is not None:
                bar.close()
    data = source.read()
    is_json = source.is_json if source.is_json is not None else _looks_like_json(data)
    if is_json:
        doc = decode_json(data)
        if doc is not None:
            mark = reader.checkpoint()
            try:
                reader.add_typed(doc, source.name)
                return
            except schema.Refused:  # read as parsed objects, which says what is wrong
                reader.rollback(mark)
        try:
            parsed = parse_json(data, source.name)
        except InputError:
            if source.is_json:
                raise
            # standard input that is not JSON after all: YAML (a flow mapping, say)
        else:
            reader.add_parsed(parsed, source.name)
            return
    for where, doc in yaml_documents(data, source.name):
        reader.add_parsed(doc, source.name, where)


def _stream(reader: ObjectReader, source: Source,
            progress: Callable[[int], None] | None) -> None:  # fmt: skip
    """Read a large List in chunks (:mod:`.streaming`), on every core when it is large
    enough (:mod:`.parallel`); NotStreamable if it is not a List in kubectl's layout or a
    chunk does not decode on its own."""
    name = source.name
    with source.open() as fh:
        is_json = source.is_json
        if is_json is None:  # standard input
            is_json = _looks_like_json(fh.read(64))
        layout = (streaming.json_layout if is_json else streaming.yaml_layout)(fh, source.size)
        inner = _add_envelope(reader, layout, is_json, name)
        processes = parallel.workers_for(source.size)
        if processes > 1:
            mark = reader.checkpoint()
            try:
                parallel.read_list(reader, source, layout, is_json, inner, processes, progress)
                return
            except (parallel.WorkerFailed, InputError, streaming.NotStreamable, schema.Refused):
                reader.rollback(mark)  # read in one process: the same records, or the error
        if is_json:
            n = 0
            for items in streaming.json_pieces(fh, layout, progress):
                reader.add_items(items, name, "", inner, n)
                n += len(items)
        else:
            load = lambda text: load_yaml(text, name)  # noqa: E731
            for i, item in enumerate(streaming.yaml_items(fh, layout, load, progress)):
                reader.add_parsed(item, name, ("", i), inner)


def _add_envelope(reader: ObjectReader, layout: streaming.Layout, is_json: bool,
                  name: str) -> str | None:  # fmt: skip
    """Read the List without its items; return the kind its items take (None: their own)."""
    if is_json:
        envelope: Any = decode_json(layout.envelope)
        kind = getattr(envelope, "kind", None)
    else:
        try:  # with the same limits as any YAML (depth, aliases)
            envelope = load_yaml(layout.envelope.decode("utf-8"), name)
        except (InputError, UnicodeDecodeError):
            raise streaming.NotStreamable() from None
        kind = envelope.get("kind") if isinstance(envelope, dict) else None
    if not isinstance(kind, str) or not kind.endswith("List"):
        raise streaming.NotStreamable()
    if is_json:
        reader.add_typed(envelope, name)
    else:
        reader.add_parsed(envelope, name)
    return kind[: -len("List")] or None
