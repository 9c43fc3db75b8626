"""``framework.gosort.sort_slice`` leaves slices in the order Go's ``sort.Slice`` does,
with the inconsistent comparator kube-scheduler sorts preemption victims with
(``util.MoreImportantPod``, ``time.Now()`` for pods without a start time): checked
against the machine's Go on random cases of every size class of the algorithm
(insertion sort, median of three, ninther, heap sort fallback, patterns)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from kscore_fast.framework.gosort import sort_slice

PROGRAM = Path(__file__).parent / "gosort" / "main.go"


def _less(a: tuple[int, int], b: tuple[int, int]) -> bool:
    if a[0] != b[0]:
        return a[0] > b[0]
    if a[1] < 0:
        return b[1] < 0
    if b[1] < 0:
        return True
    return a[1] < b[1]


def _cases() -> list[list[tuple[int, int]]]:
    rng = np.random.default_rng(7)
    cases = []
    for n in [0, 1, 2, 3, 7, 8, 12, 13, 20, 49, 50, 51, 64, 100, 257, 1000]:
        for shape in range(6):
            prio = rng.integers(0, [1, 3, 10, 1000, 2, 5][shape], size=n)
            start = rng.integers(-1, [1, 3, 100, 10**6, 1, 50][shape], size=n)
            if shape == 4:  # sorted, then reversed: the hints and partial insertion sort
                prio = np.sort(prio)[::-1] if n % 2 else np.sort(prio)
            cases.append([(int(p), int(s)) for p, s in zip(prio, start, strict=True)])
    return cases


@pytest.mark.skipif(shutil.which("go") is None, reason="needs the Go toolchain")
def test_sort_slice_equals_go(tmp_path):
    cases = _cases()
    binary = tmp_path / "gosort"
    subprocess.run(["go", "build", "-o", str(binary), str(PROGRAM)], check=True,
                   cwd=PROGRAM.parent, env={**os.environ, "GO111MODULE": "off"})  # fmt: skip
    done = subprocess.run([str(binary)], input=json.dumps(cases), capture_output=True,
                          text=True, check=True)  # fmt: skip
    want = json.loads(done.stdout)
    for items, order in zip(cases, want, strict=True):
        got = list(range(len(items)))
        sort_slice(got, lambda i, j, items=items: _less(items[i], items[j]))
        assert got == order, items


def test_sort_slice_sorts_with_a_consistent_comparator():
    rng = np.random.default_rng(3)
    for n in range(0, 300, 7):
        values = rng.integers(0, 50, size=n).tolist()
        got = list(values)
        sort_slice(got, lambda a, b: a < b)
        assert got == sorted(values)
