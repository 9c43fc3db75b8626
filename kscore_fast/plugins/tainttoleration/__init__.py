"""TaintToleration (pkg/scheduler/framework/plugins/tainttoleration)."""

from .plugin import NAME, TaintToleration

__all__ = ["NAME", "TaintToleration"]
