"""A new user's first minutes (issue 22): answers instead of silence, a Python API that
names its parameters, short reprs, and a warmup command that says what it does."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

import kscore_fast as ks
from kscore_fast.cli import main

ROOT = Path(__file__).resolve().parents[1]
EMBEDDED = ROOT / "data" / "embedded"


@pytest.fixture(scope="module")
def cluster():
    return ks.load_cluster([EMBEDDED])


def test_nothing_pending_says_what_was_read(capsys):
    assert main(["score", str(EMBEDDED / "nodes.json")]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out) == {"results": [], "mode": "score"}
    assert "kscore: 0 pending pods: the input holds no Pod" in captured.err.splitlines()


def test_nothing_pending_counts_the_bound_pods(tmp_path, capsys):
    pods = json.loads((EMBEDDED / "pods.json").read_text())
    pods["items"] = [p for p in pods["items"] if p["spec"].get("nodeName")]
    (tmp_path / "pods.json").write_text(json.dumps(pods))
    nodes = EMBEDDED / "nodes.json"
    assert main(["score", str(nodes), str(tmp_path / "pods.json")]) == 0
    err = capsys.readouterr().err
    assert "kscore: 0 pending pods: 212 pods read, 207 bound to nodes, 5 Succeeded or Failed" in err
    assert main(["score", str(nodes), str(tmp_path / "pods.json"), "--quiet"]) == 0
    assert capsys.readouterr().err == ""


def test_kubectl_table_text_gets_a_hint(monkeypatch, capsys):
    table = (
        "NAME                  READY   STATUS    RESTARTS   AGE\nweb-1   1/1   Running   0   3d\n"
    )
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(table.encode())))
    assert main(["score", "-"]) == 2
    err = capsys.readouterr().err
    assert "kubectl's table output" in err and "kubectl get -o json or -o yaml" in err


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda c: ks.score(c, scores="bad"), "score: scores must be all, none or top:K"),
        (lambda c: ks.score(c, seed=1.5), "score: seed must be an integer, got float 1.5"),
        (lambda c: ks.score(c, seed=True), "score: seed must be an integer, got bool True"),
        (lambda c: ks.score(c, explain="yes"), "score: explain must be True or False or None"),
        (lambda c: ks.score(c, config={"kind": "x"}), "score: config must be a"),
        (lambda c: ks.score(42), "score: cluster must be a Cluster"),
        (lambda c: ks.score(c, plugins=42), "score: plugins must be"),
        (lambda c: ks.score(c, plugins=[("A", 1, 2)]), "plugins: entry 0 must be a (name, weight)"),
        (lambda c: ks.score(c, plugins="SelectorSpread", config="x.yaml"),
         "give score plugins (plugins=) or a configuration (config=), not both"),
        (lambda c: ks.score(c, progress=3), "score: progress must be a function or None"),
        (lambda c: ks.simulate(c, tie_break="gorand"), "simulate: tie_break must be one of"),
        (lambda c: ks.simulate(c, tie_break="go-rand", seed=2**70),
         "simulate: seed 1180591620717411303424: Go's rand.Seed takes an int64"),
        (lambda c: ks.Simulator(c, seed="1"), "Simulator: seed must be an integer"),
        (lambda c: ks.Simulator(str(EMBEDDED)), "Simulator: cluster must be a Cluster"),
    ],
)  # fmt: skip
def test_the_python_api_names_its_parameters(cluster, call, message):
    with pytest.raises(ks.InputError) as err:
        call(cluster)
    assert message in str(err.value)
    assert "--" not in str(err.value)  # (no command-line option)


def test_reprs_are_short(cluster):
    assert repr(cluster) == (
        "Cluster(36 nodes, 207 bound pods, 40 pending pods, 16 services, 16 controllers)"
    )
    result = ks.score(cluster, scores="top:3")
    assert repr(result) == (
        "ScoreResult(40 pods: 37 placed, 3 not; 36 nodes, 8 score plugins, scores=top:3)"
    )
    sim = ks.Simulator(cluster, tie_break="go-rand")
    assert repr(sim) == ("Simulator(36 nodes, 40 pending pods (0 bound), 15 filter and 8 score "
                         "plugins, tie_break='go-rand')")  # fmt: skip
    assert all(len(repr(x)) < 200 for x in (cluster.snapshot, cluster.batch))


def test_the_warmup_command_has_a_description(capsys):
    with pytest.raises(SystemExit):
        main(["warmup", "--help"])
    out = capsys.readouterr().out
    assert "Compile every kernel that score, simulate and the Simulator API use" in out
    assert "--jobs" in out
