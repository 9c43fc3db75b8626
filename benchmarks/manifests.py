"""Clusters as ``kubectl get -o json|yaml`` prints them, for the ingest and end-to-end
benchmarks.

Objects carry what real dumps carry (metadata with uid, resourceVersion, timestamps and
owner references; containers with images, resources, mounts and env; node status with
capacity, conditions, images and nodeInfo; pod status with conditions and container
statuses), so that reading them costs what reading a real cluster costs: the scheduler
reads a small part of each object and the rest must be skipped.

* :func:`go_shape_objects`: the shape of upstream's ``BenchmarkTestSelectorSpreadPriority``
  (see ``shapes.py``) with pending pods added;
* :func:`statefulset_objects`: a StatefulSet-heavy cluster (every pod has its own
  ``statefulset.kubernetes.io/pod-name``, one Service selects ``web-0``).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import yaml

ZONE = "topology.kubernetes.io/zone"
_TS = "2022-09-14T09:24:12Z"


def _uid(*parts: object) -> str:
    h = hashlib.md5(repr(parts).encode()).hexdigest()
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:32]}"


def node_object(i: int, zone: str) -> dict[str, Any]:
    name = f"node{i}"
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "annotations": {
                "kubeadm.alpha.kubernetes.io/cri-socket": "/run/containerd/containerd.sock",
                "node.alpha.kubernetes.io/ttl": "0",
                "volumes.kubernetes.io/controller-managed-attach-detach": "true",
            },
            "creationTimestamp": _TS,
            "labels": {
                "beta.kubernetes.io/arch": "amd64",
                "beta.kubernetes.io/os": "linux",
                "kubernetes.io/arch": "amd64",
                "kubernetes.io/hostname": name,
                "kubernetes.io/os": "linux",
                "node.kubernetes.io/instance-type": "m5.xlarge",
                ZONE: zone,
            },
            "name": name,
            "resourceVersion": str(48_000_000 + i),
            "uid": _uid("node", i),
        },
        "spec": {
            "podCIDR": f"10.{i // 256}.{i % 256}.0/24",
            "providerID": f"aws:///{zone}/i-{i:017x}",
        },
        "status": {
            "addresses": [
                {"address": f"10.40.{i // 256}.{i % 256}", "type": "InternalIP"},
                {"address": name, "type": "Hostname"},
            ],
            "allocatable": {
                "cpu": "3800m",
                "ephemeral-storage": "96463470554",
                "hugepages-1Gi": "0",
                "hugepages-2Mi": "0",
                "memory": "14770984Ki",
                "pods": "110",
            },
            "capacity": {
                "cpu": "4",
                "ephemeral-storage": "104845292Ki",
                "hugepages-1Gi": "0",
                "hugepages-2Mi": "0",
                "memory": "15921384Ki",
                "pods": "110",
            },
            "conditions": [
                {
                    "lastHeartbeatTime": _TS,
                    "lastTransitionTime": _TS,
                    "message": f"kubelet has {what}",
                    "reason": reason,
                    "status": status,
                    "type": kind,
                }
                for kind, reason, what, status in (
                    ("MemoryPressure", "KubeletHasSufficientMemory", "sufficient memory", "False"),
                    ("DiskPressure", "KubeletHasNoDiskPressure", "no disk pressure", "False"),
                    ("PIDPressure", "KubeletHasSufficientPID", "sufficient PID", "False"),
                    ("Ready", "KubeletReady", "posted ready status", "True"),
                )
            ],
            "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
            "images": [
                {
                    "names": [
                        f"registry.k8s.io/{img}@sha256:{_uid(img, 0).replace('-', '') * 2}",
                        f"registry.k8s.io/{img}:v1.23.6",
                    ],
                    "sizeBytes": size,
                }
                for img, size in (("kube-proxy", 71296001), ("pause", 301773))
            ],
            "nodeInfo": {
                "architecture": "amd64",
                "bootID": _uid("boot", i),
                "containerRuntimeVersion": "containerd://1.6.6",
                "kernelVersion": "5.15.0-1019-aws",
                "kubeProxyVersion": "v1.23.6",
                "kubeletVersion": "v1.23.6",
                "machineID": _uid("machine", i).replace("-", ""),
                "operatingSystem": "linux",
                "osImage": "Ubuntu 20.04.5 LTS",
                "systemUUID": _uid("system", i),
            },
        },
    }


def pod_object(
    name: str,
    labels: dict[str, str],
    node: str = "",
    *,
    namespace: str = "default",
    owner: tuple[str, str, str] | None = None,
) -> dict[str, Any]:
    """A pod as kubectl prints it; ``owner`` = (apiVersion, kind, name) of its controller."""
    meta: dict[str, Any] = {
        "creationTimestamp": _TS,
        "labels": labels,
        "name": name,
        "namespace": namespace,
        "resourceVersion": str(48_300_000 + len(name)),
        "uid": _uid("pod", name),
    }
    if owner is not None:
        api_version, kind, owner_name = owner
        meta["generateName"] = owner_name + "-"
        meta["ownerReferences"] = [
            {
                "apiVersion": api_version,
                "blockOwnerDeletion": True,
                "controller": True,
                "kind": kind,
                "name": owner_name,
                "uid": _uid(kind, owner_name),
            }
        ]
    spec: dict[str, Any] = {
        "containers": [
            {
                "image": "registry.example.com/shop/frontend:2.4.1",
                "imagePullPolicy": "IfNotPresent",
                "name": "app",
                "ports": [{"containerPort": 8080, "name": "http", "protocol": "TCP"}],
                "env": [{"name": "LOG_LEVEL", "value": "info"}],
                "resources": {
                    "limits": {"cpu": "500m", "memory": "256Mi"},
                    "requests": {"cpu": "100m", "memory": "128Mi"},
                },
                "terminationMessagePath": "/dev/termination-log",
                "terminationMessagePolicy": "File",
                "volumeMounts": [
                    {
                        "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount",
                        "name": "kube-api-access",
                        "readOnly": True,
                    }
                ],
            }
        ],
        "dnsPolicy": "ClusterFirst",
        "enableServiceLinks": True,
        "preemptionPolicy": "PreemptLowerPriority",
        "priority": 0,
        "restartPolicy": "Always",
        "schedulerName": "default-scheduler",
        "securityContext": {},
        "serviceAccount": "default",
        "serviceAccountName": "default",
        "terminationGracePeriodSeconds": 30,
        "tolerations": [
            {
                "effect": "NoExecute",
                "key": f"node.kubernetes.io/{taint}",
                "operator": "Exists",
                "tolerationSeconds": 300,
            }
            for taint in ("not-ready", "unreachable")
        ],
        "volumes": [{"name": "kube-api-access", "projected": {"defaultMode": 420}}],
    }
    status: dict[str, Any]
    if node:
        spec["nodeName"] = node
        status = {
            "conditions": [
                {"lastProbeTime": None, "lastTransitionTime": _TS, "status": "True", "type": t}
                for t in ("Initialized", "Ready", "ContainersReady", "PodScheduled")
            ],
            "containerStatuses": [
                {
                    "containerID": "containerd://" + _uid("c", name).replace("-", "") * 2,
                    "image": "registry.example.com/shop/frontend:2.4.1",
                    "imageID": "registry.example.com/shop/frontend@sha256:" + "ab" * 32,
                    "lastState": {},
                    "name": "app",
                    "ready": True,
                    "restartCount": 0,
                    "started": True,
                    "state": {"running": {"startedAt": _TS}},
                }
            ],
            "hostIP": "10.40.1.1",
            "phase": "Running",
            "podIP": "10.244.1.1",
            "podIPs": [{"ip": "10.244.1.1"}],
            "qosClass": "Burstable",
            "startTime": _TS,
        }
    else:
        status = {
            "conditions": [
                {
                    "lastProbeTime": None,
                    "lastTransitionTime": _TS,
                    "message": "0/1000 nodes are available: 1000 Insufficient cpu.",
                    "reason": "Unschedulable",
                    "status": "False",
                    "type": "PodScheduled",
                }
            ],
            "phase": "Pending",
            "qosClass": "Burstable",
        }
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec, "status": status}


def service_object(name: str, selector: dict[str, str], namespace: str = "default") -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": name, "namespace": namespace, "uid": _uid("svc", name)},
        "spec": {
            "clusterIP": "10.96.0.10",
            "ports": [{"name": "http", "port": 80, "protocol": "TCP", "targetPort": 8080}],
            "selector": selector,
            "type": "ClusterIP",
        },
    }


def go_shape_objects(n_nodes: int, n_existing: int, n_pending: int) -> Iterator[dict]:
    """``shapes.go_shape`` (one Service selecting ``foo=""``) as kubectl objects."""
    for i in range(n_nodes):
        yield node_object(i, f"zone{i % 10}")
    yield service_object("svc", {"foo": ""})
    for i in range(n_existing):
        yield pod_object(f"pod{i}", {"foo": ""}, f"node{i % n_nodes}")
    for j in range(n_pending):
        yield pod_object(f"p{j}", {"foo": "", "id": str(j)})


def statefulset_objects(n_nodes: int, n_pods: int, n_pending: int = 100) -> Iterator[dict]:
    """StatefulSet ``web``: ``n_pods`` pods (the last ``n_pending`` not bound), each with its
    own ``statefulset.kubernetes.io/pod-name``, and one Service selecting ``web-0`` by it."""
    for i in range(n_nodes):
        yield node_object(i, f"zone{i % 3}")
    yield service_object("web-0", {"statefulset.kubernetes.io/pod-name": "web-0"})
    yield {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {"selector": {"matchLabels": {"app": "web"}}, "serviceName": "web"},
    }
    for i in range(n_pods):
        labels = {
            "app": "web",
            "controller-revision-hash": "web-6b7c8d9f5",
            "statefulset.kubernetes.io/pod-name": f"web-{i}",
        }
        node = f"node{i % n_nodes}" if i < n_pods - n_pending else ""
        yield pod_object(f"web-{i}", labels, node, owner=("apps/v1", "StatefulSet", "web"))


def write_list(objects: Iterable[dict], path: Path, fmt: str) -> Path:
    """Write ``objects`` as one ``kind: List``, as ``kubectl get -o json|yaml`` does."""
    doc = {"apiVersion": "v1", "items": list(objects), "kind": "List",
           "metadata": {"resourceVersion": ""}}  # fmt: skip
    with open(path, "w", encoding="utf-8") as fh:
        if fmt == "json":
            json.dump(doc, fh, indent=4)
        else:
            yaml.dump(doc, fh, Dumper=getattr(yaml, "CSafeDumper", yaml.SafeDumper))
    return path
