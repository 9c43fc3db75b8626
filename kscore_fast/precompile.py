"""Compiling ahead, in parallel processes: what each use of the kernels compiles, and
processes that share the work.

* ``signatures.json`` lists, per use of :mod:`.warmup` (``score``, ``simulate``,
  ``simulator``), the kernels its workload compiles (module, qualified name, signature),
  in the order it compiles them. ``python -m kscore_fast.precompile --record`` writes it;
  a test checks that it holds every kernel the workloads compile.
* A *job* is one kernel of that list, or one entry point of a plugin (its state type
  from ``empty_state()``): running it compiles the kernel for its signature, or loads it
  from the kernel cache.
* Every kernel compiles under a lock file beside its cache entry (``_jit._Dispatcher``):
  processes working through the same jobs in different orders share them, and none is
  compiled twice.

``kscore warmup`` runs every use's jobs for the whole in-tree profile in several
processes (each starting at another point of the list), then the workloads themselves.
A command that starts cold (``kscore score``/``simulate``: some job of its use and
profile is not cached) starts one *helper* process that works through the jobs from the
end while the command works from the start (:func:`start_helper`); the command stops it
when it is done.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

SIGNATURES = Path(__file__).with_name("signatures.json")
#: this module, as ``python -m`` runs it
MODULE = "kscore_fast.precompile"
#: a job: ("kernel", module, qualified name, signature) or ("entry", plugin name, column)
Job = tuple[Any, ...]


def kernel_jobs(uses: Iterable[str]) -> list[Job]:
    """The kernels of ``uses``, each once, in the order the first use compiles them."""
    try:
        recorded = json.loads(SIGNATURES.read_text())
    except (OSError, ValueError):  # (missing or damaged: the commands compile as they go)
        return []
    seen: dict[tuple[str, str, str], None] = {}
    for use in uses:
        for module, qualname, sig in recorded.get(use, []):
            seen.setdefault((module, qualname, sig), None)
    return [("kernel", *key) for key in seen]


def entry_jobs(plugins: Iterable[str], uses: Iterable[str]) -> list[Job]:
    """The entry points ``uses`` need of each plugin of ``plugins``."""

    columns: dict[int, None] = {}
    for use in uses:
        batch = use == "score"
        from .framework.runtime import _Run
        from .framework.simulation import _Sequence

        for c in _Run.COLUMNS if batch else _Sequence.COLUMNS:
            columns.setdefault(c, None)
    return [("entry", name, c) for name in plugins for c in columns]


def profile_plugins(config: Any = None, plugins: str | None = None) -> list[str]:
    """The plugin names of a command's profiles: ``--plugins``' score plugins, a
    configuration's filter and score plugins, or the default profile's."""
    if plugins is not None:
        from .profile import parse_plugins

        return [name for name, _ in parse_plugins(plugins)]
    if config is None:
        from .config.load import default_config

        config = default_config("v1beta3")
    names: dict[str, None] = {}
    for prof in config.profiles:
        for name in [*prof.enabled("filter"), *(n for n, _ in prof.score_plugins())]:
            names.setdefault(name, None)
    return list(names)


def run_job(job: Job) -> None:
    """Compile the job's kernel (or load it from the cache); a job that no longer applies
    (a kernel renamed since ``signatures.json`` was written, a plugin unknown here) is
    skipped."""
    if job[0] == "kernel":
        found = _kernel(job[1], job[2])
        if found is not None:
            found.compile(_signature(job[3]))
        return
    made = _entry(job[1], job[2])
    if made is not None:
        from ._native import compile_packer
        from .framework.entries import entry_address

        entry_address(*made)
        compile_packer(made[1])  # (its compiled packer: loaded once, with its first column)


def cached(job: Job) -> bool:
    """Whether the job's kernel has an entry in the kernel cache (or nothing to compile)."""
    if job[0] == "kernel":
        found = _kernel(job[1], job[2])
        path = None if found is None else found.index_path()
    else:
        made = _entry(job[1], job[2])
        if made is None:
            return True
        from .framework.entries import built_column, entry_kernel

        plugin, state_type, column = made
        kernel = entry_kernel(plugin, state_type, built_column(plugin, column))
        path = None if kernel is None else kernel[0].index_path()
    return path is None or os.path.exists(path)


def _kernel(module: str, qualname: str) -> Any:
    """The registered kernel ``module.qualname`` (None: there is none)."""
    from importlib import import_module

    from . import _jit

    with contextlib.suppress(ImportError):
        import_module(module)
    for k in _jit.REGISTERED:
        if k.py_func.__module__ == module and k.py_func.__qualname__ == qualname:
            return k
    return None


def _entry(name: str, column: int) -> tuple[Any, Any, int] | None:
    """(plugin, state type, column) for the entry job, from the plugin's ``empty_state``."""
    from ._native import state_type
    from .plugins.registry import plugin_class

    try:
        cls = plugin_class(name)
    except Exception:  # (a broken out-of-tree plugin: the command itself reports it)
        return None
    if cls is None:
        return None
    plugin = cls()
    state = plugin.empty_state()
    return None if state is None else (plugin, state_type(state), column)


def _signature(text: str) -> tuple[Any, ...]:
    """A signature written by :func:`record` (``repr`` of numba types), read back."""
    from numba.core import types

    names = {k: v for k, v in vars(types).items() if not k.startswith("_")}
    names["bool"] = types.boolean
    return tuple(eval(text, {"__builtins__": {}}, names))  # (our own file: see record)


# -- processes -------------------------------------------------------------------------------


def run_jobs(jobs: Sequence[Job], progress: Callable[[int], None] | None = None) -> None:
    for job in jobs:
        run_job(job)
        if progress is not None:
            progress(1)


def rotated(jobs: Sequence[Job], k: int, n: int) -> list[Job]:
    """Process ``k`` of ``n``'s order: the jobs from its own starting point on, wrapping;
    the last one (a cold start's helper) goes backwards from the end."""
    if n > 1 and k == n - 1:
        return list(reversed(jobs))
    start = len(jobs) * k // max(n, 1)
    return [*jobs[start:], *jobs[:start]]


def spawn(jobs_args: Sequence[str]) -> subprocess.Popen[bytes]:
    """A background process of this module running the jobs ``jobs_args`` selects."""
    return subprocess.Popen(
        [sys.executable, "-m", MODULE, *jobs_args],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        env=os.environ.copy(),
    )  # fmt: skip


def stop(proc: subprocess.Popen[bytes] | None) -> None:
    """Stop a helper (its compilations so far stay cached: numba replaces files whole)."""
    if proc is None or proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


@contextlib.contextmanager
def helper(use: str, plugins: Sequence[str], notice: Callable[[str], None] | None,
           modules: Sequence[str] = ()) -> Iterator[bool]:  # fmt: skip
    """While the block runs, a helper process compiles the kernels of ``use`` and
    ``plugins`` from the end of the list, when some of them are not cached and there is
    a second core (it imports ``modules`` first: they register out-of-tree plugins);
    ``notice`` is told so. Yields whether the start is cold."""
    marker = _warm_marker(use, plugins)
    if marker is not None and os.path.exists(marker):
        yield False
        return
    jobs = job_list([use], plugins)
    missing = [job for job in jobs if not cached(job)]
    cold = bool(missing)
    proc = None
    if cold and (os.cpu_count() or 1) > 1:
        extra = [arg for m in modules for arg in ("--module", m)]
        proc = spawn(["--use", use, "--plugins", ",".join(plugins), *extra, "--part", "1/2"])
    # said when a kernel every run needs is missing, not for the parallel variants only
    # (large batches need them; the helper goes on compiling them at the next starts)
    if notice is not None and any(not _parallel(job) for job in missing):
        notice("compiling kernels for first use (cached afterwards)…")
    try:
        yield cold
    finally:
        stop(proc)
    if marker is not None and all(cached(job) for job in jobs):
        with contextlib.suppress(OSError):
            Path(marker).touch()


def _warm_marker(use: str, plugins: Sequence[str]) -> str | None:
    """A file in the kernel cache saying every job of ``use`` and ``plugins`` is cached
    (a warm start then checks nothing else); None when caching is off."""
    import hashlib

    from ._jit import CACHE

    if CACHE.directory is None:
        return None
    digest = hashlib.sha256(",".join([use, *plugins]).encode()).hexdigest()[:16]
    return os.path.join(CACHE.directory, f"warm-{use}-{digest}")


def job_list(uses: Sequence[str], plugins: Sequence[str]) -> list[Job]:
    """The jobs of ``uses`` for a profile of ``plugins``: the kernels' parallel variants,
    the plugins' entry points, then the other kernels (the framework's, and those of the
    plugins' own packages)."""
    from .plugins.registry import plugin_class

    packages = {"kscore_fast.framework", "kscore_fast.model", "kscore_fast.plugins.helper",
                "kscore_fast.io"}  # fmt: skip
    for name in plugins:
        with contextlib.suppress(Exception):
            cls = plugin_class(name)
            if cls is not None:
                packages.add(cls.__module__.rpartition(".")[0])
    kernels = [j for j in kernel_jobs(uses) if any(j[1].startswith(p) for p in packages)]
    # the parallel variants first: a helper, working from the end, reaches them last (a
    # small first run needs none of them)
    parallel = [j for j in kernels if _parallel(j)]
    serial = [j for j in kernels if not _parallel(j)]
    return [*parallel, *entry_jobs(plugins, uses), *serial]


def _parallel(job: Job) -> bool:
    """The job is a kernel's parallel variant (only large batches call those)."""
    return job[0] == "kernel" and job[2].endswith("_parallel")


def warmup_plugins() -> list[str]:
    """The plugins ``kscore warmup`` compiles: in-tree, registered in this process, and
    declared by installed packages."""
    from .plugins.registry import IN_TREE, OUT_OF_TREE, _entry_points, plugin_class

    for name in _entry_points():
        with contextlib.suppress(Exception):  # (a broken one is reported when used)
            plugin_class(name)
    return [*IN_TREE, *OUT_OF_TREE]


def warmup(processes: int = 2, progress: Callable[[int], None] | None = None,
           modules: Sequence[str] = ()) -> int:  # fmt: skip
    """``kscore warmup``: every use's jobs for every plugin of :func:`warmup_plugins`
    (after importing ``modules``, which register theirs), in ``processes`` processes, then
    every use's workload in this one (whatever the list missed). Returns how many jobs
    there were."""
    from . import warmup as workload

    plugins = warmup_plugins()
    jobs = job_list(workload.USES, plugins)
    extra = [arg for m in modules for arg in ("--module", m)]
    procs = [spawn(["--all", *extra, "--part", f"{k}/{processes}"])
             for k in range(1, processes)]  # fmt: skip
    try:
        run_jobs(rotated(jobs, 0, processes), progress)
        for proc in procs:
            proc.wait()
        for use in workload.USES:
            workload.run(use)
    finally:
        for proc in procs:
            stop(proc)
    return len(jobs)


# -- recording ---------------------------------------------------------------------------------


def record_use(use: str) -> list[list[str]]:
    """The registered kernels ``use``'s workload compiles in this (fresh) process, in order."""
    from . import _jit
    from . import warmup as workload

    workload.run(use)
    registered = {id(k) for k in _jit.REGISTERED}
    out: list[list[str]] = []
    for kernel, args in _jit.COMPILED:
        if id(kernel) in registered:
            entry = [kernel.py_func.__module__, kernel.py_func.__qualname__, repr(args)]
            if _signature(entry[2]) != args:
                raise AssertionError(f"{entry}: its signature does not read back")
            if entry not in out:
                out.append(entry)
    return out


def record() -> None:
    """Write ``signatures.json``: each use recorded in a fresh process."""
    from . import warmup as workload

    out = {}
    for use in workload.USES:
        proc = subprocess.run([sys.executable, "-m", MODULE, "--record-use", use],
                              capture_output=True, text=True, check=True)  # fmt: skip
        out[use] = json.loads(proc.stdout)
    text = json.dumps(out, indent=1)
    SIGNATURES.write_text(text.replace("\n   ", " ").replace("\n  ]", " ]") + "\n")


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog=f"python -m {MODULE}", description=__doc__.splitlines()[0])
    ap.add_argument("--record", action="store_true", help="write signatures.json")
    ap.add_argument("--record-use", metavar="USE", help="print what USE compiles (JSON)")
    ap.add_argument("--use", action="append", default=[], help="run USE's jobs")
    ap.add_argument("--all", action="store_true", help="every use, every in-tree plugin")
    ap.add_argument("--plugins", default="", help="the profile's plugins, comma-separated")
    ap.add_argument("--part", default="0/1", metavar="K/N", help="process K of N's order")
    ap.add_argument("--module", action="append", default=[], help="import it first")
    args = ap.parse_args(argv)
    from importlib import import_module

    for module in args.module:
        import_module(module)
    if args.record:
        record()
        return 0
    if args.record_use:
        print(json.dumps(record_use(args.record_use)))
        return 0
    from . import warmup as workload

    uses = list(workload.USES) if args.all else args.use
    plugins = warmup_plugins() if args.all else [p for p in args.plugins.split(",") if p]
    k, n = (int(x) for x in args.part.split("/"))
    run_jobs(rotated(job_list(uses, plugins), k, n))
    return 0


if __name__ == "__main__":
    sys.exit(main())
