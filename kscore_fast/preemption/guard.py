"""What a preempting call of the :class:`~kscore_fast.Simulator` may change, kept to
come back to if it raises (a plugin's error, Ctrl-C): a cycle binds, PostFilter's dry runs
remove and add pods in the plugins' states, its victims are deleted, nominations move.

Cheaper than a copy of the whole simulator (:meth:`Simulator.copy`), which also rebuilds
the plugin table, empties the cycle cache and forgets the dry runs' node lists: a
checkpoint copies only what the calls change in place (the plugins' aggregates, as
``own_state`` copies them, the cache's records, the bindings, the volumes reserved, the
nominations, the node rotation and the random source) and, on restore, takes those
copies back (the plugin table made again for the restored states, the cycle cache
emptied).
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..simulator import Simulator


class Checkpoint:
    """The state of a preempting simulator before a call."""

    def __init__(self, sim: Simulator) -> None:
        self._attrs = dict(sim.__dict__)  # (references: what the call may replace)
        self._cache = sim._cache.copy()
        self._index, self._rows = dict(sim._index), dict(sim._rows)
        self._reserved = dict(sim._reserved)
        self._rng = sim._rng.copy()
        self._nominated = copy.copy(sim._nominated)
        seq = sim._seq
        self._seq: tuple[Any, ...] | None = None
        if seq is not None:
            self._seq = (seq.start, seq.bound.copy(), seq.override.copy(),
                         seq.batch.nominated.copy(), seq.owned(seq.states))  # fmt: skip
        runs = sim._runs
        self._runs: tuple[Any, ...] | None = None
        if runs is not None:
            self._runs = (runs._on_node.copy(), dict(runs.nominated), runs.tracking, runs.pod)

    def restore(self, sim: Simulator) -> None:
        """``sim`` as it was when the checkpoint was taken (keeping its lock)."""
        lock, running = sim._lock, sim._running
        sim.__dict__.clear()
        sim.__dict__.update(self._attrs)
        sim._lock, sim._running = lock, running
        sim._cache, sim._index, sim._rows = self._cache, self._index, self._rows
        sim._reserved = self._reserved
        sim._rng, sim._nominated = self._rng, self._nominated
        seq = sim._seq
        if seq is not None and self._seq is not None:
            seq.start, seq.bound, seq.override, nominated, states = self._seq
            seq.batch.nominated[:] = nominated
            seq.adopt_states(states)
            seq.cache = seq.empty_cache()  # (the verdicts kept across cycles: made again)
            seq.one = seq.last = None
        runs = sim._runs
        if runs is not None and self._runs is not None:
            runs._on_node, runs.nominated, runs.tracking, runs.pod = self._runs
            runs._out, runs._node = set(), -1
