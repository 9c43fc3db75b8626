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
    pod: web.yaml             # capacity: the template (a Pod or a workload)
    expand_workloads: false   # add the pods the snapshots' workloads lack

A patch is merged into its base document (mappings key by key, anything else replaced)
and read as a KubeSchedulerConfiguration file is: weights, scoring strategies, disabled
plugins, ``percentageOfNodesToScore``. Each (snapshot, configuration, seed) is one run;
runs go to a process pool (``jobs`` processes, or any ``concurrent.futures.Executor``).
Each run gives one row of :data:`METRICS` and its placements (pod, host);
:meth:`SweepResult.diff` lists the pods two runs placed differently. Paths in the file
are relative to the file.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import time
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import Executor, ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .capacity import capacity, read_object, template_pod
from .errors import InputError

MODES = ("score", "simulate", "capacity")
GPU = "nvidia.com/gpu"
#: the metrics table's columns (besides run, snapshot, config, seed, mode)
METRICS = ("pods", "placed", "unschedulable", "nodes", "nodes_used",
           "cpu_mean", "cpu_min", "cpu_max", "cpu_std",
           "memory_mean", "memory_min", "memory_max", "memory_std",
           "gpu_mean", "gpu_min", "gpu_max", "gpu_std", "gpu_idle_on_used_nodes",
           "fit_error_reasons", "seconds")  # fmt: skip


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

    def load(self) -> Any:
        """The effective configuration (checked as kube-scheduler checks a file)."""
        import yaml

        from .config.load import parse_config

        text = yaml.safe_dump(self.document()).encode()
        return parse_config(text, f"sweep config {self.name!r}")


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
    return Spec(
        [paths(s, f"snapshots[{i}]") for i, s in enumerate(snaps)],
        resolved,
        list(seeds), mode, tie, template, expand,
    )  # fmt: skip


@dataclass(frozen=True)
class Run:
    """One run of a sweep: the snapshot's paths, the configuration (None: defaults),
    the seed."""

    number: int
    snapshot: list[str]
    config: str | ConfigPatch | None
    seed: int


@dataclass
class SweepResult:
    """The metrics (a row per run) and the placements (a row per pod per run)."""

    metrics: Any
    placements: Any
    runs: list[Run] = field(default_factory=list)

    def tables(self) -> dict[str, Any]:
        return {"metrics": self.metrics, "placements": self.placements}

    def json_pieces(self) -> Any:
        """The JSON document: ``{"metrics": [rows], "placements": [rows]}``."""
        yield json.dumps({"metrics": self.metrics.to_pylist(),
                          "placements": self.placements.to_pylist()}) + "\n"  # fmt: skip

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
          executor: Executor | None = None,
          progress: Callable[[int], None] | None = None) -> SweepResult:  # fmt: skip
    """Every run of ``spec`` (:func:`read_spec`), on ``executor`` or a pool of ``jobs``
    processes (default: the machine's cores; 1: in this process)."""
    import pyarrow as pa

    spec = spec if isinstance(spec, Spec) else read_spec(spec)
    runs = [Run(k, snap, cfg, seed) for k, (snap, cfg, seed) in enumerate(
        (s, c, d) for s in spec.snapshots for c in spec.configs for d in spec.seeds)]  # fmt: skip
    own = executor is None and jobs != 1 and len(runs) > 1
    pool = executor
    if own:  # spawned, not forked: a fork copies numba's worker threads' locks mid-use,
        # and whatever files and processes the caller holds
        pool = ProcessPoolExecutor(max_workers=jobs,
                                   mp_context=multiprocessing.get_context("spawn"))  # fmt: skip
    try:
        if pool is None:  # (in this process)
            results: Iterator[Any] = (run_one(spec, run) for run in runs)
        else:
            results = (f.result() for f in [pool.submit(run_one, spec, run) for run in runs])
        done = []
        for one in results:
            done.append(one)
            if progress is not None:
                progress(1)
    finally:
        if own and pool is not None:
            pool.shutdown(cancel_futures=True)
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
    return SweepResult(metrics, placements, runs)


def run_one(spec: Spec, run: Run) -> tuple[dict[str, Any], list[tuple[str, str | None]]]:
    """One run: its metrics row and its (pod, host) placements."""
    from .api import load_cluster, score, simulate

    t0 = time.perf_counter()
    cluster = load_cluster(run.snapshot, expand_workloads=spec.expand_workloads)
    config = run.config.load() if isinstance(run.config, ConfigPatch) else run.config
    options = {"config": config, "seed": run.seed}
    template = spec.pod
    if template is not None:  # (capacity mode)
        result = capacity(cluster, template, tie_break=spec.tie_break, **options)
        pods = [f"{result.template}-capacity-{k}" for k in range(len(result.hosts))]
        placements: list[tuple[str, str | None]] = list(zip(pods, result.hosts, strict=True))
        errors = [result.stop_reason] if result.stop_reason else []
        if errors:  # (the copy that fit nowhere)
            placements.append((f"{result.template}-capacity-{len(pods)}", None))
    else:
        run_fn = simulate if spec.mode == "simulate" else score
        kwargs = {"tie_break": spec.tie_break} if spec.mode == "simulate" else {}
        res = run_fn(cluster, scores="none", **options, **kwargs)
        doc = res.to_dict()["results"]
        placements = [(r["pod"], r["host"]) for r in doc]
        errors = [r["error"] for r in doc if r["host"] is None and r["error"]]
    row = {"run": run.number, "snapshot": ",".join(run.snapshot),
           "config": _label(run.config), "seed": run.seed, "mode": spec.mode,
           "pods": len(placements), "placed": sum(h is not None for _, h in placements),
           "unschedulable": sum(h is None for _, h in placements)}  # fmt: skip
    row.update(_allocation(cluster, placements, spec.mode, template))
    row["fit_error_reasons"] = json.dumps(_reasons(errors), sort_keys=True)
    row["seconds"] = time.perf_counter() - t0
    return row, placements


def _label(config: str | ConfigPatch | None) -> str:
    if isinstance(config, ConfigPatch):
        return config.name
    return config or "default"


def _allocation(cluster: Any, placements: Sequence[tuple[str, str | None]], mode: str,
                template: Any = None) -> dict[str, Any]:  # fmt: skip
    """Per-node allocation (requested / allocatable of CPU, memory, GPUs) after the
    bound pods and, in the sequential modes, the placed ones (capacity: copies of
    ``template``); nodes holding a pod; idle GPUs on nodes with some GPU in use."""
    from .plugins.noderesources.resources import columns

    snap, batch = cluster.snapshot, cluster.batch
    cols = columns(snap, batch)
    r = len(cols.names)
    used = cols.used[:, :r].astype(np.float64)
    count = cols.pod_count.astype(np.int64)
    if mode == "simulate":
        index = {name: i for i, name in enumerate(batch.names)}
        for pod, host in placements:
            if host is not None:
                used[snap.node_index[host]] += cols.pod_add[index[pod], :r]
                count[snap.node_index[host]] += 1
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
    (:func:`~kscore_fast.capacity.template_pod`), per resource column."""
    from .io.load import read_inputs
    from .plugins.noderesources.fit_reference import compute_pod_resource_request

    objs, _ = read_inputs([], [template])
    request = compute_pod_resource_request(objs.pods[0])
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
