"""First-run compile time and warm start of ``kscore score`` on the embedded cluster.

    python benchmarks/startup.py

Runs the CLI in fresh processes: once with an empty numba cache (``NUMBA_CACHE_DIR`` set
to a new directory: every kernel is compiled), then several times with that cache warm.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CMD = [sys.executable, "-m", "kscore_fast", "score", str(ROOT / "data" / "embedded"), "--quiet"]


def timed(env: dict[str, str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(CMD, env=env, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t0


def main() -> int:
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        cold = timed(env)
        warm = [timed(env) for _ in range(5)]
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import kscore_fast"], check=True)
    imp = time.perf_counter() - t0
    print(
        f"kscore score data/embedded: first run (empty cache, compiles) {cold:.2f} s; "
        f"warm start median {statistics.median(warm):.2f} s (min {min(warm):.2f} s); "
        f"python -c 'import kscore_fast' {imp:.2f} s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
