"""VolumeRestrictions (pkg/scheduler/framework/plugins/volumerestrictions)."""

from .plugin import NAME, VolumeRestrictions

__all__ = ["NAME", "VolumeRestrictions"]
