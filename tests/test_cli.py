"""``kscore score``: the JSON contract, formats, exit codes, atomic output."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from kscore_fast.cli import main

ROOT = Path(__file__).resolve().parents[1]
EMBEDDED = ROOT / "data" / "embedded"


@pytest.fixture(scope="module")
def embedded_json(tmp_path_factory):
    out = tmp_path_factory.mktemp("out") / "r.json"
    assert main(["score", str(EMBEDDED), "-o", str(out), "--quiet"]) == 0
    return json.loads(out.read_text())


def test_json_contract(embedded_json):
    results = embedded_json["results"]
    assert len(results) == 40
    for r in results:
        assert set(r) == {"pod", "host", "feasibleNodes", "evaluatedNodes", "error", "scores"}
        assert r["error"] is None and r["feasibleNodes"] == r["evaluatedNodes"] == 36
        assert len(r["scores"]) == 36
        top = max(s["total"] for s in r["scores"])
        assert r["host"] in {s["node"] for s in r["scores"] if s["total"] == top}
        for s in r["scores"]:
            assert set(s) == {"node", "total", "plugins"}
            p = s["plugins"]["SelectorSpread"]
            assert set(p) == {"raw", "normalized", "weighted"}
            assert 0 <= p["normalized"] <= 100 and p["weighted"] == p["normalized"] == s["total"]


def test_seed_reproducible_and_matters(tmp_path, embedded_json):
    out = tmp_path / "again.json"
    assert main(["score", str(EMBEDDED), "-o", str(out), "--quiet", "--seed", "0"]) == 0
    assert json.loads(out.read_text()) == embedded_json
    assert main(["score", str(EMBEDDED), "-o", str(out), "--quiet", "--seed", "1"]) == 0
    other = json.loads(out.read_text())["results"]
    assert any(a["host"] != b["host"] for a, b in zip(other, embedded_json["results"], strict=True))


def test_parquet_and_arrow_tables(tmp_path, embedded_json):
    for fmt, ext in (("parquet", "parquet"), ("arrow", "arrow")):
        out = tmp_path / fmt
        assert main(["score", str(EMBEDDED), "--format", fmt, "-o", str(out), "--quiet"]) == 0
        if fmt == "parquet":
            scores = pq.read_table(out / f"scores.{ext}")
            placements = pq.read_table(out / f"placements.{ext}")
        else:
            import pyarrow.feather as feather

            scores = feather.read_table(out / f"scores.{ext}")
            placements = feather.read_table(out / f"placements.{ext}")
        assert scores.column_names == [
            "pod",
            "node",
            "plugin",
            "raw",
            "normalized",
            "weighted",
            "total",
        ]
        assert scores.num_rows == 40 * 36
        assert placements.column_names == ["pod", "host", "feasible", "evaluated", "error"]
        hosts = dict(
            zip(placements["pod"].to_pylist(), placements["host"].to_pylist(), strict=True)
        )
        assert hosts == {r["pod"]: r["host"] for r in embedded_json["results"]}


def test_scores_none_and_top(tmp_path, embedded_json):
    out = tmp_path / "top.json"
    assert main(["score", str(EMBEDDED), "--scores", "top:3", "-o", str(out), "--quiet"]) == 0
    top = json.loads(out.read_text())["results"]
    for t, f in zip(top, embedded_json["results"], strict=True):
        assert t["scores"] == sorted(f["scores"], key=lambda s: -s["total"])[:3]


def _run(*args, cwd=None):
    return subprocess.run(
        [sys.executable, "-m", "kscore_fast", *args], capture_output=True, text=True, cwd=cwd
    )


def test_bad_input_exit_2_no_traceback_no_output(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("kind: Pod\nmetadata: {name: p, labels: {a: 'b c'}}\n")
    out = tmp_path / "out.json"
    proc = _run("score", str(bad), "-o", str(out))
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert str(bad) in proc.stderr and "Pod default/p" in proc.stderr
    assert "metadata.labels.a" in proc.stderr
    assert not out.exists() and list(tmp_path.iterdir()) == [bad]


@pytest.mark.parametrize(
    "plugins,message",
    [
        ("Nope", 'Score Plugin "Nope" does not exist'),
        ("NodeResourcesFit", "not implemented in kscore_fast yet"),
        ("PrioritySort", "does not extend ScorePlugin"),
        ("SelectorSpread=-2", "non-negative integer"),
        ("SelectorSpread,,", "malformed entry"),
        ("=3", "malformed entry"),
        ("SelectorSpread,SelectorSpread", "already registered"),
    ],
)
def test_bad_plugins(plugins, message, capsys):
    assert main(["score", str(EMBEDDED), "--plugins", plugins, "--quiet"]) == 2
    err = capsys.readouterr().err
    assert message in err and err.startswith("kscore: error:")


def test_warning_line_and_quiet(tmp_path):
    proc = _run("score", str(EMBEDDED), "--scores", "none", "-o", str(tmp_path / "o.json"))
    assert proc.returncode == 0
    assert proc.stderr.strip() == (
        "kscore: skipped 27 objects of unused kinds (ConfigMap 2, CronJob 1, DaemonSet 3, "
        "Deployment 10, Endpoints 1, Job 4, Namespace 6)"
    )
    quiet = _run("score", str(EMBEDDED), "--quiet", "--scores", "none")
    assert quiet.returncode == 0 and quiet.stderr == ""
    assert json.loads(quiet.stdout)["results"][0]["scores"] == []


def test_missing_path():
    proc = _run("score", "/nonexistent/x.yaml")
    assert proc.returncode == 2 and "no such file or directory" in proc.stderr


def test_streamed_json_equals_result_dict():
    from kscore_fast.api import load_cluster, score
    from kscore_fast.io.output import iter_json

    from .scenarios import scenario

    for seed in range(30):
        for plugins in ("SelectorSpread=2", ""):
            r = score(load_cluster(objects=scenario(seed)), plugins=plugins)
            assert json.loads("".join(iter_json(r))) == r.to_dict()
