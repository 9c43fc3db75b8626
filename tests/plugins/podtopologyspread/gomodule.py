"""A temporary Go module holding a copy of upstream's podtopologyspread package (from the
module cache, k8s.io/kubernetes@v1.23.6), next to goref's go.mod and go.sum, so that test
files of our own can run the real plugin (the module path sits under
k8s.io/kubernetes/pkg/scheduler/ so that its internal packages are importable)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
PKG = "k8s.io/kubernetes@v1.23.6/pkg/scheduler/framework/plugins/podtopologyspread"
GOREF = ROOT / "benchmarks" / "goref"


def go_env(**extra: str) -> dict[str, str]:
    """The environment of every go command here: this toolchain, no network, no VCS."""
    return {**os.environ, "GOTOOLCHAIN": "local", "GOPROXY": "off",
            "GOFLAGS": "-buildvcs=false -mod=mod", **extra}  # fmt: skip


def package_dir() -> Path | None:
    """The package's directory in the module cache (None: no Go, or not cached)."""
    if shutil.which("go") is None:
        return None
    cache = subprocess.run(["go", "env", "GOMODCACHE"], capture_output=True, text=True,
                           env=go_env()).stdout.strip()  # fmt: skip
    path = Path(cache) / PKG
    return path if cache and path.is_dir() and (GOREF / "go.sum").is_file() else None


def make_module(work: Path, tests: bool, extra: dict[str, Path]) -> None:
    """Copy the package into ``work`` (its ``_test.go`` files only with ``tests``), the
    module files, and ``extra`` (file name → source)."""
    src = package_dir()
    assert src is not None, "no Go toolchain or module cache"
    for f in src.glob("*.go"):
        if tests or not f.name.endswith("_test.go"):
            shutil.copy(f, work / f.name)
            os.chmod(work / f.name, 0o644)
    mod = (GOREF / "go.mod").read_text()
    mod = mod.replace("module k8s.io/kubernetes/pkg/scheduler/goref",
                      "module k8s.io/kubernetes/pkg/scheduler/ptsdump")  # fmt: skip
    (work / "go.mod").write_text(mod)
    shutil.copy(GOREF / "go.sum", work / "go.sum")
    for name, path in extra.items():
        shutil.copy(path, work / name)
