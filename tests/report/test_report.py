"""``kscore report``: each kind of result gets its sections, the numbers drawn are the
result's, bad inputs are refused before anything is written, the page is written whole."""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest

from kscore_fast import load_cluster
from kscore_fast.cli import main
from kscore_fast.framework.result import fit_error_reasons
from kscore_fast.report import allocation, build_report
from kscore_fast.report.read import read_result

from .conftest import write_cluster

RUN = ["Per-node allocation", "Scores per plugin", "FitError reasons"]
SECTIONS = {
    "score": (RUN, 1 + 3 + 1),  # allocation, 3 pods' breakdowns, reasons
    "score_arrow": (RUN, 5),
    "simulate": ([*RUN, "Over the run"], 6),
    "simulate_parquet": ([*RUN, "Over the run"], 6),
    "timed": (["Per-node allocation", "FitError reasons", "Over time"], 3),
    "timed_arrow": (["Per-node allocation", "FitError reasons", "Over time"], 3),
    "sweep": (["Metrics per configuration", "FitError reasons", "Runs"], 3),
    "sweep_csv": (["Metrics per configuration", "FitError reasons", "Runs"], 3),
}


def sections(page: str) -> list[tuple[str, list[str], int]]:
    """Each result's section: its title, its headings, its figures."""
    out = []
    for part in page.split('<section class="result"')[1:]:
        title = re.search(r"<h2>(.*?)</h2>", part).group(1)
        headings = re.findall(r"<h3>(.*?)</h3>", part)
        out.append((title, headings, len(re.findall(r'<div id="kscore-plot-\d+"', part))))
    return out


def texts(page: str) -> list[str]:
    """Every text of the figures (titles, annotations), as plotly shows them."""
    return [json.loads(f'"{t}"') for t in re.findall(r'"text":"((?:[^"\\]|\\.)*)"', page)]


def report(tmp_path: Path, *args: str) -> tuple[int, str]:
    out = tmp_path / "report.html"
    code = main(["report", *args, "-o", str(out), "--quiet"])
    return code, out.read_text() if out.exists() else ""


@pytest.mark.parametrize("kind", list(SECTIONS))
def test_each_kind_of_result_has_its_sections(tmp_path, results, kind):
    code, page = report(tmp_path, results[kind], "--cluster", results["cluster"])
    assert code == 0
    [(title, headings, figures)] = sections(page)
    assert results[kind] in title
    assert (headings, figures) == SECTIONS[kind]
    assert page.count("<script") == figures + 1  # plotly.js once, a script per figure
    bundle, rest = page.split("</script>", 1)  # plotly.js first, inline
    assert bundle.count("<script") == 1 and "src=" not in bundle.rsplit("<script", 1)[1][:40]
    assert not re.search(r"https?:|//cdn|src=", rest)  # nothing from the network
    assert 3_000_000 < len(page) < 8_000_000


def test_results_of_every_kind_in_one_page(tmp_path, results):
    kinds = list(SECTIONS)
    code, page = report(tmp_path, *[results[k] for k in kinds], "--cluster", results["cluster"])
    assert code == 0
    found = sections(page)
    assert [f[1:] for f in found] == [SECTIONS[k] for k in kinds]
    ids = re.findall(r'<div id="(kscore-plot-\d+)"', page)
    assert len(ids) == len(set(ids)) == sum(n for _, n in SECTIONS.values())
    assert page.count("<!-- plotly.js of plotly") == 1


def test_chosen_pods_are_broken_down(tmp_path, results):
    chosen = ["--pod", "a/p0", "--pod", "a/p4", "--pod", "a/p7"]
    code, page = report(tmp_path, results["simulate"], "--cluster", results["cluster"],
                        *chosen, "--top", "2")  # fmt: skip
    assert code == 0
    [(_, _, figures)] = sections(page)
    assert figures == 1 + 1 + 1 + 1  # allocation, p0's scores, reasons, the run
    doc = {r["pod"]: r for r in json.loads(Path(results["simulate"]).read_text())["results"]}
    title = f"a/p0 → {doc['a/p0']['host']}: the 2 best of the 3 scored nodes the result keeps"
    assert any(t.startswith(title) for t in texts(page))
    # the 5th GPU pod had one node left: nothing scored; the 8th fit nowhere
    assert doc["a/p4"]["feasibleNodes"] == 1
    assert f"a/p4: only {doc['a/p4']['host']} passed the filters" in page
    assert doc["a/p7"]["host"] is None and "a/p7 fits nowhere: 0/3 nodes are available" in page
    assert "The first 3 pods with scores" not in page


def test_the_allocation_drawn_is_the_result_s(results):
    cluster = load_cluster([results["cluster"]])
    run = read_result(results["simulate"])
    nodes, course = allocation.of_run(cluster, run)
    gib = 2**30
    # the bound pod and the 5 placed ones: 700m, 1 GiB and 1 GPU each
    per_node = {n: 0 for n in nodes.nodes}
    per_node["n0"] += 1
    for host in run.hosts:
        if host is not None:
            per_node[host] += 1
    expected = np.array([[700 * k, gib * k, k] for k in per_node.values()], np.int64)
    assert (nodes.requested == expected).all()
    assert (nodes.allocatable == [[4000, 8 * gib, 2]] * 3).all()
    assert nodes.pods.tolist() == list(per_node.values())
    assert nodes.placed.sum() == 5 and course.bound[-1] == 5 and course.failed[-1] == 4
    assert course.requested[0].tolist() == [700, gib, 1]  # before the first cycle
    assert course.requested[-1].tolist() == expected.sum(axis=0).tolist()
    score_nodes, none = allocation.of_run(cluster, read_result(results["score"]))
    assert none is None and score_nodes.requested.sum(axis=0).tolist() == [700, gib, 1]


def test_a_timed_replay_keeps_its_nodes_at_the_end(results):
    doc = json.loads(Path(results["timed"]).read_text())
    nodes, end = doc["nodes"], {k: v[-1] for k, v in doc["timeline"].items()}
    assert nodes["node"] == ["n0", "n1", "n2", "n3"]  # n3 added at 10 s
    assert nodes["gpusAllocatable"] == [2, 2, 2, 2] and nodes["cpuMilliAllocatable"] == [4000] * 4
    assert sum(nodes["pods"]) == end["boundPods"] == 8  # the bound pod left at 5 s
    for column in ("cpuMilli", "memoryBytes", "gpus"):
        assert sum(nodes[column]) == end[column]
    bound = [p for p in doc["pods"] if p["state"] == "bound"]
    assert nodes["pods"] == [sum(p["host"] == n for p in bound) for n in nodes["node"]]
    table = read_result(results["timed_arrow"])
    assert table.nodes == nodes


def test_results_say_their_mode(results):
    assert json.loads(Path(results["score"]).read_text())["mode"] == "score"
    assert json.loads(Path(results["simulate"]).read_text())["mode"] == "simulate"
    meta = pq.read_schema(Path(results["simulate_parquet"]) / "placements.parquet").metadata
    assert meta[b"kscore.mode"] == b"simulate"


def test_fit_error_reasons_keep_commas_inside_a_reason():
    text = ("0/36 nodes are available: 1 node(s) were unschedulable, 2 node(s) had taint "
            "{a: }, that the pod didn't tolerate, 33 Insufficient cpu.")  # fmt: skip
    assert fit_error_reasons(text) == [
        (1, "node(s) were unschedulable"),
        (2, "node(s) had taint {a: }, that the pod didn't tolerate"),
        (33, "Insufficient cpu"),
    ]
    assert fit_error_reasons("no nodes available to schedule pods") is None


# -- bad input --------------------------------------------------------------------------------


def _refused(tmp_path: Path, capsys, *args: str) -> str:
    """Run the report expecting exit 2: its message, after checking nothing was written."""
    out = tmp_path / "out"
    out.mkdir(exist_ok=True)
    before = sorted(os.listdir(out))
    assert main(["report", *args, "-o", str(out / "report.html")]) == 2
    assert sorted(os.listdir(out)) == before  # no report, no temporary file
    captured = capsys.readouterr()
    assert captured.out == "" and "Traceback" not in captured.err
    assert captured.err.startswith("kscore: error: ") and captured.err.count("\n") == 1
    return captured.err


def test_a_file_that_is_not_a_result(tmp_path, results, capsys):
    err = _refused(tmp_path, capsys, results["cluster"])
    assert f"{results['cluster']}: not a kscore result" in err
    yaml_file = tmp_path / "x.yaml"
    yaml_file.write_text("kind: Pod\n")
    assert "not a kscore result: not JSON" in _refused(tmp_path, capsys, str(yaml_file))
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"results": [{"pod": 1}], "mode": "score"}))
    assert "$.results[0].pod" in _refused(tmp_path, capsys, str(bad))
    bad.write_text(json.dumps({"results": [], "mode": "guess"}))
    assert "expected score or simulate, got 'guess'" in _refused(tmp_path, capsys, str(bad))
    old = tmp_path / "old.json"
    old.write_text(json.dumps({"results": []}))
    assert "older kscore" in _refused(tmp_path, capsys, str(old), "--cluster", results["cluster"])
    assert "capacity result" in _refused(tmp_path, capsys, results["capacity"])
    assert "Kubernetes objects" in _refused(tmp_path, capsys, results["kss"])
    bad.write_text(json.dumps({"mode": "score", "results": [{
        "pod": "a/p0", "host": "n0", "feasibleNodes": 3, "evaluatedNodes": 3, "error": None,
        "scores": [{"node": 1}]}]}))  # fmt: skip
    err = _refused(tmp_path, capsys, str(bad), "--cluster", results["cluster"])
    assert f"{bad}: results[0].scores: Expected `str`, got `int` - at `$[0].node`" in err
    empty = tmp_path / "empty"
    empty.mkdir()
    assert "a directory without kscore's tables" in _refused(tmp_path, capsys, str(empty))
    assert "cannot read it" in _refused(tmp_path, capsys, str(tmp_path / "missing.json"))


def test_pods_and_clusters_that_do_not_match(tmp_path, results, capsys):
    sim, cluster = results["simulate"], results["cluster"]
    err = _refused(tmp_path, capsys, sim, "--cluster", cluster, "--pod", "a/nope")
    assert f"--pod a/nope: not a pod of {sim} (its pods are e.g. a/p0, a/p1, a/p2)" in err
    assert "--pod default/p1: not a pod of" in _refused(tmp_path, capsys, sim, "--cluster",
                                                        cluster, "--pod", "p1")  # fmt: skip
    assert "expected NAMESPACE/NAME" in _refused(tmp_path, capsys, sim, "--cluster", cluster,
                                                 "--pod", "a/b/c")  # fmt: skip
    assert "none is given" in _refused(tmp_path, capsys, results["sweep"], "--pod", "a/p0")
    err = _refused(tmp_path, capsys, sim)
    assert "is a simulate result: per-node allocation needs the cluster" in err
    assert "--cluster PATH" in err
    other = write_cluster(tmp_path / "other.json", pending=3)
    assert "pod a/p3 is not a pending pod of --cluster" in _refused(
        tmp_path, capsys, sim, "--cluster", other)  # fmt: skip
    assert "--top 0: expected at least 1" in _refused(tmp_path, capsys, sim, "--cluster",
                                                      cluster, "--top", "0")  # fmt: skip


def test_without_plotly(tmp_path, results, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "plotly", None)  # (import plotly raises ImportError)
    err = _refused(tmp_path, capsys, results["sweep"])
    assert "plotly, which is not installed: pip install 'kscore_fast[report]'" in err


def test_the_page_is_written_whole_and_never_over_an_input(tmp_path, results, capsys):
    out = tmp_path / "report.html"
    out.write_text("an earlier report")
    assert main(["report", "nope.json", "-o", str(out), "--quiet"]) == 2
    assert out.read_text() == "an earlier report"  # a failed run leaves it as it was
    assert main(["report", results["sweep"], "-o", str(out), "--quiet"]) == 0
    assert out.read_text().startswith("<!DOCTYPE html>")
    assert sorted(os.listdir(tmp_path)) == ["report.html"]  # no temporary left
    capsys.readouterr()
    assert main(["report", results["sweep"], "-o", results["sweep"]]) == 2
    assert "is the input" in capsys.readouterr().err
    assert main(["report", results["sweep"], "-o", str(tmp_path)]) == 2
    assert "the report is one file" in capsys.readouterr().err
    with pytest.raises(SystemExit):  # -o is required
        main(["report", results["sweep"]])


def test_the_python_api(results):
    page = build_report([results["timed"], results["sweep"]])
    text = "".join(page.html_pieces())
    assert [s[0] for s in sections(text)] == [
        f"timed replay (simulate --events): {results['timed']}",
        f"sweep: {results['sweep']}",
    ]


def test_a_replay_written_before_its_nodes_table(tmp_path, results):
    doc = json.loads(Path(results["timed"]).read_text())
    del doc["nodes"]
    older = tmp_path / "older.json"
    older.write_text(json.dumps(doc))
    code, page = report(tmp_path, str(older))
    assert code == 0
    [(_, headings, figures)] = sections(page)
    assert headings == SECTIONS["timed"][0] and figures == 2  # reasons, over time
    assert "has no nodes table (written before kscore kept it)" in page
