"""A claim of ``kubernetes.io/azure-file`` (whose CSI migration v1.23 leaves off),
provisioned as the PersistentVolume controller's own plugin provisions it: v1.23.6
pkg/volume/azure_file/azure_provision.go ``azureFileProvisioner.Provision``, run by
``provisionClaimOperation`` once the claim has its selected node.

The volume is named ``pvc-<claim uid>`` (``getProvisionedVolumeNameForClaim``), of the
claim's class, access and volume modes, bound to it, with no labels and no node affinity
(an Azure file share is reachable from every node; the plugin ignores the selected node
and the allowed topologies): all that the scheduler reads of it. Its capacity is the
request rounded up to GiB (at least 100 GiB for a ``premium`` SKU). What the cloud
decides (the storage account, hence the secret's name) is not read by any plugin.

The provisioner's own refusals are refused, not simulated (:class:`AzureFileError`:
Go's texts): an access mode other than ``ReadWriteOnce``, ``ReadOnlyMany``,
``ReadWriteMany``; ``volumeMode: Block``; a class parameter other than ``skuname``,
``location``, ``storageaccount``, ``secretnamespace``, ``resourcegroup``,
``sharename``, ``tags`` (keys compared lowercased); malformed ``tags``
(``ConvertTagsToMap``); a claim with a selector.
"""

from __future__ import annotations

from fractions import Fraction

from ...model.storage import ClaimRecord, ClassRecord, VolumeRecord

AZURE_FILE_PLUGIN = "kubernetes.io/azure-file"
#: ``GetAccessModes`` of the plugin, in Go's order
ACCESS_MODES = ("ReadWriteOnce", "ReadOnlyMany", "ReadWriteMany")
PARAMETERS = frozenset(("skuname", "location", "storageaccount", "secretnamespace",
                        "resourcegroup", "sharename", "tags"))  # fmt: skip
GIB = 2**30
#: ``minimumPremiumShareSize`` (GiB)
MINIMUM_PREMIUM = 100


class AzureFileError(Exception):
    """``Provision`` fails (Go's text)."""


def azure_file_volume(claim: ClaimRecord, uid: str, cls: ClassRecord) -> VolumeRecord:
    """The volume the plugin provisions for ``claim`` (uid ``uid``) of class ``cls``."""
    if any(m not in ACCESS_MODES for m in claim.access_modes):
        raise AzureFileError(f"invalid AccessModes [{' '.join(claim.access_modes)}]: only "
                             f"AccessModes [{' '.join(ACCESS_MODES)}] are supported")  # fmt: skip
    if claim.volume_mode == "Block":
        raise AzureFileError(f"{AZURE_FILE_PLUGIN} does not support block volume provisioning")
    sku = ""
    for key, value in cls.parameters:
        if key.lower() not in PARAMETERS:
            raise AzureFileError(f'invalid option "{key}" for volume plugin {AZURE_FILE_PLUGIN}')
        if key.lower() == "skuname":
            sku = value
        elif key.lower() == "tags":
            _check_tags(value)
    if claim.selector is not None:
        raise AzureFileError("claim.Spec.Selector is not supported for dynamic provisioning "
                             "on Azure file")  # fmt: skip
    gib = -(-(claim.request_value or 0) // GIB)  # (RoundUpToGiBInt)
    if sku.lower().startswith("premium"):
        gib = max(gib, MINIMUM_PREMIUM)
    name = f"pvc-{uid}"
    return VolumeRecord(
        name, {}, None, "", "", None, claim.class_name, Fraction(gib * GIB),
        claim.access_modes, claim.volume_mode, (claim.namespace, claim.name, uid),
        available=False,
    )  # fmt: skip


def _check_tags(tags: str) -> None:
    """``ConvertTagsToMap``'s errors: ``key=value`` pairs separated by ``,``, keys not
    blank."""
    if tags == "":
        return
    for tag in tags.split(","):
        kv = tag.split("=")
        if len(kv) != 2 or not kv[0].strip():
            raise AzureFileError(f"Tags '{tags}' are invalid, the format should like: "
                                 "'key1=value1,key2=value2'")  # fmt: skip
