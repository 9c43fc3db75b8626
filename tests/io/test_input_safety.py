"""Hostile and unusual input: every user-caused failure is one located InputError (exit 2
from the CLI, no traceback), reading never hangs, and what real dumps contain is read."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from kscore_fast.api import load_cluster
from kscore_fast.errors import InputError
from kscore_fast.io.manifests import yaml_depth_limit

NODE = "kind: Node\nmetadata: {name: n1}\n"
ROOT = Path(__file__).resolve().parents[2]


def _error(paths=(), **kw) -> str:
    with pytest.raises(InputError) as exc:
        load_cluster([str(p) for p in paths], **kw)
    return str(exc.value)


def _run(*args, stdin=None, timeout=60):
    return subprocess.run(
        [sys.executable, "-m", "kscore_fast", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=ROOT,
    )


# -- special files ------------------------------------------------------------------------


def test_fifo_named_explicitly_is_refused_without_hanging(tmp_path):
    fifo = tmp_path / "pods.yaml"
    os.mkfifo(fifo)
    msg = _error([fifo])
    assert str(fifo) in msg and "not a regular file (a FIFO)" in msg and "pipe it into -" in msg


def test_device_named_explicitly_is_refused():
    assert "not a regular file (a character device)" in _error(["/dev/null"])


def test_specials_links_and_loops_inside_directories_are_skipped_and_counted(tmp_path):
    d = tmp_path / "cluster"
    d.mkdir()
    (d / "nodes.yaml").write_text(NODE)
    os.mkfifo(d / "fifo.yaml")
    (d / "loop").symlink_to(d)  # a link back up the tree
    (d / "self.yaml").symlink_to(d / "self.yaml")  # a loop of links
    (d / "broken.yaml").symlink_to(tmp_path / "nowhere.yaml")
    (d / "link.yaml").symlink_to(d / "nodes.yaml")  # a good link is read (a duplicate here)
    msg = _error([d])
    assert "duplicate Node" in msg  # the link was followed
    (d / "link.yaml").unlink()
    c = load_cluster([d])
    assert c.snapshot.node_names == ["n1"]
    assert "skipped 4 special files, broken links or link loops in directories" in c.warning()


def test_broken_and_looping_links_named_explicitly(tmp_path):
    (tmp_path / "broken.yaml").symlink_to(tmp_path / "nowhere.yaml")
    assert "broken symbolic link" in _error([tmp_path / "broken.yaml"])
    (tmp_path / "self.yaml").symlink_to(tmp_path / "self.yaml")
    assert "Too many levels of symbolic links" in _error([tmp_path / "self.yaml"])


def test_unreadable_file(tmp_path):
    if os.geteuid() == 0:
        pytest.skip("root reads any file")
    f = tmp_path / "n.yaml"
    f.write_text(NODE)
    f.chmod(0)
    assert "cannot read: Permission denied" in _error([f])


def test_empty_inputs(tmp_path):
    empty_dir = tmp_path / "empty"
    empty_dir.mkdir()
    (empty_dir / "notes.txt").write_text("no manifests here")
    empty_file = tmp_path / "empty.yaml"
    empty_file.write_text("---\n# nothing\n")
    nodes = tmp_path / "nodes.yaml"
    nodes.write_text(NODE)
    assert "no Kubernetes objects found in" in _error([empty_file])
    assert "no Kubernetes objects found in" in _error([empty_dir, empty_file])
    c = load_cluster([empty_dir, empty_file, nodes])  # one empty input among others is fine
    assert c.snapshot.node_names == ["n1"]
    assert f"no .yaml, .yml or .json files in {empty_dir}" in c.warning()


def test_stdin_json_and_yaml():
    pods = {"apiVersion": "v1", "kind": "List", "items": [yaml.safe_load(NODE)]}
    for text in (json.dumps(pods), NODE, "{kind: Node, metadata: {name: n1}}"):
        proc = _run("score", "-", "--quiet", stdin=text)
        assert proc.returncode == 0, proc.stderr
        assert json.loads(proc.stdout) == {"results": [], "mode": "score"}
    proc = _run("score", "-", "-", stdin=NODE)
    assert proc.returncode == 2 and "read only once" in proc.stderr
    proc = _run("score", "-", stdin="")
    assert proc.returncode == 2 and "no Kubernetes objects found in -" in proc.stderr


def test_binary_stdin_is_refused_before_it_is_all_spooled():
    """/dev/zero piped in ends at once (it was copied to a temporary file until the disk
    was full): no YAML or JSON text holds a NUL byte."""
    with open("/dev/zero", "rb") as zero:
        proc = subprocess.run(
            [sys.executable, "-m", "kscore_fast", "score", "-"],
            stdin=zero,
            capture_output=True,
            text=True,
            timeout=60,
            cwd=ROOT,
        )
    out, err = proc.stdout, proc.stderr
    assert proc.returncode == 2, err
    assert "<stdin>: not YAML or JSON text: a NUL byte at byte 0" in err
    assert "Traceback" not in err and out == ""


# -- parser limits -------------------------------------------------------------------------


def test_yaml_alias_bomb_is_refused(tmp_path):
    lines = ['kind: Pod\nmetadata: {name: p}\na: &a ["lol", "lol", "lol", "lol", "lol"]']
    prev = "a"
    for name in "bcdefghij":
        lines.append(f"{name}: &{name} [{', '.join(['*' + prev] * 9)}]")
        prev = name
    f = tmp_path / "bomb.yaml"
    f.write_text("\n".join(lines) + "\n")
    assert "document contains excessive aliasing" in _error([f])


def test_yaml_aliases_within_reason_are_read(tmp_path):
    f = tmp_path / "pod.yaml"
    f.write_text(
        "kind: Pod\nmetadata:\n  name: p\n  labels: &l {app: web}\nspec:\n  nodeSelector: *l\n"
    )
    assert load_cluster([f]).batch.pods[0].labels == {"app": "web"}


@pytest.mark.parametrize("suffix", ["yaml", "json"])
def test_deep_nesting_is_an_error_not_a_crash(tmp_path, suffix):
    """libyaml's composer recurses on the C stack: 40,000 levels crash it (segfault)."""
    f = tmp_path / f"deep.{suffix}"
    depth = 40_000
    if suffix == "yaml":
        f.write_text("kind: Pod\nmetadata: {name: p}\nx: " + "[" * depth + "]" * depth + "\n")
    else:
        nested = "[" * depth + "]" * depth
        f.write_text('{"kind": "Pod", "metadata": {"name": "p"}, "x": ' + nested + "}")
    proc = _run("score", str(f))  # in a subprocess: a crash must not take pytest down
    assert proc.returncode == 2, proc.stderr
    assert "nesting too deep" in proc.stderr and "Traceback" not in proc.stderr
    if suffix == "yaml":  # the limit that applied: kscore's, or libyaml's own cap
        limit, whose = yaml_depth_limit()
        stated = f"YAML is read up to {limit:,} levels ({whose})"
    else:
        stated = f"about {sys.getrecursionlimit():,} levels (Python's recursion limit)"
    assert stated in proc.stderr


def test_yaml_nesting_is_read_up_to_the_limit_the_message_states(tmp_path):
    """Levels count the document's own mapping: ``limit`` are read, one more is refused."""
    limit, _ = yaml_depth_limit()
    f = tmp_path / "deep.yaml"
    key = "x: "
    head = "kind: Pod\nmetadata: {name: p}\n" + key
    f.write_text(head + "[" * (limit - 1) + "]" * (limit - 1) + "\n")
    assert len(load_cluster([f]).batch) == 1
    f.write_text(head + "[" * limit + "]" * limit + "\n")
    column = len(key) + limit  # where the level past the limit opens
    assert f"nesting too deep at line 3 column {column}: YAML is read up to {limit:,}" in _error(
        [f]
    )


@pytest.mark.parametrize(
    "name,text",
    [
        ("a.json", '{"kind": "Pod", "metadata": {"name": "p"}, "spec": {"overhead": {"cpu": %s}}}'),
        ("b.yaml", "kind: Pod\nmetadata: {name: p}\nspec: {priority: %s}\n"),
        ("c.json", '{"kind": "Pod", "metadata": {"name": "p"}, "status": {"x": [%s]}}'),
    ],
)
def test_huge_integers(tmp_path, name, text):
    f = tmp_path / name
    f.write_text(text % ("9" * 5000))
    if name.startswith("c"):  # a field kscore does not read: skipped, never converted
        assert len(load_cluster([f]).batch) == 1
    else:  # located: the line and column where the digits start
        column = text.index("%s") + 1 - text.count("\n")  # (one line: JSON)
        line = 1 if name.endswith(".json") else 3
        if line == 3:
            column = text.split("\n")[2].index("%s") + 1
        where = f"at line {line} column {column}"
        assert f"integer too large (more than 4,300 digits) {where}" in _error([f])


def test_not_utf8(tmp_path):
    for name in ("bad.yaml", "bad.json"):
        f = tmp_path / name
        f.write_bytes(b'{"kind": "Node", "metadata": {"name": "n\xff"}}')
        assert "not UTF-8" in _error([f]) or "malformed JSON" in _error([f])
    # UTF-16: refused as a file as on standard input (json.loads alone would take it)
    for name in ("u16.json", "u16.yaml"):
        f = tmp_path / name
        f.write_bytes('{"kind": "Node", "metadata": {"name": "n"}}'.encode("utf-16"))
        assert "not UTF-8 text: invalid start byte at byte 0" in _error([f])


@pytest.mark.parametrize(
    "text,message",
    [
        ("kind: Pod\nmetadata: {name: 7}\n",
         "Pod: metadata.name: must be a string, found int 7 (quote it in YAML)"),
        ("kind: 7\nmetadata: {name: x}\n", "kind: must be a string, found int 7"),
        ("kind: Pod\nmetadata: {name: x, labels: {yes: a}}\n",
         "metadata.labels: label key must be a string, found bool True (quote it in YAML)"),
        ("kind: Pod\nmetadata: {name: x, labels: {a: 1}}\n",
         "metadata.labels.a: label value must be a string, found int 1 (quote it in YAML)"),
    ],
)  # fmt: skip
def test_values_of_the_wrong_type_say_what_was_found(tmp_path, text, message):
    f = tmp_path / "m.yaml"
    f.write_text(text)
    assert message in _error([f])


# -- values the API server would refuse ---------------------------------------------------


@pytest.mark.parametrize(
    "obj,field,text",
    [
        ({"kind": "Pod", "metadata": {"name": "p", "namespace": "Bad_NS"}}, "metadata.namespace",
         "must be a DNS label"),
        ({"kind": "Node", "metadata": {"name": "Node_1"}}, "metadata.name", "a DNS subdomain"),
        ({"kind": "Pod", "metadata": {"name": "p" * 254}}, "metadata.name", "no more than 253"),
        ({"kind": "Service", "metadata": {"name": "1svc"}}, "metadata.name", "DNS-1035 label"),
        ({"kind": "ReplicaSet", "metadata": {"name": "rs_1"}}, "metadata.name", "DNS subdomain"),
        ({"kind": "Pod", "metadata": {"name": "p\ud800"}}, "metadata.name", "DNS subdomain"),
    ],
)  # fmt: skip
def test_invalid_names(obj, field, text):
    msg = _error(objects=[obj])
    assert field in msg and text in msg


def test_unencodable_kind_is_refused_at_load(tmp_path):
    f = tmp_path / "x.json"
    f.write_text('{"kind": "Foo\\ud800", "metadata": {"name": "p"}}')
    assert "is not valid UTF-8 text" in _error([f])


def test_pending_pod_being_deleted_is_skipped_and_reported():
    c = load_cluster(
        objects=[
            yaml.safe_load(NODE),
            {"kind": "Pod", "metadata": {"name": "a", "deletionTimestamp": "2022-01-01T00:00:00Z"}},
            {"kind": "Pod", "metadata": {"name": "b"}},
        ]
    )
    assert [p.name for p in c.batch.pods] == ["b"]
    assert "skipped 1 pending pods being deleted (metadata.deletionTimestamp set)" in c.warning()


def test_cli_failures_exit_2_without_traceback(tmp_path):
    cases = {
        "fifo.yaml": None,
        "bad.yaml": "kind: Pod\nmetadata: {name: p, namespace: Bad_NS}\n",
        "big.yaml": "kind: Pod\nmetadata: {name: p}\nspec: {priority: " + "9" * 5000 + "}\n",
        "bomb.yaml": "a: &a [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\n"
        + f"b: &b [{', '.join(['*a'] * 200)}]\nc: [{', '.join(['*b'] * 200)}]\n"
        + "kind: Pod\nmetadata: {name: p}\n",
    }
    for name, text in cases.items():
        f = tmp_path / name
        if text is None:
            os.mkfifo(f)
        else:
            f.write_text(text)
        proc = _run("score", str(f), "-o", str(tmp_path / "out.json"))
        assert proc.returncode == 2, (name, proc.stderr)
        assert "Traceback" not in proc.stderr and str(f) in proc.stderr
        assert not (tmp_path / "out.json").exists()


def _children(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as fh:
            return [int(c) for c in fh.read().split()]
    except OSError:
        return []


def _alive(pid: int) -> bool:
    """The process exists and is not a zombie waiting to be reaped."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_stop_signal_while_reading_in_parallel_ends_the_workers(tmp_path):
    """A large List is read by worker processes: a stop signal ends them all, with the
    parent's one-line message and exit code."""
    from benchmarks.manifests import go_shape_objects, write_list

    f = write_list(go_shape_objects(100, 4000, 5000), tmp_path / "big.yaml", "yaml")
    assert f.stat().st_size > (16 << 20)  # parallel.PARALLEL_BYTES
    for _ in range(3):
        proc = subprocess.Popen(
            [sys.executable, "-m", "kscore_fast", "score", str(f), "--quiet", "-o",
             str(tmp_path / "out.json")],
            stderr=subprocess.PIPE, text=True, cwd=ROOT,
            env={**os.environ, "KSCORE_READ_WORKERS": "2"},
        )  # fmt: skip
        deadline = time.monotonic() + 120
        while not (workers := _children(proc.pid)) and proc.poll() is None:
            assert time.monotonic() < deadline, "no worker process appeared"
            time.sleep(0.001)
        if not workers:
            continue  # finished before it was seen: run again
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=120)
        if proc.returncode == 0:
            continue
        assert proc.returncode == 128 + signal.SIGTERM, err
        assert err.strip() == "kscore: stopped by SIGTERM"
        end = time.monotonic() + 10  # ending takes a moment on a loaded machine
        while any(_alive(w) for w in workers) and time.monotonic() < end:
            time.sleep(0.01)
        assert not any(_alive(w) for w in workers), "a worker outlived it"
        assert not (tmp_path / "out.json").exists()
        return
    pytest.fail("every run finished before a worker was seen")
