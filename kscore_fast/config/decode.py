"""Strict decoding of a JSON document into a versioned type, with Go's verdicts.

What sigs.k8s.io/json's ``UnmarshalStrict`` (the fork of Go 1.17's encoding/json the
scheme's strict serializers use) does with the same document:

* a value of the wrong JSON type, or a number that does not fit (``2147483648`` or
  ``1.5`` for an int32), is an error; the first one is reported, as
  ``json: cannot unmarshal <number|string|bool|array|object|number 1.5> into Go struct
  field <Struct>.<json.field.path> of type <Go type>`` (the innermost struct, the path of
  JSON field names from the document's root, no indices);
* unknown fields and repeated fields are *strict* errors (``unknown field "x"``,
  ``duplicate field "x"``), reported, in document order, only when nothing else failed;
* ``null`` leaves a field unset (nil pointer, nil list); ``metav1.Duration`` reads its
  string with ``time.ParseDuration`` (``null`` too, which fails).

The result is the document with the schema's shape: plain dicts keyed by JSON field name,
holding only the fields that were set, durations as int nanoseconds, plugin args
(``RawExtension``) as the JSON value they hold.
"""

from __future__ import annotations

import base64
import binascii
import re
from typing import Any

from .gofmt import go_quote
from .read import Lit, Obj
from .schema import STRING, Field, Kind, ListOf, MapOf, Raw, Scalar, Struct

_MAX_STRICT = 100
_FLOAT32_MAX = 3.4028234663852886e38


class DecodeError(Exception):
    """A fatal decoding error; its text is Go's."""


class Decoder:
    """One ``Unmarshal`` call: the first fatal error and the strict errors it collected."""

    def __init__(self) -> None:
        self.error: str | None = None
        self.strict: list[str] = []
        self._stack: list[str] = []
        self._struct: Struct | None = None

    def run(self, doc: Obj, struct: Struct) -> dict[str, Any]:
        """Decode ``doc``; raise :class:`DecodeError` on a fatal error."""
        out = self.struct(doc, struct)
        if self.error is not None:
            raise DecodeError(self.error)
        return out

    # -- errors ----------------------------------------------------------------------------

    def type_error(self, what: str, kind: Kind) -> None:
        if self.error is not None:
            return
        go = kind.go
        if self._struct is not None and self._stack:
            self.error = (
                f"json: cannot unmarshal {what} into Go struct field "
                f"{self._struct.name}.{'.'.join(self._stack)} of type {go}"
            )
        else:
            self.error = f"json: cannot unmarshal {what} into Go value of type {go}"

    def save_error(self, text: str) -> None:
        if self.error is None:
            self.error = text

    def strict_error(self, text: str) -> None:
        if len(self.strict) < _MAX_STRICT and text not in self.strict:
            self.strict.append(text)

    # -- values ----------------------------------------------------------------------------

    def value(self, v: Any, kind: Kind) -> Any:
        """The decoded value; ``None`` for JSON null (the field stays unset)."""
        if v is None:
            if isinstance(kind, Scalar) and kind.kind == "duration":
                return self.duration("")
            return None
        if isinstance(kind, Struct):
            if isinstance(v, Obj):
                return self.struct(v, kind)
        elif isinstance(kind, ListOf):
            if isinstance(v, list):
                return [_zero_if_none(self.value(e, kind.elem), kind.elem) for e in v]
        elif isinstance(kind, MapOf):
            if isinstance(v, Obj):
                return self.mapping(v, kind)
        elif isinstance(kind, Raw):
            return v
        else:
            return self.scalar(v, kind)
        self.type_error(json_kind(v), kind)
        return None

    def struct(self, obj: Obj, struct: Struct) -> dict[str, Any]:
        out: dict[str, Any] = {}
        seen: set[str] = set()
        outer, depth = self._struct, len(self._stack)
        for key, v in obj.pairs:
            f: Field | None = struct.by_name.get(key)
            if f is None:
                self.strict_error(f"unknown field {go_quote(key)}")
                continue
            if key in seen:
                self.strict_error(f"duplicate field {go_quote(key)}")
            seen.add(key)
            self._struct = struct
            self._stack.append(key)
            decoded = self.value(v, f.kind)
            del self._stack[depth:]
            self._struct = outer
            if decoded is not None:
                out[key] = decoded
            else:
                out.pop(key, None)
        return out

    def mapping(self, obj: Obj, kind: MapOf) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, v in obj.pairs:
            if key in out:
                self.strict_error(f"duplicate field {go_quote(key)}")
            decoded = self.value(v, kind.elem)
            out[key] = "" if decoded is None else decoded
        return out

    def scalar(self, v: Any, kind: Scalar) -> Any:
        k = kind.kind
        if k == "int" and isinstance(v, int) and not isinstance(v, bool):
            if -(2 ** (kind.bits - 1)) <= v < 2 ** (kind.bits - 1):
                return v
            self.type_error(f"number {v}", kind)
            return None
        if k == "int" and isinstance(v, Lit):
            self.type_error(f"number {v.text}", kind)
            return None
        if k == "float" and isinstance(v, int | Lit) and not isinstance(v, bool):
            f = float(v)
            if abs(f) <= _FLOAT32_MAX or kind.bits == 64:
                return f
            self.type_error(f"number {v.text if isinstance(v, Lit) else v}", kind)
            return None
        if k == "bool" and isinstance(v, bool):
            return v
        if isinstance(v, str) and k in ("string", "duration", "bytes"):
            return {"string": str, "duration": self.duration, "bytes": self.base64}[k](v)
        if k == "duration":  # metav1.Duration.UnmarshalJSON: json.Unmarshal(b, &str)
            self.type_error(json_kind(v), STRING)
            return None
        self.type_error(json_kind(v), kind)
        return None

    def duration(self, s: str) -> int | None:
        try:
            return parse_duration(s)
        except ValueError as exc:
            self.save_error(str(exc))
            return None

    def base64(self, s: str) -> bytes | None:
        try:
            return base64.b64decode(s, validate=True)
        except (binascii.Error, ValueError):
            bad = next((i for i, c in enumerate(s) if c not in _B64), len(s))
            self.save_error(f"illegal base64 data at input byte {bad}")
            return None


def _zero_if_none(v: Any, kind: Kind) -> Any:
    """A null list element is the element type's zero value."""
    if v is not None:
        return v
    if isinstance(kind, Struct):
        return {}
    if isinstance(kind, Scalar):
        return {"int": 0, "float": 0.0, "string": "", "bool": False}.get(kind.kind)
    return None


_B64 = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=")


def json_kind(v: Any) -> str:
    """The JSON type of a document value, as Go's messages name it."""
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, int | Lit):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "array"
    return "object"


# -- time.ParseDuration ----------------------------------------------------------------------

_UNITS = {
    "ns": 1,
    "us": 1_000,
    "µs": 1_000,
    "μs": 1_000,
    "ms": 1_000_000,
    "s": 1_000_000_000,
    "m": 60_000_000_000,
    "h": 3_600_000_000_000,
}
_PART = re.compile(r"([0-9]*)(?:\.([0-9]*))?([^0-9.]*)")
INT64_MAX = 2**63 - 1


def parse_duration(s: str) -> int:
    """time.ParseDuration in int nanoseconds; ValueError with Go's message."""
    neg = s[:1] == "-"
    body = s[1:] if s[:1] in ("+", "-") else s
    if body == "0":
        return 0
    if body == "":
        raise ValueError(f"time: invalid duration {go_quote(s)}")
    total = 0
    while body:
        m = _PART.match(body)
        assert m is not None
        whole, frac, unit = m.group(1), m.group(2), m.group(3)
        if not whole and not frac:
            raise ValueError(f"time: invalid duration {go_quote(s)}")
        if not unit:
            raise ValueError(f"time: missing unit in duration {go_quote(s)}")
        if unit not in _UNITS:
            raise ValueError(f"time: unknown unit {go_quote(unit)} in duration {go_quote(s)}")
        scale = _UNITS[unit]
        total += int(whole or "0") * scale
        if frac:
            total += int(frac) * scale // 10 ** len(frac)
        if total > INT64_MAX + (1 if neg else 0):
            raise ValueError(f"time: invalid duration {go_quote(s)}")
        body = body[m.end() :]
    return -total if neg else total


def format_duration(ns: int) -> str:
    """time.Duration.String."""
    if ns == 0:
        return "0s"
    sign, u = ("-", -ns) if ns < 0 else ("", ns)
    if u < 1_000_000_000:
        for unit, scale in (("ns", 1), ("µs", 1_000), ("ms", 1_000_000)):
            if u < scale * 1000:
                return sign + _frac(u, scale) + unit
    h, rem = divmod(u, 3_600_000_000_000)
    m, rem = divmod(rem, 60_000_000_000)
    text = _frac(rem, 1_000_000_000) + "s"
    if h or m:
        text = f"{m}m" + text
    if h:
        text = f"{h}h" + text
    return sign + text


def _frac(v: int, scale: int) -> str:
    whole, frac = divmod(v, scale)
    if not frac:
        return str(whole)
    digits = len(str(scale)) - 1
    return f"{whole}." + f"{frac:0{digits}d}".rstrip("0")
