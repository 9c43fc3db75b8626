"""The ephemeral volume controller for pods added during a run (``Simulator.add_pod``,
an event script's ``addPod``, ``kscore capacity``'s copies): v1.23.6
pkg/controller/volume/ephemeral ``syncHandler``/``handleVolume``, then the
DefaultStorageClass admission plugin (plugin/pkg/admission/storage/storageclass/
setdefault) on each claim it creates.

For each ``ephemeral`` volume of the pod, in ``spec.volumes`` order: a claim named
``<pod name>-<volume name>`` that exists already is left as it is when it is the pod's
(``VolumeIsForPod``), and stops the controller when it is not (its error: the later
volumes get no claim); else the claim is created: the template's labels, annotations and
spec, an owner reference to the pod (``controller`` and ``blockOwnerDeletion`` true, the
pod's uid). A claim of no class (neither ``spec.storageClassName`` nor the beta
annotation) gets the default StorageClass when one class is the default, none when no
class is; with two default classes or more the admission plugin refuses the claim, which
stops the controller too. The controller is assumed to keep up: the claims exist before
the pod's next scheduling cycle. A pod being deleted gets none.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..model.objects import PodRecord
from ..model.storage import BETA_STORAGE_CLASS_ANNOTATION, ClaimRecord, Storage
from ..plugins.helper.ephemeral import volume_is_for_pod

Obj = dict[str, Any]


def created_claims(pod: Mapping[str, Any], record: PodRecord, storage: Storage) -> list[Obj]:
    """The claims (objects, in volume order) the controller creates for ``pod`` (its
    object; ``record``: as read) given the claims and classes of ``storage``."""
    spec = pod.get("spec") if isinstance(pod.get("spec"), Mapping) else {}
    volumes = [v for v in spec.get("volumes") or ()
               if isinstance(v, Mapping) and isinstance(v.get("ephemeral"), Mapping)]  # fmt: skip
    if not volumes or record.deleting:
        return []
    defaults = sorted(c.name for c in storage.classes.values() if c.default)
    owner = {"apiVersion": "v1", "kind": "Pod", "name": record.name, "uid": record.uid,
             "controller": True, "blockOwnerDeletion": True}  # fmt: skip
    out: list[Obj] = []
    for v in volumes:
        name = f"{record.name}-{v.get('name')}"
        found: ClaimRecord | None = storage.claims.get((record.namespace, name))
        if found is not None:
            if volume_is_for_pod(record, found) is not None:
                break  # (handleVolume's error: syncHandler stops)
            continue
        template = v["ephemeral"].get("volumeClaimTemplate")
        claim = _claim(name, record.namespace, template if isinstance(template, Mapping) else {},
                       owner)  # fmt: skip
        if not _has_class(claim):
            if len(defaults) > 1:
                break  # (admission: "N default StorageClasses were found")
            if defaults:
                claim["spec"]["storageClassName"] = defaults[0]
        out.append(claim)
    return out


def _claim(name: str, namespace: str, template: Mapping[str, Any], owner: Obj) -> Obj:
    """``handleVolume``'s claim of ``template`` (a ``volumeClaimTemplate``)."""
    meta = template.get("metadata") if isinstance(template.get("metadata"), Mapping) else {}
    out_meta: Obj = {"name": name, "namespace": namespace, "ownerReferences": [dict(owner)]}
    for key in ("labels", "annotations"):
        if isinstance(meta.get(key), Mapping) and meta[key]:
            out_meta[key] = dict(meta[key])
    spec = template.get("spec")
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": out_meta,
            "spec": dict(spec) if isinstance(spec, Mapping) else {},
            "status": {"phase": "Pending"}}  # fmt: skip


def _has_class(claim: Obj) -> bool:
    """``PersistentVolumeClaimHasClass``: the beta annotation, or ``storageClassName`` set."""
    notes = claim["metadata"].get("annotations") or {}
    named = claim["spec"].get("storageClassName") is not None
    return BETA_STORAGE_CLASS_ANNOTATION in notes or named
