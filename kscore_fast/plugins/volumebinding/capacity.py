"""VolumeBinding's storage capacity check for a batch (``state.build``): per claim whose
class's CSIDriver checks capacity, ``hasEnoughCapacity``'s verdict on each node class,
equal to ``reference.capacity_available`` on that class's labels: each capacity object
of a checked class marks the needs of that class up to its limit (``capacitySufficient``:
``maximumVolumeSize``, else ``capacity``) on the node classes it is accessible from.

CSIStorageCapacity objects are often published per node (a ``nodeTopology`` naming one
host): the node classes a selector matches are found through an index of the node
classes by label value when one of its requirements is ``=`` or ``In``, so such a
capacity costs its few matching classes, not every class.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Sequence

import numpy as np

from ...model.selectors import EQUALS, IN, Selector
from ...model.storage import Storage

#: a claim's capacity check: its class and ``Value()`` of its request
Need = tuple[str, int | None]


def capacity_rows(needs: Sequence[Need | None], node_labels: list[dict[str, str]],
                  storage: Storage) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """(int32 row of each need, bool[rows, node classes]): a row of True for None (the
    claim's capacity is not checked), else whether a CSIStorageCapacity of the need's
    class, large enough (``capacitySufficient``), is accessible from the node class."""
    ids: dict[Need | None, int] = {}
    row = np.array([ids.setdefault(need, len(ids)) for need in needs], np.int32).reshape(-1)
    table = np.ones((len(ids), len(node_labels)), dtype=np.bool_)
    by_class: dict[str, list[tuple[int, int]]] = {}  # class → (size, row), by size
    for need, r in ids.items():
        if need is not None:
            table[r] = False
            by_class.setdefault(need[0], []).append((need[1] or 0, r))
    ranked = {name: (np.array([r for _, r in sorted(x)], np.intp), sorted(s for s, _ in x))
              for name, x in by_class.items()}  # fmt: skip
    access = _Access(node_labels)
    for capacity in storage.capacities.values():
        rows, sizes = ranked.get(capacity.class_name, (None, []))
        limit = capacity.limit
        if rows is None or limit is None or capacity.node_topology is None:
            continue
        fits = bisect.bisect_right(sizes, limit)  # the needs of a size up to the limit
        classes = access.classes(capacity.node_topology) if fits else []
        if classes:
            table[np.ix_(rows[:fits], classes)] = True
    return row, table


class _Access:
    """The node classes each selector matches (``nodeHasAccess``), remembered."""

    def __init__(self, node_labels: list[dict[str, str]]) -> None:
        self.labels = node_labels
        self.by_value: dict[str, dict[str, list[int]]] = {}
        for c, labels in enumerate(node_labels):
            for key, value in labels.items():
                self.by_value.setdefault(key, {}).setdefault(value, []).append(c)
        self.memo: dict[Selector, list[int]] = {}

    def classes(self, selector: Selector) -> list[int]:
        got = self.memo.get(selector)
        if got is None:
            got = [c for c in self._candidates(selector) if selector.matches(self.labels[c])]
            self.memo[selector] = got
        return got

    def _candidates(self, selector: Selector) -> Iterable[int]:
        """The classes with the value of the first ``=`` or ``In`` requirement (a
        superset of those the selector matches), or every class."""
        for r in selector.requirements:
            if r.op in (IN, EQUALS):
                by_value = self.by_value.get(r.key, {})
                return sorted({c for value in r.values for c in by_value.get(value, ())})
        return range(len(self.labels))
