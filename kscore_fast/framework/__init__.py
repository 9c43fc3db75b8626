"""The scheduling framework, batch-first.

Mirrors pkg/scheduler/framework (interface.go, runtime/framework.go) and the scheduling
cycle of pkg/scheduler/generic_scheduler.go, but every phase works on a chunk of pods at
once::

    PodBatch ──► node lists per pod (filter; numFeasibleNodesToFind; nextStartNodeIndex)
             ──► PreScore  (per plugin: prepared arrays for the chunk)
             ──► Score     (per plugin: int64 raw score per (pod, node) entry)
             ──► Normalize (per plugin, over each pod's scored nodes only)
             ──► range check [0, 100], × weight, Σ → total
             ──► select host (seeded uniform choice among the top totals)

A pod's scored nodes are a ragged list: ``ptr[i]:ptr[i+1]`` of ``nodes`` (int32 node
indices, in the order Go's ``prioritizeNodes`` sees them). The runtime never imports a
plugin: it is handed plugin instances built from a registry (:mod:`.registry`; a plugin is
an :class:`.interface.Plugin`).

The compiled loops (:mod:`.search`, :mod:`.verdicts`, :mod:`.scoring`, :mod:`.sharing`,
:mod:`.sequential`) are compiled once for every profile. They reach the profile's plugins
through a *plugin table* (:mod:`.abi`): per plugin, the address of its state, packed in
numba's memory layout (:mod:`kscore_fast._native`), and of its compiled entry points
(:mod:`.entries`: filter a block of nodes, score and normalize one pod's list, assume,
remove), called by address. A call from Python passes one int64 array for all the
plugins' states.
"""
