"""Import the Alibaba openb GPU trace (cluster-trace-gpu-v2023) as Kubernetes manifests.

``import_openb(NODES.csv, PODS.csv, DIR)`` reads a node list and a pod list of the trace
and writes ``DIR/nodes.json`` and ``DIR/pods.json``, each a ``v1 List`` exactly as
``kubectl get -o json`` prints one, that :func:`kscore_fast.api.load_cluster` (and
``kscore score DIR``) reads: every trace node a Node, every pod still alive in the trace a
pending Pod, in creation order. The mapping, and what vanilla Kubernetes cannot express
(GPU sharing), is documented in ``docs/openb.md``; in short:

* node ``sn,cpu_milli,memory_mib,gpu,model`` → Node ``status.capacity`` = ``allocatable``
  = ``cpu: <cpu_milli>m``, ``memory: <memory_mib>Mi``, ``pods: <max_pods>``,
  ``nvidia.com/gpu: <gpu>`` (only when > 0); labels ``kubernetes.io/hostname`` and, when
  ``model`` is set, ``alibabacloud.com/gpu-card-model: <model>``;
* pod → one container requesting ``cpu``/``memory``, and ``num_gpu`` whole
  ``nvidia.com/gpu`` (limits = requests, as extended resources require): a GPU-sharing pod
  (``gpu_milli`` < 1000) takes a whole GPU; ``gpu_spec`` (models joined by ``|``) becomes
  a required node affinity ``In`` on the model label; the trace's other columns are kept
  as ``openb.alibaba.com/<column>`` annotations; ``Failed``/``Succeeded`` pods are
  dropped; the rest are sorted by ``creation_time`` (stable: ties keep file order).

Both pod-list layouts of the trace are read: the 11-column one and the 5-column
``multigpu*`` one (no phase, no times: every pod kept, in file order).

Bad input (a missing, repeated or unknown column, a row with the wrong number of
fields, a value that is not a whole number >= 0, a bad name or model, a repeated name,
inconsistent GPU fields or times) raises :class:`~kscore_fast.errors.InputError` naming
the file, the line and the column, before anything is written.

Output is atomic: a new directory is filled under a hidden temporary name and renamed
into place; in an existing directory each file is written to a hidden temporary file and
renamed over its target once all are complete. Only a missing path, an empty directory or
an earlier import (a directory holding nothing but ``nodes.json``, ``pods.json`` and the
``.openb-import.json`` record this module writes) is written to, unless ``force``: then
the three files are written into any directory, and its other files are left alone.

Command line (a thin wrapper: one flag per keyword argument; ``InputError`` → exit 2)::

    kscore import openb NODES.csv PODS.csv -o DIR
        [--force]                  write into a non-empty directory that is not an import
        [--namespace NS]           namespace of the pods (default: default)
        [--gpu-model-label KEY]    node label for the GPU model
                                   (default: alibabacloud.com/gpu-card-model)
        [--max-pods N]             pods allocatable on every node (default: 110)

and print ``report.summary()``.
"""

from __future__ import annotations

import contextlib
import csv
import hashlib
import io
import json
import os
import re
import shutil
import stat
import tempfile
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .._signals import deferred
from ..errors import InputError
from ..model.validation import (
    is_dns1123_label,
    is_dns1123_subdomain,
    is_qualified_name,
    is_valid_label_value,
)
from .output import _umask

PathLike = str | os.PathLike[str]

GPU_RESOURCE = "nvidia.com/gpu"
#: the FGD simulator's (hkust-adsl/kubernetes-scheduler-simulator) key for the same thing
GPU_MODEL_LABEL = "alibabacloud.com/gpu-card-model"
HOSTNAME_LABEL = "kubernetes.io/hostname"
ANNOTATION_PREFIX = "openb.alibaba.com/"
CONTAINER_NAME = "main"
#: the pause image of Kubernetes 1.23 (the trace has no images; nodes list none either)
CONTAINER_IMAGE = "registry.k8s.io/pause:3.6"
DEFAULT_NAMESPACE = "default"
DEFAULT_MAX_PODS = 110

NODES_FILE = "nodes.json"
PODS_FILE = "pods.json"
#: the record of an import (hidden: directory walks of the manifest reader skip it)
RECORD_FILE = ".openb-import.json"
GENERATOR = "kscore_fast.io.openb"

NODE_COLUMNS = ("sn", "cpu_milli", "memory_mib", "gpu", "model")
POD_COLUMNS = ("name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli")
#: all present (the 11-column lists) or all absent (the 5-column multigpu lists)
POD_TRACE_COLUMNS = (
    "gpu_spec",
    "qos",
    "pod_phase",
    "creation_time",
    "deletion_time",
    "scheduled_time",
)
POD_PHASES = ("Pending", "Running", "Succeeded", "Failed", "Unknown")
DROPPED_PHASES = ("Failed", "Succeeded")

_INT64_MAX = 2**63 - 1
#: largest value per column: quantities must fit int64 once in bytes / milli-units
_LIMITS = {"memory_mib": _INT64_MAX >> 20, "gpu_milli": 1000}
#: the trace's largest file is 0.7 MB
_MAX_INPUT = 1 << 30
_WHOLE = re.compile(r"[0-9]+")
_NEGATIVE = re.compile(r"-[0-9]+")


@dataclass(frozen=True)
class OpenbNode:
    """One row of a node list."""

    name: str
    cpu_milli: int
    memory_mib: int
    gpu: int
    model: str
    line: int = 0


@dataclass(frozen=True)
class OpenbPod:
    """One row of a pod list (``phase`` "" and times None in the 5-column lists)."""

    name: str
    cpu_milli: int
    memory_mib: int
    num_gpu: int
    gpu_milli: int
    gpu_spec: tuple[str, ...] = ()
    qos: str = ""
    phase: str = ""
    creation_time: int | None = None
    deletion_time: int | None = None
    scheduled_time: int | None = None
    line: int = 0


@dataclass(frozen=True)
class ImportReport:
    """What :func:`import_openb` wrote."""

    out_dir: str
    nodes: int
    pods: int
    #: pods left out, by trace phase (Failed, Succeeded)
    dropped: Mapping[str, int] = field(default_factory=dict)
    #: pods sharing a GPU in the trace (gpu_milli < 1000) that request a whole one here
    gpu_shared: int = 0
    #: pods with a GPU-model node affinity (from gpu_spec)
    gpu_constrained: int = 0
    #: an earlier import in out_dir was replaced
    replaced: bool = False

    def summary(self) -> str:
        """One line for the command line."""
        dropped = sum(self.dropped.values())
        return (
            f"{self.out_dir}: {self.nodes} nodes, {self.pods} pending pods "
            f"({dropped} Failed/Succeeded pods dropped, {self.gpu_shared} GPU-sharing pods "
            f"given a whole GPU, {self.gpu_constrained} with a GPU-model affinity)"
        )


def import_openb(
    nodes_csv: PathLike,
    pods_csv: PathLike,
    out_dir: PathLike,
    *,
    force: bool = False,
    namespace: str = DEFAULT_NAMESPACE,
    gpu_model_label: str = GPU_MODEL_LABEL,
    max_pods: int = DEFAULT_MAX_PODS,
    events: PathLike | None = None,
    qos_priorities: bool = False,
) -> ImportReport:
    """Convert an openb node list and pod list into ``out_dir/{nodes,pods}.json``.

    With ``events`` (a file path), the pods go there instead, as the timed events of a
    replay (docs/queue.md): each pod arrives at its ``creation_time`` and, when it has a
    ``deletion_time``, is deleted then (at one second, departures first); ``pods.json``
    then holds no pod. ``qos_priorities``: each pod's ``spec.priority`` from its QoS
    class by :data:`QOS_PRIORITIES` (a made-up mapping: the trace has no priorities).

    See the module docstring for the mapping, the output rules and the command line.
    Raises :class:`~kscore_fast.errors.InputError` on bad input, options or output
    location; then nothing is written.
    """
    _check_options(namespace, gpu_model_label, max_pods)
    out = os.fspath(out_dir)
    state = _output_state(out, force)
    if events is not None:
        _check_events_path(os.fspath(events))
    inputs = {"nodes": _read_bytes(nodes_csv), "pods": _read_bytes(pods_csv)}
    nodes = parse_nodes(inputs["nodes"], os.fspath(nodes_csv))
    all_pods = parse_pods(inputs["pods"], os.fspath(pods_csv))
    pods = pending_pods(all_pods)
    options = {"namespace": namespace, "gpu_model_label": gpu_model_label, "max_pods": max_pods}
    node_list, pod_list = to_manifests(nodes, pods, **options)
    if qos_priorities:
        for item, pod in zip(pod_list["items"], pods, strict=True):
            item["spec"]["priority"] = QOS_PRIORITIES.get(pod.qos, 0)
    timed = b""
    if events is not None:
        timed = _events_jsonl(pods, pod_list["items"])
        pod_list = kube_list([])
    files = {NODES_FILE: _dumps(node_list), PODS_FILE: _dumps(pod_list)}
    dropped = dict(Counter(p.phase for p in all_pods if p.phase in DROPPED_PHASES))
    files[RECORD_FILE] = _dumps(
        {
            "generator": GENERATOR,
            "inputs": {
                "nodes": _digest(os.path.basename(os.fspath(nodes_csv)), inputs["nodes"]),
                "pods": _digest(os.path.basename(os.fspath(pods_csv)), inputs["pods"]),
            },
            "options": options,
            "outputs": {name: _digest(name, data) for name, data in files.items()},
            "dropped": dropped,
        }
    )
    _write_output(out, files, force)
    if events is not None:
        _write_events(os.fspath(events), timed)
    return ImportReport(
        out_dir=out,
        nodes=len(nodes),
        pods=len(pods),
        dropped=dropped,
        gpu_shared=sum(1 for p in pods if 0 < p.gpu_milli < 1000),
        gpu_constrained=sum(1 for p in pods if p.gpu_spec),
        replaced=state == "import",
    )


# -- reading --------------------------------------------------------------------------------


def read_nodes(path: PathLike) -> list[OpenbNode]:
    """Every row of a node list, in file order."""
    return parse_nodes(_read_bytes(path), os.fspath(path))


def read_pods(path: PathLike) -> list[OpenbPod]:
    """Every row of a pod list, in file order (dropped phases included)."""
    return parse_pods(_read_bytes(path), os.fspath(path))


def parse_nodes(data: bytes, path: str) -> list[OpenbNode]:
    """The rows of a node list's bytes (``path`` names it in errors)."""
    nodes: list[OpenbNode] = []
    seen: dict[str, int] = {}
    for row in _rows(data, path, NODE_COLUMNS):
        name = _name(row, "sn", seen, "node")
        if problems := is_valid_label_value(name):  # it is also the hostname label's value
            raise row.error("sn", f"{name!r} as the {HOSTNAME_LABEL} label: {problems[0]}")
        cpu, memory, gpu = row.whole("cpu_milli"), row.whole("memory_mib"), row.whole("gpu")
        model = _model(row, "model", row.text("model"))
        nodes.append(OpenbNode(name, cpu, memory, gpu, model, row.line))
    return nodes


def parse_pods(data: bytes, path: str) -> list[OpenbPod]:
    """The rows of a pod list's bytes (``path`` names it in errors)."""
    seen: dict[str, int] = {}
    return [_pod(row, seen) for row in _rows(data, path, POD_COLUMNS, POD_TRACE_COLUMNS)]


def pending_pods(pods: Iterable[OpenbPod]) -> list[OpenbPod]:
    """The pods to schedule: not Failed or Succeeded, stably sorted by creation time."""
    kept = [p for p in pods if p.phase not in DROPPED_PHASES]
    return sorted(kept, key=lambda p: p.creation_time or 0)


def _pod(row: _Row, seen: dict[str, int]) -> OpenbPod:
    name = _name(row, "name", seen, "pod")
    cpu, memory = row.whole("cpu_milli"), row.whole("memory_mib")
    num_gpu, gpu_milli = row.whole("num_gpu"), row.whole("gpu_milli")
    if num_gpu == 0 and gpu_milli != 0:
        raise row.error("gpu_milli", f"{gpu_milli} for a pod without GPUs (num_gpu 0)")
    if num_gpu > 0 and gpu_milli == 0:
        raise row.error("gpu_milli", f"0 for a pod with {num_gpu} GPU(s); expected 1 to 1000")
    trace = _trace_fields(row) if row.has("pod_phase") else {}
    return OpenbPod(name, cpu, memory, num_gpu, gpu_milli, line=row.line, **trace)


def _trace_fields(row: _Row) -> dict[str, Any]:
    """The columns of the 11-column pod lists."""
    gpu_spec = tuple(dict.fromkeys(_gpu_spec(row)))  # "V100M16|V100M32|V100M32" occurs
    qos, phase = row.text("qos"), row.text("pod_phase")
    if phase not in POD_PHASES:
        raise row.error("pod_phase", f"{phase!r}; expected one of {', '.join(POD_PHASES)}")
    created = row.whole("creation_time")
    times: dict[str, int | None] = {"creation_time": created}
    for column in ("deletion_time", "scheduled_time"):
        t = times[column] = row.optional_whole(column)
        if t is not None and t < created:
            raise row.error(column, f"{t} is before the pod's creation_time {created}")
    return {"gpu_spec": gpu_spec, "qos": qos, "phase": phase, **times}


def _gpu_spec(row: _Row) -> list[str]:
    text = row.text("gpu_spec")
    if not text:
        return []
    models = text.split("|")
    for m in models:
        if not m:
            raise row.error("gpu_spec", f"{text!r}: an empty model name between '|'")
        _model(row, "gpu_spec", m)
    return models


def _model(row: _Row, column: str, model: str) -> str:
    if problems := is_valid_label_value(model):
        raise row.error(column, f"GPU model {model!r} is not a label value: {problems[0]}")
    return model


def _name(row: _Row, column: str, seen: dict[str, int], kind: str) -> str:
    name = row.text(column)
    if not name:
        raise row.error(column, f"empty; every {kind} needs a name")
    if problems := is_dns1123_subdomain(name):
        raise row.error(column, f"{kind} name {name!r}: {problems[0]}")
    if name in seen:
        raise row.error(column, f"duplicate {kind} name {name!r} (first on line {seen[name]})")
    seen[name] = row.line
    return name


@dataclass
class _Row:
    """One data line of a CSV file: its fields by column name, and located errors."""

    path: str
    line: int
    columns: Mapping[str, int]
    fields: Sequence[str]

    def error(self, column: str, message: str) -> InputError:
        where = f"column {self.columns[column] + 1} ({column})"
        return InputError(message, file=self.path, obj=f"line {self.line}", field=where)

    def has(self, column: str) -> bool:
        return column in self.columns

    def text(self, column: str) -> str:
        return self.fields[self.columns[column]]

    def optional_whole(self, column: str) -> int | None:
        """The column as a whole number >= 0, None when empty."""
        return self.whole(column) if self.text(column) else None

    def whole(self, column: str) -> int:
        """The column as a whole number >= 0."""
        s = self.text(column)
        if not s:
            raise self.error(column, "empty; expected a whole number")
        if not _WHOLE.fullmatch(s):
            if _NEGATIVE.fullmatch(s):
                raise self.error(column, f"{s} is negative; expected a whole number >= 0")
            raise self.error(column, f"{s!r} is not a whole number")
        value, limit = int(s), _LIMITS.get(column, _INT64_MAX)
        if value > limit:
            raise self.error(column, f"{s} is too large (at most {limit})")
        return value


def _rows(
    data: bytes, path: str, required: Sequence[str], optional: Sequence[str] = ()
) -> Iterator[_Row]:
    """The data lines of a CSV file after checking its header: ``required`` columns, and
    ``optional`` ones all present or all absent; nothing else."""
    lines = _csv_lines(_decode(data, path), path)
    first = next(lines, None)
    if first is None:
        expected = ",".join([*required, *optional])
        raise InputError(f"empty file; expected a header line {expected}", file=path)
    columns = _header(first[1], path, required, optional)
    for line, fields in lines:
        if fields == []:
            continue  # a blank line
        if len(fields) != len(columns):
            raise InputError(
                f"{len(fields)} fields where the header has {len(columns)}",
                file=path,
                obj=f"line {line}",
            )
        yield _Row(path, line, columns, fields)


def _header(
    names: list[str], path: str, required: Sequence[str], optional: Sequence[str]
) -> dict[str, int]:
    def bad(message: str) -> InputError:
        expected = ",".join(required) + (f"[,{','.join(optional)}]" if optional else "")
        return InputError(f"{message}; expected the columns {expected}", file=path, obj="line 1")

    repeated = [n for n, k in Counter(names).items() if k > 1]
    if repeated:
        raise bad(f"column {repeated[0]!r} appears {names.count(repeated[0])} times")
    unknown = [n for n in names if n not in required and n not in optional]
    if unknown:
        raise bad(f"unknown column {unknown[0]!r}")
    missing = [n for n in required if n not in names]
    some_optional = [n for n in optional if n in names]
    if some_optional:
        missing += [n for n in optional if n not in names]
    if missing:
        raise bad(f"missing column{'s' if len(missing) > 1 else ''} {', '.join(missing)}")
    return {n: i for i, n in enumerate(names)}


def _csv_lines(text: str, path: str) -> Iterator[tuple[int, list[str]]]:
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    while True:
        try:
            fields = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            raise InputError(
                f"not valid CSV: {exc}", file=path, obj=f"line {reader.line_num}"
            ) from None
        yield reader.line_num, fields


def _decode(data: bytes, path: str) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise InputError(
            f"not UTF-8 text (byte {exc.start} is {data[exc.start]:#04x})",
            file=path,
            obj=f"line {line}",
        ) from None


def _read_bytes(path: PathLike) -> bytes:
    """The whole file (a pipe too: ``<(head -41 nodes.csv)``), at most ``_MAX_INPUT``."""
    name = os.fspath(path)
    try:
        with open(name, "rb") as fh:
            data = fh.read(_MAX_INPUT + 1)
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", file=name) from None
    if len(data) > _MAX_INPUT:
        raise InputError(f"larger than {_MAX_INPUT >> 20} MiB; not an openb list", file=name)
    return data


# -- manifests -------------------------------------------------------------------------------


def to_manifests(
    nodes: Iterable[OpenbNode],
    pods: Iterable[OpenbPod],
    *,
    namespace: str = DEFAULT_NAMESPACE,
    gpu_model_label: str = GPU_MODEL_LABEL,
    max_pods: int = DEFAULT_MAX_PODS,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The Node List and the Pod List (``pods`` as given: see :func:`pending_pods`), as
    ``load_cluster(objects=...)`` takes them."""
    node_items = [
        node_manifest(n, gpu_model_label=gpu_model_label, max_pods=max_pods) for n in nodes
    ]
    pod_items = [
        pod_manifest(p, namespace=namespace, gpu_model_label=gpu_model_label) for p in pods
    ]
    return kube_list(node_items), kube_list(pod_items)


def node_manifest(
    node: OpenbNode,
    *,
    gpu_model_label: str = GPU_MODEL_LABEL,
    max_pods: int = DEFAULT_MAX_PODS,
) -> dict[str, Any]:
    """The v1 Node of a node-list row."""
    labels = {HOSTNAME_LABEL: node.name}
    if node.model:
        labels[gpu_model_label] = node.model
    resources = {"cpu": f"{node.cpu_milli}m", "memory": f"{node.memory_mib}Mi"}
    if node.gpu:
        resources[GPU_RESOURCE] = str(node.gpu)
    resources["pods"] = str(max_pods)
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"labels": labels, "name": node.name},
        "spec": {},
        "status": {"allocatable": resources, "capacity": dict(resources)},
    }


def pod_manifest(
    pod: OpenbPod,
    *,
    namespace: str = DEFAULT_NAMESPACE,
    gpu_model_label: str = GPU_MODEL_LABEL,
) -> dict[str, Any]:
    """The pending v1 Pod of a pod-list row."""
    requests = {"cpu": f"{pod.cpu_milli}m", "memory": f"{pod.memory_mib}Mi"}
    resources: dict[str, Any] = {"requests": requests}
    if pod.num_gpu:
        requests[GPU_RESOURCE] = str(pod.num_gpu)
        resources["limits"] = {GPU_RESOURCE: str(pod.num_gpu)}
    container = {"image": CONTAINER_IMAGE, "name": CONTAINER_NAME, "resources": resources}
    spec: dict[str, Any] = {"containers": [container], "schedulerName": "default-scheduler"}
    if pod.gpu_spec:
        term = {"matchExpressions": [_in(gpu_model_label, pod.gpu_spec)]}
        required = {"nodeSelectorTerms": [term]}
        spec["affinity"] = {
            "nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": required}
        }
    metadata: dict[str, Any] = {"name": pod.name, "namespace": namespace}
    if annotations := pod_annotations(pod):
        metadata["annotations"] = annotations
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": metadata,
        "spec": spec,
        "status": {"phase": "Pending"},
    }


#: ``--qos-priorities``: a made-up ``spec.priority`` per QoS class of the trace
QOS_PRIORITIES = {"Guaranteed": 3000, "LS": 2000, "Burstable": 1000, "BE": 0}


def _events_jsonl(pods: Sequence[OpenbPod], manifests: Sequence[dict[str, Any]]) -> bytes:
    """Arrivals at ``creation_time`` and deletions at ``deletion_time`` (seconds), in time
    order; at one second the departures first (room freed), then the arrivals, then the
    departures of pods that arrived that second; each kind in creation order."""
    timed: list[tuple[int, int, int, dict[str, Any]]] = []
    for k, (pod, manifest) in enumerate(zip(pods, manifests, strict=True)):
        created = pod.creation_time or 0
        timed.append((created, 1, k, {"time": created, "op": "addPod", "pod": manifest}))
        if pod.deletion_time is not None:
            key = f"{manifest['metadata']['namespace']}/{pod.name}"
            rank = 2 if pod.deletion_time == created else 0
            timed.append((pod.deletion_time, rank, k,
                          {"time": pod.deletion_time, "op": "delete", "pod": key}))  # fmt: skip
    timed.sort(key=lambda t: t[:3])
    return "".join(json.dumps(t[3], separators=(",", ":")) + "\n" for t in timed).encode()


def _check_events_path(path: str) -> None:
    if path == "":
        raise InputError("--events '': empty path; give a file")
    if os.path.isdir(path):
        raise InputError(f"--events {path}: is a directory; give a file")
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(parent):
        raise InputError(f"--events {path}: the parent directory {parent} does not exist")


def _write_events(path: str, data: bytes) -> None:
    """The events file, whole or not at all (a temporary renamed onto it)."""
    parent, name = os.path.split(os.path.abspath(path))
    try:
        fd, tmp = tempfile.mkstemp(".tmp", f".{name[:100]}.", parent)
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
            os.chmod(tmp, 0o666 & ~_umask())
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
    except OSError as exc:
        raise InputError(f"--events {path}: cannot write: {exc.strerror or exc}") from None


def pod_annotations(pod: OpenbPod) -> dict[str, str]:
    """``openb.alibaba.com/<column>`` for the trace columns the Pod does not express
    (``_`` written ``-``); empty values left out."""
    values = {
        "creation-time": pod.creation_time,
        "deletion-time": pod.deletion_time,
        "scheduled-time": pod.scheduled_time,
        "qos": pod.qos or None,
        "pod-phase": pod.phase or None,
        "gpu-milli": pod.gpu_milli if pod.num_gpu else None,
    }
    return {ANNOTATION_PREFIX + k: str(v) for k, v in values.items() if v is not None}


def kube_list(items: list[dict[str, Any]]) -> dict[str, Any]:
    """The ``v1 List`` that ``kubectl get -o json`` prints around ``items``."""
    return {"apiVersion": "v1", "items": items, "kind": "List", "metadata": {"resourceVersion": ""}}


def _in(key: str, values: Iterable[str]) -> dict[str, Any]:
    return {"key": key, "operator": "In", "values": list(values)}


def _dumps(obj: Any) -> bytes:
    """As kubectl prints JSON: keys sorted, 4-space indent, a final newline."""
    return (json.dumps(obj, indent=4, sort_keys=True) + "\n").encode("utf-8")


def _digest(name: str, data: bytes) -> dict[str, Any]:
    return {"file": name, "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}


def _check_options(namespace: str, gpu_model_label: str, max_pods: int) -> None:
    if problems := is_dns1123_label(namespace):
        raise InputError(f"--namespace {namespace!r}: {problems[0]}")
    if problems := is_qualified_name(gpu_model_label):
        raise InputError(f"--gpu-model-label {gpu_model_label!r}: not a label key: {problems[0]}")
    if gpu_model_label == HOSTNAME_LABEL:
        raise InputError(f"--gpu-model-label {gpu_model_label!r}: that is the hostname label")
    if isinstance(max_pods, bool) or not isinstance(max_pods, int) or max_pods < 0:
        raise InputError(f"--max-pods {max_pods!r}: expected a whole number >= 0")


# -- writing ---------------------------------------------------------------------------------


def _output_state(out: str, force: bool) -> str:
    """``missing``, ``empty``, ``import`` or ``forced``; raises where nothing may go."""
    if out == "":
        raise InputError("-o '': empty path; give a directory")
    state = _dir_state(out)
    if state == "missing":
        parent = os.path.dirname(os.path.abspath(out))
        if not os.path.isdir(parent):
            raise InputError(f"-o {out}: the parent directory {parent} does not exist")
        return state
    if state in ("empty", "import"):
        return state
    if force and state.startswith("is a directory"):
        return "forced"
    hint = " (--force writes nodes.json and pods.json into it anyway)" if not force else ""
    raise InputError(
        f"-o {out}: {state}; the import writes a new or empty directory, or replaces an "
        f"earlier import{hint}"
    )


def _dir_state(path: str) -> str:
    """``missing``, ``empty``, ``import`` (nothing but an earlier import's files), or why
    the path is none of these."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        if os.path.islink(path):
            return "is a broken symbolic link"
        return "missing"
    except OSError as exc:
        return f"cannot be looked up ({exc.strerror or exc})"
    if not stat.S_ISDIR(st.st_mode):
        return "exists and is not a directory"
    try:
        names = sorted(os.listdir(path))
    except OSError as exc:
        return f"cannot be listed ({exc.strerror or exc})"
    if not names:
        return "empty"
    ours = {NODES_FILE, PODS_FILE, RECORD_FILE}
    if RECORD_FILE in names and ours.issuperset(names) and _is_record(path):
        return "import"
    shown = ", ".join(names[:3]) + (", ..." if len(names) > 3 else "")
    return f"is a directory holding other files ({len(names)} entries: {shown})"


def _is_record(directory: str) -> bool:
    try:
        with open(os.path.join(directory, RECORD_FILE), "rb") as fh:
            record = json.loads(fh.read(1 << 20))
    except (OSError, ValueError):
        return False
    return isinstance(record, dict) and record.get("generator") == GENERATOR


def _write_output(out: str, files: Mapping[str, bytes], force: bool) -> None:
    """Write ``files`` into ``out`` atomically (see the module docstring)."""
    state = _output_state(out, force)  # again, just before: it may have changed meanwhile
    try:
        if state == "missing":
            _write_new_dir(out, files)
        else:
            _write_into(out, files)
    except OSError as exc:
        raise InputError(f"-o {out}: cannot write: {exc.strerror or exc}") from None


def _write_new_dir(out: str, files: Mapping[str, bytes]) -> None:
    parent, name = os.path.split(os.path.abspath(out))
    tmp = ""
    try:
        with deferred():  # a stop signal lands once tmp is known
            tmp = tempfile.mkdtemp(".tmp", f".{name[:100]}.", parent)
        for filename, data in files.items():
            _write_file(os.path.join(tmp, filename), data)
        os.chmod(tmp, 0o777 & ~_umask())
        with deferred():
            os.rename(tmp, out)  # onto a missing path or an empty directory only
            tmp = ""
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)  # our own temporary directory


def _write_into(out: str, files: Mapping[str, bytes]) -> None:
    temps: dict[str, str] = {}
    try:
        for filename, data in files.items():
            with deferred():  # a stop signal lands once the temporary is known
                fd, temps[filename] = tempfile.mkstemp(".tmp", f".{filename}.", out)
                os.close(fd)
            _write_file(temps[filename], data)
        with deferred():
            for filename in files:  # the record last: it vouches for the other two
                os.replace(temps.pop(filename), os.path.join(out, filename))
    finally:
        for tmp in temps.values():
            with contextlib.suppress(OSError):
                os.unlink(tmp)


def _write_file(path: str, data: bytes) -> None:
    with open(path, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
    os.chmod(path, 0o666 & ~_umask())
