"""The package's public surface, and a command line that starts without numba."""

from __future__ import annotations

import subprocess
import sys

import kscore_fast


def test_public_names_resolve():
    assert sorted(kscore_fast.__all__) == sorted([*kscore_fast._EXPORTS, "__version__"])
    for name in kscore_fast.__all__:
        assert getattr(kscore_fast, name) is not None
    assert set(kscore_fast.__all__) <= set(dir(kscore_fast))


def test_cli_imports_no_numba_before_main():
    """Ctrl-C while numba loads must meet kscore's handlers, not a traceback: the command
    module and the package import nothing slow."""
    code = "import sys, kscore_fast.cli; print('numba' in sys.modules, 'numpy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


def test_no_submodule_shadows_an_exported_name():
    """Importing every submodule (as ``from kscore_fast.x import y`` does) leaves each
    exported name what the package exports: a submodule named like an exported function
    would replace it with itself on import."""
    import importlib
    import pkgutil

    modules = {m.name for m in pkgutil.iter_modules(kscore_fast.__path__)}
    assert not modules & set(kscore_fast._EXPORTS), "a submodule is named like an export"
    code = (
        "import importlib, pkgutil, types, kscore_fast\n"
        "for m in pkgutil.iter_modules(kscore_fast.__path__):\n"
        "    if m.name not in ('__main__', 'sweep_ray'):\n"
        "        importlib.import_module('kscore_fast.' + m.name)\n"
        "bad = [n for n in kscore_fast._EXPORTS\n"
        "       if isinstance(getattr(kscore_fast, n), types.ModuleType)]\n"
        "print(bad, callable(kscore_fast.capacity), callable(kscore_fast.sweep))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["[]", "True", "True"]
    assert importlib.import_module("kscore_fast.capacity_search").capacity is kscore_fast.capacity
