"""Keep the fields of the dumped Go objects that InterPodAffinity reads (make_upstream.sh)."""

from __future__ import annotations

import json
import sys


def _meta(obj: dict) -> dict:
    meta = obj.get("metadata") or {}
    return {k: meta[k] for k in ("name", "namespace", "labels") if meta.get(k)}


def _compact(value):
    if isinstance(value, list):
        return [_compact(v) for v in value]
    if isinstance(value, dict) and "metadata" in value:
        out = _meta(value)
        spec = value.get("spec") or {}
        for k in ("nodeName", "affinity"):
            if spec.get(k):
                out[k] = spec[k]
        return out
    if isinstance(value, dict):
        return {k: _compact(v) for k, v in value.items()}
    return value


def main(src: str, dst: str) -> None:
    with open(src) as f:
        data = json.load(f)
    with open(dst, "w") as f:
        json.dump(_compact(data), f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main(*sys.argv[1:])
