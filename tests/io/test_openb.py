"""``kscore import openb``: the mapping, every bad input named by file, line and column,
atomic output that never lands on what is not an import, the committed sample, the full
trace when present."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from benchmarks.datasets import OPENB, openb_missing
from kscore_fast.api import load_cluster
from kscore_fast.errors import InputError
from kscore_fast.io import openb
from kscore_fast.io.openb import (
    GPU_MODEL_LABEL,
    NODE_COLUMNS,
    POD_COLUMNS,
    POD_TRACE_COLUMNS,
    RECORD_FILE,
    OpenbNode,
    OpenbPod,
    import_openb,
    node_manifest,
    pending_pods,
    pod_manifest,
    read_pods,
)

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "data" / "openb-sample"
TRACE = OPENB
NODE_HEADER = ",".join(NODE_COLUMNS)
POD_HEADER = ",".join((*POD_COLUMNS, *POD_TRACE_COLUMNS))
NODE_ROWS = ["n-0,32000,262144,2,P100", "n-1,16000,65536,0,"]
POD_ROWS = [
    "p-0,12000,16384,1,1000,,LS,Running,0,100,0",
    "p-1,6000,12288,1,460,T4|P100,BE,Pending,5,90,",
]


def _csv(path: Path, header: str, rows: list[str]) -> Path:
    path.write_text("\n".join([header, *rows]) + "\n")
    return path


def _inputs(tmp: Path, nodes: list[str] = NODE_ROWS, pods: list[str] = POD_ROWS):
    return (
        _csv(tmp / "nodes.csv", NODE_HEADER, nodes),
        _csv(tmp / "pods.csv", POD_HEADER, pods),
    )


def _tree(path: Path) -> dict[str, bytes]:
    """Every file below ``path`` (directories as None), by relative path."""
    return {
        str(p.relative_to(path)): None if p.is_dir() else p.read_bytes()
        for p in sorted(path.rglob("*"))
    }


# -- mapping --------------------------------------------------------------------------------


def test_gpu_node():
    node = OpenbNode("n-0", 32000, 262144, 2, "P100")
    resources = {"cpu": "32000m", "memory": "262144Mi", "nvidia.com/gpu": "2", "pods": "110"}
    assert node_manifest(node) == {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "labels": {"kubernetes.io/hostname": "n-0", GPU_MODEL_LABEL: "P100"},
            "name": "n-0",
        },
        "spec": {},
        "status": {"allocatable": resources, "capacity": resources},
    }


def test_node_without_gpu_and_options():
    node = node_manifest(OpenbNode("n-1", 8000, 1024, 0, ""), gpu_model_label="x/m", max_pods=7)
    assert node["metadata"]["labels"] == {"kubernetes.io/hostname": "n-1"}
    assert node["status"]["allocatable"] == {"cpu": "8000m", "memory": "1024Mi", "pods": "7"}
    labelled = node_manifest(OpenbNode("n-2", 8000, 1024, 0, "G3"), gpu_model_label="x/m")
    assert labelled["metadata"]["labels"]["x/m"] == "G3"  # a model without GPUs keeps its label


def test_gpu_sharing_pod_takes_a_whole_gpu():
    pod = OpenbPod("p", 6000, 12288, 1, 460, (), "BE", "Pending", 5, 90, None)
    assert pod_manifest(pod) == {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "annotations": {
                "openb.alibaba.com/creation-time": "5",
                "openb.alibaba.com/deletion-time": "90",
                "openb.alibaba.com/gpu-milli": "460",
                "openb.alibaba.com/pod-phase": "Pending",
                "openb.alibaba.com/qos": "BE",
            },
            "name": "p",
            "namespace": "default",
        },
        "spec": {
            "containers": [
                {
                    "image": openb.CONTAINER_IMAGE,
                    "name": "main",
                    "resources": {
                        "limits": {"nvidia.com/gpu": "1"},
                        "requests": {"cpu": "6000m", "memory": "12288Mi", "nvidia.com/gpu": "1"},
                    },
                }
            ],
            "schedulerName": "default-scheduler",
        },
        "status": {"phase": "Pending"},
    }


def test_cpu_pod_has_no_gpu_and_keeps_zero_requests():
    pod = pod_manifest(OpenbPod("p", 0, 0, 0, 0, qos="LS", phase="Running", creation_time=3))
    assert pod["spec"]["containers"][0]["resources"] == {"requests": {"cpu": "0m", "memory": "0Mi"}}
    assert "openb.alibaba.com/gpu-milli" not in pod["metadata"]["annotations"]
    assert "affinity" not in pod["spec"]


def test_gpu_spec_is_a_required_node_affinity(tmp_path):
    _, pods = _inputs(
        tmp_path, pods=["p-0,1000,1024,2,1000,V100M16|V100M32|V100M32,LS,Running,0,9,1"]
    )
    (pod,) = read_pods(pods)
    assert pod.gpu_spec == ("V100M16", "V100M32")  # repeated models listed once
    manifest = pod_manifest(pod, namespace="ns", gpu_model_label="example.com/model")
    assert manifest["metadata"]["namespace"] == "ns"
    assert manifest["spec"]["affinity"] == {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [
                    {
                        "matchExpressions": [
                            {
                                "key": "example.com/model",
                                "operator": "In",
                                "values": ["V100M16", "V100M32"],
                            }
                        ]
                    }
                ]
            }
        }
    }
    resources = manifest["spec"]["containers"][0]["resources"]
    assert resources["limits"] == {"nvidia.com/gpu": "2"}


def test_pending_pods_drop_finished_and_sort_stably(tmp_path):
    rows = [
        "a,1,1,0,0,,LS,Running,30,40,30",
        "b,1,1,0,0,,LS,Failed,10,40,10",
        "c,1,1,0,0,,LS,Pending,20,40,",
        "d,1,1,0,0,,LS,Succeeded,5,40,5",
        "e,1,1,0,0,,LS,Running,20,40,20",
        "f,1,1,0,0,,LS,Unknown,0,,",
    ]
    pods = read_pods(_csv(tmp_path / "p.csv", POD_HEADER, rows))
    assert [p.name for p in pending_pods(pods)] == ["f", "c", "e", "a"]
    f = pod_manifest(pods[-1])["metadata"]["annotations"]
    assert "openb.alibaba.com/deletion-time" not in f
    assert "openb.alibaba.com/scheduled-time" not in f


def test_multigpu_layout_keeps_every_pod_in_file_order(tmp_path):
    path = _csv(tmp_path / "m.csv", ",".join(POD_COLUMNS), ["z,1,1,8,1000", "a,1,1,0,0"])
    pods = pending_pods(read_pods(path))
    assert [p.name for p in pods] == ["z", "a"]
    assert pod_manifest(pods[0])["metadata"]["annotations"] == {
        "openb.alibaba.com/gpu-milli": "1000"
    }
    assert "annotations" not in pod_manifest(pods[1])["metadata"]


def test_bom_crlf_and_blank_lines(tmp_path):
    path = tmp_path / "n.csv"
    path.write_bytes(b"\xef\xbb\xbf" + f"{NODE_HEADER}\r\n\r\nn-0,1,1,1,T4\r\n".encode())
    assert openb.read_nodes(path) == [OpenbNode("n-0", 1, 1, 1, "T4", line=3)]


# -- the import -----------------------------------------------------------------------------


def test_import_writes_kubectl_lists_and_a_record(tmp_path):
    nodes, pods = _inputs(tmp_path)
    out = tmp_path / "out"
    report = import_openb(nodes, pods, out)
    assert (report.nodes, report.pods, report.gpu_shared, report.gpu_constrained) == (2, 2, 1, 1)
    assert sorted(os.listdir(out)) == [RECORD_FILE, "nodes.json", "pods.json"]
    for name, kind in (("nodes.json", "Node"), ("pods.json", "Pod")):
        text = (out / name).read_text()
        assert text.startswith('{\n    "apiVersion": "v1",\n    "items": [\n')
        assert text.endswith(
            '    "kind": "List",\n    "metadata": {\n        "resourceVersion": ""\n    }\n}\n'
        )
        doc = json.loads(text)
        assert list(doc) == ["apiVersion", "items", "kind", "metadata"]
        assert {i["kind"] for i in doc["items"]} == {kind}
    node_list, pod_list = openb.to_manifests(openb.read_nodes(nodes), pending_pods(read_pods(pods)))
    assert json.loads((out / "nodes.json").read_text()) == node_list
    assert json.loads((out / "pods.json").read_text()) == pod_list
    assert [p["metadata"]["name"] for p in pod_list["items"]] == ["p-0", "p-1"]
    record = json.loads((out / RECORD_FILE).read_text())
    assert record["generator"] == openb.GENERATOR
    assert record["inputs"]["pods"]["file"] == "pods.csv"
    assert report.summary() == (
        f"{out}: 2 nodes, 2 pending pods (0 Failed/Succeeded pods dropped, "
        "1 GPU-sharing pods given a whole GPU, 1 with a GPU-model affinity)"
    )


def test_import_is_deterministic_and_replaces_an_earlier_import(tmp_path):
    nodes, pods = _inputs(tmp_path)
    out = tmp_path / "out"
    assert not import_openb(nodes, pods, out).replaced
    first = _tree(out)
    assert import_openb(nodes, pods, out).replaced
    assert _tree(out) == first
    _inputs(tmp_path, nodes=NODE_ROWS[:1])
    assert import_openb(nodes, pods, out).nodes == 1
    assert _tree(out)["pods.json"] == first["pods.json"]


def test_output_into_an_empty_directory(tmp_path):
    nodes, pods = _inputs(tmp_path)
    (tmp_path / "empty").mkdir()
    import_openb(nodes, pods, tmp_path / "empty")
    assert len(os.listdir(tmp_path / "empty")) == 3


def test_foreign_directory_refused_unless_forced(tmp_path):
    nodes, pods = _inputs(tmp_path)
    out = tmp_path / "mine"
    out.mkdir()
    (out / "nodes.json").write_text("my own file")
    (out / "notes.txt").write_text("keep me")
    with pytest.raises(InputError, match=r"holding other files \(2 entries.*--force"):
        import_openb(nodes, pods, out)
    assert _tree(out) == {"nodes.json": b"my own file", "notes.txt": b"keep me"}
    assert not import_openb(nodes, pods, out, force=True).replaced
    assert (out / "notes.txt").read_text() == "keep me"
    assert json.loads((out / "nodes.json").read_text())["kind"] == "List"
    assert sorted(os.listdir(out)) == [RECORD_FILE, "nodes.json", "notes.txt", "pods.json"]


def test_a_forged_or_broken_record_is_not_an_import(tmp_path):
    nodes, pods = _inputs(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    (out / RECORD_FILE).write_text('{"generator": "someone else"}')
    with pytest.raises(InputError, match="holding other files"):
        import_openb(nodes, pods, out)


@pytest.mark.parametrize(
    ("case", "message"),
    [
        ("file", "exists and is not a directory"),
        ("dangling-link", "is a broken symbolic link"),
        ("missing-parent", "the parent directory .* does not exist"),
    ],
)
def test_bad_output_locations(tmp_path, case, message):
    nodes, pods = _inputs(tmp_path)
    out = tmp_path / "o"
    if case == "file":
        out.write_text("x")
    elif case == "dangling-link":
        out.symlink_to(tmp_path / "nowhere")
    else:
        out = tmp_path / "nowhere" / "o"
    with pytest.raises(InputError, match=message):
        import_openb(nodes, pods, out, force=True)
    assert not (tmp_path / "nowhere").exists()


@pytest.mark.parametrize("existing", [False, True], ids=["new-dir", "earlier-import"])
@pytest.mark.parametrize("failure", [OSError(28, "No space left on device"), KeyboardInterrupt])
def test_failed_write_leaves_nothing_partial(tmp_path, monkeypatch, existing, failure):
    nodes, pods = _inputs(tmp_path)
    out = tmp_path / "out"
    if existing:
        import_openb(nodes, pods, out)
    before = _tree(tmp_path)
    real, calls = openb._write_file, []

    def failing(path: str, data: bytes) -> None:
        calls.append(path)
        if len(calls) == 2:  # nodes.json written, pods.json fails
            raise failure
        real(path, data)

    monkeypatch.setattr(openb, "_write_file", failing)
    _inputs(tmp_path, nodes=NODE_ROWS[:1])
    after_inputs = _tree(tmp_path)
    expected = InputError if isinstance(failure, OSError) else KeyboardInterrupt
    with pytest.raises(expected, match="No space left" if expected is InputError else None):
        import_openb(nodes, pods, out)
    assert _tree(tmp_path) == after_inputs  # no temporary file or directory left
    if existing:
        assert _tree(out) == {k[4:]: v for k, v in before.items() if k.startswith("out/")}
    else:
        assert not out.exists()


# -- bad input ------------------------------------------------------------------------------


def _assert_refused(bad: Path, nodes: Path, pods: Path, message: str) -> None:
    """The import stops with ``message``, located in the file ``bad``, writing nothing."""
    out = bad.parent / "out"
    with pytest.raises(InputError) as exc:
        import_openb(nodes, pods, out)
    assert str(exc.value).startswith(f"{bad}: ")
    assert message in str(exc.value)
    assert not out.exists()


BAD_NODES = [
    ("", None, "empty file; expected a header line sn,cpu_milli"),
    ("sn,cpu_milli,memory_mib,gpu", [], "line 1: missing column model"),
    ("sn,cpu_milli,model", [], "line 1: missing columns memory_mib, gpu;"),
    (NODE_HEADER + ",zone", [], "line 1: unknown column 'zone'"),
    (NODE_HEADER + ",gpu", [], "line 1: column 'gpu' appears 2 times"),
    (None, ["n-0,1,1,1"], "line 2: 4 fields where the header has 5"),
    (None, ["n-0,1,1,1,T4,x"], "line 2: 6 fields where the header has 5"),
    (None, ["n-0,1.5,1,1,T4"], "line 2: column 2 (cpu_milli): '1.5' is not a whole number"),
    (None, ["n-0,1,abc,1,T4"], "line 2: column 3 (memory_mib): 'abc' is not a whole number"),
    (None, ["n-0,1,1,-2,T4"], "line 2: column 4 (gpu): -2 is negative"),
    (None, ["n-0,1,+1,1,T4"], "column 3 (memory_mib): '+1' is not a whole number"),
    (None, ["n-0, 1,1,1,T4"], "column 2 (cpu_milli): ' 1' is not a whole number"),
    (None, ["n-0,,1,1,T4"], "column 2 (cpu_milli): empty; expected a whole number"),
    (None, [f"n-0,1,{2**43},1,T4"], "column 3 (memory_mib): 8796093022208 is too large"),
    (None, [f"n-0,{2**63},1,1,T4"], "column 2 (cpu_milli): 9223372036854775808 is too large"),
    (
        None,
        ["n-0,1,1,1,T4", "n-1,1,1,1,T4", "n-0,1,1,1,T4"],
        "line 4: column 1 (sn): duplicate node name 'n-0' (first on line 2)",
    ),
    (None, ["Node_0,1,1,1,T4"], "line 2: column 1 (sn): node name 'Node_0': a lowercase RFC 1123"),
    (None, [",1,1,1,T4"], "column 1 (sn): empty; every node needs a name"),
    (
        None,
        ["n" * 64 + ",1,1,1,T4"],
        "as the kubernetes.io/hostname label: must be no more than 63",
    ),
    (None, ["n-0,1,1,1,Tesla T4"], "column 5 (model): GPU model 'Tesla T4' is not a label value"),
    (None, ['n-0,1,1,1,"T4'], "line 2: not valid CSV: unexpected end of data"),
]


@pytest.mark.parametrize(("header", "rows", "message"), BAD_NODES)
def test_bad_node_lists(tmp_path, header, rows, message):
    path = tmp_path / "bad-nodes.csv"
    if rows is None:
        path.write_text(header)
    else:
        _csv(path, NODE_HEADER if header is None else header, rows)
    _, pods = _inputs(tmp_path)
    _assert_refused(path, path, pods, message)


def _pod_row(**values: str) -> str:
    row = dict(zip((*POD_COLUMNS, *POD_TRACE_COLUMNS), POD_ROWS[0].split(","), strict=True))
    return ",".join({**row, **values}.values())


BAD_PODS = [
    (
        ",".join((*POD_COLUMNS, "qos", "pod_phase")),
        [],
        "missing columns gpu_spec, creation_time, deletion_time, scheduled_time",
    ),
    (",".join(POD_COLUMNS[:-1]), [], "line 1: missing column gpu_milli"),
    (None, [_pod_row(num_gpu="x")], "line 2: column 4 (num_gpu): 'x' is not a whole number"),
    (None, [_pod_row(cpu_milli="-1")], "column 2 (cpu_milli): -1 is negative"),
    (
        None,
        [_pod_row(), _pod_row()],
        "line 3: column 1 (name): duplicate pod name 'p-0' (first on line 2)",
    ),
    (None, [_pod_row(name="p.")], "column 1 (name): pod name 'p.'"),
    (
        None,
        [_pod_row(num_gpu="0", gpu_milli="500")],
        "column 5 (gpu_milli): 500 for a pod without GPUs",
    ),
    (
        None,
        [_pod_row(num_gpu="1", gpu_milli="0")],
        "column 5 (gpu_milli): 0 for a pod with 1 GPU(s)",
    ),
    (None, [_pod_row(gpu_milli="1001")], "column 5 (gpu_milli): 1001 is too large (at most 1000)"),
    (None, [_pod_row(gpu_spec="T4||P100")], "column 6 (gpu_spec): 'T4||P100': an empty model name"),
    (
        None,
        [_pod_row(gpu_spec="T4|A 10")],
        "column 6 (gpu_spec): GPU model 'A 10' is not a label value",
    ),
    (None, [_pod_row(pod_phase="Done")], "column 8 (pod_phase): 'Done'; expected one of Pending"),
    (None, [_pod_row(pod_phase="")], "column 8 (pod_phase): ''; expected one of"),
    (None, [_pod_row(creation_time="")], "column 9 (creation_time): empty"),
    (
        None,
        [_pod_row(creation_time="200")],
        "column 10 (deletion_time): 100 is before the pod's creation_time 200",
    ),
    (
        None,
        [_pod_row(creation_time="10", deletion_time="20", scheduled_time="5")],
        "column 11 (scheduled_time): 5 is before",
    ),
    (
        None,
        [_pod_row(deletion_time="1e5")],
        "column 10 (deletion_time): '1e5' is not a whole number",
    ),
]


@pytest.mark.parametrize(("header", "rows", "message"), BAD_PODS)
def test_bad_pod_lists(tmp_path, header, rows, message):
    path = _csv(tmp_path / "bad-pods.csv", POD_HEADER if header is None else header, rows)
    nodes, _ = _inputs(tmp_path)
    _assert_refused(path, nodes, path, message)


def test_unreadable_inputs(tmp_path):
    _, pods = _inputs(tmp_path)
    latin = tmp_path / "latin.csv"
    latin.write_bytes(f"{NODE_HEADER}\nn-0,1,1,1,T4\nn-\xe9,1,1,1,T4\n".encode("latin-1"))
    cases = [
        (tmp_path / "missing.csv", "missing.csv: cannot read: No such file or directory"),
        (tmp_path, f"{tmp_path}: cannot read: Is a directory"),
        (latin, "latin.csv: line 3: not UTF-8 text (byte 49 is 0xe9)"),
    ]
    for path, message in cases:
        with pytest.raises(InputError) as exc:
            import_openb(path, pods, tmp_path / "out")
        assert message in str(exc.value)
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    ("option", "message"),
    [
        ({"namespace": "Prod"}, "--namespace 'Prod': a lowercase RFC 1123 label"),
        ({"gpu_model_label": "a/b/c"}, "--gpu-model-label 'a/b/c': not a label key"),
        ({"gpu_model_label": "kubernetes.io/hostname"}, "that is the hostname label"),
        ({"max_pods": -1}, "--max-pods -1: expected a whole number >= 0"),
        ({"max_pods": True}, "--max-pods True"),
    ],
)
def test_bad_options(tmp_path, option, message):
    nodes, pods = _inputs(tmp_path)
    with pytest.raises(InputError, match=message):
        import_openb(nodes, pods, tmp_path / "out", **option)
    assert not (tmp_path / "out").exists()


# -- the committed sample and the full trace -----------------------------------------------


def test_sample_round_trip(tmp_path):
    out = tmp_path / "sample"
    report = import_openb(
        SAMPLE / "openb_node_list_gpu_node.csv", SAMPLE / "openb_pod_list_gpuspec33.csv", out
    )
    assert (report.nodes, report.pods) == (40, 71)
    assert report.dropped == {"Failed": 26, "Succeeded": 3}
    assert (report.gpu_shared, report.gpu_constrained) == (27, 20)
    assert _tree(out) == _tree(SAMPLE / "manifests")  # the committed import is up to date
    pods = json.loads((out / "pods.json").read_text())["items"]
    cluster = load_cluster(SAMPLE / "manifests")
    assert cluster.snapshot.node_names == [f"openb-node-{i:04}" for i in range(40)]
    assert [p.name for p in cluster.batch.pods] == [p["metadata"]["name"] for p in pods]
    assert len(cluster.snapshot.pods) == 0 and cluster.skipped_kinds == {}


@pytest.mark.skipif(openb_missing() is not None, reason=str(openb_missing()))
def test_full_trace(tmp_path):
    all_nodes = TRACE / "openb_node_list_all_node.csv"
    report = import_openb(all_nodes, TRACE / "openb_pod_list_default.csv", tmp_path / "default")
    assert (report.nodes, report.pods) == (1523, 6090)
    assert report.dropped == {"Failed": 1870, "Succeeded": 192}
    assert (report.gpu_shared, report.gpu_constrained) == (1917, 0)
    assert len(openb.read_nodes(TRACE / "openb_node_list_gpu_node.csv")) == 1213
    cluster = load_cluster(tmp_path / "default")
    assert len(cluster.snapshot.node_names) == 1523 and len(cluster.batch.pods) == 6090


@pytest.mark.skipif(openb_missing() is not None, reason=str(openb_missing()))
def test_every_pod_list_of_the_trace_reads():
    for path in sorted(TRACE.glob("openb_pod_list_*.csv")):
        pods = read_pods(path)
        kept = pending_pods(pods)
        assert len(pods) > 7000 and len(kept) > 5000, path.name
        times = [p.creation_time or 0 for p in kept]
        assert times == sorted(times), path.name


def test_import_writes_timed_events_and_qos_priorities(tmp_path):
    """``--events``: arrivals at creation_time, deletions at deletion_time (departures
    first at one second, a pod's own same-second departure after its arrival); the
    cluster directory then holds no pod. ``--qos-priorities``: the made-up mapping."""
    rows = [*POD_ROWS, "p-2,1000,1024,0,0,,Burstable,Running,90,,", "p-3,1,1,0,0,,BE,Running,7,7,"]
    nodes, pods = _inputs(tmp_path, pods=rows)
    events = tmp_path / "events.jsonl"
    import_openb(nodes, pods, tmp_path / "out", events=events, qos_priorities=True)
    assert json.loads((tmp_path / "out" / "pods.json").read_text())["items"] == []
    lines = [json.loads(line) for line in events.read_text().splitlines()]
    order = [(e["time"], e["op"], e["pod"] if e["op"] == "delete" else e["pod"]["metadata"]["name"])
             for e in lines]  # fmt: skip
    assert order == [(0, "addPod", "p-0"), (5, "addPod", "p-1"), (7, "addPod", "p-3"),
                     (7, "delete", "default/p-3"), (90, "delete", "default/p-1"),
                     (90, "addPod", "p-2"), (100, "delete", "default/p-0")]  # fmt: skip
    priority = {e["pod"]["metadata"]["name"]: e["pod"]["spec"]["priority"]
                for e in lines if e["op"] == "addPod"}  # fmt: skip
    assert priority == {"p-0": 2000, "p-1": 0, "p-2": 1000, "p-3": 0}
    from kscore_fast.queue import replay_timed

    result = replay_timed([tmp_path / "out"], events)
    assert [(a["pod"], a["host"] is not None) for a in result.attempts] == [
        ("default/p-0", True), ("default/p-1", True), ("default/p-2", True)]  # fmt: skip
    with pytest.raises(InputError, match=r"--events .*: is a directory"):
        import_openb(nodes, pods, tmp_path / "out2", events=tmp_path)
    assert not (tmp_path / "out2").exists()
