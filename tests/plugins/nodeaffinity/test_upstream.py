"""Ported upstream tables (kube-scheduler v1.23.6, k8s.io/component-helpers v0.23.6):

* pkg/scheduler/framework/plugins/nodeaffinity/node_affinity_test.go: ``TestNodeAffinity``
  (Filter), ``TestNodeAffinityPriority`` (PreScore, Score, NormalizeScore);
* staging/src/k8s.io/component-helpers/scheduling/corev1/nodeaffinity/nodeaffinity_test.go:
  ``TestPodMatchesNodeSelectorAndAffinityTerms`` (the same 27 pod/node cases as the first
  27 of ``TestNodeAffinity``, as booleans), ``TestNodeSelectorMatch``,
  ``TestPreferredSchedulingTermsScore``, ``TestNodeSelectorRequirementsAsSelector``.

Test ids are the Go case names (``TestNodeSelectorRequirementsAsSelector`` has none: its
index). Filter and score cases run through the kernels and through the reference port.
``disablePreFilter``/``disablePreScore`` cases are plain cases here (no cycle state).
"""

from __future__ import annotations

import pytest

from kscore_fast.errors import ConfigError
from kscore_fast.plugins.nodeaffinity import NodeAffinity
from kscore_fast.plugins.nodeaffinity.reference import (
    ERR_REASON_ENFORCED,
    ERR_REASON_POD,
    LabelRequirement,
    aggregate_message,
    lazy_match,
    new_node_selector,
    new_preferred_scheduling_terms,
    node_selector_requirements_as_selector,
    preferred_score,
)

from .build import (
    NAME_FIELD,
    args_json,
    cluster,
    kernel_filter,
    kernel_scores,
    node,
    pod,
    preferred,
    reference_filter,
    reference_scores,
    req,
    required,
    term,
)

POD, ENF = ERR_REASON_POD, ERR_REASON_ENFORCED
FOO_BAR = {"foo": "bar"}
GPU = {"GPU": "NVIDIA-GRID-K1"}
NODE_1_FIELD = req(NAME_FIELD, "In", "node_1")
DEPRECATED = (
    "Pod with an Affinity and a PodSpec.NodeSelector(the old thing that we are deprecating) "
)

# (name, pod, node labels, node name, expected reason): the 27 cases both Go tables share
MATCH_CASES = [
    ("no selector", pod(), {}, "", None),
    ("missing labels", pod(node_selector=FOO_BAR), {}, "", POD),
    ("same labels", pod(node_selector=FOO_BAR), FOO_BAR, "", None),
    ("node labels are superset", pod(node_selector=FOO_BAR), {"foo": "bar", "baz": "blah"}, "", None),
    ("node labels are subset", pod(node_selector={"foo": "bar", "baz": "blah"}), FOO_BAR, "", POD),
    ("Pod with matchExpressions using In operator that matches the existing node",
     pod(affinity=required(term(req("foo", "In", "bar", "value2")))), FOO_BAR, "", None),
    ("Pod with matchExpressions using Gt operator that matches the existing node",
     pod(affinity=required(term(req("kernel-version", "Gt", "0204")))), {"kernel-version": "0206"}, "", None),
    ("Pod with matchExpressions using NotIn operator that matches the existing node",
     pod(affinity=required(term(req("mem-type", "NotIn", "DDR", "DDR2")))), {"mem-type": "DDR3"}, "", None),
    ("Pod with matchExpressions using Exists operator that matches the existing node",
     pod(affinity=required(term(req("GPU", "Exists")))), GPU, "", None),
    ("Pod with affinity that don't match node's labels won't schedule onto the node",
     pod(affinity=required(term(req("foo", "In", "value1", "value2")))), FOO_BAR, "", POD),
    ("Pod with a nil []NodeSelectorTerm in affinity, can't match the node's labels and won't schedule onto the node",
     pod(affinity=required()), FOO_BAR, "", POD),
    ("Pod with an empty []NodeSelectorTerm in affinity, can't match the node's labels and won't schedule onto the node",
     pod(affinity=required()), FOO_BAR, "", POD),
    ("Pod with empty MatchExpressions is not a valid value will match no objects and won't schedule onto the node",
     pod(affinity=required(term())), FOO_BAR, "", POD),
    ("Pod with no Affinity will schedule onto a node", pod(), FOO_BAR, "", None),
    ("Pod with Affinity but nil NodeSelector will schedule onto a node",
     pod(affinity=preferred()), FOO_BAR, "", None),
    ("Pod with multiple matchExpressions ANDed that matches the existing node",
     pod(affinity=required(term(req("GPU", "Exists"), req("GPU", "NotIn", "AMD", "INTER")))), GPU, "", None),
    ("Pod with multiple matchExpressions ANDed that doesn't match the existing node",
     pod(affinity=required(term(req("GPU", "Exists"), req("GPU", "In", "AMD", "INTER")))), GPU, "", POD),
    ("Pod with multiple NodeSelectorTerms ORed in affinity, matches the node's labels and will schedule onto the node",
     pod(affinity=required(term(req("foo", "In", "bar", "value2")), term(req("diffkey", "In", "wrong", "value2")))),
     FOO_BAR, "", None),
    (DEPRECATED + "both are satisfied, will schedule onto the node",
     pod(node_selector=FOO_BAR, affinity=required(term(req("foo", "Exists")))), FOO_BAR, "", None),
    (DEPRECATED.replace("Affinity and", "Affinity matches node's labels but the") + "is not satisfied, won't schedule onto the node",
     pod(node_selector=FOO_BAR, affinity=required(term(req("foo", "Exists")))), {"foo": "barrrrrr"}, "", POD),
    ("Pod with an invalid value in Affinity term won't be scheduled onto the node",
     pod(affinity=required(term(req("foo", "NotIn", "invalid value: ___@#$%^")))), FOO_BAR, "", POD),
    ("Pod with matchFields using In operator that matches the existing node",
     pod(affinity=required(term(fields=[NODE_1_FIELD]))), {}, "node_1", None),
    ("Pod with matchFields using In operator that does not match the existing node",
     pod(affinity=required(term(fields=[NODE_1_FIELD]))), {}, "node_2", POD),
    ("Pod with two terms: matchFields does not match, but matchExpressions matches",
     pod(affinity=required(term(fields=[NODE_1_FIELD]), term(req("foo", "In", "bar")))), FOO_BAR, "node_2", None),
    ("Pod with one term: matchFields does not match, but matchExpressions matches",
     pod(affinity=required(term(req("foo", "In", "bar"), fields=[NODE_1_FIELD]))), FOO_BAR, "node_2", POD),
    ("Pod with one term: both matchFields and matchExpressions match",
     pod(affinity=required(term(req("foo", "In", "bar"), fields=[NODE_1_FIELD]))), FOO_BAR, "node_1", None),
    ("Pod with two terms: both matchFields and matchExpressions do not match",
     pod(affinity=required(term(fields=[NODE_1_FIELD]), term(req("foo", "In", "not-match-to-bar")))),
     FOO_BAR, "node_2", POD),
]  # fmt: skip

ZONE_FOO = {"zone": "foo"}
NODE_2_ADDED = required(term(fields=[req(NAME_FIELD, "In", "node_2")]))
GPU_AND = required(term(req("GPU", "Exists"), req("GPU", "NotIn", "AMD", "INTER")))
# TestNodeAffinity's own cases: (name, pod, labels, node name, expected, addedAffinity)
PLUGIN_CASES = [(*c, None) for c in MATCH_CASES] + [
    ("Matches added affinity and Pod's node affinity",
     pod(affinity=required(term(req("zone", "In", "foo")))), ZONE_FOO, "node_2", None, NODE_2_ADDED),
    ("Matches added affinity but not Pod's node affinity",
     pod(affinity=required(term(req("zone", "In", "bar")))), ZONE_FOO, "node_2", POD, NODE_2_ADDED),
    ("Doesn't match added affinity", pod(), ZONE_FOO, "node_2", ENF, required(term(req("zone", "In", "bar")))),
    ("Matches node selector correctly even if PreFilter is not called",
     pod(node_selector=FOO_BAR), {"foo": "bar", "baz": "blah"}, "", None, None),
    ("Matches node affinity correctly even if PreFilter is not called", pod(affinity=GPU_AND), GPU, "", None, None),
]  # fmt: skip


@pytest.mark.parametrize(("pod_", "labels", "node_name", "want", "added"),
                         [c[1:] for c in PLUGIN_CASES], ids=[c[0] for c in PLUGIN_CASES])  # fmt: skip
def test_node_affinity(pod_, labels, node_name, want, added):
    c = cluster([node(node_name, labels)], [pod_])
    assert kernel_filter(c, added) == [[want]]
    assert reference_filter(c, added) == [[want]]


@pytest.mark.parametrize(("pod_", "labels", "node_name", "want"),
                         [c[1:] for c in MATCH_CASES], ids=[c[0] for c in MATCH_CASES])  # fmt: skip
def test_pod_matches_node_selector_and_affinity_terms(pod_, labels, node_name, want):
    """component-helpers ``TestPodMatchesNodeSelectorAndAffinityTerms``: ``Match`` is
    the plugin's filter without added affinity (want true ⇔ no reason)."""
    c = cluster([node(node_name, labels)], [pod_])
    assert kernel_filter(c) == reference_filter(c) == [[want]]


# -- TestNodeAffinityPriority -------------------------------------------------------------

LABEL1, LABEL2, LABEL3 = {"foo": "bar"}, {"key": "value"}, {"az": "az1"}
LABEL4 = {"abc": "az11", "def": "az22"}
LABEL5 = {"foo": "bar", "key": "value", "az": "az1"}
AFFINITY1 = preferred((2, term(req("foo", "In", "bar"))))
AFFINITY2 = preferred(
    (2, term(req("foo", "In", "bar"))),
    (4, term(req("key", "In", "value"))),
    (5, term(req("foo", "In", "bar"), req("key", "In", "value"), req("az", "In", "az1"))),
)
M1, M2, M3, M5 = "machine1", "machine2", "machine3", "machine5"

# (name, pod, nodes [(name, labels)], expected {node: score}, addedAffinity)
PRIORITY_CASES = [
    ("all machines are same priority as NodeAffinity is nil", pod(),
     [(M1, LABEL1), (M2, LABEL2), (M3, LABEL3)], {M1: 0, M2: 0, M3: 0}, None),
    ("no machine matches preferred scheduling requirements in NodeAffinity of pod so all machines' priority is zero",
     pod(affinity=AFFINITY1), [(M1, LABEL4), (M2, LABEL2), (M3, LABEL3)], {M1: 0, M2: 0, M3: 0}, None),
    ("only machine1 matches the preferred scheduling requirements of pod", pod(affinity=AFFINITY1),
     [(M1, LABEL1), (M2, LABEL2), (M3, LABEL3)], {M1: 100, M2: 0, M3: 0}, None),
    ("all machines matches the preferred scheduling requirements of pod but with different priorities ",
     pod(affinity=AFFINITY2), [(M1, LABEL1), (M5, LABEL5), (M2, LABEL2)], {M1: 18, M5: 100, M2: 36}, None),
    ("added affinity", pod(), [(M1, LABEL1), (M2, LABEL2)], {M1: 100, M2: 0}, AFFINITY1),
    ("added affinity and pod has default affinity", pod(affinity=AFFINITY1),
     [(M1, LABEL1), (M2, LABEL2), (M3, LABEL5)], {M1: 40, M2: 60, M3: 100},
     preferred((3, term(req("key", "In", "value"))))),
    ("calculate the priorities correctly even if PreScore is not called", pod(affinity=AFFINITY2),
     [(M1, LABEL1), (M5, LABEL5), (M2, LABEL2)], {M1: 18, M5: 100, M2: 36}, None),
]  # fmt: skip


@pytest.mark.parametrize(("pod_", "nodes", "want", "added"),
                         [c[1:] for c in PRIORITY_CASES], ids=[c[0] for c in PRIORITY_CASES])  # fmt: skip
def test_node_affinity_priority(pod_, nodes, want, added):
    c = cluster([node(n, labels) for n, labels in nodes], [pod_])
    order = [list(c.snapshot.node_names)]
    lists = [[c.snapshot.node_names.index(n) for n, _ in nodes]]
    _, kernel_norm = kernel_scores(c, lists, added)
    _, ref_norm = reference_scores(c, lists, added)
    expected = [want[n] for n, _ in nodes]
    assert kernel_norm == ref_norm == [expected], order


# -- component-helpers: NodeSelector, PreferredSchedulingTerms ---------------------------

_GO_REGEX_EXAMPLES = "(e.g. 'MyName',  or 'my.name',  or '123-abc', regex used"
_KEY_DETAIL = (
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and "
    "end with an alphanumeric character " + _GO_REGEX_EXAMPLES + " for validation is "
    "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)

INVALID_TERMS = [
    term(fields=[req(NAME_FIELD, "In", "host_1", "host_2")]),
    term(req("label_1", "In", "label_1_val"), fields=[req(NAME_FIELD, "In", "host_1")]),
    term(req("invalid key", "In", "label_value")),
]
HOST_1 = node("host_1")
HOST_1_LABELLED = node("host_1", {"label_1": "label_1_val"})
TERM_MATCH_CASES = [
    ("node matches field selector, but not labels",
     [term(req("label_1", "In", "label_1_val"), fields=[req(NAME_FIELD, "In", "host_1")])], HOST_1, False),
    ("node matches field selector and label selector",
     [term(req("label_1", "In", "label_1_val"), fields=[req(NAME_FIELD, "In", "host_1")])], HOST_1_LABELLED, True),
    ("second term matches",
     [term(req("label_1", "In", "label_1_val")), term(fields=[req(NAME_FIELD, "In", "host_1")])], HOST_1, True),
]  # fmt: skip


def _errors(prefix: str) -> str:
    return aggregate_message([
        f'{prefix}[0].matchFields[0].values: Invalid value: []string{{"host_1", "host_2"}}: '
        "must have one element",
        f'{prefix}[2].matchExpressions[0].key: Invalid value: "invalid key": {_KEY_DETAIL}',
    ])  # fmt: skip


def test_node_selector_match_invalid_field_selector_and_label_selector():
    """``TestNodeSelectorMatch`` "invalid field selector and label selector": the error
    (field paths and details as Go's; Go's test ignores the bad values, shown here as
    ``%#v`` prints them)."""
    terms, errs = new_node_selector(INVALID_TERMS)
    assert terms is None
    assert aggregate_message(errs) == _errors("nodeSelectorTerms")


def test_node_selector_match_invalid_paths():
    """The same case, the parts that do not depend on the regex wording."""
    _, errs = new_node_selector(INVALID_TERMS)
    assert len(errs) == 2
    assert errs[0] == ('nodeSelectorTerms[0].matchFields[0].values: Invalid value: '
                       '[]string{"host_1", "host_2"}: must have one element')  # fmt: skip
    assert errs[1].startswith(
        'nodeSelectorTerms[2].matchExpressions[0].key: Invalid value: "invalid key": name part must'
    )
    added = "addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms"
    with pytest.raises(ConfigError, match=rf"^\[{added}\[0\]\.matchFields\[0\]\.values: "):
        NodeAffinity(args_json(required(*INVALID_TERMS)))


@pytest.mark.parametrize(("terms", "node_", "want"), [c[1:] for c in TERM_MATCH_CASES],
                         ids=[c[0] for c in TERM_MATCH_CASES])  # fmt: skip
def test_node_selector_match(terms, node_, want):
    """``TestNodeSelectorMatch`` ("nil node" has no counterpart: a node is never nil here);
    through the reference and through the plugin's addedAffinity filter."""
    selector, errs = new_node_selector(terms)
    assert errs == []
    assert lazy_match(selector, node_) is want
    c = cluster([node_], [pod()])
    expected = None if want else ENF
    assert (
        kernel_filter(c, required(*terms)) == reference_filter(c, required(*terms)) == [[expected]]
    )


def test_preferred_scheduling_terms_invalid_field_selector_and_label_selector():
    """``TestPreferredSchedulingTermsScore`` "invalid field selector and label selector"."""
    terms, errs = new_preferred_scheduling_terms(
        preferred(*[(1, t) for t in INVALID_TERMS]).preferred
    )
    assert terms is None
    assert aggregate_message(errs) == _errors("")


def test_preferred_scheduling_terms_invalid_as_pre_score_error():
    """The same terms in a pod: its PreScore fails (kernels score the other terms)."""
    c = cluster([HOST_1], [pod(affinity=preferred(*[(1, t) for t in INVALID_TERMS]))])
    errors = NodeAffinity().pre_score_errors(c.snapshot, c.batch)
    assert list(errors) == [0]
    assert errors[0].startswith(
        '[[0].matchFields[0].values: Invalid value: []string{"host_1", "host_2"}'
    )
    with pytest.raises(
        ConfigError, match=r"addedAffinity\.preferredDuringSchedulingIgnoredDuringExecution\[0\]"
    ):
        NodeAffinity(args_json(preferred(*[(1, t) for t in INVALID_TERMS])))


PREF_CASES = [
    ("invalid field selector but no weight, error not reported",
     [(0, term(fields=[req(NAME_FIELD, "In", "host_1", "host_2")]))], HOST_1, 0),
    ("first and third term match",
     [(5, term(fields=[req(NAME_FIELD, "In", "host_1")])), (7, term(req("unknown_label", "In", "unknown_label_val"))),
      (11, term(req("label_1", "In", "label_1_val")))], HOST_1_LABELLED, 16),
]  # fmt: skip


@pytest.mark.parametrize(("weighted", "node_", "want"), [c[1:] for c in PREF_CASES],
                         ids=[c[0] for c in PREF_CASES])  # fmt: skip
def test_preferred_scheduling_terms_score(weighted, node_, want):
    """``TestPreferredSchedulingTermsScore``: reference, and the kernels' raw score (as a
    pod's terms and as added terms)."""
    terms, errs = new_preferred_scheduling_terms(preferred(*weighted).preferred)
    assert errs == []
    assert preferred_score(terms, node_) == want
    c = cluster([node_], [pod(affinity=preferred(*weighted))])
    assert kernel_scores(c, [[0]])[0] == reference_scores(c, [[0]])[0] == [[want]]
    c = cluster([node_], [pod()])
    assert kernel_scores(c, [[0]], preferred(*weighted))[0] == [[want]]


AS_SELECTOR_CASES = [
    ([], (), []),
    ([req("foo", "In", "bar", "baz")], (LabelRequirement("foo", "in", ("bar", "baz")),), []),
    ([req("foo", "Exists", "bar", "baz")], None,
     ['root[0].values: Invalid value: []string{"bar", "baz"}: values set must be empty for exists and does not exist']),
    ([req("foo", "Gt", "1")], (LabelRequirement("foo", "gt", ("1",)),), []),
    ([req("bar", "Lt", "7")], (LabelRequirement("bar", "lt", ("7",)),), []),
]  # fmt: skip


@pytest.mark.parametrize(("exprs", "want", "want_errs"), AS_SELECTOR_CASES,
                         ids=[str(i) for i in range(len(AS_SELECTOR_CASES))])  # fmt: skip
def test_node_selector_requirements_as_selector(exprs, want, want_errs):
    """``TestNodeSelectorRequirementsAsSelector`` (nil and empty input: Go returns
    ``labels.Nothing()``; newNodeSelectorTerm never calls it so, as empty terms are
    dropped before)."""
    reqs, errs = node_selector_requirements_as_selector(exprs, "root")
    assert errs == want_errs
    if want is not None:
        assert reqs == want
