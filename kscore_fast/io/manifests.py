"""Find and read manifest files as kubectl prints them, and parse their documents.

Accepts single objects, ``kind: List`` and typed lists (``PodList`` ...), multi-document
YAML, JSON, directories (walked recursively, entries in byte-lexical order, dot-names
skipped, only ``.yaml``/``.yml``/``.json`` regular files read) and several paths at once;
``-`` reads standard input (JSON if it parses as JSON, else YAML).

Reading never hangs and never follows a path into a loop: named paths must be regular
files or directories (a FIFO or device named explicitly is refused: pipe it into ``-``);
inside directories special files, broken links and symlink loops are skipped and
reported. Every OS and parse error is an :class:`~kscore_fast.errors.InputError`
naming the file.

JSON is decoded straight into typed structs (:mod:`.schema`); YAML goes through PyYAML's
C loader, with Kubernetes' limit on alias expansion and a limit on nesting depth
(libyaml's composer recurses on the C stack). Files of :data:`STREAM_BYTES` or more are
not read here but streamed by the loader (:mod:`.streaming`).
"""

from __future__ import annotations

import json
import mmap
import os
import re
import stat
import sys
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any, BinaryIO

import msgspec
import numpy as np
import yaml

from ..errors import InputError
from . import schema

SUFFIXES = (".yaml", ".yml", ".json")
STDIN = "-"
#: deepest YAML nesting read (Go's encoding/json allows 10,000 levels; libyaml's composer
#: overflows the C stack somewhere past 20,000); PyYAML 6.0.4's libyaml stops at its own
#: cap (1,000) first, and JSON is read as deep as Python's recursion limit lets it (about
#: as many levels): the messages say which limit applied (:func:`too_deep`)
MAX_DEPTH = 10_000
#: files at least this large are read in chunks when they are kubectl Lists
STREAM_BYTES = 1 << 20
_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@dataclass
class Report:
    """What reading passed over, for the warning line."""

    #: special files, broken links and loops found in directories
    special: list[str] = field(default_factory=list)
    #: directories holding no manifest file
    empty_dirs: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Source:
    """One input: its name for messages, whether it is JSON (None: guess), and its bytes,
    or for a large input its ``size`` (the reader streams it, :mod:`.streaming`) and, for
    standard input, the temporary file it was spooled to."""

    name: str
    is_json: bool | None
    data: bytes | None = None
    size: int = 0
    spool: BinaryIO | None = None

    def open(self) -> BinaryIO:
        """A new binary handle on a large input (the caller closes it)."""
        try:
            if self.spool is not None:
                return os.fdopen(os.dup(self.spool.fileno()), "rb")
            return open(self.name, "rb")
        except OSError as exc:
            raise _os_error(exc, self.name) from None

    def close(self) -> None:
        """Release a spooled standard input."""
        if self.spool is not None:
            self.spool.close()

    def read(self) -> bytes | mmap.mmap:
        """The whole input (mapped, not copied, when large)."""
        if self.data is not None:
            return self.data
        try:
            with self.open() as fh:
                return mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
        except (OSError, ValueError) as exc:
            raise _os_error(exc, self.name) from None


def _os_error(exc: OSError | ValueError, name: str) -> InputError:
    return InputError(f"cannot read: {getattr(exc, 'strerror', None) or exc}", file=name)


def file_kind(mode: int) -> str:
    """What a special file is (``a FIFO``), for messages that refuse it."""
    for test, what in ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket")):  # fmt: skip
        if test(mode):
            return what
    return "not a regular file"


def iter_sources(paths: Iterable[str | os.PathLike[str]], report: Report) -> Iterator[Source]:
    """Every input of ``paths``, in processing order (see module docstring)."""
    for p in paths:
        name = os.fspath(p)
        if name == STDIN:
            yield _stdin()
            continue
        try:
            st = os.stat(name)
        except FileNotFoundError:
            what = "broken symbolic link" if os.path.islink(name) else "no such file or directory"
            raise InputError(what, file=name) from None
        except OSError as exc:
            raise _os_error(exc, name) from None
        if stat.S_ISDIR(st.st_mode):
            found = yield from _walk(name, report, {(st.st_dev, st.st_ino)})
            if not found:
                report.empty_dirs.append(name)
        elif stat.S_ISREG(st.st_mode):
            # a file named explicitly is read whatever its suffix (.json as JSON, else YAML)
            yield _file(name, st.st_size)
        else:
            raise InputError(
                f"not a regular file ({file_kind(st.st_mode)}); pipe it into - to read "
                "standard input",
                file=name,
            )


def _walk(directory: str, report: Report, ancestors: set[tuple[int, int]]
          ) -> Iterator[Source]:  # fmt: skip
    """The manifest files below ``directory``; returns whether it held any."""
    try:
        entries = sorted(os.scandir(directory), key=lambda e: os.fsencode(e.name))
    except OSError as exc:
        raise _os_error(exc, directory) from None
    found = False
    for entry in entries:
        if entry.name.startswith("."):
            continue
        try:
            st = entry.stat()  # follows symbolic links
        except OSError:  # a broken link or a loop of links
            if entry.name.endswith(SUFFIXES) or entry.is_symlink():
                report.special.append(entry.path)
            continue
        if stat.S_ISDIR(st.st_mode):
            ident = (st.st_dev, st.st_ino)
            if ident in ancestors:  # a link back up the tree
                report.special.append(entry.path)
                continue
            found = (yield from _walk(entry.path, report, ancestors | {ident})) or found
        elif entry.name.endswith(SUFFIXES):
            if not stat.S_ISREG(st.st_mode):
                report.special.append(entry.path)
                continue
            found = True
            yield _file(entry.path, st.st_size)
    return found


def _stdin() -> Source:
    """Standard input: in memory if small, else spooled to an anonymous temporary file
    (gone when closed) and streamed like a large file."""
    stream = sys.stdin.buffer
    head = stream.read(STREAM_BYTES)
    if len(head) < STREAM_BYTES:
        return Source("<stdin>", None, head)
    spool = tempfile.TemporaryFile()  # noqa: SIM115 - lives as long as the Source
    chunk, offset = head, 0
    while chunk:  # (binary data, /dev/zero say, is refused at once, not spooled to the end)
        nul = chunk.find(b"\0")
        if nul >= 0:
            spool.close()
            raise InputError(f"not YAML or JSON text: a NUL byte at byte {offset + nul}",
                             file="<stdin>")  # fmt: skip
        spool.write(chunk)
        offset += len(chunk)
        chunk = stream.read(1 << 20)
    return Source("<stdin>", None, size=spool.tell(), spool=spool)


def _file(name: str, size: int) -> Source:
    """A regular file: read now if small, streamed later if large."""
    is_json = name.endswith(".json")
    if size >= STREAM_BYTES:
        return Source(name, is_json, size=size)
    try:
        with open(name, "rb") as fh:
            return Source(name, is_json, fh.read())
    except OSError as exc:
        raise _os_error(exc, name) from None


# -- JSON ------------------------------------------------------------------------------------


def decode_json(data: bytes | mmap.mmap) -> schema.Object | None:
    """Typed decoding; None when the document must be read generically instead (it is
    malformed, or some object does not fit the typed structs)."""
    try:
        return schema.json_decoder.decode(data)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
        return None


def parse_json(data: bytes | mmap.mmap, name: str) -> Any:
    """The document as Python objects, or a located error."""
    try:
        # (decoded first: json.loads would take UTF-16 and UTF-32 bytes, as YAML does not)
        return json.loads(bytes(data).decode("utf-8"))
    except json.JSONDecodeError as exc:
        raise InputError(
            f"malformed JSON at line {exc.lineno} column {exc.colno}: {exc.msg}", file=name
        ) from None
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 text: {exc.reason} at byte {exc.start}", file=name) from None
    except RecursionError:
        raise InputError(too_deep("JSON"), file=name) from None
    except ValueError as exc:  # integers past Python's digit limit
        raise InputError(_bad_value(exc, bytes(data)), file=name) from None


def too_deep(fmt: str, where: str = "", frames_per_level: int = 0) -> str:
    """The message for nesting past the limit that applies to ``fmt`` (``JSON``, or
    ``YAML`` through libyaml), ``where`` (`` at line L column C``) if known. A reader
    that recursed (into Python's RecursionError) gives its ``frames_per_level``."""
    known = yaml_depth_limit() if fmt == "YAML" and not frames_per_level else None
    if known is not None:
        return f"nesting too deep{where}: YAML is read up to {known[0]:,} levels ({known[1]})"
    levels = sys.getrecursionlimit() // max(1, frames_per_level)  # less the frames in use
    return (
        f"nesting too deep{where}: {fmt} is read up to about {levels:,} levels "
        "(Python's recursion limit)"
    )


def yaml_depth_limit() -> tuple[int, str] | None:
    """The deepest nesting read from YAML, counting the document's own collection, and
    whose limit that is: libyaml's cap (PyYAML 6.0.4 on) where lower than
    :data:`MAX_DEPTH`. None without libyaml (PyYAML's Python parser recurses)."""
    if _Loader is yaml.SafeLoader:
        return None
    cap = getattr(getattr(yaml, "_yaml", None), "_get_max_nest_level", None)
    if cap is not None and cap() < MAX_DEPTH:
        return cap(), "the YAML parser's limit"
    return MAX_DEPTH, "kscore's limit"


def _bad_value(exc: ValueError | OverflowError, text: str | bytes) -> str:
    if "digits" in str(exc):  # int("9" * 5000): past the interpreter's digit limit
        limit = sys.get_int_max_str_digits()
        return f"integer too large (more than {limit:,} digits){_long_digits_at(text, limit)}"
    return f"cannot read a value: {exc}"


def _long_digits_at(text: str | bytes, limit: int) -> str:
    """`` at line L column C`` of the first run of more than ``limit`` digits in ``text``."""
    if isinstance(text, bytes):
        text = text.decode("latin-1")  # (a character per byte: columns count bytes)
    found = re.search(f"[0-9]{{{limit + 1},}}", text)
    if found is None:
        return ""
    start = found.start()
    line, line_start = text.count("\n", 0, start) + 1, text.rfind("\n", 0, start) + 1
    return f" at line {line} column {start - line_start + 1}"


# -- YAML ------------------------------------------------------------------------------------


def yaml_documents(data: bytes | mmap.mmap, name: str) -> Iterator[tuple[str, Any]]:
    """``(where, document)`` of a YAML stream, one document at a time: ``where`` is
    ``""`` for a lone document, ``document N`` in a multi-document stream."""
    try:
        text = bytes(data).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 text: {exc.reason} at byte {exc.start}", file=name) from None
    yield from _load_stream(text, name)


def load_yaml(text: str, name: str) -> Any:
    """One YAML document (a piece of a streamed List), with the same limits."""
    docs = list(_load_stream(text, name))
    if len(docs) != 1:
        raise InputError("expected one YAML document", file=name)
    return docs[0][1]


def _load_stream(text: str, name: str) -> Iterator[tuple[str, Any]]:
    _check_depth(text, name)
    aliases = "*" in text
    loader = _Loader(text)
    try:
        previous: Any = None
        n = 0
        while True:
            more = _guard(name, loader.check_node)
            if n == 1 and not more:
                yield "", previous
            elif n >= 1:
                yield f"document {n}", previous
            if not more:
                return
            node = _guard(name, loader.get_node)
            previous = None
            if node is not None:
                if aliases:
                    check_aliasing(node, name)
                previous = _guard(name, loader.construct_document, node, text=text)
            n += 1
    finally:
        loader.dispose()


def _guard(name: str, fn: Any, *args: Any, text: str = "") -> Any:
    """Run a PyYAML step, turning its failures into located input errors (``text``: the
    YAML, to locate a value that cannot be constructed)."""
    try:
        return fn(*args)
    except yaml.YAMLError as exc:
        where = mark_where(getattr(exc, "problem_mark", None))
        problem = getattr(exc, "problem", None) or str(exc)
        if "maximum nesting depth" in problem:  # libyaml's own cap (PyYAML >= 6.0.4)
            raise InputError(too_deep("YAML", where), file=name) from None
        raise InputError(f"malformed YAML{where}: {problem}", file=name) from None
    except RecursionError:  # PyYAML's Python parser
        raise InputError(too_deep("YAML", frames_per_level=3), file=name) from None
    except (ValueError, OverflowError) as exc:  # e.g. integers past Python's digit limit
        raise InputError(_bad_value(exc, text), file=name) from None


def mark_where(mark: yaml.Mark | None) -> str:
    """`` at line L column C`` of a libyaml mark (counted from 1), or nothing."""
    return f" at line {mark.line + 1} column {mark.column + 1}" if mark else ""


_DEPTH_SAFE = 10_000  # a text shorter than this cannot nest deeper than libyaml manages
_DOC_MARKER = re.compile(r"^(?:---|\.\.\.)(?:[ \t]|$)", re.M)


def _check_depth(text: str, name: str) -> None:
    """Refuse nesting deeper than :data:`MAX_DEPTH` before libyaml composes it.

    Nesting needs a ``[``/``{`` or a deeper indentation (or a ``- `` on the line) per
    level; a document (between ``---`` lines) whose text allows deeper nesting has its
    depth counted exactly, on libyaml's events (no recursion).
    """
    if len(text) < _DEPTH_SAFE or _depth_bound(text) < MAX_DEPTH:
        return
    bounds = [0, *(m.start() for m in _DOC_MARKER.finditer(text)), len(text)]
    if len(bounds) > 2 and all(_depth_bound(text[lo:hi]) < MAX_DEPTH
                               for lo, hi in pairwise(bounds)):  # fmt: skip
        return
    _count_depth(text, name)


def _depth_bound(text: str) -> int:
    """An upper bound of a text's nesting depth: its flow brackets plus its longest line
    (block nesting takes a deeper indentation or a ``- `` per level)."""
    raw = np.frombuffer(text.encode("utf-8", "surrogatepass"), dtype=np.uint8)
    breaks = np.flatnonzero(raw == 10)
    longest = int(np.diff(breaks, prepend=-1, append=len(raw)).max())
    return longest + text.count("[") + text.count("{")


def _count_depth(text: str, name: str) -> None:
    depth = 0
    loader = _Loader(text)
    try:
        while _guard(name, loader.check_event):
            event = loader.get_event()
            if isinstance(event, yaml.CollectionStartEvent):
                depth += 1
                if depth > MAX_DEPTH:
                    raise InputError(too_deep("YAML", mark_where(event.start_mark)), file=name)
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
    finally:
        loader.dispose()


# go-yaml v2 (sigs.k8s.io/yaml, which kubectl and the API server use) decode.go
_ALIAS_RATIO_LOW = 400_000
_ALIAS_RATIO_HIGH = 4_000_000


def _allowed_alias_ratio(decodes: int) -> float:
    if decodes <= _ALIAS_RATIO_LOW:
        return 0.99
    if decodes >= _ALIAS_RATIO_HIGH:
        return 0.10
    return 0.99 - 0.89 * ((decodes - _ALIAS_RATIO_LOW) / (_ALIAS_RATIO_HIGH - _ALIAS_RATIO_LOW))


def check_aliasing(root: yaml.Node, name: str) -> None:
    """go-yaml v2's "document contains excessive aliasing" (a billion laughs guard).

    Counts decoded nodes as go-yaml does (an alias re-decodes its anchor's whole tree,
    each node counting as aliased) and applies its limit where the aliased share peaks:
    at the end of each alias expansion and of the document.
    """
    size: dict[int, int] = {}  # expanded node count of each node, by id

    def expanded(node: yaml.Node) -> int:
        stack = [(node, False)]
        while stack:
            n, done = stack.pop()
            if id(n) in size:
                continue
            kids = _children(n)
            if done or not kids:
                size[id(n)] = 1 + sum(size[id(k)] for k in kids)
                continue
            stack.append((n, True))
            stack.extend((k, False) for k in kids if id(k) not in size)
        return size[id(node)]

    decodes = aliased = 0
    seen: set[int] = set()
    stack = [root]
    while stack:
        n = stack.pop()
        if id(n) in seen:  # an alias: go-yaml decodes the alias node, then the whole anchor
            extra = expanded(n)
            decodes += 1 + extra
            aliased += extra
            if (aliased > 100 and decodes > 1000
                    and aliased / decodes > _allowed_alias_ratio(decodes)):  # fmt: skip
                raise InputError("malformed YAML: document contains excessive aliasing", file=name)
            continue
        seen.add(id(n))
        decodes += 1
        stack.extend(reversed(_children(n)))


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return node.value
    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    return []
