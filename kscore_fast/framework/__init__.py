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
plugin: it is handed plugin instances built from a registry.
"""
