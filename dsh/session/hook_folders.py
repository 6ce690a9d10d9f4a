"""Agent panes' hook folders (`state/<session>/hooks/<pane>/`): removed when no longer read, and stale ones."""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from dsh.home import dsh_home_path
from dsh.store.ids import is_valid_session_id
from dsh.store.log import live_pid

HOOKS = "hooks"
# Another session's folder is taken as stale only when its session is not live and nothing in it has
# been written for this long (a host taking that session this instant may be writing one).
STALE_SECONDS = 60.0


def session_folder(session_id: str) -> Path:
    return dsh_home_path("state", session_id, HOOKS)


def _remove(path: Path) -> None:
    """The folder and what is in it; nothing when it is missing, or not a real folder (a link is left)."""
    try:
        info = os.lstat(path)
    except OSError:
        return
    if stat.S_ISDIR(info.st_mode):
        shutil.rmtree(path, ignore_errors=True)


def remove_pane(session_id: str, pane_id: str) -> None:
    """The pane's program ended, or the pane closed: its hook files are no longer read (a restart writes them anew)."""
    _remove(session_folder(session_id) / pane_id)


def remove_session(session_id: str) -> None:
    """The session ended: every pane's hook files."""
    _remove(session_folder(session_id))


def sweep_own(session_id: str, running: Iterable[str]) -> None:
    """At a host's start: the folders a previous host of this session left (it crashed), but those of
    the panes running now."""
    keep = set(running)
    folder = session_folder(session_id)
    with contextlib.suppress(OSError):
        for name in os.listdir(folder):
            if name not in keep:
                _remove(folder / name)


def sweep_others(session_id: str, live: Callable[[str], bool], now: float | None = None) -> list[str]:
    """At a host's start: the hook folders of other sessions that are not live (their host crashed, or
    an older dsh left them), untouched for STALE_SECONDS; the ids whose folders were removed."""
    now = time.time() if now is None else now
    removed: list[str] = []
    state = dsh_home_path("state")
    try:
        names = os.listdir(state)
    except OSError:
        return removed
    for name in names:
        folder = state / name / HOOKS
        if name == session_id or not is_valid_session_id(name) or not _quiet_since(folder, now - STALE_SECONDS):
            continue
        if live(name):
            continue
        _remove(folder)
        removed.append(name)
    return removed


def _quiet_since(folder: Path, since: float) -> bool:
    """True when `folder` is a real folder and neither it nor anything in it changed after `since`."""
    try:
        info = os.lstat(folder)
    except OSError:
        return False
    if not stat.S_ISDIR(info.st_mode) or info.st_mtime > since:
        return False
    for root, dirs, files in os.walk(folder):
        for name in [*dirs, *files]:
            try:
                if os.lstat(os.path.join(root, name)).st_mtime > since:
                    return False
            except OSError:
                continue
    return True


def session_is_live(session_id: str) -> bool:
    """True when a host holds the session's log (its lock), wherever its workspace's folder is."""
    for log in dsh_home_path("sessions").glob(f"*/{session_id}.jsonl"):
        if live_pid(log) is not None:
            return True
    return False
