"""The picker's searches of the index, on a thread of its own: the typed lines and prompts that hold a
query, and, while every row is still on its way, the rows that may match it; the newest asked for wins."""

from __future__ import annotations

import io
import os
import sqlite3
import threading
from collections.abc import Callable, Collection
from functools import partial
from typing import Any

from dsh.resume.candidates import up_front
from dsh.store.index import SessionIndex
from dsh.store.textsearch import match_expression, search

Deliver = Callable[[str, dict[str, str]], None]
RowsJob = Callable[[SessionIndex], Any]
DeliverRows = Callable[[str, Any], None]
HITS = 200


class TranscriptSearcher:
    """Runs `textsearch.search` for the latest query on one worker thread with its own connection, and
    hands the hits (owner -> matching line) to `deliver` (on that thread: it must pass them to the loop).
    A query asked for while another runs replaces any query still waiting; nothing queues up."""

    def __init__(self, db_path: os.PathLike[str] | str, root: os.PathLike[str] | str) -> None:
        self._db_path, self._root = db_path, root
        self._lock = threading.Condition()
        self._waiting: tuple[str, frozenset[str] | None, Deliver] | None = None
        self._rows_waiting: tuple[str, RowsJob, DeliverRows] | None = None
        self._closed = False
        self._thread: threading.Thread | None = None
        self.errors: list[str] = []

    def ask(self, query: str, deliver: Deliver, owners: Collection[str] | None = None) -> bool:
        """Search for `query` soon; False (and nothing done) when no term is long enough to search for."""
        if match_expression(query) is None:
            return False
        with self._lock:
            if self._closed:
                return False
            self._waiting = (query, frozenset(owners) if owners is not None else None, deliver)
            self._start()
        return True

    def ask_rows(self, query: str, job: RowsJob, deliver: DeliverRows) -> None:
        """Run `job(index)` for `query` soon (before any transcript search waiting) and hand its answer to
        `deliver(query, answer)` on this thread; a newer ask replaces one still waiting."""
        with self._lock:
            if self._closed:
                return
            self._rows_waiting = (query, job, deliver)
            self._start()

    def rows_waiting(self) -> bool:
        """Whether a newer `ask_rows` waits (a job still running may stop early)."""
        return self._rows_waiting is not None

    def _start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="dsh-transcripts", daemon=True)
            self._thread.start()
        self._lock.notify()

    def close(self) -> None:
        with self._lock:
            self._closed = True
            self._waiting = None
            self._lock.notify()

    def _run(self) -> None:
        index = SessionIndex(self._db_path, self._root, progress=io.StringIO())
        try:
            while True:
                with self._lock:
                    while self._waiting is None and self._rows_waiting is None and not self._closed:
                        self._lock.wait()
                    if self._closed:
                        return
                    rows, self._rows_waiting = self._rows_waiting, None
                    if rows is None:
                        assert self._waiting is not None
                        query, owners, deliver = self._waiting
                        self._waiting = None
                if rows is not None:
                    asked, job, deliver_rows = rows
                    try:
                        with up_front():  # a listing of every row waits for it
                            answer = job(index)
                    except sqlite3.Error as exc:
                        self.errors.append(f"row search: {exc}")
                        continue
                    deliver_rows(asked, answer)
                    continue
                try:
                    with up_front():
                        hits = index.read(partial(search, query=query, limit=HITS, owners=owners))
                except sqlite3.Error as exc:
                    self.errors.append(f"transcript search: {exc}")
                    continue
                deliver(query, {hit.owner: hit.line for hit in hits})
        finally:
            index.close()
