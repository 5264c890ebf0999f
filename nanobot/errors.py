"""Errors meant for humans.

Every exception here carries a one-line message that names the thing that is wrong and the fix.
The CLI prints ``Error: <message>`` and exits with code 2, never a traceback.
"""


class NanobotError(Exception):
    """Base class: ``str(err)`` is shown to the user as one line."""


class ConfigError(NanobotError):
    """config.toml or an environment override is invalid."""


class ModelError(NanobotError):
    """A model path is missing, unreadable, or not a GGUF file."""


class WorkspaceError(NanobotError):
    """A workspace file cannot be read or written."""


class ToolError(NanobotError):
    """A tool was called with bad arguments or failed; the message goes back to the model."""


class MissingDependency(NanobotError):
    """An optional dependency is not installed; the message names the package to install."""
