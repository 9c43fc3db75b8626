"""The candidates' offset of ``DryRunPreemption`` (``rand.Int31n(numNodes)`` in Go's
``GetOffsetAndNumCandidates``), as a run draws it: from Go's source (``go-rand``: the
source of the hosts' ties) or kscore's seeded draw per pod (``uniform``)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..framework.gorand import GoRand
from ..framework.selection import draw


@dataclass(frozen=True)
class OffsetDraw:
    """The offset for ``n`` potential nodes: ``rand.Int31n(n)`` from the Go source whose
    state is ``rng`` (shared: a draw advances it), else :func:`.selection.draw` for
    (``seed``, ``stream``)."""

    rng: np.ndarray | None = None
    seed: int = 0
    stream: int = 0

    def __call__(self, n: int) -> int:
        if self.rng is not None:
            return GoRand.over(self.rng).int31n(n)
        return draw(self.seed, self.stream, n)
