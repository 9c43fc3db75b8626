"""Record goref's verdict on every configuration of tests/config/data (valid/, invalid/)
into tests/config/data/expected/, so that tests/config/test_golden.py checks kscore
against kube-scheduler without Go. Run after changing the corpus:

    benchmarks/goref/build.sh && python -m tests.config.make_expected
"""

from __future__ import annotations

import json

from tests.config.effective import corpus, expected_path, goref


def main() -> None:
    for path in corpus():
        out = goref(path)
        expected_path(path).write_text(json.dumps(out, sort_keys=True) + "\n")
        verdict = "error" if "error" in out else "crash" if "crash" in out else "ok"
        print(f"{path.parent.name}/{path.name}: {verdict}")


if __name__ == "__main__":
    main()
