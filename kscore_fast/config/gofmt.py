"""Go's text for values and errors, as the scheduler's messages print them.

* :func:`go_quote`: ``strconv.Quote`` (``%q``, and ``%#v`` of a string);
* :class:`FieldError`: apimachinery's ``field.Error`` (``field.Invalid``, ``Required``,
  ``Duplicate``, ``NotSupported``, ``Forbidden``) with ``Error()``'s text;
* :func:`aggregate`: ``utilerrors.NewAggregate(...).Error()`` of a flattened list
  (one message alone, else ``[a, b]``, repeated messages once);
* :class:`GoRepr`: a bad value already spelled as Go's ``%#v`` prints it
  (``[]string{"a"}``, ``v1.Duration{Duration:1000000000}``);
* :func:`go_json_float` and :func:`go_format_float`: the text encoding/json and
  ``strconv.FormatFloat(f, 'g', -1, bits)`` write for a float.
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import numpy as np

_ESCAPES = {
    "\a": r"\a",
    "\b": r"\b",
    "\f": r"\f",
    "\n": r"\n",
    "\r": r"\r",
    "\t": r"\t",
    "\v": r"\v",
    "\\": "\\\\",
    '"': '\\"',
}


def _printable(c: str) -> bool:
    """unicode.IsPrint, near enough: letters, marks, numbers, punctuation, symbols, and
    the ASCII space."""
    return c == " " or unicodedata.category(c)[0] in "LMNPS"


def go_quote(s: str) -> str:
    """strconv.Quote."""
    out = ['"']
    for c in s:
        if c in _ESCAPES:
            out.append(_ESCAPES[c])
        elif _printable(c):
            out.append(c)
        elif ord(c) < 0x80:
            out.append(f"\\x{ord(c):02x}")
        elif ord(c) < 0x10000:
            out.append(f"\\u{ord(c):04x}")
        else:
            out.append(f"\\U{ord(c):08x}")
    out.append('"')
    return "".join(out)


@dataclass(frozen=True)
class GoRepr:
    """A value whose Go ``%#v`` text is known."""

    text: str


def go_strings(values: Sequence[str] | None) -> GoRepr:
    """``%#v`` of a ``[]string`` (nil and empty differ)."""
    if values is None:
        return GoRepr("[]string(nil)")
    return GoRepr("[]string{" + ", ".join(go_quote(v) for v in values) + "}")


def go_value(value: Any) -> str:
    """``ErrorBody``'s rendering of a bad value (``%v`` of numbers and bools, ``%q`` of
    strings, ``%#v`` otherwise)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return go_quote(value)
    if isinstance(value, GoRepr):
        return value.text
    return str(value)


_TYPES = {
    "invalid": "Invalid value",
    "required": "Required value",
    "duplicate": "Duplicate value",
    "notsupported": "Unsupported value",
    "forbidden": "Forbidden",
}


@dataclass(frozen=True)
class FieldError:
    """apimachinery's ``field.Error``."""

    kind: str  # a key of _TYPES
    field: str
    value: Any = None
    detail: str = ""

    def __str__(self) -> str:
        body = _TYPES[self.kind]
        if self.kind not in ("required", "forbidden"):
            body += ": " + go_value(self.value)
        if self.detail:
            body += ": " + self.detail
        return f"{self.field}: {body}"


def invalid(field: str, value: Any, detail: str) -> FieldError:
    return FieldError("invalid", field, value, detail)


def required(field: str, detail: str = "") -> FieldError:
    return FieldError("required", field, None, detail)


def duplicate(field: str, value: Any) -> FieldError:
    return FieldError("duplicate", field, value)


def forbidden(field: str, detail: str) -> FieldError:
    return FieldError("forbidden", field, None, detail)


def not_supported(field: str, value: Any, valid: Iterable[str] = ()) -> FieldError:
    quoted = [go_quote(v) for v in valid]
    detail = "supported values: " + ", ".join(quoted) if quoted else ""
    return FieldError("notsupported", field, value, detail)


def aggregate(errors: Iterable[object]) -> str:
    """``utilerrors.Flatten(NewAggregate(errs)).Error()``: "" for none."""
    msgs: list[str] = []
    for e in errors:
        text = str(e)
        if text not in msgs:
            msgs.append(text)
    if len(msgs) == 1:
        return msgs[0]
    return "[" + ", ".join(msgs) + "]" if msgs else ""


# -- floats ---------------------------------------------------------------------------------


def _shortest(f: float, bits: int) -> tuple[bool, str, int]:
    """``(negative, digits, exponent of the first digit)`` of the shortest decimal that
    reads back as ``f`` (a float32 when ``bits`` is 32)."""
    text = repr(f) if bits == 64 else str(np.float32(f))
    sign, digits, exp = Decimal(text).normalize().as_tuple()
    assert isinstance(exp, int)
    return bool(sign), "".join(map(str, digits)), len(digits) + exp - 1


def _exponent_form(negative: bool, digits: str, x: int, min_digits: int = 2) -> str:
    mant = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
    return f"{'-' if negative else ''}{mant}e{'-' if x < 0 else '+'}{abs(x):0{min_digits}d}"


def _positional(negative: bool, digits: str, x: int) -> str:
    if x < 0:
        body = "0." + "0" * (-x - 1) + digits
    elif x + 1 >= len(digits):
        body = digits + "0" * (x + 1 - len(digits))
    else:
        body = digits[: x + 1] + "." + digits[x + 1 :]
    return ("-" if negative else "") + body


def go_json_float(f: float, bits: int = 64) -> str:
    """encoding/json's text for a float64 (float32 with ``bits`` 32): shortest digits,
    exponent form below 1e-6 and from 1e21 (``1e-7``, ``1e+21``)."""
    if f == 0:
        return "-0" if math.copysign(1.0, f) < 0 else "0"
    negative, digits, x = _shortest(f, bits)
    if abs(f) < 1e-6 or abs(f) >= 1e21:
        return _exponent_form(negative, digits, x, 1 if x < 0 else 2)
    return _positional(negative, digits, x)


def go_format_float(f: float, bits: int = 64) -> str:
    """strconv.FormatFloat(f, 'g', -1, bits), as go-yaml writes floats."""
    if bits == 32:
        with np.errstate(over="ignore"):
            f = float(np.float32(f))
    if math.isnan(f):
        return "NaN"
    if math.isinf(f):
        return "+Inf" if f > 0 else "-Inf"
    if f == 0:
        return "-0" if math.copysign(1.0, f) < 0 else "0"
    negative, digits, x = _shortest(f, bits)
    if x < -4 or x >= 6:  # shortest 'g' decides with precision 6
        return _exponent_form(negative, digits, x)
    return _positional(negative, digits, x)
