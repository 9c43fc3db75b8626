"""``golog.go_log`` == Go's ``math.Log``, bit for bit (scoring.go's
``topologyNormalizingWeight``), compiled and as plain Python.

``golog.json`` holds Go's results for every ``float64(size + 2)`` up to 2,050 and for
inputs where libm's ``log`` differs from Go's in the last bit; with a Go toolchain on the
machine, a tiny Go program also checks 40,000 fresh random inputs (subnormals excluded:
amd64's ``archLog`` does not normalize them, and PodTopologySpread never takes them).
"""

from __future__ import annotations

import json
import math
import os
import shutil
import struct
import subprocess
from pathlib import Path

import numpy as np
import pytest

from kscore_fast.plugins.podtopologyspread.golog import go_log

HERE = Path(__file__).resolve().parent

GO_PROGRAM = """package main

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"strconv"
)

func main() { // float64 bit patterns in, math.Log's bit patterns out, one a line
	sc := bufio.NewScanner(os.Stdin)
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	for sc.Scan() {
		b, err := strconv.ParseUint(sc.Text(), 10, 64)
		if err != nil {
			panic(err)
		}
		fmt.Fprintln(w, math.Float64bits(math.Log(math.Float64frombits(b))))
	}
}
"""


def bits(f: float) -> int:
    return struct.unpack("<Q", struct.pack("<d", f))[0]


def unbits(b: int) -> float:
    return struct.unpack("<d", struct.pack("<Q", b))[0]


def go_logs(inputs: list[float], tmp: Path) -> list[int]:
    """Go's ``math.Log`` bits of ``inputs``, from the machine's ``go``."""
    (tmp / "main.go").write_text(GO_PROGRAM)
    out = subprocess.run(
        ["go", "run", str(tmp / "main.go")], input="".join(f"{bits(x)}\n" for x in inputs),
        capture_output=True, text=True, check=True, cwd=tmp,
        env={**os.environ, "GOTOOLCHAIN": "local", "GOFLAGS": "-buildvcs=false"},
    )  # fmt: skip
    return [int(x) for x in out.stdout.split()]


def _table() -> list[tuple[float, int]]:
    return [(unbits(a), b) for a, b in json.loads((HERE / "golog.json").read_text())]


def test_recorded_values():
    table = _table()
    assert len(table) > 2000
    for x, want in table:
        assert bits(go_log.py_func(x)) == want, x
        assert bits(go_log(x)) == want, x


def test_libm_differs_on_recorded_values():
    """The reason for the port: libm's log is not Go's on some of these inputs."""
    assert any(bits(math.log(x)) != want for x, want in _table() if x > 0)


def test_special_cases():
    assert math.isnan(go_log(-1.0)) and math.isnan(go_log(math.nan))
    assert go_log(0.0) == -math.inf and go_log(math.inf) == math.inf


@pytest.mark.skipif(shutil.which("go") is None, reason="no Go toolchain")
def test_against_go(tmp_path):
    rng = np.random.default_rng(20261203)
    xs = [*rng.uniform(0.0, 1e7, 20000).tolist(),
          *np.exp(rng.uniform(-700.0, 700.0, 20000)).tolist()]  # fmt: skip
    for x, want in zip(xs, go_logs(xs, tmp_path), strict=True):
        assert bits(go_log(x)) == want, x
