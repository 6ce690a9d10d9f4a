"""One session's snapshot file as its host keeps it: another hand's change noticed, its copy kept aside."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Mapping

from dsh.persist.records import Snapshot
from dsh.persist.snapshot import SNAPSHOT_FILE, Mark, file_mark, state_dir, write_snapshot


class SnapshotFile:
    """What the host last wrote to `state/<id>/snapshot.json` (its Mark), so that a file replaced, cut
    short or edited in its place by anyone else is told from the host's own, and so that only a
    snapshot nobody touched becomes the last good copy (`snapshot.json.prev`)."""

    def __init__(self, session_id: str, mark: Mark | None = None) -> None:
        self.session_id = session_id
        self.mark = mark  # the loaded snapshot's, until the first write
        self._notices: list[str] = []  # what writes found, for the host to say (take_notices)
        self._lock = threading.Lock()

    def write(self, snapshot: Snapshot, tails: Mapping[str, bytes]) -> None:
        """The scheduler's writer (on its worker thread): a file another hand left in the way is looked
        at first, as `look` does, so that no write goes over it unsaid."""
        try:
            line = self.look()
        except OSError as exc:
            line = f"this session's snapshot was changed by another hand and cannot be moved aside: {exc}"
        if line is not None:
            with self._lock:
                self._notices.append(line)
        self.mark = write_snapshot(snapshot, tails, keep_if=self.mark)

    def take_notices(self) -> list[str]:
        """The lines the writes found since the last call (from the host's loop)."""
        with self._lock:
            notices, self._notices = self._notices, []
        return notices

    def look(self) -> str | None:
        """Whether the snapshot on disk is still the host's last write, called while no write runs
        (`SnapshotScheduler.when_idle`): the line that says what another hand did, or None. A file put
        in its place or changed there is moved aside (`snapshot.json.replaced-<time>`, never lost); one
        cut short is a piece of the host's own, and is only written over. Either way, the caller writes
        the snapshot again. Gone altogether is the caller's (file_watch); OSError when the move fails."""
        mark = self.mark
        if mark is None:
            return None
        path = state_dir(self.session_id) / SNAPSHOT_FILE
        there = file_mark(path)
        if there is None or there == mark:
            return None
        self.mark = None  # what is there now is not the host's: never kept as the last good copy
        if there[:2] == mark[:2] and there[2] < mark[2]:
            return f"this session's snapshot was cut short ({mark[2]} bytes to {there[2]}): written again"
        aside = path.with_name(f"{SNAPSHOT_FILE}.replaced-{time.strftime('%Y%m%dT%H%M%S')}")
        n = 1
        while os.path.lexists(aside):
            aside = aside.with_name(f"{SNAPSHOT_FILE}.replaced-{time.strftime('%Y%m%dT%H%M%S')}-{n}")
            n += 1
        os.rename(path, aside)
        what = "changed by another program" if there[:2] == mark[:2] else "replaced by another file"
        return f"this session's snapshot was {what}: kept beside it as {aside.name}, and written again"
