"""SelectorSpread (pkg/scheduler/framework/plugins/selectorspread)."""

from .plugin import NAME, SelectorSpread

__all__ = ["NAME", "SelectorSpread"]
