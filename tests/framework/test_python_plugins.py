"""Plugins in plain Python (the slower path, ``framework/python_kernels``): the same
compiled loops call them, with the same results as the plugin compiled with numba, in
``score``, ``simulate`` and the ``Simulator``; what they raise or return wrongly is one
clear error naming the plugin and the kernel."""

from __future__ import annotations

import types
from pathlib import Path

import numpy as np
import pytest

import kscore_fast as ks
from kscore_fast.errors import PluginError
from kscore_fast.framework.registry import Registry
from kscore_fast.plugins import registry

from ..builders import cluster, node, pod

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "docs" / "examples" / "gpupack"
SAMPLE = ROOT / "data" / "openb-sample" / "manifests"

CONFIG = """apiVersion: kubescheduler.config.k8s.io/v1beta3
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    filter:
      enabled:
      - name: {filter}
    score:
      enabled:
      - name: {score}
        weight: 3
"""


def _gpu_fits(state, pod, node):  # plain Python
    gpus, used, want = state
    return 0 if want[pod] == 0 or gpus[node] - used[node] >= want[pod] else 1


@pytest.fixture
def plugins(monkeypatch):
    """GpuPacking (numba), its kernels run as plain Python (GpuPackingPy), and a GPU
    filter in plain Python, in a fresh registry of out-of-tree plugins."""
    monkeypatch.syspath_prepend(str(EXAMPLE))
    monkeypatch.setattr(registry, "OUT_OF_TREE", Registry())
    from gpupack import GpuPacking
    from gpupack import kernels as compiled

    python = types.SimpleNamespace(**{k: getattr(compiled, k).py_func
                                      for k in ("score_pod", "assume", "remove")})  # fmt: skip

    class GpuPackingPy(GpuPacking):
        name = "GpuPackingPy"
        kernels = python

    class GpuFitPy(ks.Plugin):
        name = "GpuFitPy"
        filters = True
        kernels = types.SimpleNamespace(filter_node=_gpu_fits, assume=python.assume,
                                        remove=python.remove)  # fmt: skip
        prepare = GpuPacking.prepare

        def reasons(self, state, code):
            return ["Insufficient GPUs"]

    for cls in (GpuPacking, GpuPackingPy, GpuFitPy):
        ks.register_plugin(cls)
    return GpuPacking, GpuPackingPy


def _config(tmp_path, score, filter_="GpuFitPy"):
    path = tmp_path / f"{score}.yaml"
    path.write_text(CONFIG.format(score=score, filter=filter_))
    return str(path)


def _same(a, b):
    return repr(a.to_dict()).replace("GpuPackingPy", "GpuPacking") == repr(b.to_dict())


def test_python_kernels_give_the_compiled_plugins_results(plugins, tmp_path):
    c = ks.load_cluster([SAMPLE])
    compiled, python = _config(tmp_path, "GpuPacking"), _config(tmp_path, "GpuPackingPy")
    for run in (ks.score, ks.simulate):
        want = run(c, config=compiled, scores="all", seed=2)
        assert _same(run(c, config=python, scores="all", seed=2), want)
        if run is ks.simulate:  # (the filter rejects pods once GPUs are taken)
            assert any(r["error"] for r in want.to_dict()["results"])
    alone = ks.simulate(c, config=compiled, scores="none", seed=5, tie_break="go-rand")
    sim = ks.Simulator(c, config=python, seed=5, tie_break="go-rand")
    branch = sim.copy()
    assert [sim.schedule_and_bind(p) for p in alone.pod_names] == alone.host_names
    assert branch.run(alone.pod_names).host_names == alone.host_names  # (its own states)


class _Base(ks.Plugin):
    bind_independent = True

    def prepare(self, snapshot, batch):
        return {"nodes": snapshot.n_nodes}  # (any Python objects)

    def reasons(self, state, code):
        return ["no"]


def _register_counting(monkeypatch, name, fail=None):
    """Register ``name`` alone in a fresh registry: a plain-Python score plugin whose state
    is a dict counting the pods bound on each node (its ``assume``/``remove``; ``fail``
    says which of them raise), scoring 100 - 10 × that count."""
    fail = {} if fail is None else fail

    def score_pod(state, pod, nodes, out):
        out[:] = [100 - 10 * min(state.get(int(n), 0), 10) for n in nodes]

    def assume(state, pod, node):
        if fail.get("assume"):
            raise RuntimeError("disk full")
        state[node] = state.get(node, 0) + 1

    def remove(state, pod, node):
        if fail.get("remove"):
            raise RuntimeError("disk full")
        state[node] -= 1

    attrs = {"name": name, "scores": True, "bind_independent": False,
             "kernels": types.SimpleNamespace(score_pod=score_pod, assume=assume, remove=remove),
             "prepare": lambda self, snapshot, batch: {}}  # fmt: skip
    monkeypatch.setattr(registry, "OUT_OF_TREE", Registry())
    ks.register_plugin(type(name, (_Base,), attrs))


def _with(monkeypatch, tmp_path, name, point, kernels):
    """A two-node cluster of one pending pod, and a configuration of the plain-Python
    plugin ``name`` (its ``kernels``) alone at ``point``."""
    monkeypatch.setattr(registry, "OUT_OF_TREE", Registry())
    attrs = {"name": name, "kernels": types.SimpleNamespace(**kernels),
             "filters": point == "filter", "scores": point == "score"}  # fmt: skip
    ks.register_plugin(type(name, (_Base,), attrs))
    path = tmp_path / "config.yaml"
    enabled = f"  plugins:\n    {point}:\n      enabled:\n      - name: {name}\n"
    path.write_text(CONFIG.split("  plugins:")[0] + enabled)
    room = {"cpu": "1", "memory": "1Gi", "pods": 10}
    nodes = [node("n0", allocatable=room), node("n1", allocatable=room)]
    return cluster(nodes, [pod("p0")]), str(path)


@pytest.mark.parametrize(
    "kernel, message",
    [
        (lambda state, pod, node: 1 // 0,
         "plugin 'Bad': kernels.filter_node raised ZeroDivisionError"),
        (lambda state, pod, node: None,
         r"plugin 'Bad': kernels.filter_node returned None: 0 \(fits\) or a failure code"),
        (lambda state, pod, node: -1, "returned -1"),
    ],
)  # fmt: skip
def test_what_a_python_filter_raises_or_returns_wrongly_names_it(kernel, message, monkeypatch,
                                                                 tmp_path):  # fmt: skip
    c, config = _with(monkeypatch, tmp_path, "Bad", "filter", {"filter_node": kernel})
    for run in (ks.score, ks.simulate):
        with pytest.raises(PluginError, match=message):
            run(c, config=config)
    with pytest.raises(PluginError, match=message):
        sim = ks.Simulator(c, config=config)
        sim.schedule_and_bind(sim.pods[0])


def test_a_python_score_out_of_range_is_the_pods_error(monkeypatch, tmp_path):
    def score_pod(state, pod, nodes, out):
        out[:] = np.where(nodes == 0, 101, 50)

    c, config = _with(monkeypatch, tmp_path, "Wild", "score", {"score_pod": score_pod})
    for run in (ks.score, ks.simulate):
        (r,) = run(c, config=config).to_dict()["results"]
        assert r["host"] is None
        assert 'plugin "Wild" returns an invalid score 101' in r["error"]


def test_a_python_state_of_any_objects_follows_binds_and_branches(monkeypatch, tmp_path):
    """A state that is a dict, updated by assume/remove; a copied Simulator has its own."""

    _register_counting(monkeypatch, "Fewest")
    room = {"cpu": "4", "memory": "4Gi", "pods": 10}
    c = cluster([node("n0", allocatable=room), node("n1", allocatable=room)],
                [pod(f"p{i}") for i in range(4)])  # fmt: skip
    sim = ks.Simulator(c, plugins="Fewest=1", seed=1)
    names = sim.pods
    first = sim.schedule_and_bind(names[0])
    branch = sim.copy()
    other = ({"n0", "n1"} - {first}).pop()
    assert sim.schedule_and_bind(names[1]) == other  # the fewest pods
    assert sim.schedule(names[2], scores="all")["scores"][0]["plugins"]["Fewest"]["raw"] == 90
    assert branch.schedule_and_bind(names[2]) == other  # (names[1] is not bound there)
    sim.delete(names[1])
    assert sim.schedule_and_bind(names[3]) == other


def test_a_step_whose_plugin_raises_leaves_the_simulator_as_it_was(monkeypatch, tmp_path):
    """schedule_and_bind and schedule stopped by a plugin's error inside the compiled loop
    (issue 28, item 1): the random source, the rotation and the bindings as before, so
    that the next steps equal those of a simulator that never saw the call."""
    failing = {"on": False}

    def score_pod(state, pod, nodes, out):
        if failing["on"]:
            raise RuntimeError("flaky")
        out[:] = 7

    monkeypatch.setattr(registry, "OUT_OF_TREE", Registry())
    attrs = {"name": "Flaky", "scores": True, "kernels": types.SimpleNamespace(score_pod=score_pod)}
    ks.register_plugin(type("Flaky", (_Base,), attrs))
    c = ks.load_cluster([SAMPLE])
    config = tmp_path / "flaky.yaml"
    config.write_text(CONFIG.split("  plugins:")[0] + "  plugins:\n    score:\n      enabled:\n"
                      "      - name: Flaky\n        weight: 1\n")  # fmt: skip
    sim, fresh = (ks.Simulator(c, config=str(config), seed=4, tie_break="go-rand")
                  for _ in range(2))  # fmt: skip
    for name in sim.pods[:3]:
        assert sim.schedule_and_bind(name) == fresh.schedule_and_bind(name)
    failing["on"] = True
    with pytest.raises(PluginError, match=r"kernels\.score_pod raised RuntimeError: flaky"):
        sim.schedule_and_bind(sim.pods[3])
    with pytest.raises(PluginError):
        sim.schedule(sim.pods[3], scores="none")
    failing["on"] = False
    assert sim.host_of(sim.pods[3]) is None
    for name in sim.pods[3:8]:
        assert sim.schedule_and_bind(name) == fresh.schedule_and_bind(name), name


def test_a_bind_or_deletion_a_plugin_stops_halfway_is_undone(monkeypatch):
    """A Python plugin's ``assume`` (or ``remove``) raising after the in-tree plugins
    before it applied the change (issue 28, item 1): ``schedule_and_bind``, ``bind``,
    ``run`` and ``delete`` leave every plugin's state as before, so that the next steps
    equal those of a simulator that never saw the calls."""
    fail = {"assume": False, "remove": False}
    _register_counting(monkeypatch, "Counted", fail)
    c = ks.load_cluster([SAMPLE])
    sim, fresh = (ks.Simulator(c, plugins="Counted=2", seed=3, tie_break="go-rand")
                  for _ in range(2))  # fmt: skip
    names = sim.pods
    assert sim.framework.plugin_names[-1] == "Counted"  # (after the in-tree binders)
    for name in names[:4]:
        assert sim.schedule_and_bind(name) == fresh.schedule_and_bind(name)
    fail["assume"] = True
    with pytest.raises(PluginError, match=r"kernels\.assume raised RuntimeError"):
        sim.schedule_and_bind(names[4])
    with pytest.raises(PluginError, match=r"kernels\.assume raised RuntimeError"):
        sim.bind(names[4], sim.nodes[0])
    with pytest.raises(PluginError, match=r"kernels\.assume raised RuntimeError"):
        sim.run(names[4:9])
    fail["assume"], fail["remove"] = False, True
    with pytest.raises(PluginError, match=r"kernels\.remove raised RuntimeError"):
        sim.delete(names[1])
    fail["remove"] = False
    assert [sim.host_of(n) for n in names[:9]] == [fresh.host_of(n) for n in names[:9]]
    assert sim.run(names[4:30]).host_names == fresh.run(names[4:30]).host_names
    sim.delete(names[1])
    fresh.delete(names[1])
    assert sim.run(names[30:40]).host_names == fresh.run(names[30:40]).host_names
    for s in (sim, fresh):  # the states prepared again (binds replayed) at the next call
        s.add_pod(pod("late", ns="default"))
    fail["assume"] = True
    with pytest.raises(PluginError, match=r"kernels\.assume raised RuntimeError"):
        sim.run(names[40:45])
    fail["assume"] = False
    assert sim.run(names[40:60]).host_names == fresh.run(names[40:60]).host_names
