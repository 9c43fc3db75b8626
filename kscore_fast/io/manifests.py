"""Read Kubernetes objects from files, as kubectl prints them.

Accepts single objects, ``kind: List`` and typed lists (``PodList`` ...), multi-document
YAML, JSON, directories (walked recursively, entries in byte-lexical order, dot-names
skipped) and several paths at once. Yields each object with a human-readable location.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from ..errors import InputError

SUFFIXES = (".yaml", ".yml", ".json")
_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@dataclass(frozen=True)
class Located:
    """An object and where it came from: ``file`` and ``where`` inside it."""

    obj: Any
    file: str
    where: str


def iter_files(paths: Iterable[str | os.PathLike[str]]) -> Iterator[Path]:
    """Files of ``paths`` in processing order (see module docstring)."""
    for p in paths:
        path = Path(p)
        if path.is_dir():
            yield from _walk(path)
        elif path.exists():
            yield path
        else:
            raise InputError("no such file or directory", file=str(path))


def _walk(directory: Path) -> Iterator[Path]:
    entries = sorted(os.scandir(directory), key=lambda e: os.fsencode(e.name))
    for entry in entries:
        if entry.name.startswith("."):
            continue
        if entry.is_dir():
            yield from _walk(Path(entry.path))
        elif entry.name.endswith(SUFFIXES):
            yield Path(entry.path)


def _documents(path: Path) -> list[tuple[str, Any]]:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read file: {exc}", file=str(path)) from None
    if path.suffix == ".json":
        try:
            return [("", json.loads(text))]
        except json.JSONDecodeError as exc:
            raise InputError(
                f"malformed JSON at line {exc.lineno} column {exc.colno}: {exc.msg}",
                file=str(path),
            ) from None
    try:
        docs = list(yaml.load_all(text, Loader=_Loader))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1} column {mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise InputError(f"malformed YAML{where}: {problem}", file=str(path)) from None
    if len(docs) == 1:
        return [("", docs[0])]
    return [(f"document {i + 1}", d) for i, d in enumerate(docs)]


def _expand(obj: Any, file: str, where: str, item_kind: str | None) -> Iterator[Located]:
    if obj is None:
        return  # an empty YAML document
    if not isinstance(obj, dict):
        raise InputError(
            f"expected a Kubernetes object (a mapping), found {type(obj).__name__}",
            file=file,
            obj=where or None,
        )
    kind = obj.get("kind", item_kind)
    if isinstance(kind, str) and kind.endswith("List") and "items" in obj:
        items = obj["items"]
        if items is None:
            return
        if not isinstance(items, list):
            raise InputError("items must be a list", file=file, obj=where or kind, field="items")
        inner = kind[: -len("List")] or None  # "List" → items carry their own kind
        for i, item in enumerate(items):
            label = f"{where + ', ' if where else ''}items[{i}]"
            yield from _expand(item, file, label, inner)
        return
    if "kind" not in obj and item_kind is not None:
        obj = {**obj, "kind": item_kind}
    yield Located(obj, file, where)


def read_objects(paths: Iterable[str | os.PathLike[str]]) -> Iterator[Located]:
    """Every object of every file of ``paths``, lists expanded, in order."""
    for path in iter_files(paths):
        for where, doc in _documents(path):
            yield from _expand(doc, str(path), where, None)


def located_dicts(objects: Iterable[Any], source: str = "<objects>") -> Iterator[Located]:
    """Already-loaded objects (dicts, lists of them, ``List`` objects) with locations."""
    for i, obj in enumerate(objects):
        yield from _expand(obj, source, f"[{i}]", None)
