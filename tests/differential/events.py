"""Random event scripts for the step API: the same cluster events applied to kscore's
:class:`~kscore_fast.Simulator` and to ``goref simulate --events`` (the real scheduler
cache of kube-scheduler v1.23.6), every scheduling cycle compared.

A scenario is one of :mod:`tests.scenarios_profile`'s clusters and configurations, from
which some nodes and pods are held back to be added later. The script is drawn while
kscore runs it (what is bound, what failed and which nodes hold pods come from kscore's
answers), written as JSON Lines (``{"op": "schedule", "pod": "ns/name"}``, ``delete``,
``addNode``, ``removeNode``, ``addPod``) and replayed by goref. Until the two sides
differ they hold the same state, so the script is valid for both; the first difference
is what the test reports.

Event kinds (:data:`OPS`): ``schedule`` (the queue's head, a cycle then a bind; failed
pods are queued again after a cluster event), ``delete`` (a pod bound by the script, an
existing pod of the input or a pending pod), ``addNode`` (a held-back node, in a known
zone or a new one, or a removed node's name again, sometimes in another zone),
``removeNode`` (the first node of a zone, the last node of a zone, a node holding pods,
any node), ``flap`` (a node removed and added back with no cycle in between: the
snapshot keeps its old node order) and ``addPod`` (a held-back pending pod, a deleted
pod's name again, or a bound pod on a present node; with ``podOnAbsentNode`` a bound
pod whose node is absent stays bound to it: the cache keeps it for that node's return).
``removeNode`` may remove the last node now and then.
"""

from __future__ import annotations

import copy
import json
import random
import re
import subprocess
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from benchmarks.timing import timing_free
from kscore_fast.api import load_cluster
from kscore_fast.simulator import Simulator

from ..goref import GOREF, compare
from ..scenarios_profile import REGION, ZONE, profile_config, profile_scenario

Obj = dict[str, Any]
Op = dict[str, Any]

OPS = ("schedule", "delete", "addNode", "removeNode", "flap", "addPod", "podOnAbsentNode")
#: relative weights of the event kinds when several are possible
WEIGHTS = {"schedule": 6, "delete": 2, "addNode": 1.5, "removeNode": 1.2, "flap": 0.4,
           "addPod": 1.5}  # fmt: skip
#: the keys of an op goref reads (``bind`` says how kscore's side schedules)
GOREF_KEYS = ("op", "pod", "node", "capacity")
BETA_ZONE = "failure-domain.beta.kubernetes.io/zone"
BETA_REGION = "failure-domain.beta.kubernetes.io/region"


def pod_name(obj: Obj) -> str:
    return f"{obj['metadata'].get('namespace', 'default')}/{obj['metadata']['name']}"


def _zone_key(node: Obj) -> str:
    """utilnode.GetZoneKey: region and zone (GA labels first), "" without both."""
    labels = node["metadata"].get("labels", {})
    region = labels.get(REGION, labels.get(BETA_REGION, ""))
    zone = labels.get(ZONE, labels.get(BETA_ZONE, ""))
    return "" if not region and not zone else f"{region}:\x00:{zone}"


@dataclass
class Scenario:
    """The cluster at the start (``objects``), the held-back nodes and pods, the
    scheduler configuration and the seed (of the scenario and of ``rand.Seed``)."""

    family: str
    seed: int
    objects: list[Obj]
    config: Obj
    later_nodes: list[Obj] = field(default_factory=list)
    later_pods: list[Obj] = field(default_factory=list)


def scenario(family: str, seed: int, ops: Iterable[str], **sizes: int) -> Scenario:
    """A profile scenario with up to a third of its nodes (those bound pods with them)
    held back when ``addNode`` is enabled, and a quarter of its pending and bound pods
    when ``addPod`` is; at least one node stays."""
    ops = set(ops)
    objs = profile_scenario(seed, family=family, **sizes)
    rng = random.Random(seed * 7 + 3)
    nodes = [o for o in objs if o["kind"] == "Node"]
    later_nodes: list[Obj] = []
    if "addNode" in ops and len(nodes) > 1:
        later_nodes = rng.sample(nodes, rng.randint(0, len(nodes) // 3))
    held = {n["metadata"]["name"] for n in later_nodes}
    first: list[Obj] = []
    later_pods: list[Obj] = []
    for o in objs:
        if o["kind"] == "Node" and o["metadata"]["name"] in held:
            continue
        if (
            o["kind"] == "Pod"
            and _movable(o)
            and (o["spec"].get("nodeName") in held or ("addPod" in ops and rng.random() < 0.25))
        ):
            later_pods.append(o)
        else:
            first.append(o)
    if "addPod" not in ops:  # bound to a held-back node: moved to a node present at first
        present = [n["metadata"]["name"] for n in nodes if n["metadata"]["name"] not in held]
        for o in later_pods:
            o["spec"]["nodeName"] = rng.choice(present)
        first += later_pods
        later_pods = []
    return Scenario(family, seed, first, profile_config(seed, family=family), later_nodes,
                    later_pods)  # fmt: skip


def _movable(pod: Obj) -> bool:
    """A pod that may be held back: the scheduler sees it (not Succeeded/Failed), would
    schedule it if pending (not being deleted) and is not bound to a node absent from
    the scenario."""
    if pod.get("status", {}).get("phase") in ("Succeeded", "Failed"):
        return False
    if pod["metadata"].get("deletionTimestamp") and not pod["spec"].get("nodeName"):
        return False
    return pod["spec"].get("nodeName", "node-0").startswith("node-")


def write_inputs(sc: Scenario, objects: list[Obj], tmp: Path) -> tuple[Path, Path]:
    """The cluster and the configuration as files."""
    cluster = tmp / f"cluster-{sc.family}-{sc.seed}.json"
    cluster.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objects}))
    config = tmp / f"config-{sc.family}-{sc.seed}.yaml"
    config.write_text(yaml.safe_dump(sc.config))
    return cluster, config


def new_simulator(cluster: Path, config: Path, seed: int) -> Simulator:
    """kscore's simulator of the cluster file, with Go's tie-breaks after rand.Seed(seed)."""
    return Simulator(load_cluster([cluster]), config=config, tie_break="go-rand", seed=seed)


# --- kscore's side --------------------------------------------------------------------------


def apply(sim: Simulator, op: Op) -> dict[str, Any] | None:
    """Perform ``op`` on kscore's simulator; the result object of a schedule op
    (``{"pod", "host"}`` only when the op asks for ``schedule_and_bind``)."""
    kind = op["op"]
    if kind == "schedule":
        if op.get("bind") == "schedule_and_bind":
            return {"pod": op["pod"], "host": sim.schedule_and_bind(op["pod"])}
        result = sim.schedule(op["pod"])
        if result["host"] is not None:
            sim.bind(op["pod"], result["host"])
        return result
    if kind == "delete":
        sim.delete(op["pod"])
    elif kind == "addNode":
        sim.add_node(copy.deepcopy(op["node"]))
    elif kind == "removeNode":
        sim.remove_node(op["node"])
    elif kind == "addPod":
        sim.add_pod(copy.deepcopy(op["pod"]))
    else:
        raise ValueError(f"unknown op {kind!r}")
    return None


def replay(sim: Simulator, ops: list[Op]) -> list[dict[str, Any]]:
    """The result of each schedule op of ``ops`` performed in order."""
    return [r for op in ops if (r := apply(sim, op)) is not None]


def replay_batched(sim: Simulator, ops: list[Op]) -> list[dict[str, Any]]:
    """:func:`replay` with each run of schedule and delete ops given to one
    :meth:`Simulator.replay` call (a run is cut before a pod it schedules again)."""
    results: list[dict[str, Any]] = []
    run: list[tuple[str, str]] = []
    for op in ops:
        again = op["op"] == "schedule" and ("schedule", op["pod"]) in run
        if run and (again or op["op"] not in ("schedule", "delete")):
            results += sim.replay(run, scores="all").to_dict()["results"]
            run = []
        if op["op"] in ("schedule", "delete"):
            run.append((op["op"], op["pod"]))
        else:
            apply(sim, op)
    if run:
        results += sim.replay(run, scores="all").to_dict()["results"]
    return results


# --- the script -----------------------------------------------------------------------------


class _Script:
    """Draws ops from what kscore's simulator says, performing each as it goes."""

    def __init__(self, sc: Scenario, sim: Simulator, ops: Iterable[str], rng: random.Random):
        self.sim, self.rng, self.enabled = sim, rng, set(ops)
        self.ops: list[Op] = []
        self.results: list[dict[str, Any]] = []
        objs = sc.objects
        self.nodes = {o["metadata"]["name"]: o for o in objs if o["kind"] == "Node"}
        #: zone key -> node names in add order (the node tree, for choosing nodes)
        self.tree: dict[str, list[str]] = {}
        for name, node in self.nodes.items():
            self.tree.setdefault(_zone_key(node), []).append(name)
        self.removed: dict[str, Obj] = {}
        self.later_nodes, self.later_pods = list(sc.later_nodes), list(sc.later_pods)
        pods = [o for o in objs if o["kind"] == "Pod"]
        self.bound = {pod_name(o): o["spec"]["nodeName"] for o in pods
                      if o["spec"].get("nodeName") in self.nodes
                      and o["status"].get("phase") not in ("Succeeded", "Failed")}  # fmt: skip
        self.existing = set(self.bound)
        pending = [o for o in pods if not o["spec"].get("nodeName")
                   and not o["metadata"].get("deletionTimestamp")]  # fmt: skip
        self.queue = [pod_name(o) for o in sorted(pending, key=_priority)]
        self.priority = {pod_name(o): _priority(o) for o in pending}
        self.failed: list[str] = []
        #: every pod object by name (initial, held back, added)
        self.objects = {pod_name(o): o for o in [*pods, *self.later_pods]}
        #: how many events of each kind were drawn (a flap is one removeNode and one addNode
        #: op), and of each variant ("delete existing", "removeNode last", ...)
        self.drawn: dict[str, int] = {}

    def run(self, max_ops: int) -> None:
        while len(self.ops) < max_ops:
            choices = {k: w for k, w in WEIGHTS.items() if k in self.enabled and self._can(k)}
            if not choices:
                return
            kind = self.rng.choices(list(choices), list(choices.values()))[0]
            self._count(kind)
            {"schedule": self._schedule, "delete": self._delete, "addNode": self._add_node,
             "removeNode": lambda: self._remove_node(self._pick_node()), "flap": self._flap,
             "addPod": self._add_pod}[kind]()  # fmt: skip

    def _can(self, kind: str) -> bool:
        return {
            "schedule": bool(self.queue),
            "delete": bool(self.bound or self.queue or self.failed),
            "addNode": bool(self.later_nodes or self.removed),
            "removeNode": len(self.nodes) > 1 or (bool(self.nodes) and self.rng.random() < 0.15),
            "flap": bool(self.nodes),
            "addPod": bool(self._addable()),
        }[kind]

    def _count(self, what: str) -> None:
        self.drawn[what] = self.drawn.get(what, 0) + 1

    def _addable(self) -> list[int]:
        """The held-back pods that may be added now: a bound one needs a present node
        to be moved to, unless podOnAbsentNode is enabled."""
        anywhere = bool(self.nodes) or "podOnAbsentNode" in self.enabled
        later = enumerate(self.later_pods)
        return [i for i, p in later if anywhere or not p["spec"].get("nodeName")]

    def _do(self, op: Op) -> None:
        self.ops.append(op)
        result = apply(self.sim, op)
        if result is not None:
            self.results.append(result)

    def _cluster_event(self) -> None:
        """Pods that fit nowhere are queued again (kube-scheduler moves them back to
        the active queue on cluster events)."""
        self.queue += self.failed
        self.failed = []

    def _schedule(self) -> None:
        pod = self.queue.pop(0)
        op: Op = {"op": "schedule", "pod": pod}
        if self.rng.random() < 0.2:
            op["bind"] = "schedule_and_bind"  # kscore's side only; goref ignores it
        self._do(op)
        host = self.results[-1]["host"]
        if host is None:
            self.failed.append(pod)
        else:
            self.bound[pod] = host

    def _delete(self) -> None:
        kinds = [k for k, pods in (("bound", [p for p in self.bound if p not in self.existing]),
                                   ("existing", self.existing & set(self.bound)),
                                   ("pending", self.queue + self.failed)) if pods]  # fmt: skip
        kind = self.rng.choice(kinds)
        self._count(f"delete {kind}")
        if kind == "pending":
            pod = self.rng.choice(self.queue + self.failed)
            self.queue = [p for p in self.queue if p != pod]
            self.failed = [p for p in self.failed if p != pod]
        else:
            pod = self.rng.choice(sorted(p for p in self.bound if (p in self.existing)
                                         == (kind == "existing")))  # fmt: skip
            del self.bound[pod]
        self.existing.discard(pod)
        self._do({"op": "delete", "pod": pod})
        self._cluster_event()
        if "addPod" in self.enabled and self.rng.random() < 0.3:  # its name comes back, pending
            again = copy.deepcopy(self.objects[pod])
            again["spec"].pop("nodeName", None)
            again["metadata"].pop("deletionTimestamp", None)
            again["status"] = {"phase": "Pending"}
            self.later_pods.append(again)

    def _add_node(self, node: Obj | None = None) -> None:
        if node is None:
            if self.removed and (not self.later_nodes or self.rng.random() < 0.5):
                node = self.removed.pop(self.rng.choice(sorted(self.removed)))
                self._count("addNode again")
                if self.rng.random() < 0.3:
                    node = _moved(node, self.rng, list(self.tree))
                    self._count("addNode again, zone changed")
            else:
                node = self.later_nodes.pop(self.rng.randrange(len(self.later_nodes)))
        if _zone_key(node) not in self.tree:
            self._count("addNode in a new zone")
        name = node["metadata"]["name"]
        self.nodes[name] = node
        self.tree.setdefault(_zone_key(node), []).append(name)
        self._do({"op": "addNode", "node": node})
        self._cluster_event()

    def _remove_node(self, name: str) -> Obj:
        node = self.nodes.pop(name)
        zone = self.tree[_zone_key(node)]
        zone.remove(name)
        if not zone:
            del self.tree[_zone_key(node)]
        self.removed[name] = node
        if name in self.bound.values():
            self._count("removeNode holding pods")
        self._do({"op": "removeNode", "node": name})
        return node

    def _pick_node(self) -> str:
        """The first node of a zone, the last node of a zone, a node holding pods or
        any node."""
        holding = sorted({n for n in self.bound.values() if n in self.nodes})
        singles = sorted(z for z, names in self.tree.items() if len(names) == 1)
        way = self.rng.choice(["first", "last", "holding", "any"])
        if way == "first":
            name = self.tree[self.rng.choice(sorted(self.tree))][0]
        elif way == "last" and singles:
            name = self.tree[self.rng.choice(singles)][0]
        elif way == "holding" and holding:
            name = self.rng.choice(holding)
        else:
            way, name = "any", self.rng.choice(sorted(self.nodes))
        self._count(f"removeNode pick: {way}")
        return name

    def _flap(self) -> None:
        """A node removed and added back at once (same object): no cycle in between."""
        node = self._remove_node(self._pick_node())
        del self.removed[node["metadata"]["name"]]
        self._add_node(node)

    def _add_pod(self) -> None:
        pod = copy.deepcopy(self.later_pods.pop(self.rng.choice(self._addable())))
        name = pod_name(pod)
        self.objects[name] = pod
        node = pod["spec"].get("nodeName")
        if node:
            if node not in self.nodes and "podOnAbsentNode" not in self.enabled:
                pod["spec"]["nodeName"] = node = self.rng.choice(sorted(self.nodes))
            self._count("addPod bound" + ("" if node in self.nodes else " to an absent node"))
            self.bound[name] = node
            self.existing.add(name)
        else:
            self._count("addPod pending")
            self.priority[name] = _priority(pod)
            at = len(self.queue)  # after the queued pods of the same or higher priority
            while at > 0 and self.priority[self.queue[at - 1]] > self.priority[name]:
                at -= 1
            self.queue.insert(at, name)
        self._do({"op": "addPod", "pod": pod})


def _priority(pod: Obj) -> int:
    return -(pod["spec"].get("priority") or 0)


def _moved(node: Obj, rng: random.Random, zones: list[str]) -> Obj:
    """``node`` with another zone label (a known zone's, a new one or none)."""
    node = copy.deepcopy(node)
    labels = node["metadata"].setdefault("labels", {})
    choice = rng.choice(["new", "none", *[z.split(":\x00:")[-1] for z in zones if z]])
    labels.pop(ZONE, None)
    if choice == "new":
        labels[ZONE] = f"zone-new-{rng.randrange(3)}"
    elif choice != "none":
        labels[ZONE] = choice
    return node


def draw_script(sc: Scenario, sim: Simulator, ops: Iterable[str], max_ops: int = 80) -> _Script:
    """A random script of the enabled ``ops``, performed on ``sim`` while drawn (its
    ``ops``, kscore's ``results`` of its schedule ops, the events ``drawn`` per kind)."""
    script = _Script(sc, sim, ops, random.Random(sc.seed * 31 + 17))
    script.run(max_ops)
    return script


# --- goref's side and the comparison ----------------------------------------------------------


def run_goref_events(cluster: Path, config: Path, ops: list[Op], seed: int, tmp: Path
                     ) -> tuple[list[dict[str, Any]], str | None]:  # fmt: skip
    """goref's results of the schedule ops, and its error (then the results of the ops
    before the one it refused: goref is run again on them)."""
    events = tmp / f"events-{seed}.jsonl"
    events.write_text("".join(json.dumps({k: v for k, v in op.items() if k in GOREF_KEYS}) + "\n"
                              for op in ops))  # fmt: skip
    cmd = [str(GOREF), "simulate", str(cluster), "--quiet", "--config", str(config), "--seed",
           str(seed), "--plugin-metrics-draw", "--events", str(events)]  # fmt: skip
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if proc.returncode == 0:
        return json.loads(proc.stdout)["results"], None
    error = proc.stderr.strip()
    m = re.search(r"--events: line (\d+) ", error)
    if not m or int(m.group(1)) <= 1:
        raise RuntimeError(f"goref failed ({proc.returncode}): {error}")
    results, _ = run_goref_events(cluster, config, ops[: int(m.group(1)) - 1], seed, tmp)
    return results, error


def differences(ours: list[dict[str, Any]], go: list[dict[str, Any]]) -> list[str]:
    """Per schedule op (numbered from 0): every difference of pod, host, counts, error
    and scores (only pod and host for a schedule_and_bind op), up to goref's first slow
    cycle (:func:`benchmarks.timing.timing_free`)."""
    diffs = []
    n = timing_free(go)
    for i, (k, g) in enumerate(zip(ours[:n], go[:n], strict=False)):
        if "scores" not in k:
            lines = (
                []
                if (k["pod"], k["host"]) == (g["pod"], g["host"])
                else [f"{k['pod']}: host {k['host']!r} != go {g['pod']} on {g['host']!r}"]
            )
        else:
            lines = compare({"results": [k]}, {"results": [g]})
            host = f"{k['pod']}: host {k['host']!r} != go {g['host']!r}"
            if k["host"] != g["host"] and host not in lines:
                lines.append(host)
        diffs += [f"cycle {i}: {line}" for line in lines]
    if len(ours) != len(go):
        diffs.append(f"{len(ours)} schedule results, go {len(go)}")
    return diffs


def check_scenario(family: str, seed: int, ops: Iterable[str], tmp: Path, max_ops: int = 80,
                   **sizes: int) -> tuple[list[str], dict[str, int]]:  # fmt: skip
    """Draw a scenario and a script, run both sides (kscore's call by call, and again
    with :func:`replay_batched`): the difference lines and how many events of each kind
    the script had."""
    ops = tuple(ops)
    sc = scenario(family, seed, ops, **sizes)
    cluster, config = write_inputs(sc, sc.objects, tmp)
    script = draw_script(sc, new_simulator(cluster, config, seed), ops, max_ops)
    go, error = run_goref_events(cluster, config, script.ops, seed, tmp)
    diffs = differences(script.results, go)
    batched = replay_batched(new_simulator(cluster, config, seed), script.ops)
    diffs += [f"Simulator.replay: {line}" for line in differences(batched, go)]
    if error:
        diffs.append(f"goref refused the script: {error}")
    return diffs, script.drawn


def replay_differences(sc: Scenario, objects: list[Obj], ops: list[Op], tmp: Path) -> list[str]:
    """Run a fixed script on both sides from ``objects``: the difference lines, [] also
    when either side refuses the script (it is not valid for that cluster)."""
    cluster, config = write_inputs(sc, objects, tmp)
    try:
        ours = replay(new_simulator(cluster, config, sc.seed), ops)
        go, error = run_goref_events(cluster, config, ops, sc.seed, tmp)
    except Exception:  # an invalid candidate of the minimizer
        return []
    return [] if error else differences(ours, go)
