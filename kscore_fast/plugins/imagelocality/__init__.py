"""ImageLocality (pkg/scheduler/framework/plugins/imagelocality)."""

from .plugin import NAME, ImageLocality

__all__ = ["NAME", "ImageLocality"]
