"""The volume limits (pkg/scheduler/framework/plugins/nodevolumelimits): NodeVolumeLimits
(CSI) and EBSLimits, GCEPDLimits, AzureDiskLimits, CinderLimits (in-tree)."""

from .plugin import AzureDiskLimits, CinderLimits, EBSLimits, GCEPDLimits, NodeVolumeLimits

__all__ = ["AzureDiskLimits", "CinderLimits", "EBSLimits", "GCEPDLimits", "NodeVolumeLimits"]
