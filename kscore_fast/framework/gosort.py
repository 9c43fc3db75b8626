"""Go's ``sort.Slice``, step for step: the order it leaves a slice in, whatever ``less``.

``sort.Slice`` is not stable, and kube-scheduler sorts with comparators that are not even
consistent: ``util.MoreImportantPod`` reads a pod's start time as ``time.Now()`` when
the pod has none, so two such pods of one priority are each "more important" than the
other (whichever is asked about first). The order the scheduler then sees (preemption's
victims, reprieved in that order) is what Go's algorithm does with those answers, so it
is reproduced here by running the same algorithm: the pattern-defeating quicksort of the
Go toolchain that builds the reference harness (src/sort/zsortfunc.go ``pdqsort_func``
and its helpers, src/sort/sort.go ``xorshift``; Go 1.19 and later). Every call of
``less(i, j)`` and ``swap(i, j)`` is made in Go's order, on positions of the slice as it
is at that moment.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Less = Callable[[int, int], bool]
Swap = Callable[[int, int], None]

_MAX_INSERTION = 12
_INCREASING, _DECREASING, _UNKNOWN = 0, 1, 2
_MASK64 = (1 << 64) - 1


def sort_slice(items: list[Any], less: Callable[[Any, Any], bool]) -> None:
    """``sort.Slice(items, func(i, j int) bool { return less(items[i], items[j]) })``:
    ``items`` sorted in place as Go sorts it."""

    def swap(i: int, j: int) -> None:
        items[i], items[j] = items[j], items[i]

    def less_at(i: int, j: int) -> bool:
        return less(items[i], items[j])

    n = len(items)
    pdqsort(less_at, swap, 0, n, n.bit_length())


def _insertion_sort(less: Less, swap: Swap, a: int, b: int) -> None:
    for i in range(a + 1, b):
        j = i
        while j > a and less(j, j - 1):
            swap(j, j - 1)
            j -= 1


def _sift_down(less: Less, swap: Swap, lo: int, hi: int, first: int) -> None:
    root = lo
    while True:
        child = 2 * root + 1
        if child >= hi:
            return
        if child + 1 < hi and less(first + child, first + child + 1):
            child += 1
        if not less(first + root, first + child):
            return
        swap(first + root, first + child)
        root = child


def _heap_sort(less: Less, swap: Swap, a: int, b: int) -> None:
    first, hi = a, b - a
    for i in range((hi - 1) // 2, -1, -1):
        _sift_down(less, swap, i, hi, first)
    for i in range(hi - 1, -1, -1):
        swap(first, first + i)
        _sift_down(less, swap, 0, i, first)


def pdqsort(less: Less, swap: Swap, a: int, b: int, limit: int) -> None:
    """``pdqsort_func(data, a, b, limit)``."""
    was_balanced = was_partitioned = True
    while True:
        length = b - a
        if length <= _MAX_INSERTION:
            _insertion_sort(less, swap, a, b)
            return
        if limit == 0:
            _heap_sort(less, swap, a, b)
            return
        if not was_balanced:
            _break_patterns(swap, a, b)
            limit -= 1
        pivot, hint = _choose_pivot(less, a, b)
        if hint == _DECREASING:
            _reverse_range(swap, a, b)
            pivot = (b - 1) - (pivot - a)
            hint = _INCREASING
        likely_sorted = was_balanced and was_partitioned and hint == _INCREASING
        if likely_sorted and _partial_insertion_sort(less, swap, a, b):
            return
        if a > 0 and not less(a - 1, pivot):
            a = _partition_equal(less, swap, a, b, pivot)
            continue
        mid, was_partitioned = _partition(less, swap, a, b, pivot)
        left, right = mid - a, b - mid
        threshold = length // 8
        if left < right:
            was_balanced = left >= threshold
            pdqsort(less, swap, a, mid, limit)
            a = mid + 1
        else:
            was_balanced = right >= threshold
            pdqsort(less, swap, mid + 1, b, limit)
            b = mid


def _partition(less: Less, swap: Swap, a: int, b: int, pivot: int) -> tuple[int, bool]:
    swap(a, pivot)
    i, j = a + 1, b - 1
    while i <= j and less(i, a):
        i += 1
    while i <= j and not less(j, a):
        j -= 1
    if i > j:
        swap(j, a)
        return j, True
    swap(i, j)
    i, j = i + 1, j - 1
    while True:
        while i <= j and less(i, a):
            i += 1
        while i <= j and not less(j, a):
            j -= 1
        if i > j:
            break
        swap(i, j)
        i, j = i + 1, j - 1
    swap(j, a)
    return j, False


def _partition_equal(less: Less, swap: Swap, a: int, b: int, pivot: int) -> int:
    swap(a, pivot)
    i, j = a + 1, b - 1
    while True:
        while i <= j and not less(a, i):
            i += 1
        while i <= j and less(a, j):
            j -= 1
        if i > j:
            return i
        swap(i, j)
        i, j = i + 1, j - 1


def _partial_insertion_sort(less: Less, swap: Swap, a: int, b: int) -> bool:
    max_steps, shortest_shifting = 5, 50
    i = a + 1
    for _ in range(max_steps):
        while i < b and not less(i, i - 1):
            i += 1
        if i == b:
            return True
        if b - a < shortest_shifting:
            return False
        swap(i, i - 1)
        if i - a >= 2:  # the smaller one to the left (Go's loop runs down to 1, not a)
            for j in range(i - 1, 0, -1):
                if not less(j, j - 1):
                    break
                swap(j, j - 1)
        if b - i >= 2:  # the greater one to the right
            for j in range(i + 1, b):
                if not less(j, j - 1):
                    break
                swap(j, j - 1)
    return False


def _break_patterns(swap: Swap, a: int, b: int) -> None:
    length = b - a
    if length < 8:
        return
    random = length  # xorshift(length)
    modulus = 1 << length.bit_length()  # nextPowerOfTwo
    for idx in range(a + (length // 4) * 2 - 1, a + (length // 4) * 2 + 2):
        random ^= (random << 13) & _MASK64
        random ^= random >> 7
        random ^= (random << 17) & _MASK64
        other = random & (modulus - 1)
        if other >= length:
            other -= length
        swap(idx, a + other)


def _choose_pivot(less: Less, a: int, b: int) -> tuple[int, int]:
    shortest_ninther, max_swaps = 50, 4 * 3
    n = b - a
    swaps = [0]
    i, j, k = a + n // 4 * 1, a + n // 4 * 2, a + n // 4 * 3
    if n >= 8:
        if n >= shortest_ninther:
            i = _median(less, i - 1, i, i + 1, swaps)
            j = _median(less, j - 1, j, j + 1, swaps)
            k = _median(less, k - 1, k, k + 1, swaps)
        j = _median(less, i, j, k, swaps)
    if swaps[0] == 0:
        return j, _INCREASING
    if swaps[0] == max_swaps:
        return j, _DECREASING
    return j, _UNKNOWN


def _order2(less: Less, a: int, b: int, swaps: list[int]) -> tuple[int, int]:
    if less(b, a):
        swaps[0] += 1
        return b, a
    return a, b


def _median(less: Less, a: int, b: int, c: int, swaps: list[int]) -> int:
    a, b = _order2(less, a, b, swaps)
    b, c = _order2(less, b, c, swaps)
    a, b = _order2(less, a, b, swaps)
    return b


def _reverse_range(swap: Swap, a: int, b: int) -> None:
    i, j = a, b - 1
    while i < j:
        swap(i, j)
        i, j = i + 1, j - 1
