"""A new user's first minutes, timed: the cold start and the warm start of the README's
commands, in fresh processes.

    python benchmarks/startup.py [--warm-runs 5]

With an empty kernel cache (``KSCORE_CACHE_DIR`` set to a new directory):

1. ``kscore score data/embedded --scores top:3 --explain`` (the README's first command):
   every kernel it needs is compiled, a helper process compiling beside it;
2. ``kscore simulate data/embedded``: the sequential kernels on top of those;
3. ``kscore warmup``, then each README command warm, ``--warm-runs`` times (median, min).

Also ``python -c 'import kscore_fast'`` and, for scale, ``import numba`` and its target
context's first use, which every warm command pays. Run it from an installed package (the
README's ``pip install .``: bytecode compiled at install); with ``PYTHONDONTWRITEBYTECODE``
set and an editable install, every start also compiles the package's Python (~0.15 s),
which the table says.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EMBEDDED = str(ROOT / "data" / "embedded")
KSCORE = [sys.executable, "-m", "kscore_fast"]
COMMANDS = {
    "score --scores top:3 --explain": ["score", EMBEDDED, "--scores", "top:3", "--explain"],
    "simulate": ["simulate", EMBEDDED],
    "score --scores none": ["score", EMBEDDED, "--scores", "none"],
}


def timed(cmd: list[str], env: dict[str, str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--warm-runs", type=int, default=5)
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="kscore-startup-") as cache:
        env = {**os.environ, "KSCORE_CACHE_DIR": cache}
        rows.append(("cold: score --scores top:3 --explain", timed([*KSCORE, *COMMANDS[
            "score --scores top:3 --explain"]], env), ""))  # fmt: skip
        rows.append(("cold: simulate (after it)", timed([*KSCORE, "simulate", EMBEDDED], env), ""))
        rows.append(("kscore warmup (the rest)", timed([*KSCORE, "warmup", "--quiet"], env), ""))
        for name, cmd in COMMANDS.items():
            runs = [timed([*KSCORE, *cmd], env) for _ in range(args.warm_runs)]
            rows.append((f"warm: {name}", statistics.median(runs), f"min {min(runs):.2f}"))
    for name, code in (("import kscore_fast", "import kscore_fast"),
                       ("import numba", "import numba"),
                       ("import numba + target context", "import numba; from numba.core.registry "
                        "import cpu_target; cpu_target.target_context.refresh()")):  # fmt: skip
        runs = [timed([sys.executable, "-c", code], dict(os.environ)) for _ in range(5)]
        rows.append((name, statistics.median(runs), ""))
    bytecode = "off" if os.environ.get("PYTHONDONTWRITEBYTECODE") else "on"
    print(f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs, bytecode cache {bytecode}")
    print("\n| what | seconds | |\n|---|---|---|")
    for name, seconds, note in rows:
        print(f"| {name} | {seconds:.2f} | {note} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
