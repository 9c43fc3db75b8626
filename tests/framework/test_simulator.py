"""The embedding API: ``Simulator`` steps equal ``kscore simulate``'s sequence."""

from __future__ import annotations

import pytest

from kscore_fast import Simulator, api
from kscore_fast.errors import InputError, UnsupportedError

from ..builders import cluster, node, pod
from ..scenarios_profile import profile_config, profile_scenario


def _cluster(family: str, seed: int):
    return api.load_cluster(objects=profile_scenario(seed, family=family, max_pending=16))


def _config(tmp_path, family: str, seed: int):
    import yaml

    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(profile_config(seed, family=family)))
    return path


@pytest.mark.parametrize("family", ["basic", "pts", "ipa", "mixed"])
@pytest.mark.parametrize("seed", range(6))
def test_steps_equal_the_whole_run(tmp_path, family, seed):
    """schedule_and_bind pod after pod (queue order) == run() == api.simulate, go-rand."""
    c, config = _cluster(family, seed), _config(tmp_path, family, seed)
    whole = api.simulate(c, config=config, seed=seed, tie_break="go-rand", scores="none")
    expected = dict(zip(whole.pod_names, whole.host_names, strict=True))
    stepped = Simulator(c, config=config, seed=seed, tie_break="go-rand")
    for name in whole.pod_names:
        assert stepped.schedule_and_bind(name) == expected[name], name
    again = Simulator(c, config=config, seed=seed, tie_break="go-rand").run()
    assert dict(zip(again.pod_names, again.host_names, strict=True)) == expected


def test_schedule_changes_nothing_bind_does():
    nodes = [node("n0", allocatable={"cpu": "1", "memory": "1Gi", "pods": 10})]
    pods = [pod(f"p{i}", ns="default", requests={"cpu": "600m"}) for i in range(2)]
    sim = Simulator(cluster(nodes, pods))
    assert sim.schedule("default/p0")["host"] == "n0"
    assert sim.schedule("default/p1")["host"] == "n0"  # p0 was not bound
    sim.bind("default/p0", "n0")
    assert sim.host_of("default/p0") == "n0"
    r = sim.schedule("default/p1")
    assert r["host"] is None and r["error"] == "0/1 nodes are available: 1 Insufficient cpu."
    with pytest.raises(InputError, match="already bound"):
        sim.bind("default/p0", "n0")


def test_copy_is_an_independent_branch():
    nodes = [node("n0", allocatable={"cpu": "1", "memory": "1Gi", "pods": 10})]
    pods = [pod(f"p{i}", ns="default", requests={"cpu": "600m"}) for i in range(2)]
    sim = Simulator(cluster(nodes, pods))
    branch = sim.copy()
    assert branch.schedule_and_bind("default/p1") == "n0"
    assert sim.host_of("default/p1") is None
    assert sim.schedule_and_bind("default/p0") == "n0"  # the branch's binding is not here
    assert branch.schedule_and_bind("default/p0") is None


def test_unknown_pods_and_nodes_and_unbuilt_calls():
    sim = Simulator(cluster([node("n0")], [pod("p", ns="default")]))
    with pytest.raises(InputError, match="unknown pending pod"):
        sim.schedule("default/nope")
    with pytest.raises(InputError, match="unknown node"):
        sim.bind("default/p", "n9")
    for call in (lambda: sim.delete("default/p"), lambda: sim.add_pod({}),
                 lambda: sim.add_node({}), lambda: sim.remove_node("n0")):  # fmt: skip
        with pytest.raises(UnsupportedError, match="not built yet"):
            call()
