"""VolumeBinding: the kernels (PreFilter gate and Filter) == the scalar reference port on
random clusters with storage objects, the reference's branches (upstream's
volume_binding_test.go and binder_test.go cases for bound and unbound-immediate claims,
restated), and the storage objects as the reader makes them."""

from __future__ import annotations

import pytest

from kscore_fast.errors import InputError
from kscore_fast.model.objects import NodeSelectorRequirement, NodeSelectorTerm, PodRecord
from kscore_fast.model.storage import ClaimRecord, ClassRecord, Storage, VolumeRecord
from kscore_fast.plugins.volumebinding import VolumeBinding, gate_kernels, kernels, reference
from kscore_fast.plugins.volumebinding.plugin import PreFilterGate, unsimulated_claims
from kscore_fast.plugins.volumebinding.reference import (
    ERR_REASON_NODE_CONFLICT,
    ERR_REASON_PV_NOT_EXIST,
    ERR_UNBOUND_IMMEDIATE,
)

from ...scenarios_volume_binding import binding_scenario
from ..harness import cluster_of as _cluster
from ..harness import filter_codes


@pytest.mark.parametrize("seed", range(60))
def test_kernels_equal_reference(seed, tmp_path):
    c = _cluster(binding_scenario(seed, max_nodes=10, max_pending=12), tmp_path)
    snap, batch, storage = c.snapshot, c.batch, c.snapshot.storage
    gate, plugin = PreFilterGate(), VolumeBinding()
    gate_state, state = gate.prepare(snap, batch), plugin.prepare(snap, batch)
    gate_codes = filter_codes(gate_kernels, gate_state, len(batch), snap.n_nodes)
    codes = filter_codes(kernels, state, len(batch), snap.n_nodes)
    for p, pod in enumerate(batch.pods):
        want_pre = reference.pre_filter(pod, storage)
        for n, labels in enumerate(snap.node_labels):
            code = int(gate_codes[p, n])
            assert (None if code == 0 else gate.reasons(gate_state, code)[0]) == want_pre
            if want_pre is not None:
                continue
            code = int(codes[p, n])
            got = [] if code == 0 else plugin.reasons(state, code)
            assert got == reference.filter(pod, labels, storage), (seed, pod.key, n)
    for p_, s, k in ((gate, gate_state, gate_codes), (plugin, state, codes)):
        key = p_.filter_key(s)  # equal keys, equal verdicts
        for value in set(key.tolist()):
            rows = k[key == value]
            assert (rows == rows[0]).all()


def _term(*exprs, fields=()):
    return NodeSelectorTerm(tuple(NodeSelectorRequirement(*e) for e in exprs),
                            tuple(NodeSelectorRequirement(*f) for f in fields))  # fmt: skip


HOST = "kubernetes.io/hostname"
STORAGE = Storage.of([
    ClaimRecord("default", "bound", "pv-any", bind_completed=True),
    ClaimRecord("default", "local", "pv-local", bind_completed=True),
    ClaimRecord("default", "zonal", "pv-zonal", bind_completed=True),
    ClaimRecord("default", "named", "pv-named", bind_completed=True),
    ClaimRecord("default", "gone", "pv-absent", bind_completed=True),
    ClaimRecord("default", "lost", "pv-absent", bind_completed=True, lost=True),
    ClaimRecord("default", "deleting", "pv-any", bind_completed=True, deleting=True),
    ClaimRecord("default", "prebound", "pv-any", "late"),
    ClaimRecord("default", "wffc", "", "late"),
    ClaimRecord("default", "immediate", "", "now"),
    ClaimRecord("default", "no-class", ""),
    ClaimRecord("default", "ghost-class", "", "ghost"),
    VolumeRecord("pv-any"),
    VolumeRecord("pv-local", node_affinity=(_term((HOST, "In", ("n1",))),)),
    VolumeRecord("pv-zonal", node_affinity=(_term(("zone", "In", ("a", "b"))),
                                            _term(("zone", "DoesNotExist")))),
    VolumeRecord("pv-named", node_affinity=(_term(fields=[("metadata.name", "In", ("x",))]),)),
    ClassRecord("late", "WaitForFirstConsumer"),
    ClassRecord("now", "Immediate"),
])  # fmt: skip
N1 = {HOST: "n1", "zone": "c"}
N2 = {HOST: "n2", "zone": "a"}


@pytest.mark.parametrize(
    ("claims", "want"),
    [
        ((), None),
        (("bound", "wffc"), None),
        (("missing",), 'persistentvolumeclaim "missing" not found'),
        (("bound", "missing", "lost"), 'persistentvolumeclaim "missing" not found'),
        (
            ("lost",),
            'persistentvolumeclaim "lost" bound to non-existent persistentvolume "pv-absent"',
        ),
        (("deleting",), 'persistentvolumeclaim "deleting" is being deleted'),
        (("immediate",), ERR_UNBOUND_IMMEDIATE),
        (("no-class",), ERR_UNBOUND_IMMEDIATE),  # no class: immediate
        (("ghost-class",), ERR_UNBOUND_IMMEDIATE),  # an absent class: immediate
        (("prebound",), ERR_UNBOUND_IMMEDIATE),  # a volume name, binding not completed
        (("gone",), None),  # (fails at Filter)
    ],
)
def test_pre_filter(claims, want):
    assert reference.pre_filter(PodRecord("default", "p", claims=claims), STORAGE) == want


@pytest.mark.parametrize(
    ("claims", "node", "want"),
    [
        (("bound",), N1, []),
        (("local",), N1, []),
        (("local",), N2, [ERR_REASON_NODE_CONFLICT]),
        (("zonal",), N1, [ERR_REASON_NODE_CONFLICT]),
        (("zonal",), N2, []),
        (("zonal",), {HOST: "n3"}, []),  # the second term: no zone label
        (("named",), N1, []),  # field terms: the binder's node has no name
        (("gone",), N1, [ERR_REASON_PV_NOT_EXIST]),
        (("gone", "local"), N2, [ERR_REASON_PV_NOT_EXIST]),  # the first failing claim
        (("local", "gone"), N2, [ERR_REASON_NODE_CONFLICT]),
        (("wffc", "local"), N1, []),  # (its claim to bind: not simulated)
    ],
)
def test_filter(claims, node, want):
    assert reference.filter(PodRecord("default", "p", claims=claims), node, STORAGE) == want


def test_unsimulated_claims_are_named():
    pods = [PodRecord("default", f"p{i}", claims=c)
            for i, c in enumerate([("wffc",), ("bound",), ("wffc", "immediate"), ()])]  # fmt: skip
    assert [p.name for p in unsimulated_claims(STORAGE, pods)] == ["p0"]


def _objects(*extra):
    return [
        {"kind": "Node", "metadata": {"name": "n", "labels": {"zone": "a"}},
         "status": {"allocatable": {"cpu": "1", "memory": "1Gi", "pods": "10"}}},
        *extra,
    ]  # fmt: skip


@pytest.mark.parametrize("how", ["json", "yaml"])
def test_the_reader_keeps_what_the_plugin_reads(tmp_path, how):
    terms = [{"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}]
    c = _cluster(_objects(
        {"kind": "PersistentVolume", "metadata": {"name": "pv"},
         "spec": {"nodeAffinity": {"required": {"nodeSelectorTerms": terms}}}},
        {"kind": "PersistentVolumeClaim",
         "metadata": {"name": "c", "namespace": "ns", "deletionTimestamp": "2026-01-01T00:00:00Z",
                      "annotations": {"pv.kubernetes.io/bind-completed": "yes"}},
         "spec": {"volumeName": "pv"}, "status": {"phase": "Lost"}},
    ), tmp_path, how)  # fmt: skip
    storage = c.snapshot.storage
    assert storage.claims[("ns", "c")] == ClaimRecord("ns", "c", "pv", "", True, True, True)
    assert storage.volumes["pv"].node_affinity == (_term(("zone", "In", ("a",))),)


def test_a_volume_affinity_without_terms_is_an_error(tmp_path):
    pv = {"kind": "PersistentVolume", "metadata": {"name": "pv"},
          "spec": {"nodeAffinity": {"required": {"nodeSelectorTerms": []}}}}  # fmt: skip
    with pytest.raises(InputError, match=r"spec\.nodeAffinity\.required\.nodeSelectorTerms"):
        _cluster(_objects(pv), tmp_path)
