"""VolumeBinding's storage capacity check on a cluster of CSI drivers that publish
CSIStorageCapacity objects: Go and kscore_fast side by side, in one run.

    python benchmarks/compare_capacity.py [--nodes 500] [--pods 200] [--rounds 2]

The cluster (generated): nodes in three zones; a local CSI driver publishing one
CSIStorageCapacity per node (0-100Gi, some with a ``maximumVolumeSize``), a zonal one
publishing one per zone, and a third driver without capacity tracking; every pending pod
holds 1-3 WaitForFirstConsumer claims of 1-60Gi, of the three classes. The profile:
v1.23.6's default (v1beta3). Every pod is pending in ``simulate``'s sequence.

Go: ``goref simbench`` (the real scheduler: ``Schedule``, then assume, per pod). kscore:
``api.simulate`` with Go's tie-breaks; and the same cluster with the drivers'
``storageCapacity`` false (no check: what the check costs). The best round of each; µs
per pod. Go lists every CSIStorageCapacity object for each claim on each node it
filters (binder.go's ``hasEnoughCapacity``, a TODO there), so its time grows with nodes
× objects: hence the small default shape.
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

from benchmarks.compare_disks import go_us, kscore_us  # noqa: E402

ZONE, HOST = "topology.kubernetes.io/zone", "kubernetes.io/hostname"
#: class → (driver, whether it tracks capacity)
CLASSES = {"local": ("local.csi.example.com", True), "zonal": ("zonal.csi.example.com", True),
           "plain": ("plain.csi.example.com", False)}  # fmt: skip
CONFIG = {"apiVersion": "kubescheduler.config.k8s.io/v1beta3",
          "kind": "KubeSchedulerConfiguration"}  # fmt: skip


def _storage(n_nodes: int, rng: random.Random, tracked: bool) -> list[dict[str, Any]]:
    objs: list[dict[str, Any]] = []
    for cls, (driver, tracks) in CLASSES.items():
        objs.append({"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
                     "metadata": {"name": cls}, "provisioner": driver,
                     "volumeBindingMode": "WaitForFirstConsumer"})  # fmt: skip
        objs.append({"apiVersion": "storage.k8s.io/v1", "kind": "CSIDriver",
                     "metadata": {"name": driver},
                     "spec": {"storageCapacity": tracks and tracked}})  # fmt: skip
    topologies = [("local", {HOST: f"n{i}"}) for i in range(n_nodes)]
    topologies += [("zonal", {ZONE: z}) for z in "abc"]
    for i, (cls, labels) in enumerate(topologies):
        cap: dict[str, Any] = {
            "apiVersion": "storage.k8s.io/v1beta1", "kind": "CSIStorageCapacity",
            "metadata": {"name": f"csisc-{i}", "namespace": "kube-system"},
            "storageClassName": cls, "nodeTopology": {"matchLabels": labels},
            "capacity": f"{rng.randint(0, 100) if cls == 'local' else 40}Gi",
        }  # fmt: skip
        if rng.random() < 0.2:
            cap["maximumVolumeSize"] = f"{rng.randint(10, 60)}Gi"
        objs.append(cap)
    return objs


def cluster(n_nodes: int, n_pods: int, tracked: bool, seed: int = 1) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    objs: list[dict[str, Any]] = [
        {"apiVersion": "v1", "kind": "Node",
         "metadata": {"name": f"n{i}", "labels": {HOST: f"n{i}", ZONE: "abc"[i % 3]}},
         "status": {"allocatable": {"cpu": "64", "memory": "256Gi", "pods": "110"}}}
        for i in range(n_nodes)
    ]  # fmt: skip
    objs += _storage(n_nodes, rng, tracked)
    for j in range(n_pods):
        volumes = []
        for k in range(rng.randint(1, 3)):
            name = f"p{j}-data{k}"
            objs.append({"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                         "metadata": {"name": name, "namespace": "default"},
                         "spec": {"storageClassName": rng.choice(list(CLASSES)),
                                  "accessModes": ["ReadWriteOnce"],
                                  "resources": {"requests": {
                                      "storage": f"{rng.randint(1, 60)}Gi"}}}})  # fmt: skip
            volumes.append({"name": f"v{k}", "persistentVolumeClaim": {"claimName": name}})
        objs.append({"apiVersion": "v1", "kind": "Pod",
                     "metadata": {"name": f"p{j}", "namespace": "default"},
                     "spec": {"containers": [{"name": "c", "image": "app", "resources": {
                         "requests": {"cpu": "100m", "memory": "128Mi"}}}],
                              "volumes": volumes}})  # fmt: skip
    return objs


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--nodes", type=int, default=500)
    ap.add_argument("--pods", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp())
    cfg = work / "config.yaml"
    cfg.write_text(yaml.safe_dump(CONFIG))
    paths = {}
    for label, tracked in (("with", True), ("without", False)):
        paths[label] = work / f"{label}.json"
        items = cluster(args.nodes, args.pods, tracked)
        paths[label].write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
    runs = {"go": lambda: go_us(paths["with"], cfg),
            "kscore with the capacity check": lambda: kscore_us(paths["with"], cfg, args.pods),
            "kscore without (storageCapacity false)":
                lambda: kscore_us(paths["without"], cfg, args.pods)}  # fmt: skip
    times: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(args.rounds):  # (alternating: the machine's load is shared alike)
        for name, run in runs.items():
            times[name].append(run())
    best = {name: min(ts) for name, ts in times.items()}
    ratio = best["go"] / best["kscore with the capacity check"]
    print(f"| {args.nodes} nodes, {args.pods} pending pods | µs/pod |\n|---|---:|")
    print("\n".join(f"| {name} | {us:.1f} |" for name, us in best.items()))
    print(f"| Go / kscore (with) | {ratio:.1f}× |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
