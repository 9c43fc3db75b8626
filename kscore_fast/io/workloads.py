"""Workloads in (``--expand-workloads``): the pending pods the controllers would create.

For each Deployment, ReplicaSet, ReplicationController, StatefulSet and Job of the input,
the pods its controller (apps/v1, batch/v1 semantics) would create for the replicas it
lacks: the desired count minus the active pods it already owns (a controller owner
reference to it; active: not being deleted, not Succeeded or Failed). They are pending
pods of the workload's namespace, with its pod template's spec, labels and annotations and
a controller owner reference, appended to the input in workload order:

* ReplicaSet, ReplicationController: ``spec.replicas`` (default 1); pods named
  ``<name>-<5 characters>`` (``generateName``; the characters are drawn from the
  controllers' alphabet, deterministically, where the API server draws them at random);
* Deployment: its ReplicaSets do the work. A Deployment with no ReplicaSet in the input
  whose template is its own (the ``pod-template-hash`` label aside) gets one, as the
  Deployment controller would create it: ``<name>-<hash>``, ``pod-template-hash: <hash>``
  in its selector, template and pods, ``spec.replicas`` the Deployment's; the hash is
  kscore's own (a digest of the template), not Go's ``ComputeHash`` (spew-printed Go
  structs), so it names a new ReplicaSet consistently but not as the cluster would;
* StatefulSet: pods ``<name>-<ordinal>`` for the ordinals 0 … ``spec.replicas`` - 1 it
  lacks, in ordinal order, labelled ``statefulset.kubernetes.io/pod-name`` and
  ``controller-revision-hash`` (the status' ``updateRevision``, else ``currentRevision``,
  else ``<name>-<hash>``); with ``volumeClaimTemplates``, each pod's claims
  ``<template>-<name>-<ordinal>`` as its volumes, and the claims the input lacks, of the
  template's class or the default StorageClass (unbound: the class's binding mode
  decides what VolumeBinding does with them). With two default StorageClasses or more,
  v1.23's DefaultStorageClass admission plugin refuses a claim of no class (``N default
  StorageClasses were found``): the controller's ``CreateStatefulPod`` then creates that
  pod's other claims but not the pod, and ``updateStatefulSet`` stops there, at every
  retry: the later ordinals are not created either;
* every kind: a pod template's generic ephemeral volumes (``ephemeral``) get their
  claims as the ephemeral volume controller creates them (pkg/controller/volume/
  ephemeral, ``handleVolume``): named ``<pod>-<volume>``, owned by the pod (an owner
  reference with ``controller: true`` and the pod's uid), with the
  ``volumeClaimTemplate``'s labels, annotations and spec (of the default StorageClass
  when it names none), unless the input has a claim of that name (which, when it is
  not the pod's, stops the controller for the pod, as a claim the admission plugin
  refuses does: the later volumes get none); such a pod gets
  ``metadata.uid``, the digest of its namespace and name
  (:func:`kscore_fast.model.objects.object_uid`, what the reader gives a pod without
  one);
* Job: ``min(parallelism, completions - succeeded)`` active pods (``parallelism``
  default 1; without ``completions``, ``parallelism`` until one succeeded; none when
  suspended), labelled ``job-name`` and ``controller-uid`` as the API server labels a
  Job's template.

Left out: rolling-update surges and old ReplicaSets scaling down (a Deployment's
ReplicaSets are taken at their ``spec.replicas``), StatefulSet ``podManagementPolicy``
ordering beyond ordinal order and ``spec.ordinals``, Job indexes (``completionMode:
Indexed``), DaemonSets and CronJobs.
"""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Iterable, Mapping
from typing import Any

from ..model.objects import object_uid

#: the kinds expanded
KINDS = ("Deployment", "ReplicaSet", "ReplicationController", "StatefulSet", "Job")
#: the characters of generated names (``utilrand.String``'s alphabet)
ALPHABET = "bcdfghjklmnpqrstvwxz2456789"
TEMPLATE_HASH = "pod-template-hash"
POD_NAME_LABEL = "statefulset.kubernetes.io/pod-name"
REVISION_LABEL = "controller-revision-hash"
_FINISHED = ("Succeeded", "Failed")

Obj = dict[str, Any]


def expand_workloads(objects: Iterable[Any]) -> tuple[list[Obj], dict[str, int]]:
    """The objects the workloads of ``objects`` lack (pods, and a Deployment's missing
    ReplicaSet), and how many pods each kind added."""
    objs = [o for o in objects if isinstance(o, Mapping)]
    pods = [o for o in objs if o.get("kind") == "Pod"]
    names = {(_ns(p), _meta(p).get("name")) for p in pods}
    replica_sets = [o for o in objs if o.get("kind") == "ReplicaSet"]
    claim_objs = {(_ns(c), _meta(c).get("name")): c for c in objs
                  if c.get("kind") == "PersistentVolumeClaim"}  # fmt: skip
    claims = set(claim_objs)
    defaults = _default_classes(objs)
    out: list[Obj] = []
    counts: dict[str, int] = {}
    for w in objs:
        kind = w.get("kind")
        if kind not in KINDS:
            continue
        if kind == "Deployment":
            rs = _missing_replica_set(w, replica_sets)
            if rs is None:
                continue
            out.append(rs)
            made = _generated(rs, _replicas(rs), [], names)
        else:
            owned = [p for p in pods if _owns(w, p) and _active(p)]
            if kind == "StatefulSet":
                made, made_claims = _stateful_claims(w, _stateful(w, owned), claims, defaults)
                out += made_claims
            elif kind == "Job":
                made = _generated(w, _job_wanted(w, pods), owned, names)
            else:
                made = _generated(w, _replicas(w), owned, names)
        for pod in made:
            names.add((_ns(pod), pod["metadata"]["name"]))
        out += made
        out += _ephemeral_claims(made, claims, claim_objs, defaults)
        counts[kind] = counts.get(kind, 0) + len(made)
    return out, counts


# -- per kind ------------------------------------------------------------------------------------


def _generated(owner: Mapping[str, Any], wanted: int, owned: list[Obj],
               taken: set[tuple[str, Any]]) -> list[Obj]:  # fmt: skip
    """``wanted - len(owned)`` pods of ``owner``'s template named ``<name>-<5 chars>``."""
    out: list[Obj] = []
    name, ns = _meta(owner).get("name"), _ns(owner)
    k = 0
    while len(out) < wanted - len(owned):
        pod_name = f"{name}-{_suffix(f'{ns}/{name}/{k}', 5)}"
        k += 1
        if (ns, pod_name) not in taken:
            out.append(_pod(owner, pod_name))
    return out


def _stateful(sts: Mapping[str, Any], owned: list[Obj]) -> list[Obj]:
    name = _meta(sts).get("name")
    have = {_meta(p).get("name") for p in owned}
    status = sts.get("status") if isinstance(sts.get("status"), Mapping) else {}
    revision = (status.get("updateRevision") or status.get("currentRevision")
                or f"{name}-{_suffix(_canonical(_template(sts)), 10)}")  # fmt: skip
    out = []
    for ordinal in range(_replicas(sts)):
        pod_name = f"{name}-{ordinal}"
        if pod_name in have:
            continue
        pod = _pod(sts, pod_name, {POD_NAME_LABEL: pod_name, REVISION_LABEL: revision})
        _claim_volumes(sts, pod, ordinal)
        pod["spec"].setdefault("hostname", pod_name)
        if sts.get("spec", {}).get("serviceName"):
            pod["spec"].setdefault("subdomain", sts["spec"]["serviceName"])
        out.append(pod)
    return out


def _templates(sts: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    spec = sts.get("spec") if isinstance(sts.get("spec"), Mapping) else {}
    return [t for t in spec.get("volumeClaimTemplates") or () if isinstance(t, Mapping)]


def _claim_name(sts: Mapping[str, Any], template: Mapping[str, Any], ordinal: int) -> str:
    """``getPersistentVolumeClaimName``: ``<template>-<statefulset>-<ordinal>``."""
    return f"{_meta(template).get('name')}-{_meta(sts).get('name')}-{ordinal}"


def _claim_volumes(sts: Mapping[str, Any], pod: Obj, ordinal: int) -> None:
    """``updateStorage``: a claim volume per template (named as the template), then the
    template's own volumes of other names. (Go builds the claim volumes from a map, so
    their order is random with two templates or more; here: the templates' order.)"""
    templates = _templates(sts)
    if not templates:
        return
    names = [_meta(t).get("name") for t in templates]
    volumes = [{"name": n, "persistentVolumeClaim": {"claimName": _claim_name(sts, t, ordinal)}}
               for n, t in zip(names, templates, strict=True)]  # fmt: skip
    own = [v for v in pod["spec"].get("volumes") or () if v.get("name") not in names]
    pod["spec"]["volumes"] = volumes + own


def _stateful_claims(sts: Mapping[str, Any], pods: list[Obj], taken: set[tuple[str, Any]],
                     defaults: list[str]) -> tuple[list[Obj], list[Obj]]:  # fmt: skip
    """The pods the StatefulSet controller creates of ``pods`` (in ordinal order) and the
    claims it creates for them that the input lacks (``CreateStatefulPod``:
    ``createPersistentVolumeClaims`` first): each template's, labelled with the
    selector's ``matchLabels``, of the default StorageClass when the template names
    none (the DefaultStorageClass admission plugin). A claim the admission plugin
    refuses (no class, and two default classes or more) fails the pod's creation: its
    other claims are created, the pod and the later ordinals are not (``updateStatefulSet``
    returns at the error, and so again at each retry)."""
    spec = sts.get("spec") if isinstance(sts.get("spec"), Mapping) else {}
    selector = spec.get("selector") if isinstance(spec.get("selector"), Mapping) else {}
    match = dict(selector.get("matchLabels") or {})
    made: list[Obj] = []
    out: list[Obj] = []
    for pod in pods:
        ordinal = int(pod["metadata"]["name"].rsplit("-", 1)[1])
        refused = False
        for template in _templates(sts):
            name, ns = _claim_name(sts, template, ordinal), _ns(sts)
            if (ns, name) in taken:
                continue
            claim = _claim(name, ns, template, defaults, match)
            if claim is None:
                refused = True
                continue
            taken.add((ns, name))
            out.append(claim)
        if refused:
            break
        made.append(pod)
    return made, out


def _claim(name: str, ns: str, template: Mapping[str, Any], defaults: list[str],
           labels: Mapping[str, str] | None = None, owner: Obj | None = None
           ) -> Obj | None:  # fmt: skip
    """A claim made of ``template`` (a ``volumeClaimTemplate``): its labels (and
    ``labels``), annotations and spec, the default StorageClass when it has no class
    (neither ``storageClassName`` nor the beta annotation: the DefaultStorageClass
    admission plugin), ``owner`` as its owner reference; None when the admission plugin
    refuses it (no class, and ``defaults`` names two classes or more: Go's ``N default
    StorageClasses were found``)."""
    tmeta = _meta(template)
    meta: Obj = {"name": name, "namespace": ns,
                 "labels": {**dict(tmeta.get("labels") or {}), **dict(labels or {})}}  # fmt: skip
    if tmeta.get("annotations"):
        meta["annotations"] = dict(tmeta["annotations"])
    if owner is not None:
        meta["ownerReferences"] = [owner]
    spec = template.get("spec")
    cspec = copy.deepcopy(dict(spec)) if isinstance(spec, Mapping) else {}
    named = cspec.get("storageClassName") is not None
    if not named and BETA_CLASS not in (meta.get("annotations") or {}):
        if len(defaults) > 1:
            return None
        if defaults:
            cspec["storageClassName"] = defaults[0]
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": meta,
            "spec": cspec, "status": {"phase": "Pending"}}  # fmt: skip


def _is_ephemeral(volume: Any) -> bool:
    return isinstance(volume, Mapping) and isinstance(volume.get("ephemeral"), Mapping)


def _ephemeral_claims(pods: list[Obj], taken: set[tuple[str, Any]],
                      existing: Mapping[tuple[str, Any], Mapping[str, Any]],
                      defaults: list[str]) -> list[Obj]:  # fmt: skip
    """The claims the ephemeral volume controller creates for ``pods``' generic ephemeral
    volumes (``handleVolume``, in volume order) that the input lacks; each such pod gets
    its uid. An ``existing`` claim of that name that is not the pod's (no controller
    owner reference with its uid), or a claim the admission plugin refuses, stops the
    controller for the pod: its later volumes get none."""
    out = []
    for pod in pods:
        volumes = [v for v in pod["spec"].get("volumes") or () if _is_ephemeral(v)]
        if not volumes:
            continue
        meta, ns = pod["metadata"], _ns(pod)
        meta["uid"] = object_uid(ns, meta["name"])
        owner = {"apiVersion": "v1", "kind": "Pod", "name": meta["name"], "uid": meta["uid"],
                 "controller": True, "blockOwnerDeletion": True}  # fmt: skip
        for v in volumes:
            name = f"{meta['name']}-{v.get('name')}"
            if (ns, name) in taken:
                if not _owned_by(existing.get((ns, name)), meta["uid"]):
                    break  # (VolumeIsForPod's error)
                continue
            template = v["ephemeral"].get("volumeClaimTemplate")
            template = template if isinstance(template, Mapping) else {}
            claim = _claim(name, ns, template, defaults, owner=dict(owner))
            if claim is None:
                break  # (the admission plugin's error)
            taken.add((ns, name))
            out.append(claim)
    return out


def _owned_by(claim: Mapping[str, Any] | None, uid: str) -> bool:
    """The claim (None: one this expansion made, the pod's) has a controller owner
    reference with ``uid`` (``VolumeIsForPod``)."""
    if claim is None:
        return True
    refs = _meta(claim).get("ownerReferences") or ()
    ref = next((r for r in refs if isinstance(r, Mapping) and r.get("controller")), None)
    return ref is not None and ref.get("uid") == uid


#: the beta annotation that gives a claim its class
BETA_CLASS = "volume.beta.kubernetes.io/storage-class"
#: the annotations that make a StorageClass the default (GA and beta)
DEFAULT_CLASS = ("storageclass.kubernetes.io/is-default-class",
                 "storageclass.beta.kubernetes.io/is-default-class")  # fmt: skip


def _default_classes(objs: list[Mapping[str, Any]]) -> list[str]:
    """The default StorageClasses' names (v1.23's admission plugin defaults a claim of
    no class to the one there is, and refuses it when there are two or more)."""
    return [_meta(o).get("name") for o in objs if o.get("kind") == "StorageClass"
            and any((_meta(o).get("annotations") or {}).get(a) == "true"
                    for a in DEFAULT_CLASS)]  # fmt: skip


def _job_wanted(job: Mapping[str, Any], pods: list[Obj]) -> int:
    """Active pods the Job wants (succeeded from its status, else from its pods)."""
    spec = job.get("spec") if isinstance(job.get("spec"), Mapping) else {}
    if spec.get("suspend"):
        return 0
    parallelism = _int(spec.get("parallelism"), 1)
    status = job.get("status") if isinstance(job.get("status"), Mapping) else {}
    succeeded = status.get("succeeded")
    if not isinstance(succeeded, int):
        succeeded = sum(1 for p in pods if _owns(job, p) and _phase(p) == "Succeeded")
    completions = spec.get("completions")
    if not isinstance(completions, int):
        return parallelism if succeeded == 0 else 0
    return max(0, min(parallelism, completions - succeeded))


def _missing_replica_set(deploy: Mapping[str, Any], replica_sets: list[Obj]) -> Obj | None:
    """The ReplicaSet the Deployment controller would create, or None when the input has
    one of its ReplicaSets with its template."""
    template = _template(deploy)
    for rs in replica_sets:
        if _owns(deploy, rs) and _without_hash(_template(rs)) == _without_hash(template):
            return None
    name, ns = _meta(deploy).get("name"), _ns(deploy)
    digest = _suffix(_canonical(template), 10)
    tmpl = copy.deepcopy(template)
    tmeta = dict(tmpl.get("metadata") or {})
    tmeta["labels"] = {**dict(tmeta.get("labels") or {}), TEMPLATE_HASH: digest}
    tmpl["metadata"] = tmeta
    dspec = deploy.get("spec") if isinstance(deploy.get("spec"), Mapping) else {}
    selector = copy.deepcopy(dict(dspec.get("selector") or {}))
    selector["matchLabels"] = {**dict(selector.get("matchLabels") or {}), TEMPLATE_HASH: digest}
    meta = {"name": f"{name}-{digest}", "namespace": ns, "labels": dict(tmeta["labels"]),
            "ownerReferences": [_reference(deploy)]}  # fmt: skip
    spec = {"replicas": _replicas(deploy), "selector": selector, "template": tmpl}
    return {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": meta, "spec": spec}


# -- helpers -----------------------------------------------------------------------------------


def _pod(owner: Mapping[str, Any], name: str, extra: Mapping[str, str] | None = None) -> Obj:
    template = _template(owner)
    tmeta = template.get("metadata") if isinstance(template.get("metadata"), Mapping) else {}
    labels = {**dict(tmeta.get("labels") or {}), **dict(extra or {})}
    if owner.get("kind") == "Job":
        labels.setdefault("job-name", _meta(owner).get("name"))
        if _meta(owner).get("uid"):
            labels.setdefault("controller-uid", _meta(owner)["uid"])
    meta: Obj = {"name": name, "namespace": _ns(owner), "labels": labels,
                 "ownerReferences": [_reference(owner)]}  # fmt: skip
    if tmeta.get("annotations"):
        meta["annotations"] = dict(tmeta["annotations"])
    spec = copy.deepcopy(dict(template.get("spec") or {}))
    spec.pop("nodeName", None)
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec,
            "status": {"phase": "Pending"}}  # fmt: skip


def _reference(owner: Mapping[str, Any]) -> Obj:
    ref = {
        "apiVersion": owner.get("apiVersion") or "apps/v1",
        "kind": owner.get("kind"),
        "name": _meta(owner).get("name"),
        "controller": True,
        "blockOwnerDeletion": True,
    }
    if _meta(owner).get("uid"):
        ref["uid"] = _meta(owner)["uid"]
    return ref


def _owns(owner: Mapping[str, Any], obj: Mapping[str, Any]) -> bool:
    """``obj``'s controller reference names ``owner`` (by UID when both have one)."""
    if _ns(obj) != _ns(owner):
        return False
    for ref in _meta(obj).get("ownerReferences") or ():
        if isinstance(ref, Mapping) and ref.get("controller"):
            uid, owner_uid = ref.get("uid"), _meta(owner).get("uid")
            if uid and owner_uid:
                return uid == owner_uid
            return ref.get("kind") == owner.get("kind") and ref.get("name") == _meta(owner).get(
                "name"
            )
    return False


def _active(pod: Mapping[str, Any]) -> bool:
    return not _meta(pod).get("deletionTimestamp") and _phase(pod) not in _FINISHED


def _phase(pod: Mapping[str, Any]) -> str:
    status = pod.get("status") if isinstance(pod.get("status"), Mapping) else {}
    return str(status.get("phase") or "")


def _template(w: Mapping[str, Any]) -> Obj:
    spec = w.get("spec") if isinstance(w.get("spec"), Mapping) else {}
    tmpl = spec.get("template")
    return dict(tmpl) if isinstance(tmpl, Mapping) else {}


def _without_hash(template: Mapping[str, Any]) -> Obj:
    out = copy.deepcopy(dict(template))
    meta = dict(out.get("metadata") or {})
    labels = {k: v for k, v in (meta.get("labels") or {}).items() if k != TEMPLATE_HASH}
    meta["labels"] = labels
    meta.pop("creationTimestamp", None)
    out["metadata"] = meta
    return out


def _replicas(w: Mapping[str, Any]) -> int:
    spec = w.get("spec") if isinstance(w.get("spec"), Mapping) else {}
    return _int(spec.get("replicas"), 1)


def _int(value: Any, default: int) -> int:
    return (
        value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else default
    )


def _meta(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    meta = obj.get("metadata")
    return meta if isinstance(meta, Mapping) else {}


def _ns(obj: Mapping[str, Any]) -> str:
    return str(_meta(obj).get("namespace") or "default")


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)


def _suffix(seed: str, n: int) -> str:
    """``n`` characters of :data:`ALPHABET` drawn from ``seed`` (deterministic)."""
    digest = int.from_bytes(hashlib.sha256(seed.encode()).digest(), "big")
    out = []
    for _ in range(n):
        digest, r = divmod(digest, len(ALPHABET))
        out.append(ALPHABET[r])
    return "".join(out)


def raw_objects(paths: Iterable[str], flag: str = "--expand-workloads") -> list[Any]:
    """Every object of ``paths`` as parsed JSON or YAML (Lists flattened), for
    :func:`expand_workloads` (the typed reader keeps no pod templates). Standard input
    cannot be read a second time: it is refused (naming ``flag``)."""
    from ..errors import InputError
    from .load import _looks_like_json
    from .manifests import STDIN, Report, iter_sources, parse_json, yaml_documents

    paths = list(paths)
    if STDIN in paths:
        raise InputError(f"{flag} reads its inputs twice: give files, not -")
    out: list[Any] = []
    for source in iter_sources(paths, Report()):
        try:
            data = source.read()
            is_json = source.is_json if source.is_json is not None else _looks_like_json(data)
            docs = ([parse_json(data, source.name)] if is_json
                    else [doc for _, doc in yaml_documents(data, source.name)])  # fmt: skip
        finally:
            source.close()
        for doc in docs:
            if isinstance(doc, Mapping) and str(doc.get("kind", "")).endswith("List"):
                out += [i for i in doc.get("items") or () if isinstance(i, Mapping)]
            elif isinstance(doc, Mapping):
                out.append(doc)
    return out
