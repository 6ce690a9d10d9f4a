"""The store as the app uses it: the one session root, its index, new sessions, and finding a log by id."""

from __future__ import annotations

from pathlib import Path

from dsh.config import Config, session_root
from dsh.home import check_home, dsh_home, dsh_home_path
from dsh.safefile import nearest_existing
from dsh.store.ids import validate_session_id
from dsh.store.log import LOG_SUFFIX, SessionLog

TYPE_CHECKING = False
if TYPE_CHECKING:
    from dsh.store.index import SessionIndex
    from dsh.store.summary import Summary

INDEX_NAME = "session-query.db"
LEGACY_DIR = ".sessions"


class Store:
    """Sessions under `session_root(config)`, indexed in `$DSH_HOME/session-query.db`."""

    def __init__(self, config: Config, *, index_path: Path | None = None) -> None:
        self.config = config
        self.root = session_root(config)
        self._index_path = index_path or dsh_home_path(INDEX_NAME)
        self._index: SessionIndex | None = None
        # Warnings met by refreshes (a bad log line, a rebuilt index); callers show them as they see fit.
        self.warnings: list[str] = []

    @property
    def index(self) -> SessionIndex:
        """The SQLite index, opened on first use: a new session's host has no use for it (nor for the
        sqlite3 module and the listing code) before its first frame."""
        if self._index is None:
            from dsh.store.index import SessionIndex

            self._index = SessionIndex(self._index_path, self.root)
        return self._index

    def refresh(self) -> list[str]:
        # A listing does not wait for the transcript search's indexing; the app's workers do it.
        found = self.index.refresh(sync_search=False)
        self.warnings.extend(found)
        return found

    def create_session(self, cwd: str) -> SessionLog:
        home = dsh_home()
        # Folders are made from the home down when the root is in it, so none of them is a link.
        base = home if self.root == home or home in self.root.parents else nearest_existing(self.root)
        return SessionLog.create(self.root, cwd, base=base)

    def summaries(self, *, cwd: str | None = None, include_archived: bool = False) -> list[Summary]:
        """Refresh, then list: `cwd`'s workspace, or every workspace when cwd is None; newest first."""
        self.refresh()
        return self.index.summaries(cwd=cwd, include_archived=include_archived)

    def get(self, session_id: str) -> Summary | None:
        self.refresh()
        return self.index.get(session_id)

    def find_log(self, session_id: str, launch_dir: str | Path | None = None) -> Path | None:
        """The log of `session_id`: the shared root first, then the launch dir's legacy `.sessions/`.

        Raises InvalidSessionId for a malformed id, so a typed id never becomes a path.
        """
        validate_session_id(session_id)
        name = session_id + LOG_SUFFIX
        known = self.index.get(session_id)
        if known is not None and Path(known.path).is_file():
            return Path(known.path)
        candidates: list[Path] = []
        if self.root.is_dir():
            candidates.extend(sorted(self.root.glob(f"*/{name}")))
        if launch_dir is not None:
            legacy = Path(launch_dir) / LEGACY_DIR
            candidates.append(legacy / name)
            if legacy.is_dir():
                candidates.extend(sorted(legacy.glob(f"*/{name}")))
        for path in candidates:
            if path.is_file():
                return path
        return None

    def close(self) -> None:
        if self._index is not None:
            self._index.close()


def open_store(config: Config) -> Store:
    """The store a front end uses, once the home and the session root are checked: HomeError (one line
    naming the folder and the command that fixes it) when another user could write either."""
    store = Store(config)
    check_home(store.root)
    return store
