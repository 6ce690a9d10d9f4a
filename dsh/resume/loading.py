"""Opening /resume fast: this workspace's rows, every workspace's newest rows and a count at once; every
row (dsh sessions and agent conversations) off the loop; the agents' stores read after that."""

from __future__ import annotations

import heapq
import io
import os
import sqlite3
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from operator import attrgetter
from typing import TYPE_CHECKING, NamedTuple, Protocol

from dsh.resume.agent_rows import (
    RECENT_ROWS,
    agent_count,
    candidate,
    listable,
    open_agent_keys,
    read_agent_candidates,
)
from dsh.resume.candidates import (
    Candidate,
    gc_paused,
    give_way,
    in_the_background,
    sharing_the_gil,
    untrack,
    untrack_lists,
)
from dsh.resume.picker import AllRows, PickerModel, newest_first, prepare_all, search_texts
from dsh.resume.search import FuzzyIndex
from dsh.store import agent_table
from dsh.store.index import SessionIndex, like_subsequence, release
from dsh.store.log import LOG_SUFFIX
from dsh.store.workspace import workspace_partition

if TYPE_CHECKING:
    from dsh.agents.conversations.refresh import Source


class _IndexLocation(Protocol):
    @property
    def db_path(self) -> os.PathLike[str] | str: ...
    @property
    def root(self) -> os.PathLike[str] | str: ...


def workspace_cwds(cwd: str) -> list[str]:
    """The recorded cwds that belong to `cwd`'s workspace besides its partition (see `in_workspace`)."""
    here = os.path.normpath(cwd) if cwd else cwd
    return [here, here + "/"] if here else []


def open_picker(
    index: SessionIndex,
    *,
    cwd: str,
    current_session_id: str | None,
    own_pid: int,
    now: float,
    agents: bool = False,
) -> PickerModel:
    """The picker with this workspace's rows, the newest rows of every workspace and the count of all rows:
    a few indexed queries, no scan.

    Runs on the loop with the app's own index connection. Every workspace's rows follow through
    `load_rest` (on a worker thread) and `PickerModel.add_all` / `PickerView.add_all` (on the loop).
    With `agents`, the agent conversations the index holds are rows too.
    """
    workspace = workspace_partition(cwd)
    summaries = index.workspace_summaries(workspace, workspace_cwds(cwd))
    recent = index.recent(RECENT_ROWS)
    total = index.count()
    make = Candidate.from_summaries
    candidates = make(summaries, current_session_id=current_session_id, own_pid=own_pid)
    newest = make(recent, current_session_id=current_session_id, own_pid=own_pid)
    if agents:
        mine, _ = read_agent_candidates(index, cwds=workspace_cwds(cwd))
        others, _ = read_agent_candidates(index, limit=RECENT_ROWS)
        candidates += mine
        newest += others
        total += _agent_total(index, len(others))
    # The count and the rows are separate reads: a refresh in between must not make the count smaller.
    return PickerModel(
        candidates,
        current_cwd=cwd,
        now=now,
        current_workspace=workspace,
        all_count=max(total, len(candidates)),
        all_recent=newest[:RECENT_ROWS],
    )


def _agent_total(index: SessionIndex, at_least: int) -> int:
    """The conversations every row will list (so the count the picker shows at once stays), or
    `at_least` when the index cannot say."""
    try:
        return max(at_least, index.read(agent_count))
    except sqlite3.Error:
        return at_least


def load_rest(
    index: _IndexLocation, *, cwd: str, current_session_id: str | None, own_pid: int, agents: bool = False
) -> AllRows:
    """Every workspace's rows, sorted, split and indexed: safe on a worker thread.

    Opens its own connection to the index (SQLite connections stay in the thread that made them) and
    never raises for a broken index: the answer then carries the reason in `error`.
    """
    with gc_paused(), sharing_the_gil(), in_the_background():
        own = SessionIndex(index.db_path, index.root, progress=io.StringIO())
        own.give_way = give_way  # a search as keys are typed goes first
        agent_rows: list[Candidate] = []
        generation = 0
        try:
            generation = own.generation()  # before the rows: a write in between is read again later
            summaries = own.summaries(cwd=None)
            problems = own.warnings()
            if agents:
                agent_rows, agent_problems = read_agent_candidates(own)
                problems += agent_problems
        except Exception as exc:  # the listing must say why, not take the app down from a worker thread
            summaries, problems = [], [f"session index: {exc}"]
        finally:
            own.close()
        candidates = Candidate.from_summaries(summaries, current_session_id=current_session_id, own_pid=own_pid)
        release(summaries)
        candidates += agent_rows
        untrack(candidates)  # before the collector is on again: it would walk every row
        error = problems[-1] if problems and not candidates else None
        workspace = workspace_partition(cwd)
        listed = prepare_all(candidates, current_cwd=cwd, current_workspace=workspace, error=error, between=give_way)
        untrack_listing(listed)
        return listed._replace(generation=generation)


def untrack_listing(listed: AllRows) -> None:
    """A listing's lists out of the cyclic collector too (`untrack_lists`): never given a tracked object."""
    untrack_lists(listed.rows, listed.here, *(listed.search_index.lists() if listed.search_index is not None else ()))


def load_archived(index: _IndexLocation, *, cwd: str, current_session_id: str | None, own_pid: int) -> list[Candidate]:
    """Every archived session as rows (for the picker's archived view): safe on a worker thread."""
    own = SessionIndex(index.db_path, index.root, progress=io.StringIO())
    try:
        summaries = own.archived()
    finally:
        own.close()
    return Candidate.from_summaries(summaries, current_session_id=current_session_id, own_pid=own_pid)


AgentRefresher = Callable[[SessionIndex], tuple[bool, list[str]]]


def load_rest_and_refresh(
    index: _IndexLocation,
    *,
    cwd: str,
    current_session_id: str | None,
    own_pid: int,
    deliver: Callable[[AllRows], None],
    refresh_agents: AgentRefresher | None = None,
) -> list[str]:
    """The worker thread's whole job after an open: every row now, then the index brought up to date
    with the logs (and, with `refresh_agents`, the agents' stores), then every row again if that changed
    anything. Returns the refreshes' warnings.

    `deliver` is called on this thread with each AllRows; it must hand them to the loop itself
    (`loop.call_soon_threadsafe(view.add_all, rows)`).
    """
    agents = refresh_agents is not None
    rows = load_rest(index, cwd=cwd, current_session_id=current_session_id, own_pid=own_pid, agents=agents)
    deliver(rows)
    # Since the rows were read: another writer (the first frame's refresh, another dsh) may have indexed
    # what this refresh then finds done.
    followed = follow(index, refresh_agents, since=rows.generation)  # what was typed becomes searchable too
    if followed.changed:
        again = update_rest(
            index, rows, followed, cwd=cwd, current_session_id=current_session_id, own_pid=own_pid, agents=agents
        )
        deliver(again)
    return followed.warnings


# A refresh that changed more logs than this lists every row again rather than read those rows alone.
UPDATE_MAX = 2000


def update_rest(
    index: _IndexLocation,
    listed: AllRows,
    followed: Followed,
    *,
    cwd: str,
    current_session_id: str | None,
    own_pid: int,
    agents: bool = False,
) -> AllRows:
    """`listed` (every row, from `load_rest` with the same `agents`) with what `followed` changed: only the
    sessions whose logs changed are read again, and the agent conversations when their stores (or the
    panes that hold them) changed; safe on a worker thread.

    Every row again cost 2-4 s of a worker at 100,000 sessions, with the GIL shared with the loop, and an
    open picker always had a change right after its first listing: the current session's own log, new
    or grown since the index was last refreshed. Falls back to `load_rest` when the changes are unknown,
    many, or `listed` could not be made."""
    paths = followed.paths
    if paths is None or lists_every_row(followed) or listed.error is not None:
        return load_rest(index, cwd=cwd, current_session_id=current_session_id, own_pid=own_pid, agents=agents)
    with gc_paused(), sharing_the_gil(), in_the_background():
        ids = {_session_id(path) for path in paths}
        own = SessionIndex(index.db_path, index.root, progress=io.StringIO())
        own.give_way = give_way  # as load_rest's: its long reads go in slices that give way
        try:
            fresh = Candidate.from_summaries(
                own.summaries_of(sorted(ids)), current_session_id=current_session_id, own_pid=own_pid
            )
            old = [c for c in listed.rows if not c.is_agent and c.id in ids]
            # The conversations a dsh pane holds are that session's row, not rows of their own: a session
            # that holds one, before or after, may show or hide a conversation.
            again = agents and (followed.agents or any(c.agents for c in (*old, *fresh)))
            agent_rows: list[Candidate] = []
            problems: list[str] = []
            if again:
                agent_rows, problems = read_agent_candidates(own)
            problems += own.warnings()
        except Exception as exc:  # as load_rest: the listing says why, never takes the app down
            return AllRows([], [], None, f"session index: {exc}")
        finally:
            own.close()
        if problems:
            return load_rest(index, cwd=cwd, current_session_id=current_session_id, own_pid=own_pid, agents=agents)
        # Python loops over every row, in slices that give way: the loop ranking a query typed meanwhile
        # shared the GIL with them (the bench's query ranked in 0.6 s instead of 0.1 s).
        kept = [
            c for c in _giving_way(listed.rows) if not (c.id in ids and not c.is_agent) and not (again and c.is_agent)
        ]
        untrack(fresh)
        untrack(agent_rows)
        new = newest_first([*fresh, *agent_rows])
        # Both in the listing's order already: merged in one pass, not sorted again. Ties go as the index
        # orders them: by the log's mtime, newest first, and a log read again was just written.
        merged = list(_giving_way(heapq.merge(new, kept, key=attrgetter("updated_at"), reverse=True)))
        give_way()
        updated = prepare_all(merged, current_cwd=cwd, current_workspace=workspace_partition(cwd), between=give_way)
        untrack_listing(updated)
        return updated._replace(generation=listed.generation if followed.generation is None else followed.generation)


_SLICE = 2000  # rows a worker's Python loop takes between two looks at whether to give way


def _giving_way(rows: Iterable[Candidate]) -> Iterator[Candidate]:
    """`rows`, with `give_way` between slices of them."""
    for n, row in enumerate(rows, start=1):
        yield row
        if n % _SLICE == 0:
            give_way()


def lists_every_row(followed: Followed) -> bool:
    """Whether `update_rest` reads every row again for what `followed` found (not which rows changed)."""
    return followed.paths is None or len(followed.paths) > UPDATE_MAX


def _session_id(path: str) -> str:
    """The session id a log's path names (its file name less `.jsonl`)."""
    name = os.path.basename(path)
    return name[: -len(LOG_SUFFIX)] if name.endswith(LOG_SUFFIX) else name


# Rows a search while every row loads brings at most (the newest that may match), of sessions and of
# conversations each; and the rows its second look checks one by one, at most, to say it found them all.
FOUND_ROWS = 100
CHECKED_ROWS = 1000


class Found(NamedTuple):
    """What `find_rows` answers: the rows, and whether they are every row the query can list."""

    rows: list[Candidate]
    complete: bool


def find_rows(
    index: SessionIndex,
    query: str,
    *,
    current_session_id: str | None,
    own_pid: int,
    agents: bool,
    early: Callable[[Found], None] | None = None,
    superseded: Callable[[], bool] = lambda: False,
) -> Found:
    """The rows that may match `query`, straight from the index: what the picker ranks while every row is
    still on its way, so a query typed at the open finds an old row at once.

    First the newest rows whose title or first line hold the terms (a LIKE per term), handed to `early`:
    the rows that rank best. Then, unless `superseded` says a newer query waits, every row whose whole
    searched text may hold them (`wide`, a super-sequence of it): when there are at most CHECKED_ROWS, the
    picker's own search keeps those that match, and the answer is every row the query lists (`complete`;
    for an ASCII query, as LIKE folds only ASCII case)."""
    terms = query.split()
    if not terms:
        return Found([], False)
    made = Candidate.from_summaries
    with gc_paused():
        best = index.matching(terms, FOUND_ROWS)
        rows = made(best, current_session_id=current_session_id, own_pid=own_pid)
        like = [like_subsequence(term) for term in terms]
        if agents:
            found, _ = read_agent_candidates(index, limit=FOUND_ROWS, like=like)
            rows += found
    if early is not None:
        early(Found(rows, False))
    if len(best) >= FOUND_ROWS or not query.isascii() or superseded():
        return Found(rows, False)  # (so many by title alone: far more by the whole text)
    with gc_paused():
        ids = index.matching_ids(terms, CHECKED_ROWS + 1, wide=True)
        if len(ids) > CHECKED_ROWS or index.warnings():
            return Found(rows, False)  # (told by the ids alone: no row read whole)
        checked = made(index.rows_by_id(ids), current_session_id=current_session_id, own_pid=own_pid)
        if agents:
            try:
                raw = index.read(
                    lambda conn: agent_table.conversations(conn, limit=CHECKED_ROWS + 1, like=like, wide=True)
                )
                hidden = index.read(open_agent_keys)
            except sqlite3.Error:
                return Found(rows, False)
            if len(raw) > CHECKED_ROWS:
                return Found(rows, False)
            checked += [candidate(row) for row in raw if row.key not in hidden and listable(row)]
        return Found(matching_rows(checked, query), True)


def matching_rows(rows: list[Candidate], query: str) -> list[Candidate]:
    """The rows of `rows` the picker's search of every workspace lists for `query` (its own ranking)."""
    ranking = FuzzyIndex(search_texts(rows, with_label=True)).search(query)
    while ranking.refine(1.0):
        pass
    return [rows[i] for i in sorted(ranking.rows())]


class Followed(NamedTuple):
    """What one look at the disk (`follow`) found."""

    changed: bool  # anything listed may differ
    warnings: list[str]
    paths: list[str] | None = None  # the session logs added, changed or gone (None: not known)
    agents: bool = False  # the agents' stores changed
    generation: int | None = None  # the index's newest write once this look was done (with `since`)


def follow(
    index: _IndexLocation, refresh_agents: AgentRefresher | None = None, *, since: int | None = None
) -> Followed:
    """One look at the disk while the picker is open: the logs and the agents' stores into the index,
    what they hold made searchable; safe on a worker thread.

    With `since` (the generation a listing was read at), what changed is what every write after it
    changed, this refresh's or another process's; without, this refresh's alone."""
    own = SessionIndex(index.db_path, index.root, progress=io.StringIO())
    agents_changed = False
    try:
        # Each step waits while keys are typed or their search runs (`give_way`): the picker's keys first.
        with sharing_the_gil(), in_the_background():
            give_way()
            warnings = own.refresh(sync_search=False)
            changed = own.changed
            paths: list[str] | None = list(own.changed_paths) if own.write_error is None else None
            if refresh_agents is not None:
                give_way()
                agents_changed, agent_warnings = refresh_agents(own)
                changed = changed or agents_changed
                warnings += agent_warnings
            generation = None
            if since is not None and own.write_error is None:
                seen = own.changes_since(since)
                generation, paths = seen.generation, seen.paths
                agents_changed = agents_changed or seen.agents
                changed = paths is None or bool(paths) or agents_changed
            give_way()
            own.sync_search()
    except Exception as exc:  # a broken index must not take the app down from a worker thread
        return Followed(False, [f"session index: {exc}"])
    finally:
        own.close()
    return Followed(changed, warnings, paths, agents_changed, generation)


def agent_refresher(
    stores: Sequence[Source],
    *,
    cwds: Sequence[str],
    env: Mapping[str, str] | None = None,
    passes: int = 20,
    keys: Collection[str] | None = None,
) -> AgentRefresher:
    """A `refresh_agents` for `load_rest_and_refresh`: reads the stores in budgeted passes until done."""
    from dsh.agents.conversations.refresh import refresh_agents

    def run(index: SessionIndex) -> tuple[bool, list[str]]:
        changed, warnings = False, []
        for _ in range(passes):
            result = refresh_agents(index, stores, cwds=cwds, env=env, keys=keys)
            changed = changed or result.changed
            warnings = result.warnings
            if not result.more:
                break
        return changed, warnings

    return run
