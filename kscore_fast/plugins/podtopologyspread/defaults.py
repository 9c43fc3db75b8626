"""Every pending pod's ``helper.DefaultSelector``, as SelectorSpread computes it.

SelectorSpread groups the pods without topology spread constraints by (namespace,
default selector) over its own label space (``selectorspread.plugin.batch_state``; -1: the
selector is empty, which ``buildDefaultConstraints`` reads as no constraint). Here each
group's selector is turned back into a :class:`~kscore_fast.model.selectors.Selector`:
the merged service/ReplicationController ``labels.Set`` (local ids mapped back to the
values they stand for) plus the ReplicaSet/StatefulSet requirements.
"""

from __future__ import annotations

import numpy as np

from ...model.selectors import Selector
from ...model.snapshot import ClusterSnapshot, PodBatch
from ..selectorspread.plugin import _selectors, batch_state
from ..selectorspread.plugin import prepare as selectorspread_prepare


def default_selectors(snapshot: ClusterSnapshot, batch: PodBatch
                      ) -> tuple[np.ndarray, list[Selector]]:  # fmt: skip
    """(group of each pending pod, -1: none or empty; each group's selector)."""
    prep = selectorspread_prepare(snapshot)
    bs = batch_state(snapshot, batch)
    space = prep.space
    services, rc_maps, ctrl_reqs = _selectors(snapshot)
    values: dict[tuple[str, int], str] = {}
    for m in [s.selector or {} for s in services] + rc_maps:
        for k, v in m.items():
            values[(k, space.local(k, v))] = v
    selectors = []
    for g in range(len(bs.grp_ns)):
        req = bs.grp_req[g]
        labels = {space.keys[j]: values[(space.keys[j], int(req[j]))]
                  for j in np.flatnonzero(req >= 0)}  # fmt: skip
        selector = Selector.from_set(labels)
        if bs.grp_ctrl[g] >= 0:
            selector = selector.add(ctrl_reqs[bs.grp_ctrl[g]])
        selectors.append(selector)
    return bs.group, selectors
