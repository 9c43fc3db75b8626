"""One random storage scenario run by kscore and by goref under a configuration, in
``score`` or in a whole ``simulate`` run with Go's tie-breaks: the differences
(:func:`tests.goref.run_differences`)."""

from __future__ import annotations

import json
from typing import Any

import yaml

from ..goref import run_differences


def differences(tmp_path, seed: int, mode: str, objs: list[dict[str, Any]],
                config_doc: dict[str, Any]) -> list[str]:  # fmt: skip
    path = tmp_path / f"scenario-{seed}.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objs}))
    config = tmp_path / f"config-{seed}.yaml"
    config.write_text(yaml.safe_dump(config_doc))
    return run_differences([path], config, seed, mode)
