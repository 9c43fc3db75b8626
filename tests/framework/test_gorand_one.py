"""``GoRand.int31n``, one draw per call (a preemptor's candidates' offset), draws what
``GoRand.draw("int31n", …)`` draws (the golden-tested kernel), in the same order."""

from __future__ import annotations

import numpy as np

from kscore_fast.framework.gorand import GoRand

from .test_gorand import _N31


def test_int31n_one_by_one_equals_the_many_draws():
    for seed in (0, 1, 7, -3, 2**62):
        ones, many = GoRand(seed), GoRand(seed)
        got = [ones.int31n(n) for n in _N31 for _ in range(3)]
        want = many.draw("int31n", np.repeat(np.array(_N31, dtype=np.int64), 3)).tolist()
        assert got == want, seed
        assert np.array_equal(ones.state, many.state)
