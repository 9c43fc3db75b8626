"""``kscore report``: kscore's results drawn in one self-contained HTML page.

The page needs no network: plotly.js (plotly's Python package, the optional extra
``kscore_fast[report]``) is inlined once in its head and every figure is a ``div`` it
draws. One section per result (:mod:`.sections` says what each kind draws):

* ``read``: which kind of result a file or directory is, checked, and its rows;
* ``allocation``: per-node allocation from the cluster and the placements (or a timed
  replay's nodes), and a sequential run's course;
* ``charts`` and ``sweep_charts``: the plotly figures;
* ``sections``: each result's headings, notes, figures and tables;
* ``page``: the HTML, written through :mod:`kscore_fast.io.output` (atomically, never
  over an input).

Score and simulate results do not hold the cluster: per-node allocation needs the
manifests they were computed from (``cluster``, the command line's ``--cluster``), and
their pods and hosts are checked against them. Timed replays carry their nodes at the end,
and sweeps their metrics: they need nothing else.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import count

from ..errors import InputError
from .page import Report
from .read import RunResult, SweepResult, TimedResult, read_result

__all__ = ["Report", "build_report", "require_plotly"]

INSTALL = "pip install 'kscore_fast[report]' (or pip install plotly)"


def require_plotly() -> None:
    """InputError saying how to install plotly, when it cannot be imported."""
    try:
        import plotly  # noqa: F401
    except ImportError:
        raise InputError(
            f"kscore report draws with plotly, which is not installed: {INSTALL}"
        ) from None


def pod_argument(name: str) -> str:
    """``--pod``'s NAMESPACE/NAME (a bare NAME is in ``default``, as kubectl reads it)."""
    namespace, sep, pod = name.partition("/")
    if not sep:
        namespace, pod = "default", name
    if not namespace or not pod or "/" in pod:
        raise InputError(f"--pod {name!r}: expected NAMESPACE/NAME")
    return f"{namespace}/{pod}"


def build_report(
    results: Sequence[str],
    *,
    cluster: Sequence[str] = (),
    pods: Sequence[str] = (),
    top: int = 10,
    expand_workloads: bool = False,
    notice: Callable[[str], None] | None = None,
) -> Report:
    """The report of ``results`` (paths of kscore's results). ``cluster``: the manifests
    the score and simulate results were computed from (needed by them); ``pods``: the pods
    whose scores are broken down per plugin (NAMESPACE/NAME; default: the first few with
    scores); ``top``: nodes drawn per pod. ``notice`` receives the cluster's warning line."""
    from .. import __version__

    require_plotly()
    if not results:
        raise InputError("report: give at least one result")
    if top < 1:
        raise InputError(f"--top {top}: expected at least 1")
    read = [read_result(p) for p in results]
    runs = [r for r in read if isinstance(r, RunResult)]
    chosen = list(dict.fromkeys(pod_argument(p) for p in pods))
    if chosen and not runs:
        raise InputError("--pod: the scores of pods are in score and simulate results; "
                         "none is given")  # fmt: skip
    for pod in chosen:
        if not any(pod in r.position for r in runs):
            some = ", ".join(runs[0].pods[:3])
            raise InputError(f"--pod {pod}: not a pod of {' or '.join(r.path for r in runs)} "
                             f"(its pods are e.g. {some})")  # fmt: skip
    if runs and not cluster:
        raise InputError(
            f"{runs[0].path} is a {runs[0].mode} result: per-node allocation needs the "
            f"cluster it was computed from: give --cluster PATH... (the manifests given to "
            f"kscore {runs[0].mode})"
        )
    loaded = None
    if runs:
        from ..api import load_cluster

        loaded = load_cluster(list(cluster), expand_workloads=expand_workloads)
        if notice is not None and (line := loaded.warning()):
            notice(line)
    from .sections import run_section, sweep_section, timed_section

    numbers = count(1)
    sections = []
    for r in read:
        if isinstance(r, RunResult):
            assert loaded is not None
            sections.append(run_section(r, loaded, chosen, top, numbers, cluster))
        elif isinstance(r, TimedResult):
            sections.append(timed_section(r, numbers))
        else:
            assert isinstance(r, SweepResult)
            sections.append(sweep_section(r, numbers))
    meta = f"kscore_fast {__version__}: {len(read)} result{'s' if len(read) > 1 else ''}"
    if runs:
        meta += f"; cluster: {' '.join(cluster)}"
    return Report(sections, meta)
