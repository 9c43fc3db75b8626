"""Tests of kscore_fast.model.quantity against apimachinery v1.23's resource.Quantity.

The tables marked ``Test...`` are ported from
staging/src/k8s.io/apimachinery/pkg/api/resource/quantity_test.go (Kubernetes v1.23); the
``GO_OBSERVED`` tables hold what that package's ParseQuantity/Value/MilliValue (and
sigs.k8s.io/yaml + Quantity.UnmarshalJSON for YAML) returned when run on linux/amd64.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from kscore_fast.model.quantity import Quantity, parse_quantity, quantity_from_yaml

DSI, BSI, DEX = "DecimalSI", "BinarySI", "DecimalExponent"
INT64_MAX = 2**63 - 1

# quantity_test.go TestQuantityParse: (input, mantissa, base-10 exponent, format).
PARSE_TABLE = [
    *[(z, 0, 0, DSI) for z in ["0", "0n", "0u", "0m", "0k", "0M", "0G", "0T"]],
    *[(z, 0, 0, BSI) for z in ["0Ki", "0Mi", "0Gi", "0Ti"]],
    ("1", 1, 0, DSI),
    ("1Ki", 1024, 0, BSI),
    ("8Ki", 8 * 1024, 0, BSI),
    ("7Mi", 7 * 1024**2, 0, BSI),
    ("6Gi", 6 * 1024**3, 0, BSI),
    ("5Ti", 5 * 1024**4, 0, BSI),
    ("4Pi", 4 * 1024**5, 0, BSI),
    ("3Ei", 3 * 1024**6, 0, BSI),
    ("10Ti", 10 * 1024**4, 0, BSI),
    ("100Ti", 100 * 1024**4, 0, BSI),
    ("5n", 5, -9, DSI),
    ("4u", 4, -6, DSI),
    ("3m", 3, -3, DSI),
    ("9", 9, 0, DSI),
    ("8k", 8, 3, DSI),
    ("50k", 5, 4, DSI),
    ("7M", 7, 6, DSI),
    ("6G", 6, 9, DSI),
    ("5T", 5, 12, DSI),
    ("40T", 4, 13, DSI),
    ("300T", 3, 14, DSI),
    ("2P", 2, 15, DSI),
    ("1E", 1, 18, DSI),
    ("1E-3", 1, -3, DEX),
    ("1e3", 1, 3, DEX),
    ("1E6", 1, 6, DEX),
    ("1e9", 1, 9, DEX),
    ("1E12", 1, 12, DEX),
    ("1e15", 1, 15, DEX),
    ("1E18", 1, 18, DEX),
    ("1e14", 1, 14, DEX),
    ("1e13", 1, 13, DEX),
    ("100.035k", 100035, 0, DSI),
    ("0.001", 1, -3, DSI),
    ("0.0005k", 5, -1, DSI),
    ("0.005", 5, -3, DSI),
    ("0.05", 5, -2, DSI),
    ("0.5", 5, -1, DSI),
    ("0.00050k", 5, -1, DSI),
    ("0.00500", 5, -3, DSI),
    ("0.05000", 5, -2, DSI),
    ("0.50000", 5, -1, DSI),
    ("0.5e0", 5, -1, DEX),
    ("0.5e-1", 5, -2, DEX),
    ("0.5e-2", 5, -3, DEX),
    ("10.035M", 10035, 3, DSI),
    ("1.2e3", 12, 2, DEX),
    ("1.3E+6", 13, 5, DEX),
    ("1.40e9", 14, 8, DEX),
    ("1.53E12", 153, 10, DEX),
    ("1.6e15", 16, 14, DEX),
    ("1.7E18", 17, 17, DEX),
    ("9.01", 901, -2, DSI),
    ("8.1k", 81, 2, DSI),
    ("7.123456M", 7123456, 0, DSI),
    ("6.987654321G", 6987654321, 0, DSI),
    ("5.444T", 5444, 9, DSI),
    ("40.1T", 401, 11, DSI),
    ("300.2T", 3002, 11, DSI),
    ("2.5P", 25, 14, DSI),
    ("1.01E", 101, 16, DSI),
    ("3.001n", 4, -9, DSI),
    ("1.1E-9", 2, -9, DEX),
    ("0.0000000001", 1, -9, DSI),
    ("0.0000000005", 1, -9, DSI),
    ("0.00000000050", 1, -9, DSI),
    ("0.5e-9", 1, -9, DEX),
    ("0.9n", 1, -9, DSI),
    ("0.00000012345", 124, -9, DSI),
    ("0.00000012354", 124, -9, DSI),
    ("9Ei", INT64_MAX, 0, BSI),
    ("9223372036854775807Ki", INT64_MAX, 0, BSI),
    ("12E", 12, 18, DSI),
    ("100.035Ki", 10243584, -2, BSI),
    ("0.5Mi", 524288, 0, BSI),
    ("0.05Gi", 536870912, -1, BSI),
    ("0.025Ti", 274877906944, -1, BSI),
    ("0.000000000001Ki", 2, -9, DSI),
    (".001", 1, -3, DSI),
    (".0001k", 100, -3, DSI),
    ("1.", 1, 0, DSI),
    ("1.G", 1, 9, DSI),
]

# quantity_test.go TestQuantityParse invalid list, TestQuantityParseNonNumericPanic,
# TestQuantityValueSet, plus cases from the brief.
INVALID = [
    *["1.1.M", "1+1.0M", "0.1mi", "0.1am", "aoeu", ".5i", "1i", "-3.01i", "-3.01e-", " 1", "1 "],
    *["", "Non-Numeric", "invalid", "K", "1K", "1ki", "1KI", "1Kb", "1.2.3", "1..2", "1e", "1E+"],
    *["1 Gi", "\t1", "1\n", "\n1", "1e3e3", "1Ki3", "1-2", "1e1.5", "١", "+-1", "--1"],
    *["1e9223372036854775808", ".e-10", "+e-10", "-.e-10"],
]


def _param(table_name: str, case: tuple, idx: int = 0) -> object:
    return pytest.param(*case, id=f"{table_name}:{case[idx]!r}")


@pytest.mark.parametrize(
    ("text", "mantissa", "exp", "fmt"), [_param("TestQuantityParse", c) for c in PARSE_TABLE]
)
@pytest.mark.parametrize("sign", ["", "-", "+"])
def test_quantity_parse(sign: str, text: str, mantissa: int, exp: int, fmt: str) -> None:
    q = parse_quantity(sign + text)
    expected = Fraction(mantissa) * Fraction(10) ** exp
    assert q.as_fraction() == (-expected if sign == "-" else expected)
    assert q.format == fmt


@pytest.mark.parametrize("text", [pytest.param(s, id=f"invalid:{s!r}") for s in INVALID])
def test_quantity_parse_invalid(text: str) -> None:
    with pytest.raises(ValueError, match="invalid quantity"):
        parse_quantity(text)


def test_quantity_parse_zero() -> None:
    """TestQuantityParseZero."""
    q = parse_quantity("0")
    assert (q.value(), q.milli_value(), q.format, q.as_fraction()) == (0, 0, DSI, 0)


@pytest.mark.parametrize("text", [".", "-.", "0.025Ti", "1.025Ti", "-1.025Ti", "1E-3"])
def test_parse_quantity_string_inputs_parse(text: str) -> None:
    """TestParseQuantityString: inputs the scanner accepts (``.`` and ``-.`` are zero)."""
    parse_quantity(text)


# TestQuantityParseEmit (input, canonical form) and TestQuantityString (canonical, alternate).
SAME_VALUE = [
    *[("1024Mi", "1Gi"), ("1000M", "1G"), (".001Ki", "1024m"), (".000001Ki", "1024u")],
    *[(".000000001Ki", "1024n"), (".000000000001Ki", "2n"), ("1024Mi", "1Gi")],
    *[("300Mi", "307200Ki"), ("1001Gi", "1025024Mi"), ("1Ti", "1024Gi"), ("5", "5000m")],
    *[("500m", "0.5"), ("1G", "1000M"), ("1G", "0.001T"), ("1m", "1000u"), ("1080m", "1.08")],
    *[("1080m", "1080000000n"), ("1e9", ".001e12"), ("1e-3", "0.001e0"), ("1e-9", "1000e-12")],
    *[("0", "00")],
]


@pytest.mark.parametrize(("a", "b"), [pytest.param(*c, id=f"{c[0]}={c[1]}") for c in SAME_VALUE])
def test_quantity_parse_emit_same_value(a: str, b: str) -> None:
    assert parse_quantity(a).as_fraction() == parse_quantity(b).as_fraction()
    assert parse_quantity("-" + a).as_fraction() == -parse_quantity(b).as_fraction()


@pytest.mark.parametrize(
    ("text", "value"),
    [("1", 1), ("1k", 1000), ("1234k", 1234000), ("1Ki", 1024), ("1e6", 10**6), ("1Mi", 2**20)],
)
def test_new_set_value(text: str, value: int) -> None:
    """TestNewSet: the canonical strings parse back to the same Value()."""
    assert parse_quantity(text).value() == value


@pytest.mark.parametrize(
    ("text", "milli"), [("1m", 1), ("1", 1000), ("1234", 1234000), ("1e3", 10**6)]
)
def test_milli_new_set(text: str, milli: int) -> None:
    """TestMilliNewSet: the exact cases parse back to the same MilliValue()."""
    assert parse_quantity(text).milli_value() == milli


@pytest.mark.parametrize(
    ("text", "scale", "expected"),
    [
        *[("1n", -9, 1), ("1u", -9, 1000), ("1u", -6, 1), ("1m", -6, 1000), ("1m", -3, 1)],
        *[("1", -3, 1000), ("1", 0, 1), ("0", -9, 0), ("0", -6, 0), ("0", -3, 0), ("0", 0, 0)],
    ],
)
def test_new_scaled_set(text: str, scale: int, expected: int) -> None:
    """TestNewScaledSet: ScaledValue of the canonical string."""
    assert parse_quantity(text).scaled_value(scale) == expected


@pytest.mark.parametrize(
    ("from_scale", "to_scale", "expected"),
    [
        *[(-9, -9, 1), (-9, -6, 1), (-9, -3, 1), (-9, 0, 1), (-6, -9, 1000), (-6, -6, 1)],
        *[(-6, -3, 1), (-6, 0, 1), (-3, -9, 10**6), (-3, -6, 1000), (-3, -3, 1), (-3, 0, 1)],
        *[(0, -9, 10**9), (0, -6, 10**6), (0, -3, 1000), (0, 0, 1), (2, -2, 100 * 100)],
    ],
)
def test_scaled_value(from_scale: int, to_scale: int, expected: int) -> None:
    """TestScaledValue: NewScaledQuantity(1, from) is what "1e<from>" parses to."""
    q = parse_quantity(f"1e{from_scale}")
    assert (q.unscaled, q.scale, q.is_dec) == (1, from_scale, False)
    assert q.scaled_value(to_scale) == expected


def test_string_quantity_as_approximate_float64_values() -> None:
    """TestStringQuantityAsApproximateFloat64, compared exactly."""
    assert parse_quantity("2Ki").as_fraction() == 2048
    assert parse_quantity("1.1Ki").as_fraction() == Fraction("1126.4")
    assert parse_quantity("2Gi").value() == 2 * 2**30


# ParseQuantity -> (format, inf.Dec form?, unscaled, scale, Value(), MilliValue()) as Go
# printed them; for the inf.Dec form ``scale`` is inf.Dec's (minus resource.Scale).
GO_OBSERVED = [
    *[("+", (DSI, False, 0, 0, 0, 0)), ("-", (DSI, False, 0, 0, 0, 0))],
    *[(".", (DSI, False, 0, 0, 0, 0)), ("-.", (DSI, False, 0, 0, 0, 0))],
    *[("m", (DSI, False, 0, -3, 0, 0)), ("E", (DSI, False, 0, 18, 0, 0))],  # no digits: zero
    *[("-Mi", (BSI, False, 0, 0, 0, 0)), ("Ki", (BSI, False, 0, 0, 0, 0))],
    *[("+e-9", (DEX, False, 0, -9, 0, 0)), ("e3", (DEX, False, 0, 3, 0, 0)), ("e-10", None)],
    *[
        ("Ti", (BSI, False, 0, 0, 0, 0)),
        ("Pi", None),
        ("-.Pi", None),
        ("0Ei", (BSI, True, 0, 0, 0, 0)),
    ],
    ("1.G", (DSI, False, 1, 9, 10**9, 10**12)),
    (".5", (DSI, False, 5, -1, 1, 500)),
    ("-1.5", (DSI, False, -15, -1, -2, -1500)),
    ("-1n", (DSI, False, -1, -9, -1, -1)),
    ("-1e-10", (DEX, True, -1, 9, 1, 1)),
    ("-0.9n", (DSI, True, -1, 9, 1, 1)),
    ("0.1n", (DSI, True, 1, 9, 1, 1)),
    ("1e18", (DEX, False, 1, 18, 10**18, 0)),
    ("1e19", (DEX, False, 1, 19, 0, 0)),
    ("1e2147483647", (DEX, False, 1, 2147483647, 0, 1)),
    ("-1e2147483647", (DEX, False, -1, 2147483647, 0, -1)),
    ("0.5e-2147483648", (DEX, False, 5, 2147483647, 0, 5)),
    ("1e4294967296", (DEX, False, 1, 0, 1, 1000)),
    ("1e4294967299", (DEX, False, 1, 3, 1000, 10**6)),
    ("1e-4294967296", (DEX, False, 1, 0, 1, 1000)),
    ("1e9223372036854775807", (DEX, False, 1, -1, 1, 100)),
    ("9300000000000000", (DSI, False, 93 * 10**14, 0, 93 * 10**14, -9146744073709551616)),
    ("9223372036854775", (DSI, False, 9223372036854775, 0, 9223372036854775, 9223372036854775000)),
    (
        "922337203685477.5808",
        (DSI, True, 9223372036854775808 * 10**5, 9, 922337203685478, 922337203685477581),
    ),
    ("9223372036854775807", (DSI, True, INT64_MAX * 10**9, 9, INT64_MAX, -1000)),
    ("9223372036854775808", (DSI, True, 2**63 * 10**9, 9, -(2**63), 0)),
    ("-9223372036854775808", (DSI, True, -(2**63) * 10**9, 9, 0, 0)),
    ("100000000000000000000", (DSI, True, 10**29, 9, 7766279631452241920, 200376420520689664)),
    ("-100000000000000000000", (DSI, True, -(10**29), 9, -7886392055, -7886392056513)),
    ("-1000000000000000000", (DSI, True, -(10**27), 9, 6930898828, 6930898827445)),
    ("-9223372036.854775807", (DSI, True, -INT64_MAX, 9, -9223372035, -9223372036853)),
    ("-9300000000.0000000000000", (DSI, True, -93 * 10**17, 9, 9146744074, 9146744073710)),
    ("18446744073709551615", (DSI, True, (2**64 - 1) * 10**9, 9, -1, -1000)),
    (
        "1000000000000000000000000",
        (DSI, True, 10**33, 9, 2003764205206896640, -6930898827444486144),
    ),
    ("8Ei", (BSI, True, INT64_MAX, 0, INT64_MAX, -1000)),
    ("-8Ei", (BSI, True, -INT64_MAX, 0, -INT64_MAX, 1000)),
    (
        "7.9999999999Ei",
        (BSI, True, 9223372036739483657539315303, 9, 9223372036739483658, -115292150460),
    ),
    ("8589934591.9999999999Gi", (BSI, True, INT64_MAX, 0, INT64_MAX, -1000)),
    ("-0.000000000001Ki", (DSI, True, -2, 9, 1, 1)),
    ("1.5Ki", (BSI, True, 1536 * 10**9, 9, 1536, 1536000)),
    ("100.035Ki", (BSI, True, 102435840000000, 9, 102436, 102435840)),
    ("0.1Mi", (BSI, True, 104857600000000, 9, 104858, 104857600)),
    ("1.000000000000000000001", (DSI, True, 1000000001, 9, 2, 1001)),
    ("-1.000000000000000000001", (DSI, True, -1000000001, 9, 0, -999)),
    ("0." + "0" * 30 + "1", (DSI, True, 1, 9, 1, 1)),
    ("-0." + "0" * 30 + "1", (DSI, True, -1, 9, 1, 1)),
    ("0e-20", (DEX, True, 0, 20, 0, 0)),
    ("12E", (DSI, False, 12, 18, 0, 0)),
    ("1.01E", (DSI, False, 101, 16, 1010000000000000000, 0)),
    ("2P", (DSI, False, 2, 15, 2 * 10**15, 2 * 10**18)),
    ("100m", (DSI, False, 100, -3, 1, 100)),
    ("1e3m", None),
]


def _go_view(q: Quantity) -> tuple:
    return (
        q.format,
        q.is_dec,
        q.unscaled,
        -q.scale if q.is_dec else q.scale,
        q.value(),
        q.milli_value(),
    )


@pytest.mark.parametrize(("text", "go"), [_param("goref", c) for c in GO_OBSERVED])
def test_go_observed_parse(text: str, go: tuple | None) -> None:
    if go is None:
        with pytest.raises(ValueError):
            parse_quantity(text)
    else:
        assert _go_view(parse_quantity(text)) == go


def test_huge_exponent_stays_symbolic() -> None:
    """Go builds 10**5028 here; we keep the power symbolic. Go printed Value 0, Milli 0."""
    q = parse_quantity("1" + "0" * 19 + "e5000")
    view = (q.is_dec, q.unscaled, q.shift, q.scale, q.value(), q.milli_value())
    assert view == (True, 10**19, 5009, -9, 0, 0)
    assert q.as_fraction() == 10**5019
    assert parse_quantity("1" * 5000).is_dec  # beyond Python's int(str) digit limit
    huge = parse_quantity("1" * 19 + "e2147483000")
    assert huge.shift > 2**31 - 1000 and isinstance(huge.value(), int)
    with pytest.raises(OverflowError):
        huge.as_fraction()


# What sigs.k8s.io/yaml + Quantity.UnmarshalJSON gave for `v: <scalar>`, keyed by the
# Python object a YAML loader produces for what go-yaml read (float, int, str or None).
GO_OBSERVED_YAML = [
    (0.5, (DSI, False, 5, -1, 1, 500)),
    (0.1, (DSI, False, 1, -1, 1, 100)),
    (5.0, (DSI, False, 5, 0, 5, 5000)),
    (-0.0, (DSI, False, 0, 0, 0, 0)),
    (1e3, (DSI, False, 1000, 0, 1000, 10**6)),
    (2, (DSI, False, 2, 0, 2, 2000)),
    (-1, (DSI, False, -1, 0, -1, -1000)),
    (1e20, (DSI, True, 10**29, 9, 7766279631452241920, 200376420520689664)),
    (1e21, (DEX, False, 1, 21, 0, 0)),
    (1.5e300, (DEX, False, 15, 299, 0, 0)),
    (1e-7, (DEX, False, 1, -7, 1, 1)),
    (1.5e-10, (DEX, True, 1, 9, 1, 1)),
    (0.000001, (DSI, False, 1, -6, 1, 1)),
    (123456789.123456789, (DSI, False, 12345678912345679, -8, 123456790, 123456789124)),
    (99999999999999999999, (DSI, True, 10**29, 9, 7766279631452241920, 200376420520689664)),
    (18446744073709551615, (DSI, True, (2**64 - 1) * 10**9, 9, -1, -1000)),
    (18446744073709551616, (DSI, True, 18446744073709552 * 10**12, 9, 384, 384000)),
    (-9223372036854775809, (DSI, True, -9223372036854776 * 10**12, 9, -192, -192000)),
    (None, ("", False, 0, 0, 0, 0)),
    (" 1", (DSI, False, 1, 0, 1, 1000)),
    ("1 ", (DSI, False, 1, 0, 1, 1000)),
    ("\u00a02Gi", (BSI, False, 2**31, 0, 2**31, 2**31 * 1000)),
    ("\u30001\u3000", (DSI, False, 1, 0, 1, 1000)),
    ("500m", (DSI, False, 500, -3, 1, 500)),
    *[(s, None) for s in ["\t1", "1\n", "\u20281", "", " ", "1<", "true"]],
    *[(v, None) for v in [True, False, math.inf, -math.inf, math.nan, [1], {"a": 1}]],
]


@pytest.mark.parametrize(("v", "go"), [_param("goref-yaml", c) for c in GO_OBSERVED_YAML])
def test_go_observed_yaml(v: object, go: tuple | None) -> None:
    if go is None:
        with pytest.raises(ValueError, match="invalid quantity"):
            quantity_from_yaml(v)
    else:
        assert _go_view(quantity_from_yaml(v)) == go


@pytest.mark.parametrize(
    ("doc", "value", "milli"),
    [
        ("cpu: 2", 2, 2000),
        ("cpu: 0.5", 1, 500),
        ("cpu: .5", 1, 500),
        ("cpu: 1.5e+3", 1500, 1500000),
        ("cpu: 1e3", 1000, 1000000),  # a string to PyYAML, a float to Go: same number
        ("cpu: '250m'", 1, 250),
        ("cpu: 0x10", 16, 16000),
        ("cpu: 1_000", 1000, 1000000),
        ("memory: 1Gi", 2**30, 2**30 * 1000),
        ("cpu: ~", 0, 0),
        ('cpu: " 1 "', 1, 1000),  # TestJSONWhitespace
    ],
)
def test_yaml_documents(doc: str, value: int, milli: int) -> None:
    (v,) = yaml.safe_load(doc).values()
    q = quantity_from_yaml(v)
    assert (q.value(), q.milli_value()) == (value, milli)


def test_yaml_binary_scalar() -> None:
    """go-yaml turns !!binary into a string of the decoded bytes; so do we."""
    assert quantity_from_yaml(yaml.safe_load("v: !!binary MQ==")["v"]).value() == 1
    with pytest.raises(ValueError, match="not UTF-8"):
        quantity_from_yaml(b"\xff")


def test_error_messages_are_helpful() -> None:
    with pytest.raises(ValueError, match=r"'1K'.*unknown suffix 'K' \(did you mean 'k'\?\)"):
        parse_quantity("1K")
    with pytest.raises(ValueError, match=r"empty string; expected a Kubernetes quantity"):
        parse_quantity("")
    with pytest.raises(ValueError, match=r"\.\.\.: not of the form"):
        parse_quantity("x" * 200)
    with pytest.raises(ValueError, match="a YAML list"):
        quantity_from_yaml([1])
    with pytest.raises(ValueError, match="scale"):
        parse_quantity("1").scaled_value(2**31)


# ---- property tests -----------------------------------------------------------------

_SUFFIX_POW = {"n": (10, -9), "u": (10, -6), "m": (10, -3), "": (10, 0), "k": (10, 3)}
_SUFFIX_POW |= {"M": (10, 6), "G": (10, 9), "T": (10, 12), "Ki": (2, 10), "Mi": (2, 20)}
_SUFFIX_POW |= {"Gi": (2, 30), "Ti": (2, 40)}


@st.composite
def decimal_quantities(draw: st.DrawFn) -> tuple[str, Fraction]:
    sign = draw(st.sampled_from(["", "+", "-"]))
    whole = draw(st.text("0123456789", max_size=12))
    frac = draw(st.none() | st.text("0123456789", max_size=12))
    if not whole and not frac:
        whole = "0"
    suffix = draw(st.sampled_from([*_SUFFIX_POW, "e", "E"]))
    if suffix in ("e", "E"):
        e = draw(st.integers(-15, 12))
        mult = Fraction(10) ** e
        suffix = f"{suffix}{e:+d}" if draw(st.booleans()) else f"{suffix}{e}"
    else:
        base, e = _SUFFIX_POW[suffix]
        mult = Fraction(base) ** e
    number = (whole or "0") + ("." + frac if frac else "")
    text = sign + whole + ("." + frac if frac is not None else "")
    x = Fraction(number) * mult
    return text + suffix, -x if sign == "-" else x


def _nano_round(x: Fraction) -> Fraction:
    """Round away from zero to a multiple of 1e-9, as ParseQuantity does."""
    n = math.ceil(abs(x) * 10**9)
    return Fraction(n if x >= 0 else -n, 10**9)


def _go_round(x: Fraction, is_dec: bool) -> int:
    """Value()'s rounding: away from zero, except inf.Dec negatives give trunc + 1."""
    if x >= 0 or not is_dec:
        n = math.ceil(abs(x))
        return n if x >= 0 else -n
    t = math.trunc(x)
    return t + 1 if t != x else t


@settings(max_examples=400, deadline=None)
@given(decimal_quantities())
def test_property_value_is_ceiling_of_exact(case: tuple[str, Fraction]) -> None:
    text, x = case
    q = parse_quantity(text)
    exact = _nano_round(x)
    if text.endswith("i") and abs(exact) > INT64_MAX:  # BinarySI is capped at 2**63-1
        exact = INT64_MAX if exact > 0 else -INT64_MAX
    assert q.as_fraction() == exact
    if abs(exact) * 10**9 < 2**62:  # beyond, Go's int64 arithmetic wraps (GO_OBSERVED)
        assert q.value() == _go_round(exact, q.is_dec)
        assert q.milli_value() == _go_round(exact * 1000, q.is_dec)
        assert q.scaled_value(-9) == exact * 10**9


@settings(max_examples=300, deadline=None)
@given(st.integers(-INT64_MAX, INT64_MAX))
def test_property_integers_round_trip(i: int) -> None:
    for q in (parse_quantity(str(i)), quantity_from_yaml(i)):
        if i >= 0 or i > -(10**18):  # 19-digit negatives take the wrapping inf.Dec path
            assert q.value() == i
        if abs(i) <= INT64_MAX // 1000 and (i >= 0 or not q.is_dec):
            assert q.milli_value() == i * 1000


@settings(max_examples=300, deadline=None)
@given(st.floats(allow_nan=False, allow_infinity=False))
def test_property_yaml_floats_keep_their_shortest_digits(f: float) -> None:
    q = quantity_from_yaml(f)
    if f == 0 or 1e-300 < abs(f) < 1e300:
        assert q.as_fraction() == _nano_round(Fraction(repr(f)))


def _go_scan_ok(s: str) -> bool:
    """Port of quantity.go parseQuantityString + interpret + inf.Dec.SetString's digit check:
    True when Go's ParseQuantity would not return an error for ``s``."""
    if s == "":
        return False
    i, n = (1 if s[0] in "+-" else 0), len(s)
    start = i
    while i < n and s[i] in "0123456789":
        i += 1
    has_digits = i > start
    if i < n and s[i] == ".":
        j = i + 1
        while j < n and s[j] in "0123456789":
            j += 1
        has_digits, i = has_digits or j > i + 1, j
    suffix_start = i
    while i < n and s[i] in "eEinumkKMGTP":
        i += 1
    if i < n and s[i] in "+-":
        i += 1
    while i < n and s[i] in "0123456789":
        i += 1
    if i != n:
        return False
    suf = s[suffix_start:]
    if suf in ("Ki", "Mi", "Gi", "Ti", "Pi", "Ei"):  # no digits: the int64 path needs
        return has_digits or suf in ("Ki", "Mi", "Gi", "Ti")  # 14 - 1 - 3*exp/10 >= 0
    if suf in _SUFFIX_POW or suf in ("P", "E"):
        return True
    if len(suf) > 1 and suf[0] in "eE" and re.fullmatch(r"[+-]?[0-9]+", suf[1:]):
        parsed = int(suf[1:])
        if not -(2**63) <= parsed <= INT64_MAX:  # strconv.ParseInt(_, 10, 64)
            return False
        exponent = (parsed + 2**31) % 2**32 - 2**31  # int32(parsed)
        # Without digits only the int64 fast path works; inf.Dec.SetString needs a digit.
        return has_digits or exponent >= -9
    return False


@settings(max_examples=1500, deadline=None)
@given(st.text("0123456789.+-eEinumkKMGTPix ", max_size=9))
def test_property_accepts_exactly_what_go_scans(s: str) -> None:
    try:
        parse_quantity(s)
        ok = True
    except ValueError:
        ok = False
    assert ok == _go_scan_ok(s)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=30))
def test_property_never_crashes(s: str) -> None:
    try:
        q = parse_quantity(s)
    except ValueError:
        return
    assert isinstance(q.value(), int) and isinstance(q.milli_value(), int)
