"""What completes a binding after Reserve, before the pod is bound: PreBind's
``BindPodVolumes`` (v1.23.6 binder.go: ``bindAPIUpdate`` writes the assumed volumes'
``claimRef`` and the claims' selected-node annotation, then ``checkBindings`` waits until
every claim is fully bound), the PersistentVolume controller
(pkg/controller/volume/persistentvolume: ``syncClaim`` binds a claim to the volume whose
``claimRef`` names it: the claim's ``spec.volumeName`` and ``pv.kubernetes.io/bind-completed``,
both ``Bound``) and a CSI driver's external provisioner (it creates the volume of a claim
with a selected node, named ``pvc-<claim uid>``, bound to the claim).

kscore_fast models these as a cluster whose controllers keep up:

* a static binding: the volume's ``claimRef`` names the claim (its uid), the claim is
  bound to the volume (both no longer Available/Pending);
* a provisioning through a CSI provisioner (any provisioner outside ``kubernetes.io/``):
  a new volume ``pvc-<uid>`` of the claim's class, request, access and volume modes, a
  ``csi`` source (driver: the provisioner; volume handle: the volume's name), no labels,
  and as node affinity the selected node's values of the driver's ``topologyKeys`` in
  that node's CSINode (one term, ``In`` each value; no CSINode entry or no keys: no node
  affinity, as a driver without topology gives none). A node that lacks a label of those
  keys makes the provisioner fail (the claim's selected node is reset and the pod tried
  again): refused, not simulated.
* a provisioning through an in-tree provisioner whose CSI migration is on (GCE PD, EBS,
  Azure Disk, Cinder under v1.23's default gates): the PV controller hands it to the
  migrated CSI driver's external provisioner, which creates the CSI volume as above (the
  driver's topology keys in the node's CSINode) and translates it back to the in-tree
  source, zone label and node affinity (:mod:`.intree`); a translation that fails is
  refused, not simulated;
* a provisioning through ``kubernetes.io/azure-file`` (migration off in v1.23): the PV
  controller's own plugin creates a volume that every node reaches (:mod:`.azurefile`);
* a provisioning through another in-tree provisioner (``kubernetes.io/...``): not
  completed (the PV controller's own plugins call a cloud: not modelled). The claim stays
  pending with its selected node (as in a cluster where that provisioner is not running),
  and later pods of it must land on that node.

A claim without ``metadata.uid`` (the API server gives every claim one) is given
:func:`claim_uid`'s deterministic one when its binding completes.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence

import msgspec

from ...errors import UnsupportedError
from ...model.objects import NodeSelectorRequirement, NodeSelectorTerm, object_uid
from ...model.storage import WAIT_FOR_FIRST_CONSUMER, ClaimRecord, Storage, VolumeRecord
from ..nodevolumelimits.translate import GCE_PLUGIN
from .azurefile import AZURE_FILE_PLUGIN, AzureFileError, azure_file_volume
from .intree import ProvisioningError, csi_handle, gce_region, migrated_driver, to_in_tree
from .regional import (
    REGIONAL,
    RegionalError,
    regional_handle,
    regional_terms,
    regional_zones,
    replication_type,
)

#: the provisioners of the in-tree volume plugins (not provisioned unless migrated or Azure File)
IN_TREE_PREFIX = "kubernetes.io/"


def claim_uid(claim: ClaimRecord) -> str:
    """The claim's uid, or for a claim without one: the SHA-256 of ``namespace/name`` in
    the form of a UUID (8-4-4-4-12 hexadecimal digits of its first 16 bytes)."""
    return claim.uid or object_uid(claim.namespace, claim.name)


def provisions(provisioner: str) -> bool:
    """A provisioning through ``provisioner`` completes (a CSI driver's, a migrated
    in-tree plugin's, or Azure File's)."""
    return (not provisioner.startswith(IN_TREE_PREFIX) or provisioner == AZURE_FILE_PLUGIN
            or migrated_driver(provisioner) is not None)  # fmt: skip


def unprovisioned_claims(storage: Storage) -> dict[str, int]:
    """The unbound claims of ``WaitForFirstConsumer`` classes whose provisioner kscore does
    not provision (an in-tree plugin's whose CSI migration is off in v1.23, but Azure
    File's), by provisioner: they stay pending once their pod is bound."""
    out: dict[str, int] = {}
    for claim in storage.claims.values():
        found = storage.classes.get(claim.class_name) if not claim.volume_name else None
        if (found is not None and found.binding_mode == WAIT_FOR_FIRST_CONSUMER
                and not provisions(found.provisioner)):  # fmt: skip
            out[found.provisioner] = out.get(found.provisioner, 0) + 1
    return out


def complete(storage: Storage, namespace: str, decided: Sequence[tuple[str, str | None]],
             node: str, labels: Mapping[str, str],
             all_labels: Sequence[Mapping[str, str]] = ()
             ) -> tuple[Storage, list[str | None]]:  # fmt: skip
    """``storage`` after the bindings that Reserve ``decided`` for a pod of ``namespace``
    bound to ``node`` (of ``labels``; ``all_labels``: every node's, which a regional
    disk's second zone reads) completed (see the module's docstring): the new storage
    and, per decision, the volume the claim is bound to (None: not completed)."""
    claims, volumes = dict(storage.claims), dict(storage.volumes)
    names: list[str | None] = []
    for claim_name, volume_name in decided:
        claim = claims[(namespace, claim_name)]
        uid = claim_uid(claim)
        ref = (claim.namespace, claim.name, uid)
        if volume_name is not None:
            volumes[volume_name] = msgspec.structs.replace(
                volumes[volume_name], claim_ref=ref, available=False
            )
        else:
            claim = msgspec.structs.replace(claim, selected_node=node)  # (bindAPIUpdate)
            provisioner = storage.classes[claim.class_name].provisioner
            if not provisions(provisioner):
                claims[(namespace, claim_name)] = claim
                names.append(None)
                continue
            if provisioner == AZURE_FILE_PLUGIN:
                volume = _azure_file(claim, uid, storage, node)
            else:
                volume = provisioned_volume(claim, uid, provisioner, storage, node, labels,
                                            all_labels)  # fmt: skip
            volume_name = volume.name
            volumes[volume_name] = volume
        claims[(namespace, claim_name)] = msgspec.structs.replace(
            claim, uid=uid, volume_name=volume_name, bind_completed=True
        )
        names.append(volume_name)
    return dataclasses.replace(storage, claims=claims, volumes=volumes), names


def provisioned_volume(claim: ClaimRecord, uid: str, provisioner: str, storage: Storage,
                       node: str, labels: Mapping[str, str],
                       all_labels: Sequence[Mapping[str, str]] = ()) -> VolumeRecord:  # fmt: skip
    """The volume an external provisioner creates for ``claim`` (uid ``uid``) selected for
    ``node`` (of ``labels``; every node's: ``all_labels``); a migrated in-tree plugin's,
    translated back (a regional GCE PD: :mod:`.regional`)."""
    name = f"pvc-{uid}"
    driver = migrated_driver(provisioner) or provisioner
    terms = _topology(claim, driver, storage, node, labels)
    handle = csi_handle(provisioner, name) if driver != provisioner else name
    if provisioner == GCE_PLUGIN:
        try:
            cls = storage.classes[claim.class_name]
            if replication_type(cls) == REGIONAL:
                keys = [e.key for t in terms or () for e in t.match_expressions]
                zones = regional_zones(cls, keys, labels, all_labels)
                terms, handle = regional_terms(zones), regional_handle(name, gce_region(zones))
        except (RegionalError, ProvisioningError) as e:
            raise UnsupportedError(
                f"VolumeBinding: claim {claim.namespace}/{claim.name} provisioned by {driver} "
                f"for {provisioner} on node {node}: {e} (the provisioner fails): not "
                "simulated by kscore_fast"
            ) from None
    made = VolumeRecord(
        name, {}, None, driver, name, terms, claim.class_name, claim.request,
        claim.access_modes, claim.volume_mode, (claim.namespace, claim.name, uid),
        available=False,
    )  # fmt: skip
    if driver == provisioner:
        return made
    try:
        disk, tree_labels, tree_terms = to_in_tree(provisioner, handle, terms)
    except ProvisioningError as e:
        raise UnsupportedError(
            f"VolumeBinding: claim {claim.namespace}/{claim.name} provisioned by {driver} "
            f"for {provisioner} on node {node}: failed to translate topology: {e} (the "
            "provisioner deletes the volume and fails): not simulated by kscore_fast"
        ) from None
    return msgspec.structs.replace(made, labels=tree_labels, disk=disk, csi_driver="",
                                   csi_handle="", node_affinity=tree_terms)  # fmt: skip


def _azure_file(claim: ClaimRecord, uid: str, storage: Storage, node: str) -> VolumeRecord:
    """The volume Azure File's in-tree provisioner creates (:mod:`.azurefile`)."""
    try:
        return azure_file_volume(claim, uid, storage.classes[claim.class_name])
    except AzureFileError as e:
        raise UnsupportedError(
            f"VolumeBinding: claim {claim.namespace}/{claim.name} provisioned by "
            f"{AZURE_FILE_PLUGIN} on node {node}: {e} (the provisioner fails): not "
            "simulated by kscore_fast"
        ) from None


def _topology(claim: ClaimRecord, provisioner: str, storage: Storage, node: str,
              labels: Mapping[str, str]) -> tuple[NodeSelectorTerm, ...] | None:  # fmt: skip
    """The node affinity of the volume: the node's values of the driver's topology keys in
    its CSINode (None: no CSINode, no entry of the driver, no keys)."""
    csi_node = storage.csi_nodes.get(node)
    drivers = csi_node.drivers if csi_node is not None else ()
    driver = next((d for d in drivers if d.name == provisioner), None)
    if driver is None or not driver.topology_keys:
        return None
    missing = [k for k in driver.topology_keys if k not in labels]
    if missing:
        raise UnsupportedError(
            f"VolumeBinding: claim {claim.namespace}/{claim.name} provisioned by {provisioner} "
            f"for node {node}, which lacks the label {missing[0]!r} of its CSINode's "
            "topologyKeys (the provisioner fails and the pod is tried again): not simulated "
            "by kscore_fast"
        )
    return (NodeSelectorTerm(tuple(NodeSelectorRequirement(k, "In", (labels[k],))
                                   for k in driver.topology_keys)),)  # fmt: skip
