"""Cached kernels load without parsing their linking bitcode (``kscore_fast/_symbol_table``):
the symbols they define come from a table in the kernel cache, a kernel compiled later
still links them, and a broken table costs only the parse it was saving."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# a run of cached kernels, then a new kernel that calls one of them (numba links the
# cached kernel's bitcode into it: the lazily parsed module must serve that)
_PROGRAM = """
import json, sys
import numba
from kscore_fast import _symbol_table
from kscore_fast.framework import gorand
r = gorand.GoRand(7)
draws = [r.int63() for _ in range(3)] + [r.intn(1000)]
out = {"draws": draws, "added": len(_symbol_table._added)}
if sys.argv[1] == "link":
    @numba.njit
    def user(state, seed):
        gorand._seed_kernel(state, seed)
        return state.sum()
    state = gorand.new_state()
    out["linked"] = int(user(state, 7))
    other = gorand.GoRand(7)
    out["expected"] = int(other.state.sum())
print(json.dumps(out))
"""


def _run(cache: Path, mode: str = "load") -> dict:
    env = {**os.environ, "KSCORE_CACHE_DIR": str(cache)}
    done = subprocess.run([sys.executable, "-c", _PROGRAM, mode], capture_output=True,
                          text=True, env=env, timeout=600, cwd=ROOT)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


def _table(cache: Path) -> Path:
    found = list(cache.glob("*/symbols.json"))
    assert len(found) == 1, found
    return found[0]


def test_cached_kernels_load_from_the_table_and_still_link(tmp_path):
    compiled = _run(tmp_path)  # compiles: nothing unserialized, no table
    assert not list(tmp_path.glob("*/symbols.json"))
    first = _run(tmp_path)  # loads, parsing each entry once: the table is written
    table = json.loads(_table(tmp_path).read_text())
    assert first["added"] == len(table) > 0
    assert all(names for names in table.values())
    again = _run(tmp_path, "link")  # loads from the table, then compiles against it
    assert again["added"] == 0
    assert compiled["draws"] == first["draws"] == again["draws"]
    assert again["linked"] == again["expected"]


def test_a_broken_table_is_read_as_empty_and_written_anew(tmp_path):
    baseline = _run(tmp_path)
    _run(tmp_path)
    path = _table(tmp_path)
    entries = len(json.loads(path.read_text()))
    for garbage in ("{not json", json.dumps(["a list"]), json.dumps({"k": [1, 2]})):
        path.write_text(garbage)
        done = _run(tmp_path)
        assert done["draws"] == baseline["draws"]
        assert done["added"] == entries
        assert len(json.loads(path.read_text())) == entries
