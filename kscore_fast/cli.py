"""``kscore``: the command line. Parse → load → score → write; no logic of its own.

Exit codes: 0 success, 2 bad input or usage (message on stderr, no traceback).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence

from . import __version__
from .errors import InputError

EXIT_USAGE = 2


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="kscore",
        description="kube-scheduler v1.23.6 node scoring, bit-exact and vectorized.",
    )
    p.add_argument("--version", action="version", version=f"kscore_fast {__version__}")
    sub = p.add_subparsers(dest="command", required=True)

    s = sub.add_parser(
        "score",
        help="score every pending pod of a cluster against every feasible node",
        description="Score the pending pods (pods without spec.nodeName) of the given "
        "manifests against the cluster they describe, as kube-scheduler v1.23.6 would.",
    )
    s.add_argument("paths", nargs="+", metavar="PATH", help="manifest files or directories")
    s.add_argument(
        "--plugins",
        default="SelectorSpread",
        metavar="NAME[=WEIGHT],...",
        help='score plugins and weights (default: SelectorSpread; "" for none)',
    )
    s.add_argument("--seed", type=int, default=0, help="tie-break seed (default 0)")
    s.add_argument("--format", choices=("json", "parquet", "arrow"), default="json")
    s.add_argument("-o", "--output", metavar="FILE", help="output file (stdout when absent)")
    s.add_argument(
        "--scores",
        default="all",
        metavar="all|top:K|none",
        help="which node scores to write per pod (default all)",
    )
    s.add_argument(
        "--percentage-of-nodes-to-score",
        type=int,
        default=0,
        metavar="P",
        help="as in KubeSchedulerConfiguration (default 0: adaptive, like v1.23)",
    )
    s.add_argument("--quiet", action="store_true", help="no progress bar, no warnings")

    sub.add_parser("warmup", help="compile (and cache) every kernel once")
    c = sub.add_parser("cache", help="show or clear the compiled-kernel cache")
    c.add_argument("action", choices=("info", "clear"))
    return p


def _score(args: argparse.Namespace) -> int:
    from ._memory import retain_freed_memory
    from ._progress import Progress
    from .api import load_cluster, score
    from .io.output import write_result

    retain_freed_memory()
    cluster = load_cluster(args.paths)
    warning = cluster.warning()
    if warning and not args.quiet:
        print(f"kscore: {warning}", file=sys.stderr)
    bar = Progress(len(cluster.batch), "scoring pods", quiet=args.quiet)
    try:
        result = score(
            cluster,
            plugins=args.plugins,
            seed=args.seed,
            scores=args.scores,
            percentage_of_nodes_to_score=args.percentage_of_nodes_to_score,
            progress=bar.update,
        )
    finally:
        bar.close()
    write_result(result, args.format, args.output)
    return 0


def _warmup() -> int:
    from .warmup import warmup

    t0 = time.perf_counter()
    n = warmup()
    print(
        f"kscore: {n} kernels compiled or loaded from cache in {time.perf_counter() - t0:.2f}s",
        file=sys.stderr,
    )
    return 0


def _cache_command(action: str) -> int:
    from . import _cache
    from ._jit import CACHE

    print(_cache.info(CACHE) if action == "info" else _cache.clear(CACHE))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.command == "score":
            return _score(args)
        if args.command == "cache":
            return _cache_command(args.action)
        return _warmup()
    except InputError as exc:
        print(f"kscore: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        return 1


if __name__ == "__main__":
    sys.exit(main())
