"""What a recheck of a saved agent's conversation read, so that a listing can tell with stats alone
whether the answer it gave still holds.

A saved agent pane is RESUMABLE only while its transcript holds a conversation (resumable.recheck). That
answer comes from one of two places: the transcript the snapshot names, when it is still a file (its
content decides), or a search of the agent's store for the session's transcript (which files the
store's folders hold decide, then the content of the one found). So it holds, without reading anything
again, while
- each transcript read is the same file, unchanged: (size, mtime_ns, inode) by one stat;
- a transcript named but not there is still not there: one stat;
- the store searched is the same folder, and none of the folders a search lists has changed (a
  transcript created, removed or renamed changes its folder's mtime; an append does not, and appends
  are covered by the file's own stat). Those folders are statted once per listing, not per pane.
A folder that changed less than RACY_NS before it was statted could change again within the same
timestamp tick, so such a stamp is None and never matches (as the session index treats folders).
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Mapping, Sequence
from stat import S_ISREG
from typing import TYPE_CHECKING, Any

from dsh.store.scan import RACY_NS

if TYPE_CHECKING:  # the adapters (and dataclasses with them) are not on a listing's path with no agent
    from dsh.agents.base import AgentAdapter

# One thing a recheck read, as JSON: ["file", path, [size, mtime_ns, inode] or None when it was not a
# regular file], or ["store", kind, the agent's saved environment, the store's home, its stamp or None].
Check = list[Any]


def file_key(path: str) -> list[int] | None:
    """(size, mtime_ns, inode) of the regular file at `path` (links followed, as os.path.isfile does)."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return [st.st_size, st.st_mtime_ns, st.st_ino] if S_ISREG(st.st_mode) else None


class StoreStamps:
    """Each agent store's stamp (the mtimes of the folders its transcript search lists), taken at most
    once per listing: a thousand project folders are a thousand stats, not a thousand per pane."""

    def __init__(self) -> None:
        self._stamps: dict[tuple[str, str], str | None] = {}
        self._current: dict[tuple[str, tuple[tuple[str, str], ...]], tuple[str, str | None] | None] = {}

    def stamp(self, adapter: AgentAdapter, env: Mapping[str, str]) -> str | None:
        key = (adapter.kind, str(adapter.home(env)))
        if key not in self._stamps:
            self._stamps[key] = _stamp(adapter.transcript_folders(env))
        return self._stamps[key]

    def current(self, kind: str, saved_env: Mapping[str, str]) -> tuple[str, str | None] | None:
        """(home, stamp) of the store a recheck of this kind of agent, saved with this environment, would
        search now; None for a kind this dsh does not know. Copying os.environ for each of a thousand
        panes was a fifth of a second."""
        key = (kind, tuple(sorted(saved_env.items())))
        if key not in self._current:
            from dsh.agents.registry import adapter_by_kind

            adapter = adapter_by_kind(kind)
            env = {**os.environ, **saved_env}
            self._current[key] = None if adapter is None else (str(adapter.home(env)), self.stamp(adapter, env))
        return self._current[key]


def _stamp(folders: Sequence[os.PathLike[str] | str]) -> str | None:
    import hashlib  # OpenSSL, 3 ms of a start: only a listing with an agent pane stamps a store

    started = time.time_ns()
    digest = hashlib.blake2b(digest_size=16)
    for folder in folders:
        try:
            mtime = os.stat(folder).st_mtime_ns
        except (OSError, ValueError):
            mtime = -1  # absent: its creation changes the stamp
        if mtime + RACY_NS > started:
            return None
        digest.update(f"{os.fspath(folder)}\0{mtime}\n".encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


class RecheckReads:
    """The checks of one agent pane's recheck (`conversation_state` appends them as it reads)."""

    def __init__(self, stamps: StoreStamps, saved_env: Mapping[str, str]) -> None:
        self.checks: list[Check] = []
        self._stamps = stamps
        self._saved_env = dict(saved_env)

    def file(self, path: str) -> list[int] | None:
        """Stat a transcript before it is read (a change after the stat gives a new key next time)."""
        key = file_key(path)
        self.checks.append(["file", path, key])
        return key

    def store(self, adapter: AgentAdapter, env: Mapping[str, str]) -> None:
        """Stamp the store before it is searched."""
        stamp = self._stamps.stamp(adapter, env)
        self.checks.append(["store", adapter.kind, self._saved_env, str(adapter.home(env)), stamp])


def still_hold(checks: Sequence[Check], stamps: StoreStamps) -> bool:
    """Whether a recheck that made these checks would read the same things now."""
    for check in checks:
        if check[0] == "file":
            if file_key(check[1]) != check[2]:
                return False
        elif check[0] == "store":
            if check[4] is None or stamps.current(check[1], check[2]) != (check[3], check[4]):
                return False
        else:
            return False
    return True


# The checks of most agent panes, as json.dumps writes them: one transcript, named by a path of printable
# ASCII but `"` and `\`, which JSON writes as they are (a class of every character JSON escapes took
# 4.5 ms to compile). Matched and compared as text, as decoding 10,000 of them was 40-50 ms of a listing.
_ONE_FILE = re.compile(r'\[\["file", "([ !#-\[\]-~]*)", (\[\d+, \d+, \d+\]|null)\]\]', re.ASCII)


def checks_hold(text: str, stamps: StoreStamps) -> bool:
    """still_hold for checks kept as JSON text (json.dumps's); False for text that is not such checks."""
    one = _ONE_FILE.fullmatch(text)
    if one is not None:
        key = file_key(one[1])
        return (f"[{key[0]}, {key[1]}, {key[2]}]" if key is not None else "null") == one[2]
    try:
        return still_hold(json.loads(text), stamps)
    except (ValueError, TypeError, LookupError):
        return False  # damaged: worked out again from the files, and kept anew
