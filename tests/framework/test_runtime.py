"""The scheduling cycle of the runtime: shortcuts, weights, range check, modes."""

from __future__ import annotations

from types import SimpleNamespace

import numba
import numpy as np
import pytest

from kscore_fast.framework import abi, runtime, scoring
from kscore_fast.framework.entries import PluginTable
from kscore_fast.framework.interface import Plugin
from kscore_fast.framework.runtime import ERR_NO_NODES, _invalid_score
from kscore_fast.model.objects import RS_KIND
from kscore_fast.profile import build_framework

from ..builders import cluster, controller_ref, node, pod, rs, service


@numba.njit
def _const_score(state, pod, nodes, out):  # pragma: no cover - compiled
    out[:] = state[0][0]


class _Const(Plugin):
    """A score plugin giving every node one raw score (its state's)."""

    name = "Const"
    scores = True
    kernels = SimpleNamespace(score_pod=_const_score)

    def prepare(self, snapshot, batch):  # pragma: no cover - states are built by hand
        raise AssertionError


def _score_one_pod(values, weights, n_nodes=3, from_rows=False):
    """framework.scoring with constant-score plugins (``values[k]``) for one pod, scored
    on its own list or (``from_rows``) taking constant rows of raw scores."""
    k = len(values)
    raw = np.zeros((k, n_nodes), np.int64)
    norm = np.zeros((k, n_nodes), np.int64)
    norm_u8 = np.zeros((k, n_nodes), np.uint8)
    total = np.zeros(n_nodes, np.int64)
    per_pod = [np.zeros(1, np.int64) for _ in range(4)]
    states = [(np.array([v], dtype=np.int64),) for v in values]
    plugins = PluginTable([_Const() for _ in values], states, [abi.SCORE, abi.NORMALIZE])
    _driver(plugins.table, np.asarray(values, np.int64), np.asarray(weights, np.int64),
            np.arange(n_nodes, dtype=np.int32), raw, norm, norm_u8, total, *per_pod,
            from_rows)  # fmt: skip
    best, count, bad, bad_value = (int(x[0]) for x in per_pod)
    return (best, count, bad, bad_value), raw, norm_u8, total


@numba.njit
def _driver(
    table, values, weights, nodes, raw, norm, norm_u8, total, best, count, bad_plugin,
    bad_value, from_rows,
):  # pragma: no cover - compiled  # fmt: skip
    todo = np.zeros(1, np.int64)
    ptr = np.array([0, nodes.shape[0]], np.int64)
    pods = np.zeros(1, np.int64)
    n_plugins = values.shape[0]
    n_all = nodes.shape[0]
    rows = np.full(1, 0 if from_rows else -1, np.int64)
    row_raw = np.empty((n_plugins, n_all), np.int64)
    for k in range(n_plugins):
        row_raw[k, :] = values[k]
    row_const = np.ones((n_plugins, 1), np.bool_)
    cflag = np.empty((n_plugins, 1), np.bool_)
    cval = np.empty((n_plugins, 1), np.int64)
    for k in range(n_plugins):
        scoring.plugin_pass(table, k, abi.SCORE, k, todo, pods, ptr, nodes, raw, 0, norm, ptr,
                            rows, row_raw, n_all, row_const, True, True, cflag, cval,
                            True)  # fmt: skip
    scoring.weigh_pods(weights, todo, ptr, norm, ptr, norm_u8, 0, total, best, count,
                       bad_plugin, bad_value, cflag, cval, True)  # fmt: skip


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
    r = build_framework("SelectorSpread").run(c.snapshot, c.batch)
    d = r.to_dict()["results"][0]  # nothing is scored
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


@pytest.mark.parametrize("from_rows", [False, True])
def test_weights_and_totals(from_rows):
    (best, count, bad, _), raw, norm, total = _score_one_pod([7, 30], [3, 2], 3, from_rows)
    assert raw.tolist() == [[7, 7, 7], [30, 30, 30]]
    assert norm.tolist() == raw.tolist()
    assert total.tolist() == [81, 81, 81]
    assert (best, count, bad) == (81, 3, -1)


def test_weight_zero_means_one():
    assert build_framework("SelectorSpread=0").score_plugins[0].weight == 1


@pytest.mark.parametrize("from_rows", [False, True])
@pytest.mark.parametrize("value", [101, -1])
def test_out_of_range_score_is_go_error_text(value, from_rows):
    (_, _, bad, bad_value), _, _, _ = _score_one_pod([5, value], [1, 1], 3, from_rows)
    assert (bad, bad_value) == (1, value)
    # RunScorePlugins' message, exactly (framework.go, v1.23.6)
    assert _invalid_score("Bad", value) == (
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


def test_plugin_tables_of_states_of_one_type_differ_only_in_their_states():
    """A plugin table made from the kept entry points of an earlier table of the same
    plugins and state types holds its own states' addresses."""
    from kscore_fast.framework import entries

    plugins = [_Const(), _Const()]
    first = PluginTable(plugins, [(np.array([1]),), (np.array([2]),)], [abi.SCORE])
    second = PluginTable(plugins, [(np.array([3]),), (np.array([4]),)], [abi.SCORE])
    entries._tables.clear()
    fresh = PluginTable(plugins, [(np.array([3]),), (np.array([4]),)], [abi.SCORE])
    for table in (first, second):
        states = [p.address for p in table.packed]
        assert table.table[:, abi.STATE].tolist() == states
    assert first.table[:, abi.STATE].tolist() != second.table[:, abi.STATE].tolist()
    others = [c for c in range(abi.COLUMNS) if c != abi.STATE]
    assert (first.table[:, others] == second.table[:, others]).all()
    assert (fresh.table[:, others] == second.table[:, others]).all()
    assert (second.table[:, abi.SCORE] != 0).all()
    # and the scores read the states of their own table
    assert _score_one_pod([7, 9], [1, 1])[3].tolist() == [16, 16, 16]
    assert _score_one_pod([5, 0], [2, 1])[3].tolist() == [10, 10, 10]


def test_api_score_builds_a_plugins_string_framework_once():
    import kscore_fast
    from kscore_fast import api

    c = _spread_cluster(n_nodes=6, n_pending=3)
    first = kscore_fast.score(c, plugins="SelectorSpread=2", seed=4).to_dict()
    fw = api._plugins_framework("SelectorSpread=2", 0)
    assert api._plugins_framework("SelectorSpread=2", 0) is fw
    assert api._plugins_framework("SelectorSpread=2", 50) is not fw
    assert api._plugins_framework("SelectorSpread=3", 0) is not fw
    again = kscore_fast.score(c, plugins="SelectorSpread=2", seed=4).to_dict()
    assert first == again
    fresh = build_framework("SelectorSpread=2").run(c.snapshot, c.batch, seed=4, explain=True)
    assert fresh.to_dict() == first


def _own_selectors_cluster(n_nodes=150, n_pending=40):
    """Pending pods each owned by a ReplicaSet of its own (no two share a selector, so none
    copies another's scores), some nominated (one-node lists), bound pods they match."""
    zone = "topology.kubernetes.io/zone"
    nodes = [node(f"n{i}", {zone: f"z{i % 3}"}) for i in range(n_nodes)]
    pods = [pod(f"e{i}", ns="default", labels={"g": str(i % 11)}, node=f"n{(i * 7) % n_nodes}")
            for i in range(90)]  # fmt: skip
    pods += [pod(f"p{i}", ns="default", labels={"g": str(i % 11), "id": str(i)},
                 owner=controller_ref(f"rs{i}", RS_KIND), nominated="n5" if i % 9 == 4 else "")
             for i in range(n_pending)]  # fmt: skip
    owners = [rs(f"rs{i}", {"g": str(i % 11), "id": str(i)}) for i in range(n_pending)]
    return cluster(nodes, pods, controllers=owners)


@pytest.mark.parametrize("scores", ["all", "top:3", "none"])
@pytest.mark.parametrize("chunk_size", [7, None])
def test_node_lists_left_to_the_scoring_equal_lists_written(monkeypatch, scores, chunk_size):
    """Without filters, a batch whose pods are each scored has its node lists written by
    the scoring threads (``search_chunk``'s ``windows``): the same results, rotating windows
    (150 nodes, 100 a cycle) and nominated pods' one-node lists included."""
    c = _own_selectors_cluster()
    fw = build_framework("SelectorSpread")
    decided = []

    def spy(ids):
        decided.append(runtime._distinct.__wrapped__(ids))
        return decided[-1]

    spy.__wrapped__ = runtime._distinct
    monkeypatch.setattr(runtime, "_distinct", spy)
    left = fw.run(c.snapshot, c.batch, seed=9, scores=scores, chunk_size=chunk_size).to_dict()
    assert decided == [True]
    monkeypatch.setattr(runtime, "_distinct", lambda ids: False)
    written = fw.run(c.snapshot, c.batch, seed=9, scores=scores, chunk_size=chunk_size).to_dict()
    assert left == written
    results = left["results"]
    assert [r["host"] for r in results if r["pod"] in ("default/p4", "default/p13")] == ["n5"] * 2
    if scores == "all":  # (rotating: the second pod's list starts at node 100)
        assert [s["node"] for s in results[1]["scores"]][:2] == ["n100", "n101"]
