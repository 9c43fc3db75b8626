"""The pod fields (``PodRecord`` attributes) each plugin's ``prepare`` reads of a batch's
pods: its ``lone_fields`` (:mod:`kscore_fast.framework.lone_states`), in one place so
that the plugins reading one part of a pod name it alike."""

from __future__ import annotations

#: taints: NodeUnschedulable, TaintToleration
TOLERATIONS = ("tolerations",)
#: requests (the containers', the init containers', the overhead): NodeResourcesFit,
#: NodeResourcesBalancedAllocation; the containers' ports and images: NodePorts,
#: ImageLocality
REQUESTS = ("containers", "init_containers", "overhead")
CONTAINERS = ("containers",)
#: ``spec.nodeSelector`` and ``spec.affinity.nodeAffinity``: NodeAffinity
NODE_AFFINITY = ("node_selector", "node_affinity")
#: the pod as other pods' selectors see it, and its spread constraints (the defaults'
#: selectors come from the services and controllers selecting it), counted on the nodes
#: its node affinity admits: PodTopologySpread
SPREAD = ("namespace", "labels", "owner_references", "topology_spread_constraints",
          *NODE_AFFINITY)  # fmt: skip
#: the pod as other pods' terms see it, and its own terms: InterPodAffinity
POD_AFFINITY = ("namespace", "labels", "pod_affinity", "pod_anti_affinity")
#: the volumes (claims by namespace, ephemeral ones owned by the pod's uid, named after
#: it in messages; in-tree disks): VolumeBinding's PreFilter and Filter, VolumeZone,
#: VolumeRestrictions and the volume limits
VOLUMES = ("namespace", "claims", "ephemeral", "uid", "ephemeral_owner", "disks")
