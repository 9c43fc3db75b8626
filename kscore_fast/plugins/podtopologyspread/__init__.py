"""PodTopologySpread (pkg/scheduler/framework/plugins/podtopologyspread)."""

from .reference import NAME

__all__ = ["NAME"]
