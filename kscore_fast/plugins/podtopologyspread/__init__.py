"""PodTopologySpread (pkg/scheduler/framework/plugins/podtopologyspread)."""

from .plugin import NAME, PodTopologySpread

__all__ = ["NAME", "PodTopologySpread"]
