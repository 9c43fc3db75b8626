"""The plugins' states of a lone pod, kept on the snapshot by the pod's content.

A batch of one pod pays each plugin's ``prepare`` (kube-scheduler's PreFilter and
PreScore of that pod), which for most plugins reads a few fields of the pod: its
tolerations, its requests, its node affinity, its labels and namespace. A plugin that
declares those fields (``Plugin.lone_fields``) promises that ``prepare`` of a batch of one
pod is a function of the snapshot, the plugin's args and those fields alone (the pod's
position in the batch is always 0). Pods scored alone one after the other on one snapshot
(``ClusterSnapshot`` never changes once built) then share the state of each plugin whose
fields they share: a ReplicaSet's pods share every state, pods of one namespace and
labels share InterPodAffinity's whatever their requests.

Kept per plugin (its identity: its args are its own) in ``snapshot.kept``, under the
MessagePack encoding of its fields (equal bytes: equal fields; two encodings of one value,
a map's keys in another order, only miss), and for the plugins that read storage objects
(``reads_storage``) the identity of the snapshot's storage: a snapshot whose claims and
volumes changed shares its predecessor's cache (``dataclasses.replace(..., cache=dict(...))``)
but not these states. Each entry holds its plugin and storage, so neither identity can be
another object's while the entry lives. The states are shared: the batch runtime never
writes a state, and the sequential runs (which do, through ``own_state`` copies) prepare
their own.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from operator import attrgetter
from typing import Any

import msgspec

from ..model.snapshot import ClusterSnapshot, PodBatch

#: bytes the states kept per plugin (and the setups kept per profile) may take on a
#: snapshot, counting ``OWN_ARRAYS`` per-node int64 arrays of its own per state (the
#: default profile's lone pod on openb holds 1-11 arrays of its own, 13-135 KB): at least
#: ``KEPT_MIN`` states kept, at most ``KEPT_MAX`` (the last used)
KEPT_BYTES, OWN_ARRAYS, KEPT_MIN, KEPT_MAX = 1 << 25, 16, 16, 256


def kept_limit(n_nodes: int) -> int:
    """How many lone pods' states a plugin keeps on a snapshot of ``n_nodes`` nodes (1,523:
    172; 15,000: 17)."""
    return max(KEPT_MIN, min(KEPT_MAX, KEPT_BYTES // (OWN_ARRAYS * 8 * max(n_nodes, 1))))


_encode = msgspec.msgpack.Encoder().encode


class LoneKeys:
    """The profile's plugins' ``lone_fields``, each distinct set read once per pod."""

    def __init__(self, plugins: Sequence[Any]) -> None:
        getters: dict[tuple[str, ...], int] = {}
        #: per plugin: the index of its field getter, -1 when it declares none
        self.which: list[int] = []
        for p in plugins:
            fields = p.lone_fields
            if fields is None:
                self.which.append(-1)
            else:
                self.which.append(getters.setdefault(tuple(fields), len(getters)))
        self.getters: list[Callable[[Any], Any]] = [attrgetter(*f) for f in getters]
        #: every field some plugin reads, at once (a whole setup's key)
        self.union = attrgetter(*sorted({f for fields in getters for f in fields} or {"name"}))
        #: every plugin declares its fields: a lone pod's whole setup can be kept
        self.complete = -1 not in self.which
        #: some plugin reads the storage objects
        self.reads_storage = any(p.reads_storage for p in plugins)

    def encode(self, pod: Any) -> list[bytes]:
        """The encodings of ``pod``'s fields, per distinct set."""
        return [_encode(get(pod)) for get in self.getters]

    def keys(self, encoded: list[bytes]) -> list[bytes | None]:
        """Each plugin's key (None: the plugin is prepared for every batch)."""
        return [None if w < 0 else encoded[w] for w in self.which]


def lone_states(plugins: Sequence[Any], keys: list[bytes | None], snapshot: ClusterSnapshot,
                batch: PodBatch) -> tuple[list[Any], dict[int, dict[int, str]]]:  # fmt: skip
    """The states of ``plugins`` for ``batch`` (one pod) on ``snapshot``, and the PreScore
    errors of each plugin (by its identity) whose state was kept: those found kept, the
    others prepared (and kept when the plugin has a key)."""
    states: list[Any] = []
    errors: dict[int, dict[int, str]] = {}
    storage = snapshot.storage
    for plugin, key in zip(plugins, keys, strict=True):
        if key is None:
            states.append(plugin.prepare(snapshot, batch))
            continue
        reads = plugin.reads_storage
        family = ("lone state", id(plugin))
        kept = snapshot.kept(family, (id(storage) if reads else 0, key),
                             lambda p=plugin: _entry(p, snapshot, batch),
                             kept_limit(snapshot.n_nodes))  # fmt: skip
        if kept[0] is not plugin or (reads and kept[1] is not storage):  # (never: see above)
            kept = _entry(plugin, snapshot, batch)
        states.append(kept[2])
        errors[id(plugin)] = kept[3]
    return states, errors


def _entry(plugin: Any, snapshot: ClusterSnapshot, batch: PodBatch) -> tuple[Any, ...]:
    state = plugin.prepare(snapshot, batch)
    return (plugin, snapshot.storage, state, plugin.pre_score_errors(snapshot, batch))


@dataclass(frozen=True)
class LoneSetup:
    """What a batch run of a lone pod makes before its search: the states, the plugin
    table on them and the filter plugins chosen for them (``_Run.choose_filters``), kept
    whole per profile and snapshot by all the pod's encoded fields (the profile's plugins
    all declaring theirs): a pod equal in every field a plugin reads finds it all made."""

    #: the profile's plugin rows (kept alive: their identity is in the family's name)
    owner: Any
    storage: Any
    states: list[Any]
    errors: dict[int, dict[int, str]]
    plugin_table: Any
    #: ``filter_slots``, ``filter_positions``, ``fids``, ``pre_filter_slots``
    filters: tuple[Any, ...]


def kept_setup(owner: Any, keys: LoneKeys, snapshot: ClusterSnapshot, pod: Any,
               build: Callable[[], LoneSetup]) -> LoneSetup:  # fmt: skip
    """The setup kept for ``pod``'s fields (all the plugins read, encoded at once) on
    ``snapshot``, else ``build()``'s (kept when ``keys`` is complete)."""
    if not keys.complete:
        return build()
    storage = snapshot.storage
    key = (id(storage) if keys.reads_storage else 0, _encode(keys.union(pod)))
    found = snapshot.kept(("lone setup", id(owner)), key, build, kept_limit(snapshot.n_nodes))
    if found.owner is not owner or (keys.reads_storage and found.storage is not storage):
        return build()  # (never: each entry holds both)
    return found
