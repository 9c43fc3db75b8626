"""A small progress bar for long runs: on a terminal only, never when ``quiet``."""

from __future__ import annotations

import sys
import time
from typing import TextIO


class Progress:
    """``update(n)`` advances; ``close()`` clears the line. Silent when disabled."""

    def __init__(self, total: int, label: str, *, quiet: bool = False,
                 stream: TextIO | None = None, unit: str = "") -> None:  # fmt: skip
        """``unit="MB"`` shows byte counts in megabytes."""
        self.stream = stream or sys.stderr
        self.total = total
        self.label = label
        self.scale = 2**20 if unit == "MB" else 1
        self.unit = f" {unit}" if unit else ""
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
        rate = self.done / max(now - self._start, 1e-9) / self.scale
        done, total = self.done // self.scale, self.total // self.scale
        self.stream.write(
            f"\r{self.label} [{bar}] {done:,}/{total:,}{self.unit} ({rate:,.0f}{self.unit}/s)"
        )
        self.stream.flush()

    def close(self) -> None:
        if self.enabled:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
