"""go-yaml v2's reading of plain scalars (gopkg.in/yaml.v2@v2.4.0 resolve.go).

kube-scheduler's YAML goes through go-yaml v2 (YAML 1.1 rules): ``y``/``n``/``on``/``off``
are booleans, ``0o17``, ``017``, ``0x1F``, ``0b101`` and ``1_000`` integers, numbers past
int64 uint64 or float, timestamps stay strings when decoded into ``interface{}``, and
``1:20`` (a base-60 float in YAML 1.1) a string. Its encoder quotes exactly the strings
that would not read back as themselves (:func:`go_is_str`).
"""

from __future__ import annotations

import math
import re
from typing import Any

_BOOL_NULL = {
    **dict.fromkeys(
        ("y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"), True
    ),
    **dict.fromkeys(
        ("n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"), False
    ),
    **dict.fromkeys(("", "~", "null", "Null", "NULL"), None),
}
_SPECIAL_FLOATS = {
    **dict.fromkeys((".nan", ".NaN", ".NAN"), math.nan),
    **dict.fromkeys((".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"), math.inf),
    **dict.fromkeys(("-.inf", "-.Inf", "-.INF"), -math.inf),
}
_YAML_FLOAT = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?\Z")
_GO_FLOAT = re.compile(
    r"[-+]?(?:(?:[0-9](?:_?[0-9])*)?\.?(?:[0-9](?:_?[0-9])*)?(?:[eE][-+]?[0-9]+)?|inf(?:inity)?|nan)\Z",
    re.IGNORECASE,
)
_BASE60 = re.compile(r"[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?\Z")
INT64_MAX = 2**63 - 1
UINT64_MAX = 2**64 - 1


def go_resolve(s: str) -> Any:
    """The value go-yaml v2 gives a plain scalar decoded into ``interface{}``: bool, None,
    int (int64 or uint64 range), float or str (timestamps stay strings)."""
    if s in _BOOL_NULL:
        return _BOOL_NULL[s]
    if s in _SPECIAL_FLOATS:
        return _SPECIAL_FLOATS[s]
    hint = s[0]
    if hint == ".":
        f = _go_parse_float(s)
        return s if f is None else f
    if not (hint.isdigit() and hint.isascii()) and hint not in "+-":
        return s
    if is_timestamp(s):
        return s  # a timestamp decoded into interface{} stays a string
    plain = s.replace("_", "")
    n = _go_parse_int(plain)
    if n is not None and -(2**63) <= n <= 2**64 - 1:
        return n
    if _YAML_FLOAT.match(plain):
        f = _go_parse_float(plain)
        if f is not None:
            return f
    if plain.startswith(("0b", "-0b")):
        digits = plain[2:] if plain[0] == "0" else plain[3:]
        if re.fullmatch(r"[01]+", digits):
            n = int(digits, 2) * (-1 if plain[0] == "-" else 1)
            if -(2**63) <= n <= 2**64 - 1:
                return n
    return s


def go_is_str(s: str) -> bool:
    """Whether go-yaml's encoder may write ``s`` unquoted: it resolves back to a string
    that is not a timestamp, nor a YAML 1.1 base-60 float."""
    return isinstance(go_resolve(s), str) and not _BASE60.match(s) and not is_timestamp(s)


_TS = re.compile(
    r"([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})"
    r"(?:(?:[Tt]([0-9]{1,2}):([0-9]{1,2}):([0-9]{1,2})(?:[.,][0-9]+)?(?:Z|[+-][0-9]{2}:[0-9]{2}))"
    r"|(?: ([0-9]{1,2}):([0-9]{1,2}):([0-9]{1,2})(?:[.,][0-9]+)?))?\Z"
)


def is_timestamp(s: str) -> bool:
    """go-yaml v2's parseTimestamp: one of its four layouts, with valid dates and times."""
    m = _TS.match(s)
    if m is None:
        return False
    year, month, day = (int(g) for g in m.groups()[:3])
    clock = [int(g) for g in m.groups()[3:] if g is not None]
    if not 1 <= month <= 12 or day < 1 or day > _days_in(year, month):
        return False
    return not clock or (clock[0] < 24 and clock[1] < 60 and clock[2] < 60)


def _days_in(year: int, month: int) -> int:
    if month == 2:
        return 29 if year % 4 == 0 and (year % 100 != 0 or year % 400 == 0) else 28
    return 30 if month in (4, 6, 9, 11) else 31


def _go_parse_int(s: str) -> int | None:
    """strconv.ParseInt(s, 0, 64), else ParseUint(s, 0, 64); None when both fail."""
    m = re.fullmatch(r"([+-]?)(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)", s)
    if not m:
        return None
    sign, body = m.groups()
    low = body.lower()
    if low.startswith(("0x", "0o", "0b")):
        n = int(body[2:], {"x": 16, "o": 8, "b": 2}[low[1]])
    elif body.startswith("0") and len(body) > 1:
        n = int(body, 8)
    else:
        n = int(body)
    n = -n if sign == "-" else n
    if -(2**63) <= n <= INT64_MAX or (not sign and n <= 2**64 - 1):
        return n
    return None


def _go_parse_float(s: str) -> float | None:
    if not _GO_FLOAT.match(s) or not re.search(r"[0-9]|inf|nan", s, re.IGNORECASE):
        return None
    try:
        f = float(s.replace("_", ""))
    except ValueError:
        return None
    return None if math.isinf(f) and "inf" not in s.lower() else f
