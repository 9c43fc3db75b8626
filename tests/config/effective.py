"""One shape for kscore's and Go's view of a configuration file: ``goref config``'s JSON.

``{"apiVersion", "parallelism", "percentageOfNodesToScore", "podInitialBackoffSeconds",
"podMaxBackoffSeconds", "profiles": [{"schedulerName", "plugins": {point: [{"name"[,
"weight"]}]}, "pluginConfig": [{"name", "args"}]}], "yaml"}``, or ``{"error": message}``
when the file is refused (``{"crash": first line}`` when kube-scheduler itself panics).
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

from kscore_fast.config import SchedulerConfiguration, UnknownArgs, dump_config, load_config
from kscore_fast.config.args import ARGS_KIND, args_to_versioned
from kscore_fast.config.dump import encode
from kscore_fast.config.read import plain
from kscore_fast.config.schema import V1BETA3, schema
from kscore_fast.errors import ConfigError
from tests.goref import GOREF

DATA = Path(__file__).parent / "data"
_ADDRESS = re.compile(r"\(0x[0-9a-f]+\)")
# model/validation.py's RegexError joins its examples with " or "; Go writes "',  or '"
# (tests/plugins/nodeaffinity/test_upstream.py marks the same difference)
_REGEX_EXAMPLES = re.compile(r"',  or '")


def normalize(message: str) -> str:
    """A message without what legitimately differs: heap addresses, and the known
    RegexError wording of model/validation.py."""
    return _REGEX_EXAMPLES.sub("' or '", _ADDRESS.sub("(0xADDR)", message))


def kscore(path: str | Path) -> dict[str, Any]:
    try:
        cfg = load_config(path)
    except ConfigError as exc:
        return {"error": normalize(exc.reason)}
    return effective(cfg)


def effective(cfg: SchedulerConfiguration) -> dict[str, Any]:
    profiles = []
    for p in cfg.profiles:
        plugins = {
            point: [
                {"name": n, "weight": p.score_weights[n]} if point == "score" else {"name": n}
                for n in names
            ]
            for point, names in p.extension_points.items()
        }
        configs = []
        for name in sorted(p.args):
            args = p.args[name]
            value = args_to_versioned(args)
            if not isinstance(args, UnknownArgs):
                value = encode(value, schema(V1BETA3).args[ARGS_KIND[name]])
            configs.append({"name": name, "args": plain(value)})
        profiles.append(
            {"schedulerName": p.scheduler_name, "plugins": plugins, "pluginConfig": configs}
        )
    return {
        "apiVersion": cfg.api_version,
        "parallelism": cfg.parallelism,
        "percentageOfNodesToScore": cfg.percentage_of_nodes_to_score,
        "podInitialBackoffSeconds": cfg.pod_initial_backoff_seconds,
        "podMaxBackoffSeconds": cfg.pod_max_backoff_seconds,
        "profiles": profiles,
        "yaml": dump_config(cfg),
    }


def goref(path: str | Path | None) -> dict[str, Any]:
    """``goref config [--config path]``, in the shape above."""
    cmd = [str(GOREF), "config"] + ([] if path is None else ["--config", str(path)])
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    if proc.stdout.strip():
        out = json.loads(proc.stdout)
        if "error" in out:
            return {"error": normalize(out["error"])}
        return out
    if "panic:" in proc.stderr:
        return {"crash": proc.stderr.strip().splitlines()[0]}
    raise RuntimeError(f"goref config failed ({proc.returncode}): {proc.stderr.strip()}")


#: files whose refusal is worded differently by design (JSON syntax errors: Python's
#: parser explains them in its own words, with line and column)
REWORDED = {"malformed.json"}


def corpus() -> list[Path]:
    return sorted((DATA / "valid").iterdir()) + sorted((DATA / "invalid").iterdir())


def expected_path(path: Path) -> Path:
    return DATA / "expected" / f"{path.parent.name}--{path.name}.json"


def same(ks: dict[str, Any], go: dict[str, Any], name: str) -> list[str]:
    """Differences between kscore's and Go's outcome, as readable lines."""
    if "crash" in go:  # kube-scheduler panics: kscore refuses the file instead
        return [] if "error" in ks else [f"{name}: Go crashes ({go['crash']}); kscore accepted it"]
    if "error" in go or "error" in ks:
        if "error" not in ks or "error" not in go:
            mine, theirs = ks.get("error", "accepted"), go.get("error", "accepted")
            return [f"{name}: kscore {mine!r} vs Go {theirs!r}"]
        if name in REWORDED or ks["error"] == go["error"]:
            return []
        return [f"{name}: error\n  kscore: {ks['error']}\n  go:     {go['error']}"]
    return [
        f"{name}: {k} differs\n  kscore: {ks.get(k)}\n  go:     {go[k]}"
        for k in go
        if ks.get(k) != go[k]
    ]
