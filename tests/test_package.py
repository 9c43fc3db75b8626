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
