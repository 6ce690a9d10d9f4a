"""Handoff: enter the resumed session's directory first, then close this session and exec `dsh --resume`."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import NoReturn, Protocol

from dsh.resume.candidates import clean
from dsh.resume.preflight import Resolved

HANDOFF_ENV = "DSH_HANDOFF_FROM"


class HandoffError(Exception):
    """The handoff did not happen; the message is for the user, and the running app stays as it was."""


class HandoffHost(Protocol):
    def flush_and_close(self) -> None: ...

    def restore_terminal(self) -> None: ...

    def exec_resume(self, session_id: str, from_cwd: str) -> NoReturn: ...


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


def handoff(
    resolved: Resolved,
    host: HandoffHost,
    *,
    chdir: Callable[[str], None] = os.chdir,
    getcwd: Callable[[], str] = os.getcwd,
) -> NoReturn:
    """Move this process to `resolved.cwd`, then hand over to `dsh --resume=<id>` through the host.

    An unreachable directory raises HandoffError before anything is torn down. So does a failure to
    close the current session, after going back to the directory we came from.
    """
    try:
        from_cwd = getcwd()
    except OSError:
        from_cwd = ""  # our own directory was removed under us; nothing to announce it as
    try:
        chdir(resolved.cwd)
    except (OSError, ValueError) as exc:
        raise HandoffError(f"cannot enter {clean(resolved.cwd)}: {_why(exc)}") from exc
    try:
        host.flush_and_close()
    except Exception as exc:
        if from_cwd:
            try:
                chdir(from_cwd)
            except (OSError, ValueError):
                pass
        raise HandoffError(f"cannot close this session to resume another: {clean(str(exc))}") from exc
    host.restore_terminal()
    host.exec_resume(resolved.session_id, from_cwd)


def exec_argv(session_id: str) -> list[str]:
    """The same interpreter running dsh again, resuming `session_id`."""
    return [sys.executable, "-m", "dsh", f"--resume={session_id}"]


def open_agent_argv(key: str) -> list[str]:
    """The same interpreter running dsh again, opening agent conversation `key` (KIND:ID) in a new session."""
    return [sys.executable, "-m", "dsh", f"--open-agent={key}"]


def exec_resume_default(session_id: str, from_cwd: str) -> NoReturn:
    """Replace this process with `dsh --resume=<id>`, telling it where we came from (to announce the move)."""
    os.environ[HANDOFF_ENV] = from_cwd
    try:
        os.environ["PWD"] = os.getcwd()
    except OSError:
        pass
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    argv = exec_argv(session_id)
    try:
        os.execv(argv[0], argv)
    except OSError as exc:
        raise HandoffError(f"cannot start {argv[0]}: {_why(exc)}") from exc
