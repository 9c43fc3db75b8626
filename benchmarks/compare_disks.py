"""VolumeRestrictions and the volume limits on a disk-heavy cluster: Go and kscore_fast
side by side, in one run.

    python benchmarks/compare_disks.py [--nodes 1000] [--pods 2000] [--rounds 3]

The cluster (generated): nodes with ``attachable-volumes-*`` allocatable and a CSINode
each (driver counts, some with GCE PD migrated); every pod, bound (2 a node) or pending,
holds 1-3 volumes: inline GCE PDs and EBS volumes (names from a pool, some read-only) and
claims bound to CSI PersistentVolumes. The profile: v1.23.6's default (v1beta3) without
VolumeBinding (not simulated yet). Every pod is pending in ``simulate``'s sequence.

Go: ``goref simbench`` (the real scheduler: ``Schedule``, then assume, per pod). kscore:
``api.simulate`` with Go's tie-breaks, placements only (``scores="none"``: simbench keeps
no scores and no reasons either; keeping every rejected node's reasons costs ~500 µs/pod
here), with the disk plugins and without them (the same profile with the five disabled:
what they cost). The best round of each; µs per pod.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kscore_fast.api import load_cluster, simulate  # noqa: E402

GOREF = ROOT / "benchmarks" / "goref" / "bin" / "goref"
DISK_PLUGINS = ("VolumeRestrictions", "NodeVolumeLimits", "EBSLimits", "GCEPDLimits",
                "AzureDiskLimits")  # fmt: skip
DRIVER = "pd.csi.storage.gke.io"


def config(disabled: tuple[str, ...]) -> dict[str, Any]:
    off = [{"name": n} for n in ("VolumeBinding", *disabled)]
    return {"apiVersion": "kubescheduler.config.k8s.io/v1beta3",
            "kind": "KubeSchedulerConfiguration",
            "profiles": [{"schedulerName": "default-scheduler",
                          "plugins": {"multiPoint": {"disabled": off}}}]}  # fmt: skip


def _volumes(rng: random.Random, i: int, ns: str, objs: list[dict[str, Any]]) -> list[dict]:
    vols = []
    for k in range(rng.randint(1, 3)):
        shape, name = rng.random(), f"d{rng.randrange(5000)}"
        if shape < 0.35:
            src: dict[str, Any] = {
                "gcePersistentDisk": {"pdName": name, "readOnly": rng.random() < 0.3}
            }
        elif shape < 0.6:
            src = {"awsElasticBlockStore": {"volumeID": f"vol-{name}"}}
        else:
            claim = f"c{i}-{k}"
            objs.append(
                {
                    "apiVersion": "v1",
                    "kind": "PersistentVolume",
                    "metadata": {"name": f"pv-{claim}"},
                    "spec": {"csi": {"driver": DRIVER, "volumeHandle": claim}},
                }
            )
            objs.append({"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                         "metadata": {"name": claim, "namespace": ns},
                         "spec": {"volumeName": f"pv-{claim}"}})  # fmt: skip
            src = {"persistentVolumeClaim": {"claimName": claim}}
        vols.append({"name": f"v{k}", **src})
    return vols


def cluster(n_nodes: int, n_pods: int, seed: int = 1) -> list[dict[str, Any]]:
    rng, objs = random.Random(seed), []
    for n in range(n_nodes):
        alloc = {"cpu": "64", "memory": "256Gi", "pods": "110",
                 "attachable-volumes-aws-ebs": str(rng.randint(8, 39))}  # fmt: skip
        objs.append(
            {
                "apiVersion": "v1",
                "kind": "Node",
                "metadata": {"name": f"n{n}"},
                "status": {"allocatable": alloc},
            }
        )
        notes = {"storage.alpha.kubernetes.io/migrated-plugins": "kubernetes.io/gce-pd"}
        objs.append(
            {
                "apiVersion": "storage.k8s.io/v1",
                "kind": "CSINode",
                "metadata": {
                    "name": f"n{n}",
                    **({"annotations": notes} if rng.random() < 0.3 else {}),
                },
                "spec": {
                    "drivers": [
                        {
                            "name": DRIVER,
                            "nodeID": f"n{n}",
                            "allocatable": {"count": rng.randint(4, 16)},
                        }
                    ]
                },
            }
        )
    for i in range(2 * n_nodes + n_pods):
        bound = i < 2 * n_nodes
        spec: dict[str, Any] = {"containers": [{"name": "c", "image": "app", "resources": {
            "requests": {"cpu": "100m", "memory": "128Mi"}}}],
            "volumes": _volumes(rng, i, "default", objs)}  # fmt: skip
        if bound:
            spec["nodeName"] = f"n{i // 2}"
        objs.append(
            {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {"name": f"p{i}", "namespace": "default"},
                "spec": spec,
            }
        )
    return objs


def kscore_us(path: Path, cfg: Path, n_pods: int) -> float:
    c = load_cluster([path])
    t = time.perf_counter()
    simulate(c, config=cfg, seed=1, tie_break="go-rand", scores="none")
    return (time.perf_counter() - t) / n_pods * 1e6


def go_us(path: Path, cfg: Path) -> float:
    out = subprocess.run([str(GOREF), "simbench", str(path), "--config", str(cfg), "--seed",
                          "1", "--plugin-metrics-draw", "--runs", "1", "--json"],
                         capture_output=True, text=True, check=True).stdout  # fmt: skip
    return json.loads(out)["minNsPerPod"] / 1e3


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--nodes", type=int, default=1000)
    ap.add_argument("--pods", type=int, default=2000)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp())
    path = work / "disks.json"
    path.write_text(
        json.dumps({"apiVersion": "v1", "kind": "List", "items": cluster(args.nodes, args.pods)})
    )
    cfgs = {}
    for label, off in (("with", ()), ("without", DISK_PLUGINS)):
        cfgs[label] = work / f"{label}.yaml"
        cfgs[label].write_text(yaml.safe_dump(config(off)))
    best: dict[str, float] = {}
    for _ in range(args.rounds):
        runs = {"go": lambda: go_us(path, cfgs["with"])}
        for label, cfg in cfgs.items():
            runs[f"kscore {label} the disk plugins"] = lambda cfg=cfg: kscore_us(
                path, cfg, args.pods
            )
        for name, run in runs.items():
            best[name] = min(best.get(name, float("inf")), run())
    print(f"| {args.nodes} nodes, {args.pods} pending pods | µs/pod |\n|---|---:|")
    for name, us in best.items():
        print(f"| {name} | {us:.1f} |")
    print(f"| Go / kscore (with) | {best['go'] / best['kscore with the disk plugins']:.1f}× |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
