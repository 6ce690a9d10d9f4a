"""Naming a session (or a pane) the way a person types it: an id, a unique start of one, or a title.

Pure: the caller gives the candidates (live hosts, the index's rows, a session's panes) and gets one
back, or a `TargetError` whose message is one line for the user. Used by `dsh send -t`, `dsh attach`,
`dsh stop`, `dsh --resume` and every other place an id is taken.

    from dsh.store.targets import Candidate, TargetError, resolve

    try:
        chosen = resolve(word, [Candidate(id, title) for id, title in rows])
    except TargetError as exc:            # exc.candidates: the ones it could be (ambiguous), or []
        fail(str(exc))

How `word` is matched, the first rule that finds anything wins:

1. the exact id;
2. the exact title, or the title's slug (`My API work` is `my-api-work`), case-insensitive;
3. a unique start of the id, or of its random part (`3f9a` for `20261129T203000Z-3f9a1c`);
4. a unique start of the title's slug.

A rule that finds more than one candidate raises `TargetError` listing them (never picks one):
`dsh stop 2026` must not stop the wrong session. Candidates with the same id count once.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

__all__ = ["Candidate", "TargetError", "resolve", "slug"]

_NOT_SLUG = re.compile(r"[^a-z0-9]+")
# Candidates named in an "ambiguous" message: more would not fit a line.
SHOWN = 5


class Candidate:
    """Something a word may name: its `id` and its `title` (may be empty); `value` is carried along
    for the caller (a row, a socket path) and handed back untouched."""

    __slots__ = ("id", "title", "value")

    def __init__(self, id: str, title: str = "", value: object = None) -> None:
        self.id = id
        self.title = title or ""
        self.value = value

    def __repr__(self) -> str:
        return f"Candidate({self.id!r}, {self.title!r})"


class TargetError(LookupError):
    """No candidate, or several, answer to the word; `candidates` holds the several (else empty)."""

    def __init__(self, message: str, candidates: list[Candidate] | None = None) -> None:
        super().__init__(message)
        self.candidates = list(candidates or [])


def slug(title: str) -> str:
    """A title as one typeable word: lower case, runs of anything but letters and digits as `-`."""
    return _NOT_SLUG.sub("-", title.lower()).strip("-")


def _random_part(candidate_id: str) -> str:
    """What follows the time in a generated id (`20261129T203000Z-3f9a1c` -> `3f9a1c`), else ""."""
    head, sep, tail = candidate_id.partition("-")
    return tail if sep and head[:1].isdigit() else ""


def resolve(word: str, candidates: Iterable[Candidate], *, what: str = "session") -> Candidate:
    """The one candidate `word` names (see the module's rules); `what` names the kind in messages."""
    unique: dict[str, Candidate] = {}
    for candidate in candidates:
        unique.setdefault(candidate.id, candidate)
    pool = list(unique.values())
    if not word:
        raise TargetError(f"no {what} named ''")
    if word in unique:
        return unique[word]
    lowered = word.lower()
    word_slug = slug(word)
    rules: tuple[Callable[[Candidate], bool], ...] = (
        lambda c: (c.title != "" and c.title.lower() == lowered) or (word_slug != "" and slug(c.title) == word_slug),
        lambda c: c.id.startswith(word) or _random_part(c.id).startswith(word),
        lambda c: word_slug != "" and slug(c.title).startswith(word_slug),
    )
    for rule in rules:
        found = [c for c in pool if rule(c)]
        if len(found) == 1:
            return found[0]
        if found:
            raise TargetError(_ambiguous(word, found, what), found)
    raise TargetError(f"no {what} {_shown(word)}")


def _ambiguous(word: str, found: list[Candidate], what: str) -> str:
    from dsh.text import sanitize  # titles come from disk and programs

    named = ", ".join(f"{c.id} ({sanitize(c.title, max_len=40)})" if c.title else c.id for c in found[:SHOWN])
    more = f" and {len(found) - SHOWN} more" if len(found) > SHOWN else ""
    return f"{_shown(word)} could be any of {len(found)} {what}s: {named}{more}; give more of the id"


def _shown(word: str) -> str:
    from dsh.text import sanitize

    return repr(sanitize(word, max_len=60))
