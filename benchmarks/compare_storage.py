"""A storage-heavy cluster under the whole default profile: Go and kscore_fast side by
side, in one run, in ``score`` (the batch) and in ``simulate``.

    python benchmarks/compare_storage.py [--nodes 2000] [--pods 2000] [--rounds 2]
                                         [--percentage 0] [--free-volumes 100] [--json FILE]

The cluster (generated, issue 29's shape): ``--nodes`` nodes in three zones, each with a
CSINode (the GCE PD CSI driver's attach limit); one bound pod per node holding 1-2 bound
claims; ``--pods`` pending pods, each with 1-3 PersistentVolumeClaims, half of them
unbound claims of a WaitForFirstConsumer class (provisioned by the CSI driver, or bound to
one of ``--free-volumes`` available zonal volumes of the class), half bound to zonal CSI
PersistentVolumes (zone labels and required node affinity; a pod's in one zone). The
profile: kube-scheduler v1.23.6's default (v1beta3, every volume plugin on) at
``percentageOfNodesToScore`` ``--percentage``. (Go's VolumeBinding lists every volume of a
claim's class on every node it filters: its time grows with ``--free-volumes``.)

Go (the real scheduler): ``goref schedbench`` (``Schedule`` per pod, nothing assumed, as
the batch scores) and ``goref simbench`` (``Schedule`` then assume, per pod, Go's
tie-breaks). kscore_fast: the batch through the framework (its preparation timed,
loading not), and ``api.simulate`` with ``tie_break="go-rand"``. Go and kscore alternate
for ``--rounds`` rounds and the best time of each is kept; µs per pending pod and the
ratio. Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.compare_disks import go_us as go_simulate_us  # noqa: E402
from benchmarks.compare_disks import kscore_us as kscore_simulate_us  # noqa: E402
from benchmarks.compare_go import machine  # noqa: E402
from benchmarks.compare_profile import go_us_per_pod, kscore_batch  # noqa: E402
from benchmarks.timing import best_of  # noqa: E402

GOREF = ROOT / "benchmarks" / "goref" / "bin" / "goref"
DRIVER = "pd.csi.storage.gke.io"
ZONE = "topology.kubernetes.io/zone"
ZONES = ("z0", "z1", "z2")
WFFC, BOUND = "ssd-wffc", "ssd"


def config(percentage: int) -> dict[str, Any]:
    return {"apiVersion": "kubescheduler.config.k8s.io/v1beta3",
            "kind": "KubeSchedulerConfiguration",
            "percentageOfNodesToScore": percentage}  # fmt: skip


def _node(n: int, rng: random.Random, attach: tuple[int, int]) -> list[dict[str, Any]]:
    zone = ZONES[n % len(ZONES)]
    labels = {"kubernetes.io/hostname": f"n{n}", ZONE: zone}
    alloc = {"cpu": "64", "memory": "256Gi", "pods": "110"}
    driver = {"name": DRIVER, "nodeID": f"n{n}", "allocatable": {"count": rng.randint(*attach)}}
    return [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": f"n{n}", "labels": labels},
             "status": {"allocatable": alloc}},
            {"apiVersion": "storage.k8s.io/v1", "kind": "CSINode", "metadata": {"name": f"n{n}"},
             "spec": {"drivers": [driver]}}]  # fmt: skip


def _zonal(zone: str) -> dict[str, Any]:
    term = {"matchExpressions": [{"key": ZONE, "operator": "In", "values": [zone]}]}
    return {"required": {"nodeSelectorTerms": [term]}}


def _volume(name: str, cls: str, size_mi: int, zone: str, claim: dict | None) -> dict[str, Any]:
    spec: dict[str, Any] = {"capacity": {"storage": f"{size_mi}Mi"},
                            "accessModes": ["ReadWriteOnce"], "storageClassName": cls,
                            "csi": {"driver": DRIVER, "volumeHandle": name},
                            "nodeAffinity": _zonal(zone)}  # fmt: skip
    if claim is not None:
        spec["claimRef"] = {"kind": "PersistentVolumeClaim", **claim}
    phase = "Bound" if claim is not None else "Available"
    return {"apiVersion": "v1", "kind": "PersistentVolume",
            "metadata": {"name": name, "labels": {ZONE: zone}}, "spec": spec,
            "status": {"phase": phase}}  # fmt: skip


def _claim(name: str, cls: str, size_mi: int, volume: str | None) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "namespace": "default"}
    spec: dict[str, Any] = {"accessModes": ["ReadWriteOnce"], "storageClassName": cls,
                            "resources": {"requests": {"storage": f"{size_mi}Mi"}}}  # fmt: skip
    status: dict[str, Any] = {}
    if volume is not None:
        meta["annotations"] = {"pv.kubernetes.io/bind-completed": "yes"}
        spec["volumeName"], status["phase"] = volume, "Bound"
    else:
        status["phase"] = "Pending"
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": meta,
            "spec": spec, "status": status}  # fmt: skip


def _claims(pod: str, k: int, wffc: float, rng: random.Random, objs: list) -> list[dict]:
    """``k`` claims of pod ``pod`` (a fraction ``wffc`` of them unbound WFFC ones) and
    their volumes (in one zone), appended to ``objs``; the pod's volumes."""
    vols, zone = [], rng.choice(ZONES)
    for j in range(k):
        name, size = f"{pod}-data{j}", rng.randint(1, 100) * 1024
        if rng.random() < wffc:
            objs.append(_claim(name, WFFC, size, None))
        else:
            ref = {"namespace": "default", "name": name}
            objs.append(_volume(f"pv-{name}", BOUND, size, zone, ref))
            objs.append(_claim(name, BOUND, size, f"pv-{name}"))
        vols.append({"name": f"v{j}", "persistentVolumeClaim": {"claimName": name}})
    return vols


def _pod(name: str, vols: list[dict], node: str | None) -> dict[str, Any]:
    spec: dict[str, Any] = {"containers": [{"name": "c", "image": "db", "resources": {
        "requests": {"cpu": "250m", "memory": "512Mi"}}}], "volumes": vols}  # fmt: skip
    if node is not None:
        spec["nodeName"] = node
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "default", "labels": {"app": "db"}},
            "spec": spec}  # fmt: skip


def storage_cluster(n_nodes: int, n_pods: int, n_free: int = 100, seed: int = 1,
                    attach: tuple[int, int] = (16, 39)) -> list[dict[str, Any]]:  # fmt: skip
    """Issue 29's storage-heavy shape (see the module's docstring), with ``n_free``
    available volumes of the WaitForFirstConsumer class and CSI attach limits in
    ``attach``."""
    rng = random.Random(seed)
    objs: list[dict[str, Any]] = []
    for n in range(n_nodes):
        objs += _node(n, rng, attach)
    for name, mode in ((WFFC, "WaitForFirstConsumer"), (BOUND, "Immediate")):
        objs.append({"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
                     "metadata": {"name": name}, "provisioner": DRIVER,
                     "volumeBindingMode": mode})  # fmt: skip
    # available volumes of the WFFC class, of distinct sizes (Go picks equal ones at random)
    sizes = rng.sample(range(1024, 100 * 1024), n_free)
    objs += [_volume(f"pv-free{i}", WFFC, s, rng.choice(ZONES), None) for i, s in enumerate(sizes)]
    for n in range(n_nodes):
        vols = _claims(f"bound{n}", rng.randint(1, 2), 0.0, rng, objs)
        objs.append(_pod(f"bound{n}", vols, f"n{n}"))
    for i in range(n_pods):
        objs.append(_pod(f"p{i}", _claims(f"p{i}", rng.randint(1, 3), 0.5, rng, objs), None))
    return objs


def measure(path: Path, cfg: Path, n_pods: int, rounds: int) -> dict[str, float]:
    """The best µs per pending pod of each, Go and kscore alternating."""
    run, n = kscore_batch(path, cfg)
    kscore_simulate_us(path, cfg, n)  # compile or load the kernel cache
    best = dict.fromkeys(("go score", "kscore score", "go simulate", "kscore simulate"),
                         float("inf"))  # fmt: skip
    for _ in range(rounds):
        runs = {"go score": lambda: go_us_per_pod(path, cfg),
                "kscore score": lambda: best_of(run, 2) * 1e6 / n,
                "go simulate": lambda: go_simulate_us(path, cfg),
                "kscore simulate": lambda: kscore_simulate_us(path, cfg, n)}  # fmt: skip
        for name, fn in runs.items():
            best[name] = min(best[name], fn())
    return best


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--nodes", type=int, default=2000)
    ap.add_argument("--pods", type=int, default=2000)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--percentage", type=int, default=0)
    ap.add_argument("--free-volumes", type=int, default=100)
    ap.add_argument("--json", metavar="FILE")
    args = ap.parse_args()
    if not GOREF.exists():
        print(f"{GOREF} missing: run benchmarks/goref/build.sh", file=sys.stderr)
        return 1
    work = Path(tempfile.mkdtemp(prefix="kscore-storage-"))
    path, cfg = work / "storage.json", work / "config.yaml"
    items = storage_cluster(args.nodes, args.pods, args.free_volumes)
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
    cfg.write_text(yaml.safe_dump(config(args.percentage)))
    best = measure(path, cfg, args.pods, args.rounds)
    print(f"machine: {machine()}\n")
    print(f"| {args.nodes} nodes, {args.pods} pending pods with 1-3 claims | Go µs/pod | "
          "kscore µs/pod | Go / kscore |\n|---|---:|---:|---:|")  # fmt: skip
    for mode in ("score", "simulate"):
        go, ks = best[f"go {mode}"], best[f"kscore {mode}"]
        print(f"| {mode} | {go:,.1f} | {ks:,.1f} | {go / ks:,.1f}× |")
    if args.json:
        Path(args.json).write_text(json.dumps({"machine": machine(), **vars(args), **best}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
