"""Handoff checks: a resumed session's directory must be enterable before anything here is left."""

from __future__ import annotations

import os
import stat

from dsh.resume.candidates import clean

HANDOFF_ENV = "DSH_HANDOFF_FROM"


class HandoffError(Exception):
    """The handoff did not happen; the message is for the user, and the running app stays as it was."""


def _why(exc: BaseException) -> str:
    if isinstance(exc, FileNotFoundError):
        return "the directory is gone"
    if isinstance(exc, NotADirectoryError):
        return "it is not a directory"
    if isinstance(exc, PermissionError):
        return "permission denied"
    if isinstance(exc, OSError) and exc.errno is not None:
        return os.strerror(exc.errno)
    return clean(str(exc)) or type(exc).__name__


def check_directory(cwd: str) -> None:
    """Raise HandoffError unless `cwd` is a directory this process could enter (checked, not entered)."""
    try:
        info = os.stat(cwd)
        if not stat.S_ISDIR(info.st_mode):
            raise NotADirectoryError(cwd)
        if not os.access(cwd, os.X_OK):
            raise PermissionError(cwd)
    except (OSError, ValueError) as exc:
        raise HandoffError(f"cannot enter {clean(cwd)}: {_why(exc)}") from exc


def enter_directory(cwd: str) -> None:
    """chdir to `cwd`, or HandoffError saying why not (in the same words as check_directory)."""
    try:
        os.chdir(cwd)
    except (OSError, ValueError) as exc:
        raise HandoffError(f"cannot enter {clean(cwd)}: {_why(exc)}") from exc
