"""Bringing the index's agent conversations up to date with the agents' stores, incrementally.

A transcript is read on from where the last refresh stopped (they are appended to); one that shrank is
read again from the start. A refresh reads at most `budget` bytes and says whether more is left, so a
first look at a big store never holds anything up: the caller shows what is there and calls again. A
store that is missing is not installed (nothing to say); one that cannot be read, or holds files in a
format this dsh does not know, is one warning line.
"""

from __future__ import annotations

import os
import re
import shutil
import sqlite3
import zlib
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from stat import S_ISREG

from dsh.agents.base import UUID_RE, uuid_like
from dsh.agents.conversations import claude as claude_reader
from dsh.agents.conversations import codex as codex_reader
from dsh.agents.conversations.model import TITLE_MAX, Fold, one_line
from dsh.agents.opencode import OpencodeAdapter, _epoch
from dsh.agents.opencode_store import OpencodeSession, read_sessions
from dsh.safefile import open_foreign
from dsh.store import agent_table, index_changes, textsearch
from dsh.store.agent_table import MARK_BYTES, ConversationRow
from dsh.store.index import SessionIndex, apply_agent_titles
from dsh.store.timefmt import iso_from_epoch

CHUNK_BYTES = 32 * 1024 * 1024  # of one transcript per refresh
BUDGET_BYTES = 128 * 1024 * 1024  # of all transcripts per refresh
_ROWS_AT_ONCE = 500
SOURCES = ("claude", "codex", "opencode")
_UNNAMED = re.compile(r"New session - \d{4}-\d\d-\d\dT[\d:.]+Z")


@dataclass(frozen=True)
class Source:
    """One agent store to list: `name` is also the agent's kind and its config switch."""

    name: str
    home: Path

    @property
    def key(self) -> str:
        """What the index files its rows under: one store of one agent (two homes are two stores)."""
        return f"{self.name}:{self.home}"


def sources(enabled: Mapping[str, object], env: Mapping[str, str]) -> list[Source]:
    """The stores to read, where the environment puts them; a source switched off in config is left out."""
    from dsh.agents.registry import adapter_by_kind

    out: list[Source] = []
    for name in SOURCES:
        if enabled.get(name, True) is False:
            continue
        adapter = adapter_by_kind(name)
        if adapter is not None:
            out.append(Source(name, adapter.home(env)))
    return out


@dataclass
class AgentRefresh:
    warnings: list[str] = field(default_factory=list)
    changed: bool = False
    more: bool = False  # the budget ran out before every store was read: call again


@dataclass
class _Parsed:
    row: ConversationRow
    prompts: list[str]
    replace: bool
    ino: int = 0
    mark: int = 0


# -- scanning ---------------------------------------------------------------------------------------------

# The files each store's conversations are in: Claude's `<uuid>.jsonl`, Codex's `rollout-*.jsonl`.
_CLAUDE_FILE = re.compile(UUID_RE.pattern + r"\.jsonl")
_CODEX_FILE = re.compile(r"rollout-.*\.jsonl", re.DOTALL)


def _scan(
    folders: Iterator[str], keep: re.Pattern[str], warnings: list[str], what: str
) -> dict[str, tuple[int, int, int]]:
    """(size, mtime_ns, inode) of every regular file in `folders` whose whole name `keep` matches (a pattern,
    not a function: this runs for each of a store's files at every listing)."""
    found: dict[str, tuple[int, int, int]] = {}
    wanted = keep.fullmatch
    for folder in folders:
        try:
            entries = list(os.scandir(folder))
        except FileNotFoundError:
            continue
        except OSError as exc:
            warnings.append(f"{what}: cannot read {folder}: {exc.strerror or exc}")
            continue
        for entry in entries:
            if wanted(entry.name) is None:
                continue
            try:
                st = entry.stat()
            except OSError:
                continue
            if S_ISREG(st.st_mode):
                found[entry.path] = (st.st_size, st.st_mtime_ns, st.st_ino)
    return found


def _subfolders(folder: str, warnings: list[str], what: str) -> list[str]:
    try:
        return [entry.path for entry in os.scandir(folder) if entry.is_dir()]
    except FileNotFoundError:
        return []
    except OSError as exc:
        warnings.append(f"{what}: cannot read {folder}: {exc.strerror or exc}")
        return []


def claude_files(home: Path, warnings: list[str]) -> dict[str, tuple[int, int, int]]:
    projects = str(home / "projects")
    return _scan(
        iter(_subfolders(projects, warnings, "claude")),
        _CLAUDE_FILE,
        warnings,
        "claude",
    )


def codex_files(home: Path, warnings: list[str]) -> dict[str, tuple[int, int, int]]:
    days: list[str] = []
    for year in _subfolders(str(home / "sessions"), warnings, "codex"):
        for month in _subfolders(year, warnings, "codex"):
            days += _subfolders(month, warnings, "codex")
    return _scan(iter(days), _CODEX_FILE, warnings, "codex")


def _codex_id(path: str) -> str | None:
    from dsh.agents.codex import _ROLLOUT

    found = _ROLLOUT.fullmatch(os.path.basename(path))
    return found[1] if found else None


def _claude_id(path: str) -> str | None:
    stem = os.path.basename(path)[: -len(".jsonl")]
    return stem if uuid_like(stem) else None


# -- reading ----------------------------------------------------------------------------------------------


def _read_chunk(path: str, start: int, size: int, mark: int | None = None) -> tuple[bytes, int, int] | None:
    """Complete lines from `start` (at most CHUNK_BYTES), where they end, and the mark there (the CRC-32 of
    the MARK_BYTES before it). With `mark`, the bytes before `start` must still give it, or the file was
    rewritten since (not appended to) and None is returned for the caller to read it from the start."""
    back = max(0, start - MARK_BYTES) if mark is not None else start
    try:
        with open_foreign(path) as handle:  # never blocks on a FIFO; only a regular file is read
            handle.seek(back)
            before = handle.read(start - back)
            if mark is not None and zlib.crc32(before) != mark:
                return None
            data = handle.read(min(CHUNK_BYTES, max(0, size - start)))
    except OSError:
        return None
    end = data.rfind(b"\n")
    if end < 0:
        # No complete line yet (a line being written), or one line longer than a chunk: skip past it only
        # when the chunk is full, so a torn last line is read again once it is whole.
        data = b"" if len(data) < CHUNK_BYTES else data
    else:
        data = data[: end + 1]
    tail = (before + data)[-MARK_BYTES:]
    return data if end >= 0 else b"", start + len(data), zlib.crc32(tail)


def _parse_file(
    source: Source,
    path: str,
    stat: tuple[int, int, int],
    old: ConversationRow | None,
    names: Mapping[str, str],
    seen: tuple[int, int] | None = None,
) -> tuple[_Parsed | None, int, bool]:
    """(what to store, bytes read, whether the file was in a known format). `seen` is the (inode, mark)
    the old row was read from: a transcript is read on from where it stopped only when it is the same
    file, grown, and the bytes before that point are the ones read (an append); else from the start."""
    size, mtime_ns, ino = stat
    session_id = _claude_id(path) if source.name == "claude" else _codex_id(path)
    if session_id is None:
        return None, 0, True
    resume = (
        old is not None
        and old.id == session_id
        and size >= old.parsed_to
        and seen is not None
        and seen[0] == ino
        and old.parsed_to > 0
    )
    chunk = _read_chunk(path, old.parsed_to, size, seen[1]) if resume and old and seen else None
    if chunk is None:
        resume = False  # new, rewritten or replaced: read it whole
        chunk = _read_chunk(path, 0, size)
    if chunk is None:
        return None, 0, True
    start = old.parsed_to if resume and old is not None else 0
    fold = Fold.from_row(old) if resume and old is not None else Fold(source.name, session_id)
    data, parsed_to, mark = chunk
    lines = data.splitlines()
    if source.name == "claude":
        prompts, known = claude_reader.read_lines(fold, lines)
        known = known or not lines or start > 0
    else:
        known = True
        if start == 0:
            if not lines:
                return None, 0, True  # the first line is still being written
            known = codex_reader.read_meta(fold, lines[0])
            lines = lines[1:]
        prompts = codex_reader.read_lines(fold, lines) if known else []
        fold.custom_title = names.get(session_id, fold.custom_title)
    if not known:
        return None, len(data), False
    done = parsed_to >= size
    # A file read only part way is stored with a size it does not have, so the next refresh goes on.
    row = fold.to_row(
        path=path,
        source=source.key,
        size=size if done else parsed_to,
        mtime_ns=mtime_ns,
        parsed_to=parsed_to,
        home=str(source.home),
    )
    return _Parsed(row, prompts, replace=start == 0, ino=ino, mark=mark), len(data), True


def _known_files(index: SessionIndex, source: Source, keys: Collection[str]) -> dict[str, tuple[int, int, int]] | None:
    """(size, mtime_ns, inode) of the transcripts of `keys` this store's rows were read from, statted
    one by one; None when a key of this agent has no row yet (its file must be looked for)."""
    mine = [key for key in keys if key.partition(":")[0] == source.name]
    rows = index.read(lambda conn: agent_table.by_keys(conn, mine))
    if len(rows) < len(set(mine)):
        return None
    files: dict[str, tuple[int, int, int]] = {}
    for row in rows.values():
        if row.source != source.key:
            continue
        try:
            st = os.stat(row.path, follow_symlinks=False)
        except OSError:
            continue
        if S_ISREG(st.st_mode):
            files[row.path] = (st.st_size, st.st_mtime_ns, st.st_ino)
    return files


def _file_source(
    index: SessionIndex, source: Source, budget: int, result: AgentRefresh, keys: Collection[str] | None = None
) -> int:
    """Refresh one file-backed store (with `keys`, only the transcripts of those conversations, where the
    index knows them all); returns the bytes read."""
    warnings: list[str] = []
    files = _known_files(index, source, keys) if keys is not None else None
    only = files is not None
    if files is None:
        files = (claude_files if source.name == "claude" else codex_files)(source.home, warnings)
    result.warnings += warnings[:1]
    names: dict[str, str] = {}
    names_stamp = None
    if source.name == "codex":
        names_stamp = _stamp([source.home / "session_index.jsonl"])

    def load(conn: sqlite3.Connection) -> tuple[dict[str, tuple[int, int, int]], str | None]:
        # Only (size, mtime, inode) of every row: whole rows are read for the few files that changed.
        return agent_table.known(conn, source.key), agent_table.stamp(conn, f"{source.key}:names")

    known, old_names_stamp = index.read(load)
    names_changed = names_stamp is not None and names_stamp != old_names_stamp
    changed = [p for p, stat in files.items() if known.get(p) != stat]
    removed = [] if only else [p for p in known if p not in files]
    if not changed and not removed and not names_changed:
        return 0
    if names_stamp is not None:
        names = codex_reader.thread_names(source.home)
    changed.sort(key=lambda p: files[p][1], reverse=True)  # newest first
    olds = index.read(lambda conn: agent_table.rows_at(conn, [*changed[:_ROWS_AT_ONCE], *removed]))
    seen = index.read(lambda conn: agent_table.marks(conn, changed[:_ROWS_AT_ONCE]))
    parsed: list[_Parsed] = []
    spent, unknown = 0, 0
    for n, path in enumerate(changed):
        if spent >= budget:
            result.more = True
            break
        if n and n % _ROWS_AT_ONCE == 0:
            batch = changed[n : n + _ROWS_AT_ONCE]
            olds.update(index.read(partial(agent_table.rows_at, paths=batch)))
            seen.update(index.read(partial(agent_table.marks, paths=batch)))
        found, read, recognized = _parse_file(source, path, files[path], olds.get(path), names, seen.get(path))
        spent += read
        unknown += not recognized
        if found is not None:
            parsed.append(found)
    if unknown:
        where = source.home / ("projects" if source.name == "claude" else "sessions")
        result.warnings.append(
            f"{source.name}: {unknown} file{'s' if unknown != 1 else ''} in a format this dsh does not know,"
            f" skipped ({where})"
        )
    if not parsed and not removed and not names_changed:
        return spent

    def write(conn: sqlite3.Connection) -> None:
        agent_table.upsert(conn, [p.row for p in parsed])
        agent_table.set_marks(conn, [(p.row.path, p.ino, p.mark) for p in parsed])
        for p in parsed:
            owner = textsearch.agent_owner(p.row.kind, p.row.id)
            (textsearch.replace_lines if p.replace else textsearch.add_lines)(conn, owner, p.prompts)
        gone = [olds[p] for p in removed if p in olds]
        agent_table.delete(conn, removed)
        for row in gone:
            textsearch.remove_owner(conn, textsearch.agent_owner(row.kind, row.id))
        keys = [p.row.key for p in parsed]
        if names_changed and names_stamp is not None:
            for session_id, name in names.items():
                conn.execute(
                    "UPDATE agent_conversations SET custom_title = ?, title = ? WHERE key = ?",
                    (name, name, f"codex:{session_id}"),
                )
                keys.append(f"codex:{session_id}")
            agent_table.set_stamp(conn, f"{source.key}:names", names_stamp)
        apply_agent_titles(conn, keys=keys)
        index_changes.record(conn, [], agents=True)

    index.write(write)
    result.changed = True
    return spent


def _stamp(paths: Sequence[Path]) -> str:
    parts = []
    for path in paths:
        try:
            st = path.stat()
            parts.append(f"{st.st_size}:{st.st_mtime_ns}")
        except OSError:
            parts.append("-")
    return ",".join(parts)


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _opencode_source(
    index: SessionIndex,
    source: Source,
    cwds: Sequence[str],
    env: Mapping[str, str],
    result: AgentRefresh,
    lister: Callable[[str], list[dict[str, object]] | None] | None,
) -> None:
    """opencode keeps SQLite: read its database (every project's sessions, with counts and first prompts)
    when its files changed since the last read; where it cannot be read here, ask `opencode session
    list` in each folder given (it lists only the project it runs in)."""
    # An empty write-ahead log is as good as none: a reader (this one too) leaves one behind.
    wal = source.home / "opencode.db-wal"
    stamp = _stamp([source.home / "opencode.db", *([wal] if _size(wal) else [])]) + "|" + "|".join(cwds)
    if index.read(lambda conn: agent_table.stamp(conn, source.key)) == stamp:
        return
    stored = read_sessions(source.home, details=True)
    if stored is not None:
        found = {s.id: _opencode_row(source, s) for s in stored if OpencodeAdapter().valid_session_id(s.id)}
    else:
        listed = _opencode_listed(source, cwds, env, result, lister)
        if listed is None:
            return
        found = listed

    def write(conn: sqlite3.Connection) -> None:
        old = [row.path for row in agent_table.conversations(conn, sources=[source.key])]
        agent_table.delete(conn, [p for p in old if p.removeprefix("opencode:") not in found])
        agent_table.upsert(conn, found.values())
        agent_table.set_stamp(conn, source.key, stamp)
        apply_agent_titles(conn, keys=[row.key for row in found.values()])
        index_changes.record(conn, [], agents=True)

    index.write(write)
    result.changed = True


def _opencode_row(source: Source, found: OpencodeSession) -> ConversationRow:
    fold = Fold("opencode", found.id, cwd=found.directory)
    if found.first_prompt:
        fold.first_prompt = one_line(found.first_prompt, TITLE_MAX)
    # "New session - <time>" stands until a model names the session: the first prompt says more.
    named = found.title.strip() and not (fold.first_prompt and _UNNAMED.fullmatch(found.title.strip()))
    fold.summary = one_line(found.title, TITLE_MAX) if named else None
    fold.message_count = found.messages
    fold.created_at = iso_from_epoch(found.created)
    fold.updated_at = iso_from_epoch(found.updated)
    return fold.to_row(
        path=f"opencode:{found.id}",
        source=source.key,
        size=0,
        mtime_ns=int(found.updated * 1e9),
        parsed_to=0,
        home=str(source.home),
    )


def _opencode_listed(
    source: Source,
    cwds: Sequence[str],
    env: Mapping[str, str],
    result: AgentRefresh,
    lister: Callable[[str], list[dict[str, object]] | None] | None,
) -> dict[str, ConversationRow] | None:
    """The sessions `opencode session list` gives in each folder of `cwds` and HOME; None when it cannot
    be asked (not installed: nothing to say) or gives no list (one warning)."""

    adapter = OpencodeAdapter()
    if lister is None:
        if not source.home.is_dir() or shutil.which(adapter.binary, path=env.get("PATH")) is None:
            return None  # not installed (its store may outlive it): nothing to list, nothing to say

        def lister(cwd: str) -> list[dict[str, object]] | None:
            return adapter.list_sessions_or_none(cwd, env, timeout=15.0)

    found: dict[str, ConversationRow] = {}
    for folder in dict.fromkeys([*cwds, env.get("HOME") or str(Path.home())]):
        listed = lister(folder)
        if listed is None:
            result.warnings.append("opencode: `opencode session list` gave no list; its conversations are not shown")
            return None
        for item in listed:
            session_id, directory, title = item.get("id"), item.get("directory"), item.get("title")
            if not adapter.valid_session_id(session_id) or not isinstance(directory, str):
                continue
            assert isinstance(session_id, str)
            created, updated = _epoch(item.get("created")), _epoch(item.get("updated"))
            fold = Fold("opencode", session_id, cwd=directory)
            fold.summary = one_line(title, TITLE_MAX) if isinstance(title, str) and title.strip() else None
            fold.created_at = iso_from_epoch(created) if created is not None else None
            fold.updated_at = iso_from_epoch(updated) if updated is not None else fold.created_at
            found[session_id] = fold.to_row(
                path=f"opencode:{session_id}",
                source=source.key,
                size=0,
                mtime_ns=int((updated or 0) * 1e9),
                parsed_to=0,
                home=str(source.home),
            )
    return found


def refresh_agents(
    index: SessionIndex,
    stores: Sequence[Source],
    *,
    cwds: Sequence[str] = (),
    env: Mapping[str, str] | None = None,
    budget: int = BUDGET_BYTES,
    opencode_lister: Callable[[str], list[dict[str, object]] | None] | None = None,
    keys: Collection[str] | None = None,
) -> AgentRefresh:
    """Read what changed in each store into the index (blocking: run it on a worker thread). With `keys`
    (`kind:id`), only those conversations' transcripts are looked at where the index knows where they
    are: a session listing needs only the titles of its sessions' agents, not 20,000 files statted."""
    env = os.environ if env is None else env
    result = AgentRefresh()
    for source in stores:
        try:
            if source.name == "opencode":
                _opencode_source(index, source, cwds, env, result, opencode_lister)
            else:
                budget -= _file_source(index, source, max(0, budget), result, keys)
        except sqlite3.Error as exc:
            result.warnings.append(f"{source.name}: conversations not indexed: {exc}")
    return result
