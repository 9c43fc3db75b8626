"""VolumeBinding (pkg/scheduler/framework/plugins/volumebinding)."""

from .plugin import NAME, PreFilterGate, VolumeBinding

__all__ = ["NAME", "PreFilterGate", "VolumeBinding"]
