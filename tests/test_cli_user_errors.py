"""User errors of the command line: each is one ``kscore: error:`` line and exit code 2,
never a traceback or a hang (see docs/contract.md)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest

from kscore_fast.cli import _parser, main

ROOT = Path(__file__).resolve().parents[1]
EMBEDDED = ROOT / "data" / "embedded"
NODES = EMBEDDED / "nodes.json"
CONFIG = "apiVersion: kubescheduler.config.k8s.io/v1beta3\nkind: KubeSchedulerConfiguration\n"


def _kscore(*args: str, timeout: float = 60, **kw) -> subprocess.CompletedProcess:
    """``kscore ARGS`` in a child process (for what could hang or needs its own stdout)."""
    return subprocess.run(
        [sys.executable, "-m", "kscore_fast", *args],
        stderr=subprocess.PIPE,
        stdout=kw.pop("stdout", subprocess.PIPE),
        text=True,
        timeout=timeout,
        **kw,
    )


def _one_error_line(err: str) -> str:
    """The single error line of stderr (asserting there is nothing else)."""
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("kscore: error: "), err
    return lines[0].removeprefix("kscore: error: ")


# -- 1. --config names a file that is not a regular file ---------------------------------------


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "cfgfifo"
    os.mkfifo(path)
    return path


@pytest.mark.parametrize(
    "command",
    [["config", "--print"], ["score", str(NODES), "--quiet"]],
    ids=["config", "score"],
)
def test_config_fifo_is_refused_without_hanging(fifo, command):
    proc = _kscore(*command, "--config", str(fifo))
    assert proc.returncode == 2 and proc.stdout == ""
    assert _one_error_line(proc.stderr) == f"{fifo}: not a regular file (a FIFO)"


def test_config_fifo_swapped_in_after_the_check_does_not_hang(fifo, tmp_path):
    """A FIFO that replaces a regular file between ``stat`` and ``open``: the open does
    not block, and the opened file is checked again."""
    regular = tmp_path / "regular.yaml"
    regular.write_text(CONFIG)
    script = textwrap.dedent(f"""
        import os, sys
        real_stat = os.stat
        def stat(path, *args, **kwargs):  # the check sees a regular file
            if os.fspath(path) == {str(fifo)!r}:
                path = {str(regular)!r}
            return real_stat(path, *args, **kwargs)
        os.stat = stat
        from kscore_fast.cli import main
        sys.exit(main(["config", "--print", "--config", {str(fifo)!r}]))
    """)
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 2 and proc.stdout == ""
    assert _one_error_line(proc.stderr) == f"{fifo}: not a regular file (a FIFO)"


@pytest.fixture
def unix_socket():
    # a short directory: socket paths are limited to about 100 bytes
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "s")
        with socket.socket(socket.AF_UNIX) as s:
            s.bind(path)
            yield path


def test_config_special_files_are_refused(tmp_path, unix_socket, capsys):
    cases = {
        "/dev/null": "/dev/null: not a regular file (a character device)",
        str(tmp_path): f"{tmp_path}: is a directory, not a configuration file",
        unix_socket: f"{unix_socket}: not a regular file (a socket)",
    }
    for path, message in cases.items():
        for command in (["config", "--print"], ["score", str(NODES), "--quiet"]):
            assert main([*command, "--config", path]) == 2
            out, err = capsys.readouterr()
            assert out == "" and _one_error_line(err) == message


def test_config_dev_stdin_from_a_pipe_is_refused():
    proc = _kscore("config", "--print", "--config", "/dev/stdin", input=CONFIG)
    assert proc.returncode == 2 and proc.stdout == ""
    assert _one_error_line(proc.stderr) == "/dev/stdin: not a regular file (a FIFO)"


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("", "--config: empty path"),
        ("-", "--config -: the configuration is read from a file, not standard input"),
    ],
    ids=["empty", "dash"],
)
def test_config_empty_path_and_dash(path, message, capsys):
    for command in (["config", "--print"], ["score", str(NODES), "--quiet"]):
        assert main([*command, "--config", path]) == 2
        out, err = capsys.readouterr()
        assert out == "" and _one_error_line(err) == message


def test_config_missing_file_still_names_it(tmp_path, capsys):
    missing = tmp_path / "missing.yaml"
    assert main(["config", "--print", "--config", str(missing)]) == 2
    assert _one_error_line(capsys.readouterr().err) == f"{missing}: No such file or directory"


def test_config_regular_file_still_reads(tmp_path, capsys):
    cfg = tmp_path / "cfg.yaml"
    cfg.write_text(CONFIG + "percentageOfNodesToScore: 7\n")
    assert main(["config", "--print", "--config", str(cfg)]) == 0
    assert "percentageOfNodesToScore: 7" in capsys.readouterr().out


# -- 2. stdout full or closed for config --print and cache info --------------------------------


COMMANDS = [["config", "--print"], ["cache", "info"]]


@pytest.mark.parametrize("command", COMMANDS, ids=["config", "cache"])
def test_stdout_full_is_one_line(command):
    with open("/dev/full", "w") as full:
        proc = _kscore(*command, stdout=full)
    assert proc.returncode == 2
    assert _one_error_line(proc.stderr) == "stdout: cannot write: No space left on device"


@pytest.mark.parametrize("command", COMMANDS, ids=["config", "cache"])
def test_stdout_closed_is_one_line(command):
    proc = _kscore(*command, stdout=subprocess.DEVNULL, preexec_fn=lambda: os.close(1))
    assert proc.returncode == 2
    assert _one_error_line(proc.stderr) == "stdout is closed"


def test_cache_clear_with_stdout_closed_clears_nothing(tmp_path, monkeypatch, capsys):
    """The report cannot be shown: the cache is left alone."""
    from kscore_fast import _cache

    called = []
    monkeypatch.setattr(_cache, "clear", lambda state: called.append(state) or "")
    monkeypatch.setattr(sys, "stdout", None)
    assert main(["cache", "clear"]) == 2
    assert _one_error_line(capsys.readouterr().err) == "stdout is closed"
    assert called == []


def test_stdout_broken_pipe_is_quiet():
    """``kscore config --print | head -c 1``: exit 141 quietly, as score does."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "kscore_fast", "config", "--print"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    proc.stdout.close()
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 141 and err == b""


# -- 3. options between paths -----------------------------------------------------------------


@pytest.mark.parametrize("command", ["score", "simulate"])
def test_options_between_paths(command):
    args = _parser().parse_args(
        [command, "a.yaml", "--quiet", "b.yaml", "--seed", "3", "c/", "-o", "out.json", "-"]
    )
    assert args.command == command and args.paths == ["a.yaml", "b.yaml", "c/", "-"]
    assert args.quiet and args.seed == 3 and args.output == "out.json"


@pytest.mark.parametrize(
    ("argv", "paths"),
    [
        (["--quiet", "--", "-a.yaml", "--seed"], ["-a.yaml", "--seed"]),
        (["--", "-a.yaml"], ["-a.yaml"]),
        (["a.yaml", "--quiet", "b.yaml", "--", "-c.yaml"], ["a.yaml", "b.yaml", "-c.yaml"]),
    ],
    ids=["options-then-dashdash", "dashdash-first", "mixed-then-dashdash"],
)
def test_paths_after_double_dash(argv, paths):
    """Everything after ``--`` is a path, wherever ``--`` stands."""
    args = _parser().parse_args(["score", *argv])
    assert args.paths == paths and args.seed == 0


@pytest.mark.parametrize("command", ["score", "simulate"])
def test_options_between_paths_reach_the_reader(command, tmp_path, capsys):
    missing = tmp_path / "w1.yaml"
    out = tmp_path / "out.json"
    assert main([command, str(NODES), "--quiet", str(missing), "-o", str(out)]) == 2
    assert _one_error_line(capsys.readouterr().err) == f"{missing}: no such file or directory"
    assert list(tmp_path.iterdir()) == []


def test_unknown_options_and_missing_paths_are_still_usage_errors(capsys):
    with pytest.raises(SystemExit) as info:
        main(["score", str(NODES), "--bogus", "x.yaml"])
    assert info.value.code == 2
    assert "unrecognized arguments: --bogus" in capsys.readouterr().err
    with pytest.raises(SystemExit) as info:
        main(["score", "--quiet"])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert "usage: kscore score" in err and "required: PATH" in err


# -- 4. --plugins messages --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("plugins", "message"),
    [
        ("SelectorSpread=2147483648", "weight of score plugin SelectorSpread is 2147483648"),
        ("SelectorSpread=" + "9" * 5000, "is a 5000-digit number, out of range"),
        ("SelectorSpread=-2", "weight of SelectorSpread must be a non-negative integer"),
        ("Nope", 'Score Plugin "Nope" does not exist'),
        ("SelectorSpread,SelectorSpread", 'plugin "SelectorSpread" already registered'),
    ],
    ids=["int32", "digits", "negative", "unknown", "twice"],
)
def test_every_plugins_error_names_the_option(plugins, message, capsys):
    assert main(["score", str(NODES), "--plugins", plugins, "--quiet"]) == 2
    line = _one_error_line(capsys.readouterr().err)
    assert line.startswith("--plugins: ") and message in line
    assert not line.startswith("--plugins: --plugins")
