"""A small progress bar for long runs: on a terminal only, never when ``quiet``."""

from __future__ import annotations

import sys
import time
from typing import TextIO


class Progress:
    """``update(n)`` advances; ``close()`` clears the line. Silent when disabled."""

    def __init__(self, total: int, label: str, *, quiet: bool = False,
                 stream: TextIO | None = None) -> None:  # fmt: skip
        self.stream = stream or sys.stderr
        self.total = total
        self.label = label
        self.done = 0
        self.enabled = not quiet and total > 0 and self.stream.isatty()
        self._start = time.monotonic()
        self._last = 0.0

    def update(self, n: int) -> None:
        self.done += n
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self._last < 0.1 and self.done < self.total:
            return
        self._last = now
        frac = self.done / self.total
        width = 30
        bar = "#" * int(frac * width) + "-" * (width - int(frac * width))
        rate = self.done / max(now - self._start, 1e-9)
        self.stream.write(f"\r{self.label} [{bar}] {self.done}/{self.total} ({rate:,.0f}/s)")
        self.stream.flush()

    def close(self) -> None:
        if self.enabled:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
