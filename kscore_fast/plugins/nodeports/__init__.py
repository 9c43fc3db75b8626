"""NodePorts (pkg/scheduler/framework/plugins/nodeports)."""

from .plugin import NAME, NodePorts

__all__ = ["NAME", "NodePorts"]
