"""Errors meant for humans.

Every exception here carries a one-line message that names the thing that is wrong and the fix.
The CLI prints ``Error: <message>`` and exits with code 2, never a traceback.
"""

from __future__ import annotations


class NanobotError(Exception):
    """Base class: ``str(err)`` is shown to the user as one line."""


class ConfigError(NanobotError):
    """config.toml or an environment override is invalid."""


class ModelError(NanobotError):
    """A model path is missing, unreadable, or not a GGUF file."""


class ServerError(ModelError):
    """A model server (``base_url``) is down, slow, sent something unusable, or stopped mid-reply."""


class WorkspaceError(NanobotError):
    """A workspace file cannot be read or written."""


class ToolError(NanobotError):
    """A tool was called with bad arguments or failed; the message goes back to the model. ``instead``
    names the tool the message points to (an edit of a file that is not there: ``write_file``), which
    a retry then calls in place of the failed one."""

    def __init__(self, message: str = "", instead: str = "") -> None:
        super().__init__(message)
        self.instead = instead


class MissingDependency(NanobotError):
    """An optional dependency is not installed; the message names the package to install."""


class StorageError(NanobotError):
    """A file nanobot must write cannot be written; the message names the real cause and the fix."""

    @classmethod
    def from_os(cls, e: OSError, path: object = None) -> StorageError:
        """Map an OSError to its cause: read-only (EROFS), no permission (EACCES/EPERM), disk full
        (ENOSPC/EDQUOT), else the system's own words."""
        import errno

        where = path or e.filename or "a file"
        if e.errno == errno.EROFS:
            why = "the file system is read-only; remount it writable or set NANOBOT_HOME to a writable folder"
        elif e.errno in (errno.EACCES, errno.EPERM):
            why = "permission denied; make it writable or set NANOBOT_HOME to a writable folder"
        elif e.errno in (errno.ENOSPC, errno.EDQUOT):
            why = "the disk is full; free some space and try again"
        else:
            why = e.strerror or str(e)
        return cls(f"cannot write {where}: {why}")
