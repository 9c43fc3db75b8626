"""The report in a real headless browser (Debian's chromium, no network): the page loads
with no console message and no script error, every figure is drawn (plotly's ``main-svg``
inside each figure's div), and a screenshot is taken. Skipped only when chromium is not
installed (``.ci/run`` installs it: ``apt-get install chromium``)."""

from __future__ import annotations

import json
import shutil
import struct
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from kscore_fast.cli import main

CHROMIUM = shutil.which("chromium")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed "
                                "(apt-get install chromium)")  # fmt: skip

#: put first in the page's head: script errors and console errors or warnings collected,
#: written into the page (``#kscore-test-errors``) after it loaded and drew
_HOOK = """<script>
window.kscoreTestErrors = [];
window.addEventListener("error", e => kscoreTestErrors.push("error: " + e.message));
window.addEventListener("unhandledrejection", e => kscoreTestErrors.push("rejection: " + e.reason));
for (const level of ["error", "warn"]) {
  const original = console[level];
  console[level] = (...args) => { kscoreTestErrors.push(level + ": " + args.join(" "));
                                  original.apply(console, args); };
}
window.addEventListener("load", () => setTimeout(() => {
  const out = document.createElement("pre");
  out.id = "kscore-test-errors";
  out.textContent = JSON.stringify(kscoreTestErrors);
  document.body.appendChild(out);
}, 1000));
</script>
"""


def _chromium(profile: Path, *args: str) -> subprocess.CompletedProcess:
    """Headless chromium, alone (its own profile), with every host name unresolvable: a
    page that fetched anything would log the failure."""
    assert CHROMIUM is not None
    return subprocess.run(
        [CHROMIUM, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
         "--hide-scrollbars", f"--user-data-dir={profile}", "--enable-logging=stderr", "--v=0",
         "--host-resolver-rules=MAP * ~NOTFOUND", *args],
        capture_output=True, text=True, timeout=180, stdin=subprocess.DEVNULL,
    )  # fmt: skip


class _Figures(HTMLParser):
    """The figures' divs (``kscore-plot-N``) of a page and whether each holds plotly's
    ``main-svg``; the text of ``#kscore-test-errors``."""

    def __init__(self) -> None:
        super().__init__()
        self.drawn: dict[str, bool] = {}
        self.errors: str | None = None
        self._open: list[str | None] = []  # the figure each open element belongs to
        self._in_errors = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        inside = self._open[-1] if self._open else None
        if (a.get("id") or "").startswith("kscore-plot-"):
            inside = a["id"]
            self.drawn[inside] = False
        if inside and "main-svg" in (a.get("class") or "").split():
            self.drawn[inside] = True
        self._in_errors = a.get("id") == "kscore-test-errors"
        if tag not in ("br", "img", "input", "meta", "link", "path", "rect", "line", "image"):
            self._open.append(inside)

    def handle_endtag(self, tag: str) -> None:
        if self._open and tag not in ("br", "img", "input", "meta", "link"):
            self._open.pop()

    def handle_data(self, data: str) -> None:
        if self._in_errors:
            self.errors = (self.errors or "") + data


def _png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


def test_the_report_opens_in_chromium(tmp_path, results):
    page = tmp_path / "report.html"
    kinds = ["score", "simulate", "timed", "sweep"]
    assert main(["report", *[results[k] for k in kinds], "--cluster", results["cluster"],
                 "-o", str(page), "--quiet"]) == 0  # fmt: skip

    shot = tmp_path / "report.png"
    run = _chromium(tmp_path / "profile-1", f"--screenshot={shot}", "--window-size=1400,4000",
                    "--virtual-time-budget=5000", page.as_uri())  # fmt: skip
    assert run.returncode == 0, run.stderr[-2000:]
    console = [line for line in run.stderr.splitlines() if ":CONSOLE" in line]
    assert console == []  # (chromium logs every console message of the page so)
    assert _png_size(shot) == (1400, 4000)
    assert shot.stat().st_size > 100_000  # figures drawn, not a blank page

    hooked = tmp_path / "hooked.html"
    hooked.write_text(page.read_text().replace("<head>\n", "<head>\n" + _HOOK, 1))
    run = _chromium(tmp_path / "profile-2", "--dump-dom", "--virtual-time-budget=10000",
                    hooked.as_uri())  # fmt: skip
    assert run.returncode == 0, run.stderr[-2000:]
    found = _Figures()
    found.feed(run.stdout)
    assert found.errors is not None and json.loads(found.errors) == []
    assert len(found.drawn) == 5 + 6 + 3 + 3  # score, simulate, timed replay, sweep
    assert all(found.drawn.values()), [k for k, v in found.drawn.items() if not v]
