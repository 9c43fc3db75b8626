"""Stop signals held over the few system calls that must not be cut in two.

Creating a temporary file and remembering its name, or renaming a finished output into
place, must happen whole: a stop signal acted on in between leaves a temporary nobody
removes, or no output at all. :func:`deferred` holds SIGINT, SIGTERM and SIGHUP for such
a block; one that arrives meanwhile is acted on (its handler runs, and may raise) when the
block ends.

Two layers, since either alone leaves a gap:

* The signal mask of this thread keeps the kernel from acting on the signals here (a
  default action too), and a process forked in the block starts with them held (it
  releases them, see :func:`release`, once its own dispositions are set).
* But a process-directed signal goes to any thread that does not block it (numpy's
  OpenBLAS starts one on import): CPython's C handler then runs in that thread and has the
  main thread run the Python handler at its next bytecode check, in the middle of the
  block. So the Python handlers are replaced, for the block, by one that only records
  the signal (in the main thread; elsewhere Python runs no handler and none can be set).
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Callable, Iterator

#: the signals that stop a run
STOP_SIGNALS: tuple[int, ...] = tuple(
    getattr(signal, n) for n in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, n)
)


@contextlib.contextmanager
def deferred() -> Iterator[None]:
    """Hold the stop signals for the block; one that arrived meanwhile is acted on at its
    end (the first one, if several did)."""
    held: list[int] = []
    swapped = _swap_handlers(lambda signum, frame: held.append(signum))
    mask = _block()
    try:
        yield
    finally:
        if mask is not None:
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)  # pending ones: recorded
        for signum, handler in swapped.items():
            signal.signal(signum, handler)
        if held:
            swapped[held[0]](held[0], None)


def release() -> None:
    """Let the stop signals through in this thread (a process forked in a
    :func:`deferred` block calls this once it has set its own dispositions)."""
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)


def _swap_handlers(record: Callable[[int, object], None]) -> dict[int, Callable]:
    """Put ``record`` in place of the stop signals' Python handlers (main thread only);
    the handlers replaced."""
    if threading.current_thread() is not threading.main_thread():
        return {}
    swapped = {}
    for signum in STOP_SIGNALS:
        handler = signal.getsignal(signum)
        if callable(handler):
            swapped[signum] = handler
            signal.signal(signum, record)
    return swapped


def _block() -> set[int] | None:
    """Block the stop signals in this thread; the mask before (None: no masks here)."""
    if not hasattr(signal, "pthread_sigmask"):
        return None
    return signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
