"""``ScoreResult.preemptions`` made when first read (:mod:`kscore_fast.preemption.entries`):
the mapping gives what the dict it stands for gives (keys, values, insertion order,
equality, copies), deferred parts made once, in order with entries set among them."""

from __future__ import annotations

import copy
import pickle

import pytest

from kscore_fast.preemption.entries import LazyEntries


class _Part:
    """Deferred entries that count how often they are made."""

    def __init__(self, pairs: list[tuple[int, dict]]) -> None:
        self.pairs, self.made = pairs, 0

    def entries(self):
        self.made += 1
        return iter(self.pairs)


def _filled() -> tuple[LazyEntries, dict, list[_Part]]:
    """A mapping filled as a run fills it, and the dict it stands for."""
    lazy, plain = LazyEntries(), {}
    parts = [_Part([(3, {"n": 3}), (5, {"n": 5})]), _Part([(9, {"n": 9})])]
    lazy[1] = plain[1] = {"n": 1}
    lazy.defer(parts[0])
    plain.update(parts[0].pairs)
    lazy[7] = plain[7] = {"n": 7}
    lazy[8] = plain[8] = {"n": 8}
    lazy.defer(parts[1])
    plain.update(parts[1].pairs)
    lazy[2] = plain[2] = {"n": 2}
    return lazy, plain, parts


def test_reads_as_the_dict_in_insertion_order():
    lazy, plain, parts = _filled()
    assert [p.made for p in parts] == [0, 0]
    assert list(lazy) == list(plain) == [1, 3, 5, 7, 8, 9, 2]
    assert list(lazy.items()) == list(plain.items())
    assert len(lazy) == 7 and 9 in lazy and 4 not in lazy
    assert lazy[5] == {"n": 5} and lazy.get(4) is None
    assert lazy == plain and plain == lazy and lazy == LazyEntries(dict(plain))
    assert lazy != {**plain, 4: {}}
    assert [p.made for p in parts] == [1, 1]  # (made once)


def test_writes_as_the_dict():
    lazy, plain, _ = _filled()
    for target in (lazy, plain):
        target[3] = {"n": 33}  # (an existing key keeps its place)
        del target[7]
        target[4] = {"n": 4}
    assert list(lazy.items()) == list(plain.items())
    with pytest.raises(KeyError):
        del lazy[7]
    with pytest.raises(KeyError):
        lazy[7]


def test_copies_and_pickles_with_every_entry():
    lazy, plain, _ = _filled()
    for other in (copy.copy(lazy), copy.deepcopy(lazy), pickle.loads(pickle.dumps(lazy))):
        assert isinstance(other, LazyEntries)
        assert list(other.items()) == list(plain.items())
    assert repr(lazy) == repr(plain)
