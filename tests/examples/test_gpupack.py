"""The example out-of-tree plugin (docs/examples/gpupack), installed as a separate package:
found by name through its entry point, named in a KubeSchedulerConfiguration, run by
``score``, ``simulate`` and ``Simulator``, its compiled kernels equal to its scalar
reference; loaded with ``--plugin-module`` on the command line."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

import kscore_fast as ks
from kscore_fast.cli import main
from kscore_fast.framework.registry import Registry
from kscore_fast.plugins import registry

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "docs" / "examples" / "gpupack"
SAMPLE = ROOT / "data" / "openb-sample" / "manifests"


def _compare_module():
    """docs/examples/gpupack/compare.py, the example's side-by-side script."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("gpupack_compare", EXAMPLE / "compare.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


#: the default profile with GpuPacking at weight 3 (the script's configuration)
CONFIG = _compare_module().WITH_PACKING.format(weight=3)


@pytest.fixture
def installed(tmp_path, monkeypatch):
    """gpupack as pip installs it: the package and a dist-info with its entry point, on
    sys.path; a fresh registry of out-of-tree plugins."""
    site = tmp_path / "site"
    shutil.copytree(EXAMPLE / "gpupack", site / "gpupack")
    info = site / "gpupack-0.1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: gpupack\nVersion: 0.1.0\n")
    (info / "entry_points.txt").write_text(
        '[kscore_fast.plugins]\nGpuPacking = "gpupack:GpuPacking"\n'.replace('"', "")
    )
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setattr(registry, "OUT_OF_TREE", Registry())
    registry._entry_points.cache_clear()
    yield site
    registry._entry_points.cache_clear()
    for name in [m for m in list(__import__("sys").modules) if m.startswith("gpupack")]:
        del __import__("sys").modules[name]


def _reference():
    from gpupack import reference

    return reference


def _check_scores(cluster, result, sequential):
    """Each pod's GpuPacking raw scores equal the reference's, the GPUs used on each node
    following the placements in sequential mode."""
    ref = _reference()
    nodes = {n.name: n for n in cluster.snapshot.nodes}
    pods = {p.key: p for p in cluster.batch.pods}
    used = dict.fromkeys(nodes, 0)
    checked = 0
    for r in result["results"]:
        pod = pods[r["pod"]]
        for s in r["scores"]:
            want = ref.score(pod, nodes[s["node"]], used[s["node"]])
            assert s["plugins"]["GpuPacking"]["raw"] == want, (r["pod"], s["node"])
            checked += 1
        if sequential and r["host"] is not None:
            used[r["host"]] += ref.pod_gpus(pod)
    assert checked > 100


def test_found_by_name_and_equal_to_its_reference(installed):
    cluster = ks.load_cluster([SAMPLE])
    result = ks.score(cluster, plugins="GpuPacking,NodeResourcesFit", scores="all")
    _check_scores(cluster, result.to_dict(), sequential=False)
    assert registry.OUT_OF_TREE.get("GpuPacking") is not None


def test_named_in_a_configuration_in_score_simulate_and_the_simulator(installed, tmp_path):
    config = tmp_path / "config.yaml"
    config.write_text(CONFIG)
    cluster = ks.load_cluster([SAMPLE])
    for run in (ks.score, ks.simulate):
        doc = run(cluster, config=str(config), scores="all").to_dict()
        weights = {s["plugins"]["GpuPacking"]["weighted"] // max(
            s["plugins"]["GpuPacking"]["normalized"], 1) for r in doc["results"]
            for s in r["scores"] if s["plugins"]["GpuPacking"]["normalized"]}  # fmt: skip
        assert weights == {3}
        _check_scores(cluster, doc, sequential=run is ks.simulate)
    sim = ks.Simulator(cluster, config=str(config), tie_break="go-rand", seed=3)
    alone = ks.simulate(cluster, config=str(config), tie_break="go-rand", seed=3, scores="none")
    hosts = [sim.schedule_and_bind(p) for p in alone.pod_names]
    assert hosts == alone.host_names


def test_the_command_line_loads_a_plugin_module(installed, tmp_path, capsys):
    out = tmp_path / "out.json"
    argv = ["score", str(SAMPLE), "--plugins", "GpuPacking", "--quiet", "-o", str(out)]
    assert main([*argv[:1], *argv[1:], "--plugin-module", "gpupack"]) == 0
    doc = json.loads(out.read_text())
    assert all("GpuPacking" in s["plugins"] for r in doc["results"] for s in r["scores"])
    assert main([*argv, "--plugin-module", "no_such_module_here"]) == 2
    assert "--plugin-module no_such_module_here: cannot import it" in capsys.readouterr().err


def test_an_unknown_plugin_name_is_still_an_error(installed, capsys):
    assert main(["score", str(SAMPLE), "--plugins", "GpuPackingX", "--quiet"]) == 2
    assert 'Score Plugin "GpuPackingX" does not exist' in capsys.readouterr().err


def test_the_side_by_side_comparison_runs():
    import os
    import subprocess
    import sys

    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(EXAMPLE), str(ROOT)])}
    done = subprocess.run([sys.executable, str(EXAMPLE / "compare.py")], env=env,
                          capture_output=True, text=True, timeout=600)  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    rows = {line.split("|")[1].strip(): line for line in done.stdout.splitlines() if "|" in line}
    assert {"placed", "pending", "fragmented GPUs"} <= set(rows)


def test_the_readme_plugin_example_runs(monkeypatch):
    """README's "Writing a plugin": written, registered and run in under 40 lines."""
    text = (ROOT / "README.md").read_text()
    section = text[text.index("## Writing a plugin") :]
    code = section[section.index("```python") + len("```python") : section.index("```\n\n")]
    assert len(code.strip().splitlines()) < 40
    monkeypatch.setattr(registry, "OUT_OF_TREE", Registry())
    monkeypatch.chdir(ROOT)
    scope: dict = {}
    exec(compile(code, "README.md", "exec"), scope)  # (the README's own code)
    assert registry.OUT_OF_TREE.get("FreeGpus") is not None
