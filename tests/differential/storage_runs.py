"""One random storage scenario run by kscore and by goref under a configuration, in
``score`` or in a whole ``simulate`` run with Go's tie-breaks: the differences
(:func:`tests.goref.compare`, and every host in ``simulate``)."""

from __future__ import annotations

import json
from typing import Any

import yaml

from benchmarks.timing import timing_free
from kscore_fast.api import load_cluster, score, simulate

from ..goref import compare, run_goref


def differences(tmp_path, seed: int, mode: str, objs: list[dict[str, Any]],
                config_doc: dict[str, Any]) -> list[str]:  # fmt: skip
    path = tmp_path / f"scenario-{seed}.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objs}))
    config = tmp_path / f"config-{seed}.yaml"
    config.write_text(yaml.safe_dump(config_doc))
    flags = ["--config", str(config), "--seed", str(seed)]
    if mode == "score":
        ours = score(load_cluster([path]), config=config, seed=seed).to_dict()
        return compare(ours, run_goref([path], flags))
    ours = simulate(load_cluster([path]), config=config, seed=seed,
                    tie_break="go-rand").to_dict()  # fmt: skip
    go = run_goref([path], [*flags, "--plugin-metrics-draw"], command="simulate")
    n = timing_free(go["results"])
    ours["results"], go["results"] = ours["results"][:n], go["results"][:n]
    diffs = compare(ours, go)
    return diffs + [f"{k['pod']}: host {k['host']!r} != go {g['host']!r}"
                    for k, g in zip(ours["results"], go["results"], strict=True)
                    if k["host"] != g["host"]]  # fmt: skip
