"""VolumeBinding (score only): pkg/scheduler/framework/plugins/volumebinding."""

from .plugin import NAME, VolumeBinding

__all__ = ["NAME", "VolumeBinding"]
