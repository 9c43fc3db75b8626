"""``kscore sweep``: one table of metrics over snapshots × configurations × seeds.

A sweep file (YAML or JSON)::

    snapshots: [cluster-a/, [nodes.json, pods.json]]   # each: a path or a list of paths
    configs:                                           # "default": v1.23.6's defaults
      - default
      - binpack.yaml
      - name: most-allocated                           # a patch of a configuration:
        base: default                                  # (a file, or default)
        patch: {profiles: [{pluginConfig: [{name: NodeResourcesFit, args:
                 {scoringStrategy: {type: MostAllocated}}}]}]}
    seeds: [1, 2, 3]
    mode: simulate            # score | simulate (default) | capacity
    tie_break: go-rand        # simulate and capacity (default uniform)
    preemption: true          # simulate: DefaultPreemption applied, preemptors retried
    pod: web.yaml             # capacity: the template (a Pod or a workload)
    expand_workloads: false   # add the pods the snapshots' workloads lack

A patch is merged into its base document (mappings key by key, anything else replaced)
and read as a KubeSchedulerConfiguration file is: weights, scoring strategies, disabled
plugins, ``percentageOfNodesToScore``. Each (snapshot, configuration, seed) is one run.
Each run gives one row of :data:`METRICS`, its placements (pod, host) and, in simulate
mode, its pending pods over time (:data:`PENDING`: after each scheduling cycle, the pods
not bound yet); :meth:`SweepResult.diff` lists the pods two runs placed differently.
Paths in the file are relative to the file.

Where runs go: this process (``jobs=1``), a pool of ``jobs`` spawned processes (default:
one per core), any ``concurrent.futures.Executor`` (a Dask client too), or Ray
(``ray=True`` or an address; :mod:`kscore_fast.sweep_ray`). The configurations are read
and checked here, before any run, and go to the workers as their documents' bytes; a
worker parses each once. A worker loads each snapshot once per sweep (from its paths;
on Ray from the object store, where this process put it) and keeps it for its later
runs, so that a run's cost is its own scheduling: the kernels are loaded at a worker's
first run, the snapshot's plugin preparations at its first run on that snapshot.
"""

from __future__ import annotations

import functools
import json
import multiprocessing
import os
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Executor, ProcessPoolExecutor
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from . import params
from .capacity_search import capacity, read_object, template_pod
from .errors import InputError

MODES = ("score", "simulate", "capacity")
GPU = "nvidia.com/gpu"
#: the metrics table's columns (besides run, snapshot, config, seed, mode)
METRICS = ("pods", "placed", "unschedulable", "preempted", "nodes", "nodes_used",
           "cpu_mean", "cpu_min", "cpu_max", "cpu_std",
           "memory_mean", "memory_min", "memory_max", "memory_std",
           "gpu_mean", "gpu_min", "gpu_max", "gpu_std", "gpu_idle_on_used_nodes",
           "fit_error_reasons", "seconds")  # fmt: skip
#: the pending table's columns (simulate runs): after ``step`` scheduling cycles, the
#: pods not bound yet (``pending``: waiting for their cycle, or found unschedulable) and,
#: of them, those found unschedulable (``unschedulable``)
PENDING = ("run", "step", "pending", "unschedulable")


DEFAULT_DOCUMENT = {"apiVersion": "kubescheduler.config.k8s.io/v1beta3",
                    "kind": "KubeSchedulerConfiguration"}  # fmt: skip


@dataclass(frozen=True)
class ConfigPatch:
    """A configuration given as a patch of a base (a file, or None: the defaults)."""

    name: str
    base: str | None
    patch: dict[str, Any]

    def document(self) -> dict[str, Any]:
        """The base document with the patch merged in."""
        import yaml

        if self.base is None:
            base: Any = dict(DEFAULT_DOCUMENT)
        else:
            try:
                base = yaml.safe_load(Path(self.base).read_text(encoding="utf-8"))
            except (OSError, yaml.YAMLError, UnicodeDecodeError) as exc:
                raise InputError(f"sweep: config {self.name!r}: base {self.base}: {exc}") from None
        return _merged(base, self.patch)

    @property
    def where(self) -> str:
        return f"sweep config {self.name!r}"

    def text(self) -> bytes:
        """The merged document as a configuration file's bytes."""
        import yaml

        return yaml.safe_dump(self.document()).encode()

    def load(self) -> Any:
        """The effective configuration (checked as kube-scheduler checks a file)."""
        return parsed_config(self.where, self.text())


def _merged(base: Any, patch: Any) -> Any:
    if isinstance(base, Mapping) and isinstance(patch, Mapping):
        out = dict(base)
        for key, value in patch.items():
            out[key] = _merged(base.get(key), value) if key in base else value
        return out
    return patch


@dataclass(frozen=True)
class Spec:
    snapshots: list[list[str]]
    configs: list[str | ConfigPatch | None]
    seeds: list[int]
    mode: str = "simulate"
    tie_break: str = "uniform"
    #: capacity mode: the template pod (read and checked with the file)
    pod: dict[str, Any] | None = None
    expand_workloads: bool = False
    #: simulate mode: DefaultPreemption applied, each preemptor tried again at once
    preemption: bool = False


def read_spec(spec: str | os.PathLike[str] | Mapping[str, Any]) -> Spec:
    """A sweep file (or its mapping, paths then relative to the working directory),
    checked: one clear error naming the field."""
    base = Path(".")
    where = "sweep"
    if not isinstance(spec, Mapping):
        import yaml

        path = Path(spec)
        where, base = str(path), path.parent
        try:
            spec = yaml.safe_load(path.read_text(encoding="utf-8"))
        except OSError as exc:
            raise InputError(f"{where}: {exc.strerror or exc}") from None
        except (yaml.YAMLError, UnicodeDecodeError) as exc:
            raise InputError(f"{where}: not YAML or JSON ({exc})") from None
        if not isinstance(spec, Mapping):
            raise InputError(f"{where}: expected a mapping of snapshots, configs, seeds")
    unknown = set(spec) - {f for f in Spec.__dataclass_fields__}
    if unknown:
        raise InputError(f"{where}: unknown field(s) {', '.join(sorted(unknown))}")

    def paths(value: Any, name: str) -> list[str]:
        items = value if isinstance(value, list) else [value]
        if not items or not all(isinstance(p, str) and p for p in items):
            raise InputError(f"{where}: {name}: expected a path or a list of paths")
        return [str(base / p) for p in items]

    snaps = spec.get("snapshots")
    if not isinstance(snaps, list) or not snaps:
        raise InputError(f"{where}: snapshots: expected a non-empty list")
    configs = spec.get("configs", ["default"])
    if not isinstance(configs, list) or not configs:
        raise InputError(f"{where}: configs: expected a list of files, 'default' or patches")
    resolved: list[str | ConfigPatch | None] = []
    for k, c in enumerate(configs):
        if isinstance(c, str) and c:
            resolved.append(None if c == "default" else str(base / c))
            continue
        if (not isinstance(c, Mapping) or set(c) - {"name", "base", "patch"}
                or not isinstance(c.get("patch"), Mapping)):  # fmt: skip
            raise InputError(f"{where}: configs[{k}]: expected a file, 'default' or a "
                             "mapping with patch (and name, base)")  # fmt: skip
        base_file = c.get("base", "default")
        if not isinstance(base_file, str) or not base_file:
            raise InputError(f"{where}: configs[{k}]: base: expected a file or 'default'")
        patch = ConfigPatch(str(c.get("name") or f"patch-{k}"),
                            None if base_file == "default" else str(base / base_file),
                            dict(c["patch"]))  # fmt: skip
        patch.load()  # (checked now: a bad patch fails before any run)
        resolved.append(patch)
    seeds = spec.get("seeds", [0])
    if (
        not isinstance(seeds, list)
        or not seeds
        or not all(isinstance(s, int) and not isinstance(s, bool) for s in seeds)
    ):
        raise InputError(f"{where}: seeds: expected a list of integers")
    mode = spec.get("mode", "simulate")
    if mode not in MODES:
        raise InputError(f"{where}: mode: expected one of {', '.join(MODES)}, got {mode!r}")
    pod = spec.get("pod")
    if (mode == "capacity") != (pod is not None):
        raise InputError(f"{where}: pod: a template is needed in capacity mode only")
    if pod is not None and not (isinstance(pod, str) and pod):
        raise InputError(f"{where}: pod: expected a file")
    template = None if pod is None else template_pod(read_object(str(base / pod)),
                                                         f"{where}: pod")  # fmt: skip
    tie = spec.get("tie_break", "uniform")
    if tie not in ("uniform", "go-rand"):
        raise InputError(f"{where}: tie_break: expected uniform or go-rand, got {tie!r}")
    expand = spec.get("expand_workloads", False)
    if not isinstance(expand, bool):
        raise InputError(f"{where}: expand_workloads: expected true or false")
    preemption = spec.get("preemption", False)
    if not isinstance(preemption, bool):
        raise InputError(f"{where}: preemption: expected true or false")
    if preemption and mode != "simulate":
        raise InputError(f"{where}: preemption: applies in simulate mode only")
    return Spec(
        [paths(s, f"snapshots[{i}]") for i, s in enumerate(snaps)],
        resolved,
        list(seeds), mode, tie, template, expand, preemption,
    )  # fmt: skip


@dataclass(frozen=True)
class Run:
    """One run of a sweep: the snapshot's paths, the configuration (None: defaults),
    the seed."""

    number: int
    snapshot: list[str]
    config: str | ConfigPatch | None
    seed: int


#: one run's results: its metrics row and its (pod, host) placements, in scheduling order
RunOutput = tuple[dict[str, Any], list[tuple[str, str | None]]]
#: a configuration as the workers get it: (name for messages, the file's bytes); None:
#: v1.23.6's defaults
ConfigText = tuple[str, bytes] | None
#: one run to do: the run, the position of its snapshot in the spec, its configuration
Work = tuple[Run, int, ConfigText]


@dataclass
class SweepResult:
    """The metrics (a row per run), the placements (a row per pod per run) and, in
    simulate mode, the pending pods over time (a row per scheduling cycle per run, and
    one before the first: :data:`PENDING`)."""

    metrics: Any
    placements: Any
    pending: Any
    runs: list[Run] = field(default_factory=list)

    def tables(self) -> dict[str, Any]:
        return {"metrics": self.metrics, "placements": self.placements,
                "pending": self.pending}  # fmt: skip

    def json_pieces(self) -> Any:
        """The JSON document: ``{"metrics": [rows], "placements": [rows], "pending":
        [rows]}``."""
        yield json.dumps({name: table.to_pylist() for name, table in self.tables().items()})
        yield "\n"

    def diff(self, a: int, b: int) -> Any:
        """The pods runs ``a`` and ``b`` placed differently: pod, host in a, host in b."""
        import pyarrow as pa

        rows = self.placements.to_pylist()
        first = {r["pod"]: r["host"] for r in rows if r["run"] == a}
        second = {r["pod"]: r["host"] for r in rows if r["run"] == b}
        pods = [p for p in first if p in second and first[p] != second[p]]
        return pa.table({"pod": pods, f"host_{a}": [first[p] for p in pods],
                         f"host_{b}": [second[p] for p in pods]})  # fmt: skip


def sweep(spec: str | os.PathLike[str] | Mapping[str, Any] | Spec, *, jobs: int | None = None,
          executor: Executor | Any | None = None, ray: bool | str | None = None,
          progress: Callable[[int], None] | None = None) -> SweepResult:  # fmt: skip
    """Every run of ``spec`` (:func:`read_spec`): on ``executor``, on Ray (``ray=True``: a
    local Ray of ``jobs`` CPUs, or this process's connection; ``ray="host:port"``: that
    cluster's, at most ``jobs`` workers), or on a pool of ``jobs`` processes (default: the
    machine's cores; 1: in this process). ``progress(1)`` after each run."""
    import pyarrow as pa

    _check_options(jobs, executor, ray, progress)
    spec = spec if isinstance(spec, Spec) else read_spec(spec)
    combos = [(s, c, seed) for s in range(len(spec.snapshots))
              for c in range(len(spec.configs)) for seed in spec.seeds]  # fmt: skip
    documents = [_document(c) for c in spec.configs]
    work = [(Run(k, spec.snapshots[s], spec.configs[c], seed), s, documents[c])
            for k, (s, c, seed) in enumerate(combos)]  # fmt: skip
    if ray is not None and ray is not False:
        from .sweep_ray import ray_results

        results = ray_results(spec, work, ray, jobs)
    else:
        results = _local_results(spec, work, jobs, executor)
    done: list[RunOutput] = []
    with closing(results):
        for one in results:
            done.append(one)
            if progress is not None:
                progress(1)
    done.sort(key=lambda one: one[0]["run"])
    rows = [row for row, _ in done]
    metrics = pa.table(
        {
            name: [r[name] for r in rows]
            for name in ("run", "snapshot", "config", "seed", "mode", *METRICS)
        }
    )
    placed = [(r["run"], pod, host) for r, (_, pods) in zip(rows, done, strict=True)
              for pod, host in pods]  # fmt: skip
    placements = pa.table({"run": pa.array([p[0] for p in placed], pa.int64()),
                           "pod": pa.array([p[1] for p in placed], pa.string()),
                           "host": pa.array([p[2] for p in placed], pa.string())})  # fmt: skip
    pending = _pending_table(done if spec.mode == "simulate" else [])
    return SweepResult(metrics, placements, pending, [w[0] for w in work])


def _check_options(jobs: Any, executor: Any, ray: Any, progress: Any) -> None:
    if jobs is not None and (not isinstance(jobs, int) or isinstance(jobs, bool) or jobs < 1):
        raise params.fail("sweep", "jobs", "an integer >= 1 or None", jobs)
    if executor is not None and not callable(getattr(executor, "submit", None)):
        # (duck-typed: a Dask Client's submit gives futures with result(), as an Executor's)
        raise params.fail("sweep", "executor", "a concurrent.futures.Executor (or a Dask "
                          "Client) or None", executor)  # fmt: skip
    if not (ray is None or isinstance(ray, bool) or (isinstance(ray, str) and ray)):
        raise params.fail("sweep", "ray", "True, an address (host:port) or None", ray)
    if executor is not None and ray not in (None, False):
        raise InputError("sweep: give an executor or ray, not both")
    params.function("sweep", "progress", progress)


def _local_results(spec: Spec, work: Sequence[Work], jobs: int | None,
                   executor: Any) -> Iterator[RunOutput]:  # fmt: skip
    """The runs' results, in order: on ``executor``, a pool of ``jobs`` processes of its
    own, or this process."""
    token = uuid.uuid4().hex  # (this sweep's snapshots, in each worker's memo)
    own = executor is None and jobs != 1 and len(work) > 1
    pool = executor
    if own:  # spawned, not forked: a fork copies numba's worker threads' locks mid-use,
        # and whatever files and processes the caller holds
        pool = ProcessPoolExecutor(max_workers=jobs,
                                   mp_context=multiprocessing.get_context("spawn"))  # fmt: skip
    try:
        if pool is None:  # (in this process)
            for one in work:
                yield run_from_paths(spec, *one, token)
            return
        futures = [pool.submit(run_from_paths, spec, *one, token) for one in work]
        for future in futures:
            yield future.result()
    finally:
        _memo.__dict__.pop("clusters", None)  # (this thread's: the caller's memory back)
        if own and pool is not None:
            pool.shutdown(cancel_futures=True)


def _document(config: str | ConfigPatch | None) -> ConfigText:
    """A configuration's document, read (and checked) once, before any run: workers
    then need no file, and a bad one fails before the first run."""
    if config is None:
        return None
    if isinstance(config, ConfigPatch):
        text = (config.where, config.text())
    else:
        from .config.load import read_config_file

        text = (config, read_config_file(config))
    parsed_config(*text)
    return text


@functools.lru_cache(maxsize=16)
def parsed_config(name: str, data: bytes) -> Any:
    """The configuration of a document's bytes (parsed once per process)."""
    from .config.load import parse_config

    return parse_config(data, name)


#: per thread, the snapshots it loaded for the sweep it last ran runs of:
#: ``clusters = (sweep token, {paths: Cluster})``
_memo = threading.local()


def run_from_paths(spec: Spec, run: Run, snapshot: int, config: ConfigText,
                   token: str) -> RunOutput:  # fmt: skip
    """:func:`run_one` in a worker (or this process): the snapshot loaded from its paths
    the first time a run of sweep ``token`` needs it in this thread, and kept."""
    from .api import load_cluster

    memo = getattr(_memo, "clusters", None)
    if memo is None or memo[0] != token:
        memo = _memo.clusters = (token, {})
    key = tuple(run.snapshot)
    cluster = memo[1].get(key)
    if cluster is None:
        cluster = memo[1][key] = load_cluster(run.snapshot,
                                              expand_workloads=spec.expand_workloads)  # fmt: skip
    return run_one(spec, run, None if config is None else parsed_config(*config), cluster)


def run_one(spec: Spec, run: Run, config: Any, cluster: Any) -> RunOutput:
    """One run on ``cluster`` (loaded from ``run.snapshot``) with ``config`` (a parsed
    configuration or None): its metrics row and its (pod, host) placements."""
    from .api import score, simulate

    t0 = time.perf_counter()
    options = {"config": config, "seed": run.seed}
    template = spec.pod
    victims: list[str] = []
    if template is not None:  # (capacity mode)
        result = capacity(cluster, template, tie_break=spec.tie_break, **options)
        pods = [f"{result.template}-capacity-{k}" for k in range(len(result.hosts))]
        placements: list[tuple[str, str | None]] = list(zip(pods, result.hosts, strict=True))
        errors = [result.stop_reason] if result.stop_reason else []
        if errors:  # (the copy that fit nowhere)
            placements.append((f"{result.template}-capacity-{len(pods)}", None))
    else:
        run_fn = simulate if spec.mode == "simulate" else score
        kwargs: dict[str, Any] = {}
        if spec.mode == "simulate":
            kwargs = {"tie_break": spec.tie_break}
            if spec.preemption:
                kwargs.update(preemption=True, retry_nominated=True)
        res = run_fn(cluster, scores="none", **options, **kwargs)
        victims = [f"{v['namespace']}/{v['name']}" for entry in res.preemptions.values()
                   for v in entry["victims"]]  # fmt: skip
        placements = list(zip(res.pod_names, res.host_names, strict=True))
        errors = [e for h, e in zip(res.host_names, res.errors, strict=True)
                  if h is None and e]  # fmt: skip
    gone = set(victims)  # (bound pods preemption evicted: a placed pod among them is not)
    row = {"run": run.number, "snapshot": ",".join(run.snapshot),
           "config": _label(run.config), "seed": run.seed, "mode": spec.mode,
           "pods": len(placements),
           "placed": sum(h is not None and p not in gone for p, h in placements),
           "unschedulable": sum(h is None for _, h in placements),
           "preempted": len(victims)}  # fmt: skip
    row.update(_allocation(cluster, placements, spec.mode, template, victims))
    row["fit_error_reasons"] = json.dumps(_reasons(errors), sort_keys=True)
    row["seconds"] = time.perf_counter() - t0
    return row, placements


def _pending_table(done: Iterable[RunOutput]) -> Any:
    """:data:`PENDING` of simulate runs: their placements are in scheduling order, one
    cycle each."""
    import pyarrow as pa

    parts: list[list[np.ndarray]] = [[] for _ in PENDING]
    for row, placements in done:
        placed = np.fromiter((h is not None for _, h in placements), bool, len(placements))
        bound = np.zeros(len(placements) + 1, dtype=np.int64)
        np.cumsum(placed, out=bound[1:])
        step = np.arange(len(placements) + 1, dtype=np.int64)
        columns = (np.full_like(step, row["run"]), step, len(placements) - bound, step - bound)
        for part, column in zip(parts, columns, strict=True):
            part.append(column)
    return pa.table({name: pa.array(np.concatenate(part) if part else np.zeros(0, np.int64))
                     for name, part in zip(PENDING, parts, strict=True)})  # fmt: skip


def _label(config: str | ConfigPatch | None) -> str:
    if isinstance(config, ConfigPatch):
        return config.name
    return config or "default"


def _allocation(cluster: Any, placements: Sequence[tuple[str, str | None]], mode: str,
                template: Any = None, victims: Sequence[str] = ()) -> dict[str, Any]:  # fmt: skip
    """Per-node allocation (requested / allocatable of CPU, memory, GPUs) after the
    bound pods and, in the sequential modes, the placed ones (capacity: copies of
    ``template``), without the bound pods preemption evicted (``victims``); nodes holding
    a pod; idle GPUs on nodes with some GPU in use."""
    from .plugins.noderesources.resources import columns

    snap, batch = cluster.snapshot, cluster.batch
    cols = columns(snap, batch)
    r = len(cols.names)
    used = cols.used[:, :r].astype(np.float64)
    count = cols.pod_count.astype(np.int64)
    evicted = set(victims)
    if mode == "simulate":
        index = {name: i for i, name in enumerate(batch.names)}
        for pod, host in placements:
            if host is not None and pod not in evicted:
                used[snap.node_index[host]] += cols.pod_add[index[pod], :r]
                count[snap.node_index[host]] += 1
        for pod in snap.pods:
            if pod.key in evicted:
                used[snap.node_index[pod.node_name]] -= _record_vector(pod, cols.names)
                count[snap.node_index[pod.node_name]] -= 1
    elif mode == "capacity":
        request = _request_vector(template, cols.names)
        for _, host in placements:
            if host is not None:
                used[snap.node_index[host]] += request
                count[snap.node_index[host]] += 1
    out: dict[str, Any] = {"nodes": snap.n_nodes, "nodes_used": int((count > 0).sum())}
    gpu = cols.column(GPU)
    for name, col in (("cpu", 0), ("memory", 1), ("gpu", gpu)):
        alloc = cols.alloc[:, col].astype(np.float64) if col >= 0 else np.zeros(snap.n_nodes)
        ok = alloc > 0
        frac = used[ok, col] / alloc[ok] if ok.any() else np.zeros(0)
        stats = (frac.mean(), frac.min(), frac.max(), frac.std()) if frac.size else (0.0,) * 4
        for stat, value in zip(("mean", "min", "max", "std"), stats, strict=True):
            out[f"{name}_{stat}"] = float(value)
    out["gpu_idle_on_used_nodes"] = 0
    if gpu >= 0:
        alloc, taken = cols.alloc[:, gpu], used[:, gpu]
        partly = (taken > 0) & (taken < alloc)
        out["gpu_idle_on_used_nodes"] = int((alloc[partly] - taken[partly]).sum())
    return out


def _request_vector(template: dict[str, Any], names: Sequence[str]) -> np.ndarray:
    """The requests (``computePodResourceRequest``) of a template pod
    (:func:`~kscore_fast.capacity_search.template_pod`), per resource column."""
    from .io.load import read_inputs

    objs, _ = read_inputs([], [template])
    return _record_vector(objs.pods[0], names)


def _record_vector(pod: Any, names: Sequence[str]) -> np.ndarray:
    """The requests (``computePodResourceRequest``) of a pod's record, per resource
    column."""
    from .plugins.noderesources.fit_reference import compute_pod_resource_request

    request = compute_pod_resource_request(pod)
    fixed = {"cpu": request.milli_cpu, "memory": request.memory,
             "ephemeral-storage": request.ephemeral_storage}  # fmt: skip
    return np.array(
        [fixed[n] if n in fixed else request.scalar(n) for n in names], dtype=np.float64
    )


def _reasons(errors: Sequence[str]) -> dict[str, int]:
    """FitError reasons (``0/N nodes are available: 3 Insufficient cpu, ...``), by the
    number of pods whose error gave each; other errors whole."""
    from .framework.result import fit_error_reasons

    counts: Counter[str] = Counter()
    for error in errors:
        parts = fit_error_reasons(error)
        for reason in [error] if parts is None else [r for _, r in parts]:
            counts[reason] += 1
    return dict(counts)
