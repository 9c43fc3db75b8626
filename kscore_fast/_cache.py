"""Where compiled kernels are cached: a per-user directory, never the installed package.

numba's default locator writes ``*.nbi``/``*.nbc`` files next to the source, into
``site-packages/kscore_fast/**/__pycache__/``, where ``pip`` neither records nor removes
them (a leftover ``kscore_fast/`` folder then shadows a later editable install), and it
checks only the file that defines a kernel, not the helpers it calls from other files.
kscore_fast therefore caches its kernels under one root:

* ``KSCORE_CACHE_DIR`` if set, else ``$NUMBA_CACHE_DIR/kscore_fast`` if numba's own cache
  directory is set, else the user's cache directory (``~/.cache/kscore_fast`` on Linux);
* in a directory per kscore_fast version, numba version and package source hash
  (:func:`source_hash`: every ``*.py`` of the package, so any source change gives every
  kernel a fresh directory), mirroring the package's layout inside it;
* pruned when a new such directory is created: only the :data:`KEEP` most recently used
  ones stay. Nothing outside the root, and nothing inside it that is not named like one of
  these directories, is ever removed.

This module only decides directories; :mod:`kscore_fast._jit` registers the numba cache
locator that uses them. ``kscore cache info|clear`` reports on and empties the root.
"""

from __future__ import annotations

import contextlib
import functools
import glob
import hashlib
import importlib.util
import io
import os
import re
import shutil
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from . import __version__

#: the package's own directory (sources of every kernel)
PACKAGE_DIR = os.path.dirname(os.path.realpath(__file__))
#: versioned directories kept when pruning (the one in use among them)
KEEP = 3
#: kscore_fast version, numba version, first 16 hex digits of the source hash
_VERSIONED = re.compile(r"(?P<kscore>[^-/\\]+)-numba(?P<numba>[^-/\\]+)-(?P<hash>[0-9a-f]{16})")


@dataclass(frozen=True)
class CacheState:
    """The cache decision of this process, taken once when :mod:`kscore_fast._jit` loads."""

    root: str
    #: the versioned directory kernels are cached in, or None: caching is off
    directory: str | None
    #: why caching is off ("" when it is on)
    reason: str = ""


def cache_root() -> str:
    """The root of kscore_fast's kernel cache (which need not exist)."""
    root = os.environ.get("KSCORE_CACHE_DIR")
    if not root:
        numba_dir = os.environ.get("NUMBA_CACHE_DIR")
        if numba_dir:
            root = os.path.join(numba_dir, "kscore_fast")
        else:
            import platformdirs

            root = platformdirs.user_cache_dir("kscore_fast", appauthor=False)
    return os.path.abspath(os.path.expanduser(root))


def source_hash(package_dir: str = PACKAGE_DIR) -> str:
    """SHA-256 of every ``*.py`` under ``package_dir``: relative path and contents, in
    sorted path order (no timestamps, so a copy or reinstall of the same sources matches)."""
    files = []
    for dirpath, dirnames, filenames in os.walk(package_dir):
        dirnames[:] = [d for d in dirnames if d != "__pycache__"]
        rel = os.path.relpath(dirpath, package_dir)
        for name in filenames:
            if name.endswith(".py"):
                files.append(Path(rel, name).as_posix())
    h = hashlib.sha256()
    for rel in sorted(files):
        with open(os.path.join(package_dir, rel), "rb") as f:
            data = f.read()
        h.update(b"%s\0%d\0" % (rel.encode(), len(data)))
        h.update(data)
    return h.hexdigest()


@functools.cache
def package_source_hash() -> str:
    """:func:`source_hash` of the installed package, computed once per process."""
    return source_hash(PACKAGE_DIR)


@functools.cache
def module_stamp(module_name: str) -> str:
    """A stamp of the sources of the module ``module_name`` outside kscore_fast (an
    out-of-tree plugin's): :func:`source_hash` of its top-level package, or of its own
    file; "" for kscore_fast's own modules (the package hash covers them)."""
    top = module_name.partition(".")[0]
    if top == __name__.partition(".")[0]:
        return ""
    try:
        spec = importlib.util.find_spec(top)
    except ValueError:  # (a module without a spec: __main__ run as a script)
        spec = sys.modules[top].__spec__ if top in sys.modules else None
        origin = getattr(sys.modules.get(top), "__file__", None)
        if spec is None and origin and os.path.isfile(origin):
            with open(origin, "rb") as f:
                return "-" + hashlib.sha256(f.read()).hexdigest()[:16]
    origin = getattr(spec, "origin", None)
    if spec is None or not origin or not os.path.isfile(origin):
        return "-" + module_name
    if spec.submodule_search_locations:
        return "-" + source_hash(os.path.dirname(origin))[:16]
    with open(origin, "rb") as f:
        return "-" + hashlib.sha256(f.read()).hexdigest()[:16]


def versioned_name(numba_version: str, digest: str) -> str:
    return f"{__version__}-numba{numba_version}-{digest[:16]}"


def _versioned_dirs(root: str) -> list[os.DirEntry[str]]:
    """kscore_fast's own versioned directories directly under ``root`` (no symlinks)."""
    try:
        with os.scandir(root) as it:
            return [
                e for e in it if _VERSIONED.fullmatch(e.name) and e.is_dir(follow_symlinks=False)
            ]
    except OSError:
        return []


def _prune(root: str, in_use: str) -> None:
    """Remove the versioned directories beyond the :data:`KEEP` most recently used."""

    def last_used(e: os.DirEntry[str]) -> float:
        try:
            return e.stat(follow_symlinks=False).st_mtime
        except OSError:
            return 0.0

    others = sorted(
        (e for e in _versioned_dirs(root) if e.name != in_use), key=last_used, reverse=True
    )
    for e in others[KEEP - 1 :]:
        shutil.rmtree(e.path, ignore_errors=True)


def prepare(numba_version: str) -> CacheState:
    """Create (or reuse) this version's cache directory and check it is writable.

    Returns a state without directory (compile in memory only) when ``KSCORE_NUMBA_CACHE``
    is 0 or the directory cannot be created or written; in the latter case one warning
    line goes to stderr.
    """
    root = cache_root()
    if os.environ.get("KSCORE_NUMBA_CACHE", "1").lower() in ("0", "false", "no"):
        return CacheState(root, None, "KSCORE_NUMBA_CACHE=0")
    name = versioned_name(numba_version, package_source_hash())
    directory = os.path.join(root, name)
    try:
        os.makedirs(root, exist_ok=True)
        try:
            os.mkdir(directory)
            created = True
        except FileExistsError:
            created = False
            os.utime(directory)  # mark as recently used, for pruning
        probe = os.path.join(directory, f".probe-{os.getpid()}")
        os.close(os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600))
        os.unlink(probe)
    except OSError as exc:
        where = f"{exc.filename}: " if exc.filename else ""
        reason = f"cannot write the kernel cache in {root} ({where}{exc.strerror or exc})"
        print(
            f"kscore: warning: {reason}; compiled kernels will not be cached "
            "(set KSCORE_CACHE_DIR to a writable directory, or KSCORE_NUMBA_CACHE=0)",
            file=sys.stderr,
        )
        return CacheState(root, None, reason)
    if created:
        _prune(root, name)
    return CacheState(root, directory)


def kernel_cache_path(state: CacheState, py_file: str) -> str | None:
    """Where the kernels of source file ``py_file`` are cached: the package-relative
    directory of the file inside the versioned directory; None for files outside the
    package or when caching is off."""
    if state.directory is None or not os.path.isfile(py_file):  # e.g. "<string>"
        return None
    try:
        rel = os.path.relpath(os.path.realpath(py_file), PACKAGE_DIR)
    except ValueError:  # another drive
        return None
    if rel == os.pardir or rel.startswith(os.pardir + os.sep) or os.path.isabs(rel):
        return None
    return os.path.join(state.directory, os.path.dirname(rel))


def discard_entry(index_path: str) -> str:
    """Remove one kernel's cache entry (numba's index file ``*.nbi`` and its data files
    ``*.<n>.nbc``); what was done, for a message."""
    stem = index_path[: -len(".nbi")] if index_path.endswith(".nbi") else index_path
    removed = 0
    for path in [index_path, *glob.glob(glob.escape(stem) + ".*.nbc")]:
        with contextlib.suppress(OSError):
            os.unlink(path)
            removed += 1
    return f"its {removed} files removed"


@contextlib.contextmanager
def garbage_tolerant() -> Iterator[None]:
    """Around unpickling bytes that may be garbage: CPython prints (not raises) a
    ``SystemError`` when such bytes leave a bytearray with a buffer exported; that line is
    dropped, whatever else was written to stderr meanwhile is passed on."""
    caught = io.StringIO()
    with contextlib.redirect_stderr(caught):
        yield
    kept = [line for line in caught.getvalue().splitlines(keepends=True)
            if "deallocated bytearray object has exported buffers" not in line]  # fmt: skip
    if kept:
        sys.stderr.write("".join(kept))


def unreadable_entries(directory: str) -> list[str]:
    """The cache files under ``directory`` that do not unpickle as numba wrote them (an
    index: its version, then its stamp and overloads; a data file: one pickle)."""
    import pickle

    bad = []
    for dirpath, _, filenames in os.walk(directory):
        for name in sorted(filenames):
            path = os.path.join(dirpath, name)
            if not name.endswith((".nbi", ".nbc")):
                continue
            try:
                with open(path, "rb") as f, garbage_tolerant():
                    if name.endswith(".nbi"):
                        pickle.load(f)
                    pickle.loads(f.read())
            except Exception:  # (anything the bytes give)
                bad.append(path)
    return bad


def _du(path: str) -> tuple[int, int]:
    """(bytes, files) under ``path``, not following symlinks."""
    size = files = 0
    for dirpath, _, filenames in os.walk(path):
        for name in filenames:
            try:
                size += os.lstat(os.path.join(dirpath, name)).st_size
            except OSError:
                continue
            files += 1
    return size, files


def _human(n: float) -> str:
    for unit in ("B", "KiB", "MiB"):
        if n < 1024 or unit == "MiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    raise AssertionError  # unreachable


def info(state: CacheState) -> str:
    """``kscore cache info``: the root, the directory in use, each versioned directory."""
    lines = [f"cache root: {state.root}"]
    if state.directory is None:
        lines.append(f"in use: none, caching disabled ({state.reason})")
    else:
        lines.append(f"in use: {state.directory}")
    dirs = sorted(_versioned_dirs(state.root), key=lambda e: e.name)
    if not dirs:
        lines.append("no cached kernels")
    for e in dirs:
        size, files = _du(e.path)
        mark = "  (in use)" if state.directory and e.path == state.directory else ""
        lines.append(f"  {e.name}  {_human(size)}  {files} files{mark}")
    if state.directory is not None and os.path.isdir(state.directory):
        bad = unreadable_entries(state.directory)
        lines.append(
            f"entries in use: {len(bad)} unreadable (each is compiled again when it is "
            f"next needed; `kscore cache clear` removes every entry), e.g. {bad[0]}"
            if bad else "entries in use: all readable"
        )  # fmt: skip
    return "\n".join(lines)


def clear(state: CacheState) -> str:
    """``kscore cache clear``: remove kscore_fast's versioned directories (and the root,
    when nothing else is left in it); return what was freed."""
    freed = removed = 0
    for e in _versioned_dirs(state.root):
        freed += _du(e.path)[0]
        shutil.rmtree(e.path, ignore_errors=True)
        removed += 1
    with contextlib.suppress(OSError):  # absent, or holds files that are not ours
        os.rmdir(state.root)
    return f"removed {removed} cache directories under {state.root}, freed {_human(freed)}"
