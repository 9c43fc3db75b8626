"""kscore_fast: kube-scheduler v1.23.6 node scoring, bit-exact and vectorized.

Nodes and pods are NumPy columns, label sets interned value-id columns, plugins numba
kernels that score every node for many pods at once; a seeded choice among the top
totals picks each host.
See ``docs/contract.md`` for the result document and ``kscore_fast.framework`` for the
design.
"""

from __future__ import annotations

__version__ = "0.1.0"

from ._memory import retain_freed_memory
from .api import load_cluster, score
from .errors import ConfigError, InputError, KScoreError, UnsupportedError
from .framework.result import ScoreResult
from .model.snapshot import Cluster, ClusterSnapshot, PodBatch

__all__ = [
    "Cluster",
    "ClusterSnapshot",
    "ConfigError",
    "InputError",
    "KScoreError",
    "PodBatch",
    "ScoreResult",
    "UnsupportedError",
    "__version__",
    "load_cluster",
    "retain_freed_memory",
    "score",
]
