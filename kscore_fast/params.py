"""The public API's parameters, checked where they come in: a wrong one raises one
:class:`~kscore_fast.errors.InputError` naming the call and the parameter as the caller
wrote it (``score: scores must be ...``), what was given and what is expected, before
anything runs or changes. (The command line checks its options itself, and names them as
options.)"""

from __future__ import annotations

import os
from collections.abc import Callable, Collection, Iterable, Mapping
from typing import Any

from .errors import InputError


def _found(value: Any) -> str:
    text = repr(value)
    return f"{type(value).__name__} {text if len(text) <= 60 else text[:57] + '...'}"


def fail(call: str, name: str, expected: str, value: Any) -> InputError:
    return InputError(f"{call}: {name} must be {expected}, got {_found(value)}")


def integer(call: str, name: str, value: Any, *, optional: bool = False) -> None:
    if value is None and optional:
        return
    if not isinstance(value, int) or isinstance(value, bool):
        raise fail(call, name, "an integer" + (" or None" if optional else ""), value)


def boolean(call: str, name: str, value: Any, *, optional: bool = False) -> None:
    if (value is None and optional) or isinstance(value, bool):
        return
    raise fail(call, name, "True or False" + (" or None" if optional else ""), value)


def function(call: str, name: str, value: Any) -> None:
    if value is not None and not callable(value):
        raise fail(call, name, "a function or None", value)


def string(call: str, name: str, value: Any, choices: Collection[str] = ()) -> None:
    if not isinstance(value, str):
        raise fail(call, name, "a string", value)
    if choices and value not in choices:
        raise fail(call, name, "one of " + ", ".join(repr(c) for c in choices), value)


def pod_name(call: str, name: str, value: Any) -> None:
    if not isinstance(value, str):
        raise fail(call, name, "a pod's namespace/name (a string)", value)


def node_name(call: str, name: str, value: Any) -> None:
    if not isinstance(value, str):
        raise fail(call, name, "a node's name (a string)", value)


def names(call: str, name: str, value: Any, check: Callable[[str, str, Any], None]
          ) -> list[Any]:  # fmt: skip
    """A list or tuple of names, each checked; returned as a list."""
    if not isinstance(value, list | tuple):
        raise fail(call, name, "a list of names", value)
    for i, item in enumerate(value):
        check(call, f"{name}[{i}]", item)
    return list(value)


def cluster(call: str, value: Any) -> None:
    from .model.snapshot import Cluster

    if isinstance(value, Cluster | str | os.PathLike):
        return
    if isinstance(value, list | tuple) and all(isinstance(v, str | os.PathLike) for v in value):
        return
    raise fail(call, "cluster", "a Cluster (kscore_fast.load_cluster) or manifest paths", value)


def plugins(call: str, value: Any) -> None:
    if value is None or isinstance(value, str | Mapping):
        return
    if isinstance(value, Iterable) and not isinstance(value, bytes):
        return
    raise fail(call, "plugins", '"Name=weight,...", a mapping or (name, weight) pairs', value)


def config(call: str, value: Any) -> None:
    from .config.types import SchedulerConfiguration

    if value is None or isinstance(value, str | os.PathLike | SchedulerConfiguration):
        return
    raise fail(
        call, "config",
        "a KubeSchedulerConfiguration file's path or kscore_fast.config.load_config's result",
        value,
    )  # fmt: skip


def run_options(call: str, options: Mapping[str, Any]) -> None:
    """The options ``score``, ``simulate`` and ``Simulator`` share (those given)."""
    for name, value in options.items():
        if value is not None or name not in _NONE_OK:
            _RUN_OPTIONS[name](call, name, value)


#: the options None is a valid value of (their default)
_NONE_OK = frozenset({"explain", "preemption", "percentage_of_nodes_to_score", "progress",
                      "notice", "plugins", "config"})  # fmt: skip
#: :func:`run_options`' check of each option
_RUN_OPTIONS: dict[str, Callable[[str, str, Any], None]] = {
    "seed": integer,
    "explain": lambda c, n, v: boolean(c, n, v, optional=True),
    "preemption": lambda c, n, v: boolean(c, n, v, optional=True),
    "retry_nominated": boolean,
    "percentage_of_nodes_to_score": lambda c, n, v: integer(c, n, v, optional=True),
    "progress": function,
    "notice": function,
    "scores": string,
    "tie_break": lambda c, n, v: string(c, n, v, ("uniform", "go-rand")),
    "plugins": lambda c, n, v: plugins(c, v),
    "config": lambda c, n, v: config(c, v),
}
