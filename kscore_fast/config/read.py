"""A configuration file as the scheduler's decoder sees it: a JSON document.

kube-scheduler reads ``--config`` with its scheme's ``UniversalDecoder``
(cmd/kube-scheduler/app/options/configfile.go). Data whose first non-blank byte is ``{``
goes to the JSON serializer; anything else to the YAML one, which converts the first YAML
document to JSON with sigs.k8s.io/yaml (go-yaml v2 underneath, then ``json.Marshal`` of a
Go map: object keys come out sorted, numbers in encoding/json's text) and decodes that.
The YAML serializer is strict: ``YAMLToJSONStrict`` reports each repeated mapping key
(``line N: key "k" already set in map``), and the report is kept for the end.

:func:`read_document` returns the document as :class:`Obj` (an object: its members in
decoding order, repeated keys kept for the JSON decoder to report), lists, ``str``,
``bool``, ``None``, ``int`` (numbers whose text is an integer) and :class:`Lit` (any
other number, with its JSON text: Go's decoder sees the text, ``1.0`` does not fit an
int32 in a JSON file while YAML's ``1.0`` becomes ``1``). Plain YAML scalars are resolved
as go-yaml v2 resolves them (``y``/``n``/``on``/``off`` are booleans, ``0o17`` and
``0b101`` integers, ``1:20`` a string, timestamps stay strings).
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

import yaml

from ..errors import ConfigError
from ..io.manifests import check_aliasing, mark_where, too_deep
from .gofmt import go_format_float, go_json_float, go_quote
from .goyaml import go_resolve

#: larger files are refused: a scheduler configuration is a few kilobytes
MAX_BYTES = 16 << 20
#: deepest nesting read (Go's encoding/json stops at 10,000); Python's recursion limit
#: stops reading sooner, and PyYAML 6.0.4's libyaml at its own cap (1,000): the messages
#: say which limit applied
MAX_DEPTH = 10_000

STR = "tag:yaml.org,2002:str"
_PLAIN = "!kscore-plain"  # a plain (unquoted, untagged) scalar, resolved by go_resolve


class Obj(dict[str, Any]):
    """A JSON object: the dict holds each key's last value; ``pairs`` every member in
    decoding order, repeated keys included."""

    pairs: list[tuple[str, Any]]

    def __init__(self, pairs: list[tuple[str, Any]]) -> None:
        super().__init__(pairs)
        self.pairs = pairs


class Lit:
    """A JSON number that is not a plain integer, kept as its text."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def __float__(self) -> float:
        return float(self.text)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Lit) and other.text == self.text

    def __hash__(self) -> int:
        return hash(self.text)

    def __repr__(self) -> str:
        return f"Lit({self.text!r})"


def plain(v: Any) -> Any:
    """A document as plain Python data: objects as dicts, numbers as int or float."""
    if isinstance(v, dict):
        return {k: plain(x) for k, x in v.items()}
    if isinstance(v, list):
        return [plain(x) for x in v]
    if isinstance(v, Lit):
        return float(v.text)
    return v


def read_document(data: bytes, name: str) -> tuple[Any, list[str], bool]:
    """``(document, strict YAML errors, is_json)`` of a configuration file's bytes."""
    if len(data) > MAX_BYTES:
        raise ConfigError(f"file too large ({len(data):,} bytes; at most {MAX_BYTES:,})", file=name)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"not UTF-8 text: {exc.reason} at byte {exc.start}", file=name) from None
    if text.lstrip(" \t\r\n").startswith("{"):
        return _read_json(text, name), [], True
    doc, dups = _read_yaml(text, name)
    return doc, dups, False


# -- JSON ------------------------------------------------------------------------------------

_INT_TEXT = re.compile(r"-?(?:0|[1-9][0-9]{0,30})\Z")


def json_number(text: str) -> int | Lit:
    return int(text) if _INT_TEXT.match(text) else Lit(text)


def _read_json(text: str, name: str) -> Any:
    try:
        return json.loads(
            text,
            object_pairs_hook=Obj,
            parse_int=json_number,
            parse_float=Lit,
            parse_constant=_no_constant,
        )
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"malformed JSON at line {exc.lineno} column {exc.colno}: {exc.msg}", file=name
        ) from None
    except RecursionError:
        raise ConfigError(too_deep("JSON"), file=name) from None


def _no_constant(text: str) -> Any:
    raise json.JSONDecodeError(f"invalid value {text}", text, 0)


# -- YAML ------------------------------------------------------------------------------------


class _Loader(yaml.CSafeLoader if hasattr(yaml, "CSafeLoader") else yaml.SafeLoader):  # type: ignore[misc]
    """Composes nodes only; plain scalars are tagged for :func:`go_resolve`."""

    def resolve(self, kind: type, value: Any, implicit: Any) -> str:
        if kind is yaml.ScalarNode:
            return _PLAIN if implicit[0] else STR
        return super().resolve(kind, value, implicit)


def _read_yaml(text: str, name: str) -> tuple[Any, list[str]]:
    """The first document (go-yaml reads no further), with its repeated-key errors."""
    loader = _Loader(text)
    try:
        node = _yaml_step(name, loader.get_node) if _yaml_step(name, loader.check_node) else None
    finally:
        loader.dispose()
    if node is None:
        return None, []
    if "*" in text:
        try:
            check_aliasing(node, name)
        except Exception as exc:  # io's InputError: re-raised as a configuration error
            raise ConfigError(getattr(exc, "reason", str(exc)), file=name) from None
    dups: list[str] = []
    try:
        return _Converter(dups, name).value(node, 0), dups
    except RecursionError:  # value → mapping or list → value: two frames a level
        raise ConfigError(too_deep("YAML", frames_per_level=2), file=name) from None


def _yaml_step(name: str, fn: Any, *args: Any) -> Any:
    """A PyYAML (libyaml) step; its errors read as go-yaml's (``yaml: line N: problem``)."""
    try:
        return fn(*args)
    except yaml.MarkedYAMLError as exc:
        if "maximum nesting depth" in (exc.problem or ""):  # libyaml's cap (PyYAML >= 6.0.4)
            raise ConfigError(too_deep("YAML", mark_where(exc.problem_mark)), file=name) from None
        line = 0
        if exc.problem_mark is not None and exc.problem_mark.line:
            line = exc.problem_mark.line + (1 if isinstance(exc, yaml.scanner.ScannerError) else 0)
        elif exc.context_mark is not None:
            line = exc.context_mark.line
        where = f"line {line}: " if line else ""
        problem = exc.problem or "unknown problem parsing YAML content"
        raise ConfigError(f"yaml: {where}{problem}", file=name) from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"yaml: {exc}", file=name) from None


class _Converter:
    """go-yaml v2 node values, then sigs.k8s.io/yaml's JSON conversion."""

    def __init__(self, dups: list[str], name: str) -> None:
        self.dups = dups
        self.name = name

    def value(self, node: yaml.Node, depth: int) -> Any:
        if depth > MAX_DEPTH:
            raise ConfigError(
                f"nesting too deep: YAML is read up to {MAX_DEPTH:,} levels (kscore's limit)",
                file=self.name,
            )
        if isinstance(node, yaml.ScalarNode):
            return self.json_value(self.scalar(node), node)
        if isinstance(node, yaml.SequenceNode):
            return [self.value(n, depth + 1) for n in node.value]
        members: dict[str, Any] = {}
        self.mapping(node, members, depth, set())
        return Obj(sorted(members.items(), key=lambda kv: kv[0].encode("utf-8")))

    def mapping(
        self, node: yaml.MappingNode, out: dict[str, Any], depth: int, seen: set[Any]
    ) -> None:
        """go-yaml's ``mapping`` into ``out``; a key already in ``seen`` (this mapping's
        keys and those merged into it) is YAMLToJSONStrict's complaint, and the non-strict
        pass keeps the last value."""
        for key_node, value_node in node.value:
            if (
                isinstance(key_node, yaml.ScalarNode)
                and key_node.tag == _PLAIN
                and (key_node.value == "<<")
            ):
                self.merge(value_node, out, depth, seen)
                continue
            if not isinstance(key_node, yaml.ScalarNode):
                raise ConfigError(
                    f"yaml: line {key_node.start_mark.line + 1}: invalid map key", file=self.name
                )
            key = self.scalar(key_node)
            if (type(key), key) in seen:
                line = value_node.start_mark.line + 1
                self.dups.append(f"line {line}: key {_go_value(key)} already set in map")
            seen.add((type(key), key))
            out[self.key_text(key, key_node)] = self.value(value_node, depth + 1)

    def merge(self, node: yaml.Node, out: dict[str, Any], depth: int, seen: set[Any]) -> None:
        """go-yaml's ``merge``: a mapping, or a sequence of them taken last to first."""
        sources = node.value[::-1] if isinstance(node, yaml.SequenceNode) else [node]
        for src in sources:
            if not isinstance(src, yaml.MappingNode):
                raise ConfigError(
                    f"yaml: line {src.start_mark.line + 1}: map merge requires map or sequence "
                    "of maps as the value",
                    file=self.name,
                )
            self.mapping(src, out, depth, seen)

    def scalar(self, node: yaml.ScalarNode) -> Any:
        if node.tag == _PLAIN:
            return go_resolve(node.value)
        if node.tag in (STR, "tag:yaml.org,2002:binary") or not node.tag.startswith(
            "tag:yaml.org,2002:"
        ):
            return node.value
        value = go_resolve(node.value)
        want = {"int": int, "float": float, "bool": bool, "null": type(None)}.get(node.tag[18:])
        if want is float and isinstance(value, int) and not isinstance(value, bool):
            return float(value)
        if want is None or type(value) is not want:
            raise ConfigError(
                f"malformed YAML at line {node.start_mark.line + 1}: cannot decode "
                f"{node.value!r} as {node.tag[18:]}",
                file=self.name,
            )
        return value

    def key_text(self, key: Any, node: yaml.Node) -> str:
        """sigs.k8s.io/yaml's map key conversion."""
        if isinstance(key, str):
            return key
        if isinstance(key, bool):
            return "true" if key else "false"
        if isinstance(key, int):
            return str(key)
        if isinstance(key, float):
            return go_format_float(key, 32)
        raise ConfigError(
            f"malformed YAML at line {node.start_mark.line + 1}: unsupported map key null",
            file=self.name,
        )

    def json_value(self, value: Any, node: yaml.Node) -> Any:
        """A resolved scalar as ``json.Marshal`` writes it and the decoder reads it."""
        if isinstance(value, float):
            if not math.isfinite(value):
                raise ConfigError(
                    f"json: unsupported value: {go_format_float(value, 64)} (YAML line "
                    f"{node.start_mark.line + 1})",
                    file=self.name,
                )
            return json_number(go_json_float(value))
        return value


def _go_value(v: Any) -> str:
    """Go's ``%#v`` of a go-yaml key."""
    if isinstance(v, str):
        return go_quote(v)
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return go_format_float(v, 64)
    return str(v)
