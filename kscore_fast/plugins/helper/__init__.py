"""Helpers shared by plugins (pkg/scheduler/framework/plugins/helper)."""
