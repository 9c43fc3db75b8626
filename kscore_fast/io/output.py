"""Write results: the JSON document, or Parquet/Arrow tables; never a partial file, and
never anything that kscore did not create itself.

* ``json``: the document of docs/contract.md, to stdout or ``-o FILE``.
* ``html``: ``kscore report``'s page (its ``html_pieces()``), to ``-o FILE``; checked and
  written as a JSON file is.
* ``parquet`` / ``arrow``: ``-o DIR`` becomes a directory holding ``scores.<ext>`` (one
  row per pod, node and plugin: pod, node, plugin, raw, normalized, weighted, total) and
  ``placements.<ext>`` (one row per pod: pod, host, feasible, evaluated, error) and, when
  rejections were recorded (``--explain``, ``--scores all``), ``rejected.<ext>`` (one row
  per pod and examined node a filter rejected: pod, node, plugin, reason).

:func:`prepare_output` runs before anything is loaded or scored: it checks the location
and returns an :class:`Output`; entering its ``with`` block creates the temporary file or
directory next to the destination (so a wrong ``-o`` fails in a second, not after minutes
of scoring), ``write`` fills it and renames it into place, and leaving the block without
writing (an error, Ctrl-C, SIGTERM) removes it. What is refused:

* a path that is an input or contains one (JSON: an existing file inside an input
  directory too); for tables, the root, home or current directory;
* JSON onto a directory, a socket, a block device or a read-only file (a symbolic link
  is written through: its target is replaced, the link stays); character devices and
  FIFOs (``/dev/stdout``, ``/dev/null``, a named pipe) are written directly;
* tables onto anything but a missing path, an empty directory, or kscore's own earlier
  output: a directory holding exactly ``scores.<ext>`` and ``placements.<ext>`` of the
  same format (checked again just before it is replaced).

Every OS error on the way (missing or read-only folder, no space left...), and strings
that cannot be encoded, become an :class:`~kscore_fast.errors.InputError` naming the
path and the reason. A broken pipe on stdout is left to the caller (the CLI exits
quietly). Files follow the umask (a replaced file keeps its mode).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import stat
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any, TextIO

from .._signals import deferred
from ..errors import InputError
from ..framework.result import ScoreResult

if TYPE_CHECKING:
    import pyarrow as pa

FORMATS = ("json", "parquet", "arrow", "csv", "html")
#: the formats written as one file (the others: a directory of tables)
FILE_FORMATS = ("json", "html")
#: first bytes of each table format (Parquet; Arrow IPC file, i.e. Feather v2; kscore's
#: CSV tables, whose first column is ``run``: a sweep's)
_MAGIC = {"parquet": b"PAR1", "arrow": b"ARROW1", "csv": b'"run",'}


_quote = json.encoder.encode_basestring_ascii  # what json.dumps does to a str


def iter_json(result: ScoreResult) -> Iterator[str]:
    """The JSON document in pieces, one pod's result at a time, without building it.

    Equal to ``json.dumps(result.to_dict())`` once parsed; a batch of 10,000 pods on 5,000
    nodes never holds 50 million Python dicts.
    """
    quote = _quote  # json.dumps of a str, without json.dumps' per-call overhead
    node_names = [quote(n) for n in result.node_names]
    plugin_keys = [quote(p) for p in result.plugin_names]
    weights = result.weights
    ptr = result.ptr.tolist()
    all_totals = result.total
    hosts, feasible = result.hosts.tolist(), result.feasible.tolist()
    evaluated = result.evaluated.tolist()
    explained = result.explained
    filter_keys = [quote(f) for f in result.filter_names]
    yield '{"results": ['
    for i, pod in enumerate(result.pod_names):
        lo, hi = ptr[i], ptr[i + 1]
        entries = []
        if hi > lo:
            nodes = result.nodes[lo:hi].tolist()
            total = all_totals[lo:hi].tolist()
            raw = [r[lo:hi].tolist() for r in result.raw]
            norm = [r[lo:hi].tolist() for r in result.normalized]
            for j, n in enumerate(nodes):
                plugins = ",".join(
                    f'{key}:{{"raw":{raw[k][j]},"normalized":{norm[k][j]},'
                    f'"weighted":{norm[k][j] * weights[k]}}}'
                    for k, key in enumerate(plugin_keys)
                )
                entries.append(
                    f'{{"node":{node_names[n]},"total":{total[j]},"plugins":{{{plugins}}}}}'
                )
        h, error = hosts[i], result.errors[i]
        yield (
            ("" if i == 0 else ",\n")
            + f'{{"pod":{quote(pod)},"host":{node_names[h] if h >= 0 else "null"},'
            f'"feasibleNodes":{feasible[i]},"evaluatedNodes":{evaluated[i]},'
            f'"error":{"null" if error is None else quote(error)},'
            f'"scores":[{",".join(entries)}]'
            + (_rejected_json(result, i, node_names, filter_keys) if explained else "")
            + (_preemption_json(result.preemptions[i]) if i in result.preemptions else "")
            + (_bindings_json(result.volume_bindings[i]) if i in result.volume_bindings else "")
            + "}"
        )
    yield f'],"mode":{quote(result.mode)}}}\n'


def _rejected_json(result: ScoreResult, i: int, node_names: list[str],
                   filter_keys: list[str]) -> str:  # fmt: skip
    """``,"rejected":[...]`` of pod ``i`` (names already quoted)."""
    got = result.rejected.get(i)
    if got is None:
        return ',"rejected":[]'
    nodes, plugins, reasons = got
    items = ",".join(
        f'{{"node":{node_names[n]},"plugin":{filter_keys[k]},"reason":{_quote(r)}}}'
        for n, k, r in zip(nodes.tolist(), plugins, reasons, strict=True)
    )
    return f',"rejected":[{items}]'


def _preemption_json(entry: dict[str, Any]) -> str:
    """``,"preemption":{...}`` (docs/contract.md)."""
    return ',"preemption":' + json.dumps(entry, separators=(",", ":"), ensure_ascii=False)


def _bindings_json(entries: list[dict[str, Any]]) -> str:
    """``,"volumeBindings":[...]`` (docs/contract.md)."""
    return ',"volumeBindings":' + json.dumps(entries, separators=(",", ":"), ensure_ascii=False)


def write_json(result: ScoreResult, stream: TextIO) -> None:
    """The JSON document of ``result`` (a result of its own, such as a timed replay's,
    gives its pieces itself: ``json_pieces()``)."""
    pieces = result.json_pieces() if hasattr(result, "json_pieces") else iter_json(result)
    for piece in pieces:
        stream.write(piece)


def _write_file(result: ScoreResult, fmt: str, stream: TextIO) -> None:
    """``result`` as the one file of ``fmt`` (html: the pieces of its ``html_pieces()``)."""
    if fmt == "html":
        for piece in result.html_pieces():  # type: ignore[attr-defined]
            stream.write(piece)
    else:
        write_json(result, stream)


def write_result(
    result: ScoreResult, fmt: str, output: str | None, inputs: Sequence[str | os.PathLike] = ()
) -> None:
    """Write ``result`` as ``fmt`` to ``output`` (stdout for JSON when None)."""
    with prepare_output(fmt, output, inputs) as out:
        out.write(result)


def prepare_output(
    fmt: str, output: str | None, inputs: Sequence[str | os.PathLike] = ()
) -> Output:
    """Check where ``fmt`` goes (``output``; ``inputs``: the paths being read), before any
    work: see the module docstring. Use the result as a context manager."""
    if fmt not in FORMATS:
        raise InputError(f"unknown format {fmt!r}; expected one of {', '.join(FORMATS)}")
    if output is None:
        if fmt == "json":
            return _Stdout()
        if fmt == "html":
            raise InputError("the report is a file: give it with -o FILE")
        raise InputError(f"--format {fmt} writes a directory of tables: give it with -o DIR")
    shown = _show(output)
    if output == "":
        raise InputError(f"-o {shown}: empty path; give a {_what(fmt)} name")
    try:
        if fmt in FILE_FORMATS:
            return _prepare_file(fmt, output, shown, inputs)
        return _prepare_dir(fmt, output, shown, inputs)
    except OSError as exc:
        raise _write_error(f"-o {shown}", exc, "cannot check it") from None
    except ValueError as exc:  # e.g. an embedded NUL character
        raise InputError(f"-o {shown}: {exc}") from None


class Output:
    """A checked output location. Entering ``with`` creates its temporary file or directory
    (and raises if it cannot); ``write`` fills and renames it; leaving the block removes
    whatever was not renamed."""

    def write(self, result: ScoreResult) -> None:
        raise NotImplementedError

    def discard(self) -> None:
        """Remove what was reserved and not written (idempotent)."""

    def __enter__(self) -> Output:
        return self

    def __exit__(self, *exc: object) -> None:
        self.discard()


class _Stdout(Output):
    def write(self, result: ScoreResult) -> None:
        to_stdout(partial(write_json, result), ": give the output file with -o FILE")


def stdout(closed_hint: str = "") -> TextIO:
    """``sys.stdout``; InputError ``stdout is closed`` (+ ``closed_hint``) when it is
    (``kscore ... >&-``)."""
    if sys.stdout is None:
        raise InputError("stdout is closed" + closed_hint)
    return sys.stdout


def to_stdout(write: Callable[[TextIO], object], closed_hint: str = "") -> None:
    """``write(sys.stdout)`` and a flush: a result on stdout. Errors: :func:`stdout`'s,
    ``stdout: cannot write: REASON`` (InputError); a closed pipe (BrokenPipeError) is left
    to the caller, which exits quietly."""
    stream = stdout(closed_hint)
    try:
        write(stream)
        stream.flush()  # a full disk or a closed pipe shows here, not at interpreter exit
    except BrokenPipeError:
        raise
    except OSError as exc:
        raise _write_error("stdout", exc) from None


class _Direct(Output):
    """A character device or FIFO (``/dev/stdout``, ``/dev/null``, a named pipe): written
    in place, never replaced."""

    def __init__(self, path: str, shown: str, fmt: str = "json") -> None:
        self.path, self.shown, self.fmt = path, shown, fmt

    def write(self, result: ScoreResult) -> None:
        try:
            with open(self.path, "w", encoding="utf-8") as fh:
                _write_file(result, self.fmt, fh)
        except BrokenPipeError:
            raise
        except (OSError, UnicodeError) as exc:
            raise _write_error(f"-o {self.shown}", exc) from None


class _Temporary(Output):
    """A temporary file or directory next to ``final``: created on entering ``with``,
    filled and renamed onto ``final`` by ``write``, removed by ``discard`` otherwise."""

    what = "file"

    def __init__(self, final: str, shown: str, mode: int) -> None:
        self.final, self.shown, self.mode = final, shown, mode
        self.tmp: str | None = None

    def _create(self, parent: str, prefix: str) -> None:
        raise NotImplementedError

    def _fill(self, result: ScoreResult) -> None:
        raise NotImplementedError

    def _commit(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> Output:
        parent, name = os.path.split(self.final)
        try:
            with deferred():  # a stop signal lands once self.tmp is known
                self._create(parent, _prefix(name))
            assert self.tmp is not None
            os.chmod(self.tmp, self.mode)  # mkstemp and mkdtemp make it private
        except OSError as exc:
            self.discard()
            msg = f"cannot create a {self.what} in {parent}"
            raise _write_error(f"-o {self.shown}", exc, msg) from None
        except BaseException:
            self.discard()
            raise
        return self

    def write(self, result: ScoreResult) -> None:
        if self.tmp is None:
            self.__enter__()
        try:
            self._fill(result)
            with deferred():  # a stop signal lands before or after the renames
                self._commit()
        except BaseException as exc:
            self.discard()
            if isinstance(exc, OSError | UnicodeError) or _is_arrow_error(exc):
                raise _write_error(f"-o {self.shown}", exc) from None
            raise


class _AtomicFile(_Temporary):
    """The JSON document (or the report's page) in a temporary file, renamed onto
    ``final``."""

    fd: int | None = None
    fmt = "json"

    def _create(self, parent: str, prefix: str) -> None:
        self.fd, self.tmp = tempfile.mkstemp(".tmp", prefix, parent)

    def _fill(self, result: ScoreResult) -> None:
        assert self.fd is not None
        fd, self.fd = self.fd, None
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            _write_file(result, self.fmt, fh)

    def _commit(self) -> None:
        assert self.tmp is not None
        if os.path.islink(self.final) or os.path.isdir(self.final):
            raise InputError(f"-o {self.shown}: {self.final} was replaced while scoring")
        os.replace(self.tmp, self.final)
        self.tmp = None

    def discard(self) -> None:
        with deferred():  # a later stop signal lands once the file is gone
            if self.fd is not None:
                fd, self.fd = self.fd, None
                os.close(fd)
            if self.tmp is not None:
                tmp, self.tmp = self.tmp, None
                with contextlib.suppress(OSError):
                    os.unlink(tmp)


class _AtomicDir(_Temporary):
    """The two tables in a temporary directory, renamed onto ``final`` (a missing path or
    an empty directory) or swapped with kscore's earlier output."""

    what = "directory"

    def __init__(self, fmt: str, final: str, shown: str, mode: int) -> None:
        super().__init__(final, shown, mode)
        self.fmt = fmt

    def _create(self, parent: str, prefix: str) -> None:
        self.tmp = tempfile.mkdtemp(".tmp", prefix, parent)

    def _fill(self, result: ScoreResult) -> None:
        assert self.tmp is not None
        if hasattr(result, "tables"):  # (a result of its own: a timed replay's tables)
            for name, table in result.tables().items():
                path = os.path.join(self.tmp, f"{name}.{self.fmt}")
                _write_batches(table.schema, table.to_batches(), path, self.fmt)
            return
        scores = os.path.join(self.tmp, f"scores.{self.fmt}")
        _write_batches(result.scores_schema(), result.score_batches(), scores, self.fmt)
        table = result.placements_table()
        placements = os.path.join(self.tmp, f"placements.{self.fmt}")
        _write_batches(table.schema, table.to_batches(), placements, self.fmt)
        if result.explained:
            table = result.rejected_table()
            rejected = os.path.join(self.tmp, f"rejected.{self.fmt}")
            _write_batches(table.schema, table.to_batches(), rejected, self.fmt)
        if result.preemptions:
            table = result.preemptions_table()
            path = os.path.join(self.tmp, f"preemptions.{self.fmt}")
            _write_batches(table.schema, table.to_batches(), path, self.fmt)
        if result.volume_bindings:
            table = result.volume_bindings_table()
            path = os.path.join(self.tmp, f"volume_bindings.{self.fmt}")
            _write_batches(table.schema, table.to_batches(), path, self.fmt)

    def _commit(self) -> None:
        assert self.tmp is not None
        state = _dir_state(self.final, self.fmt)
        if state in ("missing", "empty"):
            os.replace(self.tmp, self.final)  # rename(2) replaces an empty directory
            self.tmp = None
            return
        if state != "ours":
            raise InputError(f"-o {self.shown}: {state} (it changed while scoring)")
        # swap: the old output moves aside (onto an empty placeholder), the new one in
        parent, name = os.path.split(self.final)
        old = tempfile.mkdtemp(prefix=_prefix(name), suffix=".old", dir=parent)
        try:
            os.replace(self.final, old)
        except BaseException:
            os.rmdir(old)
            raise
        try:
            os.replace(self.tmp, self.final)
        except BaseException:
            os.replace(old, self.final)
            raise
        self.tmp = None
        with contextlib.suppress(OSError):  # only the tables checked above: anything
            for table in _TABLES:  # else keeps the folder
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(os.path.join(old, f"{table}.{self.fmt}"))
            os.rmdir(old)

    def discard(self) -> None:
        if self.tmp is not None:
            with deferred():  # a later stop signal lands once the directory is gone
                tmp, self.tmp = self.tmp, None
                shutil.rmtree(tmp, ignore_errors=True)  # our own directory


# -- checks ---------------------------------------------------------------------------------


def _prepare_file(fmt: str, output: str, shown: str,
                  inputs: Sequence[str | os.PathLike]) -> Output:  # fmt: skip
    st = _stat(output, shown)
    if st is not None and (stat.S_ISCHR(st.st_mode) or stat.S_ISFIFO(st.st_mode)):
        if not os.access(output, os.W_OK):
            raise InputError(f"-o {shown}: not writable (permission denied)")
        return _Direct(output, shown, fmt)
    if st is not None and stat.S_ISDIR(st.st_mode):
        what, example = (("--format json writes", "scores.json") if fmt == "json"
                         else ("the report is", "report.html"))  # fmt: skip
        raise InputError(
            f"-o {shown}: is a directory; {what} one file: give a file path "
            f"such as {_show(os.path.join(output, example))}"
        )
    if st is not None and not stat.S_ISREG(st.st_mode):
        raise InputError(f"-o {shown}: exists and is not a regular file ({_kind(st)})")
    if st is not None and _through_fd_table(output):  # /dev/stdout redirected to a file
        return _Direct(output, shown, fmt)
    final = os.path.realpath(output)
    # a new file too: one inside an input directory would be read as input next time
    clash = _input_clash(final, inputs, as_file=True)
    if clash:
        raise InputError(f"-o {shown}: {clash}; write the result somewhere else")
    mode = 0o666 & ~_umask()
    if st is not None:
        if _read_only(final, st, os.W_OK):
            raise InputError(
                f"-o {shown}: the file is read-only; make it writable or choose another path"
            )
        mode = stat.S_IMODE(st.st_mode) & 0o777
    out = _AtomicFile(final, shown, mode)
    out.fmt = fmt
    return out


def _prepare_dir(fmt: str, output: str, shown: str, inputs: Sequence[str | os.PathLike]) -> Output:
    final = os.path.realpath(output)
    why = _protected(final) or _input_clash(final, inputs, as_file=False)
    if why:
        raise InputError(f"-o {shown}: {why}; give a new or empty directory for the tables")
    st = _stat(final, shown)
    if st is None:
        return _AtomicDir(fmt, final, shown, 0o777 & ~_umask())
    state = _dir_state(final, fmt)
    if state not in ("empty", "ours"):
        raise InputError(
            f"-o {shown}: {state}; kscore replaces only an empty directory or its own "
            f"earlier output (exactly scores.{fmt} and placements.{fmt}, and rejected.{fmt} "
            "when it explained rejections): remove it "
            "yourself or give a new directory"
        )
    if state == "ours" and _read_only(final, st, os.W_OK | os.X_OK):
        raise InputError(f"-o {shown}: the directory is read-only; its tables cannot be replaced")
    return _AtomicDir(fmt, final, shown, stat.S_IMODE(st.st_mode) & 0o777)


def _read_only(path: str, st: os.stat_result, mode: int) -> bool:
    """``path`` may not be written by this process, or by anyone (no write bit: root may
    write it anyway, but a file or folder made read-only is not to be replaced)."""
    return not os.access(path, mode) or not st.st_mode & 0o222


#: every table kscore writes into an output directory
_TABLES = (
    "scores",
    "placements",
    "rejected",
    "preemptions",
    "volume_bindings",
    "attempts",
    "pods",
    "timeline",
    "nodes",
    "metrics",
    "pending",
)


def _dir_state(path: str, fmt: str) -> str:
    """``missing``, ``empty``, ``ours`` (exactly kscore's tables of ``fmt``: scores and
    placements, and rejected and preemptions when recorded), or why the path is
    neither."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return "missing"
    if not stat.S_ISDIR(st.st_mode):
        return f"exists and is not a directory ({_kind(st)})"
    with os.scandir(path) as it:
        entries = {e.name: e for e in it}
    if not entries:
        return "empty"
    tables = {f"scores.{fmt}", f"placements.{fmt}"}
    for optional in ("rejected", "preemptions", "volume_bindings"):
        if f"{optional}.{fmt}" in entries:
            tables.add(f"{optional}.{fmt}")
    if f"attempts.{fmt}" in entries:  # (a timed replay's; nodes since the report)
        tables = {f"attempts.{fmt}", f"pods.{fmt}", f"timeline.{fmt}"}
        for optional in ("nodes", "preemptions", "volume_bindings"):
            if f"{optional}.{fmt}" in entries:
                tables.add(f"{optional}.{fmt}")
    if f"metrics.{fmt}" in entries:  # (a sweep's; pending since issue 26's item 3)
        tables = {f"metrics.{fmt}", f"placements.{fmt}"}
        if f"pending.{fmt}" in entries:
            tables.add(f"pending.{fmt}")
    if set(entries) == tables and all(
        entries[n].is_file(follow_symlinks=False) and _has_magic(entries[n].path, fmt)
        for n in tables
    ):
        return "ours"
    names = sorted(entries)
    listed = ", ".join(_show(n) for n in names[:3]) + (", ..." if len(names) > 3 else "")
    return f"is a directory holding other files ({len(names)} entries: {listed})"


def _has_magic(path: str, fmt: str) -> bool:
    magic = _MAGIC[fmt]
    try:
        with open(path, "rb") as fh:
            return fh.read(len(magic)) == magic
    except OSError:
        return False


def _protected(final: str) -> str | None:
    """Why ``final`` (a resolved path) must never be replaced as a whole, if it must not."""
    if os.path.dirname(final) == final:
        return "is the root directory"
    try:
        cwd = os.path.realpath(os.getcwd())
    except OSError:
        cwd = None
    if cwd is not None and _contains(final, cwd):
        return "is the current directory" if final == cwd else "contains the current directory"
    home = os.path.expanduser("~")
    if home != "~" and final == os.path.realpath(home):
        return "is the home directory"
    return None


def _input_clash(final: str, inputs: Sequence[str | os.PathLike], *, as_file: bool) -> str | None:
    """Why writing ``final`` (a resolved path) could replace an input, if it could: it is
    one (or, for a file, lies inside an input directory), or contains one."""
    for p in inputs:
        p = os.fspath(p)
        if not os.path.exists(p):
            continue  # the loader reports it
        shown = _show(p)
        real = os.path.realpath(p)
        try:
            same = os.path.samefile(final, p)
        except OSError:
            same = False
        if same or final in (real, os.path.abspath(p)):
            return f"is the input {shown}"
        if _contains(final, real) or _contains(final, os.path.abspath(p)):
            return f"contains the input {shown}"
        if as_file and os.path.isdir(p) and _contains(real, final):
            return f"is inside the input directory {shown}"
    return None


def _contains(ancestor: str, path: str) -> bool:
    """``path`` is ``ancestor`` or lies below it (both absolute)."""
    try:
        return os.path.commonpath([ancestor, path]) == ancestor
    except ValueError:
        return False


def _through_fd_table(path: str) -> bool:
    """``path`` leads through ``/proc/<pid>/fd/`` (``/dev/stdout``, ``/dev/fd/N``): it is an
    open file of this process, written in place whatever it is."""
    p = os.path.abspath(path)
    for _ in range(40):  # symbolic links followed one at a time
        head = os.path.dirname(p)
        if re.fullmatch(r"/proc/[^/]+/fd", os.path.realpath(head)):
            return True
        if not os.path.islink(p):
            return False
        p = os.path.normpath(os.path.join(head, os.readlink(p)))
    return False


def _stat(path: str, shown: str) -> os.stat_result | None:
    """``os.stat`` (through links), None if nothing is there; other errors are refusals."""
    try:
        return os.stat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise _write_error(f"-o {shown}", exc, "cannot look it up") from None


def _kind(st: os.stat_result) -> str:
    m = st.st_mode
    for test, name in (
        (stat.S_ISREG, "a file"),
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISLNK, "a symbolic link"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISFIFO, "a named pipe"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(m):
            return name
    return "not a regular file"


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _show(path: str) -> str:
    """A path as the user typed it, quoted when it would not read as one."""
    if path and path.isprintable() and path.strip() == path and len(path) <= 4096:
        return path
    return repr(path)


def _prefix(name: str) -> str:
    """Temporary names: hidden (input walks skip them), short enough for any file name."""
    return f".{name[:100]}."


def _what(fmt: str) -> str:
    return "file" if fmt in FILE_FORMATS else "directory"


def _is_arrow_error(exc: BaseException) -> bool:
    pa = sys.modules.get("pyarrow")
    return pa is not None and isinstance(exc, pa.ArrowException)


def _write_error(where: str, exc: BaseException, doing: str = "cannot write") -> InputError:
    """One line: where, what was being done, and the OS's (or encoder's) reason."""
    if isinstance(exc, InputError):
        return exc
    if isinstance(exc, OSError) and exc.strerror:
        reason = exc.strerror
    elif isinstance(exc, UnicodeError):
        reason = f"a name cannot be encoded as UTF-8 ({exc.reason})"
    else:
        reason = str(exc) or type(exc).__name__
    return InputError(f"{where}: {doing}: {reason}")


def _write_batches(
    schema: pa.Schema, batches: Iterable[pa.RecordBatch], path: str, fmt: str
) -> None:
    """Stream record batches into a Parquet file or an Arrow IPC file (Feather v2)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    if fmt == "parquet":
        with pq.ParquetWriter(path, schema) as writer:
            for batch in batches:
                writer.write_batch(batch)
    elif fmt == "csv":
        import pyarrow.csv as pcsv

        with pcsv.CSVWriter(path, schema) as writer:
            for batch in batches:
                writer.write_batch(batch)
    else:
        with pa.OSFile(path, "wb") as sink, pa.ipc.new_file(sink, schema) as writer:
            for batch in batches:
                writer.write_batch(batch)
