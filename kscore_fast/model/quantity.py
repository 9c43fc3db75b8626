"""Kubernetes resource quantities, parsed and converted exactly as apimachinery v1.23 does.

Mirrors ``k8s.io/apimachinery/pkg/api/resource``: quantity.go ``ParseQuantity``,
``parseQuantityString``, ``ScaledValue``; suffix.go ``interpret``; amount.go ``AsScaledInt64``;
math.go ``positiveScaleInt64``/``negativeScaleInt64``; scale_int.go ``scaledValue``.

Go keeps a parsed quantity in one of two forms and its conversions differ by form, so
:class:`Quantity` records the form too (checked against the Go code on amd64):

* fast path (``is_dec=False``, Go ``int64Amount``): at most 18 significant digits and
  scale >= nano. ``Value()``/``MilliValue()`` round away from zero; on int64 overflow they
  return the product wrapped modulo 2**64 when the power of ten is 1, 2, 3, 6 or 9
  (``MilliValue("9300000000000000")`` < 0) and **0** for other powers (``Value("1e19")``).
  The exponent is truncated to int32 at parse (``"1e4294967296"`` == 1) and scale
  arithmetic wraps in int32.
* ``inf.Dec`` path (``is_dec=True``): everything else. Non-zero values are rounded up, away
  from zero, to a multiple of 1n; BinarySI magnitudes are capped at 2**63-1 (``"9Ei"``);
  decimal ones are never capped. Conversions wrap modulo 2**64 on overflow
  (``MilliValue("8Ei") == -1000``, ``Value("100000000000000000000") == 7766279631452241920``,
  ``Value("-1000000000000000000") == 6930898828``) and negative non-integers round to
  truncation + 1 (``Value("-1e-10") == 1``). ``int64(math.Pow10(n))``, n >= 19, is -2**63
  as on amd64. Where Go would build 10**n for n near 2**31 and never finish (``1e-100000000``,
  ``1e2147483648``) the result it would reach is computed symbolically.

``Quantity`` equality compares the Go representation, not the number; use
:meth:`Quantity.as_fraction` for the exact value.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

__all__ = ["Quantity", "parse_quantity", "quantity_from_yaml"]

DECIMAL_SI = "DecimalSI"
BINARY_SI = "BinarySI"
DECIMAL_EXPONENT = "DecimalExponent"

_INT64_MAX = (1 << 63) - 1
_DECIMAL = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_BINARY = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
# parseQuantityString: [sign] zeros digits [. digits] then suffix letters, [sign] digits.
# Possessive quantifiers: a greedy scan without backtracking, exactly like Go's loops.
_SCAN = re.compile(r"([+-]?+)(0*+)([0-9]*+)(\.([0-9]*+))?+([eEinumkKMGTP]*+[+-]?+[0-9]*+)")
_EXPONENT = re.compile(r"[+-]?[0-9]+")
_EXPECTED = (
    "expected a Kubernetes quantity: a number like 2, 0.5, 500m or 1.5e3 with an optional"
    " suffix n u m k M G T P E / Ki Mi Gi Ti Pi Ei (case-sensitive)"
)
_HINTS = {"K": "k", "ki": "Ki", "mi": "Mi", "ei": "Ei"}
# Characters Go's json.Marshal escapes (so UnmarshalJSON sees a backslash) and whitespace
# that strings.TrimSpace strips (unicode.IsSpace).
_JSON_ESCAPED = re.compile('[\x00-\x1f"\\\\<>&\u2028\u2029\ud800-\udfff]')
_GO_SPACE = (
    "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
    "\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)


def _wrap(v: int, bits: int = 64) -> int:
    """Go's two's-complement truncation of ``v`` to a signed ``bits``-bit integer."""
    v &= (1 << bits) - 1
    return v - (1 << bits) if v >> (bits - 1) else v


@dataclass(frozen=True, slots=True)
class Quantity:
    """A parsed quantity in Go's representation.

    The number is ``unscaled * 10**shift * 10**scale``. ``scale`` is Go's ``resource.Scale``
    (for the ``inf.Dec`` form Go stores ``-scale``). ``shift`` is non-zero only for absurdly
    large ``inf.Dec`` values, kept symbolic so they cost no memory.
    """

    unscaled: int
    scale: int
    format: str = DECIMAL_SI
    is_dec: bool = False
    shift: int = 0

    def value(self) -> int:
        """Go ``Quantity.Value()``: the value rounded up (away from zero) to an integer."""
        return self.scaled_value(0)

    def milli_value(self) -> int:
        """Go ``Quantity.MilliValue()``: ``value * 1000`` rounded up (away from zero)."""
        return self.scaled_value(-3)

    def scaled_value(self, scale: int) -> int:
        """Go ``Quantity.ScaledValue(scale)`` (``scale`` an int32), overflow behaviour included."""
        if not -(1 << 31) <= scale < (1 << 31):
            raise ValueError(f"scale {scale} is not an int32")
        v = self.unscaled
        if self.is_dec:
            return self._dec_scaled(_wrap(-scale, 32))
        if self.scale < scale:  # int64Amount.AsScaledInt64 -> negativeScaleInt64
            n = _wrap(scale - self.scale, 32)
            if n <= 0 or v == 0:
                return v
            q = -(-abs(v) // 10**n) if n < 19 else 1  # |v| / 10**n rounded up
            return q if v > 0 else -q
        n = _wrap(self.scale - scale, 32)  # positiveScaleInt64, ok flag ignored by Go
        if n <= 0 or v == 0:
            return v
        if n in (1, 2, 3, 6, 9):  # the unrolled cases hand back the wrapped product
            return _wrap(v * 10**n)
        v = v * 10**n if n < 19 else 1 << 64  # the generic loop gives 0 on overflow
        return v if -_INT64_MAX - 1 <= v <= _INT64_MAX else 0

    def _dec_scaled(self, new_scale: int) -> int:
        """scale_int.go ``scaledValue`` on ``unscaled * 10**shift`` at inf scale ``-scale``."""
        m, k = self.unscaled, self.shift
        if m == 0:
            return 0
        low = _wrap(m * pow(10, k, 1 << 64))  # big.Int.Int64(): low 64 bits, signed
        dif = -self.scale - new_scale
        if dif == 0:
            return low
        if dif < 0:  # int64(math.Pow10(n)) is -2**63 on amd64 once 10**n > int64
            return _wrap(low * (10**-dif if -dif <= 18 else -(1 << 63)))
        if (m < 0 or (k < 19 and m * 10**k < _INT64_MAX)) and dif < 19:
            d = 10**dif
            q = abs(low) // d * (-1 if low < 0 else 1)  # Go's truncating division
            return q + 1 if low - q * d else q
        if k >= dif:  # big.Int DivMod, exact: quotient m * 10**(k-dif)
            return _wrap(m * pow(10, k - dif, 1 << 64))
        if dif > k + m.bit_length() // 3 + 1:  # |m * 10**k| < 10**dif
            return 1 if m > 0 else 0
        q, r = divmod(m * 10**k, 10**dif)  # floor division, like Euclidean DivMod
        return _wrap(_wrap(q) + 1) if r else _wrap(q)

    def as_fraction(self) -> Fraction:
        """The exact number. Raises OverflowError beyond 10**±100000 (Go accepts such)."""
        if self.unscaled == 0:
            return Fraction(0)
        e = self.shift + self.scale
        if abs(e) > 100_000:
            raise OverflowError(f"quantity exponent {e} is too large to materialize")
        return self.unscaled * Fraction(10) ** e


def _invalid(s: object, why: str) -> ValueError:
    shown = repr(s) if len(repr(s)) <= 60 else repr(s)[:57] + "..."
    return ValueError(f"invalid quantity {shown}: {why}; {_EXPECTED}")


def parse_quantity(s: str) -> Quantity:
    """Go ``resource.ParseQuantity``: same accepted strings, same value and representation.

    Raises ValueError for everything Go rejects (empty, whitespace, ``K``, ``ki``, ``1.2.3``).
    Oddities Go accepts are accepted too: ``1.G``, and zero for ``.``, ``-``, ``m``, ``Ki``, ``e3``.
    """
    if not isinstance(s, str):
        raise _invalid(s, f"a {type(s).__name__}, not a string")
    if s == "":
        raise _invalid(s, "empty string")
    if s == "0":
        return Quantity(0, 0)
    m = _SCAN.fullmatch(s)
    if m is None:
        raise _invalid(s, "not of the form [+|-]<digits>[.<digits>][<suffix>]")
    sign, zeros, num, dot, denom, suf = m.groups()
    denom = denom or ""
    num = num or "0"
    positive = sign != "-"

    if suf in _DECIMAL:  # suffix.go interpret
        base, exponent, fmt = 10, _DECIMAL[suf], DECIMAL_SI
    elif suf in _BINARY:
        base, exponent, fmt = 2, _BINARY[suf], BINARY_SI
    elif len(suf) > 1 and suf[0] in "eE" and _EXPONENT.fullmatch(suf[1:]):
        body = suf[1:].lstrip("+-").lstrip("0")  # strconv.ParseInt(_, 10, 64)
        parsed = (int(body or "0") if len(body) < 20 else 1 << 64) * (-1 if "-" in suf else 1)
        if not -(1 << 63) <= parsed <= _INT64_MAX:
            raise _invalid(s, f"exponent {suf[1:]} is out of the int64 range")
        base, exponent, fmt = 10, _wrap(parsed, 32), DECIMAL_EXPONENT
    else:
        hint = f" (did you mean {_HINTS[suf]!r}?)" if suf in _HINTS else ""
        raise _invalid(s, f"unknown suffix {suf!r}{hint}")

    if fmt == BINARY_SI:  # Go: 15 - len(num) - int32(float32(exponent)*3/10) - 1
        scale, mantissa = 0, 1 << exponent
        precision = 14 - len(num) - exponent * 3 // 10 if denom == "" else -1
    else:
        scale, mantissa, precision = exponent, 1, 18 - len(num) - len(denom)
    if precision >= 0:
        scale = _wrap(scale - len(denom), 32)
        if scale >= -9:
            result = int(num + denom) * mantissa
            if result <= _INT64_MAX:
                return Quantity(result if positive else -result, scale, fmt)

    # The inf.Dec path: the numeric text as a decimal, then the suffix applied.
    digits = zeros + (m.group(3) or "") + denom
    if digits == "":
        raise _invalid(s, "no digits in the numeric part")
    unscaled = int(Decimal(digits))  # magnitude, sign applied last; int(str) caps digits
    inf_scale = len(denom) if dot else 0
    if base == 10:
        inf_scale = _wrap(inf_scale + _wrap(-exponent, 32), 32)
    else:
        unscaled <<= exponent
    shift = 0
    if unscaled != 0:  # inf.Dec.Round(_, 9, RoundUp): to nano, away from zero
        shift = _wrap(9 - inf_scale, 32)
        if 0 <= shift <= 64:
            unscaled, shift = unscaled * 10**shift, 0
        elif shift < 0:
            dropped = -shift  # digits divided away, rounding up
            unscaled = -(-unscaled // 10**dropped) if dropped <= len(digits) + 20 else 1
            shift = 0
        inf_scale = 9
        if fmt == BINARY_SI:  # shift is 0 here: binary quantities have no exponent
            if unscaled > _INT64_MAX * 10**9:
                unscaled, inf_scale = _INT64_MAX, 0
            if unscaled < 10**inf_scale:
                fmt = DECIMAL_SI
    return Quantity(unscaled if positive else -unscaled, -inf_scale, fmt, True, shift)


def _go_json_float(f: float) -> str:
    """The text encoding/json's ``Marshal`` writes for a float64: shortest round-trip digits
    (as ``repr``), exponent form below 1e-6 and from 1e21 (``1e-7``, ``1.5e+300``)."""
    if not math.isfinite(f):
        raise _invalid(f, "not a finite number")
    exponent_form = f != 0 and (abs(f) < 1e-6 or abs(f) >= 1e21)
    return format(Decimal(repr(f)).normalize(), "e" if exponent_form else "f")


def quantity_from_yaml(v: object) -> Quantity:
    """A quantity field's value as a PyYAML loader hands it over, decoded as Go does.

    Go's path is go-yaml v2 -> ``json.Marshal`` -> ``Quantity.UnmarshalJSON``, which sees
    the JSON text: ints verbatim, floats in encoding/json's shortest form (``0.5``, ``1e-7``,
    ``1e+21``), strings with their quotes stripped, escapes left in place and Unicode
    spaces trimmed; ``null`` gives zero. Not recoverable from PyYAML's objects (the loader
    must keep the scalar text for these): YAML 1.1 sexagesimal ints (``1:30`` is 90 in
    PyYAML, a string to Go), plain scalars PyYAML keeps as strings but Go reads as numbers
    (``1e3`` gives the same number but ``1e19`` overflows differently; ``0o10``, ``1_0e3``
    are rejected here, accepted by Go), floats beyond 1.8e308 (``inf`` here, a string
    to Go), and ints beyond uint64 written in hex/octal.
    """
    if v is None:
        return Quantity(0, 0, "")
    if isinstance(v, bool) or not isinstance(v, int | float | str | bytes):
        raise _invalid(v, f"a YAML {type(v).__name__}, not a number or string")
    if isinstance(v, bytes):  # !!binary: Go decodes it to a string of those bytes
        try:
            v = v.decode("utf-8")
        except UnicodeDecodeError:
            raise _invalid(v, "binary data that is not UTF-8") from None
    if isinstance(v, str):
        if _JSON_ESCAPED.search(v):
            raise _invalid(v, "contains a control or escaped character")
        return parse_quantity(v.strip(_GO_SPACE))
    if isinstance(v, int):
        if not -(1 << 63) <= v < (1 << 64):  # beyond int64/uint64 go-yaml makes a float64
            try:
                return parse_quantity(_go_json_float(float(v)))
            except OverflowError:
                pass
        return parse_quantity(str(v))
    return parse_quantity(_go_json_float(v))
