"""Score and filter plugins, one folder each (pkg/scheduler/framework/plugins)."""
