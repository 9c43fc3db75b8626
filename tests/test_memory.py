"""``retain_freed_memory``: glibc's malloc tuned through the process's own libc symbols,
without searching the library path (``ctypes.util.find_library`` runs ``ldconfig -p``,
5-140 ms a command)."""

from __future__ import annotations

import ctypes.util
import platform
import sys

import pytest

from kscore_fast import retain_freed_memory


@pytest.mark.skipif(not sys.platform.startswith("linux") or platform.libc_ver()[0] != "glibc",
                    reason="glibc's mallopt")  # fmt: skip
def test_tunes_malloc_without_searching_for_libc(monkeypatch):
    def refused(name):
        raise AssertionError(f"find_library({name!r}) called")

    monkeypatch.setattr(ctypes.util, "find_library", refused)
    assert retain_freed_memory() is True


def test_false_where_not_linux(monkeypatch):
    monkeypatch.setattr(sys, "platform", "darwin")
    assert retain_freed_memory() is False
