"""VolumeBinding: the kernels (PreFilter gate and Filter) == the scalar reference port on
random clusters with storage objects (with and without CSIStorageCapacity objects), the
reference's branches (upstream's volume_binding_test.go and binder_test.go cases for
bound and unbound-immediate claims, restated), and the storage objects as the reader
makes them. The capacity check's branches: ``test_capacity``."""

from __future__ import annotations

import dataclasses
from fractions import Fraction

import pytest

from kscore_fast.errors import InputError
from kscore_fast.model.objects import NodeSelectorRequirement, NodeSelectorTerm, PodRecord
from kscore_fast.model.storage import ClaimRecord, ClassRecord, Storage, VolumeRecord
from kscore_fast.plugins.volumebinding import VolumeBinding, gate_kernels, kernels, reference
from kscore_fast.plugins.volumebinding import state as vb_state
from kscore_fast.plugins.volumebinding.plugin import PreFilterGate
from kscore_fast.plugins.volumebinding.reference import (
    ERR_REASON_BIND_CONFLICT,
    ERR_REASON_NODE_CONFLICT,
    ERR_REASON_PV_NOT_EXIST,
    ERR_UNBOUND_IMMEDIATE,
)

from ...scenarios_ephemeral import ephemeral_binding_scenario
from ...scenarios_volume_binding import binding_scenario
from ...scenarios_volume_capacity import capacity_scenario
from ..harness import cluster_of as _cluster
from ..harness import filter_codes


@pytest.mark.parametrize("make", [binding_scenario, capacity_scenario, ephemeral_binding_scenario])
@pytest.mark.parametrize("seed", range(60))
def test_kernels_equal_reference(seed, make, tmp_path):
    c = _cluster(make(seed, max_nodes=10, max_pending=12), tmp_path)
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
            want = reference.filter(pod, snap.node_names[n], labels, storage)
            assert got == want, (seed, pod.key, n)
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


_EPHEMERAL = dataclasses.replace(STORAGE, claims={**STORAGE.claims, **{
    (c.namespace, c.name): c for c in (
        ClaimRecord("default", "p-own", "", "late", controller_uid="u"),
        ClaimRecord("default", "p-other", "", "late", controller_uid="x"),
        ClaimRecord("default", "p-none", "", "late"),
        ClaimRecord("default", "p-lost", "pv-absent", "late", lost=True, controller_uid="x"),
        ClaimRecord("other", "p-own", "", "late", controller_uid="u"),
    )}})  # fmt: skip
NOT_OWNER = "PVC default/{} was not created for pod default/p (pod is not owner)"


@pytest.mark.parametrize(
    ("claims", "at", "want"),
    [
        (("p-own",), (0,), None),
        (("bound", "p-own"), (1,), None),
        (("p-gone",), (0,),
         'waiting for ephemeral volume controller to create the persistentvolumeclaim "p-gone"'),
        (("p-other",), (0,), NOT_OWNER.format("p-other")),
        (("p-none",), (0,), NOT_OWNER.format("p-none")),
        (("p-other",), (), None),  # (a persistentVolumeClaim volume: no owner checked)
        (("p-other", "missing"), (0,), NOT_OWNER.format("p-other")),  # the first decides
        (("missing", "p-other"), (1,), 'persistentvolumeclaim "missing" not found'),
        (("p-lost",), (0,),  # (lost before the owner)
         'persistentvolumeclaim "p-lost" bound to non-existent persistentvolume "pv-absent"'),
        (("p-own", "immediate"), (0,), ERR_UNBOUND_IMMEDIATE),
    ],
)  # fmt: skip
def test_pre_filter_of_ephemeral_volumes(claims, at, want):
    pod = PodRecord("default", "p", claims=claims, ephemeral=at, uid="u")
    assert reference.pre_filter(pod, _EPHEMERAL) == want


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
    ],
)
def test_filter(claims, node, want):
    pod = PodRecord("default", "p", claims=claims)
    assert reference.filter(pod, node[HOST], node, STORAGE) == want


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
    assert storage.claims[("ns", "c")] == ClaimRecord(
        "ns", "c", "pv", "", bind_completed=True, lost=True, deleting=True
    )
    assert storage.volumes["pv"].node_affinity == (_term(("zone", "In", ("a",))),)


def test_a_volume_affinity_without_terms_is_an_error(tmp_path):
    pv = {"kind": "PersistentVolume", "metadata": {"name": "pv"},
          "spec": {"nodeAffinity": {"required": {"nodeSelectorTerms": []}}}}  # fmt: skip
    with pytest.raises(InputError, match=r"spec\.nodeAffinity\.required\.nodeSelectorTerms"):
        _cluster(_objects(pv), tmp_path)


@pytest.mark.parametrize("make", [binding_scenario, capacity_scenario, ephemeral_binding_scenario])
@pytest.mark.parametrize("seed", range(40))
def test_assume_equals_reference(seed, make, tmp_path):
    """Pods bound one after the other, each on its first feasible node: after each bind
    the kernels' verdicts equal the reference's over what ``AssumePodVolumes`` changed."""
    c = _cluster(make(seed, max_nodes=6, max_pending=12), tmp_path)
    snap, batch, storage = c.snapshot, c.batch, c.snapshot.storage
    plugin = VolumeBinding()
    state = plugin.own_state(plugin.prepare(snap, batch))
    assumed = reference.Assumed()
    names, labels = snap.node_names, snap.node_labels
    for p, pod in enumerate(batch.pods):
        if reference.pre_filter(pod, storage) is not None:
            continue
        codes = filter_codes(kernels, state, len(batch), snap.n_nodes)
        for q, other in enumerate(batch.pods):
            if reference.pre_filter(other, storage) is not None:
                continue
            for n in range(snap.n_nodes):
                got = plugin.reasons(state, int(codes[q, n]))
                want = reference.filter(other, names[n], labels[n], storage, assumed)
                assert got == want, (seed, p, other.key, names[n])
        fits = [n for n in range(snap.n_nodes) if codes[p, n] == 0]
        if fits:
            kernels.assume(state, p, fits[0])
            want = reference.assume_pod_volumes(pod, names[fits[0]], labels[fits[0]], storage,
                                                assumed)  # fmt: skip
            assert vb_state.reserved(state, batch, p) == want, (seed, pod.key)


WFFC_STORAGE = Storage.of([
    ClaimRecord("default", "small", "", "late", request=Fraction(1)),
    ClaimRecord("default", "big", "", "late", request=Fraction(5)),
    ClaimRecord("default", "prov", "", "made", request=Fraction(1)),
    ClaimRecord("default", "none", "", "never", request=Fraction(1)),
    VolumeRecord("pv-5", class_name="late", capacity=Fraction(5), available=True,
                 access_modes=("ReadWriteOnce",)),
    VolumeRecord("pv-3", class_name="late", capacity=Fraction(3), available=True,
                 node_affinity=(_term((HOST, "In", ("n1",))),)),
    VolumeRecord("pv-9", class_name="late", capacity=Fraction(9), available=True),
    ClassRecord("late", "WaitForFirstConsumer", "kubernetes.io/no-provisioner"),
    ClassRecord("made", "WaitForFirstConsumer", "example.com/disk",
                ((("zone", ("c",)),),)),
    ClassRecord("never", "WaitForFirstConsumer", ""),
])  # fmt: skip


def test_smallest_fit_and_claims_of_one_pod():
    """The smallest available volume that fits, the larger claim first excluded from
    the smaller's choice only once chosen (claims sorted by request)."""
    assumed = reference.Assumed()
    pod = PodRecord("default", "p", claims=("small", "big"))
    found = reference.find_pod_volumes(pod, "n1", N1, WFFC_STORAGE, assumed)
    assert [(c.name, v.name) for c, v in found.bindings] == [("small", "pv-3"), ("big", "pv-5")]
    found = reference.find_pod_volumes(pod, "n2", N2, WFFC_STORAGE, assumed)
    assert [(c.name, v.name) for c, v in found.bindings] == [("small", "pv-5"), ("big", "pv-9")]


def test_assumed_volumes_and_selected_nodes():
    assumed = reference.Assumed()
    one = PodRecord("default", "a", claims=("small",))
    reference.assume_pod_volumes(one, "n2", N2, WFFC_STORAGE, assumed)
    assert assumed.claim_refs == {"pv-5": ("default", "small", "")}
    other = PodRecord("default", "b", claims=("big",))  # pv-5 is taken: pv-9
    found = reference.find_pod_volumes(other, "n2", N2, WFFC_STORAGE, assumed)
    assert [v.name for _, v in found.bindings] == ["pv-9"]
    again = reference.find_pod_volumes(one, "n1", N1, WFFC_STORAGE, assumed)  # pre-bound
    assert [v.name for _, v in again.bindings] == ["pv-5"]
    prov = PodRecord("default", "c", claims=("prov",))
    assert reference.filter(prov, "n2", N2, WFFC_STORAGE, assumed) == [ERR_REASON_BIND_CONFLICT]
    assert reference.filter(prov, "n1", N1, WFFC_STORAGE, assumed) == []
    reference.assume_pod_volumes(prov, "n1", N1, WFFC_STORAGE, assumed)
    assert assumed.selected == {("default", "prov"): "n1"}
    on_n3 = {HOST: "n3", "zone": "c"}  # the zone fits, the selected node does not
    assert reference.filter(prov, "n3", on_n3, WFFC_STORAGE, assumed) == [ERR_REASON_BIND_CONFLICT]
    never = PodRecord("default", "d", claims=("none",))
    assert reference.filter(never, "n1", N1, WFFC_STORAGE, assumed) == [ERR_REASON_BIND_CONFLICT]


def _node(name, zone):
    return {"kind": "Node", "metadata": {"name": name, "labels": {"zone": zone}},
            "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "10"}}}  # fmt: skip


def _claim_pod(name, claim):
    return {"kind": "Pod", "metadata": {"name": name, "namespace": "default"},
            "spec": {"containers": [{"name": "c", "image": "x"}], "volumes": [
                {"name": "v", "persistentVolumeClaim": {"claimName": claim}}]}}  # fmt: skip


def test_the_simulator_keeps_completed_bindings_across_events(tmp_path):
    """A volume matched for a pod stays bound to its claim after the pod is deleted and
    after an event makes the simulator prepare its states again; a provisioned claim is
    bound to its new volume (without a CSINode: no node affinity, any node)."""
    from kscore_fast import Simulator

    objs = [_node("n0", "a"), _node("n1", "b"),
            {"kind": "StorageClass", "metadata": {"name": "local"},
             "provisioner": "kubernetes.io/no-provisioner",
             "volumeBindingMode": "WaitForFirstConsumer"},
            {"kind": "StorageClass", "metadata": {"name": "made"},
             "provisioner": "example.com/disk", "volumeBindingMode": "WaitForFirstConsumer"},
            {"kind": "PersistentVolume", "metadata": {"name": "pv0", "resourceVersion": "1"},
             "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"],
                      "storageClassName": "local"}, "status": {"phase": "Available"}},
            *({"kind": "PersistentVolumeClaim",
               "metadata": {"name": name, "namespace": "default"},
               "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": cls,
                        "resources": {"requests": {"storage": "1Gi"}}}}
              for name, cls in (("c0", "local"), ("c1", "local"), ("c2", "made"))),
            _claim_pod("a", "c0"), _claim_pod("b", "c1"), _claim_pod("c", "c2"),
            _claim_pod("d", "c2")]  # fmt: skip
    sim = Simulator(_cluster(objs, tmp_path))
    assert sim.schedule_and_bind("default/a") is not None  # pv0 for c0
    host = sim.schedule_and_bind("default/c")  # c2 provisioned on its host
    sim.delete("default/a")
    sim.add_node(_node("n2", "c"))  # (the states are prepared again)
    assert sim.schedule_and_bind("default/b") is None  # pv0 is still c0's
    storage = sim.cluster.snapshot.storage
    c0, c2 = storage.claims[("default", "c0")], storage.claims[("default", "c2")]
    assert (c0.volume_name, c0.bind_completed) == ("pv0", True)
    assert storage.volumes["pv0"].claim_ref == ("default", "c0", c0.uid)
    made = storage.volumes[c2.volume_name]
    assert (made.name, made.csi_driver, made.node_affinity) == (
        f"pvc-{c2.uid}",
        "example.com/disk",
        None,
    )
    assert host is not None and sim.schedule_and_bind("default/d") is not None


def test_a_claim_twice_in_a_pod_excludes_its_pre_bound_volume(tmp_path):
    """``GetPodVolumes`` lists a claim once per volume: the second time, the volume it is
    pre-bound to is already chosen (excluded first), and none other is available."""
    objs = [_node("n0", "a"),
            {"kind": "StorageClass", "metadata": {"name": "local"},
             "provisioner": "kubernetes.io/no-provisioner",
             "volumeBindingMode": "WaitForFirstConsumer"},
            {"kind": "PersistentVolume", "metadata": {"name": "pv0"},
             "spec": {"capacity": {"storage": "1Gi"}, "storageClassName": "local",
                      "claimRef": {"namespace": "default", "name": "c0"}}},
            {"kind": "PersistentVolumeClaim", "metadata": {"name": "c0", "namespace": "default"},
             "spec": {"storageClassName": "local"}},
            _claim_pod("once", "c0"),
            {**_claim_pod("twice", "c0"), "spec": {"containers": [{"name": "c", "image": "x"}],
             "volumes": [{"name": f"v{i}", "persistentVolumeClaim": {"claimName": "c0"}}
                         for i in range(2)]}}]  # fmt: skip
    c = _cluster(objs, tmp_path)
    plugin = VolumeBinding()
    state = plugin.prepare(c.snapshot, c.batch)
    codes = filter_codes(kernels, state, len(c.batch), c.snapshot.n_nodes)
    assert plugin.reasons(state, int(codes[0, 0])) == []
    assert plugin.reasons(state, int(codes[1, 0])) == [ERR_REASON_BIND_CONFLICT]
    for p, pod in enumerate(c.batch.pods):
        want = reference.filter(pod, "n0", c.snapshot.node_labels[0], c.snapshot.storage)
        assert plugin.reasons(state, int(codes[p, 0])) == want
