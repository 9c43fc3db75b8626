"""The reader's part for VolumeRestrictions and the volume limits: pods' and
PersistentVolumes' in-tree disk sources, CSINodes and CSIDrivers as kubectl prints them,
and one clear error naming the object and field for a bad one."""

from __future__ import annotations

import json

import pytest
import yaml

from kscore_fast.api import load_cluster
from kscore_fast.errors import InputError
from kscore_fast.model.disks import (
    AZURE_DISK,
    GCE_PD,
    RBD,
    CSIDriverRecord,
    CSINodeDriver,
    CSINodeRecord,
    DiskVolume,
)

NODE = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n0"},
        "status": {"allocatable": {"cpu": "1", "memory": "1Gi", "pods": "10"}}}  # fmt: skip


def _load(tmp_path, *objs, how="json"):
    doc = {"apiVersion": "v1", "kind": "List", "items": [NODE, *objs]}
    path = tmp_path / f"c.{how}"
    path.write_text(json.dumps(doc) if how == "json" else yaml.safe_dump(doc))
    return load_cluster([path])


def _pod(*volumes):
    spec = {"containers": [{"name": "c", "image": "x"}], "volumes": list(volumes)}
    meta = {"name": "p", "namespace": "default"}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}


@pytest.mark.parametrize("how", ["json", "yaml"])
def test_pod_disks_in_order(tmp_path, how):
    c = _load(tmp_path, _pod(
        {"name": "a", "gcePersistentDisk": {"pdName": "d", "readOnly": True}},
        {"name": "t", "emptyDir": {}},
        {"name": "b", "rbd": {"monitors": ["m1", "m2"], "image": "i"}},
        {"name": "z", "azureDisk": {"diskName": "x", "diskURI": "/u"}},
        {"name": "e", "ephemeral": {"volumeClaimTemplate": {"spec": {}}}},
    ), how=how)  # fmt: skip
    pod = c.batch.pods[0]
    assert pod.disks == (
        DiskVolume(GCE_PD, "d", True),
        DiskVolume(RBD, "i", False, "rbd", ("m1", "m2")),  # (the default pool)
        DiskVolume(AZURE_DISK, "x", uri="/u", azure_kind="Shared"),  # (the default kind)
    )
    assert (pod.claims, pod.ephemeral) == (("p-e",), (0,))  # (its claim, tests/io/test_ephemeral)


def test_csi_objects_as_kubectl_prints_them(tmp_path):
    c = _load(
        tmp_path,
        {"apiVersion": "storage.k8s.io/v1", "kind": "CSINode",
         "metadata": {"name": "n0", "annotations": {
             "storage.alpha.kubernetes.io/migrated-plugins": "kubernetes.io/gce-pd"}},
         "spec": {"drivers": [{"name": "pd.csi.storage.gke.io", "nodeID": "n0",
                               "allocatable": {"count": 3}, "topologyKeys": ["zone"]},
                              {"name": "other", "nodeID": "n0"}]}},
        {"apiVersion": "storage.k8s.io/v1", "kind": "CSINode", "metadata": {"name": "n1"},
         "spec": {"drivers": None}},
        {"apiVersion": "storage.k8s.io/v1", "kind": "CSIDriver", "metadata": {"name": "d.io"},
         "spec": {"attachRequired": False, "podInfoOnMount": False}},
        {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "pv"},
         "spec": {"csi": {"driver": "d.io", "volumeHandle": "h"}}},
    )  # fmt: skip
    st = c.snapshot.storage
    assert st.csi_nodes == {
        "n0": CSINodeRecord("n0", (CSINodeDriver("pd.csi.storage.gke.io", 3, ("zone",)),
                                   CSINodeDriver("other")), "kubernetes.io/gce-pd"),
        "n1": CSINodeRecord("n1"),
    }  # fmt: skip
    assert st.csi_drivers == {"d.io": CSIDriverRecord("d.io", False, False)}
    assert (st.volumes["pv"].csi_driver, st.volumes["pv"].csi_handle) == ("d.io", "h")
    assert not c.skipped_kinds


@pytest.mark.parametrize(
    ("obj", "where", "field"),
    [
        (_pod({"name": "a", "gcePersistentDisk": {"readOnly": True}}), "Pod default/p",
         "spec.volumes[0].gcePersistentDisk.pdName"),
        (_pod({"name": "a", "rbd": {"image": "i"}}), "Pod default/p",
         "spec.volumes[0].rbd.monitors"),
        (_pod({"name": "a", "awsElasticBlockStore": {"volumeID": ""}}), "Pod default/p",
         "spec.volumes[0].awsElasticBlockStore.volumeID"),
        ({"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "pv"},
          "spec": {"csi": {"driver": "d"}}}, "PersistentVolume pv", "spec.csi.volumeHandle"),
        ({"apiVersion": "storage.k8s.io/v1", "kind": "CSINode", "metadata": {"name": "n0"},
          "spec": {"drivers": [{"name": "d", "allocatable": {"count": -1}}]}}, "CSINode n0",
         "spec.drivers[0].allocatable.count"),
        ({"apiVersion": "storage.k8s.io/v1", "kind": "CSINode", "metadata": {"name": "n0"},
          "spec": {"drivers": [{"nodeID": "n0"}]}}, "CSINode n0", "spec.drivers[0].name"),
        ({"apiVersion": "storage.k8s.io/v1", "kind": "CSIDriver", "metadata": {"name": "d"},
          "spec": {"attachRequired": "yes"}}, "CSIDriver d", "spec.attachRequired"),
        *(({"apiVersion": "storage.k8s.io/v1", "kind": "CSINode", "metadata": {"name": "n0"},
            "spec": {"drivers": [{"name": "d", "topologyKeys": keys}]}}, "CSINode n0",
           f"spec.drivers[0].topologyKeys{at}")
          for keys, at in (("zone", ""), ([3], "[0]"), ([""], "[0]"), (["z", "z"], "[1]"),
                           (["a b"], "[0]"), (["x/y/z"], "[0]"))),
    ],
)  # fmt: skip
def test_bad_objects_name_object_and_field(tmp_path, obj, where, field):
    with pytest.raises(InputError) as info:
        _load(tmp_path, obj)
    text = str(info.value)
    assert where in text and field in text, text
