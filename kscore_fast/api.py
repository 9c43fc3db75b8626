"""The Python API: load a cluster, score its pending pods.

>>> import kscore_fast as ks
>>> cluster = ks.load_cluster(["data/embedded"])           # doctest: +SKIP
>>> result = ks.score(cluster, plugins="SelectorSpread=1", seed=0)  # doctest: +SKIP
>>> result.to_dict()["results"][0]["host"]                 # doctest: +SKIP
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

from . import params
from .config.types import SchedulerConfiguration
from .errors import ConfigError, UnsupportedError
from .framework.result import ScoreResult, parse_scores_mode
from .framework.runtime import Framework
from .io.load import ProgressFactory, read_inputs
from .model.disruption import with_status
from .model.objects import NamespaceRecord
from .model.priority import admit
from .model.snapshot import Cluster, build_cluster
from .model.storage import Storage
from .profile import PluginsSpec, build_framework, framework_for_profile

PathLike = str | os.PathLike[str]


def load_cluster(
    paths: PathLike | Sequence[PathLike] = (),
    *,
    objects: Iterable[Any] = (),
    progress: ProgressFactory | None = None,
    expand_workloads: bool = False,
) -> Cluster:
    """Load manifests (files, directories, ``"-"`` for standard input) and/or
    already-parsed objects (dicts, as ``json.load`` or ``yaml.safe_load`` give them).

    ``progress(file, size)``, if given, makes a progress bar (``update(bytes)``,
    ``close()``) for each large file. ``expand_workloads``: add the pending pods the
    input's Deployments, ReplicaSets, ReplicationControllers, StatefulSets and Jobs lack
    (:mod:`kscore_fast.io.workloads`; counted in ``cluster.expanded_workloads``). Raises
    :class:`~kscore_fast.errors.InputError` on bad input.
    """
    if isinstance(paths, str | os.PathLike):
        paths = [paths]
    expanded: dict[str, int] = {}
    if expand_workloads:
        from .io.workloads import expand_workloads as expand
        from .io.workloads import raw_objects

        paths, objects = [os.fspath(p) for p in paths], list(objects)
        extra, expanded = expand([*raw_objects(paths), *objects])
        objects = [*objects, *extra]
    objs, report = read_inputs(paths, objects, progress)
    admitted = admit(objs.pods, objs.priority_classes)
    cluster = build_cluster(objs.nodes, admitted.pods, objs.services, objs.controllers,
                            objs.namespaces, storage=Storage.of(objs.storage))  # fmt: skip
    cluster.priority_classes = objs.priority_classes
    cluster.budgets = with_status(objs.budgets, objs.pods)
    cluster.refused_pods, cluster.differing_priorities = admitted.refused, admitted.differing
    cluster.skipped_kinds = dict(objs.skipped)
    cluster.skipped_files = len(report.special)
    cluster.empty_dirs = list(report.empty_dirs)
    cluster.expanded_workloads = expanded
    if cluster.snapshot.storage.claims:
        from .plugins.volumebinding.complete import unprovisioned_claims

        cluster.unprovisioned_claims = unprovisioned_claims(cluster.snapshot.storage)
    return cluster


def score(
    cluster: Cluster | PathLike | Sequence[PathLike],
    *,
    plugins: PluginsSpec | None = None,
    config: PathLike | SchedulerConfiguration | None = None,
    seed: int = 0,
    scores: str = "all",
    explain: bool | None = None,
    percentage_of_nodes_to_score: int | None = None,
    progress: Callable[[int], None] | None = None,
    notice: Callable[[str], None] | None = None,
    preemption: bool | None = None,
) -> ScoreResult:
    """Score every pending pod of ``cluster`` against the same snapshot.

    The profile: ``config`` (a KubeSchedulerConfiguration file, or one loaded with
    :func:`kscore_fast.config.load_config`), each pod taking the profile its
    ``spec.schedulerName`` names; or ``plugins``, a shortcut for a profile of score plugins
    only (``"Name=weight,..."``, a mapping or (name, weight) pairs; weight 0 = 1; no filter
    plugins); with neither, kube-scheduler v1.23.6's default profile (v1beta3 defaults).
    ``scores``: ``"all"``, ``"top:K"`` or ``"none"`` (what the result keeps).
    ``explain``: record every examined node a filter rejected (default: with
    ``scores="all"``). ``notice(text)`` receives one line naming the profile's plugins
    kscore_fast does not simulate, if any. ``preemption``: for each pod that fits
    nowhere, what the profile's DefaultPreemption would do (nominated node, victims,
    PDB violations; nothing applied); default: when ``explain`` is given True.
    """
    _check("score", cluster, plugins=plugins, config=config, seed=seed, scores=scores,
           explain=explain, percentage_of_nodes_to_score=percentage_of_nodes_to_score,
           progress=progress, notice=notice, preemption=preemption)  # fmt: skip
    cluster = cluster if isinstance(cluster, Cluster) else load_cluster(cluster)
    framework, refused = _framework(cluster, plugins, config, percentage_of_nodes_to_score,
                                    notice)  # fmt: skip
    preemption = explain is True if preemption is None else preemption
    explain = scores == "all" if explain is None else explain
    result = framework.run(
        cluster.snapshot, cluster.batch, seed=seed, scores=scores, explain=explain,
        progress=progress, refused=refused,
    )  # fmt: skip
    if preemption and framework.preemption is not None:
        _explain_preemption(framework, cluster, result, seed)
    return result


def _explain_preemption(framework: Framework, cluster: Cluster, result: ScoreResult,
                        seed: int) -> None:  # fmt: skip
    """What DefaultPreemption would do for each pod that fits nowhere (a FitError): its
    nominated node and victims, kept in ``result.preemptions`` (nothing applied)."""
    from .preemption.dryrun import DryRuns
    from .preemption.explain import explain_preemption, no_victims_entry, preemption_entry

    pct, absolute = framework.preemption  # type: ignore[misc]
    runs = None
    lowest = min((p.priority or 0 for p in cluster.snapshot.pods), default=None)
    for i, error in enumerate(result.errors):
        if error is None or not error.startswith("0/") or result.hosts[i] >= 0:
            continue
        pod = cluster.batch.pods[i]
        nothing_lower = lowest is None or lowest >= (pod.priority or 0)
        if nothing_lower and i in result.unresolvable:  # (no pod to evict anywhere)
            result.preemptions[i] = no_victims_entry(pod, result.unresolvable[i])
            continue
        # (the dry runs run filters only: the profile's score plugins are left out, so
        # that one without assume kernels, SelectorSpread, does not stop them)
        runs = runs or DryRuns(Framework([], 0, framework.filter_plugins), cluster)
        found = explain_preemption(runs, i, seed, cluster.budgets, pct, absolute)
        result.preemptions[i] = preemption_entry(found, result.node_names)


def simulate(
    cluster: Cluster | PathLike | Sequence[PathLike],
    *,
    plugins: PluginsSpec | None = None,
    config: PathLike | SchedulerConfiguration | None = None,
    seed: int = 0,
    tie_break: str = "uniform",
    scores: str = "all",
    explain: bool | None = None,
    percentage_of_nodes_to_score: int | None = None,
    progress: Callable[[int], None] | None = None,
    notice: Callable[[str], None] | None = None,
    preemption: bool = False,
    retry_nominated: bool = False,
) -> ScoreResult:
    """Schedule the pending pods of ``cluster`` one after the other, in kube-scheduler's
    queue order (higher ``spec.priority`` first, then input order), each assumed on its
    host before the next; the result lists the pods in that order. ``tie_break``:
    ``"uniform"`` (seeded, per pod) or ``"go-rand"`` (Go's ``selectHost`` with
    ``rand.Seed(seed)``). ``preemption``: a pod that fits nowhere runs the profile's
    DefaultPreemption, applied (victims deleted, the pod nominated; docs/preemption.md);
    ``retry_nominated``: a pod that preempted is tried again at once. Other arguments as
    :func:`score`."""
    from .framework.simulation import queue_order
    from .framework.simulation import simulate as run

    _check("simulate", cluster, plugins=plugins, config=config, seed=seed, scores=scores,
           explain=explain, percentage_of_nodes_to_score=percentage_of_nodes_to_score,
           progress=progress, notice=notice, tie_break=tie_break, preemption=preemption,
           retry_nominated=retry_nominated)  # fmt: skip
    if retry_nominated and not preemption:
        raise ConfigError("simulate: retry_nominated needs preemption")
    cluster = cluster if isinstance(cluster, Cluster) else load_cluster(cluster)
    cluster = in_order(cluster, queue_order(cluster.batch.pods))
    framework, refused = _framework(cluster, plugins, config, percentage_of_nodes_to_score,
                                    notice)  # fmt: skip
    if preemption and framework.preemption is not None:
        from .preemption.simulate import simulate_preemption

        return simulate_preemption(
            framework, cluster, seed=seed, tie_break=tie_break, scores=scores,
            explain=scores == "all" if explain is None else explain, progress=progress,
            refused=refused, retry=retry_nominated,
        )  # fmt: skip
    return run(
        framework, cluster.snapshot, cluster.batch, seed=seed, tie_break=tie_break,
        scores=scores, explain=scores == "all" if explain is None else explain,
        progress=progress, refused=refused,
    )  # fmt: skip


def _check(call: str, cluster: Any, **options: Any) -> None:
    """The arguments of ``call``, each of its type and value (``params``)."""
    params.cluster(call, cluster)
    params.run_options(call, options)
    parse_scores_mode(options["scores"], f"{call}: scores")
    if "tie_break" in options:
        from .framework.simulation import random_source

        random_source(options["tie_break"], options["seed"], f"{call}: seed")


def in_order(cluster: Cluster, order: Sequence[int]) -> Cluster:
    """``cluster`` with its pending pods in ``order`` (positions in the batch); the same
    cluster when the order is the batch's own."""
    if list(order) == list(range(len(cluster.batch))):
        return cluster
    snap = cluster.snapshot
    nodes = [snap.nodes[i] for i in np.argsort(snap.node_input_order, kind="stable").tolist()]
    pending = [cluster.batch.pods[i] for i in order]
    controllers = [c for kind in snap.controllers.values() for c in kind]
    namespaces = [NamespaceRecord(n, labels) for n, labels in snap.namespace_labels.items()]
    out = build_cluster(nodes, [*snap.pods, *pending], snap.services, controllers, namespaces,
                        storage=snap.storage)  # fmt: skip
    for name in ("orphaned_pods", "terminated_pods", "deleting_pending_pods",
                 "pvc_pending_pods", "skipped_kinds", "skipped_files", "empty_dirs",
                 "priority_classes", "refused_pods", "differing_priorities",
                 "budgets", "unprovisioned_claims"):  # fmt: skip
        setattr(out, name, getattr(cluster, name))
    return out


def _plugins_framework(plugins: PluginsSpec, percentage: int) -> Framework:
    """``build_framework(plugins, percentage)``, kept for the last few ``"Name=weight,..."``
    strings: a name always resolves to the same plugin class (a registry never replaces
    one), and a framework is not changed by its runs (its plugins keep what they prepare
    on the snapshot and batch), so scoring pod after pod builds it once."""
    if not isinstance(plugins, str):
        return build_framework(plugins, percentage)
    key = (plugins, percentage)
    found = _FRAMEWORKS.get(key)
    if found is None:
        found = build_framework(plugins, percentage)
        if len(_FRAMEWORKS) >= 16:
            _FRAMEWORKS.pop(next(iter(_FRAMEWORKS)), None)
        _FRAMEWORKS[key] = found
    return found


#: :func:`_plugins_framework`'s frameworks by (plugins string, percentage)
_FRAMEWORKS: dict[tuple[str, int], Framework] = {}


def _framework(
    cluster: Cluster,
    plugins: PluginsSpec | None,
    config: PathLike | SchedulerConfiguration | None,
    percentage: int | None,
    notice: Callable[[str], None] | None,
) -> tuple[Framework, dict[int, str]]:
    """The framework the batch runs, and the pods refused (the Priority admission
    plugin's refusals, unknown ``schedulerName``)."""
    if plugins is not None:
        if config is not None:
            raise ConfigError("give score plugins (plugins=) or a configuration (config=), "
                              "not both")  # fmt: skip
        return _plugins_framework(plugins, percentage or 0), {}
    from .config.load import load_config
    from .config.types import ProfileNotFoundError

    if percentage is not None and not 0 <= percentage <= 100:
        build_framework("", percentage)  # raises the range error

    if config is None:
        cfg = _default_config()
    elif isinstance(config, SchedulerConfiguration):
        cfg = config
    else:
        cfg = load_config(config)
    used: dict[str, Any] = {}
    refused: dict[int, str] = {}
    admission = cluster.refused_pods
    for i, pod in enumerate(cluster.batch.pods):
        if admission and (message := admission.get(pod.key)) is not None:
            refused[i] = message  # (the API server never created it)
            continue
        name = pod.scheduler_name
        if name not in used:
            try:
                used[name] = cfg.profile_for(name)
            except ProfileNotFoundError:  # Go's frameworkForPod error, without the file
                used[name] = str(ProfileNotFoundError(name))
        if isinstance(used[name], str):
            refused[i] = used[name]
    profiles = {n: p for n, p in used.items() if not isinstance(p, str)}
    if len(profiles) > 1:
        raise UnsupportedError(
            f"the pending pods use {len(profiles)} scheduler profiles "
            f"({', '.join(sorted(profiles))}); kscore_fast scores one profile per run: "
            "score each profile's pods separately"
        )
    profile = next(iter(profiles.values()), cfg.profiles[0])
    pct = cfg.percentage_of_nodes_to_score if percentage is None else percentage
    built = (_default_framework(profile, pct) if cfg is _default_config()
             else framework_for_profile(profile, pct))  # fmt: skip
    if built.not_simulated and notice is not None:
        notice(f"not simulated (left out of profile {profile.scheduler_name!r}): "
               + ", ".join(built.not_simulated))  # fmt: skip
    return built.framework, refused


@functools.cache
def _default_config() -> SchedulerConfiguration:
    """kube-scheduler v1.23.6's defaults (v1beta3), made once per process: the
    configuration of every call given none."""
    from .config.load import default_config

    return default_config("v1beta3")


def _default_framework(profile: Any, pct: int) -> Any:
    """:func:`framework_for_profile` of a profile of :func:`_default_config` (kept alive
    by it), made once per profile and ``percentageOfNodesToScore``: a framework runs any
    cluster."""
    key = (id(profile), pct)
    built = _default_frameworks.get(key)
    if built is None:
        built = _default_frameworks[key] = framework_for_profile(profile, pct)
    return built


_default_frameworks: dict[tuple[int, int], Any] = {}
