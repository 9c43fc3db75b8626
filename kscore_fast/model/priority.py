"""Pod priority as the API server sets it: the Priority admission plugin
(``plugin/pkg/admission/priority/admission.go``, v1.23, ``admitPod`` on create) and the
PriorityClasses it reads.

A pod created without ``spec.priority`` gets the value and the preemption policy of the
PriorityClass its ``priorityClassName`` names, or of the global default class (the one of
lowest value when several are, ``getDefaultPriorityClass``) when it names none, or 0 and
``PreemptLowerPriority`` when there is no default. A class that does not exist, or a
priority or preemption policy given in the pod that differs from the computed one, is
refused with the API server's message. The two system classes exist in every cluster (the
API server creates them at bootstrap, ``SystemPriorityClasses``).

A pod that carries ``spec.priority`` was admitted already (``kubectl get -o json`` prints
every pod so): its value is what the scheduler reads, and it is kept, even where the
class it names now says otherwise (reported, :class:`Admitted`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import msgspec

from .objects import PodRecord, PriorityClassRecord

HIGHEST_USER_DEFINABLE_PRIORITY = 1_000_000_000
SYSTEM_CRITICAL_PRIORITY = 2 * HIGHEST_USER_DEFINABLE_PRIORITY
SYSTEM_PREFIX = "system-"
PREEMPT_LOWER_PRIORITY, PREEMPT_NEVER = "PreemptLowerPriority", "Never"
#: the values ``ValidatePreemptionPolicy`` accepts, in its order
PREEMPTION_POLICIES = (PREEMPT_LOWER_PRIORITY, PREEMPT_NEVER)
#: ``SystemPriorityClasses()`` (pkg/apis/scheduling/v1/helpers.go)
SYSTEM_CLASSES = (
    PriorityClassRecord("system-node-critical", SYSTEM_CRITICAL_PRIORITY + 1000),
    PriorityClassRecord("system-cluster-critical", SYSTEM_CRITICAL_PRIORITY),
)


def class_problem(pc: PriorityClassRecord) -> tuple[str, str] | None:
    """(field, message) where the API server's validation (``ValidatePriorityClass``)
    refuses ``pc``, else None."""
    if pc.name.startswith(SYSTEM_PREFIX):
        known = next((s for s in SYSTEM_CLASSES if s.name == pc.name), None)
        if known is None:
            error = f"{pc.name} is not a known system priority class"
        elif known.value != pc.value:
            error = f"value of {pc.name} PriorityClass must be {known.value}"
        elif known.global_default != pc.global_default:
            error = f"globalDefault of {pc.name} PriorityClass must be {known.global_default}"
        else:
            return None
        return "metadata.name", (f"priority class names with '{SYSTEM_PREFIX}' prefix are "
                                 f"reserved for system use only. error: {error}")  # fmt: skip
    if pc.value > HIGHEST_USER_DEFINABLE_PRIORITY:
        return "value", ("maximum allowed value of a user defined priority is "
                         f"{HIGHEST_USER_DEFINABLE_PRIORITY}")  # fmt: skip
    return None


class Admission:
    """The Priority admission plugin over a cluster's PriorityClasses."""

    def __init__(self, classes: Iterable[PriorityClassRecord] = ()) -> None:
        classes = list(classes)
        #: the classes given (the input's)
        self.classes_given = classes
        #: every class by name: the system classes, and the input's (which may repeat them)
        self.classes = {c.name: c for c in (*SYSTEM_CLASSES, *classes)}
        default = None
        for c in classes:  # (the lowest value; the first of equal ones)
            if c.global_default and (default is None or default.value > c.value):
                default = c
        #: the global default class (None: there is none)
        self.default = default

    def create(self, pod: PodRecord) -> PodRecord | str:
        """``admitPod`` on create: the pod with its priority, preemption policy and class
        name resolved, or the API server's refusal."""
        name = pod.priority_class_name
        if not name:
            pc = self.default
            name = "" if pc is None else pc.name
            value, policy = (
                (0, PREEMPT_LOWER_PRIORITY) if pc is None else (pc.value, pc.preemption_policy)
            )
        else:
            pc = self.classes.get(name)
            if pc is None:
                return _forbidden(pod, f"no PriorityClass with name {name} was found")
            value, policy = pc.value, pc.preemption_policy
        if pod.priority is not None and pod.priority != value:
            given = pod.priority
            return _forbidden(
                pod,
                f"the integer value of priority ({given}) must not be "
                "provided in pod spec; priority admission controller "
                f"computed {value} from the given PriorityClass name",
            )
        if pod.preemption_policy is not None and pod.preemption_policy != policy:
            return _forbidden(pod, f"the string value of PreemptionPolicy "
                                   f"({pod.preemption_policy}) must not be provided in pod "
                                   f"spec; priority admission controller computed {policy} "
                                   "from the given PriorityClass name")  # fmt: skip
        return msgspec.structs.replace(pod, priority=value, preemption_policy=policy,
                                       priority_class_name=name)  # fmt: skip

    def differs(self, pod: PodRecord) -> int | None:
        """For a pod admitted already (``spec.priority`` set): the value of the class it
        names when that differs from its priority (the class was made again since), else
        None (a class absent from the input is not a difference: dumps of pods alone
        hold no class)."""
        pc = self.classes.get(pod.priority_class_name) if pod.priority_class_name else None
        return None if pc is None or pc.value == pod.priority else pc.value


def _forbidden(pod: PodRecord, reason: str) -> str:
    """``admission.NewForbidden``'s message for a pod."""
    return f'pods "{pod.name}" is forbidden: {reason}'


@dataclass
class Admitted:
    """A cluster's pods after admission."""

    #: every pod admitted (those created here with their priority resolved), input order
    pods: list[PodRecord] = field(default_factory=list)
    #: pods the API server refuses to create (key → its message), in input order
    refused: dict[str, str] = field(default_factory=dict)
    #: pods whose ``spec.priority`` differs from their class's value: (key, theirs, class)
    differing: list[tuple[str, int, int]] = field(default_factory=list)


def notices(refused: dict[str, str], differing: list[tuple[str, int, int]]) -> list[str]:
    """What admission found, in warning parts (none when all is in order)."""
    out = []
    if differing:
        shown = ", ".join(f"{k} ({p}; class: {v})" for k, p, v in differing[:3])
        more = ", …" if len(differing) > 3 else ""
        out.append(f"{len(differing)} pods' spec.priority differs from the value of the "
                   f"PriorityClass they name (kept, as the scheduler reads spec.priority): "
                   f"{shown}{more}")  # fmt: skip
    if refused:
        first = next(iter(refused.values()))
        more = f" (and {len(refused) - 1} more)" if len(refused) > 1 else ""
        out.append(f"{len(refused)} pods refused by the Priority admission plugin, not "
                   f"scheduled: {first}{more}")  # fmt: skip
    return out


def admit(pods: Iterable[PodRecord], classes: Iterable[PriorityClassRecord]) -> Admitted:
    """Admit ``pods`` against ``classes``: each pod without ``spec.priority`` created
    (resolved, or refused), the others kept as they are."""
    admission, out = Admission(classes), Admitted()
    for pod in pods:
        if pod.priority is not None:
            other = admission.differs(pod)
            if other is not None:
                out.differing.append((pod.key, pod.priority, other))
            out.pods.append(pod)
            continue
        made = admission.create(pod)
        if isinstance(made, str):
            out.refused[pod.key] = made
            if pod.node_name:  # (a bound pod the API server never created: left out)
                continue
            made = pod
        out.pods.append(made)
    return out
