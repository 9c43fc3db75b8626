"""Azure File's in-tree provisioner (``volumebinding.azurefile``, through ``complete``):
the volume v1.23.6's azureFileProvisioner.Provision creates, and its refusals (goref
ports the same: tests/differential/test_goref_volume_completion.py)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from kscore_fast.errors import UnsupportedError
from kscore_fast.model.storage import ClaimRecord, ClassRecord, Storage
from kscore_fast.plugins.volumebinding.complete import complete


def _storage(*params: tuple[str, str], **claim) -> Storage:
    storage = Storage()
    storage.classes["c"] = ClassRecord("c", "WaitForFirstConsumer", "kubernetes.io/azure-file",
                                       parameters=params)  # fmt: skip
    fields = {
        "class_name": "c",
        "uid": "u",
        "request": Fraction(1500 * 2**20),
        "request_value": 1500 * 2**20,
        "access_modes": ("ReadWriteMany",),
        **claim,
    }
    storage.claims[("ns", "d")] = ClaimRecord("ns", "d", **fields)
    return storage


@pytest.mark.parametrize(("params", "gib"), [
    ((("skuName", "Standard_LRS"), ("TAGS", "a=b, c = d")), 2),
    ((("skuname", "Premium_LRS"),), 100),
])  # fmt: skip
def test_the_volume_reaches_every_node(params, gib):
    out, (name,) = complete(_storage(*params), "ns", [("d", None)], "n0", {})
    pv = out.volumes[name]
    assert name == "pvc-u" and out.claims[("ns", "d")].volume_name == "pvc-u"
    assert (pv.labels, pv.node_affinity, pv.disk, pv.csi_driver) == ({}, None, None, "")
    assert (pv.capacity, pv.access_modes, pv.claim_ref) == (
        Fraction(gib * 2**30),
        ("ReadWriteMany",),
        ("ns", "d", "u"),
    )


@pytest.mark.parametrize(("params", "claim", "error"), [
    ((("fsType", "ext4"),), {}, 'invalid option "fsType" for volume plugin kubernetes.io/'),
    ((("tags", "bad"),), {}, "Tags 'bad' are invalid"),
    ((("tags", "=x"),), {}, "Tags '=x' are invalid"),
    ((), {"volume_mode": "Block"}, "does not support block volume provisioning"),
    ((), {"access_modes": ("ReadWriteOncePod",)}, "invalid AccessModes [ReadWriteOncePod]"),
])  # fmt: skip
def test_what_the_plugin_refuses(params, claim, error):
    with pytest.raises(UnsupportedError, match=r"provisioned by kubernetes.io/azure-file") as e:
        complete(_storage(*params, **claim), "ns", [("d", None)], "n0", {})
    assert error in str(e.value) and "(the provisioner fails)" in str(e.value)
