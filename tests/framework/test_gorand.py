"""kscore_fast.framework.gorand against Go's math/rand.

A small Go program (``GO_PROGRAM``) seeds the global source with ``rand.Seed`` and prints
the values of ``CASES`` for every seed of ``SEEDS``; with Go installed the test runs it with
the machine's ``go`` and compares value for value. ``gorand_golden.json`` keeps, per seed,
the first values and the SHA-256 of all of them as Go printed them, so the comparison never
becomes vacuous where Go is missing. Regenerate it with
``python -m tests.framework.test_gorand --write-golden`` (needs Go).
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from kscore_fast.framework import gorand
from kscore_fast.framework.gorand import GoRand, select_host_go

from ..goref import GOREF, goref_missing

GOLDEN = Path(__file__).with_name("gorand_golden.json")

_I64_MAX = (1 << 63) - 1
SEEDS = [0, 1, -1, 2, 42, 89482311, -89482311, 2**31 - 2, 2**31 - 1, 2**31, -(2**31 - 1)]
SEEDS += [2 * (2**31 - 1), _I64_MAX, -(2**63), -(2**63) + 1]
_RANDOM = random.Random(9)
SEEDS += [_RANDOM.getrandbits(64) - 2**63 for _ in range(6)]

_N31 = [1, 2, 3, 5, 7, 10, 36, 100, 1000, 12345, 1 << 30, (1 << 30) + 1, (1 << 31) - 1]
_N63 = [1, 3, 1 << 31, (1 << 31) + 1, 1 << 40, (1 << 62) + 1, 6148914691236517206, _I64_MAX]
_NN = [1, 2, 3, 36, 1000, (1 << 31) - 1, 1 << 31, (1 << 31) + 5, (1 << 62) + 1, _I64_MAX]
#: (op, argument, count) in order, one stream per seed; 1,300 Int63 wrap the register twice
CASES: list[tuple[str, int, int]] = [("int63", 0, 5), ("int63", 0, 1300), ("uint64", 0, 5)]
CASES += [("int31", 0, 5)]
CASES += [("int31n", n, 8) for n in _N31]
CASES += [("int63n", n, 6) for n in _N63]
CASES += [("intn", n, 6) for n in _NN]
CASES += [("intn", k, 1) for _ in range(10) for k in range(2, 41)]  # selectHost's pattern
#: selectHost on these score lists, in order, after the cases
HOSTS: list[list[int]] = [[7], [5, 5], [5, 5, 5, 5], [1, 3, 3, 2, 3], [1, 2, 3, 4], [4, 3, 2, 1]]
HOSTS += [[2, 2, 1, 2, 3, 3, 0, 3], [100] * 36, [0, 1, 1, 0, 1, 1, 1]]

GO_PROGRAM = r"""
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
)

type spec struct {
	Seeds []int64         `json:"seeds"`
	Cases []json.RawMessage `json:"cases"`
	Hosts [][]int64       `json:"hosts"`
}

// selectHost of pkg/scheduler/generic_scheduler.go v1.23.6, on scores only.
func selectHost(scores []int64) int {
	maxScore, selected, cntOfMaxScore := scores[0], 0, 1
	for i, s := range scores[1:] {
		if s > maxScore {
			maxScore, selected, cntOfMaxScore = s, i+1, 1
		} else if s == maxScore {
			cntOfMaxScore++
			if rand.Intn(cntOfMaxScore) == 0 {
				selected = i + 1
			}
		}
	}
	return selected
}

func main() {
	var sp spec
	if err := json.NewDecoder(os.Stdin).Decode(&sp); err != nil {
		panic(err)
	}
	out := map[string][][]string{}
	for _, seed := range sp.Seeds {
		rand.Seed(seed) // the global source, as goref seeds it
		var vals []string
		for _, raw := range sp.Cases {
			var c []interface{}
			dec := json.NewDecoder(bytes.NewReader(raw))
			dec.UseNumber()
			if err := dec.Decode(&c); err != nil {
				panic(err)
			}
			op := c[0].(string)
			n, _ := c[1].(json.Number).Int64()
			count, _ := c[2].(json.Number).Int64()
			for i := int64(0); i < count; i++ {
				var v string
				switch op {
				case "int63":
					v = fmt.Sprint(rand.Int63())
				case "uint64":
					v = fmt.Sprint(rand.Uint64())
				case "int31":
					v = fmt.Sprint(rand.Int31())
				case "int31n":
					v = fmt.Sprint(rand.Int31n(int32(n)))
				case "int63n":
					v = fmt.Sprint(rand.Int63n(n))
				case "intn":
					v = fmt.Sprint(rand.Intn(int(n)))
				default:
					panic(op)
				}
				vals = append(vals, v)
			}
		}
		for _, h := range sp.Hosts {
			vals = append(vals, fmt.Sprint(selectHost(h)))
		}
		out[fmt.Sprint(seed)] = append(out[fmt.Sprint(seed)], vals)
	}
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		panic(err)
	}
}
"""


def python_values(seed: int) -> list[str]:
    """What GO_PROGRAM prints for ``seed``, from gorand."""
    rng = GoRand(seed)
    vals: list[str] = []
    for op, n, count in CASES:
        out = rng.draw(op, np.full(count, n, dtype=np.int64))
        if op == "uint64":
            vals += [str(int(v) & ((1 << 64) - 1)) for v in out]
        else:
            vals += [str(int(v)) for v in out]
    vals += [str(select_host_go(h, rng)) for h in HOSTS]
    return vals


def digest(vals: list[str]) -> str:
    return hashlib.sha256("\n".join(vals).encode()).hexdigest()


def find_go() -> str | None:
    go = os.environ.get("GO") or shutil.which("go")
    if go is None and os.access("/usr/local/go/bin/go", os.X_OK):
        go = "/usr/local/go/bin/go"
    return go


def run_go(tmp: Path) -> tuple[dict[str, list[str]], str]:
    """GO_PROGRAM's values per seed (``rand.Seed`` needs the module's go line < 1.24), and
    the Go version; skips without Go."""
    go = find_go()
    if go is None:
        pytest.skip("no Go toolchain (go on PATH, /usr/local/go/bin/go or $GO)")
    (tmp / "go.mod").write_text("module gorandgolden\n\ngo 1.19\n")
    (tmp / "main.go").write_text(GO_PROGRAM)
    env = dict(os.environ, GOTOOLCHAIN="local", GOFLAGS="-buildvcs=false")
    spec = json.dumps({"seeds": SEEDS, "cases": CASES, "hosts": HOSTS})
    proc = subprocess.run(
        [go, "run", "."], cwd=tmp, input=spec, capture_output=True, text=True, env=env, timeout=300
    )
    assert proc.returncode == 0, proc.stderr
    version = subprocess.run(
        [go, "env", "GOVERSION"], capture_output=True, text=True, env=env, check=True
    ).stdout.strip()
    return {k: v[0] for k, v in json.loads(proc.stdout).items()}, version


def golden_document(go_values: dict[str, list[str]], version: str) -> dict[str, Any]:
    return {
        "comment": "Go math/rand after rand.Seed(seed): tests/framework/test_gorand.py",
        "go": version,
        "cases": [list(c) for c in CASES],
        "hosts": HOSTS,
        "seeds": {
            str(s): {"head": go_values[str(s)][:5], "count": len(go_values[str(s)]),
                     "sha256": digest(go_values[str(s)])}
            for s in SEEDS
        },
    }  # fmt: skip


def test_rng_cooked_is_computed_as_go_says():
    table = gorand.compute_rng_cooked()
    assert table.dtype == np.int64
    assert np.array_equal(table, gorand.RNG_COOKED)
    assert gorand._format_cooked(table) == gorand._RNG_COOKED_TEXT.lstrip("\n")


def test_rng_cooked_equals_go_source():
    go = find_go()
    root = None
    if go is not None:
        root = subprocess.run([go, "env", "GOROOT"], capture_output=True, text=True).stdout.strip()
    src = Path(root or "/nonexistent") / "src" / "math" / "rand" / "rng.go"
    if not src.is_file():
        pytest.skip("Go's src/math/rand/rng.go is not installed")
    text = src.read_text()
    body = text[text.index("rngCooked [rngLen]int64") :]
    body = body[body.index("{") + 1 : body.index("}")]
    table = [int(t) for t in re.findall(r"-?\d+", body)]
    assert table == gorand.RNG_COOKED.tolist()


def test_jump_register_equals_stepping():
    vec = np.random.default_rng(3).integers(-(2**63), 2**63 - 1, gorand.RNG_LEN, dtype=np.int64)
    for steps in (0, 1, 272, 273, 606, 607, 608, 1500):
        v = vec.view(np.uint64).copy()
        tap, feed = 0, gorand.RNG_LEN - gorand.RNG_TAP
        for _ in range(steps):
            tap, feed = (tap - 1) % gorand.RNG_LEN, (feed - 1) % gorand.RNG_LEN
            v[feed : feed + 1] += v[tap : tap + 1]
        assert np.array_equal(gorand.jump_register(vec, steps), v.view(np.int64)), steps


def test_golden_matches_python():
    golden = json.loads(GOLDEN.read_text())
    assert golden["cases"] == [list(c) for c in CASES] and golden["hosts"] == HOSTS
    assert list(golden["seeds"]) == [str(s) for s in SEEDS]
    for s in SEEDS:
        vals, g = python_values(s), golden["seeds"][str(s)]
        assert (vals[:5], len(vals), digest(vals)) == (g["head"], g["count"], g["sha256"]), s


def test_go_matches_python_and_golden(tmp_path):
    go_values, version = run_go(tmp_path)
    for s in SEEDS:
        vals, want = python_values(s), go_values[str(s)]
        assert len(vals) == len(want), s
        bad = [(i, v, w) for i, (v, w) in enumerate(zip(vals, want, strict=True)) if v != w]
        assert not bad, f"seed {s}: first differences (index, python, go) {bad[:5]}"
    golden = golden_document(go_values, version)
    assert json.loads(GOLDEN.read_text())["seeds"] == golden["seeds"]


def test_known_values():
    # Go: rand.Seed(1); rand.Int63() x3 (the classic Go 1 stream)
    rng = GoRand(1)
    assert [rng.int63() for _ in range(3)] == [
        5577006791947779410,
        8674665223082153551,
        6129484611666145821,
    ]
    # the seed reduction: 0, multiples of 2**31-1 and 89482311 are the same seed; x and
    # x - (2**31-1) too (Go's remainder made positive)
    for s in (2**31 - 1, 2 * (2**31 - 1), -(2**31 - 1), 89482311):
        assert GoRand(s).int63() == GoRand(0).int63()
    assert GoRand(-1).int63() == GoRand(2**31 - 2).int63()
    assert GoRand(5).int63() != GoRand(6).int63()


def test_wrapper():
    a = GoRand(7)
    b = a.copy()
    assert [a.intn(10) for _ in range(50)] == [b.intn(10) for _ in range(50)]
    a.seed(7)
    assert a.int63() == GoRand(7).int63()
    assert 0 <= GoRand(3).uint64() < 2**64
    for bad in (lambda: a.intn(0), lambda: a.int31n(-1), lambda: a.int63n(0)):
        with pytest.raises(ValueError, match="invalid argument"):
            bad()
    with pytest.raises(OverflowError):
        GoRand(2**63)
    with pytest.raises(ValueError, match="invalid argument to Int31n"):
        a.int31n(2**31)


@pytest.mark.parametrize(
    ("totals", "expected"),
    [([9], 0), ([1, 5, 3], 1), ([5, 4, 3, 2], 0), ([1, 2, 3, 4], 3), ([3, 3], None)],
)
def test_select_host_hand_made(totals, expected):
    rng = GoRand(11)
    got = select_host_go(totals, rng)
    if expected is not None:
        assert got == expected
    else:
        assert got in (0, 1)


def test_select_host_draws_exactly_as_go():
    totals = [2, 2, 1, 2, 3, 3, 0, 3]
    # ties with 2 at index 1 (count 2) and 3, then a new max 3 at 4, ties at 5 and 7:
    # Intn(2), Intn(3), [reset], Intn(2), Intn(3)
    rng, ref = GoRand(5), GoRand(5)
    picks = [ref.intn(2), ref.intn(3), ref.intn(2), ref.intn(3)]
    want = 4
    if picks[2] == 0:
        want = 5
    if picks[3] == 0:
        want = 7
    assert select_host_go(totals, rng) == want
    assert rng.int63() == ref.int63()  # the same number of draws
    # no draw: one entry, strictly increasing, strictly decreasing
    for totals in ([4], [1, 2, 3], [3, 2, 1]):
        rng = GoRand(5)
        select_host_go(totals, rng)
        assert rng.int63() == GoRand(5).int63()
    with pytest.raises(ValueError, match="empty priorityList"):
        select_host_go([], GoRand(1))


def test_select_host_uniform_and_kernel_agrees():
    rng, state = GoRand(123), gorand.new_state()
    gorand._seed_kernel(state, 123)
    counts = [0] * 4
    for _ in range(4000):
        totals = np.array([7, 1, 7, 7, 2, 7], dtype=np.int64)
        got = select_host_go(totals.tolist(), rng)
        assert gorand._select_host_kernel(totals, state) == got
        counts[[0, 2, 3, 5].index(got)] += 1
    assert min(counts) > 850, counts
    assert np.array_equal(rng.state, state)
    assert gorand._select_host_kernel(np.zeros(0, dtype=np.int64), state) == -1


@pytest.mark.goref
@pytest.mark.skipif(goref_missing() is not None, reason=str(goref_missing()))
@pytest.mark.parametrize(
    ("nodes", "seed", "metrics_draw"), [(20, 3, False), (250, -5, False), (250, 2**40, True)]
)
def test_goref_simulate_draws_as_select_host_go(tmp_path, nodes, seed, metrics_draw):
    """goref simulate with no plugins: every feasible node scores 1, so each pod's host is
    the node selectHost draws among the numFeasibleNodesToFind nodes from
    nextStartNodeIndex (120 of 250, rotating); the sequence must be select_host_go's."""
    docs = [f"kind: Node\nmetadata: {{name: n{i:03d}}}\n" for i in range(nodes)]
    docs += [f"kind: Pod\nmetadata: {{name: p{i:02d}}}\nspec: {{containers: [{{name: c}}]}}\n"
             for i in range(30)]  # fmt: skip
    (tmp_path / "c.yaml").write_text("---\n".join(docs))
    flags = ["--plugins", "", "--seed", str(seed), "--scores", "none", "--quiet"]
    proc = subprocess.run(
        [str(GOREF), "simulate", str(tmp_path / "c.yaml"), *flags]
        + (["--plugin-metrics-draw"] if metrics_draw else []),
        capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    got = [r["host"] for r in json.loads(proc.stdout)["results"]]
    rng, start, want = GoRand(seed), 0, []
    feasible = nodes if nodes < 100 else nodes * 48 // 100  # adaptive: 50 - nodes/125 %
    for _ in range(30):
        if metrics_draw:
            rng.intn(100)  # scheduleOne's plugin-metrics sample
        want.append(f"n{(start + select_host_go([1] * feasible, rng)) % nodes:03d}")
        start = (start + feasible) % nodes
    assert got == want


if __name__ == "__main__" and sys.argv[1:] == ["--write-golden"]:
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        values, go_version = run_go(Path(d))
    doc = golden_document(values, go_version)
    lines = [f" {json.dumps(k)}: {json.dumps(v)}" for k, v in doc.items() if k != "seeds"]
    seeds = [f"  {json.dumps(k)}: {json.dumps(v)}" for k, v in doc["seeds"].items()]
    lines.append(' "seeds": {\n' + ",\n".join(seeds) + "\n }")
    GOLDEN.write_text("{\n" + ",\n".join(lines) + "\n}\n")
    print(f"wrote {GOLDEN}")
