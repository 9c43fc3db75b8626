"""The error types of kscore_fast.

User errors (bad manifests, bad flags, bad configuration) are :class:`InputError` and
its subclasses: the CLI prints their message and exits with code 2, without a traceback.
Everything else is a bug and keeps its traceback.
"""

from __future__ import annotations


class KScoreError(Exception):
    """Base class of every error kscore_fast raises on purpose."""


class InputError(KScoreError):
    """Bad user input: a file, an object in it, a field of that object.

    The message reads ``<file>: <Kind> <namespace>/<name>: <field>: <what is wrong>``,
    leaving out the parts that are unknown.
    """

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        obj: str | None = None,
        field: str | None = None,
    ) -> None:
        self.reason = message
        self.file = file
        self.obj = obj
        self.field = field
        parts = [p for p in (file, obj, field) if p]
        super().__init__(": ".join([*parts, message]))

    def located(
        self, *, file: str | None = None, obj: str | None = None, field: str | None = None
    ) -> InputError:
        """Return a copy with the missing location parts filled in."""
        return type(self)(
            self.reason,
            file=self.file or file,
            obj=self.obj or obj,
            field=self.field or field,
        )


class ConfigError(InputError):
    """Bad scheduling configuration: plugin list, weights, KubeSchedulerConfiguration."""


class UnsupportedError(InputError):
    """A valid request for something kscore_fast does not implement yet."""


class PluginError(InputError):
    """A plugin that cannot run: a missing or misshapen kernel, a name already taken, a
    kernel that does not compile for the plugin's state."""
