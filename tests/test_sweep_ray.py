"""Sweeps on a real Ray cluster: a head started here with ``ray start --head`` (its
workers are processes of their own), and a local Ray started by the sweep itself; the
rows, placements and pending pods equal the sweep run in this process.

The drivers run in processes of their own, with the cluster's token in their
environment: Ray reads its authentication settings once per process, and a local
``ray.init`` changes its process's environment."""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from kscore_fast import sweep
from kscore_fast.cli import main
from tests.test_sweep import EMBEDDED, _cluster

pytest.importorskip("ray", reason="Ray is not installed (pip install -e '.[test]' installs it)")

ROOT = Path(__file__).resolve().parents[1]
#: how long the head may take to start
START_TIMEOUT = 90.0
#: a sweep on Ray through the Python API, its tables written as Parquet
API_SCRIPT = """
import json, sys
import pyarrow.parquet as pq
from kscore_fast import sweep
spec, address, out = json.loads(sys.argv[1]), sys.argv[2], sys.argv[3]
done = []
result = sweep(spec, ray=address, progress=done.append)
for name, table in result.tables().items():
    pq.write_table(table, f"{out}/{name}.parquet")
print(len(done))
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _session(sid: int) -> list[int]:
    """The live (not zombie) processes of session ``sid``."""
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()  # state ppid pgrp session ...
        if fields[0] != "Z" and int(fields[3]) == sid:
            pids.append(int(entry))
    return pids


def _end_session(leader: subprocess.Popen) -> None:
    """``leader`` asked to stop (SIGTERM: a Ray head stops its processes), then whatever
    is left of its session killed, by process id."""
    if leader.poll() is None:
        leader.send_signal(signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            leader.wait(30)
    for _ in range(50):
        left = _session(leader.pid)
        if not left:
            break
        for pid in left:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.1)
    leader.wait()
    assert not _session(leader.pid), "processes of a Ray session are left"


@pytest.fixture(scope="module")
def ray_env():
    """The environment of a Ray process here: this checkout importable, a token and a
    temporary directory of its own (short: Ray's socket paths)."""
    tmp = tempfile.mkdtemp(prefix="kr", dir="/tmp")
    token = Path(tmp, "token")
    token.write_text(secrets.token_hex(32))
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)
    yield {**os.environ, "PYTHONPATH": path, "RAY_AUTH_MODE": "token",
           "RAY_AUTH_TOKEN_PATH": str(token), "RAY_TMPDIR": tmp}  # fmt: skip
    shutil.rmtree(tmp, ignore_errors=True)


def _run(command: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    """``command`` in a session of its own, ended with it."""
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=env, text=True, start_new_session=True)  # fmt: skip
    try:
        out, err = proc.communicate(timeout=300)
    finally:
        _end_session(proc)
    assert proc.returncode == 0, err
    return subprocess.CompletedProcess(command, proc.returncode, out, err)


@pytest.fixture(scope="module")
def ray_head(ray_env):
    """``ray start --head --block`` on this machine, in a session of its own: its
    address; stopped at the end (:func:`_end_session`). The node's address is Ray's
    choice: recent Ray maps a loopback ``--node-ip-address`` to the machine's own
    address anyway, and older drivers find no node registered on loopback unless told."""
    tmp = ray_env["RAY_TMPDIR"]
    port = _free_port()
    command = [sys.executable, "-m", "ray.scripts.scripts", "start", "--head", "--block",
               f"--port={port}", "--num-cpus=2",
               "--include-dashboard=false", "--disable-usage-stats", f"--temp-dir={tmp}",
               f"--node-manager-port={_free_port()}", f"--object-manager-port={_free_port()}",
               f"--dashboard-agent-listen-port={_free_port()}",
               f"--dashboard-agent-grpc-port={_free_port()}",
               f"--metrics-export-port={_free_port()}",
               f"--runtime-env-agent-port={_free_port()}"]  # fmt: skip
    log = Path(tmp, "head.log")
    with open(log, "wb") as out:
        head = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=ray_env,
                                start_new_session=True)  # fmt: skip
    try:
        ready = Path(tmp, "ray_current_cluster")
        deadline = time.monotonic() + START_TIMEOUT
        while not ready.exists():
            assert head.poll() is None, f"ray start failed:\n{log.read_text()[-3000:]}"
            assert time.monotonic() < deadline, f"ray start hangs:\n{log.read_text()[-3000:]}"
            time.sleep(0.1)
        yield ready.read_text().strip()  # (the address it prints: this machine's, port)
    finally:
        _end_session(head)


def _spec(tmp_path) -> dict:
    most = {"profiles": [{"pluginConfig": [{"name": "NodeResourcesFit", "args": {
        "scoringStrategy": {"type": "MostAllocated"}}}]}]}  # fmt: skip
    return {"snapshots": [_cluster(tmp_path), str(EMBEDDED)],
            "configs": ["default", {"name": "most", "patch": most}], "seeds": [1, 2],
            "mode": "simulate", "tie_break": "go-rand"}  # fmt: skip


def _tables(out: Path) -> dict:
    return {name: pq.read_table(out / f"{name}.parquet") for name in
            ("metrics", "placements", "pending")}  # fmt: skip


def _same(here, there: dict) -> None:
    """The tables of sweep result ``here`` equal ``there`` (but for the seconds)."""
    for name, table in here.tables().items():
        if name == "metrics":
            table, other = table.drop(["seconds"]), there[name].drop(["seconds"])
        else:
            other = there[name]
        assert table.to_pylist() == other.to_pylist(), name


def test_sweeps_on_a_ray_cluster_equal_the_local_sweep(ray_head, ray_env, tmp_path):
    spec = _spec(tmp_path)
    here = sweep(spec, jobs=1)
    assert here.metrics.num_rows == 8 and here.pending.num_rows == 2 * 2 * (11 + 41)
    api = tmp_path / "api"
    api.mkdir()
    done = _run([sys.executable, "-c", API_SCRIPT, json.dumps(spec), ray_head, str(api)],
                ray_env)  # fmt: skip
    assert done.stdout.split() == ["8"]  # (progress after each run)
    _same(here, _tables(api))
    file, cli = tmp_path / "sweep.json", tmp_path / "cli"
    file.write_text(json.dumps(spec))
    command = [sys.executable, "-m", "kscore_fast", "sweep", str(file), "--ray", ray_head,
               "--format", "parquet", "-o", str(cli)]  # fmt: skip
    _run(command, ray_env)
    _same(here, _tables(cli))


def test_a_local_ray(ray_env, tmp_path):
    """``--ray`` alone: a Ray started for the sweep (and stopped after it)."""
    spec = {**_spec(tmp_path), "snapshots": [_cluster(tmp_path)], "seeds": [1]}
    file, out = tmp_path / "sweep.json", tmp_path / "out"
    file.write_text(json.dumps(spec))
    _run([sys.executable, "-m", "kscore_fast", "sweep", str(file), "--ray", "-j", "2",
          "--format", "parquet", "-o", str(out)], ray_env)  # fmt: skip
    _same(sweep(spec, jobs=1), _tables(out))


def test_a_wrong_address_is_one_clear_error(tmp_path, capsys):
    spec = tmp_path / "sweep.yaml"
    spec.write_text(f"snapshots: [{_cluster(tmp_path)}]\n")
    address = f"127.0.0.1:{_free_port()}"  # (nothing listens)
    assert main(["sweep", str(spec), "--ray", address]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"kscore: error: Ray at {address}: cannot connect") and err[-1] == "\n"
    assert err.count("\n") == 1
    assert main(["sweep", str(spec), "--ray", "nowhere"]) == 2
    assert "expected an address host:port" in capsys.readouterr().err
