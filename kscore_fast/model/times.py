"""``metav1.Time`` as JSON gives it (Go's ``time.RFC3339``, a fraction allowed): checked
cheaply where pods are read, converted to nanoseconds since the epoch where used (pods'
start times order preemption's victims), once per distinct text."""

from __future__ import annotations

import calendar
import functools
import re

_RFC3339 = re.compile(r"(\d{4})-(\d\d)-(\d\d)[Tt](\d\d):(\d\d):(\d\d)(\.\d+)?([Zz]|[+-]\d\d:\d\d)")
#: the same, each field in its range (the day up to 31: months' lengths checked apart)
_CHECKED = re.compile(
    r"\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])[Tt]([01]\d|2[0-3]):[0-5]\d:[0-5]\d"
    r"(?:\.\d+)?(?:[Zz]|[+-](?:[01]\d|2[0-3]):[0-5]\d)"
)
_DAYS = (31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def rfc3339_problem(text: object) -> str | None:
    """Why ``text`` is not a time Go's RFC 3339 parser takes, or None (one match for
    most times: the day's range is checked against the month only past the 28th)."""
    if not isinstance(text, str) or (m := _CHECKED.fullmatch(text)) is None:
        return "expected an RFC 3339 time"
    day = m.group(2)
    if day > "28":
        month = int(m.group(1))
        if int(day) > _DAYS[month - 1] or (month == 2 and not _leap(int(text[:4]))):
            return "expected an RFC 3339 time (a day past the month's end)"
    return None


def _leap(year: int) -> bool:
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


@functools.lru_cache(maxsize=65536)
def start_ns(text: str) -> int | None:
    """Nanoseconds since the epoch of a checked time (None for "": absent)."""
    if not text:
        return None
    m = _RFC3339.fullmatch(text)
    assert m is not None, text
    year, month, day, hour, minute, second = (int(m.group(k)) for k in range(1, 7))
    zone = m.group(8)
    offset = 0 if zone in "Zz" else (1 if zone[0] == "+" else -1) * (
        int(zone[1:3]) * 3600 + int(zone[4:6]) * 60)  # fmt: skip
    seconds = calendar.timegm((year, month, day, hour, minute, second)) - offset
    fraction = (m.group(7) or ".")[1:]
    return seconds * 10**9 + int((fraction + "000000000")[:9])
