"""A sweep's runs on Ray (``pip install 'kscore_fast[ray]'``): ``sweep(..., ray=...)``,
``kscore sweep SPEC --ray [ADDRESS]``.

This process (the driver) loads each snapshot once and puts it in Ray's object store:
``ray.put`` pickles the loaded :class:`~kscore_fast.model.snapshot.Cluster` with
protocol 5, its NumPy columns as out-of-band buffers that a worker maps read-only from
the store instead of copying them (its records, Python objects, are unpickled). The
configurations go as their documents' bytes (:func:`~kscore_fast.sweep_runs.parsed_config`),
so no worker reads a file.

One actor per CPU of the cluster (at most ``jobs``, at most one per run) runs the runs,
each handed to the next actor free. An actor is one worker process for the whole sweep:
it fetches a snapshot the first time one of its runs needs it and keeps it, and loads
the compiled kernels once, at its first run, from the kernel cache the driver uses: a
local Ray's workers have the driver's environment; on a cluster, the driver's ``KSCORE_*``
and ``NUMBA_CACHE_DIR`` variables go to the actors as ``runtime_env`` variables (which
costs ~1 s: Ray starts workers for them instead of taking its idle ones). Before any run,
each actor says which kscore_fast it imports (the hash of its sources): workers with
other sources could give other results, and are refused.

``ray=True`` starts a local Ray (``ray.init``: ``jobs`` CPUs, default every core; no
dashboard) unless this process is connected already; an address (``host:port``, as
``ray start --head`` prints it) connects to that cluster, after a plain TCP connection
to it has succeeded, so that a wrong address fails in seconds, not after Ray's minutes
of retries. A connection opened here is closed at the end, and the actors are ended.
"""

from __future__ import annotations

import logging
import os
import socket
from collections.abc import Iterator, Sequence
from typing import Any

from .errors import InputError, KScoreError, UnsupportedError
from .sweep_runs import RunOutput, Spec, Work, parsed_config, run_one

#: how long the address is tried before Ray is asked to connect
CONNECT_TIMEOUT = 5.0


def ray_module() -> Any:
    """``ray``, or an error saying how to install it."""
    try:
        import ray
    except ImportError:
        raise UnsupportedError(
            "Ray is not installed: pip install 'kscore_fast[ray]' (or run without --ray)"
        ) from None
    return ray


class SweepWorker:
    """A Ray actor (one worker process) running runs of one sweep."""

    def __init__(self, snapshots: list[Any]) -> None:
        #: the snapshots' object references (in a list: Ray hands them over unresolved)
        self.snapshots = snapshots
        self.clusters: dict[int, Any] = {}

    def identity(self) -> tuple[str, str]:
        """Where this worker's kscore_fast is, and the hash of its sources."""
        from . import __file__ as where
        from ._cache import package_source_hash

        return where, package_source_hash()

    def run(self, spec: Spec, work: Work) -> RunOutput:
        run, snapshot, config = work
        cluster = self.clusters.get(snapshot)
        if cluster is None:
            import ray

            cluster = self.clusters[snapshot] = ray.get(self.snapshots[snapshot])
        return run_one(spec, run, None if config is None else parsed_config(*config), cluster)


def ray_results(spec: Spec, work: Sequence[Work], target: bool | str,
                jobs: int | None) -> Iterator[RunOutput]:  # fmt: skip
    """The runs' results on Ray (``target``: True or an address), as they finish."""
    from ._cache import package_source_hash
    from .api import load_cluster

    ray = ray_module()
    clusters = [load_cluster(paths, expand_workloads=spec.expand_workloads)
                for paths in spec.snapshots]  # fmt: skip
    local = target is True and not ray.is_initialized()  # (its workers have our environment)
    opened = _connect(ray, target, jobs)
    actors: list[Any] = []
    try:
        refs = [ray.put(cluster) for cluster in clusters]
        del clusters[:]
        cpus = int(ray.cluster_resources().get("CPU", 0))
        if cpus < 1:
            raise InputError("Ray: the cluster has no CPU to run on")
        worker = ray.remote(num_cpus=1, runtime_env={} if local else _runtime_env())(SweepWorker)
        actors = [worker.remote(refs) for _ in range(min(len(work), jobs or cpus, cpus))]
        mine = package_source_hash()
        for where, digest in ray.get([actor.identity.remote() for actor in actors]):
            if digest != mine:
                from . import __file__ as here

                raise InputError(
                    f"Ray: the cluster's workers import other kscore_fast sources ({where}) "
                    f"than this process ({here}): install the same kscore_fast on every node"
                )
        from ray.util import ActorPool

        pool = ActorPool(actors)
        for one in work:
            pool.submit(lambda actor, one: actor.run.remote(spec, one), one)
        while pool.has_next():
            try:
                yield pool.get_next_unordered()
            except ray.exceptions.RayTaskError as exc:
                cause = getattr(exc, "cause", None)
                if isinstance(cause, KScoreError):  # (bad input: its own message)
                    raise cause from None
                raise
    finally:
        for actor in actors:
            ray.kill(actor)
        if opened:
            ray.shutdown()


def _connect(ray: Any, target: bool | str, jobs: int | None) -> bool:
    """Connect to ``target`` (True: a local Ray, or this process's connection); whether
    this call opened the connection."""
    if ray.is_initialized():
        if target is True:
            return False
        raise InputError(f"Ray at {target}: this process is connected to Ray already; "
                         "pass ray=True to use that connection")  # fmt: skip
    quiet = {"log_to_driver": False, "logging_level": logging.ERROR}
    if target is True:
        ray.init(address="local", num_cpus=jobs or os.cpu_count() or 1,
                 include_dashboard=False, **quiet)  # fmt: skip
        return True
    _reachable(target)
    try:
        ray.init(address=target, **quiet)
    except (ConnectionError, RuntimeError, ValueError) as exc:
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise InputError(f"Ray at {target}: cannot connect: {reason}") from None
    return True


def _reachable(address: str) -> None:
    """``host:port`` (or ``ray://host:port``) accepts TCP connections ("auto" and
    "local" are Ray's to resolve)."""
    if address in ("auto", "local"):
        return
    host, sep, port = address.removeprefix("ray://").rpartition(":")
    if not sep or not host or not port.isdigit():
        raise InputError(f"Ray at {address}: expected an address host:port (as `ray start "
                         "--head` prints it), ray://host:port or auto")  # fmt: skip
    try:
        socket.create_connection((host.strip("[]"), int(port)), CONNECT_TIMEOUT).close()
    except OSError as exc:
        raise InputError(
            f"Ray at {address}: cannot connect ({exc.strerror or exc}): start a cluster "
            "with `ray start --head`, or leave out the address for a local Ray"
        ) from None


def _runtime_env() -> dict[str, Any]:
    """The driver's kernel cache settings, for the actors."""
    env = {k: v for k, v in os.environ.items()
           if k.startswith("KSCORE_") or k == "NUMBA_CACHE_DIR"}  # fmt: skip
    return {"env_vars": env} if env else {}
