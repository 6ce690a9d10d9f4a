"""The derived query index: session summaries in SQLite, refreshed from the logs by (path, size, mtime).

The logs are the truth. The index can be deleted at any time; it is rebuilt when missing, when its
schema version differs, or when SQLite says it is corrupt. Refreshes from several processes serialize
on SQLite's write lock (WAL mode: readers are never blocked) and each re-checks the files under that lock.
"""

from __future__ import annotations

import contextlib
import io
import os
import sqlite3
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, BinaryIO, TextIO, TypeVar

from dsh.safefile import UnsafePathError, open_append, open_read_fd, refuse_special
from dsh.store import agent_table, folder_names, index_changes, textsearch, title_search
from dsh.store.ids import InvalidSessionId, validate_session_id
from dsh.store.json_listing import stored_json
from dsh.store.lines_column import decode_lines, encode_lines
from dsh.store.log import LOG_SUFFIX, READ_CHUNK, live_pid, scan_log
from dsh.store.scan import RootScan, Stat, scan_root, stat_logs
from dsh.store.summary import Digester, Summary, session_state
from dsh.store.workspace import NO_WORKSPACE, home_dir, workspace_label, workspace_partition

# 2: preview stored as escaped lines (not JSON); an index on cwd for the picker's workspace rows.
# 3: (briefly) rows clustered in listing order; dropped: twice the file and a 50% slower first build
#    for 0.2 s off a 100k listing. 4 is the layout of 2 again, so any index made as 3 is rebuilt.
# 5: text that is not UTF-8 (a lone surrogate: a byte of a directory name or of typed input that was
#    not UTF-8) is stored as a BLOB of its bytes, and the row's `raw` flag says to decode it back.
# 6: `attached` (the last attach/detach event), for the attached/detached/closed/crashed states.
# 7: branch, agents, agent_key, auto_title, preview_json, agents_json columns; typed lines and agent
#    prompts in an FTS5 trigram index (`lines`, `lines_fts`); agent conversations (`agent_conversations`,
#    `agent_sources`); a covering index for the refresh's (path, size, mtime) check, which otherwise
#    read every wide row.
# 8: `folders` (each folder's mtime when last listed) and `sessions_open` (the logs of sessions not
#    closed): a refresh lists only folders whose mtime moved and stats only the open logs of the others;
#    the covering index of every row's (path, size, mtime) goes, as no refresh reads them all any more.
# 9: json_head and json_tail (the row's `dsh sessions --json` object, written at parse time, around its
#    label and title) in place of preview_json and agents_json.
# 10: a row of `lines` holds the lines one refresh found for one owner, joined by newlines (was: one line).
# 11: snapshot_panes (store/pane_cache.py), the pane records `dsh sessions --json` read from each
#    snapshot, kept while the file is unchanged.
# 12: kept_* columns (store/listed_rows.py): the finished `--json` row of a session with saved panes, kept
#    while its snapshot and its agents' transcripts are unchanged (a changed log replaces the row). In the
#    row, not a table of their own: a join for each of 100,000 rows cost 0.35-0.45 s of the listing.
#    The kept_snap_* columns (the snapshot's key) are no longer written or read: the log's key stands
#    for the snapshot (persist/listing.py). They stay until the next schema change rather than make
#    every index be built again (30-40 s at 100,000 sessions) for three empty columns.
# 13: the kept row whole (kept_text), with the home its label was made for and the title it showed, in
#    place of two pieces the query joined the label and title into (kept_head, kept_tail): joining them
#    was a third of the query's CPU at 100,000 sessions. The kept_snap_* columns go. `folder_names`
#    (store/folder_names.py): the names in `state/`, kept while its mtime holds.
# 14: agent_conversations.ino and .mark (store/agent_table.py): a transcript is read on from where the last
#    read stopped only when it is the same file and the bytes before that point are unchanged; a
#    transcript rewritten in place or replaced kept its old lines.
# 15: updated_at is the last event that is not a rename or an archive (store/summary.py BOOKKEEPING):
#    renaming or archiving a session from a picker reset its age.
SCHEMA_VERSION = 15
BUSY_TIMEOUT_SECONDS = 30.0
MAP_BYTES = 1 << 30  # of the index mapped by `map_reads` (only the pages read are loaded)
WARNINGS_PER_FILE = 5

_COLUMNS = (
    "path",
    "root",
    "size",
    "mtime_ns",
    "id",
    "cwd",
    "workspace",
    "title",
    "explicit_title",
    "first_input",
    "created_at",
    "updated_at",
    "event_count",
    "input_count",
    "pane_count",
    "closed",
    "archived",
    "unresumable_reason",
    "preview",
    "branch",
    "agents",
    "agent_key",
    "auto_title",
    "json_head",
    "json_tail",
    "attached",
    "raw",
)

# The texts the picker's search of the index reads (`matching`) where the titles' own table
# (`title_search`) is missing, in listing order: its LIKE scans this (15 MB at 100,000 sessions) instead of
# every wide row (400 MB): 48 ms against 145-275 ms. Made where it is missing without a new schema version
# (0.3 s at 100,000 sessions), so no index is built again for it.
SEARCH_INDEX = (
    "CREATE INDEX IF NOT EXISTS sessions_search ON sessions"
    " (root, archived, updated_at DESC, mtime_ns DESC, id DESC, title, first_input, cwd)"
)

_SCHEMA = f"""
CREATE TABLE sessions (
    path TEXT PRIMARY KEY,
    root TEXT NOT NULL,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    id TEXT NOT NULL,
    cwd TEXT,
    workspace TEXT NOT NULL,
    title TEXT NOT NULL,
    explicit_title TEXT,
    first_input TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    event_count INTEGER NOT NULL,
    input_count INTEGER NOT NULL,
    pane_count INTEGER NOT NULL,
    closed INTEGER NOT NULL,
    archived INTEGER NOT NULL,
    unresumable_reason TEXT,
    preview TEXT,
    branch TEXT,
    agents TEXT,
    agent_key TEXT,
    auto_title TEXT,
    json_head TEXT,
    json_tail TEXT,
    attached INTEGER NOT NULL DEFAULT 1,
    raw INTEGER NOT NULL DEFAULT 0,
    kept_checks TEXT,
    kept_text TEXT,
    kept_home TEXT,
    kept_title TEXT
);
CREATE INDEX sessions_by_time ON sessions (root, updated_at DESC, mtime_ns DESC, id DESC);
CREATE INDEX sessions_by_workspace ON sessions (root, workspace, archived);
CREATE INDEX sessions_by_cwd ON sessions (root, cwd);
CREATE INDEX sessions_by_archived ON sessions (root, archived);
CREATE INDEX sessions_by_id ON sessions (id);
CREATE INDEX sessions_by_agent ON sessions (agent_key);
CREATE INDEX sessions_open ON sessions (root, workspace, path, size, mtime_ns) WHERE closed = 0;
{SEARCH_INDEX};
CREATE TABLE folders (root TEXT NOT NULL, name TEXT NOT NULL, mtime_ns INTEGER, PRIMARY KEY (root, name));
CREATE TABLE snapshot_panes (session_id TEXT PRIMARY KEY, size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL,
    ino INTEGER NOT NULL, panes TEXT NOT NULL);
PRAGMA user_version = {SCHEMA_VERSION};
"""

# What a Summary is made of: the columns only other readers use (the listing's JSON: a third of a row's
# bytes) are not fetched, which made 100,000 rows 1.0 s to fetch.
_SUMMARY_COLUMNS = [c for c in _COLUMNS[4:] if c not in ("agent_key", "auto_title", "json_head", "json_tail")]
_SELECT = "SELECT " + ", ".join(_SUMMARY_COLUMNS) + ", path FROM sessions"
_UPSERT = f"INSERT OR REPLACE INTO sessions ({', '.join(_COLUMNS)}) VALUES ({', '.join('?' for _ in _COLUMNS)})"

T = TypeVar("T")

_AT, _MTIME, _ID = (_COLUMNS.index(name) for name in ("updated_at", "mtime_ns", "id"))


def _listing_order(row: tuple[object, ...]) -> tuple[str, int, str]:
    """A row's place in the listing's ORDER BY (updated_at, mtime_ns, id), ascending; text held as bytes
    (not UTF-8) goes first."""
    at, mtime, sid = row[_AT], row[_MTIME], row[_ID]
    return (
        at if isinstance(at, str) else "",
        mtime if isinstance(mtime, int) else 0,
        sid if isinstance(sid, str) else "",
    )


def _file_key(path: Path) -> tuple[int, int] | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_dev, info.st_ino


class SessionIndex:
    """Summaries of every log under `root`, kept in the SQLite file `db_path`."""

    def __init__(
        self,
        db_path: str | os.PathLike[str],
        root: str | os.PathLike[str],
        *,
        progress: TextIO | None = None,
        progress_after: float = 1.0,
    ) -> None:
        self.db_path = Path(db_path)
        self.root = Path(root)
        self._root_key = str(self.root)
        self._root_db = _to_db(self._root_key)
        self._progress = progress if progress is not None else sys.stderr
        self._progress_after = progress_after
        self._conn: sqlite3.Connection | None = None
        self._file: tuple[int, int] | None = None  # the file the connection opened (device, inode)
        self._pending: list[str] = []
        # Whether the last refresh() found any log added, changed or gone (a listing may be stale), and
        # which: a listing already made needs only those rows again (`summaries_of`).
        self.changed = False
        self.changed_paths: list[str] = []
        # Why the last refresh could not write the index (a full disk, an I/O error); None once one did.
        self.write_error: str | None = None
        # Lines typed in each log parsed by the refresh under way, for the transcript search.
        self._typed: dict[str, tuple[str, tuple[tuple[int, str], ...]]] = {}
        # Logs the refresh under way could not read: their folders are listed again next time.
        self._unread: set[str] = set()
        self._sync_search = True

    # -- connection, schema, recovery ------------------------------------------------------------

    def file_gone(self) -> bool:
        """Whether the index file this connection opened was removed or replaced (a removed DSH_HOME):
        then it is closed, and opened again (rebuilt from the logs) by its next use."""
        if self._conn is None or self._file is None or _file_key(self.db_path) == self._file:
            return False
        self.close()
        return True

    def _connect(self) -> sqlite3.Connection:
        if self._conn is not None:
            if self._file is None or _file_key(self.db_path) == self._file:
                return self._conn
            self.close()  # its file was removed or replaced under it: a new one, rebuilt from the logs
        try:
            _prepare_db_file(self.db_path)
        except OSError as exc:
            # A link, a FIFO, another user's file: never opened, chmod-ed or dropped; list from memory.
            if isinstance(exc, UnsafePathError):
                reason = exc.reason if exc.path == str(self.db_path) else str(exc)
            else:
                reason = exc.strerror or str(exc)
            self._pending.append(
                f"{self.db_path}: cannot open the session index ({reason}); using a temporary one in memory"
            )
            self._conn = self._open(Path(":memory:"))
            return self._conn
        try:
            conn = self._open(self.db_path)
            self._file = _file_key(self.db_path)
        except sqlite3.OperationalError as exc:
            # Unopenable, read-only, I/O error: list from a throwaway index rather than not at all.
            if "locked" in str(exc):
                raise
            self._pending.append(
                f"{self.db_path}: cannot open the session index ({exc}); using a temporary one in memory"
            )
            conn = self._open(Path(":memory:"))
        except sqlite3.DatabaseError as exc:
            self._discard(exc)
            conn = self._open(self.db_path)
            self._file = _file_key(self.db_path)
        self._conn = conn
        return conn

    def _open(self, path: Path) -> sqlite3.Connection:
        conn = sqlite3.connect(str(path), timeout=BUSY_TIMEOUT_SECONDS, isolation_level=None)
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            self._ensure_schema(conn)
        except BaseException:
            conn.close()
            raise
        return conn

    def _ensure_schema(self, conn: sqlite3.Connection) -> None:
        if conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION and self._has_table(conn):
            self._ensure_search_index(conn)
            return
        with _write(conn):
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            if version == SCHEMA_VERSION and self._has_table(conn):
                return  # another process set it up while we waited for the lock
            objects = conn.execute(
                "SELECT type, name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' AND type IN ('table', 'view')"
            ).fetchall()
            if objects:
                self._pending.append(
                    f"{self.db_path}: session index schema {version} is not {SCHEMA_VERSION}; rebuilding it"
                )
            for kind, name in objects:
                conn.execute(f'DROP {kind.upper()} IF EXISTS "{name}"')
            # One statement at a time: executescript() would commit the open transaction first.
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    conn.execute(statement)
            for statement in (
                *textsearch.STATEMENTS,
                *agent_table.STATEMENTS,
                agent_table.SEARCH_INDEX,
                *folder_names.STATEMENTS,
                *index_changes.STATEMENTS,
                *title_search.STATEMENTS,
            ):
                conn.execute(statement)

    @staticmethod
    def _ensure_search_index(conn: sqlite3.Connection) -> None:
        """`SEARCH_INDEX`, the conversations' (`agent_table.SEARCH_INDEX`) and the titles' table
        (`title_search`) on an index made before they existed (once; a read-only file is left as it is,
        and searched the slower way)."""
        sql = "SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ?"
        for name, statement in (("sessions_search", SEARCH_INDEX), ("agent_search", agent_table.SEARCH_INDEX)):
            if conn.execute(sql, (name,)).fetchone() is None:
                with contextlib.suppress(sqlite3.OperationalError):  # read-only, or busy past the timeout
                    with _write(conn):
                        conn.execute(statement)
        if not title_search.present(conn):
            with contextlib.suppress(sqlite3.OperationalError):
                with _write(conn):
                    if not title_search.present(conn):  # another process made it while we waited
                        title_search.create(conn)

    @staticmethod
    def _has_table(conn: sqlite3.Connection) -> bool:
        sql = "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'sessions'"
        return conn.execute(sql).fetchone() is not None

    def _remove_db(self) -> None:
        for suffix in ("", "-wal", "-shm", "-journal"):
            with contextlib.suppress(FileNotFoundError, IsADirectoryError):
                os.unlink(f"{self.db_path}{suffix}")

    def _recover(self, exc: sqlite3.DatabaseError) -> None:
        """SQLite found the file damaged mid-use: drop it and start over from the logs."""
        self.close()
        self._discard(exc)

    def _discard(self, exc: sqlite3.DatabaseError) -> None:
        """The file is damaged: said (to the user, and with its cause in log/dsh.log), then removed."""
        from dsh.ownlog import log_line  # only on this path, as `refresh`'s

        said = _unreadable(self.db_path, exc)
        self._pending.append(said)
        log_line(f"{said} ({type(exc).__name__})")
        self._remove_db()

    def close(self) -> None:
        if self._conn is not None:
            with contextlib.suppress(sqlite3.Error):
                self._conn.close()
            self._conn = None
            self._file = None

    def _retrying(self, action: Callable[[sqlite3.Connection], T]) -> T:
        try:
            return action(self._connect())
        except sqlite3.OperationalError:
            raise  # locked, read-only, I/O: the file may be fine, so it is not thrown away
        except sqlite3.DatabaseError as exc:
            # Only the base class says the file is damaged (SQLITE_CORRUPT, SQLITE_NOTADB); its subclasses
            # are a mistake in a statement (ProgrammingError: wrong bindings) or a refused write
            # (IntegrityError), and throwing the index away for those cost a rebuild from every log.
            if type(exc) is not sqlite3.DatabaseError:
                raise
            self._recover(exc)  # corrupt or not a database at all
        return action(self._connect())

    # -- refresh -----------------------------------------------------------------------------------

    def sync_search(self, batch: int = 20_000) -> None:
        """Make every stored line searchable, a batch per transaction (others may write in between)."""
        while self.write(lambda conn: textsearch.sync(conn, batch)):
            pass

    def map_reads(self, size: int = MAP_BYTES) -> None:
        """Read the index through a memory map from here on: no read call and copy for each page, which
        was a quarter of `dsh sessions --json` at 100,000 sessions (their rows are read in time order,
        each from its own page). For a short-lived listing only: an I/O error under a map is a SIGBUS that
        ends the process where a read would fail with an error (SQLite's own caveat), so a host, which
        holds the user's panes, never maps."""
        with contextlib.suppress(sqlite3.Error):
            self._connect().execute(f"PRAGMA mmap_size = {int(size)}").fetchall()

    def read(self, action: Callable[[sqlite3.Connection], T]) -> T:
        """Run `action` with this index's connection (for the derived tables other modules keep here).
        A damaged index is rebuilt once; sqlite3.Error otherwise reaches the caller."""
        return self._retrying(action)

    def generation(self) -> int:
        """The number of the index's newest write: a listing read now asks `changes_since` it later."""
        return self.read(index_changes.generation)

    def changes_since(self, generation: int) -> index_changes.Changes:
        """What every write after `generation` changed, whichever process wrote it."""
        return self.read(lambda conn: index_changes.since(conn, generation))

    def write(self, action: Callable[[sqlite3.Connection], T]) -> T:
        """Run `action` in one write transaction (serialized with every other process's refresh)."""

        def in_transaction(conn: sqlite3.Connection) -> T:
            with _write(conn):
                return action(conn)

        return self._retrying(in_transaction)

    def refresh(self, *, sync_search: bool = True) -> list[str]:
        """Bring the index up to date with the logs; returns warnings (each names its file).

        Lines typed are stored either way; with `sync_search` they are made searchable too (the
        full-text indexing of a first build of 100k sessions takes many seconds: a listing skips it
        and leaves it to `sync_search()` on a worker)."""
        warnings: list[str] = []
        self.changed = False
        self.changed_paths = []
        self._sync_search = sync_search
        try:
            self._retrying(lambda conn: self._refresh(conn, warnings))
        except sqlite3.Error as exc:
            from dsh.ownlog import log_line  # only on this path: a listing imports as little as it can

            self.write_error = f"{self.db_path}: session index not refreshed: {exc}"
            log_line(f"{self.write_error} ({type(exc).__name__})")
            if isinstance(exc, sqlite3.OperationalError) and "locked" not in str(exc):
                self.write_error = self._rebuild(exc, warnings)
            warnings.append(self.write_error)
        else:
            self.write_error = None
        out = self._pending + warnings
        self._pending = []
        return out

    def _rebuild(self, exc: sqlite3.Error, warnings: list[str]) -> str:
        """The refresh failed. Where the file lacks what this dsh needs (a table or a column another dsh
        dropped while rebuilding to its schema), build the index again from the logs; otherwise, or where
        that fails too, list every session from an index in memory (never a stale few, never none). Says
        what was done, after the cause."""
        from dsh.ownlog import log_line

        said = f"{self.db_path}: session index not refreshed: {exc}"
        self.close()
        try:
            if "no such" not in str(exc):
                # A full disk, an I/O error, a read-only file: another index there would fail the same way,
                # and deleting this one would free the very space whose lack the user must be told of.
                raise exc
            self._remove_db()
            self._conn = self._open(self.db_path)
            self._refresh(self._conn, warnings)
        except (sqlite3.Error, OSError) as again:
            log_line(f"{self.db_path}: session index not rebuilt: {again}; using a temporary one in memory")
            self.close()
            self._conn = self._open(Path(":memory:"))
            self._refresh(self._conn, warnings)
            return f"{said}; using a temporary one in memory"
        log_line(f"{self.db_path}: session index rebuilt from the logs")
        return f"{said}; rebuilt from the logs"

    def _refresh(self, conn: sqlite3.Connection, warnings: list[str]) -> None:
        recorded = self._folders(conn)
        scan = scan_root(self._root_key, recorded, warnings)
        known = self._known(conn, scan, recorded, warnings)
        changed = [path for path, stat in scan.found.items() if known.get(path) != stat]
        removed = [path for path in known if path not in scan.found]
        folders = {name: mtime for name, mtime in scan.mtimes.items() if recorded.get(name, ()) != mtime}
        gone_folders = [name for name in recorded if name not in scan.mtimes] if scan.readable else []
        if not changed and not removed and not folders and not gone_folders:
            return
        self.changed = bool(changed or removed)
        self.changed_paths = [*changed, *removed]
        with _write(conn):
            # Another process may have done part of the work while we waited for the lock.
            known = _stats_at(conn, [*changed, *removed])
            self._typed = {}
            self._unread = set()
            rows = self._parse_changed(changed, known, warnings)
            typed_before = _input_counts(conn, [path for path in self._typed if path in known])
            # Oldest first, so rowids follow the listing's order: a listing of every row walks the table
            # nearly in order (a changed log's row is replaced, and so takes the newest rowid, as its
            # session is the newest). At 100,000 rows that was 80 ms of a 400 ms query.
            rows.sort(key=_listing_order)
            # Many rows at once (a first build): the titles' table is made again in one pass after them,
            # as its triggers cost each row 64 us (a cold build of 10,000 sessions 1.6 s -> 2.3 s).
            titles_after = len(rows) > title_search.BULK_ROWS and title_search.present(conn)
            if titles_after:
                title_search.drop(conn)
            conn.executemany(_UPSERT, rows)
            gone = [path for path in removed if path in known and not os.path.lexists(path)]
            # What this write changed, for listings read before it (in any process): see index_changes.
            written = [_from_db(row[0]) if isinstance(row[0], bytes) else str(row[0]) for row in rows]
            index_changes.record(conn, [*written, *gone])
            conn.executemany("DELETE FROM sessions WHERE path = ?", [(_to_db(path),) for path in gone])
            _index_typed_lines(conn, self._typed, typed_before)
            for path in gone:
                textsearch.remove_owner(conn, textsearch.session_owner(Path(path).name[: -len(LOG_SUFFIX)]))
            if self._sync_search:
                textsearch.sync(conn)
            apply_agent_titles(conn, paths=list(self._typed))
            if titles_after:
                title_search.create(conn)
            self._typed = {}
            # A log that could not be read is tried again (and said again) next time, as before its folder
            # was recorded.
            for path in self._unread:
                folders[os.path.basename(os.path.dirname(path))] = None
            conn.executemany(
                "INSERT OR REPLACE INTO folders (root, name, mtime_ns) VALUES (?, ?, ?)",
                [(self._root_db, _to_db(name), mtime) for name, mtime in folders.items()],
            )
            conn.executemany(
                "DELETE FROM folders WHERE root = ? AND name = ?",
                [(self._root_db, _to_db(name)) for name in gone_folders],
            )

    def _folders(self, conn: sqlite3.Connection) -> dict[str, int | None]:
        """Each folder's mtime when it was last listed (None: list it again), by name."""
        rows = conn.execute("SELECT name, mtime_ns FROM folders WHERE root = ?", (self._root_db,))
        return {_from_db(name): mtime for name, mtime in rows}

    def _known(
        self, conn: sqlite3.Connection, scan: RootScan, recorded: dict[str, int | None], warnings: list[str]
    ) -> dict[str, Stat]:
        """(size, mtime) as indexed of every log the scan speaks for: those of the folders it listed and of
        folders gone; and the open logs of clean folders, which it stats here."""
        if not scan.readable:
            return {}
        known: dict[str, Stat] = {}
        names = [*scan.listed, *(name for name in recorded if name not in scan.mtimes)]
        sql = "SELECT path, size, mtime_ns FROM sessions WHERE root = ? AND workspace IN "
        for start in range(0, len(names), 500):
            chunk = [_to_db(name) for name in names[start : start + 500]]
            rows = conn.execute(sql + f"({', '.join('?' * len(chunk))})", [self._root_db, *chunk])
            known.update({_from_db(path): (size, mtime) for path, size, mtime in rows})
        if scan.clean:
            sql = "SELECT path, size, mtime_ns, workspace FROM sessions WHERE root = ? AND closed = 0"
            open_logs: dict[str, Stat] = {}
            for path, size, mtime, workspace in conn.execute(sql, (self._root_db,)):
                if _from_db(workspace) in scan.clean:
                    open_logs[_from_db(path)] = (size, mtime)
            stat_logs(open_logs, scan.found, warnings)
            known.update(open_logs)
        return known

    def _parse_changed(
        self, changed: list[str], known: dict[str, Stat], warnings: list[str]
    ) -> list[tuple[object, ...]]:
        rows: list[tuple[object, ...]] = []
        started = time.monotonic()
        last_shown = 0.0
        shown = False
        stream = self._progress
        tty = _isatty(stream)
        for number, path in enumerate(changed, start=1):
            now = time.monotonic()
            if tty and now - started >= self._progress_after and now - last_shown >= 0.1:
                stream.write(f"\rdsh: indexing sessions {number}/{len(changed)}")
                stream.flush()
                last_shown, shown = now, True
            row = self._parse_one(path, known, warnings)
            if row is not None:
                rows.append(row)
        if shown:
            stream.write("\r\x1b[K")
            stream.flush()
        return rows

    def _parse_one(self, path: str, known: dict[str, Stat], warnings: list[str]) -> tuple[object, ...] | None:
        folder = Digester()
        try:
            # Never a link, a FIFO or a device. A log of up to a chunk (nearly every one) is read in one
            # call, as far as the stat saw it; a bigger one a chunk at a time, never whole.
            fd, st = open_read_fd(path)
            try:
                if (st.st_size, st.st_mtime_ns) == known.get(path):
                    return None
                if st.st_size <= READ_CHUNK:
                    fh: BinaryIO = io.BytesIO(os.read(fd, st.st_size))
                else:
                    fh = open(fd, "rb", closefd=False)  # the descriptor is closed below
                scan = scan_log(path, fh, folder.add)
            finally:
                os.close(fd)
        except FileNotFoundError:
            return None
        except OSError as exc:
            warnings.append(_problem(path, exc, "cannot read"))
            self._unread.add(path)
            return None
        _add_warnings(warnings, scan.warnings)
        sid = os.path.basename(path)[: -len(LOG_SUFFIX)]
        header_id = scan.header.get("id") if scan.header else None
        if header_id is not None and header_id != sid:
            warnings.append(f"{path}:1: header id {header_id!r} differs from the file name; listed as {sid}")
        d = folder.finish(sid, path, scan.header, st.st_mtime)
        self._typed[d.path] = (d.id, d.typed)
        # Stat taken before the read: if the log grew meanwhile, the next refresh sees a new size.
        row = (
            d.path,
            self._root_key,
            st.st_size,
            st.st_mtime_ns,
            d.id,
            d.cwd,
            d.workspace,
            d.title,
            d.explicit_title,
            d.first_input,
            d.created_at,
            d.updated_at,
            d.event_count,
            d.input_count,
            d.pane_count,
            int(d.closed),
            int(d.archived),
            d.unresumable_reason,
            encode_lines(d.preview),
            d.branch,
            encode_lines(d.agents),
            d.agents[0] if d.agents else None,
            d.auto_title,
            # The row as `dsh sessions --json` writes it, less its label and title (see json_listing).
            *stored_json(d),
            int(d.attached),
            0,
        )
        return _db_row(row)

    # -- queries -----------------------------------------------------------------------------------

    def summaries(self, *, cwd: str | None = None, include_archived: bool = False) -> list[Summary]:
        """Sessions newest first: those of `cwd`'s workspace, or of every workspace when cwd is None."""
        if cwd is None:
            return self._query("root = ?", [self._root_db], include_archived)
        return self.workspace_summaries(workspace_partition(cwd), [cwd], include_archived=include_archived)

    def workspace_summaries(
        self, workspace: str, cwds: Sequence[str], *, include_archived: bool = False
    ) -> list[Summary]:
        """Sessions newest first kept under the partition `workspace` or recorded with one of `cwds`."""
        where, params = self.scope_where(workspace, cwds)
        return self._query(where, params, include_archived)

    def scope_where(self, workspace: str | None, cwds: Sequence[str] = ()) -> tuple[str, list[object]]:
        """The WHERE clause of a listing: every session of the root, or those of one workspace."""
        if workspace is None:
            return "root = ?", [self._root_db]
        # Each arm searches its own index; an OR in one WHERE made SQLite walk every row by time instead.
        arms = ["SELECT rowid FROM sessions WHERE root = ? AND workspace = ?"]
        params: list[object] = [self._root_db, workspace]
        cwds = list(dict.fromkeys(cwds))
        if cwds:
            arms.append(f"SELECT rowid FROM sessions WHERE root = ? AND cwd IN ({', '.join('?' for _ in cwds)})")
            params += [self._root_db, *map(_to_db, cwds)]
        # The arms check the root; the outer query must not, or SQLite walks the root's rows by time again.
        return f"rowid IN ({' UNION '.join(arms)})", params

    def summaries_of(self, session_ids: Sequence[str]) -> list[Summary]:
        """The listed sessions (not archived) with these ids, newest first: the rows of a listing that a
        refresh changed (`changed_paths`), read again without the rest."""
        out: list[Summary] = []
        ids = list(dict.fromkeys(session_ids))
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            where = f"root = ? AND id IN ({', '.join('?' for _ in chunk)})"
            out += self._query(where, [self._root_db, *map(_to_db, chunk)], False)
        # Each chunk comes newest first; ISO-8601 UTC stamps of one format sort as text.
        return sorted(out, key=lambda summary: summary.updated_at, reverse=True) if len(ids) > 500 else out

    def recent(self, limit: int) -> list[Summary]:
        """The newest `limit` sessions of every workspace (one walk of the time index: a few ms at 100k)."""
        return self._query("root = ?", [self._root_db], False, limit=limit)

    def matching(self, terms: Sequence[str], limit: int, *, wide: bool = False) -> list[Summary]:
        """The newest `limit` sessions (not archived) whose title or first line typed hold every term as a
        sub-sequence, ASCII case aside: rows the picker's search may list, found in the index while every
        row is still on its way.

        `wide`: the whole text the picker searches in a row of every workspace instead, as a
        super-sequence of it (`WIDE_TEXT`), so that every row a query can list is among the answer (and
        far more rows where a query's letters are scattered).

        The rows are found by their ids, newest first, then read whole: the titles' own table
        (`title_search`) answers at 100,000 sessions in 16-25 ms, and 15-30 ms `wide`; where it is
        missing, `SEARCH_INDEX` in 55-110 ms, against 145-275 ms reading every wide row."""
        return self.rows_by_id(self.matching_ids(terms, limit, wide=wide))

    def matching_ids(self, terms: Sequence[str], limit: int, *, wide: bool = False) -> list[int]:
        """The row ids of `matching`, newest first: from the titles' own table (`title_search`), or where
        it is missing (a read-only index made before it) with a LIKE over `SEARCH_INDEX`."""
        try:
            return self._retrying(lambda conn: self._titles_matching(conn, terms, limit, wide))
        except sqlite3.Error as exc:
            self._pending.append(f"{self.db_path}: session index cannot be read: {exc}")
            return []

    def _titles_matching(self, conn: sqlite3.Connection, terms: Sequence[str], limit: int, wide: bool) -> list[int]:
        if title_search.present(conn):
            return title_search.matching_ids(conn, self._root_db, terms, limit, wide=wide)
        text = WIDE_TEXT if wide else "(title || ' ' || coalesce(first_input, ''))"
        where = " AND ".join(["root = ?", "archived = 0", *(f"{text} LIKE ? ESCAPE '\\'" for _ in terms)])
        sql = f"SELECT rowid FROM sessions WHERE {where} ORDER BY updated_at DESC, mtime_ns DESC, id DESC"
        sql += f" LIMIT {int(limit)}"
        return [int(row[0]) for row in conn.execute(sql, [self._root_db, *map(like_subsequence, terms)])]

    def rows_by_id(self, ids: Sequence[int]) -> list[Summary]:
        """The sessions (not archived) of these row ids, newest first."""
        if not ids:
            return []
        return self._query(f"rowid IN ({', '.join(str(int(i)) for i in ids)})", [], False)

    def archived(self) -> list[Summary]:
        """Every archived session, newest first."""
        return self._query("root = ? AND archived = 1", [self._root_db], True)

    def count(self, *, include_archived: bool = False) -> int:
        """How many sessions `summaries(cwd=None)` would list, without listing them."""
        sql = "SELECT count(*) FROM sessions WHERE root = ?" + ("" if include_archived else " AND archived = 0")
        try:
            rows = self._retrying(lambda conn: conn.execute(sql, (self._root_db,)).fetchall())
        except sqlite3.Error as exc:
            self._pending.append(f"{self.db_path}: session index cannot be read: {exc}")
            return 0
        return int(rows[0][0])

    def warnings(self) -> list[str]:
        """Problems met by queries since the last call (a query answers [] rather than raise)."""
        out, self._pending = self._pending, []
        return out

    def _query(
        self, where: str, params: list[object], include_archived: bool, limit: int | None = None
    ) -> list[Summary]:
        sql = _SELECT + " WHERE " + where
        if not include_archived:
            sql += " AND archived = 0"
        sql += " ORDER BY updated_at DESC, mtime_ns DESC, id DESC"
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        try:
            rows = self._retrying(lambda conn: self._fetch(conn.execute(sql, params)))
        except sqlite3.Error as exc:
            self._pending.append(f"{self.db_path}: session index cannot be read: {exc}")
            return []
        out = _summaries(rows)
        release(rows)
        return out

    # Called between slices of a long read, when set: a background listing lets a query that someone
    # waits on go first (the picker's search as keys are typed, see dsh.resume.candidates.give_way).
    give_way: Callable[[], None] | None = None

    def _fetch(self, cursor: sqlite3.Cursor) -> list[tuple[Any, ...]]:
        pause = self.give_way
        if pause is None:
            return cursor.fetchall()
        rows: list[tuple[Any, ...]] = []
        while batch := cursor.fetchmany(_FETCH_SLICE):
            rows += batch
            pause()
        return rows

    def get(self, session_id: str) -> Summary | None:
        """The session with this id (the newest, if copies of it sit in two workspaces), or None.

        Raises InvalidSessionId for a malformed id: ids are checked on every read path.
        """
        validate_session_id(session_id)
        sql = _SELECT + " WHERE root = ? AND id = ? ORDER BY updated_at DESC LIMIT 1"
        try:
            rows = self._retrying(lambda conn: conn.execute(sql, (self._root_db, session_id)).fetchall())
        except sqlite3.Error as exc:
            self._pending.append(f"{self.db_path}: session index cannot be read: {exc}")
            return None
        return _summary(rows[0]) if rows else None


# A super-sequence of a picker row's searched text (`search_texts`: title · first line · id · workspace
# label), each part in order with what it may fall back to: the title to the first line or `untitled`,
# the label to the cwd with `~` for the home folder or `(no workspace)`.
WIDE_TEXT = title_search.wide_text()


def like_subsequence(term: str) -> str:
    """A LIKE pattern (escape character `\\`) that holds where `term`'s characters occur in order."""
    return "%" + "%".join("\\" + ch if ch in "%_\\" else ch for ch in term) + "%"


def summary_at(conn: sqlite3.Connection, path: str) -> Summary | None:
    """The listed session whose log is at `path` (for a listing that needs one row in full)."""
    rows = conn.execute(_SELECT + " WHERE path = ?", (_to_db(path),)).fetchall()
    return _summaries(rows)[0] if rows else None


def _summaries(rows: list[tuple[Any, ...]]) -> list[Summary]:
    """Rows of `_SELECT` as Summaries. The hot loop of every listing: 100k rows must take well under 0.1 s."""
    home = home_dir()
    labels: dict[str | None, str] = {None: NO_WORKSPACE, "": NO_WORKSPACE}
    out: list[Summary] = []
    add = out.append
    make = Summary
    lines = decode_lines
    for row in rows:
        if row[-2]:  # raw: some text was not UTF-8 and is stored as its bytes
            row = tuple(map(_from_db, row))
        (
            sid,
            cwd,
            workspace,
            title,
            explicit_title,
            first_input,
            created_at,
            updated_at,
            event_count,
            input_count,
            pane_count,
            closed,
            archived,
            reason,
            preview,
            branch,
            agents,
            attached,
            _raw,
            path,
        ) = row
        label = labels.get(cwd)
        if label is None:
            label = labels[cwd] = workspace_label(cwd, home)
        # Liveness is never cached: a closed log is not live; any other is asked of its lock right now.
        pid = None if closed else live_pid(Path(path))
        add(
            make(
                sid,
                path,
                cwd,
                workspace,
                label,
                title,
                explicit_title,
                first_input,
                created_at,
                updated_at,
                event_count,
                input_count,
                pane_count,
                pid,
                bool(archived),
                reason,
                lines(preview),
                session_state(pid, bool(closed), bool(attached)),
                branch,
                lines(agents),
            )
        )
    return out


def release(items: list[Any]) -> None:
    """Empty a big list a slice at a time. Freeing 100k rows at once is one C call that holds the GIL
    for tens of ms; between slices a thread waiting for it (the event loop, during a background
    listing) gets its turn."""
    while items:
        del items[-_RELEASE_SLICE:]


_RELEASE_SLICE = 5000
_FETCH_SLICE = 500


def _summary(row: tuple[Any, ...]) -> Summary:
    return _summaries([row])[0]


def _to_db(value: str) -> str | bytes:
    """Text as SQLite takes it: itself when it is UTF-8, else its bytes (lone surrogates kept exactly)."""
    if value.isascii():
        return value
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return value.encode("utf-8", "surrogatepass")
    return value


def _from_db(value: str | bytes) -> str:
    """The inverse of _to_db: a text column's value as it was written (str or, when not UTF-8, bytes)."""
    return value.decode("utf-8", "surrogatepass") if isinstance(value, bytes) else value


def _db_row(row: tuple[object, ...]) -> tuple[object, ...]:
    """A row to store; when any text in it is not UTF-8, that text goes as bytes and `raw` (last) is 1."""
    if all(type(v) is not str or v.isascii() for v in row):
        return row
    out = [_to_db(v) if type(v) is str else v for v in row]
    if any(type(v) is bytes for v in out):
        out[-1] = 1
    return tuple(out)


def _stats_at(conn: sqlite3.Connection, paths: Sequence[str]) -> dict[str, Stat]:
    """(size, mtime) as indexed of the logs at `paths` that the index holds."""
    out: dict[str, Stat] = {}
    for start in range(0, len(paths), 500):
        chunk = [_to_db(p) for p in paths[start : start + 500]]
        sql = f"SELECT path, size, mtime_ns FROM sessions WHERE path IN ({', '.join('?' * len(chunk))})"
        out.update({_from_db(path): (size, mtime) for path, size, mtime in conn.execute(sql, chunk)})
    return out


def _input_counts(conn: sqlite3.Connection, paths: Sequence[str]) -> dict[str, tuple[str, int]]:
    """(id, lines typed) of logs as the index knew them before this refresh."""
    out: dict[str, tuple[str, int]] = {}
    for start in range(0, len(paths), 500):
        chunk = [_to_db(p) for p in paths[start : start + 500]]
        sql = f"SELECT path, id, input_count FROM sessions WHERE path IN ({', '.join('?' * len(chunk))})"
        out.update({_from_db(path): (_from_db(sid), count) for path, sid, count in conn.execute(sql, chunk)})
    return out


def _index_typed_lines(
    conn: sqlite3.Connection,
    typed: dict[str, tuple[str, tuple[tuple[int, str], ...]]],
    before: dict[str, tuple[str, int]],
) -> None:
    """Put the lines typed in changed logs into the transcript search. Logs are appended to, so a log that
    grew only adds the lines typed since (by their ordinal); any other change replaces them. Every line
    goes in with one statement, a row for each log's new lines (see textsearch)."""
    replaced: list[str] = []
    batches: list[tuple[str, Iterable[str]]] = []
    for path, (sid, typed_lines) in typed.items():
        owner = textsearch.session_owner(sid)
        old = before.get(path)
        if old is not None and old[0] == sid and (not typed_lines or old[1] <= typed_lines[-1][0] + 1):
            batches.append((owner, [text for n, text in typed_lines if n >= old[1]]))
        else:
            replaced.append(owner)
            batches.append((owner, [text for _, text in typed_lines]))
    for owner in textsearch.owners_with_lines(conn, replaced):
        textsearch.remove_owner(conn, owner)
    textsearch.add_owned_lines(conn, batches)


def apply_agent_titles(
    conn: sqlite3.Connection, *, paths: Sequence[str] | None = None, keys: Sequence[str] | None = None
) -> None:
    """Title sessions with an agent after its conversation (rename, summary or first prompt) unless renamed
    themselves; the first line typed worth a title otherwise. For the sessions at `paths`, or those whose
    agent is one of `keys` (after the agent stores were read)."""
    sql = (
        "UPDATE sessions SET title = COALESCE(explicit_title,"
        " (SELECT a.title FROM agent_conversations a WHERE a.key = sessions.agent_key"
        "  ORDER BY a.updated_at DESC LIMIT 1), auto_title, 'untitled')"
        " WHERE agent_key IS NOT NULL AND "
    )
    column, values = ("path", [_to_db(p) for p in paths]) if paths is not None else ("agent_key", list(keys or []))
    for start in range(0, len(values), 500):
        chunk = values[start : start + 500]
        conn.execute(sql + f"{column} IN ({', '.join('?' * len(chunk))})", chunk)


def _prepare_db_file(db_path: Path) -> None:
    """Make sure SQLite opens a regular file of ours, created 0600 (its -wal and -shm files take that
    mode from it): never a link (its target would be chmod-ed, its tables dropped), never a FIFO."""
    os.close(open_append(db_path))  # creates it 0600, or checks and tightens the one there
    for suffix in ("-wal", "-shm", "-journal"):
        refuse_special(f"{db_path}{suffix}")


def _problem(path: object, exc: OSError, doing: str = "") -> str:
    if isinstance(exc, UnsafePathError):
        return str(exc)
    what = f"{doing}: " if doing else ""
    return f"{path}: {what}{exc.strerror or exc}"


def _unreadable(db_path: Path, exc: Exception) -> str:
    return f"{db_path}: session index unreadable ({exc}); rebuilding it from the logs"


def _add_warnings(into: list[str], found: list[str]) -> None:
    into.extend(found[:WARNINGS_PER_FILE])
    if len(found) > WARNINGS_PER_FILE:
        into.append(f"… and {len(found) - WARNINGS_PER_FILE} more problems in the same log")


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


@contextlib.contextmanager
def _write(conn: sqlite3.Connection) -> Iterator[None]:
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield
        conn.execute("COMMIT")
    except BaseException:
        # After some errors (a full disk, an I/O error, a statement SQLite gave up on) SQLite has rolled the
        # transaction back itself: our ROLLBACK then failed with "cannot rollback - no transaction is
        # active", and that was the error everyone saw instead of the cause.
        if conn.in_transaction:
            with contextlib.suppress(sqlite3.Error):
                conn.execute("ROLLBACK")
        raise


__all__ = ["SCHEMA_VERSION", "InvalidSessionId", "SessionIndex", "Summary", "release"]
