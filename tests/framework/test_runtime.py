"""The scheduling cycle of the runtime: shortcuts, weights, range check, modes."""

from __future__ import annotations

import pytest

from kscore_fast.framework.runtime import ERR_NO_NODES, Framework, WeightedPlugin
from kscore_fast.plugins.selectorspread import SelectorSpread
from kscore_fast.profile import build_framework

from ..builders import cluster, node, pod, service


class ConstPlugin:
    """A score plugin returning ``value`` everywhere, without NormalizeScore."""

    normalizes = False

    def __init__(self, value: int, name: str = "Const") -> None:
        self.value = value
        self.name = name

    def pre_score(self, snapshot, batch, chunk):
        return None

    def score(self, state, snapshot, batch, chunk, out):
        out[:] = self.value

    def normalize(self, state, snapshot, batch, chunk, scores):  # pragma: no cover
        raise AssertionError("not a normalizing plugin")


def _spread_cluster(n_nodes=4, n_pending=3):
    nodes = [node(f"n{i}", {"topology.kubernetes.io/zone": f"z{i % 2}"}) for i in range(n_nodes)]
    pods = [pod(f"e{i}", ns="default", labels={"app": "a"}, node="n0") for i in range(2)]
    pods += [pod(f"p{i}", ns="default", labels={"app": "a"}) for i in range(n_pending)]
    return cluster(nodes, pods, [service({"app": "a"})])


def test_no_nodes():
    c = cluster([], [pod("p", ns="default")])
    r = build_framework("SelectorSpread").run(c.snapshot, c.batch)
    d = r.to_dict()["results"][0]
    assert d == {
        "pod": "default/p",
        "host": None,
        "feasibleNodes": 0,
        "evaluatedNodes": 0,
        "error": ERR_NO_NODES,
        "scores": [],
    }


def test_single_feasible_node_is_chosen_without_scoring():
    c = cluster([node("only")], [pod("p", ns="default")])
    r = Framework([WeightedPlugin(ConstPlugin(1000), 1)]).run(c.snapshot, c.batch)
    d = r.to_dict()["results"][0]  # the invalid score is never computed
    assert (d["host"], d["feasibleNodes"], d["evaluatedNodes"], d["error"], d["scores"]) == (
        "only",
        1,
        1,
        None,
        [],
    )


def test_no_score_plugins_every_node_scores_one():
    c = _spread_cluster()
    r = build_framework("").run(c.snapshot, c.batch)
    for res in r.to_dict()["results"]:
        assert [s["total"] for s in res["scores"]] == [1, 1, 1, 1]
        assert all(s["plugins"] == {} for s in res["scores"])
        assert res["host"] in {"n0", "n1", "n2", "n3"}


def test_weights_and_totals():
    c = _spread_cluster()
    r = Framework([WeightedPlugin(SelectorSpread(), 3), WeightedPlugin(ConstPlugin(7), 2)]).run(
        c.snapshot, c.batch
    )
    for res in r.to_dict()["results"]:
        for s in res["scores"]:
            ss, const = s["plugins"]["SelectorSpread"], s["plugins"]["Const"]
            assert ss["weighted"] == 3 * ss["normalized"]
            assert const == {"raw": 7, "normalized": 7, "weighted": 14}
            assert s["total"] == ss["weighted"] + 14
        top = max(s["total"] for s in res["scores"])
        assert res["host"] in {s["node"] for s in res["scores"] if s["total"] == top}


def test_weight_zero_means_one():
    assert build_framework("SelectorSpread=0").score_plugins[0].weight == 1


@pytest.mark.parametrize("value", [101, -1])
def test_out_of_range_score_is_go_error_text(value):
    c = _spread_cluster()
    fw = Framework(
        [WeightedPlugin(SelectorSpread(), 1), WeightedPlugin(ConstPlugin(value, "Bad"), 1)]
    )
    for res in fw.run(c.snapshot, c.batch).to_dict()["results"]:
        assert res["host"] is None and res["scores"] == [] and res["feasibleNodes"] == 0
        assert res["evaluatedNodes"] == 0
        # RunScorePlugins' message, exactly (framework.go, v1.23.6)
        assert res["error"] == (
            'applying score defaultWeights on Score plugins: plugin "Bad" returns an invalid '
            f"score {value}, it should in the range of [0, 100] after normalizing"
        )


def test_scores_modes():
    c = _spread_cluster()
    fw = build_framework("SelectorSpread")
    full = fw.run(c.snapshot, c.batch, seed=3).to_dict()["results"]
    top = fw.run(c.snapshot, c.batch, seed=3, scores="top:2").to_dict()["results"]
    none = fw.run(c.snapshot, c.batch, seed=3, scores="none").to_dict()["results"]
    for f, t, n in zip(full, top, none, strict=True):
        assert f["host"] == t["host"] == n["host"]
        assert n["scores"] == []
        # the host first, then the best others (sorted is stable: ties in list order)
        host = [s for s in f["scores"] if s["node"] == f["host"]]
        others = sorted(
            (s for s in f["scores"] if s["node"] != f["host"]), key=lambda s: -s["total"]
        )
        assert t["scores"] == (host + others)[:2]


def test_chunking_does_not_change_results():
    c = _spread_cluster(n_nodes=150, n_pending=40)
    fw = build_framework("SelectorSpread")
    a = fw.run(c.snapshot, c.batch, seed=5, chunk_size=7).to_dict()
    b = fw.run(c.snapshot, c.batch, seed=5, chunk_size=1000).to_dict()
    assert a == b
    # 150 nodes, adaptive percentage: 100 nodes per cycle, rotating
    firsts = [r["scores"][0]["node"] for r in a["results"][:3]]
    assert firsts == [c.snapshot.node_names[i] for i in (0, 100, 50)]


@pytest.mark.parametrize("bad", ["-1", "x", "1.5"])
def test_bad_weights(bad):
    from kscore_fast.errors import ConfigError

    with pytest.raises(ConfigError):
        build_framework(f"SelectorSpread={bad}")
