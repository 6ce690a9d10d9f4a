"""The /resume picker as plain data: scope, query, ranked rows, selection, row budget, and its drawing."""

from __future__ import annotations

import os
import unicodedata
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from itertools import pairwise
from operator import attrgetter
from typing import NamedTuple

from dsh.resume.candidates import Candidate, clean
from dsh.resume.fuzzy import match
from dsh.resume.search import FuzzyIndex, Ranking

WORKSPACE = "workspace"
ALL = "all"

Fragment = tuple[str, str]
Line = list[Fragment]

S_SCOPE = "class:picker.scope bold"
S_QUERY = "class:picker.query"
S_COUNT = "class:picker.count fg:ansibrightblack"
S_ROW = "class:picker.row"
S_MATCH = "class:picker.match bold fg:ansiyellow"
S_SELECTED = "reverse"
S_DISABLED = "fg:ansibrightblack"
S_META = "class:picker.meta fg:ansibrightblack"
S_LABEL = "class:picker.label fg:ansicyan"
S_PREVIEW = "class:picker.preview"
S_PREVIEW_HEAD = "class:picker.preview-head fg:ansibrightblack"
S_FOOTER = "class:picker.footer fg:ansibrightblack"
S_EMPTY = "class:picker.empty italic"

# Work a keystroke may spend ranking rows beyond the exact head; the rest is refined between keys.
KEYSTROKE_BUDGET = 0.005
_PREVIEW_MAX = 5
_FIXED_LINES = 4  # scope line, query line, preview rule, footer


def cells(text: str) -> int:
    """Terminal columns `text` takes (wide East Asian characters take two, combining marks none)."""
    if text.isascii():
        return len(text)
    total = 0
    for ch in text:
        if unicodedata.combining(ch):
            continue
        total += 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
    return total


def age(updated_at: str, now: datetime) -> str:
    """`45s`, `3m`, `2h`, `5d`, `2y` since `updated_at` (an ISO-8601 time); `?` when unreadable."""
    try:
        then = datetime.fromisoformat(updated_at)
    except ValueError:
        return "?"
    if then.tzinfo is None:
        then = then.replace(tzinfo=UTC)
    seconds = max(0, int((now - then).total_seconds()))
    for unit, size in (("y", 365 * 86400), ("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{seconds // size}{unit}"
    return f"{seconds}s"


def _fit(fragments: Iterable[Fragment], width: int, pad_style: str = "") -> Line:
    """Cut fragments to `width` columns (an ellipsis marks a cut) and pad them out to exactly `width`."""
    out: Line = []
    used = 0
    frags = [f for f in fragments if f[1]]
    total = sum(cells(t) for _, t in frags)
    limit = width if total <= width else max(0, width - 1)
    for style, text in frags:
        if used >= limit:
            break
        room = limit - used
        if cells(text) > room:
            kept = ""
            for ch in text:
                if cells(kept + ch) > room:
                    break
                kept += ch
            text = kept
        out.append((style, text))
        used += cells(text)
    if total > width and width > 0:
        out.append((out[-1][0] if out else pad_style, "…"))
        used += 1
    if used < width:
        out.append((pad_style, " " * (width - used)))
    return out


def _highlight(text: str, positions: Iterable[int], base: str, match: str) -> Line:
    """`text` as fragments, the characters at `positions` in the match style."""
    marked = set(positions)
    if not marked:
        return [(base, text)]
    out: Line = []
    run_start = 0
    run_marked = 0 in marked
    for i in range(1, len(text) + 1):
        here = i < len(text) and (i in marked)
        if i == len(text) or here != run_marked:
            out.append((match if run_marked else base, text[run_start:i]))
            run_start, run_marked = i, here
    return out


def _merge(style: str, extra: str) -> str:
    return f"{style} {extra}".strip() if extra else style


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


def search_texts(rows: Sequence[Candidate], with_label: bool) -> list[str]:
    """What a search of a scope matches, one text per row (the workspace label only in `all`)."""
    if with_label:
        return [f"{c.title} {c.first_input} {c.id} {c.workspace_label}" for c in rows]
    return [f"{c.title} {c.first_input} {c.id}" for c in rows]


class AllRows(NamedTuple):
    """Every workspace's rows, made ready off the event loop for `PickerModel.add_all`."""

    rows: list[Candidate]  # newest first
    here: list[Candidate]  # those of the workspace scope, in the same order
    index: FuzzyIndex | None  # the `all` scope's search index over `rows`, or None to build it later
    error: str | None = None  # why the rows could not be listed (then `rows` is empty)


def prepare_all(
    candidates: Iterable[Candidate],
    *,
    current_cwd: str,
    current_workspace: str | None,
    with_index: bool = True,
    error: str | None = None,
) -> AllRows:
    """Sort, split off this workspace's rows and index `candidates`: the slow part of `add_all`.

    Builds only new objects, so it may run on a worker thread while the model is used on the loop.
    """
    rows = newest_first(candidates)
    here = os.path.normpath(current_cwd) if current_cwd else current_cwd
    mine = [c for c in rows if in_workspace(c, here, current_workspace)]
    index = FuzzyIndex(search_texts(rows, with_label=True)) if with_index else None
    return AllRows(rows, mine, index, error)


class _Scope:
    """The rows of one scope, their search index (built on first search) and the current ranking."""

    def __init__(self, rows: list[Candidate], with_label: bool) -> None:
        self.rows = rows
        self.with_label = with_label
        self._index: FuzzyIndex | None = None
        self.ranking: Ranking | None = None

    def text(self, c: Candidate) -> str:
        parts = [c.title, c.first_input, c.id]
        if self.with_label:
            parts.append(c.workspace_label)
        return " ".join(parts)

    @property
    def index(self) -> FuzzyIndex:
        if self._index is None:
            self._index = FuzzyIndex(search_texts(self.rows, self.with_label))
        return self._index

    def reset(self, rows: list[Candidate], index: FuzzyIndex | None = None) -> None:
        self.rows = rows
        self._index = index if index is not None and len(index) == len(rows) else None
        self.ranking = None


class PickerModel:
    """The picker over `candidates` (any order); `current_cwd` names the workspace scope.

    With `all_count`, `candidates` are only this workspace's rows (the fast open): the `all` scope
    says it is loading, counts `all_count` rows, and fills in when `add_all` hands it every row.
    """

    def __init__(
        self,
        candidates: Sequence[Candidate],
        *,
        current_cwd: str,
        now: datetime | float,
        current_workspace: str | None = None,
        all_count: int | None = None,
    ) -> None:
        self.now = now if isinstance(now, datetime) else datetime.fromtimestamp(now, UTC)
        if self.now.tzinfo is None:
            self.now = self.now.replace(tzinfo=UTC)
        self.current_cwd = os.path.normpath(current_cwd) if current_cwd else current_cwd
        self.current_workspace = current_workspace
        everything = newest_first(candidates)
        here = [c for c in everything if self._here(c)]
        self._scopes = {
            WORKSPACE: _Scope(here, with_label=False),
            ALL: _Scope(everything if all_count is None else [], with_label=True),
        }
        self.all_loaded = all_count is None
        self._all_count = all_count or 0
        self.all_error: str | None = None
        # Renames and archives made here, applied again to rows that arrive later (the index may not
        # have seen them yet).
        self._renamed: dict[str, str] = {}
        self._archived: set[str] = set()
        self.scope = WORKSPACE
        self.query = ""
        self.selected_index = 0
        self._top = 0
        self._last_height = 20

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
        chosen = self.selected if self.selected_index > 0 else None
        everything, here, index = rows.rows, rows.here, rows.index
        if self._renamed or self._archived:
            everything = self._with_local_edits(everything)
            here = self._with_local_edits(here)
            index = None
        changed = {ALL: True, WORKSPACE: here != self._scopes[WORKSPACE].rows}
        self._scopes[ALL].reset(everything, index)
        if changed[WORKSPACE]:
            self._scopes[WORKSPACE].reset(here)
        self.all_loaded = True
        self.all_error = None
        if not changed[self.scope]:
            return
        if self.query.split():
            self._rank(self.query)
        else:
            self._scopes[self.scope].ranking = None
        found = None if chosen is None else self._find(chosen.id, max(64, self.selected_index * 2 + 64))
        self.selected_index = found or 0
        self._top = min(self._top, self.selected_index)

    def _with_local_edits(self, rows: list[Candidate]) -> list[Candidate]:
        out = []
        for c in rows:
            if c.id in self._archived:
                continue
            title = self._renamed.get(c.id)
            out.append(c if title is None else c._replace(title=title))
        return out

    # -- scope and query ---------------------------------------------------------------------------

    @property
    def other_scope(self) -> str:
        return ALL if self.scope == WORKSPACE else WORKSPACE

    def toggle_scope(self) -> None:
        """Switch scope; the query and the selection start over, so the highlight is always a visible row."""
        self.scope = self.other_scope
        self.query = ""
        for scope in self._scopes.values():
            scope.ranking = None
        self.selected_index = 0
        self._top = 0

    def set_query(self, text: str) -> None:
        self.query = text
        self.selected_index = 0
        self._top = 0
        scope = self._scopes[self.scope]
        if not text.split():
            scope.ranking = None
            return
        self._rank(text)

    def _rank(self, text: str) -> None:
        scope = self._scopes[self.scope]
        ranking = scope.index.search(text, want=max(64, self._capacity(self._last_height) * 2))
        if not ranking.exact(self._capacity(self._last_height)):
            ranking.refine(KEYSTROKE_BUDGET)
        scope.ranking = ranking

    def prepare(self) -> None:
        """Build the search index of every scope now (it is otherwise built by the first search in it)."""
        for name, scope in self._scopes.items():
            if name == ALL and not self.all_loaded:
                continue  # its rows are not here yet; they come with their index
            scope.index  # noqa: B018 -- the property builds and keeps it

    @property
    def pending(self) -> bool:
        """Whether rows are still being ranked (call `refine` until it says no)."""
        ranking = self._scopes[self.scope].ranking
        return ranking is not None and not ranking.complete

    def refine(self, budget: float = 0.02) -> bool:
        """Rank more rows for about `budget` seconds; True while work remains. Keeps the highlighted row."""
        scope = self._scopes[self.scope]
        ranking = scope.ranking
        if ranking is None or ranking.complete:
            return False
        chosen = self.selected
        more = ranking.refine(budget)
        if chosen is not None and self.selected_index > 0:
            found = self._find(chosen.id, self.selected_index + self._capacity(self._last_height))
            self.selected_index = found if found is not None else 0
            self._top = min(self._top, self.selected_index)
        return more

    def _find(self, session_id: str, limit: int) -> int | None:
        for i, c in enumerate(self._ranked(limit)):
            if c.id == session_id:
                return i
        return None

    # -- rows --------------------------------------------------------------------------------------

    def _ranked(self, n: int) -> list[Candidate]:
        scope = self._scopes[self.scope]
        if scope.ranking is None:
            return scope.rows[:n]
        return [scope.rows[i] for i in scope.ranking.head(n)]

    def _count(self) -> int:
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
        if name == ALL and not self.all_loaded:
            return self._all_count
        return len(self._scopes[name].rows)

    @property
    def loading(self) -> bool:
        """Whether the active scope's rows are still on their way."""
        return self.scope == ALL and not self.all_loaded

    def match_positions(self, c: Candidate) -> dict[str, tuple[int, ...]]:
        """Matched character positions per field (`title`, `first_input`, `id`, `label`) of one row."""
        fields = {"title": (), "first_input": (), "id": (), "label": ()}
        if not self.query.split():
            return fields
        scope = self._scopes[self.scope]
        found = match(self.query, scope.text(c))
        if found is None:
            return fields
        names = ["title", "first_input", "id"] + (["label"] if scope.with_label else [])
        values = [c.title, c.first_input, c.id, c.workspace_label]
        start = 0
        out: dict[str, list[int]] = {name: [] for name in fields}
        bounds = []
        for name, value in zip(names, values, strict=False):
            bounds.append((name, start, start + len(value)))
            start += len(value) + 1
        for pos in found.positions:
            for name, lo, hi in bounds:
                if lo <= pos < hi:
                    out[name].append(pos - lo)
                    break
        return {name: tuple(v) for name, v in out.items()}

    # -- moving ------------------------------------------------------------------------------------

    def _clamp(self, index: int) -> None:
        count = self._count()
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
        self._clamp(self._count() - 1)

    def lines_per_row(self) -> int:
        """Rows of the `all` scope carry their workspace on a second line."""
        return 2 if self.scope == ALL else 1

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
            return "all workspaces are still loading" if self.loading else "no session to resume here"
        if chosen.unresumable_reason:
            return chosen.unresumable_reason
        return chosen

    def rename(self, session_id: str, title: str) -> None:
        if clean(title):
            self._renamed[session_id] = clean(title)
        self._update(session_id, lambda c: c._replace(title=clean(title) or c.title))

    def archive(self, session_id: str) -> None:
        self._archived.add(session_id)
        self._update(session_id, None)

    def _update(self, session_id: str, change: object) -> None:
        for scope in self._scopes.values():
            rows: list[Candidate] = []
            touched = False
            for c in scope.rows:
                if c.id != session_id:
                    rows.append(c)
                    continue
                touched = True
                if callable(change):
                    rows.append(change(c))
            if touched:
                scope.reset(rows)
        query = self.query
        index = self.selected_index
        if query.split():
            self.set_query(query)
        self._clamp(index)

    # -- text --------------------------------------------------------------------------------------

    def scope_line(self) -> str:
        here, there = self.counts
        if self.scope == WORKSPACE:
            return f"This workspace · {here} — Tab: all workspaces · {there}"
        return f"All workspaces · {here} — Tab: this workspace · {there}"

    def empty_message(self) -> str:
        """What the row area says when it has no rows."""
        here, there = self.counts
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

    def footer(self) -> str:
        tab = "Tab: all workspaces" if self.scope == WORKSPACE else "Tab: this workspace"
        return f"↑↓ move · Enter resume · {tab} · C-r rename · C-d archive · Esc close"

    # -- drawing -----------------------------------------------------------------------------------

    def frame(self, width: int, height: int, *, edit: tuple[str, str] | None = None) -> list[Line]:
        """The whole picker as `height` lines of (style, text) fragments, each exactly `width` wide.

        `edit` = (prompt, text) replaces the query line, for an inline edit such as a rename.
        """
        width = max(0, width)
        height = max(0, height)
        lines: list[Line] = []
        lines.append(_fit([(S_SCOPE, self.scope_line())], width))
        lines.append(self._query_line(width, edit))
        preview_lines = self._preview_height(height)
        rows_height = self.rows_height(height)
        rows = self.window(rows_height)
        body: list[Line] = []
        if not rows:
            body.append(_fit([(S_EMPTY, "  " + self.empty_message())], width))
        for offset, c in enumerate(rows):
            body.extend(self._row_lines(c, self._top + offset == self.selected_index, width))
        while len(body) < rows_height:
            body.append(_fit([], width))
        lines.extend(body[:rows_height])
        rule = "── preview "
        lines.append(_fit([(S_PREVIEW_HEAD, rule + "─" * max(0, width - cells(rule)))], width))
        lines.extend(self._preview(width, preview_lines))
        lines.append(_fit([(S_FOOTER, self.footer())], width))
        while len(lines) < height:
            lines.insert(-1, _fit([], width))
        return lines[:height]

    @staticmethod
    def _preview_height(height: int) -> int:
        return min(_PREVIEW_MAX, max(0, (height - _FIXED_LINES) // 3))

    def rows_height(self, height: int) -> int:
        """Lines the row list gets in a frame `height` lines tall (for paging by a screenful)."""
        return max(0, height - _FIXED_LINES - self._preview_height(height))

    def _query_line(self, width: int, edit: tuple[str, str] | None) -> Line:
        if edit is not None:
            prompt, text = edit
            return _fit([(S_SCOPE, prompt), (S_QUERY, clean(text, 10_000))], width)
        count = self._count()
        shown = "…" if self.loading else f"{count}{'…' if self.pending else ''}"
        right = f" {shown}/{self.counts[0]} "
        left_room = max(0, width - cells(right))
        left = _fit([(S_SCOPE, "> "), (S_QUERY, clean(self.query, 10_000))], left_room)
        return [*left, (S_COUNT, right)] if cells(right) <= width else _fit(left, width)

    def _row_lines(self, c: Candidate, selected: bool, width: int) -> list[Line]:
        marks = self.match_positions(c)
        base = S_DISABLED if c.disabled else S_ROW
        match_style = S_DISABLED + " underline" if c.disabled else S_MATCH
        sel = S_SELECTED if selected else ""
        meta = f"{age(c.updated_at, self.now):>4}  {c.pane_count} pane{'s' if c.pane_count != 1 else ''} "
        left: Line = [(_merge(base, sel), "▸ " if selected else "  ")]
        left += [(_merge(s, sel), t) for s, t in _highlight(c.title, marks["title"], base, match_style)]
        if c.unresumable_reason:
            left.append((_merge(S_DISABLED, sel), f"  — {c.unresumable_reason}"))
        elif c.live_pid is not None:
            left.append((_merge(S_META, sel), f"  ● {c.state}"))  # Enter attaches its running host
        room = max(0, width - cells(meta) - 1)
        first = [*_fit(left, room, _merge(base, sel)), (_merge(base, sel), " "), (_merge(S_META, sel), meta)]
        first = _fit(first, width, _merge(base, sel))
        out = [first]
        if self.scope == ALL:
            label_style = S_DISABLED if c.disabled else S_LABEL
            frags = [(_merge(label_style, sel), "    ")]
            frags += [
                (_merge(s, sel), t)
                for s, t in _highlight(c.workspace_label, marks["label"], label_style, match_style)
            ]
            out.append(_fit(frags, width, _merge(label_style, sel)))
        return out

    def _preview(self, width: int, count: int) -> list[Line]:
        if count <= 0:
            return []
        chosen = self.selected
        lines: list[Line] = []
        if chosen is not None:
            # Matches in the id or the first input show here, since the row itself shows neither.
            marks = self.match_positions(chosen)
            where = chosen.workspace_label if chosen.cwd else "no recorded workspace"
            head: Line = [(S_PREVIEW_HEAD, "  ")]
            head += _highlight(chosen.id, marks["id"], S_PREVIEW_HEAD, S_MATCH)
            head.append((S_PREVIEW_HEAD, f" · {where}"))
            lines.append(_fit(head, width))
            body: list[Line] = [[(S_PREVIEW, clean(line))] for line in chosen.preview]
            if not body:
                if chosen.first_input:
                    body = [_highlight(chosen.first_input, marks["first_input"], S_PREVIEW, S_MATCH)]
                else:
                    body = [[(S_PREVIEW, "(nothing recorded yet)")]]
            for frags in body[-(count - 1) :] if count > 1 else []:
                lines.append(_fit([(S_PREVIEW, "  "), *frags], width))
        while len(lines) < count:
            lines.append(_fit([], width))
        return lines[:count]

    def cursor(self, width: int) -> tuple[int, int]:
        """Where the text cursor goes: after the query, on the query line."""
        return min(max(0, width - 1), 2 + cells(clean(self.query, 10_000))), 1


def render_text(lines: Sequence[Line]) -> str:
    """A frame as plain text, one line per row, trailing spaces kept out (for snapshots)."""
    return "\n".join("".join(text for _, text in line).rstrip() for line in lines) + "\n"
