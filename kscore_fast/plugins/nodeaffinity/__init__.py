"""NodeAffinity (pkg/scheduler/framework/plugins/nodeaffinity)."""

from .plugin import NAME, NodeAffinity

__all__ = ["NAME", "NodeAffinity"]
