"""kube-scheduler v1.23.6's scheduling queue on a simulated clock (docs/queue.md)."""

from .events_file import TimedEvent, read_events, timed_events
from .replay import replay_timed
from .result import TimedResult
from .timed import TimedSimulator

__all__ = [
    "TimedEvent",
    "TimedResult",
    "TimedSimulator",
    "read_events",
    "replay_timed",
    "timed_events",
]
