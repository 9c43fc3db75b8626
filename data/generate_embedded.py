#!/usr/bin/env python3
"""Generate the embedded demo cluster of kscore_fast (data/embedded/*.json).

The cluster is synthetic. It is built to look like ``kubectl get ... -o json`` output of a
kubeadm cluster (Kubernetes v1.23.6) on AWS-style machines in one region with three zones,
and to exercise every input rule of SelectorSpread (see data/embedded/SOURCE.md).

Deterministic: every random choice comes from ``random.Random`` instances seeded from
``--seed`` (string seeds, hashed with SHA-512 by the stdlib, so independent of
PYTHONHASHSEED), no wall clock is read, and JSON is written with sorted keys. Running the
script twice with the same seed gives byte-identical files.

Usage:  python data/generate_embedded.py [--seed N] [--out DIR]
Needs:  Python >= 3.11.
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import json
import random
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

DEFAULT_SEED = 20220914
HERE = Path(__file__).resolve().parent
DEFAULT_OUT = HERE / "embedded"

# Snapshot time: the moment the cluster was "dumped".
T0 = datetime(2022, 9, 14, 9, 30, 0, tzinfo=UTC)

REGION = "eu-west-1"
ZONES = ["eu-west-1a", "eu-west-1b", "eu-west-1c"]
K8S_VERSION = "v1.23.6"
OLD_KUBELET = "v1.22.9"

# k8s.io/apimachinery/pkg/util/rand alphabet (no vowels, no confusable characters).
ALNUM = "bcdfghjklmnpqrstvwxz2456789"

KI = 1024
MI = 1024 * 1024
GI = 1024 * 1024 * 1024

# Instance types: (cpu cores, memory capacity Ki, allocatable cpu milli, ephemeral-storage Ki)
INSTANCE_TYPES = {
    "m5.large": (2, 7934464, 1800, 52416492),
    "m5.xlarge": (4, 15921384, 3800, 104845292),
    "m5.2xlarge": (8, 32036452, 7800, 104845292),
    "r5.xlarge": (4, 32036460, 3800, 104845292),
}
# kube-reserved + system-reserved + eviction threshold, in Ki (subtracted from capacity).
MEMORY_RESERVED_KI = 1048576 + 102400
EPHEMERAL_RESERVED_FRACTION = 0.1  # allocatable ephemeral storage = 90% of capacity, in bytes

DEFAULT_TOLERATIONS = [
    {"effect": "NoExecute", "key": "node.kubernetes.io/not-ready", "operator": "Exists",
     "tolerationSeconds": 300},
    {"effect": "NoExecute", "key": "node.kubernetes.io/unreachable", "operator": "Exists",
     "tolerationSeconds": 300},
]

PENDING_MESSAGE = (
    "0/33 nodes are available: 1 node(s) were unschedulable, 2 node(s) had taint "
    "{node-role.kubernetes.io/master: }, that the pod didn't tolerate, 30 Insufficient cpu."
)


# --------------------------------------------------------------------------------------
# small helpers
# --------------------------------------------------------------------------------------

def ts(dt: datetime) -> str:
    return dt.strftime("%Y-%m-%dT%H:%M:%SZ")


class Gen:
    """Named, independently seeded random streams plus a resourceVersion counter."""

    def __init__(self, seed: int):
        self.seed = seed
        self._streams: dict[str, random.Random] = {}
        self._rv = 48_213_000

    def r(self, name: str) -> random.Random:
        if name not in self._streams:
            self._streams[name] = random.Random(f"kscore-embedded:{self.seed}:{name}")
        return self._streams[name]

    def uid(self) -> str:
        return str(uuid.UUID(int=self.r("uid").getrandbits(128), version=4))

    def rv(self) -> str:
        self._rv += self.r("rv").randint(3, 900)
        return str(self._rv)

    def suffix(self, n: int = 5) -> str:
        rr = self.r("names")
        return "".join(rr.choice(ALNUM) for _ in range(n))

    def hash10(self) -> str:
        rr = self.r("hashes")
        return rr.choice("56789") + "".join(rr.choice(ALNUM) for _ in range(9))

    def hexid(self, n: int, stream: str = "hex") -> str:
        rr = self.r(stream)
        return "".join(rr.choice("0123456789abcdef") for _ in range(n))


def digest(ref: str) -> str:
    return "sha256:" + hashlib.sha256(ref.encode()).hexdigest()


def cpu_milli(q: str) -> int:
    return int(q[:-1]) if q.endswith("m") else int(q) * 1000


def mem_bytes(q: str) -> int:
    for suf, mul in (("Ki", KI), ("Mi", MI), ("Gi", GI)):
        if q.endswith(suf):
            return int(q[: -len(suf)]) * mul
    return int(q)


def container(name, image, req=None, lim=None, ports=None, mounts=None, args=None):
    c = {
        "image": image,
        "imagePullPolicy": "IfNotPresent",
        "name": name,
        "resources": {},
        "terminationMessagePath": "/dev/termination-log",
        "terminationMessagePolicy": "File",
    }
    if req:
        c["resources"]["requests"] = dict(req)
    if lim:
        c["resources"]["limits"] = dict(lim)
    if ports:
        c["ports"] = [
            {"containerPort": p, "name": n, "protocol": "TCP"} for n, p in ports
        ]
    if mounts:
        c["volumeMounts"] = [{"mountPath": mp, "name": vn} for vn, mp in mounts]
    if args:
        c["args"] = list(args)
    return c


def pod_requests(spec: dict) -> tuple[int, int]:
    """Effective cpu (milli) and memory (bytes) requests, as the scheduler computes them."""
    cpu = mem = 0
    for c in spec["containers"]:
        r = c.get("resources", {}).get("requests", {})
        cpu += cpu_milli(r.get("cpu", "0"))
        mem += mem_bytes(r.get("memory", "0"))
    for c in spec.get("initContainers", []):
        r = c.get("resources", {}).get("requests", {})
        cpu = max(cpu, cpu_milli(r.get("cpu", "0")))
        mem = max(mem, mem_bytes(r.get("memory", "0")))
    return cpu, mem


def qos_class(spec: dict) -> str:
    conts = spec["containers"] + spec.get("initContainers", [])
    any_set = False
    guaranteed = True
    for c in conts:
        req = c.get("resources", {}).get("requests", {})
        lim = c.get("resources", {}).get("limits", {})
        if req or lim:
            any_set = True
        for res in ("cpu", "memory"):
            if res not in lim or (res in req and req[res] != lim[res]):
                guaranteed = False
    if not any_set:
        return "BestEffort"
    return "Guaranteed" if guaranteed else "Burstable"


# --------------------------------------------------------------------------------------
# nodes
# --------------------------------------------------------------------------------------

class NodeRec:
    def __init__(self, **kw):
        self.__dict__.update(kw)
        self.pods: list[dict] = []
        self.cpu_used = 0
        self.mem_used = 0

    @property
    def cpu_alloc(self) -> int:
        return INSTANCE_TYPES[self.itype][2]

    @property
    def mem_alloc(self) -> int:
        return (INSTANCE_TYPES[self.itype][1] - MEMORY_RESERVED_KI) * KI

    def fits(self, cpu: int, mem: int) -> bool:
        return (self.cpu_used + cpu <= self.cpu_alloc and self.mem_used + mem <= self.mem_alloc
                and len(self.pods) < 110)


def plan_nodes(g: Gen) -> list[NodeRec]:
    """36 nodes: 2 control-plane + 34 workers over three zones."""
    rr = g.r("nodes")
    recs: list[NodeRec] = []
    # (name, zone index, instance type, role, created, flags)
    spec = [("demo-cp-1", 0, "m5.large", "cp"), ("demo-cp-2", 1, "m5.large", "cp")]
    worker_types = {
        0: ["m5.xlarge", "m5.xlarge", "m5.2xlarge", "m5.xlarge", "r5.xlarge", "m5.xlarge",
            "m5.2xlarge", "m5.xlarge", "m5.xlarge", "r5.xlarge", "m5.2xlarge", "m5.xlarge"],
        1: ["m5.xlarge", "m5.2xlarge", "m5.xlarge", "m5.xlarge", "r5.xlarge", "m5.xlarge",
            "m5.2xlarge", "m5.xlarge", "m5.xlarge", "m5.2xlarge", "m5.xlarge"],
        2: ["m5.xlarge", "m5.xlarge", "m5.2xlarge", "m5.xlarge", "r5.xlarge", "m5.xlarge",
            "m5.xlarge", "m5.2xlarge", "m5.xlarge", "m5.xlarge", "m5.xlarge"],
    }
    for zi, types in worker_types.items():
        letter = "abc"[zi]
        for i, it in enumerate(types, start=1):
            spec.append((f"demo-w-{letter}{i:02d}", zi, it, "worker"))

    old_nodes = {"demo-w-a01", "demo-w-a02", "demo-w-b01", "demo-w-c01"}
    new_nodes = {"demo-w-a12", "demo-w-b11", "demo-w-c11"}  # added by the autoscaler minutes ago
    cordoned = {"demo-w-c10"}                                 # being drained

    for idx, (name, zi, it, role) in enumerate(spec):
        if role == "cp":
            created = datetime(2022, 3, 2, 14, 5, 0, tzinfo=UTC) + timedelta(minutes=11 * idx)
        elif name in old_nodes:
            created = datetime(2022, 3, 2, 14, 40, 0, tzinfo=UTC) + timedelta(
                minutes=rr.randint(0, 50))
        elif name in new_nodes:
            created = T0 - timedelta(minutes=3, seconds=rr.randint(0, 50))
        else:
            created = datetime(2022, 6, 20, 8, 0, 0, tzinfo=UTC) + timedelta(
                days=rr.randint(0, 60), minutes=rr.randint(0, 600))
        third = [0, 64, 128][zi]
        ip = f"10.40.{third + rr.randint(1, 62)}.{rr.randint(4, 250)}"
        recs.append(NodeRec(
            name=name, zone=ZONES[zi], zi=zi, itype=it, role=role, created=created,
            old=name in old_nodes, new=name in new_nodes, cordoned=name in cordoned,
            ip=ip, cidr_index=idx, instance_id="i-0" + g.hexid(16, "instance"),
        ))
    # Unique IPs (re-draw on the rare collision, deterministically).
    seen = set()
    for n in recs:
        while n.ip in seen:
            third = [0, 64, 128][n.zi]
            n.ip = f"10.40.{third + rr.randint(1, 62)}.{rr.randint(4, 250)}"
        seen.add(n.ip)
    return recs


def node_object(g: Gen, n: NodeRec) -> dict:
    cores, mem_ki, cpu_alloc_m, eph_ki = INSTANCE_TYPES[n.itype]
    labels = {
        "beta.kubernetes.io/arch": "amd64",
        "beta.kubernetes.io/os": "linux",
        "kubernetes.io/arch": "amd64",
        "kubernetes.io/hostname": n.name,
        "kubernetes.io/os": "linux",
        "node.kubernetes.io/instance-type": n.itype,
        "topology.kubernetes.io/region": REGION,
        "topology.kubernetes.io/zone": n.zone,
    }
    if n.old:
        # Nodes of the original node group still carry the deprecated beta labels
        # (same values as the GA labels).
        labels["beta.kubernetes.io/instance-type"] = n.itype
        labels["failure-domain.beta.kubernetes.io/region"] = REGION
        labels["failure-domain.beta.kubernetes.io/zone"] = n.zone
    if n.role == "cp":
        labels["node-role.kubernetes.io/control-plane"] = ""
        labels["node-role.kubernetes.io/master"] = ""
        labels["node.kubernetes.io/exclude-from-external-load-balancers"] = ""
    else:
        labels["demo.kscore.io/nodegroup"] = (
            "general-v1" if n.old else ("memory-v2" if n.itype == "r5.xlarge" else "general-v2"))

    kubelet = OLD_KUBELET if n.old else K8S_VERSION
    spec: dict = {
        "podCIDR": f"10.244.{n.cidr_index}.0/24",
        "podCIDRs": [f"10.244.{n.cidr_index}.0/24"],
        "providerID": f"aws:///{n.zone}/{n.instance_id}",
    }
    if n.role == "cp":
        spec["taints"] = [
            {"effect": "NoSchedule", "key": "node-role.kubernetes.io/master"},
            {"effect": "NoSchedule", "key": "node-role.kubernetes.io/control-plane"},
        ]
    if n.cordoned:
        spec["unschedulable"] = True
        spec["taints"] = [{"effect": "NoSchedule", "key": "node.kubernetes.io/unschedulable",
                           "timeAdded": ts(T0 - timedelta(minutes=2, seconds=5))}]

    hb = ts(T0 - timedelta(seconds=g.r("nodes").randint(2, 38)))
    up = ts(n.created + timedelta(seconds=25))
    conditions = [
        {"lastHeartbeatTime": ts(n.created + timedelta(seconds=40)), "lastTransitionTime":
         ts(n.created + timedelta(seconds=40)), "message": "Calico is running on this node",
         "reason": "CalicoIsUp", "status": "False", "type": "NetworkUnavailable"},
        {"lastHeartbeatTime": hb, "lastTransitionTime": up,
         "message": "kubelet has sufficient memory available",
         "reason": "KubeletHasSufficientMemory", "status": "False", "type": "MemoryPressure"},
        {"lastHeartbeatTime": hb, "lastTransitionTime": up,
         "message": "kubelet has no disk pressure",
         "reason": "KubeletHasNoDiskPressure", "status": "False", "type": "DiskPressure"},
        {"lastHeartbeatTime": hb, "lastTransitionTime": up,
         "message": "kubelet has sufficient PID available",
         "reason": "KubeletHasSufficientPID", "status": "False", "type": "PIDPressure"},
        {"lastHeartbeatTime": hb, "lastTransitionTime": ts(n.created + timedelta(seconds=52)),
         "message": "kubelet is posting ready status. AppArmor enabled",
         "reason": "KubeletReady", "status": "True", "type": "Ready"},
    ]

    # Images present on the node: those of the pods running there (deduplicated).
    images: dict[str, int] = {}
    for p in n.pods:
        for c in p["spec"].get("initContainers", []) + p["spec"]["containers"]:
            images[c["image"]] = image_size(c["image"])
    images["registry.k8s.io/pause:3.6"] = 301773
    img_list = [
        {"names": [img.split(":")[0] + "@" + digest(img), img], "sizeBytes": size}
        for img, size in sorted(images.items(), key=lambda kv: (-kv[1], kv[0]))
    ]

    dash_ip = n.ip.replace(".", "-")
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "annotations": {
                "kubeadm.alpha.kubernetes.io/cri-socket": "/run/containerd/containerd.sock",
                "node.alpha.kubernetes.io/ttl": "0",
                "projectcalico.org/IPv4Address": f"{n.ip}/18",
                "volumes.kubernetes.io/controller-managed-attach-detach": "true",
            },
            "creationTimestamp": ts(n.created),
            "labels": labels,
            "name": n.name,
            "resourceVersion": g.rv(),
            "uid": n.uid,
        },
        "spec": spec,
        "status": {
            "addresses": [
                {"address": n.ip, "type": "InternalIP"},
                {"address": n.name, "type": "Hostname"},
                {"address": f"ip-{dash_ip}.{REGION}.compute.internal", "type": "InternalDNS"},
            ],
            "allocatable": {
                "cpu": f"{cpu_alloc_m}m",
                "ephemeral-storage": str(int(eph_ki * KI * (1 - EPHEMERAL_RESERVED_FRACTION))),
                "hugepages-1Gi": "0",
                "hugepages-2Mi": "0",
                "memory": f"{mem_ki - MEMORY_RESERVED_KI}Ki",
                "pods": "110",
            },
            "capacity": {
                "cpu": str(cores),
                "ephemeral-storage": f"{eph_ki}Ki",
                "hugepages-1Gi": "0",
                "hugepages-2Mi": "0",
                "memory": f"{mem_ki}Ki",
                "pods": "110",
            },
            "conditions": conditions,
            "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
            "images": img_list,
            "nodeInfo": {
                "architecture": "amd64",
                "bootID": str(uuid.UUID(int=g.r("nodeinfo").getrandbits(128), version=4)),
                "containerRuntimeVersion": "containerd://1.5.11" if n.old else "containerd://1.6.6",
                "kernelVersion": "5.13.0-1025-aws" if n.old else "5.15.0-1019-aws",
                "kubeProxyVersion": kubelet,
                "kubeletVersion": kubelet,
                "machineID": g.hexid(32, "nodeinfo-hex"),
                "operatingSystem": "linux",
                "osImage": "Ubuntu 20.04.4 LTS" if n.old else "Ubuntu 20.04.5 LTS",
                "systemUUID": "ec2" + g.hexid(5, "nodeinfo-hex") + "-" + g.hexid(4, "nodeinfo-hex")
                + "-" + g.hexid(4, "nodeinfo-hex") + "-" + g.hexid(4, "nodeinfo-hex") + "-"
                + g.hexid(12, "nodeinfo-hex"),
            },
        },
    }


def image_size(image: str) -> int:
    h = int(hashlib.sha256(("size:" + image).encode()).hexdigest()[:8], 16)
    return 12_000_000 + h % 480_000_000


# --------------------------------------------------------------------------------------
# cluster model
# --------------------------------------------------------------------------------------

class Cluster:
    def __init__(self, seed: int):
        self.g = Gen(seed)
        self.nodes = plan_nodes(self.g)
        for n in self.nodes:
            n.uid = self.g.uid()
        self.node_by_name = {n.name: n for n in self.nodes}
        self.objects: list[dict] = []  # workload-file objects (non-pod, non-node)
        self.pods: list[dict] = []
        self.ns_uid: dict[str, str] = {}

    # ---- placement --------------------------------------------------------------------

    def app_nodes(self, zi: int) -> list[NodeRec]:
        """Workers of zone zi that received application pods before the snapshot."""
        return [n for n in self.nodes
                if n.zi == zi and n.role == "worker" and not n.new and not n.cordoned]

    def pick(self, stream: str, zi: int, spec: dict, exclude=()) -> NodeRec:
        rr = self.g.r("place:" + stream)
        cpu, mem = pod_requests(spec)
        cands = [n for n in self.app_nodes(zi) if n.name not in exclude and n.fits(cpu, mem)]
        if not cands:
            raise RuntimeError(f"no room for {stream} in zone {zi}")
        return rr.choice(cands)

    def bind(self, pod: dict, node: NodeRec) -> None:
        cpu, mem = pod_requests(pod["spec"])
        if not node.fits(cpu, mem) and pod["status"].get("phase") in ("Running", "Pending"):
            raise RuntimeError(f"{pod['metadata']['name']} does not fit on {node.name}")
        pod["spec"]["nodeName"] = node.name
        if pod["status"].get("phase") in ("Running", "Pending"):
            node.cpu_used += cpu
            node.mem_used += mem
        node.pods.append(pod)

    # ---- object builders -------------------------------------------------------------

    def meta(self, name, ns=None, labels=None, annotations=None, created=None, owner=None):
        m = {"creationTimestamp": ts(created or T0 - timedelta(days=30)), "name": name,
             "resourceVersion": self.g.rv(), "uid": self.g.uid()}
        if ns is not None:
            m["namespace"] = ns
        if labels:
            m["labels"] = dict(labels)
        if annotations:
            m["annotations"] = dict(annotations)
        if owner:
            m["ownerReferences"] = [owner_ref(owner)]
        return m

    def add(self, obj: dict) -> dict:
        self.objects.append(obj)
        return obj

    def make_pod(self, name, ns, labels, spec_tmpl, owner, created, node=None,
                 generate_name=None, phase="Running", annotations=None, owner_ref_obj=None,
                 static_owner=None):
        spec = copy.deepcopy(spec_tmpl)
        if node is None:
            phase = "Pending"
        # Admission defaults.
        spec.setdefault("dnsPolicy", "ClusterFirst")
        spec.setdefault("enableServiceLinks", True)
        spec.setdefault("restartPolicy", "Always")
        spec.setdefault("schedulerName", "default-scheduler")
        spec.setdefault("securityContext", {})
        spec.setdefault("serviceAccount", spec.get("serviceAccountName", "default"))
        spec.setdefault("serviceAccountName", spec["serviceAccount"])
        spec.setdefault("terminationGracePeriodSeconds", 30)
        spec.setdefault("priority", 0)
        spec.setdefault("preemptionPolicy", "PreemptLowerPriority")
        tol = spec.setdefault("tolerations", [])
        for t in DEFAULT_TOLERATIONS:
            if not any(x.get("key") == t["key"] and x.get("effect") == t["effect"] for x in tol) \
                    and not any(x.get("operator") == "Exists" and "key" not in x for x in tol):
                tol.append(dict(t))
        md = {"creationTimestamp": ts(created), "name": name, "namespace": ns,
              "resourceVersion": self.g.rv(), "uid": self.g.uid()}
        if labels:
            md["labels"] = dict(labels)
        if generate_name:
            md["generateName"] = generate_name
        if annotations:
            md["annotations"] = dict(annotations)
        if owner is not None:
            md["ownerReferences"] = [owner_ref(owner)]
        if static_owner is not None:
            md["ownerReferences"] = [{"apiVersion": "v1", "controller": True, "kind": "Node",
                                      "name": static_owner.name, "uid": static_owner.uid}]
        pod = {"apiVersion": "v1", "kind": "Pod", "metadata": md, "spec": spec,
               "status": {"phase": phase, "qosClass": qos_class(spec)}}
        if node is not None:
            self.bind(pod, node)
            self.fill_running_status(pod, node, created, phase)
        else:
            pod["status"]["conditions"] = [{
                "lastProbeTime": None, "lastTransitionTime": ts(created + timedelta(seconds=1)),
                "message": PENDING_MESSAGE, "reason": "Unschedulable", "status": "False",
                "type": "PodScheduled"}]
        self.pods.append(pod)
        return pod

    def fill_running_status(self, pod, node: NodeRec, created, phase):
        st = pod["status"]
        spec = pod["spec"]
        sched = created + timedelta(seconds=1)
        started = created + timedelta(seconds=3)
        ready = created + timedelta(seconds=self.g.r("status").randint(6, 40))
        st["hostIP"] = node.ip
        if spec.get("hostNetwork"):
            pod_ip = node.ip
        else:
            pod_ip = f"10.244.{node.cidr_index}.{len(node.pods) + 9}"
        st["startTime"] = ts(started)
        cstats = []
        for c in spec["containers"]:
            cs = {
                "containerID": "containerd://" + self.g.hexid(64, "cid"),
                "image": c["image"],
                "imageID": c["image"].split(":")[0] + "@" + digest(c["image"]),
                "lastState": {},
                "name": c["name"],
                "ready": phase == "Running",
                "restartCount": 0,
                "started": phase == "Running",
            }
            if phase == "Running":
                cs["state"] = {"running": {"startedAt": ts(started + timedelta(seconds=1))}}
            else:
                fin = started + timedelta(minutes=self.g.r("status").randint(2, 40))
                code = 0 if phase == "Succeeded" else 1
                cs["state"] = {"terminated": {
                    "containerID": cs["containerID"], "exitCode": code,
                    "finishedAt": ts(fin), "reason": "Completed" if code == 0 else "Error",
                    "startedAt": ts(started + timedelta(seconds=1))}}
            cstats.append(cs)
        st["containerStatuses"] = cstats
        if spec.get("initContainers"):
            st["initContainerStatuses"] = [{
                "containerID": "containerd://" + self.g.hexid(64, "cid"),
                "image": c["image"], "imageID": c["image"].split(":")[0] + "@" + digest(c["image"]),
                "lastState": {}, "name": c["name"], "ready": True, "restartCount": 0,
                "state": {"terminated": {"containerID": "containerd://" + self.g.hexid(64, "cid"),
                                         "exitCode": 0, "finishedAt": ts(started),
                                         "reason": "Completed",
                                         "startedAt": ts(started - timedelta(seconds=1))}},
            } for c in spec["initContainers"]]
        ok = "True" if phase == "Running" else "False"
        conds = [
            {"lastProbeTime": None, "lastTransitionTime": ts(started), "status": "True",
             "type": "Initialized"},
            {"lastProbeTime": None, "lastTransitionTime": ts(ready), "status": ok,
             "type": "Ready"},
            {"lastProbeTime": None, "lastTransitionTime": ts(ready), "status": ok,
             "type": "ContainersReady"},
            {"lastProbeTime": None, "lastTransitionTime": ts(sched), "status": "True",
             "type": "PodScheduled"},
        ]
        if phase != "Running":
            conds[1]["reason"] = "PodCompleted"
            conds[2]["reason"] = "PodCompleted"
        st["conditions"] = conds
        st["podIP"] = pod_ip
        st["podIPs"] = [{"ip": pod_ip}]


def owner_ref(obj: dict) -> dict:
    return {"apiVersion": obj["apiVersion"], "blockOwnerDeletion": True, "controller": True,
            "kind": obj["kind"], "name": obj["metadata"]["name"], "uid": obj["metadata"]["uid"]}


def template_spec(containers, **extra) -> dict:
    spec = {"containers": containers, "dnsPolicy": "ClusterFirst", "restartPolicy": "Always",
            "schedulerName": "default-scheduler", "securityContext": {},
            "terminationGracePeriodSeconds": 30}
    spec.update(extra)
    return spec


def labelselector_matches(sel: dict, labels: dict) -> bool:
    for k, v in sel.get("matchLabels", {}).items():
        if labels.get(k) != v:
            return False
    for e in sel.get("matchExpressions", []):
        k, op, vals = e["key"], e["operator"], e.get("values", [])
        if op == "In" and labels.get(k) not in vals:
            return False
        if op == "NotIn" and k in labels and labels[k] in vals:
            return False
        if op == "Exists" and k not in labels:
            return False
        if op == "DoesNotExist" and k in labels:
            return False
    return True


# --------------------------------------------------------------------------------------
# workloads
# --------------------------------------------------------------------------------------

class Deploy:
    """A Deployment, its ReplicaSets (current + optional older revisions) and pod factory."""

    def __init__(self, cl: Cluster, ns, name, selector, pod_labels, spec, created,
                 dep_labels=None, strategy=None, old_revisions=0, old_spec=None,
                 old_pod_labels=None, replicas=None, rs_created=None):
        self.cl, self.ns, self.name = cl, ns, name
        self.replicas = replicas  # Deployment spec.replicas when a rollout is in progress
        self.selector = selector
        self.pod_labels = pod_labels
        self.spec = spec
        g = cl.g
        self.dep = {
            "apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": cl.meta(name, ns, labels=dep_labels or {"app": pod_labels["app"]},
                                annotations={"deployment.kubernetes.io/revision":
                                             str(old_revisions + 1)}, created=created),
            "spec": {
                "progressDeadlineSeconds": 600, "replicas": replicas or 0,
                "revisionHistoryLimit": 10,
                "selector": copy.deepcopy(selector),
                "strategy": strategy or {"rollingUpdate": {"maxSurge": "25%",
                                                           "maxUnavailable": "25%"},
                                         "type": "RollingUpdate"},
                "template": {"metadata": {"creationTimestamp": None,
                                          "labels": dict(pod_labels)},
                             "spec": copy.deepcopy(spec)},
            },
            "status": {},
        }
        cl.add(self.dep)
        self.old_rs = []
        for rev in range(1, old_revisions + 1):
            self.old_rs.append(self._rs(g.hash10(), rev, old_spec or spec,
                                        old_pod_labels or pod_labels,
                                        created + timedelta(days=rev - 1)))
        self.rs = self._rs(g.hash10(), old_revisions + 1, spec, pod_labels,
                           rs_created or created + timedelta(days=old_revisions))

    def _rs(self, h, rev, spec, pod_labels, created):
        sel = copy.deepcopy(self.selector)
        sel.setdefault("matchLabels", {})["pod-template-hash"] = h
        labels = dict(pod_labels, **{"pod-template-hash": h})
        rs = {
            "apiVersion": "apps/v1", "kind": "ReplicaSet",
            "metadata": self.cl.meta(
                f"{self.name}-{h}", self.ns, labels=labels, created=created,
                annotations={"deployment.kubernetes.io/desired-replicas": "0",
                             "deployment.kubernetes.io/max-replicas": "0",
                             "deployment.kubernetes.io/revision": str(rev)},
                owner=self.dep),
            "spec": {"replicas": 0, "selector": sel,
                     "template": {"metadata": {"creationTimestamp": None, "labels": labels},
                                  "spec": copy.deepcopy(spec)}},
            "status": {},
        }
        self.cl.add(rs)
        return rs

    def pod(self, node=None, created=None, rs=None, **kw):
        rs = rs or self.rs
        labels = rs["spec"]["template"]["metadata"]["labels"]
        gen = rs["metadata"]["name"] + "-"
        name = gen + self.cl.g.suffix()
        return self.cl.make_pod(name, self.ns, labels, rs["spec"]["template"]["spec"], rs,
                                created or T0 - timedelta(days=3), node=node,
                                generate_name=gen, **kw)


class Sts:
    def __init__(self, cl: Cluster, ns, name, selector, pod_labels, spec, created, service,
                 vct_size="20Gi", storage_class="gp3", pod_management="OrderedReady"):
        self.cl, self.ns, self.name = cl, ns, name
        self.rev = f"{name}-{cl.g.hash10()[:9]}"
        self.pod_labels = pod_labels
        self.obj = {
            "apiVersion": "apps/v1", "kind": "StatefulSet",
            "metadata": cl.meta(name, ns, labels={"app.kubernetes.io/name":
                                                  pod_labels.get("app.kubernetes.io/name",
                                                                 pod_labels.get("app"))},
                                created=created),
            "spec": {
                "podManagementPolicy": pod_management, "replicas": 0, "revisionHistoryLimit": 10,
                "selector": selector, "serviceName": service,
                "template": {"metadata": {"creationTimestamp": None, "labels": dict(pod_labels)},
                             "spec": copy.deepcopy(spec)},
                "updateStrategy": {"rollingUpdate": {"partition": 0}, "type": "RollingUpdate"},
                "volumeClaimTemplates": [{
                    "apiVersion": "v1", "kind": "PersistentVolumeClaim",
                    "metadata": {"creationTimestamp": None, "name": "data"},
                    "spec": {"accessModes": ["ReadWriteOnce"],
                             "resources": {"requests": {"storage": vct_size}},
                             "storageClassName": storage_class, "volumeMode": "Filesystem"},
                    "status": {"phase": "Pending"}}],
            },
            "status": {},
        }
        cl.add(self.obj)

    def pod(self, ordinal, node=None, created=None):
        name = f"{self.name}-{ordinal}"
        labels = dict(self.pod_labels)
        labels["controller-revision-hash"] = self.rev
        labels["statefulset.kubernetes.io/pod-name"] = name
        spec = copy.deepcopy(self.obj["spec"]["template"]["spec"])
        spec["hostname"] = name
        spec["subdomain"] = self.obj["spec"]["serviceName"]
        spec.setdefault("volumes", []).insert(
            0, {"name": "data", "persistentVolumeClaim": {"claimName": f"data-{name}"}})
        return self.cl.make_pod(name, self.ns, labels, spec, self.obj,
                                created or T0 - timedelta(days=9, hours=ordinal), node=node)


def service(cl, ns, name, selector, ports, headless=False, labels=None, created=None):
    rr = cl.g.r("svc-ip")
    spec = {
        "internalTrafficPolicy": "Cluster",
        "ipFamilies": ["IPv4"],
        "ipFamilyPolicy": "SingleStack",
        "ports": [{"name": pn, "port": p, "protocol": "TCP", "targetPort": tp}
                  for pn, p, tp in ports],
        "sessionAffinity": "None",
        "type": "ClusterIP",
    }
    if selector is not None:
        spec["selector"] = dict(selector)
    if headless:
        spec["clusterIP"] = "None"
        spec["clusterIPs"] = ["None"]
    else:
        ip = f"10.96.{rr.randint(1, 254)}.{rr.randint(2, 254)}"
        spec["clusterIP"] = ip
        spec["clusterIPs"] = [ip]
    return cl.add({"apiVersion": "v1", "kind": "Service",
                   "metadata": cl.meta(name, ns, labels=labels or {"app": name},
                                       created=created),
                   "spec": spec, "status": {"loadBalancer": {}}})


def daemonset_pod_spec(spec_tmpl: dict, node: NodeRec) -> dict:
    spec = copy.deepcopy(spec_tmpl)
    spec["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchFields": [
            {"key": "metadata.name", "operator": "In", "values": [node.name]}]}]}}}
    tol = spec.setdefault("tolerations", [])
    if not any(t.get("operator") == "Exists" and "key" not in t for t in tol):
        for key, eff in (("node.kubernetes.io/not-ready", "NoExecute"),
                         ("node.kubernetes.io/unreachable", "NoExecute"),
                         ("node.kubernetes.io/disk-pressure", "NoSchedule"),
                         ("node.kubernetes.io/memory-pressure", "NoSchedule"),
                         ("node.kubernetes.io/pid-pressure", "NoSchedule"),
                         ("node.kubernetes.io/unschedulable", "NoSchedule"),
                         ("node.kubernetes.io/network-unavailable", "NoSchedule")):
            if spec.get("hostNetwork") or key != "node.kubernetes.io/network-unavailable":
                tol.append({"effect": eff, "key": key, "operator": "Exists"})
    return spec


def build(seed: int) -> Cluster:
    cl = Cluster(seed)
    g = cl.g
    nodes = cl.nodes
    cps = [n for n in nodes if n.role == "cp"]
    cluster_created = datetime(2022, 3, 2, 14, 10, 0, tzinfo=UTC)

    # ---- namespaces (skipped kind) -------------------------------------------------------
    ns_created = {"default": cluster_created, "kube-system": cluster_created,
                  "shop": datetime(2022, 3, 8, 10, 0, tzinfo=UTC),
                  "payments": datetime(2022, 3, 9, 11, 30, tzinfo=UTC),
                  "data": datetime(2022, 4, 1, 9, 15, tzinfo=UTC),
                  "batch": datetime(2022, 5, 17, 16, 45, tzinfo=UTC)}
    for ns, created in ns_created.items():
        cl.add({"apiVersion": "v1", "kind": "Namespace",
                "metadata": cl.meta(ns, labels={"kubernetes.io/metadata.name": ns},
                                    created=created),
                "spec": {"finalizers": ["kubernetes"]}, "status": {"phase": "Active"}})

    # ---- config maps, endpoints (skipped kinds) -----------------------------------------
    cl.add({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": cl.meta("coredns", "kube-system", created=cluster_created),
            "data": {"Corefile": ".:53 {\n    errors\n    health {\n       lameduck 5s\n    }\n"
                                 "    ready\n    kubernetes cluster.local in-addr.arpa ip6.arpa {\n"
                                 "       pods insecure\n       fallthrough in-addr.arpa ip6.arpa\n"
                                 "       ttl 30\n    }\n    prometheus :9153\n"
                                 "    forward . /etc/resolv.conf {\n       max_concurrent 1000\n"
                                 "    }\n    cache 30\n    loop\n    reload\n    loadbalance\n"
                                 "}\n"}})
    cl.add({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": cl.meta("frontend-config", "shop", labels={"app": "frontend"},
                                created=ns_created["shop"] + timedelta(hours=1)),
            "data": {"CART_URL": "http://cart.shop.svc:8080",
                     "CATALOG_URL": "http://catalog.shop.svc:8080",
                     "FEATURE_FLAGS": "new-checkout=true,recommendations=false"}})
    kubernetes_svc = service(cl, "default", "kubernetes", None, [("https", 443, 6443)],
                             labels={"component": "apiserver", "provider": "kubernetes"},
                             created=cluster_created)
    kubernetes_svc["spec"]["clusterIP"] = "10.96.0.1"
    kubernetes_svc["spec"]["clusterIPs"] = ["10.96.0.1"]
    cl.add({"apiVersion": "v1", "kind": "Endpoints",
            "metadata": cl.meta("kubernetes", "default",
                                labels={"endpointslice.kubernetes.io/skip-mirror": "true"},
                                created=cluster_created),
            "subsets": [{"addresses": [{"ip": n.ip} for n in cps],
                         "ports": [{"name": "https", "port": 6443, "protocol": "TCP"}]}]})

    # ---- kube-system: static pods, DaemonSets, CoreDNS ---------------------------------
    static = [
        ("etcd", "registry.k8s.io/etcd:3.5.1-0", {"cpu": "100m", "memory": "100Mi"}),
        ("kube-apiserver", f"registry.k8s.io/kube-apiserver:{K8S_VERSION}", {"cpu": "250m"}),
        ("kube-controller-manager", f"registry.k8s.io/kube-controller-manager:{K8S_VERSION}",
         {"cpu": "200m"}),
        ("kube-scheduler", f"registry.k8s.io/kube-scheduler:{K8S_VERSION}", {"cpu": "100m"}),
    ]
    for n in cps:
        for comp, image, req in static:
            cfg_hash = g.hexid(32, "static")
            spec = template_spec(
                [container(comp, image, req=req)], hostNetwork=True,
                priorityClassName="system-node-critical", priority=2000001000,
                tolerations=[{"effect": "NoExecute", "operator": "Exists"}])
            cl.make_pod(f"{comp}-{n.name}", "kube-system",
                        {"component": comp, "tier": "control-plane"}, spec, None,
                        n.created + timedelta(minutes=1), node=n, static_owner=n,
                        annotations={"kubernetes.io/config.hash": cfg_hash,
                                     "kubernetes.io/config.mirror": cfg_hash,
                                     "kubernetes.io/config.seen":
                                         ts(n.created) .replace("Z", ".412034521Z"),
                                     "kubernetes.io/config.source": "file"})

    daemonsets = [
        ("kube-proxy", {"k8s-app": "kube-proxy"},
         [container("kube-proxy", f"registry.k8s.io/kube-proxy:{K8S_VERSION}",
                    args=None)],
         dict(hostNetwork=True, priorityClassName="system-node-critical", priority=2000001000,
              serviceAccountName="kube-proxy", nodeSelector={"kubernetes.io/os": "linux"},
              tolerations=[{"operator": "Exists"}]), True),
        ("calico-node", {"k8s-app": "calico-node"},
         [container("calico-node", "docker.io/calico/node:v3.23.3", req={"cpu": "250m"})],
         dict(hostNetwork=True, priorityClassName="system-node-critical", priority=2000001000,
              serviceAccountName="calico-node", nodeSelector={"kubernetes.io/os": "linux"},
              tolerations=[{"effect": "NoSchedule", "operator": "Exists"},
                           {"key": "CriticalAddonsOnly", "operator": "Exists"},
                           {"effect": "NoExecute", "operator": "Exists"}]), True),
        ("node-exporter", {"app.kubernetes.io/name": "node-exporter"},
         [container("node-exporter", "quay.io/prometheus/node-exporter:v1.3.1",
                    req={"cpu": "102m", "memory": "180Mi"},
                    lim={"cpu": "250m", "memory": "180Mi"}, ports=[("metrics", 9100)])],
         dict(hostNetwork=True, hostPID=True, priorityClassName="system-node-critical",
              priority=2000001000, serviceAccountName="node-exporter",
              nodeSelector={"kubernetes.io/os": "linux"}), False),
    ]
    for ds_name, labels, conts, extra, on_cp in daemonsets:
        rev = g.hash10()[:9]
        tmpl = template_spec(conts, **extra)
        ds = cl.add({
            "apiVersion": "apps/v1", "kind": "DaemonSet",
            "metadata": cl.meta(ds_name, "kube-system", labels=labels,
                                annotations={"deprecated.daemonset.template.generation": "1"},
                                created=cluster_created + timedelta(minutes=3)),
            "spec": {"revisionHistoryLimit": 10, "selector": {"matchLabels": dict(labels)},
                     "template": {"metadata": {"creationTimestamp": None, "labels": labels},
                                  "spec": copy.deepcopy(tmpl)},
                     "updateStrategy": {"rollingUpdate": {"maxSurge": 0, "maxUnavailable": 1},
                                        "type": "RollingUpdate"}},
            "status": {}})
        count = 0
        for n in nodes:
            if n.role == "cp" and not on_cp:
                continue
            pl = dict(labels, **{"controller-revision-hash": rev, "pod-template-generation": "1"})
            spec = daemonset_pod_spec(tmpl, n)
            gen = ds_name + "-"
            cl.make_pod(gen + g.suffix(), "kube-system", pl, spec, ds,
                        max(n.created + timedelta(seconds=45), cluster_created),
                        node=n, generate_name=gen)
            count += 1
        ds["status"] = {"currentNumberScheduled": count, "desiredNumberScheduled": count,
                        "numberAvailable": count, "numberMisscheduled": 0,
                        "numberReady": count, "observedGeneration": 1,
                        "updatedNumberScheduled": count}

    coredns_spec = template_spec(
        [container("coredns", "registry.k8s.io/coredns/coredns:v1.8.6",
                   req={"cpu": "100m", "memory": "70Mi"}, lim={"memory": "170Mi"},
                   ports=[("dns", 53), ("metrics", 9153)],
                   mounts=[("config-volume", "/etc/coredns")],
                   args=["-conf", "/etc/coredns/Corefile"])],
        dnsPolicy="Default", priorityClassName="system-cluster-critical", priority=2000000000,
        serviceAccountName="coredns", nodeSelector={"kubernetes.io/os": "linux"},
        tolerations=[{"key": "CriticalAddonsOnly", "operator": "Exists"},
                     {"effect": "NoSchedule", "key": "node-role.kubernetes.io/master"},
                     {"effect": "NoSchedule", "key": "node-role.kubernetes.io/control-plane"}],
        volumes=[{"configMap": {"defaultMode": 420, "items": [{"key": "Corefile",
                                                               "path": "Corefile"}],
                                "name": "coredns"}, "name": "config-volume"}])
    coredns = Deploy(cl, "kube-system", "coredns", {"matchLabels": {"k8s-app": "kube-dns"}},
                     {"k8s-app": "kube-dns"}, coredns_spec, cluster_created + timedelta(minutes=2),
                     dep_labels={"k8s-app": "kube-dns"},
                     strategy={"rollingUpdate": {"maxSurge": "25%", "maxUnavailable": 1},
                               "type": "RollingUpdate"})
    service(cl, "kube-system", "kube-dns", {"k8s-app": "kube-dns"},
            [("dns", 53, 53), ("dns-tcp", 53, 53), ("metrics", 9153, 9153)],
            labels={"k8s-app": "kube-dns", "kubernetes.io/cluster-service": "true",
                    "kubernetes.io/name": "CoreDNS"}, created=cluster_created)
    coredns.pod(cl.node_by_name["demo-w-a01"], created=datetime(2022, 8, 30, 7, 12,
                                                               tzinfo=UTC))
    coredns.pod(cl.node_by_name["demo-w-b01"], created=datetime(2022, 8, 30, 7, 12,
                                                               tzinfo=UTC))
    # ---- pending pods are created later; collect (factory, count) -------------------
    pending_at = T0 - timedelta(minutes=6)

    def pend(factory, k, *a, **kw):
        for i in range(k):
            factory(*a, created=pending_at + timedelta(seconds=17 * i + len(cl.pods) % 13),
                    **kw)

    pend(coredns.pod, 1)

    def place_counts(factory, stream, spec, counts, created_base, distinct=False):
        placed = []
        for zi, k in enumerate(counts):
            used: list[str] = []
            for _ in range(k):
                node = cl.pick(stream, zi, spec, exclude=used if distinct else ())
                used.append(node.name)
                placed.append(factory(node, created=created_base + timedelta(
                    minutes=g.r("created").randint(0, 2000))))
        return placed

    # ---- namespace shop ------------------------------------------------------------------
    shop_t = ns_created["shop"]
    shop_common = {"app.kubernetes.io/part-of": "shop"}
    base_env_tol: dict = {}

    fe_labels = {"app": "frontend", "tier": "web", "metrics": "enabled", **shop_common}
    fe_spec = template_spec(
        [container("frontend", "registry.example.com/shop/frontend:2.14.1",
                   req={"cpu": "250m", "memory": "256Mi"}, lim={"cpu": "1", "memory": "512Mi"},
                   ports=[("http", 8080)], mounts=[("config", "/etc/frontend")])],
        serviceAccountName="frontend",
        volumes=[{"configMap": {"defaultMode": 420, "name": "frontend-config"},
                  "name": "config"}], **base_env_tol)
    fe_old_spec = copy.deepcopy(fe_spec)
    fe_old_spec["containers"][0]["image"] = "registry.example.com/shop/frontend:2.13.4"
    frontend = Deploy(cl, "shop", "frontend", {"matchLabels": {"app": "frontend"}}, fe_labels,
                      fe_spec, shop_t + timedelta(hours=2), old_revisions=1, old_spec=fe_old_spec,
                      rs_created=datetime(2022, 9, 6, 7, 55, tzinfo=UTC))
    service(cl, "shop", "frontend", {"app": "frontend"}, [("http", 80, "http")],
            labels={"app": "frontend"}, created=shop_t + timedelta(hours=2))
    service(cl, "shop", "shop-metrics", {"app.kubernetes.io/part-of": "shop",
                                         "metrics": "enabled"},
            [("metrics", 9090, 9090)], labels={"app.kubernetes.io/part-of": "shop"},
            created=shop_t + timedelta(hours=3))
    place_counts(frontend.pod, "frontend", fe_spec, [9, 6, 3],
                 datetime(2022, 9, 6, 8, 0, tzinfo=UTC))
    # Rollout 2.13.4 -> 2.14.1 still in progress: three pods of the previous ReplicaSet run.
    place_counts(lambda node, created: frontend.pod(node, created=created, rs=frontend.old_rs[0]),
                 "frontend-old", fe_old_spec, [0, 1, 2],
                 datetime(2022, 8, 20, 8, 0, tzinfo=UTC))

    cart_labels = {"app": "cart", "tier": "backend", **shop_common}
    cart_spec = template_spec(
        [container("cart", "registry.example.com/shop/cart:1.9.0",
                   req={"cpu": "200m", "memory": "384Mi"}, lim={"cpu": "500m", "memory": "768Mi"},
                   ports=[("http", 8080)])], serviceAccountName="cart")
    cart = Deploy(cl, "shop", "cart", {"matchLabels": {"app": "cart"}}, cart_labels, cart_spec,
                  shop_t + timedelta(hours=2, minutes=5))
    service(cl, "shop", "cart", {"app": "cart"}, [("http", 8080, "http")],
            created=shop_t + timedelta(hours=2, minutes=5))
    place_counts(cart.pod, "cart", cart_spec, [3, 3, 3],
                 datetime(2022, 9, 1, 10, 0, tzinfo=UTC))

    cat_labels = {"app": "catalog", "tier": "backend", "track": "stable", "metrics": "enabled",
                  **shop_common}
    cat_spec = template_spec(
        [container("catalog", "registry.example.com/shop/catalog:4.2.0",
                   req={"cpu": "500m", "memory": "1Gi"}, lim={"cpu": "1500m", "memory": "2Gi"},
                   ports=[("http", 8080)])], serviceAccountName="catalog")
    catalog = Deploy(cl, "shop", "catalog",
                     {"matchLabels": {"app": "catalog", "track": "stable"}}, cat_labels, cat_spec,
                     shop_t + timedelta(hours=2, minutes=9))
    canary_labels = dict(cat_labels, track="canary")
    canary_spec = copy.deepcopy(cat_spec)
    canary_spec["containers"][0]["image"] = "registry.example.com/shop/catalog:4.3.0-rc.1"
    catalog_canary = Deploy(cl, "shop", "catalog-canary",
                            {"matchLabels": {"app": "catalog", "track": "canary"}}, canary_labels,
                            canary_spec, datetime(2022, 9, 12, 15, 0, tzinfo=UTC),
                            dep_labels={"app": "catalog", "track": "canary"})
    service(cl, "shop", "catalog", {"app": "catalog", "tier": "backend"},
            [("http", 8080, "http")], created=shop_t + timedelta(hours=2, minutes=9))
    place_counts(catalog.pod, "catalog", cat_spec, [2, 6, 4],
                 datetime(2022, 8, 29, 12, 0, tzinfo=UTC))
    place_counts(catalog_canary.pod, "catalog-canary", canary_spec, [2, 0, 0],
                 datetime(2022, 9, 12, 15, 1, tzinfo=UTC))

    # ReplicationController (v1), with a matching Service.
    ls_labels = {"app": "legacy-search", "version": "v1"}
    ls_spec = template_spec(
        [container("search", "registry.example.com/shop/legacy-search:0.31.2",
                   req={"cpu": "1", "memory": "2Gi"}, lim={"cpu": "1", "memory": "2Gi"},
                   ports=[("http", 9200)])])
    rc = cl.add({"apiVersion": "v1", "kind": "ReplicationController",
                 "metadata": cl.meta("legacy-search", "shop", labels=ls_labels,
                                     created=shop_t + timedelta(days=1)),
                 "spec": {"replicas": 0, "selector": dict(ls_labels),
                          "template": {"metadata": {"creationTimestamp": None,
                                                    "labels": dict(ls_labels)},
                                       "spec": copy.deepcopy(ls_spec)}},
                 "status": {}})
    service(cl, "shop", "legacy-search", {"app": "legacy-search"}, [("http", 9200, 9200)],
            created=shop_t + timedelta(days=1))

    def rc_pod(node=None, created=None):
        gen = "legacy-search-"
        return cl.make_pod(gen + g.suffix(), "shop", ls_labels, ls_spec, rc,
                           created or T0 - timedelta(days=20), node=node, generate_name=gen)

    place_counts(rc_pod, "legacy-search", ls_spec, [0, 1, 3],
                 datetime(2022, 7, 19, 6, 0, tzinfo=UTC))

    # Node demo-w-c10 is being drained: three pods that would match the pending pods'
    # selectors are terminating there (metadata.deletionTimestamp set).
    c10 = cl.node_by_name["demo-w-c10"]
    for dep in (frontend, cart, catalog):
        p = dep.pod(c10, created=datetime(2022, 9, 7, 13, 0, tzinfo=UTC))
        p["metadata"]["deletionTimestamp"] = ts(T0 - timedelta(seconds=95))
        p["metadata"]["deletionGracePeriodSeconds"] = 30
        for c in p["status"]["conditions"]:
            if c["type"] in ("Ready", "ContainersReady"):
                c["status"] = "False"
                c["reason"] = "ContainersNotReady"
                c["message"] = f"containers with unready status: [{dep.name}]"
                c["lastTransitionTime"] = ts(T0 - timedelta(seconds=93))
        for cs in p["status"]["containerStatuses"]:
            cs["ready"] = False

    # An evicted frontend pod (phase Failed) that is still listed.
    ev = frontend.pod(cl.node_by_name["demo-w-b03"],
                      created=datetime(2022, 9, 8, 4, 0, tzinfo=UTC), phase="Failed")
    ev["status"]["reason"] = "Evicted"
    ev["status"]["message"] = ("The node was low on resource: memory. Container frontend was "
                               "using 498672Ki, which exceeds its request of 256Mi. ")
    ev["status"].pop("conditions", None)
    ev["status"].pop("podIP", None)
    ev["status"].pop("podIPs", None)
    ev["status"].pop("containerStatuses", None)

    # ---- namespace payments ----------------------------------------------------------------
    pay_t = ns_created["payments"]
    pa_labels = {"app": "payments-api", "environment": "production", "track": "stable"}
    pa_spec = template_spec(
        [container("api", "registry.example.com/payments/api:7.4.2",
                   req={"cpu": "300m", "memory": "512Mi"}, lim={"cpu": "1", "memory": "1Gi"},
                   ports=[("http", 8443)]),
         container("log-shipper", "cr.fluentbit.io/fluent/fluent-bit:1.9.7",
                   req={"cpu": "50m", "memory": "64Mi"}, lim={"cpu": "100m", "memory": "128Mi"})],
        serviceAccountName="payments-api")
    pa_selector = {"matchExpressions": [
        {"key": "environment", "operator": "In", "values": ["production", "staging"]},
        {"key": "track", "operator": "NotIn", "values": ["canary"]}],
        "matchLabels": {"app": "payments-api"}}
    payments_api = Deploy(cl, "payments", "payments-api", pa_selector, pa_labels, pa_spec,
                          pay_t + timedelta(hours=1),
                          dep_labels={"app": "payments-api"})
    service(cl, "payments", "payments-api", {"app": "payments-api"}, [("https", 443, "http")],
            created=pay_t + timedelta(hours=1))
    service(cl, "payments", "psp-gateway", None, [], created=pay_t + timedelta(hours=1))
    psp = cl.objects[-1]
    psp["spec"] = {"externalName": "api.psp.example.com", "sessionAffinity": "None",
                   "type": "ExternalName"}
    place_counts(payments_api.pod, "payments-api", pa_spec, [5, 4, 3],
                 datetime(2022, 9, 5, 9, 0, tzinfo=UTC))

    fc_labels = {"app": "fraud-check"}
    fc_old = template_spec(
        [container("fraud-check", "registry.example.com/payments/fraud-check:3.0.8",
                   req={"cpu": "750m", "memory": "1536Mi"}, lim={"cpu": "2", "memory": "1536Mi"},
                   ports=[("grpc", 9000)])])
    fc_new = copy.deepcopy(fc_old)
    fc_new["containers"][0]["image"] = "registry.example.com/payments/fraud-check:3.1.0"
    fc_new["topologySpreadConstraints"] = [
        {"labelSelector": {"matchLabels": {"app": "fraud-check"}}, "maxSkew": 1,
         "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "ScheduleAnyway"},
        {"labelSelector": {"matchLabels": {"app": "fraud-check"}}, "maxSkew": 2,
         "topologyKey": "kubernetes.io/hostname", "whenUnsatisfiable": "DoNotSchedule"}]
    fraud = Deploy(cl, "payments", "fraud-check", {"matchLabels": fc_labels}, fc_labels, fc_new,
                   pay_t + timedelta(days=3), old_revisions=1, old_spec=fc_old, replicas=4,
                   rs_created=T0 - timedelta(minutes=6, seconds=30),
                   strategy={"rollingUpdate": {"maxSurge": "50%", "maxUnavailable": 0},
                             "type": "RollingUpdate"})
    service(cl, "payments", "fraud-check", {"app": "fraud-check"}, [("grpc", 9000, "grpc")],
            created=pay_t + timedelta(days=3))
    place_counts(lambda node, created: fraud.pod(node, created=created, rs=fraud.old_rs[0]),
                 "fraud-check", fc_old, [2, 2, 0],
                 datetime(2022, 8, 22, 9, 0, tzinfo=UTC))

    ledger_labels = {"app": "ledger"}
    ledger_spec = template_spec(
        [container("ledger", "registry.example.com/payments/ledger:2.2.1",
                   req={"cpu": "1", "memory": "4Gi"}, lim={"cpu": "2", "memory": "4Gi"},
                   ports=[("pg", 5432)], mounts=[("data", "/var/lib/ledger")])],
        initContainers=[container("migrate", "registry.example.com/payments/ledger:2.2.1",
                                  req={"cpu": "500m", "memory": "512Mi"},
                                  lim={"cpu": "500m", "memory": "512Mi"},
                                  args=["migrate", "--wait"])],
        terminationGracePeriodSeconds=120)
    ledger = Sts(cl, "payments", "ledger", {"matchLabels": ledger_labels}, ledger_labels,
                 ledger_spec, pay_t + timedelta(days=2), "ledger", vct_size="100Gi")
    service(cl, "payments", "ledger", {"app": "ledger"}, [("pg", 5432, 5432)], headless=True,
            created=pay_t + timedelta(days=2))
    for i, zi in enumerate([0, 1, 2]):
        ledger.pod(i, cl.pick("ledger", zi, ledger_spec))

    nt_labels = {"app": "notifier", "team": "payments"}
    nt_spec = template_spec(
        [container("notifier", "registry.example.com/payments/notifier:0.1.0",
                   req={"cpu": "100m", "memory": "128Mi"}, lim={"cpu": "200m", "memory": "256Mi"},
                   ports=[("http", 8080)])])
    notifier = Deploy(cl, "payments", "notifier", {"matchLabels": {"app": "notifier"}},
                      nt_labels, nt_spec, T0 - timedelta(minutes=7))
    service(cl, "payments", "notifier", {"app": "notifier"}, [("http", 80, "http")],
            created=T0 - timedelta(minutes=7))

    # ---- namespace data ---------------------------------------------------------------------
    data_t = ns_created["data"]
    kafka_sel = {"app.kubernetes.io/instance": "kafka", "app.kubernetes.io/name": "kafka"}
    kafka_labels = dict(kafka_sel, **{"app.kubernetes.io/component": "broker"})
    anti = {"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{
        "podAffinityTerm": {"labelSelector": {"matchLabels": dict(kafka_sel)},
                            "topologyKey": "kubernetes.io/hostname"}, "weight": 100}]}}
    kafka_spec = template_spec(
        [container("kafka", "docker.io/bitnami/kafka:3.2.1-debian-11-r4",
                   req={"cpu": "1500m", "memory": "6Gi"}, lim={"cpu": "3", "memory": "6Gi"},
                   ports=[("client", 9092), ("internal", 9093)],
                   mounts=[("data", "/bitnami/kafka")])],
        affinity=anti, serviceAccountName="kafka", securityContext={"fsGroup": 1001})
    kafka = Sts(cl, "data", "kafka", {"matchLabels": dict(kafka_sel)}, kafka_labels, kafka_spec,
                data_t + timedelta(hours=1), "kafka-headless", vct_size="200Gi",
                pod_management="Parallel")
    service(cl, "data", "kafka", dict(kafka_labels), [("tcp-client", 9092, "client")],
            labels=dict(kafka_sel), created=data_t + timedelta(hours=1))
    service(cl, "data", "kafka-headless", dict(kafka_labels),
            [("tcp-client", 9092, "client"), ("tcp-internal", 9093, "internal")], headless=True,
            labels=dict(kafka_sel), created=data_t + timedelta(hours=1))
    used: list[str] = []
    for i, zi in enumerate([0, 1, 2, 0, 1]):
        node = cl.pick("kafka", zi, kafka_spec, exclude=used)
        used.append(node.name)
        kafka.pod(i, node)

    zk_labels = {"app.kubernetes.io/instance": "kafka", "app.kubernetes.io/name": "zookeeper",
                 "app.kubernetes.io/component": "zookeeper"}
    zk_spec = template_spec(
        [container("zookeeper", "docker.io/bitnami/zookeeper:3.8.0-debian-11-r30",
                   req={"cpu": "250m", "memory": "1Gi"}, lim={"cpu": "1", "memory": "1Gi"},
                   ports=[("client", 2181), ("follower", 2888), ("election", 3888)],
                   mounts=[("data", "/bitnami/zookeeper")])],
        serviceAccountName="default", securityContext={"fsGroup": 1001})
    zk = Sts(cl, "data", "zookeeper",
             {"matchLabels": {"app.kubernetes.io/instance": "kafka",
                              "app.kubernetes.io/name": "zookeeper"}},
             zk_labels, zk_spec, data_t + timedelta(minutes=50), "zookeeper-headless",
             vct_size="8Gi")
    service(cl, "data", "zookeeper-headless", {"app.kubernetes.io/instance": "kafka",
                                               "app.kubernetes.io/name": "zookeeper"},
            [("tcp-client", 2181, "client"), ("tcp-follower", 2888, "follower"),
             ("tcp-election", 3888, "election")], headless=True,
            labels={"app.kubernetes.io/name": "zookeeper"}, created=data_t + timedelta(minutes=50))
    for i, zi in enumerate([0, 1, 2]):
        zk.pod(i, cl.pick("zookeeper", zi, zk_spec))

    etl_labels = {"app": "etl-worker", "queue": "ingest"}
    etl_spec = template_spec(
        [container("worker", "registry.example.com/data/etl-worker:5.0.3",
                   req={"cpu": "2", "memory": "3Gi"}, lim={"cpu": "4", "memory": "3Gi"})],
        terminationGracePeriodSeconds=300)
    etl = Deploy(cl, "data", "etl-worker", {"matchLabels": {"app": "etl-worker"}}, etl_labels,
                 etl_spec, data_t + timedelta(days=10))
    service(cl, "data", "etl-worker-metrics", {"app": "etl-worker"}, [("metrics", 9102, 9102)],
            labels={"app": "etl-worker"}, created=data_t + timedelta(days=10))
    place_counts(etl.pod, "etl-worker", etl_spec, [7, 3, 0],
                 datetime(2022, 9, 13, 1, 0, tzinfo=UTC))

    # ---- namespace batch (no Services at all) -------------------------------------------
    batch_t = ns_created["batch"]
    cl_labels = {"app": "cleaner"}
    cl_spec = template_spec(
        [container("cleaner", "registry.example.com/batch/cleaner:1.0.7",
                   req={"cpu": "100m", "memory": "64Mi"}, lim={"cpu": "200m", "memory": "128Mi"})])
    cleaner = Deploy(cl, "batch", "cleaner", {"matchLabels": cl_labels}, cl_labels, cl_spec,
                     batch_t + timedelta(hours=1))
    place_counts(cleaner.pod, "cleaner", cl_spec, [1, 1, 1],
                 datetime(2022, 8, 15, 0, 0, tzinfo=UTC))

    job_spec = template_spec(
        [container("report", "registry.example.com/batch/nightly-report:2.0.1",
                   req={"cpu": "500m", "memory": "512Mi"}, lim={"cpu": "1", "memory": "1Gi"})],
        restartPolicy="Never")
    cron = cl.add({
        "apiVersion": "batch/v1", "kind": "CronJob",
        "metadata": cl.meta("nightly-report", "batch", created=batch_t + timedelta(hours=2)),
        "spec": {"concurrencyPolicy": "Forbid", "failedJobsHistoryLimit": 1,
                 "jobTemplate": {"metadata": {"creationTimestamp": None},
                                 "spec": {"backoffLimit": 0, "template": {
                                     "metadata": {"creationTimestamp": None},
                                     "spec": copy.deepcopy(job_spec)}}},
                 "schedule": "0 2 * * *", "successfulJobsHistoryLimit": 3, "suspend": False},
        "status": {"lastScheduleTime": "2022-09-14T02:00:00Z",
                   "lastSuccessfulTime": "2022-09-13T02:21:40Z"}})
    epoch = datetime(1970, 1, 1, tzinfo=UTC)
    for day, phase in ((11, "Succeeded"), (12, "Succeeded"), (13, "Succeeded"), (14, "Failed")):
        sched = datetime(2022, 9, day, 2, 0, tzinfo=UTC)
        jname = f"nightly-report-{int((sched - epoch).total_seconds() // 60)}"
        job = cl.add({
            "apiVersion": "batch/v1", "kind": "Job",
            "metadata": cl.meta(jname, "batch", created=sched, owner=cron,
                                labels={"controller-uid": "PLACEHOLDER", "job-name": jname}),
            "spec": {"backoffLimit": 0, "completionMode": "NonIndexed", "completions": 1,
                     "parallelism": 1, "suspend": False,
                     "selector": {"matchLabels": {"controller-uid": "PLACEHOLDER"}},
                     "template": {"metadata": {"creationTimestamp": None,
                                               "labels": {"controller-uid": "PLACEHOLDER",
                                                          "job-name": jname}},
                                  "spec": copy.deepcopy(job_spec)}},
            "status": {"startTime": ts(sched)}})
        juid = job["metadata"]["uid"]
        job["metadata"]["labels"]["controller-uid"] = juid
        job["spec"]["selector"]["matchLabels"]["controller-uid"] = juid
        job["spec"]["template"]["metadata"]["labels"]["controller-uid"] = juid
        if phase == "Succeeded":
            job["status"].update({"completionTime": ts(sched + timedelta(minutes=21, seconds=40)),
                                  "succeeded": 1, "conditions": [{
                                      "lastProbeTime": ts(sched + timedelta(minutes=21)),
                                      "lastTransitionTime": ts(sched + timedelta(minutes=21)),
                                      "status": "True", "type": "Complete"}]})
        else:
            job["status"].update({"failed": 1, "conditions": [{
                "lastProbeTime": ts(sched + timedelta(minutes=9)),
                "lastTransitionTime": ts(sched + timedelta(minutes=9)),
                "message": "Job has reached the specified backoff limit",
                "reason": "BackoffLimitExceeded", "status": "True", "type": "Failed"}]})
        zi = day % 3
        node = cl.app_nodes(zi)[day % len(cl.app_nodes(zi))]
        gen = jname + "-"
        cl.make_pod(gen + g.suffix(), "batch", {"controller-uid": juid, "job-name": jname},
                    job_spec, job, sched, node=node, generate_name=gen, phase=phase)

    # ---- pending pods (new replicas, replacements, new workloads) ------------------------
    pend(frontend.pod, 8)
    pend(cart.pod, 3)
    pend(catalog.pod, 3)
    pend(catalog_canary.pod, 1)
    pend(rc_pod, 2)
    pend(payments_api.pod, 5)
    pend(fraud.pod, 2)        # new revision: carries topologySpreadConstraints
    pend(notifier.pod, 3)     # brand-new Deployment, no running replica anywhere
    pend(etl.pod, 6)
    pend(cleaner.pod, 1)      # namespace without Services
    ledger.pod(3, created=pending_at + timedelta(seconds=40))
    kafka.pod(5, created=pending_at + timedelta(seconds=50))
    kafka.pod(6, created=pending_at + timedelta(seconds=70))

    # Bare pods without owner: one matching Service shop/frontend only, one matching nothing.
    bare_spec = template_spec(
        [container("frontend", "registry.example.com/shop/frontend:2.15.0-debug",
                   req={"cpu": "250m", "memory": "256Mi"}, lim={"cpu": "1", "memory": "512Mi"},
                   ports=[("http", 8080)])])
    cl.make_pod("frontend-debug", "shop", {"app": "frontend", "tier": "web"}, bare_spec, None,
                pending_at + timedelta(seconds=90))
    dbg_spec = template_spec(
        [container("debug-shell", "docker.io/library/busybox:1.35",
                   args=["sleep", "3600"])], restartPolicy="Always")
    dbg_spec["containers"][0]["stdin"] = True
    dbg_spec["containers"][0]["tty"] = True
    cl.make_pod("debug-shell", "shop", {"run": "debug-shell"}, dbg_spec, None,
                pending_at + timedelta(seconds=95))

    finalize_statuses(cl)
    return cl


def finalize_statuses(cl: Cluster) -> None:
    """Fill replicas/status of the controllers from the pods that were generated."""
    by_owner: dict[str, list[dict]] = {}
    for p in cl.pods:
        for o in p["metadata"].get("ownerReferences", []):
            by_owner.setdefault(o["uid"], []).append(p)
    deployments = {}
    for obj in cl.objects:
        kind = obj["kind"]
        if kind not in ("ReplicaSet", "StatefulSet", "ReplicationController"):
            continue
        pods = by_owner.get(obj["metadata"]["uid"], [])
        active = [p for p in pods if p["status"]["phase"] in ("Running", "Pending")
                  and "deletionTimestamp" not in p["metadata"]]
        ready = [p for p in active if p["status"]["phase"] == "Running"]
        # every pod must be selected by its controller
        sel = obj["spec"]["selector"]
        for p in pods:
            ok = (all(p["metadata"]["labels"].get(k) == v for k, v in sel.items())
                  if kind == "ReplicationController"
                  else labelselector_matches(sel, p["metadata"]["labels"]))
            assert ok, (obj["metadata"]["name"], p["metadata"]["name"])
        desired = len(active)
        obj["spec"]["replicas"] = desired
        st = {"observedGeneration": 2 if kind != "ReplicationController" else 1,
              "replicas": desired}
        if ready:
            st["availableReplicas"] = len(ready)
            st["readyReplicas"] = len(ready)
        if kind == "ReplicaSet":
            st["fullyLabeledReplicas"] = desired
        if kind == "ReplicationController":
            st["fullyLabeledReplicas"] = desired
        if kind == "StatefulSet":
            st.update({"collisionCount": 0, "currentReplicas": desired,
                       "currentRevision": obj_rev(pods), "updateRevision": obj_rev(pods),
                       "updatedReplicas": desired})
        obj["status"] = st
        if kind == "ReplicaSet":
            own = obj["metadata"]["ownerReferences"][0]
            deployments.setdefault(own["uid"], []).append(obj)
    for obj in cl.objects:
        if obj["kind"] != "Deployment":
            continue
        rss = deployments.get(obj["metadata"]["uid"], [])
        current = rss[-1]
        total = sum(r["spec"]["replicas"] for r in rss)
        ready = sum(r["status"].get("readyReplicas", 0) for r in rss)
        desired = obj["spec"]["replicas"] = (
            obj["spec"]["replicas"] or current["spec"]["replicas"])
        ru = obj["spec"]["strategy"]["rollingUpdate"]
        surge = ru["maxSurge"]
        surge = -(-desired * int(surge[:-1]) // 100) if isinstance(surge, str) else surge
        for r in rss:
            ann = r["metadata"]["annotations"]
            ann["deployment.kubernetes.io/desired-replicas"] = str(desired)
            ann["deployment.kubernetes.io/max-replicas"] = str(desired + surge)
        st = {"observedGeneration": 2, "replicas": total,
              "updatedReplicas": current["spec"]["replicas"]}
        if total > ready:
            st["unavailableReplicas"] = total - ready
        if ready:
            st["availableReplicas"] = ready
            st["readyReplicas"] = ready
        t = obj["metadata"]["creationTimestamp"]
        if ready:
            avail = {"lastTransitionTime": ts(datetime.fromisoformat(t[:-1]).replace(
                tzinfo=UTC) + timedelta(minutes=1)),
                "lastUpdateTime": ts(datetime.fromisoformat(t[:-1]).replace(
                    tzinfo=UTC) + timedelta(minutes=1)),
                "message": "Deployment has minimum availability.",
                "reason": "MinimumReplicasAvailable", "status": "True", "type": "Available"}
        else:
            avail = {"lastTransitionTime": t, "lastUpdateTime": t,
                     "message": "Deployment does not have minimum availability.",
                     "reason": "MinimumReplicasUnavailable", "status": "False",
                     "type": "Available"}
        st["conditions"] = [
            avail,
            {"lastTransitionTime": t, "lastUpdateTime": ts(T0 - timedelta(minutes=5)),
             "message": f'ReplicaSet "{current["metadata"]["name"]}" is progressing.',
             "reason": "ReplicaSetUpdated", "status": "True", "type": "Progressing"},
        ]
        obj["status"] = st


def obj_rev(pods):
    for p in pods:
        h = p["metadata"].get("labels", {}).get("controller-revision-hash")
        if h:
            return h
    return ""


# --------------------------------------------------------------------------------------
# output
# --------------------------------------------------------------------------------------

def dump_list(items: list[dict]) -> str:
    """A v1 List as ``kubectl get -o json`` prints it (4-space indent, keys sorted)."""
    doc = {"apiVersion": "v1", "items": items, "kind": "List",
           "metadata": {"resourceVersion": ""}}
    return json.dumps(doc, indent=4, sort_keys=True, ensure_ascii=True) + "\n"


KIND_ORDER = ["Namespace", "ConfigMap", "Endpoints", "Service", "ReplicationController",
              "DaemonSet", "Deployment", "ReplicaSet", "StatefulSet", "CronJob", "Job"]


def sort_key_ns(obj):
    md = obj["metadata"]
    return (md.get("namespace", ""), md["name"])


def write(cl: Cluster, out: Path, seed: int) -> dict[str, str]:
    out.mkdir(parents=True, exist_ok=True)
    nodes = sorted(cl.nodes, key=lambda n: n.name)
    node_objs = [node_object(cl.g, n) for n in nodes]
    workloads = sorted(cl.objects, key=lambda o: (KIND_ORDER.index(o["kind"]), sort_key_ns(o)))
    pods = sorted(cl.pods, key=sort_key_ns)
    files = {
        "nodes.json": dump_list(node_objs),
        "workloads.json": dump_list(workloads),
        "pods.json": dump_list(pods),
    }
    for name, text in files.items():  # (JSON has no comments: SOURCE.md names the script)
        (out / name).write_text(text, encoding="utf-8")
    return files


def verify(out: Path) -> dict[str, int]:
    """Re-read the written files and check the invariants the tests rely on."""
    items = {}
    for name in ("nodes.json", "workloads.json", "pods.json"):
        doc = json.loads((out / name).read_text(encoding="utf-8"))
        assert doc["kind"] == "List" and doc["apiVersion"] == "v1", name
        assert doc["metadata"] == {"resourceVersion": ""}, name
        items[name] = doc["items"]
    seen = set()
    for objs in items.values():
        for o in objs:
            key = (o["kind"], o["metadata"].get("namespace", ""), o["metadata"]["name"])
            assert key not in seen, f"duplicate {key}"
            seen.add(key)
            uid = o["metadata"]["uid"]
            assert uid not in seen, f"duplicate uid {uid}"
            seen.add(uid)
    node_names = {n["metadata"]["name"] for n in items["nodes.json"]}
    pods = items["pods.json"]
    for p in pods:
        nn = p["spec"].get("nodeName")
        assert nn is None or nn in node_names, p["metadata"]["name"]
    counts: dict[str, int] = {}
    for objs in items.values():
        for o in objs:
            counts[o["kind"]] = counts.get(o["kind"], 0) + 1
    counts["Pod/bound"] = sum(1 for p in pods if p["spec"].get("nodeName"))
    counts["Pod/pending"] = sum(1 for p in pods if not p["spec"].get("nodeName"))
    return counts


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED)
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = ap.parse_args(argv)
    cl = build(args.seed)
    write(cl, args.out, args.seed)
    counts = verify(args.out)
    print(" ".join(f"{k}={v}" for k, v in sorted(counts.items())))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
