"""kscore's configuration handling == the real kube-scheduler v1.23.6's, through
``goref config`` (benchmarks/goref/config.go): decoding, defaults, merging, validation and
the framework's profiles, on the recorded corpus and on seeded random configurations
(``KSCORE_CONFIG_DIFF_CASES``, default 150): the same effective configuration or the same
error message."""

from __future__ import annotations

import json
import os

import pytest

from kscore_fast.config import default_config

from ..goref import goref_missing
from .effective import corpus, effective, expected_path, goref, kscore, same
from .random_configs import random_config

pytestmark = [
    pytest.mark.goref,
    pytest.mark.skipif(goref_missing() is not None, reason=str(goref_missing())),
]

CASES = corpus()
N_RANDOM = int(os.environ.get("KSCORE_CONFIG_DIFF_CASES", 150))


def test_defaults_without_a_file():
    assert same(effective(default_config()), goref(None), "default") == []


@pytest.mark.parametrize("path", CASES, ids=[f"{p.parent.name}/{p.name}" for p in CASES])
def test_corpus(path):
    go = goref(path)
    assert same(kscore(path), go, path.name) == []
    recorded = json.loads(expected_path(path).read_text())
    assert recorded == go, "stale recording: run python -m tests.config.make_expected"


@pytest.mark.parametrize("seed", range(N_RANDOM))
def test_random_configurations(tmp_path, seed):
    doc = random_config(seed)
    path = tmp_path / ("c.json" if seed % 4 == 0 else "c.yaml")
    path.write_text(json.dumps(doc, indent=None if seed % 4 == 0 else 2))
    assert same(kscore(path), goref(path), f"seed {seed}") == [], json.dumps(doc, indent=1)
