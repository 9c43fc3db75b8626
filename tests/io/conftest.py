"""Fixtures of the reading tests: every file streamed, or read by worker processes."""

from __future__ import annotations

import pytest

from kscore_fast.io import manifests, parallel, streaming


@pytest.fixture
def stream_all(monkeypatch):
    """Stream every file, in tiny chunks and pieces (many chunk edges, buffer growth)."""
    monkeypatch.setattr(manifests, "STREAM_BYTES", 0)
    monkeypatch.setattr(streaming, "CHUNK_BYTES", 2048)
    monkeypatch.setattr(streaming, "PIECE_BYTES", 700)
    monkeypatch.setattr(streaming, "_EDGE_BYTES", 4096)


@pytest.fixture
def in_parallel(monkeypatch, stream_all):
    """Read large Lists in 2 processes, in small ranges (many of them). The list it gives
    holds, for each List read so, whether it was read in parallel to the end (False: it
    was read again in one process because some range could not be read alone)."""
    monkeypatch.setenv("KSCORE_READ_WORKERS", "2")
    monkeypatch.setattr(parallel, "PARALLEL_BYTES", 0)
    monkeypatch.setattr(parallel, "RANGE_BYTES", 3000)
    calls = []
    real = parallel.read_list

    def read_list(*args):
        calls.append(False)
        real(*args)
        calls[-1] = True

    monkeypatch.setattr(parallel, "read_list", read_list)
    return calls
