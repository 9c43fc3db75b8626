"""Scalar reference port of SelectorSpread, line by line from the Go source.

Mirrors, at kube-scheduler v1.23.6:

* pkg/scheduler/framework/plugins/helper/spread.go: ``DefaultSelector``, ``GetPodServices``;
* pkg/scheduler/framework/plugins/selectorspread/selector_spread.go: ``skipSelectorSpread``,
  ``PreScore``, ``Score``, ``countMatchingPods``, ``NormalizeScore``.

It walks records, not columns, and is the specification the kernels are tested against.
"""

from __future__ import annotations

from collections.abc import Sequence

from ...goarith import MAX_NODE_SCORE, go_int64
from ...model.objects import RC_KIND, RS_KIND, SS_KIND, PodRecord
from ...model.selectors import LabelSelector, Selector, label_selector_as_selector
from ...model.snapshot import ClusterSnapshot, parse_group_version
from ...model.topology import zone_key

#: selector_spread.go: ``zoneWeighting float64 = 2.0 / 3.0``
ZONE_WEIGHTING = 2.0 / 3.0


def skip_selector_spread(pod: PodRecord) -> bool:
    """``skipSelectorSpread``: the pod has topology spread constraints."""
    return len(pod.topology_spread_constraints) != 0


def get_pod_services(snapshot: ClusterSnapshot, pod: PodRecord) -> list[dict[str, str]]:
    """``helper.GetPodServices``: selectors of the services selecting ``pod``.

    ``Services("").List`` lists every namespace (client-go ``ListAllByNamespace``).
    """
    out = []
    for svc in snapshot.services:
        if pod.namespace and svc.namespace != pod.namespace:
            continue
        if svc.selector is None:
            continue
        if Selector.from_set(svc.selector).matches(pod.labels):
            out.append(svc.selector)
    return out


def _get(snapshot: ClusterSnapshot, kind: str, namespace: str, name: str):
    """A namespaced lister ``Get``: key ``namespace/name`` (never found for ``""``)."""
    if namespace == "":
        return None
    for c in snapshot.controllers.get(kind, []):
        if c.namespace == namespace and c.name == name:
            return c
    return None


def default_selector(snapshot: ClusterSnapshot, pod: PodRecord) -> Selector:
    """``helper.DefaultSelector``."""
    label_set: dict[str, str] = {}
    for sel in get_pod_services(snapshot, pod):
        label_set = {**label_set, **sel}  # labels.Merge: the later map wins
    selector = Selector.from_set(label_set)

    owner = pod.controller_ref()
    if owner is None:
        return selector
    gv = parse_group_version(owner.api_version)
    if gv is None:
        return selector
    gvk = (gv[0], gv[1], owner.kind)
    if gvk == ("", "v1", RC_KIND):
        rc = _get(snapshot, RC_KIND, pod.namespace, owner.name)
        if rc is not None:
            label_set = {**label_set, **(rc.selector or {})}
            selector = Selector.from_set(label_set)
    elif gvk in (("apps", "v1", RS_KIND), ("apps", "v1", SS_KIND)):
        ctrl = _get(snapshot, owner.kind, pod.namespace, owner.name)
        if ctrl is not None:
            assert ctrl.selector is None or isinstance(ctrl.selector, LabelSelector)
            other = label_selector_as_selector(ctrl.selector)
            if not other.nothing:  # Requirements() returns ok=false for Nothing()
                selector = selector.add(other.requirements)
    return selector


def count_matching_pods(namespace: str, selector: Selector, node_pods: Sequence[PodRecord]) -> int:
    """``countMatchingPods``."""
    if len(node_pods) == 0 or selector.empty():
        return 0
    count = 0
    for p in node_pods:
        if namespace == p.namespace and not p.deleting and selector.matches(p.labels):
            count += 1
    return count


def normalize_score(scores: list[int], zones: Sequence[str]) -> list[int]:
    """``NormalizeScore`` over the scored nodes (``zones[i]`` = GetZoneKey of node i)."""
    counts_by_zone: dict[str, int] = {}
    max_count_by_zone = 0
    max_count_by_node_name = 0
    for i, s in enumerate(scores):
        if s > max_count_by_node_name:
            max_count_by_node_name = s
        if zones[i] == "":
            continue
        counts_by_zone[zones[i]] = counts_by_zone.get(zones[i], 0) + s
    for c in counts_by_zone.values():
        if c > max_count_by_zone:
            max_count_by_zone = c
    have_zones = len(counts_by_zone) != 0

    max_node_f = float(max_count_by_node_name)
    max_zone_f = float(max_count_by_zone)
    max_score_f = float(MAX_NODE_SCORE)
    out = []
    for i, s in enumerate(scores):
        f_score = max_score_f
        if max_count_by_node_name > 0:
            f_score = max_score_f * (float(max_count_by_node_name - s) / max_node_f)
        if have_zones and zones[i] != "":
            zone_score = max_score_f
            if max_count_by_zone > 0:
                zone_score = max_score_f * (
                    float(max_count_by_zone - counts_by_zone[zones[i]]) / max_zone_f
                )
            f_score = (f_score * (1.0 - ZONE_WEIGHTING)) + (ZONE_WEIGHTING * zone_score)
        out.append(go_int64(f_score))
    return out


def score_pod(
    snapshot: ClusterSnapshot, pod: PodRecord, nodes: Sequence[int]
) -> tuple[list[int], list[int]]:
    """Raw and normalized SelectorSpread scores of ``pod`` on ``nodes`` (node indices)."""
    if skip_selector_spread(pod):
        zeros = [0] * len(nodes)
        return zeros, list(zeros)
    selector = default_selector(snapshot, pod)
    by_node: dict[int, list[PodRecord]] = {}
    for p, n in zip(snapshot.pods, snapshot.pod_node.tolist(), strict=True):
        by_node.setdefault(n, []).append(p)
    raw = [count_matching_pods(pod.namespace, selector, by_node.get(n, [])) for n in nodes]
    zones = [zone_key(snapshot.node_labels[n]) for n in nodes]
    return raw, normalize_score(raw, zones)
