"""Fast ingest: typed JSON decoding and the parsed (YAML, dict) path give the same records
and the same errors; large Lists streamed in chunks give what reading them whole gives."""

from __future__ import annotations

import copy
import io
import json
import os
import random
import re
import sys
import time
from itertools import pairwise
from pathlib import Path

import pytest
import yaml

from kscore_fast.api import load_cluster
from kscore_fast.errors import InputError
from kscore_fast.io import manifests, parallel, streaming
from kscore_fast.io.load import read_inputs

from ..scenarios import scenario


def _records(objs):
    return (objs.nodes, objs.pods, objs.services, objs.controllers, dict(objs.skipped), objs.total)


def _read(paths=(), objects=()):
    try:
        objs, _ = read_inputs(paths, objects)
    except InputError as exc:
        return str(exc)
    return _records(objs)


def _as_list(objects, kind="List"):
    return {"apiVersion": "v1", "items": objects, "kind": kind, "metadata": {"resourceVersion": ""}}


@pytest.mark.parametrize("seed", range(40))
def test_typed_json_equals_parsed_objects(seed, tmp_path):
    """The same objects through typed JSON decoding and through dicts (msgspec.convert)."""
    objects = scenario(seed)
    f = tmp_path / "c.json"
    f.write_text(json.dumps(_as_list(objects)))
    typed = _read([f])
    parsed = _read(objects=[_as_list(objects)])
    assert typed[:4] == parsed[:4]


def _unlocated(message: str) -> str:
    """An error without its file and position (``<file>: Pod ns/p ([0], items[3]): ...``)."""
    text = message.split(": ", 1)[1]
    return re.sub(r" ?\(?(\[0\], )?items\[\d+\]\)?", "", text)


_MUTATIONS = [
    ("metadata", "labels", {"app": 1}),
    ("metadata", "labels", ["app"]),
    ("metadata", "labels", {"app": "a b"}),
    ("metadata", "namespace", 7),
    ("metadata", "name", 5),
    ("metadata", "ownerReferences", [None]),
    ("metadata", "ownerReferences", [{"controller": "yes"}]),
    ("metadata", "ownerReferences", {"kind": "ReplicaSet"}),
    ("spec", "containers", {"name": "c"}),
    ("spec", "containers", [None, {"resources": None}]),
    ("spec", "containers", [{"resources": {"requests": {"cpu": "1.2.3"}}}]),
    ("spec", "containers", [{"resources": {"limits": {"memory": True}}}]),
    ("spec", "containers", [{"resources": {"requests": []}}]),
    ("spec", "initContainers", [{"resources": {"requests": {"cpu": [1]}}}]),
    ("spec", "overhead", {"cpu": "abc"}),
    ("spec", "nodeName", 3),
    ("spec", "topologySpreadConstraints", {"maxSkew": 1}),
    ("status", "phase", ["Running"]),
    ("status", "nominatedNodeName", False),
    ("spec", "priority", "high"),
    ("spec", "priority", 1 << 31),
    ("spec", "schedulerName", ["a"]),
    ("spec", "nodeSelector", {"disk": 1}),
    ("spec", "nodeSelector", {"disk": "a b"}),
    ("spec", "tolerations", [{"key": "a", "operator": "Equals"}]),
    ("spec", "tolerations", [{"key": "a", "tolerationSeconds": "300"}]),
    ("spec", "tolerations", {"key": "a"}),
    ("spec", "affinity", {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {}}}),
    ("spec", "affinity", {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": 5}}),
    ("spec", "containers", [{"ports": [{"containerPort": 80, "protocol": "HTTP"}]}]),
    ("spec", "containers", [{"ports": [{"containerPort": "80"}]}]),
    ("spec", "containers", [{"image": 5}]),
    ("spec", "volumes", [{"persistentVolumeClaim": {"claimName": 5}}]),
    ("spec", "taints", "ignored: a pod has none"),
    ("status", "images", "ignored: a pod has none"),
    (None, "metadata", "not a mapping"),
    (None, "spec", 5),
    (None, "kind", 3),
]


@pytest.mark.parametrize("mutation", _MUTATIONS, ids=lambda m: f"{m[0]}.{m[1]}={m[2]!r}")
def test_typed_and_parsed_paths_agree_on_bad_input(mutation, tmp_path):
    """Typed decoding refuses an object exactly when the located validator does, and the
    error is the validator's in both paths."""
    part, key, value = mutation
    objects = scenario(3)
    pods = [i for i, o in enumerate(objects) if o["kind"] == "Pod"]
    bad = copy.deepcopy(objects[pods[len(pods) // 2]])
    if part is None:
        bad[key] = value
    else:
        bad.setdefault(part, {})[key] = value
    objects[pods[len(pods) // 2]] = bad
    f = tmp_path / "c.json"
    f.write_text(json.dumps(_as_list(objects)))
    typed = _read([f])
    parsed = _read(objects=[_as_list(objects)])
    if isinstance(typed, str):
        assert isinstance(parsed, str)
        assert _unlocated(typed) == _unlocated(parsed)
    else:
        assert typed[:4] == parsed[:4]


_TEXT_KEPT_CASES = {
    # a pod with a type error in a text kept raw and a value error elsewhere
    "same pod": [(0, ("metadata", "labels", {"app": "a b"})),
                 (0, ("spec", "tolerations", [{"key": "a", "tolerationSeconds": "x"}]))],
    "value error first": [(-2, ("metadata", "labels", {"app": "a b"})),
                          (0, ("spec", "tolerations", [{"key": "a", "tolerationSeconds": "x"}]))],
    "type error first": [(0, ("spec", "containers", [{"ports": [{"containerPort": "80"}]}])),
                         (2, ("metadata", "labels", {"app": "a b"}))],
    # the pod before has the same template but a quantity that is not a text
    "1 then true": [(-1, ("spec", "containers", [{"resources": {"requests": {"cpu": 1}}}])),
                    (0, ("spec", "containers", [{"resources": {"requests": {"cpu": True}}}]))],
    "same texts": [(-1, ("spec", "containers", [{"resources": {"requests": {"cpu": "1"}}}])),
                   (0, ("spec", "containers", [{"resources": {"requests": {"cpu": "1"}}}]))],
    "null texts": [(0, ("spec", "tolerations", None)),
                   (0, ("spec", "containers", [{"resources": None, "ports": None}]))],
}  # fmt: skip


@pytest.mark.parametrize("how", ["whole", "streamed", "parallel"])
@pytest.mark.parametrize("case", list(_TEXT_KEPT_CASES))
def test_texts_kept_raw_are_checked_as_parsed_objects_are(case, how, tmp_path, monkeypatch):
    """A JSON document keeps a pod's tolerations and its containers' resources and ports as
    text, decoded only for a pod of a new template: every reading gives the records, or
    the error, that reading the objects parsed gives."""
    objects = scenario(3, max_pods=300)
    pods = [i for i, o in enumerate(objects) if o["kind"] == "Pod"]
    middle = len(pods) // 2
    for offset, (part, key, value) in _TEXT_KEPT_CASES[case]:
        objects[pods[middle + offset]].setdefault(part, {})[key] = value
    f = _write(objects, tmp_path / "c.json", "json")
    if how != "whole":
        monkeypatch.setattr(manifests, "STREAM_BYTES", 0)
        monkeypatch.setattr(streaming, "CHUNK_BYTES", 2048)
        monkeypatch.setattr(parallel, "PARALLEL_BYTES", 1 << 62 if how == "streamed" else 0)
        monkeypatch.setattr(parallel, "RANGE_BYTES", 3000)
        monkeypatch.setenv("KSCORE_READ_WORKERS", "2")
    got, want = _read([f]), _read(objects=[_as_list(objects)])
    if isinstance(want, str):
        assert isinstance(got, str) and _unlocated(got) == _unlocated(want)
    else:
        assert got[:4] == want[:4]


# -- streaming ---------------------------------------------------------------------------------


def _whole(monkeypatch, paths):
    with monkeypatch.context() as m:
        m.setattr(manifests, "STREAM_BYTES", 1 << 62)
        return _read(paths)


def _write(objects, path: Path, fmt: str, indent: int = 4, kind: str = "List") -> Path:
    doc = _as_list(objects, kind)
    if fmt == "json":
        path.write_text(json.dumps(doc, indent=indent))
    else:
        path.write_text(yaml.safe_dump(doc, sort_keys=True))
    return path


@pytest.mark.parametrize("fmt,indent", [("json", 4), ("json", 2), ("yaml", 0)])
@pytest.mark.parametrize("seed", range(12))
def test_streamed_equals_whole(seed, fmt, indent, tmp_path, monkeypatch, stream_all):
    objects = scenario(seed, max_pods=300)
    f = _write(objects, tmp_path / f"c.{fmt}", fmt, indent)
    seen = []
    real = streaming.json_pieces if fmt == "json" else streaming.yaml_items
    monkeypatch.setattr(
        streaming, real.__name__, lambda *a: (seen.append(1), (yield from real(*a)))[1]
    )
    streamed = _read([f])
    assert seen, "the file was not streamed"
    assert streamed == _whole(monkeypatch, [f])


def test_streamed_typed_list(tmp_path, monkeypatch, stream_all):
    """``PodList`` items carry no kind; kubectl prints the List's kind after the items."""
    pods = [o for o in scenario(5) if o["kind"] == "Pod"]
    for o in pods:
        del o["kind"]
    f = _write(pods, tmp_path / "pods.json", "json", kind="PodList")
    streamed = _read([f])
    assert streamed == _whole(monkeypatch, [f]) and len(streamed[1]) == len(pods)


@pytest.mark.parametrize("fmt", ["json", "yaml"])
def test_streamed_errors_equal_whole_errors(fmt, tmp_path, monkeypatch, stream_all):
    rng = random.Random(0)
    objects = scenario(7, max_pods=300)
    pods = [i for i, o in enumerate(objects) if o["kind"] == "Pod"]
    bad = objects[rng.choice(pods[len(pods) // 2 :])]["metadata"]
    good, bad["labels"] = bad.get("labels"), {"app": "no spaces"}
    f = _write(objects, tmp_path / f"c.{fmt}", fmt)
    streamed = _read([f])
    assert isinstance(streamed, str) and "invalid label value" in streamed
    assert streamed == _whole(monkeypatch, [f])
    # malformed text late in the file: the located error of the whole document
    bad["labels"] = good
    text = _write(objects, f, fmt).read_text()
    cut = text.rfind('"kind": "Pod"' if fmt == "json" else "kind: Pod")
    f.write_text(text[:cut] + "{{{" + text[cut:])
    streamed = _read([f])
    assert isinstance(streamed, str) and "malformed" in streamed and " at line " in streamed
    assert streamed == _whole(monkeypatch, [f])


def test_yaml_pieces_that_do_not_parse_alone_fall_back(tmp_path, monkeypatch, stream_all):
    """An alias between items, or a quoted scalar running past a line starting with
    ``- ``: the whole document is read (and gives the same records)."""
    node = "- apiVersion: v1\n  kind: Node\n  metadata:\n    name: n{i}\n"
    items = "".join(node.format(i=i) for i in range(200))
    aliased = (
        "apiVersion: v1\nitems:\n- kind: Pod\n  metadata:\n    name: a\n    labels: &l {app: x}\n"
        + items
        + "- kind: Pod\n  metadata:\n    name: b\n    labels: *l\nkind: List\n"
    )
    quoted = (
        "apiVersion: v1\nitems:\n"
        + items
        + '- kind: Pod\n  metadata:\n    name: c\n    annotations: {note: "one\n- two"}\n'
        + items.replace("name: n", "name: m")
        + "kind: List\n"
    )
    for text in (aliased, quoted):
        f = tmp_path / "c.yaml"
        f.write_text(text)
        streamed = _read([f])
        assert not isinstance(streamed, str), streamed
        assert streamed == _whole(monkeypatch, [f])
    assert streamed[1][0].name == "c"


def test_not_a_list_is_read_whole(tmp_path, monkeypatch, stream_all):
    """``items:`` in something that is not a List (a custom resource, say)."""
    doc = {"kind": "Widget", "metadata": {"name": "w"}, "items": [{"kind": "Node"}]}
    f = tmp_path / "w.json"
    f.write_text(json.dumps(doc, indent=4))
    assert _read([f]) == _whole(monkeypatch, [f]) == ([], [], [], [], {"Widget": 1}, 1)


@pytest.mark.parametrize("fmt", ["json", "yaml"])
def test_large_stdin_is_spooled_and_streamed(fmt, tmp_path, monkeypatch, stream_all):
    """``kubectl get pods -A -o json | kscore score -``: standard input beyond the
    streaming size goes to an anonymous temporary file and is read in chunks."""
    f = _write(scenario(9, max_pods=300), tmp_path / f"c.{fmt}", fmt)
    monkeypatch.setattr(manifests, "STREAM_BYTES", 4096)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(f.read_bytes())))
    (source,) = manifests.iter_sources(["-"], manifests.Report())
    assert source.spool is not None and source.size == f.stat().st_size
    source.close()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(f.read_bytes())))
    assert _read(["-"]) == _whole(monkeypatch, [f])


def test_items_of_an_object_that_is_not_a_list_are_not_read(tmp_path):
    """``items`` means something only in a List: a pod carrying one is still a pod."""
    pod = {"kind": "Pod", "metadata": {"name": "p"}, "items": 5}
    f = tmp_path / "p.json"
    f.write_text(json.dumps(pod))
    assert _read([f])[1][0].name == "p"
    assert _read(objects=[pod])[1][0].name == "p"


# -- several processes ---------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["json", "yaml"])
@pytest.mark.parametrize("seed", range(6))
def test_parallel_equals_sequential(seed, fmt, tmp_path, monkeypatch, in_parallel):
    objects = scenario(seed, max_pods=300)
    f = _write(objects, tmp_path / f"c.{fmt}", fmt)
    got = _read([f])
    assert in_parallel and (fmt == "yaml" or all(in_parallel)), "not read in parallel"
    with monkeypatch.context() as m:
        m.setenv("KSCORE_READ_WORKERS", "1")
        assert got == _read([f])


def _cluster(paths):
    """What a load gives, comparable: the snapshot's and the batch's columns and the
    warning line (or the error message)."""
    try:
        cluster = load_cluster(paths)
    except InputError as exc:
        return str(exc)
    s, b = cluster.snapshot, cluster.batch
    arrays = (s.node_input_order, s.node_zone, s.pod_ns, s.pod_node, s.pod_deleting,
              s.pod_labels.ptr, s.pod_labels.key, s.pod_labels.value, b.ns, b.labels.ptr,
              b.labels.key, b.labels.value, b.controller_kind, b.controller_idx,
              b.has_spread_constraints, b.nominated)  # fmt: skip
    interner = s.labels
    return (s.node_names, s.nodes, s.zone_keys, s.namespaces, s.pods, s.services,
            s.controllers, s.controller_index, s.namespace_labels, interner.keys,
            interner.key_id, interner.values, interner.value_id, b.pods, b.names,
            [(a.dtype.str, a.tolist()) for a in arrays], cluster.warning())  # fmt: skip


def _scenario_with(seed: int, case: str) -> list[dict]:
    """A scenario of many pods, with something odd about it (``case``)."""
    objects = scenario(seed, max_pods=300, max_pending=60)
    pods = [o for o in objects if o["kind"] == "Pod"]
    if case == "terminated and deleting":
        for o in pods[::7]:
            o.setdefault("status", {})["phase"] = "Succeeded"
        for o in pods[3::11]:
            o["metadata"]["deletionTimestamp"] = "2022-09-14T09:24:12Z"
    elif case == "nodes last":  # pods bound to nodes the file defines after them
        objects.sort(key=lambda o: o["kind"] == "Node")
    elif case == "many namespaces and labels":
        for i, o in enumerate(pods):
            o["metadata"]["namespace"] = f"ns{i % 13}"
            o["metadata"].setdefault("labels", {})[f"k{i % 5}"] = f"v{i}"
    elif case == "bad label far in":
        pods[-2]["metadata"]["labels"] = {"app": "no spaces"}
    elif case == "duplicate across ranges":
        pods[-1]["metadata"].update(name=pods[1]["metadata"]["name"],
                                    namespace=pods[1]["metadata"].get("namespace"))  # fmt: skip
    return objects


_CASES = ["plain", "terminated and deleting", "nodes last", "many namespaces and labels",
          "bad label far in", "duplicate across ranges"]  # fmt: skip


@pytest.mark.parametrize("range_bytes", [1500, 7777])
@pytest.mark.parametrize("case", _CASES)
def test_parallel_load_equals_sequential_load(case, range_bytes, tmp_path, monkeypatch,
                                              in_parallel):  # fmt: skip
    """The cluster read by 2 processes, in ranges that split the file at odd places, is the
    one read by one: snapshot and batch columns, records, warnings, and errors."""
    monkeypatch.setattr(parallel, "RANGE_BYTES", range_bytes)
    f = _write(_scenario_with(len(case) + range_bytes, case), tmp_path / "c.json", "json")
    got = _cluster([f])
    assert in_parallel and (isinstance(got, str) or all(in_parallel)), "not read in parallel"
    with monkeypatch.context() as m:
        m.setenv("KSCORE_READ_WORKERS", "1")
        want = _cluster([f])
    assert got == want
    assert isinstance(got, str) == (case in ("bad label far in", "duplicate across ranges"))


def test_workers_are_reaped(tmp_path, in_parallel):
    """Workers still ending when the reading is done are not waited for, and reaped later."""
    f = _write(scenario(4, max_pods=300), tmp_path / "c.json", "json")
    for _ in range(3):
        _read([f])
    parallel.reap()
    assert in_parallel == [True] * 3 and not parallel._stopped
    with pytest.raises(ChildProcessError):
        os.waitpid(-1, os.WNOHANG)


@pytest.mark.parametrize("worker", ["stalls", "dies"])
def test_a_worker_that_stalls_or_dies_holding_a_range_is_not_waited_for(worker, tmp_path,
                                                                        monkeypatch,
                                                                        in_parallel):  # fmt: skip
    """The parent reads the ranges still missing once none is left to take: a worker that
    took one and never announces it (slowed down, or killed) changes nothing."""

    def take_one_and_stop(job, counter, number, out, announce):
        counter.take(len(job.bounds))
        if worker == "stalls":
            time.sleep(600)  # (ended by the parent)

    monkeypatch.setattr(parallel, "_work", take_one_and_stop)
    f = _write(scenario(3, max_pods=300), tmp_path / "c.json", "json")
    start = time.monotonic()
    got = _read([f])
    assert in_parallel == [True] and time.monotonic() - start < 60
    with monkeypatch.context() as m:
        m.setenv("KSCORE_READ_WORKERS", "1")
        assert got == _read([f])


def test_ranges_read_in_any_order_give_their_items(tmp_path, monkeypatch, stream_all):
    """The parent reads the ranges a slow worker holds after later ones: reading a range
    leaves the bytes where the next search for an item's start looks as they were."""
    monkeypatch.setattr(parallel, "RANGE_BYTES", 3000)
    f = _write(scenario(5, max_pods=300), tmp_path / "c.json", "json")
    source = manifests.Source(str(f), True, size=f.stat().st_size)
    with source.open() as fh:
        layout = streaming.json_layout(fh, source.size)
    bounds = parallel._ranges(layout.start, layout.end, 2)

    def names(order):
        reader = parallel._RangeReader(parallel._Job(source, layout, True, None, bounds))
        parts = {i: reader.read(*bounds[i]) for i in order}
        return [[p.name for p in parts[i][0].pods] for i in range(len(bounds))]

    assert len(bounds) > 10
    assert names(reversed(range(len(bounds)))) == names(range(len(bounds)))


@pytest.mark.parametrize("processes", [2, 3, 8])
@pytest.mark.parametrize("size", [1, 5 << 20, 141 << 20, 1 << 33])
def test_parallel_ranges_tile_the_items_and_shrink_toward_the_end(size, processes):
    ranges = parallel._ranges(7, 7 + size, processes)
    assert ranges[0][0] == 7 and ranges[-1][1] == 7 + size
    assert all(a[1] == b[0] for a, b in pairwise(ranges))
    sizes = [hi - lo for lo, hi in ranges]
    assert max(sizes) <= parallel.RANGE_BYTES and sizes == sorted(sizes, reverse=True)
    assert min(sizes[:-1], default=parallel.LAST_RANGE_BYTES) >= parallel.LAST_RANGE_BYTES


@pytest.mark.parametrize("fmt", ["json", "yaml"])
def test_parallel_errors_and_duplicates_equal_sequential(fmt, tmp_path, monkeypatch, in_parallel):
    """A worker that meets bad input, or names repeated across ranges: the message is the
    one-process reading's, with the right item numbers."""
    objects = scenario(11, max_pods=300)
    pods = [i for i, o in enumerate(objects) if o["kind"] == "Pod"]
    late = objects[pods[-3]]
    late["metadata"]["labels"] = {"app": "no spaces"}
    f = _write(objects, tmp_path / f"bad.{fmt}", fmt)
    late["metadata"]["labels"] = {}
    late["metadata"]["name"] = objects[pods[2]]["metadata"]["name"]  # a duplicate, far away
    late["metadata"]["namespace"] = objects[pods[2]]["metadata"]["namespace"]
    g = _write(objects, tmp_path / f"dup.{fmt}", fmt)
    got = [_read([f]), _read([g])]
    with monkeypatch.context() as m:
        m.setenv("KSCORE_READ_WORKERS", "1")
        want = [_read([f]), _read([g])]
    assert got == want
    assert "invalid label value" in got[0] and "duplicate Pod (first defined in" in got[1]


@pytest.mark.parametrize("fmt", ["json", "yaml"])
def test_name_repeated_after_a_parallel_read_names_its_first_place(fmt, tmp_path, monkeypatch,
                                                                   in_parallel):  # fmt: skip
    """A later file repeats a name of a List read in parallel: the message gives the item
    number of the first definition counted from the start of the List, as one process
    does (ranges number their items from their own start until they are merged)."""
    objects = scenario(12, max_pods=300)
    f = _write(objects, tmp_path / f"big.{fmt}", fmt)
    late = next(o for o in reversed(objects) if o["kind"] == "Pod")
    g = tmp_path / "again.json"
    g.write_text(json.dumps(late))
    got = _read([f, g])
    assert in_parallel, "not read in parallel"
    with monkeypatch.context() as m:
        m.setenv("KSCORE_READ_WORKERS", "1")
        want = _read([f, g])
    assert got == want and f"items[{objects.index(late)}])" in got


@pytest.mark.parametrize("fmt", ["json", "yaml"])
def test_streamed_item_larger_than_a_chunk(fmt, tmp_path, monkeypatch, stream_all):
    """The chunk buffer grows past an item larger than itself (while the reader still
    holds views of the previous chunk)."""
    big = {"kind": "Pod", "metadata": {"name": "big", "annotations": {"a": "x" * 5000}}}
    objects = [
        {"kind": "Node", "metadata": {"name": "n"}},
        big,
        {"kind": "Pod", "metadata": {"name": "small"}},
    ]
    f = _write(objects, tmp_path / f"c.{fmt}", fmt)
    got = _read([f])
    assert not isinstance(got, str), got
    assert got == _whole(monkeypatch, [f]) and [p.name for p in got[1]] == ["big", "small"]
