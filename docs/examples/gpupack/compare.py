"""The default profile against the default profile with GpuPacking, side by side, on an
openb trace: pods scheduled one after the other (``kscore_fast.simulate``), then the GPUs
each run left idle.

    PYTHONPATH=docs/examples/gpupack python docs/examples/gpupack/compare.py [DIR] [--weight W]

``DIR``: manifests as ``kscore import openb`` writes them (default: the openb sample in
``data/openb-sample/manifests``; ``kscore import openb NODES.csv PODS.csv -o DIR`` makes
a larger one). Prints a Markdown table: pods placed and pending, GPUs requested, GPU
nodes in use, and the fragmented GPUs (idle GPUs on nodes that also run GPU pods: what a
whole-GPU pod of more GPUs than any node has idle cannot use).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import kscore_fast as ks

ROOT = Path(__file__).resolve().parents[3]
SAMPLE = ROOT / "data" / "openb-sample" / "manifests"

WITH_PACKING = """apiVersion: kubescheduler.config.k8s.io/v1beta3
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    score:
      enabled:
      - name: GpuPacking
        weight: {weight}
"""


def gpu_use(cluster: ks.Cluster, result: ks.ScoreResult) -> dict[str, int]:
    """What the placements of ``result`` leave on the GPU nodes."""
    from gpupack.reference import node_gpus, pod_gpus

    nodes = {n.name: n for n in cluster.snapshot.nodes}
    used = dict.fromkeys(nodes, 0)
    pods = {p.key: p for p in cluster.batch.pods}
    for pod, host in zip(result.pod_names, result.host_names, strict=True):
        if host is not None:
            used[host] += pod_gpus(pods[pod])
    gpus = {name: node_gpus(n) for name, n in nodes.items()}
    busy = [n for n in nodes if gpus[n] and used[n]]
    return {
        "placed": sum(h is not None for h in result.host_names),
        "pending": sum(h is None for h in result.host_names),
        "gpus requested": sum(pod_gpus(p) for p in cluster.batch.pods),
        "GPU nodes in use": len(busy),
        "fragmented GPUs": sum(gpus[n] - used[n] for n in busy),
        "idle GPUs": sum(gpus[n] - used[n] for n in nodes),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir", nargs="?", type=Path, default=SAMPLE)
    ap.add_argument("--weight", type=int, default=5)
    args = ap.parse_args()
    from gpupack import GpuPacking

    ks.register_plugin(GpuPacking)  # (pip install docs/examples/gpupack: found by name)
    cluster = ks.load_cluster([args.dir])
    rows = {}
    with tempfile.TemporaryDirectory() as tmp:
        config = Path(tmp) / "packing.yaml"
        config.write_text(WITH_PACKING.format(weight=args.weight))
        for name, cfg in (("default profile", None), ("+ GpuPacking", str(config))):
            ks.simulate(cluster, config=cfg, scores="none")  # (compiled or loaded first)
            t0 = time.perf_counter()
            result = ks.simulate(cluster, config=cfg, scores="none", tie_break="go-rand")
            rows[name] = {**gpu_use(cluster, result), "seconds": time.perf_counter() - t0}
    print(
        f"{len(cluster.snapshot.nodes)} nodes, {len(cluster.batch)} pods, GpuPacking weight "
        f"{args.weight}\n"
    )
    print("| | " + " | ".join(rows) + " |\n|---|" + "---|" * len(rows))
    for key in next(iter(rows.values())):
        cells = [f"{r[key]:.2f}" if key == "seconds" else f"{r[key]:,}" for r in rows.values()]
        print(f"| {key} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
