"""VolumeZone (pkg/scheduler/framework/plugins/volumezone)."""

from .plugin import NAME, VolumeZone

__all__ = ["NAME", "VolumeZone"]
