"""Progress bars: on a terminal only, never with --quiet; large files show their reading."""

from __future__ import annotations

import io

from kscore_fast._progress import Progress
from kscore_fast.api import load_cluster
from kscore_fast.io import manifests

NODES = "apiVersion: v1\nkind: List\nitems:\n" + "".join(
    f"- apiVersion: v1\n  kind: Node\n  metadata:\n    name: n{i}\n" for i in range(2000)
)


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_bar_only_on_a_terminal_and_not_quiet():
    tty = _Tty()
    bar = Progress(100, "reading x", stream=tty, unit="MB")
    bar.update(100 * 2**20)
    bar.close()
    assert "reading x [" in tty.getvalue() and "MB" in tty.getvalue()
    for stream, quiet in ((io.StringIO(), False), (_Tty(), True)):
        bar = Progress(100, "scoring pods", stream=stream, quiet=quiet)
        bar.update(100)
        bar.close()
        assert stream.getvalue() == ""


def test_large_file_reports_its_bytes(tmp_path, monkeypatch):
    monkeypatch.setattr(manifests, "STREAM_BYTES", 0)
    f = tmp_path / "nodes.yaml"
    f.write_text(NODES)
    seen: dict[str, list[int]] = {}

    class Bar:
        def __init__(self, name: str, size: int) -> None:
            self.name, self.size = name, size
            seen[name] = []

        def update(self, n: int) -> None:
            seen[self.name].append(n)

        def close(self) -> None:
            seen[self.name].append(-1)

    cluster = load_cluster([f], progress=Bar)
    assert cluster.snapshot.n_nodes == 2000
    done = seen[str(f)]
    assert done[-1] == -1 and 0 < sum(done[:-1]) <= f.stat().st_size
