"""NodeName (pkg/scheduler/framework/plugins/nodename)."""

from .plugin import NAME, NodeName

__all__ = ["NAME", "NodeName"]
