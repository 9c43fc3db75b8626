"""``--format kss``: the pending pods with kube-scheduler-simulator's result annotations.

kubernetes-sigs/kube-scheduler-simulator records each scheduling cycle in the pod's
annotations (its ``resultstore``), each value a JSON string as Go's ``json.Marshal``
writes a map (keys sorted; ``<``, ``>`` and ``&`` escaped):

* ``kube-scheduler-simulator.sigs.k8s.io/filter-result``: node → filter plugin →
  ``"passed"``, or the failing plugin's ``Status.Message()`` (its reasons joined by
  ``", "``); a node lists the plugins run on it, up to the first that failed; nodes the
  search did not examine are absent;
* ``.../score-result``: node → score plugin → its Score, as a decimal string;
* ``.../finalscore-result``: node → score plugin → normalized score × weight;
* ``.../selected-node``: the host (empty when the pod fits nowhere).

The pods are the input's objects (read again as written), each with these four added to
its annotations, in the result's order, as a ``v1 List``. kscore's profile leaves out the
volume plugins it does not simulate: their ``"passed"`` entries are not written.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

PREFIX = "kube-scheduler-simulator.sigs.k8s.io/"
FILTER, SCORE, FINAL, SELECTED = (PREFIX + k for k in (
    "filter-result", "score-result", "finalscore-result", "selected-node"))  # fmt: skip
PASSED = "passed"


def go_json(value: Any) -> str:
    """``json.Marshal`` of string maps: sorted keys, no spaces, HTML-escaped."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def annotations(entry: Mapping[str, Any], filter_names: Sequence[str]) -> dict[str, str]:
    """The four annotations of one result entry (docs/contract.md's document, with
    ``rejected`` and every score kept)."""
    filters: dict[str, dict[str, str]] = {}
    for rej in entry.get("rejected") or ():
        plugins = {}
        for name in filter_names:
            if name == rej["plugin"]:
                plugins[name] = rej["reason"]
                break
            plugins[name] = PASSED
        filters[rej["node"]] = plugins
    feasible = [s["node"] for s in entry.get("scores") or ()]
    if entry.get("host") is not None and entry["host"] not in feasible:
        feasible.append(entry["host"])  # (a single feasible node is not scored)
    for node in feasible if filter_names else ():  # (no filter plugin ran: no entry)
        filters[node] = {name: PASSED for name in filter_names}
    scores = {s["node"]: {p: str(v["raw"]) for p, v in s["plugins"].items()}
              for s in entry.get("scores") or ()}  # fmt: skip
    final = {s["node"]: {p: str(v["weighted"]) for p, v in s["plugins"].items()}
             for s in entry.get("scores") or ()}  # fmt: skip
    return {FILTER: go_json(filters), SCORE: go_json(scores), FINAL: go_json(final),
            SELECTED: entry.get("host") or ""}  # fmt: skip


class KssPods:
    """The output of ``--format kss``: what the JSON writers write (``json_pieces``)."""

    def __init__(self, result: Any, pods: Mapping[str, Mapping[str, Any]],
                 filter_names: Sequence[str]) -> None:  # fmt: skip
        self.result, self.pods = result, pods
        #: the Filter plugins (a PreFilter run as a filter, listed first under its
        #: plugin's name, is not one: the later entry of a name is kept)
        self.filter_names = [
            n for i, n in enumerate(filter_names) if n not in filter_names[i + 1 :]
        ]

    def items(self) -> Iterator[dict[str, Any]]:
        for entry in self.result.to_dict()["results"]:
            pod = json.loads(json.dumps(self.pods[entry["pod"]]))
            meta = pod.setdefault("metadata", {})
            meta["annotations"] = {**(meta.get("annotations") or {}),
                                   **annotations(entry, self.filter_names)}  # fmt: skip
            yield pod

    def json_pieces(self) -> Iterator[str]:
        yield '{"apiVersion": "v1", "kind": "List", "items": ['
        for k, pod in enumerate(self.items()):
            yield ("\n" if k == 0 else ",\n") + json.dumps(pod, ensure_ascii=False)
        yield "]}\n"


def pending_objects(paths: Sequence[str]) -> dict[str, dict[str, Any]]:
    """The input's pods without ``spec.nodeName``, by ``namespace/name`` (read again)."""
    from ..model.objects import object_key
    from .workloads import raw_objects

    out = {}
    for obj in raw_objects(paths, "--format kss"):
        if obj.get("kind") == "Pod" and not (obj.get("spec") or {}).get("nodeName"):
            out[object_key(obj)] = dict(obj)
    return out
