"""Every configuration of tests/config/data against kube-scheduler's recorded verdict
(tests/config/data/expected/, written by ``python -m tests.config.make_expected`` from
goref): the same effective configuration (plugins per extension point, weights, args,
settings, ``--write-config-to`` YAML byte for byte), or the same error message."""

from __future__ import annotations

import json

import pytest

from tests.config.effective import corpus, expected_path, kscore, same

CASES = corpus()


@pytest.mark.parametrize("path", CASES, ids=[f"{p.parent.name}/{p.name}" for p in CASES])
def test_matches_recorded_go(path):
    expected = json.loads(expected_path(path).read_text())
    assert same(kscore(path), expected, path.name) == []


def test_every_case_is_recorded():
    recorded = {p.name for p in expected_path(CASES[0]).parent.iterdir()}
    assert recorded == {expected_path(p).name for p in CASES}


def test_corpus_has_both_outcomes():
    outcomes = [json.loads(expected_path(p).read_text()) for p in CASES]
    assert sum("error" not in o and "crash" not in o for o in outcomes) >= 15
    assert sum("error" in o for o in outcomes) >= 40
