"""InterPodAffinity (pkg/scheduler/framework/plugins/interpodaffinity)."""

from .plugin import NAME, InterPodAffinity

__all__ = ["NAME", "InterPodAffinity"]
