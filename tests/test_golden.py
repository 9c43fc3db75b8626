"""kscore == golden outputs of the real kube-scheduler v1.23.6, recorded by goref.

data/golden/selectorspread.jsonl.gz (regenerate with benchmarks/goref/make_golden.py)
holds a few hundred scenarios and goref's output for them; no Go is needed here.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from kscore_fast.api import load_cluster, score

from .goref import compare

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "golden" / "selectorspread.jsonl.gz"


def _cases():
    with gzip.open(GOLDEN, "rt", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh]


CASES = _cases()


def test_golden_set_is_substantial():
    assert len(CASES) >= 250
    assert sum(len(c["output"]["results"]) for c in CASES) > 1000


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_matches_kube_scheduler(case):
    kwargs = {"plugins": "SelectorSpread", **case["kwargs"]}  # recorded with that default
    ours = score(load_cluster(objects=[case["input"]]), **kwargs).to_dict()
    diffs = compare(ours, case["output"])
    assert not diffs, "\n".join(diffs[:20])
