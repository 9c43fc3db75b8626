"""Keep freed memory for reuse instead of returning it to the operating system.

glibc's malloc serves large requests (NumPy arrays above its mmap threshold) with fresh
``mmap`` regions and unmaps them when freed, so every new result array is first-touched
page by page; in a virtual machine each page fault costs microseconds, more than the
scoring itself (measured: 13 MB of score arrays for 1,000 pods × 1,000 nodes cost
~13 µs per pod in page faults). Raising the mmap and trim thresholds makes arrays up to
32 MiB come from malloc's heap and be reused, as Go's runtime reuses its heap.

This changes a process-wide allocator setting, so the library never does it on import:
the ``kscore`` command and the benchmarks call :func:`retain_freed_memory`, and embedding
applications may.
"""

from __future__ import annotations

import ctypes
import sys

_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3
_MMAP_THRESHOLD = 32 << 20  # glibc's largest allowed mmap threshold on 64-bit
_TRIM_THRESHOLD = 1 << 30


def retain_freed_memory() -> bool:
    """Tune glibc's malloc as described above; False where that is not possible."""
    if not sys.platform.startswith("linux"):
        return False
    try:  # (the process's own symbols, libc's among them: no ``ldconfig -p`` run, which
        # ``ctypes.util.find_library`` does, 5-140 ms a command)
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    return bool(mallopt(_M_MMAP_THRESHOLD, _MMAP_THRESHOLD)) and bool(
        mallopt(_M_TRIM_THRESHOLD, _TRIM_THRESHOLD)
    )
