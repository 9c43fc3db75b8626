"""Selector semantics (apimachinery labels/selector.go, meta/v1 helpers.go) and their
compilation over label value-id columns, which the kernels rely on."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kscore_fast.model.labels import ABSENT, LabelInterner, UndeclaredLabelKey
from kscore_fast.model.selectors import (
    DOES_NOT_EXIST,
    EQUALS,
    EXISTS,
    IN,
    LOCAL_ABSENT,
    LOCAL_OTHER,
    NOT_IN,
    OP_DOES_NOT_EXIST,
    OP_EXISTS,
    OP_IN,
    OP_NOT_IN,
    UNCONSTRAINED,
    LabelSelector,
    Requirement,
    Selector,
    SelectorSpace,
    label_selector_as_selector,
)


def test_nil_and_empty_map_selectors_are_everything():
    # labels.SelectorFromSet: nil or empty set → internalSelector{} (Empty, matches all)
    for sel in (Selector.from_set(None), Selector.from_set({})):
        assert sel.empty() and sel.matches({}) and sel.matches({"a": "b"})


def test_nil_label_selector_is_nothing_and_empty_is_everything():
    nothing = label_selector_as_selector(None)
    assert not nothing.empty() and not nothing.matches({}) and not nothing.matches({"a": "b"})
    assert nothing.add([Requirement("a", EXISTS)]) is nothing  # Add on Nothing is a no-op
    everything = label_selector_as_selector(LabelSelector())
    assert everything.empty() and everything.matches({"x": "y"})


def test_requirement_operators():
    labels = {"a": "1", "b": ""}
    assert Requirement("a", IN, ("1", "2")).matches(labels)
    assert not Requirement("a", IN, ("2",)).matches(labels)
    assert Requirement("a", EQUALS, ("1",)).matches(labels)
    assert Requirement("c", NOT_IN, ("1",)).matches(labels)  # absent key: NotIn holds
    assert not Requirement("a", NOT_IN, ("1",)).matches(labels)
    assert Requirement("b", EXISTS).matches(labels)  # empty value still exists
    assert Requirement("c", DOES_NOT_EXIST).matches(labels)
    assert not Requirement("b", DOES_NOT_EXIST).matches(labels)


def test_set_selector_requirements_sorted_by_key_and_match_labels_merge():
    sel = Selector.from_set({"z": "1", "a": "2"})
    assert [r.key for r in sel.requirements] == ["a", "z"]
    ls = LabelSelector((("b", "x"),), (("a", "In", ("y",)),))
    assert [r.key for r in ls.as_selector().requirements] == ["a", "b"]


KEYS = ["a", "b", "c"]
VALUES = ["", "x", "y"]
labels_st = st.dictionaries(st.sampled_from(KEYS), st.sampled_from(VALUES), max_size=3)
req_st = st.one_of(
    st.builds(
        lambda k, op, vs: Requirement(k, op, tuple(vs)),
        st.sampled_from(KEYS),
        st.sampled_from([IN, NOT_IN, EQUALS]),
        st.lists(st.sampled_from([*VALUES, "never"]), min_size=1, max_size=2),
    ),
    st.builds(Requirement, st.sampled_from(KEYS), st.sampled_from([EXISTS, DOES_NOT_EXIST])),
)


def _holds(row, c, lo, hi):
    """A naive evaluation of compiled requirements ``lo:hi`` on a row of local ids."""
    for r in range(lo, hi):
        x = int(row[c.key[r]])
        values = c.vals[c.vptr[r] : c.vptr[r + 1]].tolist()
        ok = {
            OP_IN: x in values,
            OP_NOT_IN: x not in values,
            OP_EXISTS: x != LOCAL_ABSENT,
            OP_DOES_NOT_EXIST: x == LOCAL_ABSENT,
        }[int(c.op[r])]
        if not ok:
            return False
    return True


@settings(max_examples=300, deadline=None)
@given(
    st.lists(labels_st, min_size=1, max_size=6),
    st.lists(req_st, max_size=4),
    st.lists(labels_st, max_size=3),
)
def test_compiled_requirements_match_like_the_selector(label_sets, reqs, maps):
    """Local ids tell only mentioned values apart; that is all a selector can see. An In on
    values no object carries matches nothing; map selectors require their pairs."""
    interner = LabelInterner()
    table = interner.table(label_sets)
    map_reqs = [Selector.from_set(m).requirements for m in maps]
    space = SelectorSpace(KEYS, [*reqs, *(r for rs in map_reqs for r in rs)])
    local = space.project(table.columns(KEYS))
    compiled = space.compile([reqs])
    rows = space.map_rows(maps)
    sel = Selector(tuple(reqs))
    for labels, row in zip(label_sets, local, strict=True):
        assert _holds(row, compiled, compiled.ptr[0], compiled.ptr[1]) == sel.matches(labels)
        for m, req in zip(maps, rows, strict=True):
            want = Selector.from_set(m).matches(labels)
            assert all(v == UNCONSTRAINED or row[k] == v for k, v in enumerate(req)) == want


def test_label_columns_and_undeclared_keys():
    interner = LabelInterner()
    table = interner.table([{"app": "a", "pod-name": "p-0"}, {"app": "b"}, {}])
    cols = table.columns(["app", "zone"])
    a, b = interner.value_id["a"], interner.value_id["b"]
    assert cols.values.tolist() == [[a, ABSENT], [b, ABSENT], [ABSENT, ABSENT]]
    space = SelectorSpace(["app", "zone"], [Requirement("app", IN, ("b",))])
    assert space.project(cols).tolist() == [
        [LOCAL_OTHER, LOCAL_ABSENT],
        [2, LOCAL_ABSENT],
        [LOCAL_ABSENT, LOCAL_ABSENT],
    ]
    # a selector on a key its columns were not built for must raise, never read "absent"
    with pytest.raises(UndeclaredLabelKey):
        SelectorSpace(["app"], [Requirement("pod-name", EXISTS)])
    with pytest.raises(UndeclaredLabelKey):
        space.compile([[Requirement("pod-name", DOES_NOT_EXIST)]])
    with pytest.raises(UndeclaredLabelKey):
        space.map_rows([{"tier": "web"}])
    with pytest.raises(UndeclaredLabelKey):
        space.project(table.columns(["app"]))
    with pytest.raises(UndeclaredLabelKey):
        cols.column("pod-name")


def test_selector_space_is_bounded_by_the_selectors():
    """80,000 distinct pod-name values, one selector naming one: 3 local ids."""
    interner = LabelInterner()
    table = interner.table({"pod-name": f"web-{i}"} for i in range(80_000))
    space = SelectorSpace(["pod-name"], [Requirement("pod-name", EQUALS, ("web-0",))])
    local = space.project(table.columns(["pod-name"]))
    assert space.sizes.tolist() == [3]
    assert local[:3, 0].tolist() == [2, LOCAL_OTHER, LOCAL_OTHER]
    assert table.key.nbytes + table.value.nbytes == 80_000 * 8
