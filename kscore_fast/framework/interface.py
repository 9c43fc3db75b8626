"""What a plugin is (pkg/scheduler/framework/interface.go), in kscore_fast's compiled shape.

A plugin is a Python class deriving from :class:`Plugin`, registered by name in a
:class:`~kscore_fast.framework.registry.Registry`, plus its compiled *kernels* (numba
functions, see :class:`FilterKernels`, :class:`ScoreKernels`, :class:`BindKernels`; plain
Python functions also work, slower: :mod:`.python_kernels`).

Python, once per (snapshot, batch): ``prepare`` runs what kube-scheduler's PreFilter and
PreScore do for every pending pod at once and returns the plugin's *state*, its
:data:`CycleState`: a tuple of NumPy arrays and NumPy scalars, always of the same dtypes
and dimensions (one compiled signature). Node aggregates (requested resources, used host
ports, spread counts) are arrays of that state, updated in place by ``assume``/``remove``
when pods are bound and deleted (the scheduler cache's ``AssumePod``/``RemovePod``).

Compiled, per pod and node (``pod`` is the pod's index in the batch, ``node`` a node
index in the node tree's order): the kernels. The framework compiles them into the
plugin's entry points (:mod:`.entries`) and runs them from its loops, the same for the
batch runtime (in parallel over pods) and the simulator (pod after pod).

Every capability below is a declared member with a safe default: a plugin that declares
nothing shares no work between pods, and is refused in sequential mode unless it says
how binding a pod changes what it reads.

A *chunk* is a few pods of the batch (``pods``, int64 indices) and, for chunk pod ``i``,
the nodes ``nodes[ptr[i]:ptr[i+1]]`` it is scored on.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any, ClassVar, Protocol

import numpy as np

from ..goarith import MAX_NODE_SCORE, MIN_NODE_SCORE
from ..model.snapshot import ClusterSnapshot, PodBatch
from .cluster_events import ClusterEvent

__all__ = [
    "MAX_NODE_SCORE",
    "MIN_NODE_SCORE",
    "BindKernels",
    "Chunk",
    "CycleState",
    "FilterKernels",
    "Plugin",
    "ScoreKernels",
]

#: a plugin's state for one (snapshot, batch): a tuple of NumPy arrays and NumPy scalars
CycleState = tuple[Any, ...]


#: a chunk whose node lists are all written
_NO_WINDOWS = np.zeros(0, dtype=np.int64)


class Chunk:
    """The pods of one chunk and the nodes each of them is scored on."""

    __slots__ = ("nodes", "pods", "ptr", "windows")

    def __init__(self, pods: np.ndarray, ptr: np.ndarray, nodes: np.ndarray,
                 windows: np.ndarray = _NO_WINDOWS) -> None:  # fmt: skip
        self.pods = pods
        self.ptr = ptr
        self.nodes = nodes
        #: int64[C] or empty: the first node of each pod whose list the search left
        #: unwritten (-1: written), see ``search.search_chunk``
        self.windows = windows

    def __len__(self) -> int:
        return len(self.pods)


class FilterKernels(Protocol):
    """A FilterPlugin's compiled half."""

    def filter_node(self, state: CycleState, pod: int, node: int) -> int:
        """``Filter``: 0 when ``pod`` fits ``node``, else the plugin's failure code (> 0),
        which :meth:`Plugin.reasons` turns into Go's reasons. Allocates nothing."""
        ...


class ScoreKernels(Protocol):
    """A ScorePlugin's compiled half (``normalize_pod`` when it has ScoreExtensions)."""

    def score_pod(self, state: CycleState, pod: int, nodes: np.ndarray, out: np.ndarray) -> None:
        """``Score`` of ``pod`` on each of ``nodes`` (int32) into ``out`` (int64)."""
        ...

    def normalize_pod(
        self, state: CycleState, pod: int, nodes: np.ndarray, scores: np.ndarray
    ) -> None:
        """``NormalizeScore`` of ``pod``'s raw scores on ``nodes``, in place."""
        ...

    def score_normalize_pod(self, state: CycleState, pod: int, nodes: np.ndarray,
                            raw: np.ndarray, scores: np.ndarray) -> bool:  # fmt: skip
        """Optional: ``score_pod`` into ``raw`` and ``normalize_pod`` of those into
        ``scores`` (not aliasing ``raw``) in one call, exactly as the two would give them,
        for the pods and lists where the plugin can do both in fewer passes over the
        nodes: True when it did; False (nothing need be written) when the caller is to
        call the two (the batch runtime calls it first: ``abi.SCORE_NORMALIZE``)."""
        ...


class BindKernels(Protocol):
    """How binding and deleting a pod change a plugin's node aggregates (both or none)."""

    def assume(self, state: CycleState, pod: int, node: int) -> bool:
        """``pod`` added to ``node``'s aggregates. True when the change may reach beyond
        ``node`` (counters shared by a topology domain: any node's verdicts and scores
        may change); False or None when only ``node``'s may."""
        ...

    def remove(self, state: CycleState, pod: int, node: int) -> bool:
        """``assume`` undone; returns what ``assume`` would."""
        ...


class Plugin:
    """A plugin's Python half: its name, extension points, kernels and capabilities.

    Subclasses set the class attributes and implement :meth:`prepare` (and, for a filter
    plugin, :meth:`reasons`); ``__init__`` takes the plugin's ``pluginConfig`` args, as
    the camelCase mapping kube-scheduler decodes (None: defaults).
    """

    #: the name profiles use, e.g. "NodeResourcesFit"
    name: ClassVar[str] = ""
    #: extension points: Filter, Score, and NormalizeScore (ScoreExtensions)
    filters: ClassVar[bool] = False
    scores: ClassVar[bool] = False
    normalizes: ClassVar[bool] = False
    #: the upstream extension points it implements, as configurations name them
    #: ("preFilter", "filter", "preScore", "score", "reserve", ...); empty: those its
    #: ``filters``/``scores`` imply (:meth:`implemented_points`)
    extension_points: ClassVar[frozenset[str]] = frozenset()
    #: the compiled functions: a module or any object with ``filter_node``, ``score_pod``,
    #: ``normalize_pod``, ``assume``/``remove`` as the extension points need, and
    #: optionally ``score_pod_serial`` (used in sequential mode instead of ``score_pod``) and
    #: ``score_normalize_pod`` (both of a pod at once, see :class:`ScoreKernels`)
    kernels: ClassVar[Any] = None

    # -- capabilities: what lets the framework share work; each default is safe --------
    #: Filter and Score read only the pod's spec (resources, ports, tolerations, node
    #: affinity, images), not its name, namespace, labels or owners
    spec_only: ClassVar[bool] = False
    #: a raw score depends on the pod and the node only, not on the pod's node list
    row_independent: ClassVar[bool] = False
    #: NormalizeScore turns equal raw scores into equal scores whatever the list
    constant_normalize: ClassVar[bool] = False
    #: the names of the kernels that allocate arrays (their entry points are compiled
    #: with numba's reference counting)
    kernels_allocate: ClassVar[tuple[str, ...]] = ()
    #: binding or deleting a pod changes nothing this plugin reads (no ``assume`` needed)
    bind_independent: ClassVar[bool] = False
    #: ``assume`` also does what the plugin's Reserve does (VolumeBinding assumes the
    #: pod's volumes): only a scheduling cycle that places the pod runs it; pods added
    #: otherwise (the input's bound pods, nominated pods in filters, pods bound elsewhere,
    #: victims restored after a dry run) skip it, as Go's ``AddPod`` does not reserve
    assume_reserves: ClassVar[bool] = False
    #: ``prepare`` reads the snapshot's storage objects (claims, volumes, CSINodes): a
    #: run whose bindings complete (claims bound, volumes provisioned) prepares the
    #: plugin again for the storage that follows (:mod:`.simulation`)
    reads_storage: ClassVar[bool] = False
    #: every failure of ``filter_node`` is ``UnschedulableAndUnresolvable`` (see
    #: :meth:`unresolvable`, which a plugin with both kinds overrides)
    all_unresolvable: ClassVar[bool] = False
    #: ``EventsToRegister``: the cluster events that may make a pod this plugin rejected
    #: schedulable (:mod:`.cluster_events`); None: every event, as for a Go plugin without
    #: ``EnqueueExtensions``. The scheduling queue retries a pod on these events only.
    events_to_register: ClassVar[tuple[ClusterEvent, ...] | None] = None

    def __init__(self, args: Mapping[str, Any] | None = None) -> None:
        self.args = args

    @classmethod
    def implemented_points(cls) -> frozenset[str]:
        """The extension points a profile may enable the plugin at."""
        if cls.extension_points:
            return cls.extension_points
        points = {"preFilter", "filter"} if cls.filters else set()
        return frozenset(points | ({"preScore", "score"} if cls.scores else set()))

    def prepare(self, snapshot: ClusterSnapshot, batch: PodBatch) -> CycleState:
        """The plugin's state for the pending ``batch`` on ``snapshot``."""
        raise NotImplementedError(f"plugin {self.name!r} does not implement prepare")

    def own_state(self, state: CycleState) -> CycleState:
        """``state`` (what ``prepare`` gave) with its own copies of whatever ``assume``
        and ``remove`` change, the rest shared: a sequential run, and each branch of a
        ``Simulator``, update their own in place, while ``prepare`` may hand out one state
        to every run of a batch (the batch runtime changes nothing). Called for plugins
        with ``assume``. Default: a deep copy."""
        return copy_state(state)

    def empty_state(self) -> CycleState | None:
        """A state of the types ``prepare`` gives, without a cluster (lets ``kscore warmup``
        compile the plugin's entry points ahead); None: not available."""
        return None

    def reasons(self, state: CycleState, code: int) -> list[str]:
        """Go's ``Status.Reasons()`` for failure ``code`` of ``filter_node``: a function of
        ``code`` and what the state keeps for the whole run (names, tables), not of what
        ``assume`` changes (a run remembers the reasons of each code)."""
        raise NotImplementedError(f"filter plugin {self.name!r} does not implement reasons")

    def unresolvable(self, state: CycleState, code: int) -> bool:
        """Failure ``code`` of ``filter_node`` is ``UnschedulableAndUnresolvable`` (removing
        pods cannot help: preemption leaves such nodes out); by default every failure is
        (``all_unresolvable``) or none is, a plain ``Unschedulable``."""
        return self.all_unresolvable

    def passes_all(self, state: CycleState) -> bool:
        """``filter_node`` passes every pod of the batch on every node, whatever is bound
        during the run (no pod of the batch has what the plugin checks): the run leaves
        the plugin out of its filters. Default: False."""
        return False

    def filter_ignores_pods(self, state: CycleState) -> np.ndarray | bool:
        """bool[B], or one bool for every pod of the batch: ``filter_node``'s verdict for
        the pod on any node stays the same whatever pods are bound to the node, deleted
        from it or nominated to it (it reads nothing ``assume``/``remove`` change for
        it), so preemption's dry runs decide it once per node. Default:
        ``bind_independent``."""
        return self.bind_independent

    def pre_filter_failures(self, state: CycleState) -> np.ndarray | None:
        """bool[B]: the pods whose PreFilter this plugin fails, for a plugin whose
        ``filter_node`` gives a PreFilter's status on every node (run as the profile's
        first filter). Go returns at a PreFilter failure before it tries the pod's
        nominated node (``findNodesThatFitPod``), so the search skips those pods'
        nominations. Default: None (a plain filter)."""
        return None

    def filter_key(self, state: CycleState) -> np.ndarray | None:
        """int64[B]: pods with equal keys get equal codes from ``filter_node`` on every
        node (pending pods of one shape are filtered once); None: every pod its own."""
        return None

    def score_groups(self, state: CycleState) -> np.ndarray | None:
        """int64[B]: pods with equal ids ≥ 0 get equal raw scores on every node (-1: the
        pod's depend on its node list); None: no such groups."""
        return None

    def copy_groups(self, state: CycleState) -> np.ndarray | None:
        """int64[B]: pods with equal ids ≥ 0 get equal raw and normalized scores on equal
        node lists, whatever else differs; None: no such groups."""
        return None

    def constant_scores(self, state: CycleState) -> np.ndarray | bool | None:
        """bool[B] (or one bool for every pod): the pod's raw score is one value on every
        node, in every state of a run; None: unknown."""
        return None

    def pre_score_errors(self, snapshot: ClusterSnapshot, batch: PodBatch) -> dict[int, str]:
        """PreScore failures: batch index → the error's message."""
        return {}

    def counts_bound_pending(self, snapshot: ClusterSnapshot) -> bool:
        """Whether ``prepare`` already counts the pending pods that a simulator bound
        (a snapshot rebuilt from the simulator's cache may carry them, as
        ``ClusterSnapshot.used_ports`` does); False: they are assumed after ``prepare``."""
        return False

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r})"


def copy_state(x: Any) -> Any:
    """A deep copy of a plugin state (nested tuples of arrays and scalars; a plugin in
    plain Python may hold any objects)."""
    if isinstance(x, tuple):
        return tuple(copy_state(v) for v in x)
    if isinstance(x, np.ndarray):
        return x.copy()
    return x if isinstance(x, int | float | np.generic) else copy.deepcopy(x)
