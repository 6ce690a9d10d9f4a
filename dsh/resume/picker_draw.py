"""Drawing the /resume picker: the frame as lines of (style, text) fragments, each exactly as wide as asked.

Rows tell sessions apart: title (or why it cannot be resumed), then the agent, branch, lines typed (or
messages), panes and age; in every workspace, the workspace below. The preview adds the id, the absolute
date, the state and the agents, the line a transcript search matched, and the last lines typed.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime, tzinfo
from typing import TYPE_CHECKING

from dsh.resume.candidates import Candidate, clean

if TYPE_CHECKING:
    from dsh.resume.picker import PickerModel

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
S_AGENT = "class:picker.agent fg:ansimagenta"
S_LABEL = "class:picker.label fg:ansicyan"
S_PREVIEW = "class:picker.preview"
S_PREVIEW_HEAD = "class:picker.preview-head fg:ansibrightblack"
S_FOOTER = "class:picker.footer fg:ansibrightblack"
S_EMPTY = "class:picker.empty italic"
S_NOTE = "class:picker.note fg:ansiyellow"

PREVIEW_MAX = 5
FIXED_LINES = 4  # scope line, query line, preview rule, footer


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


def _parse(stamp: str) -> datetime | None:
    try:
        then = datetime.fromisoformat(stamp)
    except ValueError:
        return None
    return then if then.tzinfo is not None else then.replace(tzinfo=UTC)


def age(updated_at: str, now: datetime) -> str:
    """`45s`, `3m`, `2h`, `5d`, `2y` since `updated_at` (an ISO-8601 time); `?` when unreadable."""
    then = _parse(updated_at)
    if then is None:
        return "?"
    seconds = max(0, int((now - then).total_seconds()))
    for unit, size in (("y", 365 * 86400), ("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{seconds // size}{unit}"
    return f"{seconds}s"


def absolute_date(stamp: str, zone: tzinfo | None = None) -> str:
    """`2026-11-29 20:57 UTC` (local time unless `zone` is given); `?` when unreadable."""
    then = _parse(stamp)
    if then is None:
        return "?"
    return then.astimezone(zone).strftime("%Y-%m-%d %H:%M %Z").strip()


def fit(fragments: Iterable[Fragment], width: int, pad_style: str = "") -> Line:
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


def highlight(text: str, positions: Iterable[int], base: str, match: str) -> Line:
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


def substring_positions(text: str, query: str) -> list[int]:
    """Where each term of `query` occurs in `text`, case-insensitively (for a transcript line's match)."""
    lowered = text.lower()
    marked: list[int] = []
    for term in query.lower().split():
        start = lowered.find(term)
        while start >= 0 and term:
            marked.extend(range(start, start + len(term)))
            start = lowered.find(term, start + len(term))
    return marked


def merge(style: str, extra: str) -> str:
    return f"{style} {extra}".strip() if extra else style


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'s' if count != 1 else ''}"


def row_meta(c: Candidate, now: datetime) -> list[Fragment]:
    """What the right of a row says: agent, branch, lines typed or messages, panes, age."""
    parts: list[Fragment] = []
    if c.is_agent:
        parts.append((S_AGENT, c.kind))
    if c.branch:
        parts.append((S_META, c.branch if len(c.branch) <= 24 else c.branch[:23] + "…"))
    if c.is_agent:
        if c.input_count:
            parts.append((S_META, _plural(c.input_count, "msg")))
    else:
        parts.append((S_META, _plural(c.input_count, "line")))
        parts.append((S_META, _plural(c.pane_count, "pane")))
    out: list[Fragment] = []
    for i, part in enumerate(parts):
        if i:
            out.append((S_META, " · "))
        out.append(part)
    out.append((S_META, f" {age(c.updated_at, now):>4} "))
    return out


def draw(
    model: PickerModel, width: int, height: int, edit: tuple[str, str] | None = None, typed: str | None = None
) -> list[Line]:
    """The whole picker as `height` lines, each exactly `width` wide (see PickerModel.frame)."""
    width = max(0, width)
    height = max(0, height)
    lines: list[Line] = [fit([(S_SCOPE, model.scope_line())], width), _query_line(model, width, edit, typed)]
    preview_lines = preview_height(height)
    height_for_rows = rows_height(height)
    rows = model.window(height_for_rows)
    body: list[Line] = []
    if not rows:
        body.append(fit([(S_EMPTY, "  " + model.empty_message())], width))
    top = model.window_top
    for offset, c in enumerate(rows):
        body.extend(_row_lines(model, c, top + offset == model.selected_index, width))
    while len(body) < height_for_rows:
        body.append(fit([], width))
    lines.extend(body[:height_for_rows])
    note = model.note
    if note:
        # What could not be listed takes the preview's rule: one line, never a row less.
        text = f"⚠ {note} "
        fill = "─" * max(0, width - 3 - cells(text))
        lines.append(fit([(S_PREVIEW_HEAD, "── "), (S_NOTE, text), (S_PREVIEW_HEAD, fill)], width))
    else:
        rule = "── preview "
        lines.append(fit([(S_PREVIEW_HEAD, rule + "─" * max(0, width - cells(rule)))], width))
    lines.extend(_preview(model, width, preview_lines))
    lines.append(fit([(S_FOOTER, model.footer())], width))
    while len(lines) < height:
        lines.insert(-1, fit([], width))
    return lines[:height]


def preview_height(height: int) -> int:
    return min(PREVIEW_MAX, max(0, (height - FIXED_LINES) // 3))


def rows_height(height: int) -> int:
    """Lines the row list gets in a frame `height` lines tall (for paging by a screenful)."""
    return max(0, height - FIXED_LINES - preview_height(height))


def _query_line(model: PickerModel, width: int, edit: tuple[str, str] | None, typed: str | None = None) -> Line:
    if edit is not None:
        prompt, text = edit
        return fit([(S_SCOPE, prompt), (S_QUERY, clean(text, 10_000))], width)
    if typed is not None and typed != model.query:
        shown = "…"  # typed, not yet ranked: the rows below are still the last query's
    else:
        count = model.count()
        shown = "…" if model.loading else f"{count}{'…' if model.counting or model.partial else ''}"
    right = f" {shown}/{model.counts[0]} "
    left_room = max(0, width - cells(right))
    left = fit([(S_SCOPE, "> "), (S_QUERY, clean(model.query if typed is None else typed, 10_000))], left_room)
    return [*left, (S_COUNT, right)] if cells(right) <= width else fit(left, width)


def _row_lines(model: PickerModel, c: Candidate, selected: bool, width: int) -> list[Line]:
    marks = model.match_positions(c)
    base = S_DISABLED if c.disabled else S_ROW
    match_style = S_DISABLED + " underline" if c.disabled else S_MATCH
    sel = S_SELECTED if selected else ""
    meta = [(merge(style, sel), text) for style, text in row_meta(c, model.now)]
    left: Line = [(merge(base, sel), "▸ " if selected else "  ")]
    left += [(merge(s, sel), t) for s, t in highlight(c.title, marks["title"], base, match_style)]
    elsewhere = model.row_match(c)
    if elsewhere is not None:
        # Why the row is listed, in the row: the typed line or prompt the query met.
        text, positions = elsewhere
        left.append((merge(S_META, sel), "  › "))
        left += [(merge(s, sel), t) for s, t in highlight(text, positions, S_META, match_style)]
    if c.unresumable_reason:
        left.append((merge(S_DISABLED, sel), f"  — {c.unresumable_reason}"))
    elif c.live_pid is not None:
        left.append((merge(S_META, sel), f"  ● {c.state}"))  # Enter attaches its running host
        agents = model.agents_of(c.id) if model.agents_of is not None and c.machine is None else ""
        if agents:
            left.append((merge(S_META, sel), f" · {agents}"))
    elif c.state == "crashed":
        left.append((merge(S_META, sel), "  ✗ crashed"))  # Enter restores it from its snapshot
    room = max(0, width - sum(cells(t) for _, t in meta) - 1)
    first = fit([*fit(left, room, merge(base, sel)), (merge(base, sel), " "), *meta], width, merge(base, sel))
    out = [first]
    if model.with_labels:
        label_style = S_DISABLED if c.disabled else S_LABEL
        frags = [(merge(label_style, sel), "    ")]
        frags += [(merge(s, sel), t) for s, t in highlight(c.workspace_label, marks["label"], label_style, match_style)]
        out.append(fit(frags, width, merge(label_style, sel)))
    return out


def preview_head(model: PickerModel, c: Candidate) -> Line:
    """Id, workspace, absolute date, state and agents of the highlighted row."""
    marks = model.match_positions(c)
    where = c.workspace_label if c.cwd else "no recorded workspace"
    head: Line = [(S_PREVIEW_HEAD, "  ")]
    if c.is_agent:
        head.append((S_AGENT, f"{c.kind} "))
    head += highlight(c.id, marks["id"], S_PREVIEW_HEAD, S_MATCH)
    facts = [where, absolute_date(c.updated_at, model.tz)]
    if c.state:
        facts.append(c.state)
    if c.archived:
        facts.append("archived")
    if c.is_agent and c.input_count:
        facts.append(_plural(c.input_count, "message"))
    if c.agents:
        facts.append(", ".join(f"{k.partition(':')[0]} {k.partition(':')[2]}" for k in c.agents))
    head.append((S_PREVIEW_HEAD, " · " + " · ".join(facts)))
    return head


def _preview(model: PickerModel, width: int, count: int) -> list[Line]:
    if count <= 0:
        return []
    chosen = model.selected
    lines: list[Line] = []
    if chosen is not None:
        marks = model.match_positions(chosen)
        lines.append(fit(preview_head(model, chosen), width))
        body: list[Line] = [[(S_PREVIEW, clean(line))] for line in chosen.preview]
        if not body:
            if chosen.first_input:
                body = [highlight(chosen.first_input, marks["first_input"], S_PREVIEW, S_MATCH)]
            else:
                body = [[(S_PREVIEW, "(nothing recorded yet)")]]
        matched = model.transcript_line(chosen)
        if matched is not None:
            # The line the transcript search found leads, so a match deep in a session is seen at once.
            found: Line = [(S_PREVIEW_HEAD, "matched: ")]
            found += highlight(matched, substring_positions(matched, model.query), S_PREVIEW, S_MATCH)
            body = [found, *[line for line in body if "".join(t for _, t in line) != matched]]
            body = body[: max(1, count - 1)]
        else:
            body = body[-(count - 1) :] if count > 1 else []
        picture = _thumbnail_rows(model, chosen, width, count - 1)
        if picture is None:
            for frags in body[: max(0, count - 1)]:
                lines.append(fit([(S_PREVIEW, "  "), *frags], width))
        else:
            # The saved screen beside the typed lines: a small picture of where the session was.
            side = len(picture[0]) if picture else 0
            left = max(10, width - side - 3)
            body = body[: max(0, count - 1)]
            for i in range(max(0, count - 1)):
                frags = body[i] if i < len(body) else []
                row = fit([(S_PREVIEW, "  "), *frags], left)
                lines.append(fit([*row, (S_PREVIEW_HEAD, " │ "), (S_PREVIEW, picture[i])], width))
    while len(lines) < count:
        lines.append(fit([], width))
    return lines[:count]


# The preview's picture of a session's last screen needs this much width beside the typed lines.
THUMBNAIL_MIN_WIDTH = 70


def _thumbnail_rows(model: PickerModel, chosen: Candidate, width: int, count: int) -> list[str] | None:
    """The picture's rows, each padded to one width, bottom-aligned in `count` rows; None when there is no
    picture of this row (the view loads them: `model.thumbnails`, by id) or no room for one."""
    screens = model.thumbnails
    screen = screens.get(chosen.id) if screens and not chosen.is_agent else None
    if not screen or count <= 0 or width < THUMBNAIL_MIN_WIDTH:
        return None
    from dsh.layout.choose_tree import thumbnail

    side = min(48, width // 2 - 2)
    rows = thumbnail(screen, side, count)
    if not rows:
        return None
    rows = [""] * (count - len(rows)) + rows
    return [row + " " * (side - cells(row)) for row in rows]


def render_text(lines: Sequence[Line]) -> str:
    """A frame as plain text, one line per row, trailing spaces kept out (for snapshots)."""
    return "\n".join("".join(text for _, text in line).rstrip() for line in lines) + "\n"
