"""Selector semantics (apimachinery labels/selector.go, meta/v1 helpers.go) and their
bitmask compilation, which the kernels rely on."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from kscore_fast.model.labels import LabelVocab
from kscore_fast.model.selectors import (
    DOES_NOT_EXIST,
    EQUALS,
    EXISTS,
    IN,
    NOT_IN,
    LabelSelector,
    Requirement,
    Selector,
    compile_requirements,
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


@settings(max_examples=300, deadline=None)
@given(st.lists(labels_st, min_size=1, max_size=6), st.lists(req_st, max_size=4))
def test_compiled_bitmasks_match_like_the_selector(label_sets, reqs):
    """Bits only for pairs some pod carries; an In on unseen values matches nothing."""
    vocab = LabelVocab()
    for labels in label_sets:
        vocab.add(labels)
    rows = vocab.encode_many(label_sets)
    compiled = compile_requirements([reqs], vocab, vocab.n_words)
    sel = Selector(tuple(reqs))
    for labels, row in zip(label_sets, rows, strict=True):
        got = all(
            bool(np.any(row & compiled.mask[r])) == compiled.any_of[r]
            for r in range(compiled.ptr[0], compiled.ptr[1])
        )
        assert got == sel.matches(labels)


def test_vocab_keys_filter_and_key_masks():
    vocab = LabelVocab()
    vocab.add({"app": "a", "pod-name": "p-0"}, keys={"app"})
    vocab.add({"app": "b"}, keys={"app"})
    assert vocab.bit("pod-name", "p-0") is None
    assert len(vocab) == 2
    assert vocab.key_mask(["app"]).tolist() == [0b11]
    assert vocab.encode({"app": "b", "other": "z"}).tolist() == [0b10]
