"""Helpers of the reading tests: objects written as kubectl prints them and read back
through each input path, errors caught, the one-pass path of common pods watched."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from kscore_fast.errors import InputError
from kscore_fast.io import objects as objects_module
from kscore_fast.io.load import read_inputs
from kscore_fast.io.objects import Objects

ROOT = Path(__file__).resolve().parents[2]
#: the ways :func:`read` reads objects
HOW = ["json", "yaml", "multidoc", "directory", "objects"]


def as_list(items: list[dict[str, Any]]) -> dict[str, Any]:
    return {"apiVersion": "v1", "items": items, "kind": "List", "metadata": {"resourceVersion": ""}}


def write(items: list[dict[str, Any]], path: Path) -> Path:
    """``items`` as one List, JSON (pretty-printed, as kubectl) or YAML by ``path``'s suffix."""
    if path.suffix == ".json":
        path.write_text(json.dumps(as_list(items), indent=4))
    else:
        path.write_text(yaml.safe_dump(as_list(items)))
    return path


def read(items: list[dict[str, Any]], how: str, tmp_path: Path) -> Objects:
    """The records of ``items``: from a JSON or YAML List file (``cluster.json|yaml``), a
    multi-document YAML file (``cluster.yaml``), a directory (one JSON or YAML file per
    object), or as Python objects (``<objects>``)."""
    if how == "objects":
        return read_inputs([], [as_list(items)])[0]
    if how == "multidoc":
        path = tmp_path / "cluster.yaml"
        path.write_text(yaml.safe_dump_all(items))
        return read_inputs([path])[0]
    if how == "directory":
        d = tmp_path / "cluster"
        d.mkdir(exist_ok=True)
        for i, item in enumerate(items):
            text = json.dumps(item, indent=4) if i % 2 else yaml.safe_dump(item)
            (d / f"{i:03}.{'json' if i % 2 else 'yaml'}").write_text(text)
        return read_inputs([d])[0]
    return read_inputs([write(items, tmp_path / f"cluster.{how}")])[0]


def error(items: list[dict[str, Any]], how: str, tmp_path: Path) -> str:
    """The message of the InputError reading ``items`` raises."""
    with pytest.raises(InputError) as exc:
        read(items, how, tmp_path)
    return str(exc.value)


def file_label(how: str, tmp_path: Path) -> str:
    """How messages name the input :func:`read` reads (List files and ``objects``)."""
    return str(tmp_path / f"cluster.{how}") if how != "objects" else "<objects>"


def watch_common_pods(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """What each call of ``_common_pod`` (the one-pass path) returned, in order."""
    seen: list[bool] = []
    real = objects_module.ObjectReader._common_pod

    def spy(self, *args):
        seen.append(real(self, *args))
        return seen[-1]

    monkeypatch.setattr(objects_module.ObjectReader, "_common_pod", spy)
    return seen


def cli_error_line(path: Path) -> str:
    """The one line ``kscore score PATH`` prints on stderr, exiting 2 without traceback."""
    proc = subprocess.run(
        [sys.executable, "-m", "kscore_fast", "score", str(path), "--quiet"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    (line,) = proc.stderr.strip().splitlines()
    assert line.startswith("kscore: ")
    return line


def read_three_ways(items: list[dict[str, Any]], path: Path, monkeypatch: pytest.MonkeyPatch,
                    parallel_calls: list[int]) -> tuple[Objects, Objects, Objects]:  # fmt: skip
    """``items`` written as a List to ``path`` and read in parallel (with the
    ``in_parallel`` fixture, whose calls are ``parallel_calls``), in one process, and as
    Python objects."""
    write(items, path)
    got = read_inputs([path])[0]
    assert parallel_calls, "not read in parallel"
    with monkeypatch.context() as m:
        m.setenv("KSCORE_READ_WORKERS", "1")
        one = read_inputs([path])[0]
    return got, one, read_inputs([], [as_list(items)])[0]
