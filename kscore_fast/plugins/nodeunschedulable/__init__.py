"""NodeUnschedulable (pkg/scheduler/framework/plugins/nodeunschedulable)."""

from .plugin import NAME, NodeUnschedulable

__all__ = ["NAME", "NodeUnschedulable"]
