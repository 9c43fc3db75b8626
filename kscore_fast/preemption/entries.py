"""A run's preemption entries (``ScoreResult.preemptions``) made when they are first read:
a compiled chain (:mod:`.chain`) leaves hundreds of entries, each listing its tie set's
node names (a hundred on scheduler_perf's PreemptionBasic), which cost more to make than
the chain's scheduling; a run that nobody reads them from (a benchmark, a what-if loop
reading hosts) never makes them.

:class:`LazyEntries` is a mutable mapping row → entry that behaves as the ``dict`` it
stands for (the same keys, values and insertion order); parts given with
:meth:`LazyEntries.defer` are made, in the order given, by the first read.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, MutableMapping
from typing import Any, Protocol


class Deferred(Protocol):
    """Entries given to :meth:`LazyEntries.defer`: made once, when first read."""

    def entries(self) -> Iterable[tuple[int, dict[str, Any]]]:
        """(row, entry) pairs, in insertion order."""
        ...


class _Given(list):
    """Entries set one by one while some were deferred (kept in their place)."""

    def entries(self) -> Iterable[tuple[int, dict[str, Any]]]:
        return self


class LazyEntries(MutableMapping[int, dict[str, Any]]):
    """row → preemption entry, some of them made when first read (module docstring)."""

    __slots__ = ("_made", "_pending")

    def __init__(self, made: dict[int, dict[str, Any]] | None = None) -> None:
        self._made: dict[int, dict[str, Any]] = {} if made is None else made
        self._pending: list[Deferred] = []

    def defer(self, part: Deferred) -> None:
        """The entries of ``part``, made when the mapping is first read, after those given
        before it."""
        self._pending.append(part)

    def _flush(self) -> dict[int, dict[str, Any]]:
        made = self._made
        if self._pending:
            pending, self._pending = self._pending, []
            for part in pending:
                made.update(part.entries())
        return made

    def __setitem__(self, row: int, entry: dict[str, Any]) -> None:
        if self._pending:  # (after the deferred ones, as a dict would order it)
            last = self._pending[-1]
            if not isinstance(last, _Given):
                last = _Given()
                self._pending.append(last)
            last.append((row, entry))
        else:
            self._made[row] = entry

    def __getitem__(self, row: int) -> dict[str, Any]:
        return self._flush()[row]

    def __delitem__(self, row: int) -> None:
        del self._flush()[row]

    def __contains__(self, row: object) -> bool:
        return row in self._flush()

    def __iter__(self) -> Iterator[int]:
        return iter(self._flush())

    def __len__(self) -> int:
        return len(self._flush())

    def __eq__(self, other: object) -> bool:
        return self._flush() == other

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return repr(self._flush())

    def __reduce__(self) -> tuple[Any, ...]:  # (copies and pickles: every entry made)
        return LazyEntries, (dict(self._flush()),)
