"""``kscore``: the command line. Parse → load → score → write; no logic of its own.

Exit codes: 0 success, 2 bad input, usage or output location (one message on stderr, no
traceback), 130 Ctrl-C, 128 + N another stop signal N (SIGTERM 143, SIGHUP 129), 141 stdout
closed early (a broken pipe, as if killed by SIGPIPE; quietly), 1 out of memory (one
message). Temporary output is removed on each of these.
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import os
import signal
import sys
import time
from collections.abc import Iterator, Sequence
from functools import partial
from typing import Any

from . import __version__
from ._signals import STOP_SIGNALS
from .errors import InputError

EXIT_USAGE = 2


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="kscore",
        description="kube-scheduler v1.23.6 node scoring, bit-exact and vectorized.",
    )
    p.add_argument("--version", action="version", version=f"kscore_fast {__version__}")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_CommandParser)

    s = sub.add_parser(
        "score",
        intermixed=True,
        help="score every pending pod of a cluster against every feasible node",
        description="Score the pending pods (pods without spec.nodeName) of the given "
        "manifests against the cluster they describe, as kube-scheduler v1.23.6 would.",
    )
    _run_arguments(s)
    m = sub.add_parser(
        "simulate",
        intermixed=True,
        help="schedule the pending pods one after the other, each bound before the next",
        description="Schedule the pending pods in kube-scheduler's queue order (higher "
        "spec.priority first, then input order), each assumed on its host before the next "
        "cycle, as kube-scheduler v1.23.6 would with parallelism 1. Pods that fit nowhere "
        "get Go's FitError and are not retried; with --preemption they preempt "
        "(docs/preemption.md), else they change nothing. With --events, "
        "the cluster over time: pods arrive and leave, nodes come and go, and pods wait in "
        "kube-scheduler's scheduling queue (backoff, retries on cluster events) on a "
        "simulated clock; every attempt is a row (docs/queue.md).",
    )
    _run_arguments(m)
    m.add_argument(
        "--events",
        metavar="FILE",
        help="timed events (JSON Lines: time in seconds, op addPod|delete|addNode|"
        "removeNode|addCapacity|updateCapacity|deleteCapacity): replay them with the "
        "scheduling queue (docs/queue.md)",
    )
    m.add_argument(
        "--until",
        type=float,
        default=None,
        metavar="SECONDS",
        help="with --events: run the clock to SECONDS (retries included), not just until "
        "the last event's pods are settled",
    )
    m.add_argument(
        "--tie-break",
        choices=("uniform", "go-rand"),
        default="uniform",
        help="uniform: seeded choice per pod (default); go-rand: Go's selectHost with "
        "math/rand seeded by rand.Seed(--seed), reproducing a real run pod for pod",
    )
    m.add_argument(
        "--preemption",
        action="store_true",
        help="a pod that fits nowhere runs the profile's DefaultPreemption, applied: its "
        "victims are deleted and it is nominated (not retried in the same pass; with "
        "--events it goes back to the queue and the victims' deletions move the pods "
        "waiting; docs/preemption.md)",
    )
    m.add_argument(
        "--retry-nominated",
        action="store_true",
        help="with --preemption: a pod that preempted is tried again at once (its row then "
        "holds that cycle)",
    )

    c = sub.add_parser(
        "capacity",
        intermixed=True,
        help="how many more copies of a pod (or a workload's pod) fit",
        description="Schedule copies of the template pod (--pod: a Pod, or a Deployment, "
        "ReplicaSet, StatefulSet, ReplicationController or Job whose pod template is "
        "copied) one after the other, each bound where it lands, until one fits nowhere "
        "(after kubernetes-sigs/cluster-capacity). Prints the count, the copies per node "
        "and Go's reason the next one did not fit; the cluster's own pending pods are "
        "not scheduled.",
    )
    c.add_argument("paths", nargs="+", metavar="PATH", help="manifest files or directories")
    c.add_argument("--pod", metavar="FILE",
                   help="the template: one Pod or workload object (YAML or JSON)")  # fmt: skip
    c.add_argument("--max", type=_integer, default=None, metavar="N",
                   help="copies at most (default 100000)")  # fmt: skip
    c.add_argument("--add-nodes", metavar="NODE_FILE",
                   help="with --replicas N: the fewest copies of this Node to add so that N "
                   "copies of --pod fit")  # fmt: skip
    c.add_argument("--replicas", type=_integer, default=None, metavar="N")
    c.add_argument("--max-nodes", type=_integer, default=1000, metavar="M",
                   help="with --add-nodes: nodes tried at most (default 1000)")  # fmt: skip
    c.add_argument("--drain", nargs="+", metavar="NODE",
                   help="instead: remove these nodes and schedule their pods elsewhere "
                   "(DaemonSet pods stay); whether all fit, and where they go")  # fmt: skip
    c.add_argument("--config", metavar="FILE", help="a KubeSchedulerConfiguration")
    c.add_argument("--plugins", default=None, metavar="NAME[=WEIGHT],...",
                   help="a profile of these score plugins only")  # fmt: skip
    c.add_argument("--seed", type=_integer, default=0, help="tie-break seed (default 0)")
    c.add_argument("--tie-break", choices=("uniform", "go-rand"), default="uniform")
    c.add_argument("-o", "--output", metavar="FILE", help="the JSON document to FILE")
    c.add_argument("--quiet", action="store_true", help="no summary line, no warnings")
    _plugin_module_argument(c)

    w = sub.add_parser(
        "sweep",
        help="one table of metrics over snapshots × configurations × seeds",
        usage="kscore sweep [-h] SPEC [--format {json,parquet,arrow,csv}] [-o FILE|DIR] "
        "[-j N] [--ray [ADDRESS]] [--quiet]",
        description="Run every (snapshot, configuration, seed) of a sweep file (see "
        "kscore_fast/sweep_runs.py) in parallel processes, or on Ray: one row of metrics per run "
        "(pods placed and unschedulable, nodes used, CPU/memory/GPU allocation per node, "
        "idle GPUs on used nodes, FitError reasons), every run's placements and, in "
        "simulate mode, its pending pods after each scheduling cycle (tables metrics, "
        "placements, pending).",
    )
    w.add_argument("spec", metavar="SPEC", nargs="?", help="the sweep file (YAML or JSON)")
    w.add_argument("--format", choices=("json", "parquet", "arrow", "csv"), default="json")
    w.add_argument("-o", "--output", metavar="FILE|DIR", help="output (stdout for JSON)")
    w.add_argument("-j", "--jobs", type=_integer, default=None, metavar="N",
                   help="processes (default: one per core); with --ray, workers at most "
                   "(a local Ray's CPUs)")  # fmt: skip
    w.add_argument("--ray", nargs="?", const=True, default=None, metavar="ADDRESS",
                   help="run on Ray (pip install 'kscore_fast[ray]'): a local Ray, or the "
                   "cluster at ADDRESS (host:port, as `ray start --head` prints it); each "
                   "snapshot is put in its object store once, each worker loads the "
                   "kernels once")  # fmt: skip
    w.add_argument("--quiet", action="store_true", help="no progress bar")

    _report_parser(sub)

    cfg = sub.add_parser("config", help="the effective KubeSchedulerConfiguration")
    cfg.add_argument(
        "--print",
        action="store_true",
        required=True,
        help="print it as YAML (defaults applied, plugins merged)",
    )
    cfg.add_argument("--config", metavar="FILE", help="a configuration file (default: none)")
    _plugin_module_argument(cfg)
    _import_parser(sub)
    w = sub.add_parser(
        "warmup",
        help="compile (and cache) every kernel the commands use, in parallel processes",
        description="Compile every kernel that score, simulate and the Simulator API use, "
        "for the default profile and every in-tree plugin (--plugins profiles), batch and "
        "sequential, serial and parallel, and keep them in the kernel cache (see kscore "
        "cache info): afterwards every command starts warm. Kernels already cached are "
        "loaded, not compiled again.",
    )
    w.add_argument(
        "-j",
        "--jobs",
        type=_integer,
        default=None,
        metavar="N",
        help="processes compiling at once (default: the number of CPUs, at most 4)",
    )
    w.add_argument("--quiet", action="store_true", help="no progress bar")
    _plugin_module_argument(w)
    c = sub.add_parser("cache", help="show or clear the compiled-kernel cache")
    c.add_argument("action", choices=("info", "clear"))
    return p


class _CommandParser(argparse.ArgumentParser):
    """The parser of a subcommand. With ``intermixed=True``, options may come between its
    positional arguments (``kscore score a.yaml --quiet b.yaml``): plain argparse stops
    taking paths at the first option after them.

    This is ``parse_known_intermixed_args`` (options first, the positionals set aside,
    then the positionals), except that everything after ``--`` is kept for the second
    pass: Python 3.11's version loses a ``--`` that no path precedes
    (``kscore score --quiet -- -a.yaml``)."""

    def __init__(self, *args: Any, intermixed: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.intermixed = intermixed

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        # the top-level parser hands a subcommand its arguments through this method
        if not self.intermixed:
            return super().parse_known_args(args, namespace)
        args = list(sys.argv[1:] if args is None else args)
        cut = args.index("--") if "--" in args else len(args)
        namespace, positionals = self._intermixed_options(args[:cut], namespace)
        return self._intermixed_positionals(positionals + args[cut:], namespace)

    def _intermixed_options(
        self, args: list[str], namespace: argparse.Namespace | None
    ) -> tuple[argparse.Namespace, list[str]]:
        """The options; the positionals (and unknown options) are returned in order."""
        positionals = self._get_positional_actions()
        saved = [(a, a.nargs, a.default) for a in positionals]
        usage = self.usage
        self.usage = usage or self.format_usage()[len("usage: ") :]  # errors show PATH too
        try:
            for action in positionals:
                action.nargs = action.default = argparse.SUPPRESS
            return super().parse_known_args(args, namespace)
        finally:
            for action, nargs, default in saved:
                action.nargs, action.default = nargs, default
            self.usage = usage

    def _intermixed_positionals(
        self, args: list[str], namespace: argparse.Namespace
    ) -> tuple[argparse.Namespace, list[str]]:
        """The positionals, the options already read (a required one is not asked again)."""
        optionals = [(a, a.required) for a in self._get_optional_actions()]
        try:
            for action, _ in optionals:
                action.required = False
            return super().parse_known_args(args, namespace)
        finally:
            for action, required in optionals:
                action.required = required


def _report_parser(sub: argparse._SubParsersAction) -> None:
    r = sub.add_parser(
        "report",
        intermixed=True,
        help="draw results in one self-contained HTML page",
        description="Draw kscore's results in one HTML file that needs no network "
        "(plotly.js inlined; pip install 'kscore_fast[report]'): per-node allocation of "
        "CPU, memory and GPUs, each chosen pod's scores per plugin on its best nodes, "
        "FitError reasons; for simulate, the run cycle by cycle; for simulate --events, the "
        "queue and the cluster over time; for a sweep, its metrics per configuration side "
        "by side. RESULT: the JSON (-o FILE) or table directory (--format parquet|arrow -o "
        "DIR) of kscore score, simulate, simulate --events or sweep (sweep: csv too). Score "
        "and simulate results do not hold the cluster: give the manifests they were "
        "computed from with --cluster.",
    )
    r.add_argument("results", nargs="+", metavar="RESULT", help="kscore's result files or "
                   "table directories")  # fmt: skip
    r.add_argument("-o", "--output", required=True, metavar="FILE", help="the HTML file")
    r.add_argument("--cluster", nargs="+", action="extend", default=[], metavar="PATH",
                   help="the manifests the score and simulate results were computed from "
                   "(needed by them; as given to kscore score|simulate; it takes the paths "
                   "that follow it: give the results first)")  # fmt: skip
    r.add_argument("--pod", action="append", default=[], metavar="NAMESPACE/NAME",
                   help="a pod whose scores to break down per plugin (repeatable; default: "
                   "the first 3 pods with scores)")  # fmt: skip
    r.add_argument("--top", type=_integer, default=10, metavar="K",
                   help="nodes drawn per pod, its host first (default 10)")  # fmt: skip
    r.add_argument(
        "--expand-workloads",
        action="store_true",
        help="as given to score|simulate: the cluster's workloads' missing pods",
    )
    r.add_argument("--quiet", action="store_true", help="no warnings")


def _run_arguments(s: argparse.ArgumentParser) -> None:
    """The arguments ``score`` and ``simulate`` share."""
    s.add_argument("paths", nargs="+", metavar="PATH", help="manifest files or directories")
    s.add_argument(
        "--config",
        metavar="FILE",
        help="a KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1beta2 or v1beta3); "
        "default: kube-scheduler v1.23.6's default profile",
    )
    s.add_argument(
        "--plugins",
        default=None,
        metavar="NAME[=WEIGHT],...",
        help='shortcut for a profile of these score plugins only, no filters ("" for none)',
    )
    s.add_argument(
        "--seed",
        type=_integer,
        default=0,
        help="tie-break seed: any integer, taken modulo 2^64 (default 0)",
    )
    s.add_argument("--format", choices=("json", "parquet", "arrow", "kss"), default="json",
                   help="kss: the pending pods with kube-scheduler-simulator's result "
                   "annotations (filter, score, final score, selected node)")  # fmt: skip
    s.add_argument("-o", "--output", metavar="FILE", help="output file (stdout when absent)")
    s.add_argument(
        "--scores",
        default=None,
        metavar="all|top:K|none",
        help="which node scores to write per pod (default all)",
    )
    s.add_argument(
        "--explain",
        action="store_true",
        help="list the nodes each filter rejected, per pod (always with --scores all); "
        "score: for each pod that fits nowhere, what DefaultPreemption would do",
    )
    s.add_argument(
        "--percentage-of-nodes-to-score",
        type=_integer,
        default=None,
        metavar="P",
        help="overrides the configuration's (default 0: adaptive, like v1.23)",
    )
    s.add_argument("--quiet", action="store_true", help="no progress bar, no warnings")
    s.add_argument(
        "--expand-workloads",
        action="store_true",
        help="add the pending pods the input's Deployments, ReplicaSets, "
        "ReplicationControllers, StatefulSets and Jobs lack (their replicas minus the pods "
        "they own), as their controllers would create them",
    )
    _plugin_module_argument(s)


def _plugin_module_argument(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--plugin-module",
        action="append",
        default=[],
        metavar="MODULE",
        help="import MODULE first: the out-of-tree plugins it registers "
        "(kscore_fast.register_plugin) may be named in --plugins and --config (repeatable; "
        "installed packages' plugins are found by name without it)",
    )


def _import_plugin_modules(names: Sequence[str]) -> None:
    """``--plugin-module``: import each module (it registers its plugins)."""
    import importlib

    if names and os.getcwd() not in sys.path:  # (as python -m finds a module beside you)
        sys.path.insert(0, os.getcwd())
    for name in names:
        try:
            importlib.import_module(name)
        except InputError as exc:
            raise InputError(f"--plugin-module {name}: {exc}") from None
        except Exception as exc:
            message = str(exc).splitlines()[0] if str(exc) else ""
            raise InputError(
                f"--plugin-module {name}: cannot import it ({type(exc).__name__}: {message})"
            ) from None


def _import_parser(sub: argparse._SubParsersAction) -> None:
    imp = sub.add_parser("import", help="convert a trace into Kubernetes manifests")
    kinds = imp.add_subparsers(dest="trace", required=True)
    o = kinds.add_parser(
        "openb",
        help="the Alibaba openb GPU trace (cluster-trace-gpu-v2023), see docs/openb.md",
        description="Write DIR/nodes.json and DIR/pods.json (kubectl-style v1 Lists) from "
        "an openb node list and pod list; `kscore score DIR` then reads them.",
    )
    o.add_argument("nodes_csv", metavar="NODES.csv")
    o.add_argument("pods_csv", metavar="PODS.csv")
    o.add_argument("-o", "--output", required=True, metavar="DIR")
    o.add_argument(
        "--force",
        action="store_true",
        help="write into a non-empty directory that is not an earlier import",
    )
    o.add_argument("--namespace", default="default", metavar="NS")
    o.add_argument(
        "--gpu-model-label",
        default="alibabacloud.com/gpu-card-model",
        metavar="KEY",
        help="node label carrying the GPU model",
    )
    o.add_argument("--max-pods", type=_integer, default=110, metavar="N",
                   help="allocatable pods per node (default 110)")  # fmt: skip
    o.add_argument("--events", metavar="FILE",
                   help="write the pods as timed events instead (arrival at creation_time, "
                   "deletion at deletion_time): kscore simulate DIR --events FILE")  # fmt: skip
    o.add_argument("--qos-priorities", action="store_true",
                   help="set spec.priority from the QoS class: Guaranteed 3000, LS 2000, "
                   "Burstable 1000, BE 0 (made up: the trace has none)")  # fmt: skip


def _import(args: argparse.Namespace) -> int:
    from .io.openb import import_openb

    report = import_openb(
        args.nodes_csv, args.pods_csv, args.output, force=args.force,
        namespace=args.namespace, gpu_model_label=args.gpu_model_label,
        max_pods=args.max_pods, events=args.events, qos_priorities=args.qos_priorities,
    )  # fmt: skip
    print(f"kscore: {report.summary()}", file=sys.stderr)
    return 0


def _integer(text: str) -> int:
    """``int``, with a short message where Python refuses thousands of digits."""
    try:
        return int(text)
    except ValueError:
        digits = sum(c.isdigit() for c in text)
        if digits > 1000:
            raise argparse.ArgumentTypeError(f"an integer of {digits} digits is too long") from None
        shown = text if len(text) <= 40 else text[:39] + "…"
        raise argparse.ArgumentTypeError(f"not an integer: {shown!r}") from None


def _score(args: argparse.Namespace) -> int:
    from .framework.result import parse_scores_mode
    from .io.output import prepare_output
    from .profile import build_framework

    # cheap checks first: flags, then the output location (reserved now: a wrong -o fails
    # before minutes of loading and scoring, and the temporary is removed on any exit)
    _import_plugin_modules(args.plugin_module)
    timed = args.command == "simulate" and args.events is not None
    if timed and (args.scores is not None or args.explain):
        raise InputError("--events: the replay keeps no scores (--scores and --explain do "
                         "not apply)")  # fmt: skip
    if args.command == "simulate" and args.until is not None and not timed:
        raise InputError("--until applies with --events only")
    if args.command == "simulate" and args.retry_nominated and not args.preemption:
        raise InputError("--retry-nominated needs --preemption")
    if timed and args.retry_nominated:
        raise InputError("--retry-nominated does not apply with --events (the queue tries "
                         "a pod again when it would)")  # fmt: skip
    args.scores = "all" if args.scores is None else args.scores
    parse_scores_mode(args.scores, "--scores")
    if args.command == "simulate":
        from .framework.simulation import random_source

        random_source(args.tie_break, args.seed, "--seed")
    config = _config(args)
    if args.plugins is not None:
        _check_plugins(args.plugins)
    if args.percentage_of_nodes_to_score is not None:
        build_framework("", args.percentage_of_nodes_to_score)  # raises the range error
    if timed:
        return _replay(args, config)
    kss = args.format == "kss"
    if kss:  # (every examined node's filter result and every score)
        if "-" in args.paths:
            raise InputError("--format kss reads its inputs twice: give files, not -")
        args.scores, args.explain = "all", True
    with prepare_output("json" if kss else args.format, args.output, args.paths) as out:
        from ._memory import retain_freed_memory
        from ._progress import Progress
        from .api import load_cluster, score, simulate

        retain_freed_memory()
        sequential = args.command == "simulate"
        with _precompiling("simulate" if sequential else "score", args, config):
            cluster = load_cluster(
                args.paths,
                progress=lambda name, size: Progress(
                    size, f"reading {os.path.basename(name)}", quiet=args.quiet, unit="MB"
                ),
                expand_workloads=args.expand_workloads,
            )
            for line in (cluster.warning(), cluster.nothing_pending()):
                if line and not args.quiet:
                    print(f"kscore: {line}", file=sys.stderr)
            what = "scheduling pods" if sequential else "scoring pods"
            bar = Progress(len(cluster.batch), what, quiet=args.quiet)
            run = (partial(simulate, tie_break=args.tie_break, preemption=args.preemption,
                           retry_nominated=args.retry_nominated) if sequential
                   else partial(score, preemption=args.explain and not kss))  # fmt: skip
            try:
                result = run(
                    cluster,
                    plugins=args.plugins,
                    config=config,
                    seed=args.seed,
                    scores=args.scores,
                    explain=args.explain or args.scores == "all",
                    percentage_of_nodes_to_score=args.percentage_of_nodes_to_score,
                    progress=bar.update,
                    notice=None if args.quiet else lambda text: _say(f"kscore: {text}"),
                )
            finally:
                bar.close()
        if kss:
            from .io.kss import KssPods, pending_objects

            result = KssPods(result, pending_objects(args.paths), result.filter_names)
        out.write(result)
    return 0


def _replay(args: argparse.Namespace, config: object) -> int:
    """``simulate --events``: the timed replay with the scheduling queue."""
    from .io.output import prepare_output
    from .queue import read_events, replay_timed

    events = read_events(args.events)  # (checked before any output is reserved)
    with prepare_output(args.format, args.output, [*args.paths, args.events]) as out:
        from ._progress import Progress

        with _precompiling("simulate", args, config):
            horizon = max(events[-1].time_ns // 10**9 if events else 0, int(args.until or 0))
            bar = Progress(horizon, "replaying (simulated seconds)", quiet=args.quiet)
            try:
                result = replay_timed(
                    args.paths, events, config=config, plugins=args.plugins, seed=args.seed,
                    tie_break=args.tie_break, until=args.until, progress=bar.update,
                    percentage_of_nodes_to_score=args.percentage_of_nodes_to_score,
                    notice=None if args.quiet else lambda text: _say(f"kscore: {text}"),
                    preemption=args.preemption,
                )  # fmt: skip
            finally:
                bar.close()
        out.write(result)
    return 0


def _capacity(args: argparse.Namespace) -> int:
    """``capacity``: copies of the template until one fits nowhere; the nodes to add for
    N of them (``--add-nodes``); or where drained nodes' pods go (``--drain``)."""
    from functools import partial as bind

    from .api import load_cluster
    from .capacity_search import (
        DEFAULT_MAX,
        capacity,
        drain,
        nodes_to_add,
        read_object,
        template_pod,
    )
    from .io.output import prepare_output

    _import_plugin_modules(args.plugin_module)
    if (args.drain is None) == (args.pod is None):
        raise InputError("capacity: give --pod FILE (copies of a pod) or --drain NODE...")
    if (args.add_nodes is None) != (args.replicas is None):
        raise InputError("capacity: --add-nodes and --replicas go together")
    if args.drain is not None and (args.add_nodes or args.max is not None):
        raise InputError("capacity: --drain takes no --add-nodes, --replicas or --max")
    config = _config(args)
    if args.plugins is not None:
        _check_plugins(args.plugins)
    options = {"config": config, "plugins": args.plugins, "seed": args.seed,
               "tie_break": args.tie_break,
               "notice": None if args.quiet else lambda t: _say(f"kscore: {t}")}  # fmt: skip
    inputs = list(args.paths)
    if args.pod is not None:
        template = template_pod(read_object(args.pod), f"--pod {args.pod}")
        inputs.append(args.pod)
        if args.add_nodes is not None:
            node = read_object(args.add_nodes)
            inputs.append(args.add_nodes)
            run = bind(nodes_to_add, template=template, node_template=node,
                       replicas=args.replicas, max_nodes=args.max_nodes)  # fmt: skip
        else:
            limit = DEFAULT_MAX if args.max is None else args.max
            run = bind(capacity, template=template, max_replicas=limit)
    else:
        run = bind(drain, nodes=args.drain)
    with prepare_output("json", args.output, inputs) as out:
        with _precompiling("simulate", args, config):
            cluster = load_cluster(args.paths)
            if not args.quiet and (line := cluster.warning()):
                _say(f"kscore: {line}")
            result = run(cluster, **options)
        out.write(result)
    if not args.quiet:
        _say(f"kscore: {result.summary()}")
    return 0


def _sweep(args: argparse.Namespace) -> int:
    """``sweep``: every run of the sweep file, one table of metrics."""
    from ._progress import Progress
    from .io.output import prepare_output
    from .sweep_runs import read_spec, sweep

    path, ray = args.spec, args.ray
    if path is None and isinstance(ray, str) and os.path.exists(ray):  # (--ray SPEC)
        path, ray = ray, True
    if path is None:
        raise InputError("sweep: give the sweep file SPEC")
    if ray is not None:
        from .sweep_ray import ray_module

        ray_module()  # (installed?)
    spec = read_spec(path)
    if args.jobs is not None and args.jobs < 1:
        raise InputError(f"-j {args.jobs}: expected at least 1 process")
    inputs = [path, *(p for snap in spec.snapshots for p in snap)]
    with prepare_output(args.format, args.output, inputs) as out:
        n = len(spec.snapshots) * len(spec.configs) * len(spec.seeds)
        bar = Progress(n, "runs", quiet=args.quiet)
        try:
            result = sweep(spec, jobs=args.jobs, ray=ray, progress=bar.update)
        finally:
            bar.close()
        out.write(result)
    return 0


def _report(args: argparse.Namespace) -> int:
    """``report``: the results drawn in one HTML file."""
    from .io.output import prepare_output
    from .report import build_report, require_plotly

    require_plotly()
    with prepare_output("html", args.output, [*args.results, *args.cluster]) as out:
        report = build_report(
            args.results, cluster=args.cluster, pods=args.pod, top=args.top,
            expand_workloads=args.expand_workloads,
            notice=None if args.quiet else lambda text: _say(f"kscore: {text}"),
        )  # fmt: skip
        out.write(report)
    return 0


def _precompiling(use: str, args: argparse.Namespace, config: object) -> Any:
    """While the command runs: a helper process compiling its kernels in parallel when
    they are not cached yet, and on a terminal (without ``--quiet``) a line saying so."""
    from .precompile import helper, profile_plugins

    tell = not args.quiet and sys.stderr.isatty()
    notice = (lambda text: _say(f"kscore: {text}")) if tell else None
    return helper(use, profile_plugins(config, args.plugins), notice, args.plugin_module)


def _config(args: argparse.Namespace) -> object:
    """The configuration of ``--config`` (checked before any input is read), or None."""
    if args.config is None:
        return None
    if args.plugins is not None:
        from .errors import ConfigError

        raise ConfigError("give score plugins (--plugins) or a configuration (--config), not both")
    return _load_config(args.config)


def _check_plugins(spec: str) -> None:
    """``--plugins`` parsed and its framework built (before any input is read); every
    message names the option."""
    from .errors import ConfigError
    from .profile import build_framework

    try:
        build_framework(spec, what="--plugins")
    except ConfigError as exc:
        if str(exc).startswith("--plugins:"):
            raise
        raise ConfigError(f"--plugins: {exc}") from None


def _load_config(path: str) -> object:
    """The configuration of ``--config PATH``; a path that cannot name a file is refused
    here with the option's name (the file's own errors name the file)."""
    from .config.load import load_config
    from .errors import ConfigError

    if path == "":
        raise ConfigError("--config: empty path")
    if path == "-":
        raise ConfigError("--config -: the configuration is read from a file, not standard input")
    return load_config(path)


def _print_config(args: argparse.Namespace) -> int:
    from .config.dump import dump_config
    from .config.load import default_config
    from .io.output import stdout, to_stdout

    stdout()  # a closed stdout is reported before the configuration is read
    _import_plugin_modules(args.plugin_module)
    cfg = default_config("v1beta3") if args.config is None else _load_config(args.config)
    text = dump_config(cfg)
    to_stdout(lambda stream: stream.write(text))
    return 0


def _warmup(args: argparse.Namespace) -> int:
    from ._progress import Progress
    from .precompile import job_list, warmup
    from .warmup import USES

    processes = args.jobs if args.jobs is not None else min(os.cpu_count() or 1, 4)
    if processes < 1:
        raise InputError(f"--jobs {args.jobs}: expected at least 1")
    _import_plugin_modules(args.plugin_module)
    from .precompile import warmup_plugins

    t0 = time.perf_counter()
    plugins = warmup_plugins()
    bar = Progress(len(job_list(USES, plugins)), "compiling kernels", quiet=args.quiet)
    try:
        n = warmup(processes, bar.update, args.plugin_module)
    finally:
        bar.close()
    if not args.quiet:
        print(
            f"kscore: {n} kernels and plugin entry points compiled or loaded from the cache "
            f"in {time.perf_counter() - t0:.1f} s ({processes} processes)",
            file=sys.stderr,
        )
    return 0


def _cache_command(action: str) -> int:
    from . import _cache
    from ._jit import CACHE
    from .io.output import stdout, to_stdout

    stdout()  # nothing is cleared when its report cannot be shown
    text = (_cache.info(CACHE) if action == "info" else _cache.clear(CACHE)) + "\n"
    to_stdout(lambda stream: stream.write(text))
    return 0


class _Stopped(BaseException):
    """A stop signal other than SIGINT (which raises KeyboardInterrupt), raised in the main
    thread so that ``with``/``finally`` blocks remove temporary output as Ctrl-C does."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


@contextlib.contextmanager
def _stop_signals_unwind() -> Iterator[None]:
    """SIGINT, SIGTERM and SIGHUP raise; the previous handlers are restored on the way out.
    A repeated signal within a second of the first is ignored, so that the cleanup it
    started runs undisturbed; later ones raise again. Signals ignored by the caller (nohup,
    background jobs) stay ignored."""
    first: list[float] = []

    def handler(signum: int, frame: object) -> None:
        now = time.monotonic()
        if first and now - first[0] < 1.0:
            return
        first[:] = [now]
        if signum == signal.SIGINT:
            raise KeyboardInterrupt
        raise _Stopped(signum)

    previous = {}
    try:
        for s in STOP_SIGNALS:
            if signal.getsignal(s) != signal.SIG_IGN:
                previous[s] = signal.signal(s, handler)
    except ValueError:  # not the main thread: leave signals alone
        pass
    try:
        yield
    finally:
        for s, h in previous.items():
            signal.signal(s, h)


def _say(message: str) -> None:
    """A line on stderr, even when stderr itself is gone."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        print(message, file=sys.stderr)


def _silence_stdout() -> None:
    """After a broken pipe: point stdout at /dev/null so that the interpreter's final
    flush does not report it again (as the Python documentation on SIGPIPE advises)."""
    if sys.stdout is None or sys.stdout is not sys.__stdout__:
        return
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


def main(argv: Sequence[str] | None = None) -> int:
    try:
        with _stop_signals_unwind():
            return _main(argv)
    except KeyboardInterrupt:
        _say("kscore: interrupted")
        return 128 + int(signal.SIGINT)
    except _Stopped as stop:
        _say(f"kscore: stopped by {signal.Signals(stop.signum).name}")
        return 128 + stop.signum
    except BrokenPipeError:
        _silence_stdout()
        return 128 + 13  # as if killed by SIGPIPE
    except MemoryError:  # (the output's temporary is removed on the way, as on Ctrl-C)
        _say("kscore: error: out of memory: this input needs more memory than the machine "
             "gives (memory grows with nodes × distinct pod constraints; score the pending "
             "pods in parts, or use --scores none)")  # fmt: skip
        return 1


def run() -> None:
    """The ``kscore`` command: :func:`main`, its output flushed and the exit handlers run,
    then the process ends without the interpreter's teardown: freeing the modules and
    numba's compiled code would take ~0.13 s of every short run, for nothing."""
    code = main()
    try:
        if sys.stdout is not None:
            sys.stdout.flush()
    except BrokenPipeError:
        _silence_stdout()
        code = code or 128 + 13
    except OSError as exc:  # (a full disk, say: the output is incomplete)
        _say(f"kscore: error: writing the output failed: {exc.strerror or exc}")
        code = code or 1
    except ValueError:  # (stdout closed by the embedding program)
        pass
    with contextlib.suppress(OSError, ValueError, AttributeError):
        sys.stderr.flush()
    atexit._run_exitfuncs()
    os._exit(code)


def _main(argv: Sequence[str] | None) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.command in ("score", "simulate"):
            return _score(args)
        if args.command == "capacity":
            return _capacity(args)
        if args.command == "sweep":
            return _sweep(args)
        if args.command == "report":
            return _report(args)
        if args.command == "cache":
            return _cache_command(args.action)
        if args.command == "import":
            return _import(args)
        if args.command == "config":
            return _print_config(args)
        return _warmup(args)
    except InputError as exc:
        _say(f"kscore: error: {exc}")
        return EXIT_USAGE


if __name__ == "__main__":
    run()
