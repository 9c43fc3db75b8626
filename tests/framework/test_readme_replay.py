"""The README's openb replay example runs as written, on the committed openb sample, and
gives what ``benchmarks/replay_openb.py`` (whose hosts are compared with Go's) gives."""

from __future__ import annotations

import contextlib
import io
import os
import re
from pathlib import Path

from benchmarks.replay_openb import replay, trace_events
from kscore_fast import Simulator, load_cluster

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "data" / "openb-sample" / "manifests"


def _example() -> str:
    readme = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", readme, re.S)
    (block,) = [b for b in blocks if "sim.replay(" in b and "deletion-time" in b]
    return block


def test_the_readme_replay_runs_on_the_sample(tmp_path, monkeypatch):
    (tmp_path / "openb").symlink_to(SAMPLE)
    monkeypatch.chdir(tmp_path)
    scope: dict = {}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(_example(), "README.md", "exec"), scope)
    events = trace_events(SAMPLE / "pods.json")
    hosts = replay(Simulator(load_cluster([os.fspath(SAMPLE)]), tie_break="go-rand", seed=1),
                   events)  # fmt: skip
    result = scope["result"]
    assert dict(zip(result.pod_names, result.host_names, strict=True)) == hosts
    assert out.getvalue() == f"{sum(h is not None for h in hosts.values())} placed\n"
    assert any(op == "delete" for op, _ in events)
