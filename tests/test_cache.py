"""The compiled-kernel cache: a versioned per-user directory, never the installed package."""

from __future__ import annotations

import inspect
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from numba.core.caching import NullCache

from kscore_fast import _cache, _jit
from kscore_fast.cli import main
from kscore_fast.plugins.selectorspread import kernels as ss_kernels

ROOT = Path(__file__).resolve().parents[1]
EMBEDDED = ROOT / "data" / "embedded"
PACKAGE = Path(_cache.PACKAGE_DIR)


def _env(**extra: str) -> dict[str, str]:
    """The environment of a child process, without cache settings or PYTHONPATH."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("KSCORE_CACHE_DIR", "KSCORE_NUMBA_CACHE", "NUMBA_CACHE_DIR", "PYTHONPATH")
    }
    return {**env, **extra}


def _state(root: Path) -> _cache.CacheState:
    return _cache.CacheState(str(root), str(root / _cache.versioned_name("9.9", "f" * 64)))


def test_locator_claims_package_kernels_under_the_configured_root(tmp_path, monkeypatch):
    state = _state(tmp_path)
    monkeypatch.setattr(_jit, "CACHE", state)
    fn = ss_kernels.selector_groups.py_func
    locator = _jit.PackageCacheLocator.from_function(fn, inspect.getfile(fn))
    assert locator is not None
    # the package layout is mirrored: no clash between same-named modules
    expected = Path(state.directory, "plugins", "selectorspread")
    assert Path(locator.get_cache_path()) == expected
    locator.ensure_cache_path()
    assert expected.is_dir()
    assert locator.get_source_stamp() == _cache.package_source_hash()
    # functions outside the package are left to numba's own locators
    assert _jit.PackageCacheLocator.from_function(_env, __file__) is None
    assert _jit.PackageCacheLocator.from_function(fn, str(PACKAGE / "<string>")) is None
    # ... and nothing is claimed when caching is off
    monkeypatch.setattr(_jit, "CACHE", _cache.CacheState(str(tmp_path), None, "off"))
    assert _jit.PackageCacheLocator.from_function(fn, inspect.getfile(fn)) is None


def test_registered_kernels_use_the_versioned_directory():
    from numba.core import caching

    impl = getattr(caching, "CacheImpl", None) or caching._CacheImpl
    assert impl._locator_classes[0] is _jit.PackageCacheLocator
    if _jit.CACHE.directory is None:
        assert all(k.index_path() is None for k in _jit.REGISTERED)
        assert all(isinstance(k._cache, NullCache) for k in _jit.REGISTERED)
        pytest.skip(f"caching is off in this run: {_jit.CACHE.reason}")
    for k in _jit.REGISTERED:
        assert Path(k.index_path()).is_relative_to(_jit.CACHE.directory)  # (set up on first use)
        assert isinstance(k._cache._impl.locator, _jit.PackageCacheLocator)
        assert Path(k._cache.cache_path).is_relative_to(_jit.CACHE.directory)
        assert not Path(k._cache.cache_path).is_relative_to(PACKAGE)


def test_source_stamp_follows_every_package_file(tmp_path, monkeypatch):
    copy = tmp_path / "kscore_fast"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    before = _cache.source_hash(str(copy))
    assert len(before) == 64

    # timestamps, non-Python files and the copy's location do not matter
    helper = copy / "plugins" / "helper" / "grouping.py"
    os.utime(helper, (1, 1))
    (copy / "notes.txt").write_text("x")
    assert _cache.source_hash(str(copy)) == before
    elsewhere = shutil.copytree(copy, tmp_path / "elsewhere" / "pkg")
    assert _cache.source_hash(str(elsewhere)) == before

    # the stamp numba compares for a kernel follows the whole package, so editing the
    # helper that selector_groups calls (another file) invalidates selector_groups too
    monkeypatch.setattr(_cache, "package_source_hash", lambda: _cache.source_hash(str(copy)))
    fn = ss_kernels.selector_groups.py_func
    locator = _jit.PackageCacheLocator(fn, str(tmp_path))
    assert locator.get_source_stamp() == before
    helper.write_text(helper.read_text() + "\n# changed\n")
    changed = locator.get_source_stamp()
    assert changed != before
    (copy / "model" / "new_module.py").write_text("")
    assert _cache.source_hash(str(copy)) not in (before, changed)


def test_source_hash_is_fast():
    import time

    t0 = time.perf_counter()
    _cache.source_hash()
    assert time.perf_counter() - t0 < 0.1


def test_unwritable_cache_dir_warns_once_and_disables_caching(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    code = (
        "import kscore_fast._jit as j, kscore_fast.api; "
        "from numba.core.caching import NullCache; "
        "print(j.CACHE.directory, len(j.REGISTERED) > 0, "
        "all(isinstance(k._cache, NullCache) for k in j.REGISTERED))"
    )
    done = subprocess.run(
        [sys.executable, "-W", "error", "-c", code],
        env=_env(KSCORE_CACHE_DIR=str(blocker / "sub"), PYTHONPATH=str(ROOT)),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["None", "True", "True"]
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("kscore: warning: ")
    assert str(blocker) in lines[0] and "KSCORE_CACHE_DIR" in lines[0]


def _versioned(root: Path, digest: str, mtime: float) -> Path:
    d = root / _cache.versioned_name("0.0", digest * 16)
    (d / "framework").mkdir(parents=True)
    (d / "framework" / "kernels.f-1.py311.nbi").write_bytes(b"x")
    os.utime(d, (mtime, mtime))
    return d


def test_new_directory_prunes_all_but_the_most_recently_used(tmp_path, monkeypatch):
    monkeypatch.setenv("KSCORE_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("KSCORE_NUMBA_CACHE", raising=False)
    old = [_versioned(tmp_path, c, 1000 + i) for i, c in enumerate("abcde")]
    foreign = tmp_path / "not-ours"
    foreign.mkdir()
    (tmp_path / "a-file").write_text("")

    state = _cache.prepare("0.0")
    assert state.directory is not None and Path(state.directory).is_dir()
    kept = sorted(p.name for p in tmp_path.iterdir())
    expected = sorted(["not-ours", "a-file", Path(state.directory).name, old[3].name, old[4].name])
    assert kept == expected
    assert len([n for n in kept if "-numba" in n]) == _cache.KEEP

    # an existing directory is marked used, and nothing is pruned
    os.utime(state.directory, (1, 1))
    _versioned(tmp_path, "0", 5000)
    assert _cache.prepare("0.0") == state
    assert os.stat(state.directory).st_mtime > 5000
    assert len(list(tmp_path.iterdir())) == 6


def test_cache_info_and_clear(tmp_path, monkeypatch, capsys):
    root = tmp_path / "root"
    monkeypatch.setattr(_jit, "CACHE", _state(root))
    # the root need not exist
    assert main(["cache", "info"]) == 0
    out = capsys.readouterr().out
    assert f"cache root: {root}" in out and "no cached kernels" in out
    assert main(["cache", "clear"]) == 0
    assert "removed 0 cache directories" in capsys.readouterr().out

    in_use = Path(_jit.CACHE.directory)
    in_use.mkdir(parents=True)
    (in_use / "k.nbc").write_bytes(b"x" * 2048)
    other = _versioned(root, "1", 1000)
    assert main(["cache", "info"]) == 0
    out = capsys.readouterr().out
    assert f"in use: {in_use}" in out
    assert f"{in_use.name}  2.0 KiB  1 files  (in use)" in out
    assert f"{other.name}  1 B  1 files" in out

    assert main(["cache", "clear"]) == 0
    assert "removed 2 cache directories" in capsys.readouterr().out
    assert not root.exists()

    # only kscore_fast's own directories are removed, never the rest of the root
    (root / "notes").mkdir(parents=True)
    _versioned(root, "2", 1000)
    assert main(["cache", "clear"]) == 0
    assert [p.name for p in root.iterdir()] == ["notes"]

    monkeypatch.setattr(_jit, "CACHE", _cache.CacheState(str(root), None, "KSCORE_NUMBA_CACHE=0"))
    assert main(["cache", "info"]) == 0
    assert "caching disabled (KSCORE_NUMBA_CACHE=0)" in capsys.readouterr().out


def _run(cmd: list[str | Path], env: dict[str, str], cwd: Path) -> str:
    done = subprocess.run(
        [str(c) for c in cmd], env=env, cwd=cwd, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, (cmd, done.stdout[-2000:], done.stderr[-2000:])
    return done.stdout


def _cache_files(path: Path) -> list[Path]:
    return [p for p in path.rglob("*") if p.suffix in (".nbi", ".nbc")]


#: the kernel the installed package must compile itself (see :func:`_seed_cache`)
_LEFT_OUT = "selection.select_copies-"


def _seed_cache(cache: Path) -> bool:
    """Copy this run's compiled kernels of ``kscore score EMBEDDED`` into ``cache`` (the
    sources are the same, so is the versioned directory), all but one small kernel
    (:data:`_LEFT_OUT`): the installed package then loads most of them and must compile
    and write that one, where it keeps its cache. A cold compile of the whole profile
    takes minutes. False when this run does not cache (then everything is compiled)."""
    if _jit.CACHE.directory is None:
        return False
    assert main(["score", str(EMBEDDED), "--quiet", "--scores", "none", "-o",
                 str(cache.parent / "warm.json")]) == 0  # fmt: skip
    here = Path(_jit.CACHE.directory)
    shutil.copytree(here, cache / here.name,
                    ignore=lambda _d, names: [n for n in names if _LEFT_OUT in n])  # fmt: skip
    return True


def _nested_venv(venv: Path, cwd: Path) -> Path:
    """A venv at ``venv`` that sees the packages of the running interpreter's environment
    (numpy, numba, ...): a venv's ``--system-site-packages`` would show the *base*
    interpreter's instead, which lacks them when the tests run in a venv (or in a venv
    made from a venv). Its own site-packages comes first, as with that flag."""
    import site
    import sysconfig

    _run([sys.executable, "-m", "venv", venv], _env(), cwd)
    bindir = venv / ("Scripts" if os.name == "nt" else "bin")
    outer = [*site.getsitepackages(), sysconfig.get_path("purelib"), sysconfig.get_path("platlib")]
    if site.ENABLE_USER_SITE:
        outer.append(site.getusersitepackages())
    paths = list(dict.fromkeys(p for p in outer if os.path.isdir(p)))
    purelib = "import sysconfig; print(sysconfig.get_path('purelib'))"
    inner = Path(_run([bindir / "python", "-c", purelib], _env(), cwd).strip())
    (inner / "_outer_environment.pth").write_text("".join(f"{p}\n" for p in paths))
    return bindir


def test_install_editable_upgrade_uninstall_leave_nothing_behind(tmp_path):
    """Issue #6: ~30 s (a venv, three installs, one kernel compiled)."""
    src = tmp_path / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    ignore = shutil.ignore_patterns("__pycache__")
    shutil.copytree(ROOT / "kscore_fast", src / "kscore_fast", ignore=ignore)
    venv = tmp_path / "venv"
    bindir = _nested_venv(venv, tmp_path)
    python, kscore = bindir / "python", bindir / "kscore"
    cache = tmp_path / "cache"
    env = _env(KSCORE_CACHE_DIR=str(cache), PIP_DISABLE_PIP_VERSION_CHECK="1")
    purelib = "import sysconfig; print(sysconfig.get_path('purelib'))"
    site = Path(_run([python, "-c", purelib], env, tmp_path).strip())
    pip = [python, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation"]
    # PEP 639 license metadata needs setuptools >= 77 (the isolated build would fetch it)
    _run([python, "-m", "pip", "install", "--quiet", "setuptools>=77"], env, tmp_path)

    def where() -> Path:
        out = _run([python, "-c", "import kscore_fast; print(kscore_fast.__file__)"], env, tmp_path)
        return Path(out.strip())

    def score() -> None:
        out = _run([kscore, "score", EMBEDDED, "--quiet", "--scores", "none"], env, tmp_path)
        assert len(json.loads(out)["results"]) == 40

    seeded = _seed_cache(cache)
    _run([*pip, src], env, tmp_path)
    assert where().is_relative_to(site)
    score()
    compiled = sorted(_cache_files(cache))
    assert compiled, "kernels were not cached in KSCORE_CACHE_DIR"
    if seeded:  # the left-out kernel was compiled into KSCORE_CACHE_DIR
        assert len([p for p in compiled if _LEFT_OUT in p.name]) == 2, compiled
    assert _cache_files(venv) == [] and _cache_files(src) == []

    _run([*pip, "-e", src], env, tmp_path)
    assert where() == src / "kscore_fast" / "__init__.py"
    score()  # same sources, another path: the same cache entries, nothing recompiled
    assert sorted(_cache_files(cache)) == compiled
    assert _cache_files(venv) == [] and _cache_files(src) == []

    for f in (src / "pyproject.toml", src / "kscore_fast" / "__init__.py"):
        f.write_text(f.read_text().replace('"0.1.0"', '"0.1.1"', 1))
    _run([*pip, src], env, tmp_path)  # upgrade, over the editable install
    assert where().is_relative_to(site)
    assert _run([kscore, "--version"], env, tmp_path).strip() == "kscore_fast 0.1.1"
    assert "0.1.1-numba" in _run([kscore, "cache", "info"], env, tmp_path)
    assert _cache_files(venv) == []

    _run([python, "-m", "pip", "uninstall", "--quiet", "-y", "kscore_fast"], env, tmp_path)
    assert [p for p in site.rglob("*") if "kscore" in p.name.lower()] == []
    assert not kscore.exists()


def test_an_unreadable_entry_is_discarded_and_compiled_again(tmp_path, monkeypatch, capsys):
    """A cache entry left truncated or overwritten (a full disk, a crash mid-write) is
    found by ``kscore cache info``, and the next use compiles the kernel again with one
    warning line, never an unpickling traceback (issue 28, item 6)."""
    import numpy as np

    from kscore_fast.framework import search

    state = _state(tmp_path)
    os.makedirs(state.directory)
    monkeypatch.setattr(_jit, "CACHE", state)
    monkeypatch.setattr(_jit, "_discarded", [])
    fn = search.windows_pod.py_func
    args = (np.int64(-1), np.int64(3), np.int64(4), np.int64(6), np.zeros(4, np.int32))
    first = _jit._jitted(fn)
    want = first(*args)
    index = Path(first.index_path())
    files = [index, *index.parent.glob(index.name[: -len(".nbi")] + ".*.nbc")]
    assert len(files) >= 2 and _cache.unreadable_entries(state.directory) == []
    files[0].write_bytes(b"")  # truncated
    for f in files[1:]:
        f.write_bytes(os.urandom(64))  # overwritten
    assert sorted(_cache.unreadable_entries(state.directory)) == sorted(map(str, files))
    assert f"entries in use: {len(files)} unreadable" in _cache.info(state)
    capsys.readouterr()
    again = _jit._jitted(fn)
    assert again(*args) == want
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and "a kernel cache entry could not be read" in err[0], err
    assert "compiling again" in err[0]
    assert _cache.unreadable_entries(state.directory) == []  # written anew
    assert "entries in use: all readable" in _cache.info(state)
