"""GpuPacking: an out-of-tree kscore_fast score plugin that packs whole GPUs."""

from .plugin import GpuPacking

__all__ = ["GpuPacking"]
