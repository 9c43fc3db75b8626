"""The Python API: load a cluster, score its pending pods.

>>> import kscore_fast as ks
>>> cluster = ks.load_cluster(["data/embedded"])           # doctest: +SKIP
>>> result = ks.score(cluster, plugins="SelectorSpread=1", seed=0)  # doctest: +SKIP
>>> result.to_dict()["results"][0]["host"]                 # doctest: +SKIP
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from .framework.result import ScoreResult
from .io.load import ProgressFactory, read_inputs
from .model.snapshot import Cluster, build_cluster
from .profile import DEFAULT_PLUGINS, PluginsSpec, build_framework

PathLike = str | os.PathLike[str]


def load_cluster(
    paths: PathLike | Sequence[PathLike] = (),
    *,
    objects: Iterable[Any] = (),
    progress: ProgressFactory | None = None,
) -> Cluster:
    """Load manifests (files, directories, ``"-"`` for standard input) and/or
    already-parsed objects (dicts, as ``json.load`` or ``yaml.safe_load`` give them).

    ``progress(file, size)``, if given, makes a progress bar (``update(bytes)``,
    ``close()``) for each large file. Raises :class:`~kscore_fast.errors.InputError` on
    bad input.
    """
    if isinstance(paths, str | os.PathLike):
        paths = [paths]
    objs, report = read_inputs(paths, objects, progress)
    cluster = build_cluster(objs.nodes, objs.pods, objs.services, objs.controllers)
    cluster.skipped_kinds = dict(objs.skipped)
    cluster.skipped_files = len(report.special)
    cluster.empty_dirs = list(report.empty_dirs)
    return cluster


def score(
    cluster: Cluster | PathLike | Sequence[PathLike],
    *,
    plugins: PluginsSpec = DEFAULT_PLUGINS,
    seed: int = 0,
    scores: str = "all",
    percentage_of_nodes_to_score: int = 0,
    progress: Callable[[int], None] | None = None,
) -> ScoreResult:
    """Score every pending pod of ``cluster`` against the same snapshot.

    ``plugins``: ``"Name=weight,..."``, a mapping or (name, weight) pairs; weight 0 = 1.
    ``scores``: ``"all"``, ``"top:K"`` or ``"none"`` (what the result keeps).
    """
    if not isinstance(cluster, Cluster):
        cluster = load_cluster(cluster)
    framework = build_framework(plugins, percentage_of_nodes_to_score)
    return framework.run(
        cluster.snapshot, cluster.batch, seed=seed, scores=scores, progress=progress
    )
