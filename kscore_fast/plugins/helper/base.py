"""What plugins without args share."""

from __future__ import annotations

from ...framework.interface import Plugin


class NoArgs(Plugin):
    """A plugin that takes no args: Go's factories of these plugins ignore whatever a
    profile's ``pluginConfig`` holds for them (kube-scheduler decodes it as unknown args),
    and so does kscore_fast."""
