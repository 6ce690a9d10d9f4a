"""The /resume picker as plain data: scope, query, ranked rows, selection, row budget, transcript matches,
the archived view; its drawing is dsh.resume.picker_draw."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import UTC, datetime, tzinfo
from itertools import pairwise
from operator import attrgetter
from typing import NamedTuple

from dsh.resume.candidates import Candidate, clean
from dsh.resume.picker_draw import Line, age, cells, draw, render_text, rows_height
from dsh.resume.search import SUBSEQUENCE, FuzzyIndex, Ranking, compiled

WORKSPACE = "workspace"
ALL = "all"
MACHINES = "machines"  # other machines' sessions (`[machines.NAME]`), asked for when first shown

# Work a keystroke may spend ranking rows beyond the exact head; the rest is refined between keys.
KEYSTROKE_BUDGET = 0.005

__all__ = [
    "ALL",
    "MACHINES",
    "WORKSPACE",
    "AllRows",
    "PickerModel",
    "age",
    "cells",
    "in_workspace",
    "newest_first",
    "prepare_all",
    "render_text",
]


def newest_first(candidates: Iterable[Candidate]) -> list[Candidate]:
    """Rows in the picker's order: newest first, ties kept in the given order."""
    rows = list(candidates)
    # The index lists newest first already. Checking that is a Python loop another thread can interrupt;
    # sorting 100k rows is one C call that holds the GIL (and so the event loop) for 30 ms.
    stamps = [c.updated_at for c in rows]
    if all(a >= b for a, b in pairwise(stamps)):
        return rows
    # ISO-8601 UTC stamps of one format sort as text.
    return sorted(rows, key=attrgetter("updated_at"), reverse=True)


def in_workspace(c: Candidate, here: str, workspace: str | None) -> bool:
    """Whether a row belongs to the workspace scope of `here` (a normalized cwd) and its partition key."""
    cwd = c.cwd
    # Recorded cwds come from getcwd() and are normal already; only one trailing slash is forgiven.
    if cwd is not None and (cwd == here or cwd == here + "/"):
        return True
    return workspace is not None and c.workspace == workspace


# Between a row's searched texts: not whitespace, not a word character, so no phrase or word runs across two.
SEPARATOR = " · "
_FIELDS = ("title", "first_input", "id", "label")


def search_texts(rows: Sequence[Candidate], with_label: bool) -> list[str]:
    """What a search of a scope matches, one text per row (the workspace label only in `all`)."""
    if with_label:
        return [f"{c.title} · {c.first_input} · {c.id} · {c.workspace_label}" for c in rows]
    return [f"{c.title} · {c.first_input} · {c.id}" for c in rows]


class AllRows(NamedTuple):
    """Every workspace's rows, made ready off the event loop for `PickerModel.add_all`."""

    rows: list[Candidate]  # newest first
    here: list[Candidate]  # those of the workspace scope, in the same order
    # The `all` scope's search index over `rows`, or None to build it later.
    search_index: FuzzyIndex | None
    error: str | None = None  # why the rows could not be listed (then `rows` is empty)
    # The index's write these rows were read after (`SessionIndex.generation`): a refresh later reads
    # again what every write since changed, its own or another process's.
    generation: int = 0
    # `owner_rows(rows)`, made with the index (None: made on first use, on the loop).
    owners: dict[str, int] | None = None


def prepare_all(
    candidates: Iterable[Candidate],
    *,
    current_cwd: str,
    current_workspace: str | None,
    with_index: bool = True,
    error: str | None = None,
    between: Callable[[], None] | None = None,
) -> AllRows:
    """Sort, split off this workspace's rows and index `candidates`: the slow part of `add_all`.

    Builds only new objects, so it may run on a worker thread while the model is used on the loop
    (`between` is called between slices of the index's build, where such a worker gives way).
    """
    rows = newest_first(candidates)
    here = os.path.normpath(current_cwd) if current_cwd else current_cwd
    mine: list[Candidate] = []
    texts: list[str] = []
    # In slices, `between` them: each pass over 120,000 rows held the GIL for 60-120 ms, and a key typed
    # meanwhile had its frame take twice as long.
    for start in range(0, len(rows), _PREPARE_SLICE):
        if between is not None and start:
            between()
        part = rows[start : start + _PREPARE_SLICE]
        mine += [c for c in part if in_workspace(c, here, current_workspace)]
        if with_index:
            texts += search_texts(part, with_label=True)
    index = FuzzyIndex(texts, between) if with_index else None
    owners = owner_rows(rows, between) if with_index else None
    return AllRows(rows, mine, index, error, owners=owners)


_PREPARE_SLICE = 2000


def owner_rows(rows: Sequence[Candidate], between: Callable[[], None] | None = None) -> dict[str, int]:
    """The row of each owner whose lines a transcript search returns (`Candidate.owner`): a conversation
    open in a dsh pane leads to the row of the session holding it (it has no row of its own).

    Made on the loop when the first transcript hits came, at 120,000 rows it held a key's frame off for
    130-180 ms; `prepare_all` makes it beside the search index (`between`: as there)."""
    by_owner: dict[str, int] = {}
    agents: list[tuple[str, int]] = []
    for start in range(0, len(rows), _OWNER_SLICE):
        if between is not None and start:
            between()
        for i, c in enumerate(rows[start : start + _OWNER_SLICE], start):
            by_owner[c.owner] = i
            if c.agents:
                agents += [(f"a:{agent}", i) for agent in c.agents]
    for owner, i in agents:
        by_owner.setdefault(owner, i)
    return by_owner


_OWNER_SLICE = 2048


class _Scope:
    """The rows of one scope, their search index (built on first search) and the current ranking."""

    def __init__(self, rows: list[Candidate], with_label: bool) -> None:
        self.rows = rows
        self.with_label = with_label
        self._index: FuzzyIndex | None = None
        self.ranking: Ranking | None = None

    def fields(self, c: Candidate) -> list[str]:
        parts = [c.title, c.first_input, c.id]
        if self.with_label:
            parts.append(c.workspace_label)
        return parts

    @property
    def index(self) -> FuzzyIndex:
        if self._index is None:
            self._index = FuzzyIndex(search_texts(self.rows, self.with_label))
        return self._index

    def reset(
        self, rows: list[Candidate], index: FuzzyIndex | None = None, owners: dict[str, int] | None = None
    ) -> None:
        """New rows; `index` and `owners` (`owner_rows`) are taken only as made over these very rows."""
        self.rows = rows
        self._index = index if index is not None and len(index) == len(rows) else None
        self.ranking = None
        self._by_owner = owners if self._index is not None else None

    _by_owner: dict[str, int] | None = None

    def row_of(self, owner: str) -> int | None:
        """The row whose lines a transcript search names `owner` (see `owner_rows`)."""
        if self._by_owner is None:
            self._by_owner = owner_rows(self.rows)
        return self._by_owner.get(owner)

    def owners(self) -> frozenset[str]:
        """Every owner whose lines lead to a row of this scope."""
        self.row_of("")
        assert self._by_owner is not None
        return frozenset(self._by_owner)


class PickerModel:
    """The picker over `candidates` (any order); `current_cwd` names the workspace scope.

    With `all_count`, `candidates` are only this workspace's rows (the fast open): the `all` scope
    counts `all_count` rows, shows `all_recent` (the newest of every workspace) at once, and fills in
    when `add_all` hands it every row. Rows are told apart by `Candidate.key` (dsh sessions and agent
    conversations share the list).
    """

    def __init__(
        self,
        candidates: Sequence[Candidate],
        *,
        current_cwd: str,
        now: datetime | float,
        current_workspace: str | None = None,
        all_count: int | None = None,
        all_recent: Sequence[Candidate] = (),
        tz: tzinfo | None = None,
    ) -> None:
        self.now = now if isinstance(now, datetime) else datetime.fromtimestamp(now, UTC)
        if self.now.tzinfo is None:
            self.now = self.now.replace(tzinfo=UTC)
        self.tz = tz  # of the absolute dates in the preview; None: the local zone
        # Each session's last saved screen by id, read by the view (None: asked, not come yet).
        self.thumbnails: dict[str, list[str] | None] = {}
        self.current_cwd = os.path.normpath(current_cwd) if current_cwd else current_cwd
        self.current_workspace = current_workspace
        everything = newest_first(candidates)
        here = [c for c in everything if self._here(c)]
        self._live = {
            WORKSPACE: _Scope(here, with_label=False),
            ALL: _Scope(everything if all_count is None else newest_first(all_recent), with_label=True),
            MACHINES: _Scope([], with_label=True),
        }
        # Archived sessions, listed behind a key: loaded when first asked for.
        self._arch = {
            WORKSPACE: _Scope([], with_label=False),
            ALL: _Scope([], with_label=True),
            MACHINES: _Scope([], with_label=True),
        }
        # The machines scope: how many machines were asked, those still answering, and one line for
        # each that failed (said in the scope line; the rows of the others stay usable).
        self.machines_asked = 0
        self.machines_pending: set[str] = set()
        self.machine_errors: dict[str, str] = {}
        self.show_archived = False
        self.archived_loaded = False
        self.all_loaded = all_count is None
        self._all_count = all_count or 0
        self.all_error: str | None = None
        # Renames and archives made here, applied again to rows that arrive later (the index may not
        # have seen them yet).
        self._renamed: dict[str, str] = {}
        self._archived: set[str] = set()
        self._unarchived: set[str] = set()
        self._newly_archived: dict[str, Candidate] = {}
        # Transcript search: the query it answered, the line it matched per owner, and the rows it adds
        # to the fuzzy matches (scope row numbers).
        self._hits_query = ""
        self._hits: dict[str, str] = {}
        self._extra: list[int] = []
        self.scope = WORKSPACE
        self.query = ""
        self.selected_index = 0
        self._top = 0
        self._last_height = 20
        # A live session's agents' states as its host last said ("1 needs you · 2 working"), asked by the
        # drawing for the rows it shows; set by whoever knows the hosts (the view), else none are shown.
        self.agents_of: Callable[[str], str] | None = None

    @property
    def _scopes(self) -> dict[str, _Scope]:
        return self._arch if self.show_archived else self._live

    def _here(self, c: Candidate) -> bool:
        return in_workspace(c, self.current_cwd, self.current_workspace)

    # -- every workspace's rows, arriving after the open -------------------------------------------

    def add_all(self, rows: AllRows | Iterable[Candidate]) -> None:
        """Take every workspace's rows (again, after a refresh, is fine too).

        This workspace's rows are replaced only if they differ. The query stays, and so does the
        highlighted row when it is still listed (the top row stays the top row).
        """
        if not isinstance(rows, AllRows):
            rows = prepare_all(rows, current_cwd=self.current_cwd, current_workspace=self.current_workspace)
        if rows.error is not None and not rows.rows:
            self.all_error = rows.error
            return
        self._staged = None
        if self._stages(rows):
            assert rows.search_index is not None
            ranking = rows.search_index.search(self.query, want=max(64, self._capacity(self._last_height) * 2))
            self._staged = (rows, ranking)
            return
        self._take_all(rows)

    # Rows that came while a query's answer is on screen (final, or being ranked), kept off screen with
    # their own ranking of it until that is complete too (`refine`, after the one on screen): the same
    # answer over the new rows, or the few rows that changed, then shown at once, never a partial ranking
    # in between.
    _staged: tuple[AllRows, Ranking] | None = None

    def _stages(self, rows: AllRows) -> bool:
        if self.show_archived or self.scope != ALL or not self.query.split() or rows.search_index is None:
            return False
        if self._renamed or self._archived or len(rows.search_index) != len(rows.rows):
            return False  # (the rows are changed here first, and indexed again)
        # Also while the rows on screen are still being ranked: that ranking goes on (ranked again from
        # scratch over rows a refresh's update brought, the bench's query took 0.3 s, not 0.16 s).
        return self.answered() or (self.all_loaded and self._live[ALL].ranking is not None)

    def _settle_staged(self) -> None:
        """Show rows kept off screen now (something else changes the screen anyway)."""
        if self._staged is not None:
            rows, _ranking = self._staged
            self._staged = None
            self._take_all(rows)

    def _take_all(self, rows: AllRows, ranking: Ranking | None = None, *, rank: bool = True) -> None:
        """The rows of every workspace in place of those listed; with `rank`, the query ranked over
        them (else the caller ranks it)."""
        answered = self.answered()
        chosen = self.selected if self.selected_index > 0 and not self.show_archived else None
        everything, here, index = rows.rows, rows.here, rows.search_index
        if self._renamed or self._archived:
            everything = self._with_local_edits(everything)
            here = self._with_local_edits(here)
            index = None
        changed = {ALL: True, WORKSPACE: here != self._live[WORKSPACE].rows}
        self._live[ALL].reset(everything, index, rows.owners)
        if changed[WORKSPACE]:
            self._live[WORKSPACE].reset(here)
        self.all_loaded = True
        self.all_error = None
        if not rank or self.show_archived or not changed[self.scope]:
            return
        self._rescope(chosen, ranking if self.scope == ALL else None)
        ranking = self._scopes[self.scope].ranking
        while answered and ranking is not None and ranking.refine(1.0):
            pass  # the answer shown was final: rank it whole at once, so the screen does not change

    def add_found(self, query: str, rows: Iterable[Candidate], complete: bool = False) -> bool:
        """Rows a search of the index found for `query` while every row is still on its way: they join the
        newest rows of the `all` scope (an old row a query names is listed at once). `complete`: they are
        every row the query can list, so its answer is final before every row is here (`answered`).
        False, and nothing done, once every row is here or for an older query."""
        if self.all_loaded or query != self.query:
            return False
        was = self.answered()
        self._complete_query = query if complete else None
        scope = self._live[ALL]
        have = {c.key for c in scope.rows}
        new = [c for c in rows if c.key not in have and c.key not in self._archived and not c.archived]
        if not new:
            return self.answered() != was
        chosen = self.selected if self.selected_index > 0 and not self.show_archived else None
        scope.reset(newest_first(self._with_local_edits([*scope.rows, *new])))
        if self.scope == ALL and not self.show_archived:
            self._rescope(chosen)
        return True

    def _rescope(self, chosen: Candidate | None, ranking: Ranking | None = None) -> None:
        """The active scope's rows changed: rank the query again (or take `ranking`, its ranking over
        them), keep the highlighted row if listed."""
        if ranking is not None and self.query.split():
            self._scopes[self.scope].ranking = ranking
        elif self.query.split():
            self._rank(self.query)
        else:
            self._scopes[self.scope].ranking = None
        self._extra = self._extra_rows()
        found = None if chosen is None else self._find(chosen.key, max(64, self.selected_index * 2 + 64))
        self.selected_index = found or 0
        self._top = min(self._top, self.selected_index)

    def _with_local_edits(self, rows: list[Candidate]) -> list[Candidate]:
        out = []
        for c in rows:
            if c.key in self._archived:
                continue
            title = self._renamed.get(c.key)
            out.append(c if title is None else c._replace(title=title))
        return out

    # -- archived sessions ----------------------------------------------------------------------------

    def set_archived(self, candidates: Iterable[Candidate]) -> None:
        """The archived sessions (loaded when the archived view is first shown)."""
        chosen = self.selected if self.show_archived and self.selected_index > 0 else None
        self._put_archived(list(candidates))
        self.archived_loaded = True
        if self.show_archived:
            self._rescope(chosen)

    def toggle_archived(self) -> None:
        """Show the archived sessions instead of the others, or back; query and selection start over."""
        self.show_archived = not self.show_archived
        self._restart()

    def unarchive(self, key: str) -> None:
        """An archived session brought back: it leaves the archived view and joins the listing again."""
        self._settle_staged()
        back = next((c for c in self._arch[ALL].rows if c.key == key), None)
        self._unarchived.add(key)
        self._archived.discard(key)
        self._newly_archived.pop(key, None)
        for scope in self._arch.values():
            scope.reset([c for c in scope.rows if c.key != key])
        if back is not None:
            back = back._replace(archived=False)
            for name, scope in self._live.items():
                if name == ALL or self._here(back):
                    scope.reset(newest_first([back, *scope.rows]))
        self._after_edit()

    # -- scope and query ---------------------------------------------------------------------------

    @property
    def other_scope(self) -> str:
        return ALL if self.scope == WORKSPACE else WORKSPACE

    @property
    def with_labels(self) -> bool:
        """Rows of every workspace say which workspace they are of (a second line); a machine's rows
        say which machine first."""
        return self.scope in (ALL, MACHINES)

    def toggle_machines(self) -> None:
        """The machines scope, or back to this workspace's rows from it."""
        self.scope = WORKSPACE if self.scope == MACHINES else MACHINES
        self._restart()

    def asking_machines(self, names: list[str]) -> None:
        self.machines_asked = len(names)
        self.machines_pending = set(names)
        self.machine_errors = {}

    def add_machine_rows(self, rows: Iterable[Candidate]) -> None:
        """Rows a machine sent, as they arrive: listed newest first among the others'."""
        scope = self._live[MACHINES]
        chosen = self.selected if self.scope == MACHINES and self.selected_index > 0 else None
        scope.reset(newest_first([*scope.rows, *rows]))
        if self.scope == MACHINES and not self.show_archived:
            self._rescope(chosen)

    def machine_done(self, name: str, error: str | None) -> None:
        self.machines_pending.discard(name)
        if error:
            self.machine_errors[name] = error

    def toggle_scope(self) -> None:
        """Switch scope; the query and the selection start over, so the highlight is always a visible row."""
        self.scope = self.other_scope
        self._restart()

    def _restart(self) -> None:
        self._settle_staged()
        self.query = ""
        for scopes in (self._live, self._arch):
            for scope in scopes.values():
                scope.ranking = None
        self._hits_query, self._hits, self._extra = "", {}, []
        self.selected_index = 0
        self._top = 0

    def set_query(self, text: str) -> None:
        staged, self._staged = self._staged, None
        self.query = text
        self.selected_index = 0
        self._top = 0
        if staged is not None:
            # Rows a refresh brought while the last query was being answered: taken for this query alone.
            # Settling them first ranked the query being replaced over them again, 25-30 ms of a key.
            self._take_all(staged[0], rank=False)
        scope = self._scopes[self.scope]
        if not text.split():
            scope.ranking = None
            self._extra = []
            return
        self._rank(text)
        self._extra = self._extra_rows()

    def _rank(self, text: str) -> None:
        scope = self._scopes[self.scope]
        ranking = scope.index.search(text, want=max(64, self._capacity(self._last_height) * 2))
        if not ranking.exact(self._capacity(self._last_height)):
            ranking.refine(KEYSTROKE_BUDGET)
        scope.ranking = ranking

    def prepare(self) -> None:
        """Build the search index of every scope now (it is otherwise built by the first search in it)."""
        for name, scope in self._live.items():
            if name == ALL and not self.all_loaded:
                continue  # its rows are not here yet; they come with their index
            scope.index  # noqa: B018 -- the property builds and keeps it

    @property
    def pending(self) -> bool:
        """Whether rows are still being ranked, on screen or off (call `refine` until it says no)."""
        return self._staged is not None or self.counting

    @property
    def counting(self) -> bool:
        """Whether the rows on screen are still being ranked (their count is not final)."""
        ranking = self._scopes[self.scope].ranking
        return ranking is not None and not ranking.complete

    def refine(self, budget: float = 0.02) -> bool:
        """Rank more rows for about `budget` seconds; True while work remains. Keeps the highlighted row."""
        scope = self._scopes[self.scope]
        ranking = scope.ranking
        if self._staged is not None and (ranking is None or ranking.complete):
            rows, staged = self._staged
            if staged.refine(budget):
                return True
            self._staged = None
            self._take_all(rows, staged)
            return self.pending
        if ranking is None or ranking.complete:
            return False
        # (The top row needs no looking for: at 120,000 rows each look assembles every row ranked so far.)
        chosen = self.selected if self.selected_index > 0 else None
        more = ranking.refine(budget)
        if chosen is not None and self.selected_index > 0:
            found = self._find(chosen.key, self.selected_index + self._capacity(self._last_height))
            self.selected_index = found if found is not None else 0
            self._top = min(self._top, self.selected_index)
        return more or self._staged is not None  # (rows kept off screen are ranked next)

    def _find(self, key: str, limit: int) -> int | None:
        for i, c in enumerate(self._ranked(limit)):
            if c.key == key:
                return i
        return None

    # -- transcript search ---------------------------------------------------------------------------

    def set_transcript_hits(self, query: str, hits: Mapping[str, str]) -> bool:
        """What the transcript search found for `query`: owner (see Candidate.owner) -> the matching line.

        Rows it finds that the fuzzy search does not are listed after the fuzzy matches; any row it found
        shows the matching line in the preview. An answer to an older query is dropped (False).
        """
        if query != self.query:
            return False
        chosen = self.selected if self.selected_index > 0 else None
        self._hits_query = query
        self._hits = dict(hits)
        self._extra = self._extra_rows()
        if chosen is not None:
            found = self._find(chosen.key, self.selected_index + 64)
            self.selected_index = found if found is not None else 0
        return True

    def _extra_rows(self) -> list[int]:
        """Rows the transcript search found, each ranked by the tier its matched line earns (a prompt
        that holds the whole query leads like a title that does)."""
        scope = self._scopes[self.scope]
        if not self._hits or self._hits_query != self.query or not self.query.split():
            if scope.ranking is not None:
                scope.ranking.boost({})
            return []
        query = compiled(self.query)
        boosts: dict[int, int] = {}
        for owner, line in self._hits.items():
            row = scope.row_of(owner)
            if row is None:
                continue
            found = query.tier(line, line.lower())
            tier = found[0] if found is not None else SUBSEQUENCE
            boosts[row] = min(tier, boosts.get(row, tier))  # a session's own line or its agent's prompt
        if scope.ranking is not None:
            scope.ranking.boost(boosts)
        return list(boosts)

    def search_owners(self) -> frozenset[str] | None:
        """Whose lines a transcript search of the active scope may return (None: anyone's)."""
        if self.scope == ALL and not self.show_archived:
            return None
        return self._scopes[self.scope].owners()

    def transcript_line(self, c: Candidate) -> str | None:
        """The typed line or prompt of `c` the transcript search matched for the current query."""
        if self._hits_query != self.query or not self.query.split():
            return None
        line = self._hits.get(c.owner)
        for agent in c.agents if line is None else ():
            line = self._hits.get(f"a:{agent}")  # a prompt of a conversation open in this session
            if line is not None:
                break
        return clean(line) if line is not None else None

    # -- rows --------------------------------------------------------------------------------------

    def _ranked(self, n: int) -> list[Candidate]:
        scope = self._scopes[self.scope]
        if scope.ranking is None:
            return scope.rows[:n]
        return [scope.rows[i] for i in scope.ranking.head(n)]

    def count(self) -> int:
        """Rows of the active scope that match the query (known so far)."""
        scope = self._scopes[self.scope]
        return len(scope.rows) if scope.ranking is None else scope.ranking.known()

    @property
    def visible(self) -> list[Candidate]:
        """Rows of the active scope that match the query, best first (newest first with no query)."""
        scope = self._scopes[self.scope]
        if scope.ranking is None:
            return list(scope.rows)
        return [scope.rows[i] for i in scope.ranking.rows()]

    @property
    def selected(self) -> Candidate | None:
        rows = self._ranked(self.selected_index + 1)
        return rows[self.selected_index] if self.selected_index < len(rows) else None

    @property
    def counts(self) -> tuple[int, int]:
        """(rows in the active scope, rows in the other scope), whatever the query."""
        return self._size(self.scope), self._size(self.other_scope)

    def _size(self, name: str) -> int:
        if name == ALL and not self.all_loaded and not self.show_archived:
            return max(self._all_count, len(self._live[ALL].rows))
        return len(self._scopes[name].rows)

    @property
    def loading(self) -> bool:
        """Whether the active scope's rows are still on their way (and none are here to show)."""
        if self.show_archived:
            return not self.archived_loaded
        return self.scope == ALL and not self.all_loaded and not self._live[ALL].rows

    @property
    def partial(self) -> bool:
        """Whether the active scope shows only the newest rows while the rest loads (and they may not be
        every row the query lists)."""
        if self.show_archived or self.scope != ALL or self.all_loaded or not self._live[ALL].rows:
            return False
        return not self.answered()

    _complete_query: str | None = None  # the query whose found rows are every row it can list

    def answered(self) -> bool:
        """Whether, while every row is still on its way, the `all` scope holds every row the query lists:
        the index's search for it was complete (`add_found`) and every typed line or prompt the transcript
        search matched is of a row here."""
        if self.all_loaded or not self.query.split() or self._complete_query != self.query:
            return False
        if self._hits_query == self.query:
            scope = self._live[ALL]
            return all(scope.row_of(owner) is not None for owner in self._hits)
        return True

    def match_positions(self, c: Candidate) -> dict[str, tuple[int, ...]]:
        """Matched character positions per field (`title`, `first_input`, `id`, `label`) of one row."""
        out: dict[str, list[int]] = {name: [] for name in _FIELDS}
        if not self.query.split():
            return {name: () for name in _FIELDS}
        scope = self._scopes[self.scope]
        values = scope.fields(c)
        start = 0
        bounds = []
        for name, value in zip(_FIELDS, values, strict=False):
            bounds.append((name, start, start + len(value)))
            start += len(value) + len(SEPARATOR)
        for pos in compiled(self.query).positions(SEPARATOR.join(values)):
            for name, lo, hi in bounds:
                if lo <= pos < hi:
                    out[name].append(pos - lo)
                    break
        return {name: tuple(v) for name, v in out.items()}

    def row_match(self, c: Candidate) -> tuple[str, tuple[int, ...]] | None:
        """What a row shows beside its title when the query met it elsewhere: the matched typed line or
        prompt (or the first line typed), with the characters to highlight; None when the title shows it."""
        if not self.query.split():
            return None
        query = compiled(self.query)
        line = self.transcript_line(c)
        marks = self.match_positions(c)
        title_tier = query.tier(c.title, c.title.lower())
        if line is not None:
            line_tier = query.tier(line, line.lower())
            if line_tier is not None and (title_tier is None or line_tier[0] < title_tier[0]):
                return line, query.positions(line)
        if marks["title"] and title_tier is not None:
            return None
        if marks["first_input"] and c.first_input != c.title:
            return c.first_input, marks["first_input"]
        return None

    # -- moving ------------------------------------------------------------------------------------

    def _clamp(self, index: int) -> None:
        count = self.count()
        self.selected_index = max(0, min(index, count - 1)) if count else 0

    def move(self, delta: int) -> None:
        self._clamp(self.selected_index + delta)

    def page(self, delta: int, height: int) -> None:
        self._clamp(self.selected_index + delta * max(1, self._capacity(height)))

    def home(self) -> None:
        self._clamp(0)

    def end(self) -> None:
        scope = self._scopes[self.scope]
        if scope.ranking is not None:
            # The last row must be final to be the last: finish ranking first.
            while scope.ranking.refine(1.0):
                pass
        self._clamp(self.count() - 1)

    def lines_per_row(self) -> int:
        """Rows of the `all` scope carry their workspace on a second line."""
        return 2 if self.with_labels else 1

    def _capacity(self, height: int) -> int:
        return max(0, height) // self.lines_per_row()

    def window(self, height: int) -> list[Candidate]:
        """The rows that fit in `height` lines, scrolled so the highlighted row is among them."""
        self._last_height = height
        capacity = self._capacity(height)
        if capacity == 0:
            return []
        if self.selected_index < self._top:
            self._top = self.selected_index
        elif self.selected_index >= self._top + capacity:
            self._top = self.selected_index - capacity + 1
        rows = self._ranked(self._top + capacity)
        if self._top >= len(rows):
            self._top = max(0, len(rows) - capacity)
        return rows[self._top : self._top + capacity]

    @property
    def window_top(self) -> int:
        return self._top

    # -- actions -----------------------------------------------------------------------------------

    def enter(self) -> Candidate | str:
        """The highlighted row to resume, or why not (its refusal reason, or that nothing is there)."""
        chosen = self.selected
        if chosen is None:
            if self.loading:
                return "all workspaces are still loading" if not self.show_archived else "still loading"
            return "no session to resume here"
        if self.show_archived:
            return "an archived session: C-d brings it back, then Enter resumes it"
        if chosen.unresumable_reason:
            return chosen.unresumable_reason
        return chosen

    def rename(self, key: str, title: str) -> None:
        if clean(title):
            self._renamed[key] = clean(title)
        self._update(key, lambda c: c._replace(title=clean(title) or c.title))

    def archive(self, key: str) -> None:
        """An archived session leaves the listing and joins the archived view at once (the archived
        rows loaded earlier, or later from an index that has not seen the archive yet, lack it)."""
        self._settle_staged()
        row = next((c for c in self._live[ALL].rows if c.key == key), None)
        row = row or next((c for c in self._live[WORKSPACE].rows if c.key == key), None)
        self._archived.add(key)
        self._unarchived.discard(key)
        if row is not None:
            self._newly_archived[key] = row._replace(archived=True)
            if self.archived_loaded:
                self._put_archived([*self._arch[ALL].rows])
        self._update(key, None)

    def _put_archived(self, rows: list[Candidate]) -> None:
        have = {c.key for c in rows}
        rows = newest_first([*rows, *(c for k, c in self._newly_archived.items() if k not in have)])
        rows = [c for c in rows if c.key not in self._unarchived]
        self._arch[ALL].reset(rows)
        self._arch[WORKSPACE].reset([c for c in rows if self._here(c)])

    def _update(self, key: str, change: object) -> None:
        self._settle_staged()
        for scope in self._live.values():
            rows: list[Candidate] = []
            touched = False
            for c in scope.rows:
                if c.key != key:
                    rows.append(c)
                    continue
                touched = True
                if callable(change):
                    rows.append(change(c))
            if touched:
                scope.reset(rows)
        self._after_edit()

    def _after_edit(self) -> None:
        query = self.query
        index = self.selected_index
        if query.split():
            self.set_query(query)
        self._clamp(index)

    # -- text --------------------------------------------------------------------------------------

    def scope_line(self) -> str:
        here, there = self.counts
        what = "Archived · " if self.show_archived else ""
        if self.scope == MACHINES:
            asking = f" (asking {len(self.machines_pending)})" if self.machines_pending else ""
            failed = "".join(f" · {error}" for error in self.machine_errors.values())
            return f"{what}Machines · {here}{asking} — C-o: this workspace · {there}{failed}"
        if self.scope == WORKSPACE:
            return f"{what}This workspace · {here} — Tab: all workspaces · {there}"
        newest = f" (newest {len(self._live[ALL].rows)} while the rest loads)" if self.partial else ""
        return f"{what}All workspaces · {here}{newest} — Tab: this workspace · {there}"

    def empty_message(self) -> str:
        """What the row area says when it has no rows."""
        here, there = self.counts
        if self.show_archived:
            if not self.archived_loaded:
                return "Loading archived sessions…"
            if here == 0:
                where = "this workspace" if self.scope == WORKSPACE else "any workspace"
                return f"No archived session in {where} — C-a shows the others"
            return "No matching archived session"
        if self.scope == MACHINES:
            if self.machines_asked == 0:
                return 'No machines in config: add [machines.NAME] ssh = "user@host" to ~/.dsh/config.toml'
            if here == 0 and self.machines_pending:
                return f"Asking {len(self.machines_pending)} machines…"
            return "No sessions on the machines" if here == 0 else "No matching session on the machines"
        if self.loading:
            if self.all_error is not None:
                return f"Cannot list all workspaces: {clean(self.all_error)}"
            return f"Loading all workspaces · {here}…"
        if self.scope == WORKSPACE and here == 0:
            return f"No sessions in this workspace — Tab shows all workspaces · {there}"
        if here == 0:
            return "No sessions in any workspace"
        if self.scope == WORKSPACE:
            return "No matching session in this workspace — Tab searches all workspaces"
        return "No matching session"

    @property
    def note(self) -> str | None:
        """One line about what could not be listed (a broken index, an agent store it cannot read)."""
        if self.all_error is not None and self.scope == ALL and not self.show_archived:
            return f"Cannot list all workspaces: {clean(self.all_error)}"
        return self._note

    _note: str | None = None

    def set_note(self, text: str | None) -> None:
        self._note = clean(text) if text else None

    def footer(self) -> str:
        tab = "Tab: all workspaces" if self.scope == WORKSPACE else "Tab: this workspace"
        if self.show_archived:
            return f"↑↓ move · {tab} · C-d bring back · C-a: not archived · Esc close"
        return f"↑↓ move · Enter resume · {tab} · C-r rename · C-d archive · C-a archived · Esc close"

    # -- drawing -----------------------------------------------------------------------------------

    def frame(
        self, width: int, height: int, *, edit: tuple[str, str] | None = None, typed: str | None = None
    ) -> list[Line]:
        """The whole picker as `height` lines of (style, text) fragments, each exactly `width` wide.

        `edit` = (prompt, text) replaces the query line, for an inline edit such as a rename. `typed`: the
        query as typed, shown on the query line before it is ranked (the rows are the last query's).
        """
        return draw(self, width, height, edit, typed)

    def rows_height(self, height: int) -> int:
        """Lines the row list gets in a frame `height` lines tall (for paging by a screenful)."""
        return rows_height(height)

    def cursor(self, width: int, typed: str | None = None) -> tuple[int, int]:
        """Where the text cursor goes: after the query (or `typed`, see `frame`), on the query line."""
        return min(max(0, width - 1), 2 + cells(clean(self.query if typed is None else typed, 10_000))), 1
