"""Generic ephemeral volumes' claims, as the volume plugins read them: a port of
k8s.io/component-helpers/storage/ephemeral (v1.23.6). A pod's ``claims`` hold its
ephemeral volumes' claim names already (``VolumeClaimName``: ``<pod name>-<volume
name>``, made by the reader), at the positions ``ephemeral`` lists.
"""

from __future__ import annotations

from ...model.objects import PodRecord
from ...model.storage import ClaimRecord


def volume_is_for_pod(pod: PodRecord, claim: ClaimRecord) -> str | None:
    """``VolumeIsForPod``: None when the claim's controller (its first owner reference
    with ``controller: true``) has the pod's uid, else Go's error text."""
    if claim.namespace != pod.namespace or claim.controller_uid != pod.uid:
        return (f"PVC {claim.namespace}/{claim.name} was not created for pod "
                f"{pod.namespace}/{pod.name} (pod is not owner)")  # fmt: skip
    return None


def foreign_claim(pod: PodRecord, claims: dict[tuple[str, str], ClaimRecord]) -> str | None:
    """The error of the first ephemeral volume of ``pod`` whose claim (present in
    ``claims``) is not the pod's own, or None."""
    for i in pod.ephemeral:
        claim = claims.get((pod.namespace, pod.claims[i]))
        if claim is not None and (error := volume_is_for_pod(pod, claim)) is not None:
            return error
    return None
