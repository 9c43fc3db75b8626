"""``-o``: output never destroys what kscore did not create, errors are one clean line.

The dangerous ``-o`` values run through the real command line (``python -m kscore_fast``)
in a workspace whose every path, inode, content and link target is compared before and
after; other tests cover replacement rules, permissions, OS errors, signals and pipes.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from kscore_fast.cli import main
from kscore_fast.errors import InputError
from kscore_fast.framework.result import ScoreResult
from kscore_fast.io import output as output_mod
from kscore_fast.io.output import prepare_output, write_result

ROOT = Path(__file__).resolve().parents[2]
IS_ROOT = os.geteuid() == 0


def _objects(n_nodes: int, n_bound: int, n_pending: int) -> list[dict]:
    nodes = [
        {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {
                "name": f"n{i}",
                "labels": {"topology.kubernetes.io/zone": f"z{i % 3}"},
            },
        }
        for i in range(n_nodes)
    ]

    def pod(name: str, app: str, node: str | None) -> dict:
        spec = {"nodeName": node} if node else {}
        meta = {"name": name, "namespace": "default", "labels": {"app": app}}
        return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}

    apps = [f"a{i}" for i in range(20)]
    pods = [pod(f"e{i}", apps[i % 20], f"n{i % n_nodes}") for i in range(n_bound)]
    pods += [pod(f"p{i}", apps[i % 20], None) for i in range(n_pending)]
    services = [
        {
            "apiVersion": "v1",
            "kind": "Service",
            "metadata": {"name": f"s-{a}", "namespace": "default"},
            "spec": {"selector": {"app": a}},
        }
        for a in apps
    ]
    return nodes + pods + services


def _write_cluster(path: Path, *sizes: int) -> None:
    items = _objects(*sizes)
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))


def _cli(*args: str, cwd: Path | None = None, **kw) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "kscore_fast", "score", *args],
        cwd=cwd,
        stdout=kw.pop("stdout", subprocess.PIPE),
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        **kw,
    )


def snapshot(root: Path) -> dict[str, tuple]:
    """Every path below ``root``: (inode, type, mode, content digest or link target)."""
    out: dict[str, tuple] = {}
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        for name in [*dirnames, *filenames]:
            p = os.path.join(dirpath, name)
            st = os.lstat(p)
            if stat.S_ISLNK(st.st_mode):
                what = os.readlink(p)
            elif stat.S_ISREG(st.st_mode):
                what = hashlib.sha256(Path(p).read_bytes()).hexdigest()
            else:
                what = None
            key = os.path.relpath(p, root)
            out[key] = (st.st_ino, stat.S_IFMT(st.st_mode), stat.S_IMODE(st.st_mode), what)
    return out


def assert_untouched(before: dict[str, tuple], after: dict[str, tuple], created=None) -> None:
    """Nothing of ``before`` changed; nothing new but ``created`` (and what it holds)."""
    changed = {p for p in before if after.get(p) != before[p]}
    assert not changed, f"deleted or replaced: {sorted(changed)}"
    new = {
        p
        for p in set(after) - set(before)
        if not created or (p != created and Path(created) not in Path(p).parents)
    }
    assert not new, f"left behind: {sorted(new)}"


def _workspace(base: Path) -> Path:
    """base/proj (the working directory): inputs, foreign files, links, a FIFO."""
    proj = base / "proj"
    (proj / "in" / "sub").mkdir(parents=True)
    _write_cluster(proj / "in" / "cluster.json", 4, 6, 3)
    more = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: default}\n"
    (proj / "in" / "sub" / "more.yaml").write_text(more)
    (proj / "foreign" / "deep").mkdir(parents=True)
    (proj / "foreign" / "a.txt").write_text("keep me")
    (proj / "foreign" / "deep" / "b.txt").write_text("keep me too")
    (proj / "file.txt").write_text("a file")
    (proj / "ro").mkdir()
    (proj / "ro" / "existing.txt").write_text("read-only folder")
    (proj / "ro").chmod(0o555)
    (proj / "link-file").symlink_to("file.txt")
    (proj / "link-input").symlink_to("in/cluster.json")
    (proj / "link-dir").symlink_to("foreign")
    (proj / "link-in-dir").symlink_to("in")
    os.mkfifo(proj / "fifo")
    (base / "sibling.txt").write_text("next to the project")
    return proj


#: (-o value, expected exit code for json, for parquet); None: not a case for that format
#: (json through a link to a foreign file replaces that file, as -o FILE does: tested below)
DANGEROUS = [
    (".", 2, 2),
    ("", 2, 2),
    ("..", 2, 2),  # the parent of the input directory and of the working directory
    ("in", 2, 2),
    ("./in/", 2, 2),
    ("in/cluster.json", 2, 2),
    ("in/sub", 2, 2),
    ("foreign", 2, 2),
    ("file.txt", None, 2),
    ("link-file", None, 2),
    ("link-input", 2, 2),
    ("link-dir", 2, 2),
    ("link-in-dir", 2, 2),
    ("/dev/null", 0, 2),
    ("fifo", 0, 2),
    ("ro", 2, 2),
    ("ro/out", 0 if IS_ROOT else 2, 0 if IS_ROOT else 2),
    ("missing/out", 2, 2),
    ("file.txt/out", 2, 2),
]
CASES = [
    pytest.param(fmt, value, rc, id=f"{fmt}:{value or 'empty'}")
    for value, rc_json, rc_dir in DANGEROUS
    for fmt, rc in (("json", rc_json), ("parquet", rc_dir))
    if rc is not None
]


def _drain(fifo: Path, got: list[bytes], timeout: float = 120) -> None:
    """Read ``fifo`` until its writer closes it (never blocks: a refused run never opens it)."""
    fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # open now: the writer will not wait
    chunks: list[bytes] = []
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            try:
                chunk = os.read(fd, 1 << 16)
            except BlockingIOError:  # a writer, no data yet
                time.sleep(0.01)
                continue
            if chunk:
                chunks.append(chunk)
            elif chunks:  # end of file after the data: the writer closed it
                break
            else:  # no writer yet
                time.sleep(0.01)
    finally:
        os.close(fd)
    got.append(b"".join(chunks))


@pytest.fixture(scope="module")
def dangerous_runs(tmp_path_factory):
    """Every case in its own workspace, all processes at once (two cores, ~0.4 s each)."""
    runs = {}
    for fmt, value, _ in [c.values for c in CASES]:
        base = tmp_path_factory.mktemp("ws")
        proj = _workspace(base)
        before = snapshot(base)
        readers = []
        if value == "fifo" and fmt == "json":  # a reader, or the writer waits for one
            got: list[bytes] = []
            t = threading.Thread(target=_drain, args=(proj / "fifo", got), daemon=True)
            t.start()
            readers.append((t, got))
        proc = _cli("in", "--quiet", "--format", fmt, "-o", value, cwd=proj)
        runs[fmt, value] = (base, before, proc, readers)
    yield runs
    for base, _, proc, _ in runs.values():
        if proc.returncode is None:  # (a case this worker did not run: xdist splits them)
            proc.kill()
            proc.communicate()
        (base / "proj" / "ro").chmod(0o755)


@pytest.mark.parametrize("fmt,value,rc", CASES)
def test_no_output_value_destroys_anything(dangerous_runs, fmt, value, rc):
    base, before, proc, readers = dangerous_runs[fmt, value]
    _, err = proc.communicate(timeout=120)
    for t, got in readers:
        t.join(timeout=60)
        assert json.loads(got[0])["results"][0]["pod"] == "default/p0"
    assert proc.returncode == rc, err
    assert "Traceback" not in err
    if rc == 2:
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("kscore: error: -o "), err
    created = "proj/ro/out" if value == "ro/out" and rc == 0 else None
    assert_untouched(before, snapshot(base), created)
    if created and fmt == "parquet":
        assert sorted(os.listdir(base / created)) == [
            "placements.parquet",
            "rejected.parquet",
            "scores.parquet",
        ]


@pytest.mark.parametrize(
    "fmt,value,reason",
    [
        ("parquet", ".", "is the current directory"),
        ("parquet", "..", "contains the current directory"),
        ("parquet", "in", "is the input in"),
        ("parquet", "link-in-dir", "is the input in"),
        ("parquet", "in/cluster.json", "exists and is not a directory (a file)"),
        ("json", "in/cluster.json", "is inside the input directory in"),
        ("json", "link-input", "is inside the input directory in"),
        # a new file too: the next run would read it as input
        ("json", "in/new.json", "is inside the input directory in"),
        ("parquet", "foreign", "is a directory holding other files (2 entries: a.txt, deep)"),
        ("parquet", "link-dir", "is a directory holding other files"),
        ("json", "link-dir", "is a directory; --format json writes one file"),
        ("parquet", "link-file", "exists and is not a directory (a file)"),
        ("parquet", "/dev/null", "exists and is not a directory (a character device)"),
        ("json", "missing/out", "cannot create a file in"),
        ("parquet", "missing/out", "cannot create a directory in"),
        ("json", "file.txt/out", "cannot look it up: Not a directory"),
        ("json", "", "-o '': empty path"),
    ],
)
def test_refusals_say_why(tmp_path, monkeypatch, fmt, value, reason):
    proj = _workspace(tmp_path)
    monkeypatch.chdir(proj)
    try:
        with pytest.raises(InputError) as exc, prepare_output(fmt, value, ["in"]):
            pass
        assert reason in str(exc.value)
        assert str(exc.value).startswith(f"-o {value}:" if value else "-o '':")
    finally:
        (proj / "ro").chmod(0o755)


def test_root_home_and_cwd_are_never_replaced(tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.mkdir()  # empty: would otherwise be usable
    monkeypatch.setenv("HOME", str(home))
    for path, reason in (("/", "root directory"), (str(home), "home directory")):
        with pytest.raises(InputError, match=reason):
            prepare_output("arrow", path)
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    monkeypatch.chdir(cwd)
    with pytest.raises(InputError, match="is the current directory"):
        prepare_output("parquet", str(cwd))
    assert sorted(os.listdir(tmp_path)) == ["cwd", "home"] and not os.listdir(cwd)


# -- what may be replaced -----------------------------------------------------------------


def _result(pods=("default/p",)) -> ScoreResult:
    r = ScoreResult.empty(
        pod_names=list(pods), node_names=["n0"], plugin_names=[], weights=[], scores="all"
    )
    r.reserve(0)
    r.finish()
    return r


@pytest.mark.parametrize("fmt", ["parquet", "arrow"])
def test_own_output_and_empty_directory_are_replaced(tmp_path, fmt):
    out = tmp_path / "out"
    out.mkdir()
    write_result(_result(), fmt, str(out))  # an empty directory may be used
    assert sorted(os.listdir(out)) == [f"placements.{fmt}", f"scores.{fmt}"]
    write_result(_result(["default/a", "default/b"]), fmt, str(out))  # our own: replaced
    assert sorted(os.listdir(out)) == [f"placements.{fmt}", f"scores.{fmt}"]
    assert sorted(os.listdir(tmp_path)) == ["out"]  # no temporary, no old copy
    if fmt == "parquet":
        assert pq.read_table(out / "placements.parquet")["pod"].to_pylist() == [
            "default/a",
            "default/b",
        ]
    other = "arrow" if fmt == "parquet" else "parquet"
    with pytest.raises(InputError, match="holding other files"):
        write_result(_result(), other, str(out))  # the other format's tables are not ours


@pytest.mark.parametrize(
    "extra", ["notes.txt", ".hidden", "sub/"], ids=["file", "hidden", "subdirectory"]
)
def test_own_tables_plus_anything_else_is_refused(tmp_path, extra):
    out = tmp_path / "out"
    write_result(_result(), "parquet", str(out))
    (out / extra.rstrip("/")).mkdir() if extra.endswith("/") else (out / extra).write_text("x")
    before = snapshot(tmp_path)
    with pytest.raises(InputError, match="holding other files"):
        write_result(_result(), "parquet", str(out))
    assert_untouched(before, snapshot(tmp_path))


def test_look_alike_tables_are_not_ours(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "scores.parquet").write_text("my own notes")
    (out / "placements.parquet").write_text("more notes")
    before = snapshot(tmp_path)
    with pytest.raises(InputError):
        write_result(_result(), "parquet", str(out))
    assert_untouched(before, snapshot(tmp_path))


def test_tables_that_appear_while_scoring_are_kept(tmp_path):
    out = tmp_path / "out"
    with prepare_output("parquet", str(out)) as target:
        out.mkdir()
        (out / "theirs.txt").write_text("created by someone else meanwhile")
        with pytest.raises(InputError, match="changed while scoring"):
            target.write(_result())
    assert os.listdir(out) == ["theirs.txt"] and sorted(os.listdir(tmp_path)) == ["out"]


def test_json_through_a_symlink_replaces_its_target_and_keeps_the_link(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    target = tmp_path / "b" / "r.json"
    target.write_text("old")
    target.chmod(0o640)
    link = tmp_path / "a" / "link.json"
    link.symlink_to(target)
    write_result(_result(), "json", str(link))
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert json.loads(target.read_text())["results"][0]["pod"] == "default/p"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640  # a replaced file keeps its mode
    assert os.listdir(tmp_path / "a") == ["link.json"] and os.listdir(tmp_path / "b") == ["r.json"]


def test_dangling_symlink_is_written_through(tmp_path):
    link = tmp_path / "link.json"
    link.symlink_to("target.json")
    write_result(_result(), "json", str(link))
    assert link.is_symlink() and json.loads((tmp_path / "target.json").read_text())


def test_json_refuses_a_read_only_file(tmp_path):
    # (root included: it may write the file, but a file made read-only is not replaced)
    f = tmp_path / "r.json"
    f.write_text("protected")
    f.chmod(0o444)
    with pytest.raises(InputError, match="read-only"):
        prepare_output("json", str(f))
    assert f.read_text() == "protected"


@pytest.mark.parametrize("umask", [0o022, 0o077, 0o002])
def test_files_follow_the_umask(tmp_path, umask):
    old = os.umask(umask)
    try:
        write_result(_result(), "json", str(tmp_path / "r.json"))
        write_result(_result(), "parquet", str(tmp_path / "d"))
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "r.json").stat().st_mode) == 0o666 & ~umask
    assert stat.S_IMODE((tmp_path / "d").stat().st_mode) == 0o777 & ~umask
    for f in ("scores.parquet", "placements.parquet"):
        assert stat.S_IMODE((tmp_path / "d" / f).stat().st_mode) == 0o666 & ~umask


# -- OS errors, encodings, devices ------------------------------------------------------------


def test_disk_full_on_a_device_is_a_clean_error():
    proc = _cli(str(ROOT / "data" / "embedded"), "--quiet", "-o", "/dev/full")
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 2 and "Traceback" not in err
    assert err.strip() == "kscore: error: -o /dev/full: cannot write: No space left on device"


@pytest.mark.parametrize("fmt", ["json", "parquet", "arrow"])
def test_write_errors_leave_nothing(tmp_path, monkeypatch, fmt):
    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(output_mod, "write_json", full)
    monkeypatch.setattr(output_mod, "_write_batches", full)
    out = tmp_path / "out"
    with pytest.raises(InputError) as exc:
        write_result(_result(), fmt, str(out))
    assert str(exc.value) == f"-o {out}: cannot write: No space left on device"
    assert os.listdir(tmp_path) == []


def test_unencodable_names_are_a_clean_error(tmp_path):
    bad = _result(["default/p\udcff"])
    for fmt in ("parquet", "arrow"):
        with pytest.raises(InputError, match="cannot be encoded"):
            write_result(bad, fmt, str(tmp_path / fmt))
    assert os.listdir(tmp_path) == []
    write_result(bad, "json", str(tmp_path / "r.json"))  # JSON escapes it (\udcff)
    assert json.loads((tmp_path / "r.json").read_text())["results"][0]["pod"] == "default/p\udcff"


def test_output_is_checked_before_the_input_is_read(tmp_path, capsys):
    broken = tmp_path / "broken.yaml"
    broken.write_text("kind: [unclosed\n")
    assert main(["score", str(broken), "-o", str(tmp_path / "missing" / "r.json")]) == 2
    assert capsys.readouterr().err.startswith(f"kscore: error: -o {tmp_path}/missing/r.json:")
    assert main(["score", str(broken), "-o", str(tmp_path / "r.json")]) == 2  # now the input
    assert "broken.yaml" in capsys.readouterr().err
    assert sorted(os.listdir(tmp_path)) == ["broken.yaml"]  # the temporary file is gone


def test_dev_stdout_is_written_in_place(tmp_path):
    embedded = str(ROOT / "data" / "embedded")
    piped = _cli(embedded, "--quiet", "--scores", "none", "-o", "/dev/stdout")
    out, err = piped.communicate(timeout=120)
    assert piped.returncode == 0 and err == "" and len(json.loads(out)["results"]) == 40
    target = tmp_path / "redirected.json"
    target.write_text("")
    inode = target.stat().st_ino
    with open(target, "w") as fh:
        proc = _cli(embedded, "--quiet", "--scores", "none", "-o", "/dev/stdout", stdout=fh)
        proc.communicate(timeout=120)
    assert proc.returncode == 0 and target.stat().st_ino == inode  # not replaced
    assert len(json.loads(target.read_text())["results"]) == 40
    assert os.listdir(tmp_path) == ["redirected.json"]


def test_broken_pipe_exits_quietly():
    proc = _cli(str(ROOT / "data" / "embedded"), "--quiet")
    assert proc.stdout.read(10) == '{"results"'
    proc.stdout.close()  # as `| head -c 10` does
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 141 and err == ""


# -- signals ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def big_cluster(tmp_path_factory):
    path = tmp_path_factory.mktemp("big") / "cluster.json"
    _write_cluster(path, 1500, 15000, 4000)
    return path


@pytest.mark.parametrize(
    "sig", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP], ids=lambda s: s.name
)
def test_stop_signal_removes_the_temporary_output(tmp_path, big_cluster, sig):
    out = tmp_path / "tables"
    for _ in range(8):  # a starved test process may see the temporary too late: run again
        proc = _cli(str(big_cluster), "--format", "parquet", "-o", str(out), "--quiet")
        deadline = time.monotonic() + 120
        while not any(n.startswith(".tables.") for n in os.listdir(tmp_path)):
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "no temporary directory appeared"
            time.sleep(0.002)
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=120)
        if proc.returncode in (0, -sig) and out.exists():  # it had finished: not a test
            shutil.rmtree(out)
            continue
        assert proc.returncode == 128 + sig, err
        assert os.listdir(tmp_path) == []  # no temporary, no partial output
        assert "Traceback" not in err and len(err.strip().splitlines()) == 1
        stopped = f"kscore: stopped by {sig.name}"
        assert err.strip() == ("kscore: interrupted" if sig == signal.SIGINT else stopped)
        return
    pytest.fail("every run finished before the signal arrived")


class _Stop(BaseException):
    pass


def _raise_stop(signum: int, frame: object) -> None:
    raise _Stop(signum)


@pytest.mark.parametrize("fmt", ["json", "parquet"])
def test_stop_signal_taken_by_another_thread_lands_once_the_temporary_is_known(
    tmp_path, monkeypatch, fmt
):
    """A process-directed signal goes to any thread not blocking it (numpy's OpenBLAS
    starts one on import): its C handler then has the main thread run the Python handler
    at its next bytecode check, which a thread's signal mask does not hold. Here it is
    taken by another thread just after the temporary is created, before kscore knows its
    name (the race behind the stop-signal test leaving ``.tables.*.tmp`` 1 run in 5)."""
    other_may_end = threading.Event()
    other = threading.Thread(target=other_may_end.wait, args=(60,))
    other.start()
    readable, writable = os.pipe()
    os.set_blocking(writable, False)
    previous_fd = signal.set_wakeup_fd(writable)  # the C handler writes a byte here
    previous = signal.signal(signal.SIGTERM, _raise_stop)

    def taken_by_the_other_thread(create):
        def created(*args, **kw):
            got = create(*args, **kw)
            signal.pthread_kill(other.ident, signal.SIGTERM)
            os.read(readable, 1)  # its C handler ran: the Python handler is due here
            return got

        return created

    for name in ("mkstemp", "mkdtemp"):
        monkeypatch.setattr(tempfile, name, taken_by_the_other_thread(getattr(tempfile, name)))
    try:
        out = prepare_output(fmt, str(tmp_path / ("out.json" if fmt == "json" else "tables")))
        with pytest.raises(_Stop), out:
            pytest.fail("the stop signal was lost")
    finally:
        signal.signal(signal.SIGTERM, previous)
        signal.set_wakeup_fd(previous_fd)
        os.close(readable)
        os.close(writable)
        other_may_end.set()
        other.join()
    assert os.listdir(tmp_path) == []


def test_own_output_with_rejected_table_is_replaced(tmp_path):
    """Tables written with rejections (``--explain``) are kscore's own output too."""
    out = tmp_path / "out"
    r = _result()
    r.explained = True
    write_result(r, "parquet", str(out))
    assert sorted(os.listdir(out)) == ["placements.parquet", "rejected.parquet", "scores.parquet"]
    write_result(_result(["default/a"]), "parquet", str(out))  # ours: replaced
    assert sorted(os.listdir(out)) == ["placements.parquet", "scores.parquet"]


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=lambda s: s.name)
def test_stop_signal_while_kernels_compile_or_load(tmp_path, sig):
    """A stop signal while numba compiles or loads kernels (a cold kernel cache, the
    signal sent once the first entries are written, then at a later point) stops the run:
    one line, 130/143, no output, no traceback (issue 28, item 7: it was swallowed in
    LLVM's object-cache callback, the run finishing with exit 0, or left a traceback)."""
    for wait_files, extra in ((1, 0.0), (1, 0.7), (30, 0.0)):
        cache, out = tmp_path / f"cache-{wait_files}-{extra}", tmp_path / "out.json"
        proc = subprocess.Popen(
            [sys.executable, "-m", "kscore_fast", "simulate", str(ROOT / "data" / "embedded"),
             "-o", str(out), "--quiet"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env={**os.environ, "PYTHONPATH": str(ROOT), "KSCORE_CACHE_DIR": str(cache)},
        )  # fmt: skip
        deadline = time.monotonic() + 120
        while sum(len(f) for _, _, f in os.walk(cache)) < wait_files:
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "no kernel was cached"
            time.sleep(0.01)
        time.sleep(extra)
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 128 + sig, err
        assert not out.exists()
        lines = [ln for ln in err.splitlines() if not ln.startswith("kscore: compiling")]
        stopped = f"kscore: stopped by {sig.name}"
        assert lines == ["kscore: interrupted" if sig == signal.SIGINT else stopped], err


@pytest.mark.parametrize("where", ["scoring", "writing"])
def test_out_of_memory_is_one_line_and_no_output(tmp_path, monkeypatch, capsys, where):
    """Running out of memory (issue 28, item 4): exit 1, one line saying so, no traceback,
    no output and no temporary left behind."""
    from kscore_fast.framework.runtime import Framework

    def exhausted(*args, **kwargs):
        raise MemoryError("Unable to allocate 12.0 GiB")

    if where == "scoring":
        monkeypatch.setattr(Framework, "run", exhausted)
    else:
        monkeypatch.setattr(ScoreResult, "placements_table", exhausted)
    out = tmp_path / "out.parquet"
    code = main(["score", str(ROOT / "data" / "embedded"), "--format", "parquet", "-o", str(out),
                 "--quiet", "--scores", "none"])  # fmt: skip
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 1 and len(err) == 1 and err[0].startswith("kscore: error: out of memory")
    assert os.listdir(tmp_path) == []
