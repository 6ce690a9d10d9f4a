"""A live session's files (its log, its snapshot, the index) looked at again, and made again when gone."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from dsh.session.session import Session


class FileCheck:
    """What one look found: the files made again (short names, in order), and the lines to say."""

    __slots__ = ("errors", "lines", "made")

    def __init__(self) -> None:
        self.made: list[str] = []
        self.lines: list[str] = []  # details worth saying when only one thing was put right
        self.errors: list[str] = []


def check_session_files(session: Session) -> FileCheck:
    """Look whether the session's log, snapshot and index are still where they belong, and put back what
    is gone (a removed DSH_HOME, an rm, a cleaner): the log from the host's descriptor, the snapshot
    from the session in memory, the index rebuilt from the logs at its next use."""
    found = FileCheck()
    if session.closing:
        return found
    log = session.log
    log.watch()
    if log.notices:
        found.made.append("log")
        found.lines.extend(take_log_notices(session, say=False))
    _check_snapshot(session, found)
    index = getattr(session.store, "_index", None)  # only if opened: a host that never listed has none
    if index is not None and index.file_gone():
        found.made.append("index")  # opened again, and rebuilt from the logs, by its next use
    return found


def take_log_notices(session: Session, *, say: bool = True) -> list[str]:
    """The log's lines about itself (removed, replaced, truncated, and what was done), said unless not
    `say`; after a log found emptied, the title is written into it again."""
    notices, session.log.notices = session.log.notices, []
    if notices and session.title and any("emptied" in line or "cut short" in line for line in notices):
        session.log_event("title", title=session.title)
    if say:
        for line in notices:
            session.announce(line, error="cannot" in line)
    return notices


def _check_snapshot(session: Session, found: FileCheck) -> None:
    from dsh.persist.snapshot import SNAPSHOT_FILE, state_dir

    if not session.scheduler.written:
        return  # none written yet: nothing to miss
    try:
        gone = not os.path.lexists(state_dir(session.log.id) / SNAPSHOT_FILE)
    except Exception as exc:  # the home cannot be made again (a file in its place): said, tried again later
        found.errors.append(f"this session's snapshot cannot be written again: {exc}")
        return
    if gone:
        session.scheduler.structural_change()  # written at once, off the loop; a failure shows in the status line
        found.made.append("snapshot")
        return
    lines = session.snapshot_file.take_notices()  # found by a write since the last look, and written over
    try:
        line = session.scheduler.when_idle(session.snapshot_file.look)  # a write under way: the next look
    except OSError as exc:
        found.errors.append(f"this session's snapshot was changed by another hand and cannot be moved aside: {exc}")
        return
    if line is not None:
        session.scheduler.structural_change()
        lines.append(line)
    if lines:
        found.made.append("snapshot")
        found.lines.extend(lines)
