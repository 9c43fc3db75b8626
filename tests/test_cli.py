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


DEFAULT_SCORES = {
    "TaintToleration": 3,
    "NodeAffinity": 2,
    "NodeResourcesFit": 1,
    "VolumeBinding": 1,
    "PodTopologySpread": 2,
    "InterPodAffinity": 2,
    "NodeResourcesBalancedAllocation": 1,
    "ImageLocality": 1,
}


#: the embedded pods whose claims the data set lacks: VolumeBinding's PreFilter rejects
#: every node, as goref (the real kube-scheduler) does:
#: ``0/36 nodes are available: 36 persistentvolumeclaim "data-kafka-5" not found.``
CLAIMLESS = {"data/kafka-5", "data/kafka-6", "payments/ledger-3"}


def test_json_contract(embedded_json):
    """The default profile (v1.23.6, v1beta3), less the volume filters but VolumeZone."""
    results = embedded_json["results"]
    assert len(results) == 40
    failed = {r["pod"]: r["error"] for r in results if r["host"] is None}
    r_of = {r["pod"]: r for r in results}
    assert set(failed) == CLAIMLESS
    for pod, error in failed.items():
        claim = "data-" + pod.split("/")[1]
        assert error == f'0/36 nodes are available: 36 persistentvolumeclaim "{claim}" not found.'
        assert r_of[pod]["feasibleNodes"] == r_of[pod]["evaluatedNodes"] == 0
    for r in results:
        keys = {"pod", "host", "feasibleNodes", "evaluatedNodes", "error", "scores", "rejected"}
        assert set(r) == keys
        if r["pod"] in CLAIMLESS:
            continue
        assert r["error"] is None and r["evaluatedNodes"] == 36
        assert r["feasibleNodes"] + len(r["rejected"]) == 36 and r["feasibleNodes"] >= 2
        assert len(r["scores"]) == r["feasibleNodes"]
        assert all(set(x) == {"node", "plugin", "reason"} for x in r["rejected"])
        top = max(s["total"] for s in r["scores"])
        assert r["host"] in {s["node"] for s in r["scores"] if s["total"] == top}
        for s in r["scores"]:
            assert set(s) == {"node", "total", "plugins"}
            assert set(s["plugins"]) == set(DEFAULT_SCORES)
            for name, p in s["plugins"].items():
                assert set(p) == {"raw", "normalized", "weighted"}
                assert 0 <= p["normalized"] <= 100
                assert p["weighted"] == p["normalized"] * DEFAULT_SCORES[name]
            assert s["total"] == sum(p["weighted"] for p in s["plugins"].values())


def test_control_plane_taint_rejects(embedded_json):
    """The control-plane node's NoSchedule taint rejects the pods that do not tolerate it."""
    n = 0
    for r in embedded_json["results"]:
        by_node = {x["node"]: x for x in r["rejected"]}
        if r["pod"] in CLAIMLESS:  # VolumeBinding's PreFilter: every node, its status
            assert len(by_node) == 36 and {x["plugin"] for x in r["rejected"]} == {"VolumeBinding"}
            continue
        if "demo-cp-1" in by_node:
            assert by_node["demo-cp-1"]["plugin"] == "TaintToleration"
            assert "node-role.kubernetes.io/master" in by_node["demo-cp-1"]["reason"]
            n += 1
        else:
            assert "demo-cp-1" in {s["node"] for s in r["scores"]}
    assert n >= 30


def test_plugins_shortcut_has_no_filters(tmp_path):
    out = tmp_path / "ss.json"
    argv = ["score", str(EMBEDDED), "-o", str(out), "--quiet", "--plugins", "SelectorSpread"]
    assert main(argv) == 0
    for r in json.loads(out.read_text())["results"]:
        assert r["feasibleNodes"] == r["evaluatedNodes"] == 36 and r["rejected"] == []
        for s in r["scores"]:
            p = s["plugins"]["SelectorSpread"]
            assert p["weighted"] == p["normalized"] == s["total"]


def test_seed_reproducible_and_matters(tmp_path, embedded_json):
    out = tmp_path / "again.json"
    assert main(["score", str(EMBEDDED), "-o", str(out), "--quiet", "--seed", "0"]) == 0
    assert json.loads(out.read_text()) == embedded_json
    ss = ["score", str(EMBEDDED), "-o", str(out), "--quiet", "--plugins", "SelectorSpread"]
    assert main([*ss, "--seed", "0"]) == 0  # SelectorSpread alone: ties everywhere
    zero = json.loads(out.read_text())["results"]
    assert main([*ss, "--seed", "1"]) == 0
    other = json.loads(out.read_text())["results"]
    assert any(a["host"] != b["host"] for a, b in zip(other, zero, strict=True))


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
        n_scored = sum(len(r["scores"]) for r in embedded_json["results"])
        assert scores.num_rows == n_scored * len(DEFAULT_SCORES)
        assert placements.column_names == ["pod", "host", "feasible", "evaluated", "error"]
        hosts = dict(
            zip(placements["pod"].to_pylist(), placements["host"].to_pylist(), strict=True)
        )
        assert hosts == {r["pod"]: r["host"] for r in embedded_json["results"]}


@pytest.mark.parametrize("seed", [0, 1, 2, 7])
def test_scores_top_k_lists_the_host_first(tmp_path, seed):
    full_out, top_out = tmp_path / "full.json", tmp_path / "top.json"
    base = ["score", str(EMBEDDED), "--quiet", "--seed", str(seed)]
    assert main([*base, "-o", str(full_out)]) == 0
    assert main([*base, "--scores", "top:3", "-o", str(top_out)]) == 0
    full = json.loads(full_out.read_text())["results"]
    top = json.loads(top_out.read_text())["results"]
    for t, f in zip(top, full, strict=True):
        assert t["host"] == f["host"]
        if f["host"] is None:  # (fits nowhere: no scores)
            assert t["scores"] == f["scores"] == []
            continue
        assert t["scores"][0]["node"] == f["host"]
        # the host's entry, then the others by total descending, ties in score-list order
        host = [s for s in f["scores"] if s["node"] == f["host"]]
        others = [s for s in f["scores"] if s["node"] != f["host"]]
        assert t["scores"] == host + sorted(others, key=lambda s: -s["total"])[:2]


def test_scores_top_k_larger_than_the_cluster(tmp_path, embedded_json):
    out = tmp_path / "top.json"
    k = "top:99999999999999999999"
    assert main(["score", str(EMBEDDED), "--scores", k, "-o", str(out), "--quiet"]) == 0
    for t, f in zip(json.loads(out.read_text())["results"], embedded_json["results"], strict=True):
        assert len(t["scores"]) == len(f["scores"])
        assert f["host"] is None or t["scores"][0]["node"] == f["host"]


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
        ("VolumeZone", "does not extend ScorePlugin"),
        ("PrioritySort", "does not extend ScorePlugin"),
        ("SelectorSpread=-2", "non-negative integer"),
        ("SelectorSpread,,", "malformed entry"),
        ("=3", "malformed entry"),
        ("SelectorSpread,SelectorSpread", "already registered"),
        ("SelectorSpread=2147483648", "is 2147483648, out of range: weights are int32"),
        ("SelectorSpread=" + "9" * 5000, "is a 5000-digit number, out of range"),
        ("SelectorSpread=-" + "9" * 5000, "must be a non-negative integer"),
        ("SelectorSpread=00002147483647,Nope", 'Score Plugin "Nope" does not exist'),
    ],
    ids=lambda v: v if len(v) < 40 else v[:20] + "...",
)
def test_bad_plugins(plugins, message, capsys):
    assert main(["score", str(EMBEDDED), "--plugins", plugins, "--quiet"]) == 2
    err = capsys.readouterr().err
    assert message in err and err.startswith("kscore: error:")


@pytest.mark.parametrize(
    "flags,message",
    [
        (["--scores", "top:" + "9" * 5000], "K has 5000 digits"),
        (["--scores", "top:0"], "--scores must be all, none or top:K"),
        (["--seed", "9" * 5000], "argument --seed: an integer of 5000 digits is too long"),
        (["--seed", "x1"], "argument --seed: not an integer: 'x1'"),
        (["--percentage-of-nodes-to-score", "9" * 5000], "an integer of 5000 digits"),
        (["--percentage-of-nodes-to-score", "101"], "not in valid range [0-100]"),
    ],
    ids=["top-digits", "top-0", "seed-digits", "seed-text", "pct-digits", "pct-101"],
)
def test_bad_flags_exit_2_short_message(tmp_path, flags, message):
    proc = _run("score", str(EMBEDDED), "-o", str(tmp_path / "r.json"), *flags)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert message in proc.stderr and len(proc.stderr) < 1000
    assert list(tmp_path.iterdir()) == []


def test_any_integer_seed_is_taken_modulo_2_64(tmp_path):
    outs = {}
    for seed in ("-1", str(2**64 - 1), str(2**64 * 12345 - 1), "5", str(2**64 + 5)):
        out = tmp_path / f"{len(outs)}.json"
        argv = ["score", str(EMBEDDED), "-o", str(out), "--quiet", "--plugins", "SelectorSpread"]
        assert main([*argv, "--seed", seed]) == 0
        outs[seed] = [r["host"] for r in json.loads(out.read_text())["results"]]
    assert outs["-1"] == outs[str(2**64 - 1)] == outs[str(2**64 * 12345 - 1)]
    assert outs["5"] == outs[str(2**64 + 5)] != outs["-1"]


def test_warning_line_and_quiet(tmp_path):
    proc = _run("score", str(EMBEDDED), "--scores", "none", "-o", str(tmp_path / "o.json"))
    assert proc.returncode == 0
    assert proc.stderr.strip().splitlines() == [
        "kscore: skipped 21 objects of unused kinds (ConfigMap 2, CronJob 1, DaemonSet 3, "
        "Deployment 10, Endpoints 1, Job 4)",
    ]
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


def test_simulate_embedded_cluster(tmp_path):
    """Sequential mode on the embedded cluster: every pod placed but those whose claims
    the data set lacks, in queue order, and the same placements from the same seed; a
    different tie-break gives a valid run too."""
    out = tmp_path / "sim.json"
    argv = ["simulate", str(EMBEDDED), "--tie-break", "go-rand", "--seed", "3", "--quiet"]
    assert main([*argv, "-o", str(out)]) == 0
    first = json.loads(out.read_text())["results"]
    assert len(first) == 40
    assert {r["pod"] for r in first if r["host"] is None} == CLAIMLESS
    assert main([*argv, "-o", str(out)]) == 0
    assert json.loads(out.read_text())["results"] == first
    assert main(["simulate", str(EMBEDDED), "--scores", "none", "--quiet", "-o", str(out)]) == 0
    assert len(json.loads(out.read_text())["results"]) == 40


def test_simulate_bad_tie_break_exits_2(tmp_path):
    proc = _run("simulate", str(EMBEDDED), "--tie-break", "coin", "-o", str(tmp_path / "o"))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert not (tmp_path / "o").exists()
