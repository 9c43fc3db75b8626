"""Tests of kscore_fast.model.validation against apimachinery v1.23's verdicts.

The good/bad lists are ported from
staging/src/k8s.io/apimachinery/pkg/util/validation/validation_test.go (Kubernetes v1.23):
TestIsDNS1123Label, TestIsDNS1123Subdomain, TestIsQualifiedName, TestIsValidLabelValue.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kscore_fast.model.validation import (
    is_dns1123_label,
    is_dns1123_subdomain,
    is_qualified_name,
    is_valid_label_value,
    valid_dns1123_subdomain,
    valid_label_value,
    validate_labels,
)

QUALIFIED_GOOD = [
    "simple",
    "now-with-dashes",
    "1-starts-with-num",
    "1234",
    "simple/simple",
    "now-with-dashes/simple",
    "now-with-dashes/now-with-dashes",
    "now.with.dots/simple",
    "now-with.dashes-and.dots/simple",
    "1-num.2-num/3-num",
    "1234/5678",
    "1.2.3.4/5678",
    "Uppercase_Is_OK_123",
    "example.com/Uppercase_Is_OK_123",
    "requests.storage-foo",
    "a" * 63,
    "a" * 253 + "/" + "b" * 63,
]
QUALIFIED_BAD = [
    "nospecialchars%^=@",
    "cantendwithadash-",
    "-cantstartwithadash-",
    "only/one/slash",
    "Example.com/abc",
    "example_com/abc",
    "example.com/",
    "/simple",
    "a" * 64,
    "a" * 254 + "/abc",
    # not in the Go table; verdicts follow from the same code
    "",
    "/",
    "a/b/c",
    "abc\n",
    "a" * 62 + "é",
    "kubernetes.io/hostname ",
]

LABEL_VALUE_GOOD = [
    "simple",
    "now-with-dashes",
    "1-starts-with-num",
    "end-with-num-1",
    "1234",
    "a" * 63,
    "",
]
LABEL_VALUE_BAD = [
    "nospecialchars%^=@",
    "Tama-nui-te-rā.is.Māori.sun",
    "\\backslashes\\are\\bad",
    "-starts-with-dash",
    "ends-with-dash-",
    ".starts.with.dot",
    "ends.with.dot.",
    "a" * 64,
    # not in the Go table
    "value\n",
    "a/b",
    " ",
    "é" * 32,
]

DNS1123_LABEL_GOOD = ["a", "ab", "abc", "a1", "a-1", "a--1--2--b", "0", "01", "012", "1a", "1-a"]
DNS1123_LABEL_GOOD += ["1--a--b--2", "a" * 63]
DNS1123_LABEL_BAD = ["", "A", "ABC", "aBc", "A1", "A-1", "1-A", "-", "a-", "-a", "1-", "-1"]
DNS1123_LABEL_BAD += ["_", "a_", "_a", "a_b", "1_", "_1", "1_2", ".", "a.", ".a", "a.b", "1.", ".1"]
DNS1123_LABEL_BAD += ["1.2", " ", "a ", " a", "a b", "1 ", " 1", "1 2", "a" * 64]

DNS1123_SUBDOMAIN_GOOD = [
    *["a", "ab", "abc", "a1", "a-1", "a--1--2--b", "0", "01", "012", "1a", "1-a", "1--a--b--2"],
    *["a.a", "ab.a", "abc.a", "a1.a", "a-1.a", "a--1--2--b.a", "a.1", "ab.1", "abc.1", "a1.1"],
    *["a-1.1", "a--1--2--b.1", "0.a", "01.a", "012.a", "1a.a", "1-a.a", "1--a--b--2", "0.1"],
    *["01.1", "012.1", "1a.1", "1-a.1", "1--a--b--2.1", "a.b.c.d.e", "aa.bb.cc.dd.ee"],
    *["1.2.3.4.5", "11.22.33.44.55", "a" * 253],
]
DNS1123_SUBDOMAIN_BAD = [
    *["", "A", "ABC", "aBc", "A1", "A-1", "1-A", "-", "a-", "-a", "1-", "-1", "_", "a_", "_a"],
    *["a_b", "1_", "_1", "1_2", ".", "a.", ".a", "a..b", "1.", ".1", "1..2", " ", "a ", " a"],
    *["a b", "1 ", " 1", "1 2", "A.a", "aB.a", "ab.A", "A1.a", "a1.A", "A.1", "aB.1", "A1.1"],
    *["1A.1", "0.A", "01.A", "012.A", "1A.a", "1a.A", "A.B.C.D.E", "AA.BB.CC.DD.EE"],
    *["a.B.c.d.e", "aa.bB.cc.dd.ee", "a@b", "a,b", "a_b", "a;b", "a:b", "a%b", "a?b", "a$b"],
    *["a" * 254, "example.com\n"],
]


def _ids(name: str, values: list[str]) -> list[object]:
    return [pytest.param(v, id=f"{name}:{v[:40]!r}") for v in values]


@pytest.mark.parametrize("value", _ids("TestIsQualifiedName-good", QUALIFIED_GOOD))
def test_is_qualified_name_good(value: str) -> None:
    assert is_qualified_name(value) == []


@pytest.mark.parametrize("value", _ids("TestIsQualifiedName-bad", QUALIFIED_BAD))
def test_is_qualified_name_bad(value: str) -> None:
    assert is_qualified_name(value)


@pytest.mark.parametrize("value", _ids("TestIsValidLabelValue-good", LABEL_VALUE_GOOD))
def test_is_valid_label_value_good(value: str) -> None:
    assert is_valid_label_value(value) == [] and valid_label_value(value)


@pytest.mark.parametrize("value", _ids("TestIsValidLabelValue-bad", LABEL_VALUE_BAD))
def test_is_valid_label_value_bad(value: str) -> None:
    assert is_valid_label_value(value) and not valid_label_value(value)


@pytest.mark.parametrize("value", _ids("TestIsDNS1123Label-good", DNS1123_LABEL_GOOD))
def test_is_dns1123_label_good(value: str) -> None:
    assert is_dns1123_label(value) == []


@pytest.mark.parametrize("value", _ids("TestIsDNS1123Label-bad", DNS1123_LABEL_BAD))
def test_is_dns1123_label_bad(value: str) -> None:
    assert is_dns1123_label(value)


@pytest.mark.parametrize("value", _ids("TestIsDNS1123Subdomain-good", DNS1123_SUBDOMAIN_GOOD))
def test_is_dns1123_subdomain_good(value: str) -> None:
    assert is_dns1123_subdomain(value) == [] and valid_dns1123_subdomain(value)


@pytest.mark.parametrize("value", _ids("TestIsDNS1123Subdomain-bad", DNS1123_SUBDOMAIN_BAD))
def test_is_dns1123_subdomain_bad(value: str) -> None:
    assert is_dns1123_subdomain(value) and not valid_dns1123_subdomain(value)


@pytest.mark.parametrize(
    ("value", "messages"),
    [
        ("", ["name part must be non-empty", "name part must consist of"]),
        ("/a", ["prefix part must be non-empty"]),
        ("a" * 64, ["name part must be no more than 63 characters"]),
        ("Bad.com/x", ["prefix part a lowercase RFC 1123 subdomain must consist of"]),
        ("a/b/c", ["a qualified name must consist of"]),
        ("a" * 254 + "/x", ["prefix part must be no more than 253 characters"]),
        ("A" * 254 + "/x", ["prefix part must be no more than 253", "prefix part a lowercase"]),
    ],
)
def test_is_qualified_name_messages(value: str, messages: list[str]) -> None:
    """The messages follow validation.go: one per failed rule, in Go's order."""
    errs = is_qualified_name(value)
    assert len(errs) == len(messages)
    for err, start in zip(errs, messages, strict=True):
        assert err.startswith(start)


def test_label_value_messages_count_bytes() -> None:
    """Go's len() counts UTF-8 bytes: 32 two-byte characters exceed 63."""
    errs = is_valid_label_value("é" * 32)
    assert errs[0] == "must be no more than 63 characters"
    assert "regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?'" in errs[1]


def test_validate_labels() -> None:
    assert validate_labels({"app": "web", "kubernetes.io/hostname": "node-1"}) == []
    errs = validate_labels({"bad key": "ok", "ok": "-bad"})
    assert len(errs) == 2
    assert errs[0].startswith("label key 'bad key': name part must consist")
    assert errs[1].startswith("label value '-bad' (key 'ok'): a valid label must")


# Reference implementation straight from the Go regexes (anchored with \Z, as Go's $ is).
_QNAME = r"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_SUBDOMAIN = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*"


def _ref_qualified(v: str) -> bool:
    parts = v.split("/")
    if len(parts) > 2:
        return False
    name = parts[-1]
    if len(parts) == 2 and not (
        parts[0] and len(parts[0].encode()) <= 253 and re.match(rf"^{_SUBDOMAIN}\Z", parts[0])
    ):
        return False
    return 0 < len(name.encode()) <= 63 and re.match(rf"^{_QNAME}\Z", name) is not None


@settings(max_examples=500, deadline=None)
@given(st.text("abzAZ09-_./ \né", max_size=70) | st.text(max_size=10))
def test_property_verdicts_match_reference(v: str) -> None:
    assert (is_qualified_name(v) == []) == _ref_qualified(v)
    ok_value = len(v.encode()) <= 63 and re.match(rf"^({_QNAME})?\Z", v) is not None
    assert (is_valid_label_value(v) == []) == ok_value == valid_label_value(v)
    ok_sub = len(v.encode()) <= 253 and re.match(rf"^{_SUBDOMAIN}\Z", v) is not None
    assert (is_dns1123_subdomain(v) == []) == ok_sub == valid_dns1123_subdomain(v)
