"""Fuzzy search over many rows at once: cheap prefilter, narrowing, and ranking refined in bounded steps.

Scoring every row exactly is far too slow in Python at 100,000 rows, so a search is split:
- rows where every term occurs whole right after whitespace score the most any row can score, so they lead,
  in tie-break order, without being scored; they are found with `str.find` over one joined string, and
  when there are enough of them the visible head is exact at once;
- the other rows are filtered and scored in steps bounded by a time budget (`Ranking.refine`), so a
  keystroke never waits for all of them; until the last step their order is provisional.
Rows are kept internally in tie-break order (shorter, then newer), so every list of row numbers is
ascending, a stable sort on score alone breaks ties right, and scans walk memory in order.
"""

from __future__ import annotations

import bisect
import heapq
import re
import time
from collections.abc import Sequence
from itertools import accumulate

from dsh.resume.fuzzy import (
    NON_WORD,
    Match,
    char_class,
    fold,
    is_case_sensitive,
    score_term,
    split_terms,
)

_SPACE = re.compile(r"\s")
_SPACE_NOT_NEWLINE = re.compile(r"[^\S\n]")
_CHUNK = 128
_BUILD_SLICE = 4096


def _subsequence_pattern(term: str) -> re.Pattern[str]:
    # `a[^b]*b[^c]*c` never backtracks, unlike `a.*?b.*?c`, so a miss costs one linear scan.
    parts = [re.escape(term[0])]
    for ch in term[1:]:
        esc = re.escape(ch)
        parts.append(f"[^{esc}]*{esc}")
    return re.compile("".join(parts))


def _spaced(text: str) -> str:
    # The text's start counts as whitespace, and so does every whitespace character.
    if text.isprintable():
        return " " + text
    return " " + _SPACE.sub(" ", text)


class _Joined:
    """All rows' spaced texts in one string, to find a needle across rows with C-speed `str.find`."""

    def __init__(self, spaced: list[str], text: str | None = None) -> None:
        self.text = "\n".join(spaced) if text is None else text
        # Row i starts after the i rows before it and their i newlines.
        ends = accumulate(map(len, spaced), initial=0)
        self.starts = [end + i for i, end in enumerate(ends)][: len(spaced)]

    def row_at(self, pos: int) -> int:
        return bisect.bisect_right(self.starts, pos) - 1


class Ranking:
    """The ranked rows of one query; `head(n)` is exact once `exact(n)` holds."""

    def __init__(self, index: FuzzyIndex, terms: list[str], base: list[int], want: int) -> None:
        self._index = index
        self._terms = terms
        self._base = base
        self._cursor = 0
        self._leading: list[int] = []  # leading rows met by `refine` so far
        self._scored: list[tuple[int, int]] = []  # (-score, row), in base order
        self._survivors: list[int] = []
        self._order: list[int] | None = None
        # The first leading rows of the whole base, found at once: an exact head.
        self._known_leading: list[int] = []
        # A term that starts with a non-word character earns less than the maximum even after a space,
        # so for such queries every row is ranked by score.
        self._shortcut = not any(char_class(t[0]) == NON_WORD for t in terms)
        if self._shortcut:
            self._known_leading = index.leading_rows(terms, want)
        self._patterns = [
            (index.hays(t), t, None) if len(t) == 1 else (index.hays(t), None, _subsequence_pattern(t).search)
            for t in terms
        ]

    @property
    def complete(self) -> bool:
        return self._cursor >= len(self._base)

    def exact(self, n: int) -> bool:
        """Whether the first `n` rows of `head` are final."""
        return self.complete or len(self._leading_so_far()) >= n

    def known(self) -> int:
        """How many matching rows are known now (all of them once complete)."""
        return len(self._leading_so_far()) + len(self._scored)

    def head(self, n: int) -> list[int]:
        """The best `n` rows known now (final when `exact(n)`), as the caller's row numbers."""
        order = self._index.order
        if n <= len(self._known_leading):
            return [order[i] for i in self._known_leading[:n]]
        if self.complete:
            return self.rows()[:n]
        leading = self._leading_so_far()
        scored = heapq.nsmallest(max(0, n - len(leading)), self._scored)
        return [order[i] for i in leading[:n]] + [order[i] for _, i in scored]

    def _leading_so_far(self) -> list[int]:
        """Every leading row found by either scan. Each scan found all of them up to where it got, so
        together they hold all leading rows up to the further of the two: a true prefix of the ranking."""
        if not self._leading:
            return self._known_leading
        if not self._known_leading or self._known_leading[-1] <= self._leading[-1]:
            return self._leading
        return sorted(set(self._known_leading).union(self._leading))

    def rows(self) -> list[int]:
        """Every row known to match, best first, as the caller's row numbers."""
        if self._order is None or len(self._order) != self.known():
            order = self._index.order
            # Rows were scored in tie-break order, so sorting the pairs keeps ties shorter-then-newer.
            scored = sorted(self._scored)
            self._order = [order[i] for i in self._leading_so_far()] + [order[i] for _, i in scored]
        return self._order

    def narrowed(self) -> list[int]:
        """Rows that may still match a longer query: survivors so far, then the rows not yet looked at."""
        if self.complete:
            return self._survivors
        return self._survivors + self._base[self._cursor :]

    def refine(self, budget: float) -> bool:
        """Filter and score more rows for at most about `budget` seconds; True while work remains."""
        deadline = time.perf_counter() + budget
        base = self._base
        index = self._index
        terms = self._terms
        spaced = [(index.spaced(t), " " + t) for t in terms] if self._shortcut else []
        while self._cursor < len(base):
            chunk = base[self._cursor : self._cursor + _CHUNK]
            self._cursor += len(chunk)
            for hays, char, search in self._patterns:
                if char is not None:
                    chunk = [r for r in chunk if char in hays[r]]
                elif search is not None:
                    chunk = [r for r in chunk if search(hays[r])]
            self._survivors.extend(chunk)
            for row in chunk:
                if spaced and all(needle in hays[row] for hays, needle in spaced):
                    self._leading.append(row)
                    continue
                found = index.score_internal(terms, row)
                # The prefilter is an exact subsequence test, so `found` is only None on a bug; rank it last.
                self._scored.append((-found.score if found else 0, row))
            if time.perf_counter() >= deadline:
                break
        return not self.complete


class _Everything(Ranking):
    """The ranking of an empty query: every row, newest first."""

    def __init__(self, count: int) -> None:
        self._count = count

    @property
    def complete(self) -> bool:
        return True

    def exact(self, n: int) -> bool:
        return True

    def known(self) -> int:
        return self._count

    def head(self, n: int) -> list[int]:
        return list(range(min(n, self._count)))

    def rows(self) -> list[int]:
        return list(range(self._count))

    def narrowed(self) -> list[int]:
        return []

    def refine(self, budget: float) -> bool:
        return False


class FuzzyIndex:
    """Searchable texts of many rows, given newest first; `search(query)` ranks them fzf-like."""

    def __init__(self, texts: Sequence[str]) -> None:
        lengths = list(map(len, texts))
        # Internal row i is the caller's row order[i]: shorter first, then newer (the input order).
        self.order = sorted(range(len(texts)), key=lengths.__getitem__)
        self._internal: list[int] | None = None  # the inverse of `order`, made when first needed
        self._texts = list(map(texts.__getitem__, self.order))
        self._spaced_text: list[str] | None = None
        self._joined_text: _Joined | None = None
        # One pass over many rows joined beats one call per row; rows with newlines (or characters whose
        # lowercase is longer) cannot be cut apart again and take the row-by-row way. The passes go a
        # slice of rows at a time: one C call over every row would hold the GIL for tens of ms, and an
        # index built on a worker thread would hold the event loop off that long.
        lower: list[str] = []
        spaced_lower: list[str] = []
        spaced_parts: list[str] = []
        whole = True
        for start in range(0, len(self._texts), _BUILD_SLICE):
            rows = self._texts[start : start + _BUILD_SLICE]
            big = "\n".join(rows)
            low = big.lower()
            if len(low) != len(big) or big.count("\n") != len(rows) - 1:
                whole = False
                break
            spaced = " " + low.replace("\n", "\n ")
            if not big.replace("\n", "").isprintable():
                spaced = _SPACE_NOT_NEWLINE.sub(" ", spaced)
            lower += low.split("\n")
            spaced_lower += spaced.split("\n")
            spaced_parts.append(spaced)
        if whole:
            self._lower = lower
            self._spaced_lower = spaced_lower
            self._joined_lower = _Joined(self._spaced_lower, "\n".join(spaced_parts))
        else:
            self._lower = [fold(t) for t in self._texts]
            self._spaced_lower = [_spaced(t) for t in self._lower]
            self._joined_lower = _Joined(self._spaced_lower)
        self._all = list(range(len(texts)))
        self._last: tuple[str, Ranking] | None = None

    def __len__(self) -> int:
        return len(self._texts)

    def hays(self, term: str) -> list[str]:
        return self._texts if is_case_sensitive(term) else self._lower

    def spaced(self, term: str) -> list[str]:
        """Texts with a space in front and whitespace as spaces: `" " + term` in one = after whitespace."""
        if not is_case_sensitive(term):
            return self._spaced_lower
        if self._spaced_text is None:
            self._spaced_text = [_spaced(t) for t in self._texts]
        return self._spaced_text

    def _joined(self, term: str) -> _Joined:
        if not is_case_sensitive(term):
            return self._joined_lower
        if self._joined_text is None:
            self._joined_text = _Joined(self.spaced(term))
        return self._joined_text

    def match(self, query: str, row: int) -> Match | None:
        """The exact match of `query` against one of the caller's rows (for highlighting what is drawn)."""
        terms = [t if is_case_sensitive(t) else fold(t) for t in split_terms(query)]
        if self._internal is None:
            self._internal = [0] * len(self.order)
            for i, caller_row in enumerate(self.order):
                self._internal[caller_row] = i
        return self.score_internal(terms, self._internal[row])

    def score_internal(self, terms: list[str], row: int) -> Match | None:
        text = self._texts[row]
        total = 0
        positions: set[int] = set()
        for term in terms:
            hay = text if is_case_sensitive(term) else self._lower[row]
            found = score_term(term, text, hay)
            if found is None:
                return None
            total += found[0]
            positions.update(found[1])
        return Match(total, tuple(sorted(positions)))

    def search(self, query: str, want: int = 64) -> Ranking:
        """Start ranking `query`; the first `want` rows are exact at once when enough rows lead."""
        terms = [t if is_case_sensitive(t) else fold(t) for t in split_terms(query)]
        if not terms:
            self._last = None
            return _Everything(len(self._texts))
        base = self._all
        # Extending a query can only drop rows, so the previous search narrows this one.
        if self._last is not None and query.startswith(self._last[0]):
            base = self._last[1].narrowed()
        ranking = Ranking(self, terms, base, want)
        self._last = (query, ranking)
        return ranking

    def leading_rows(self, terms: list[str], want: int, checks: int = 2000) -> list[int]:
        """The first rows (internal order, at most `want`) where every term occurs whole after whitespace.

        Such rows match every query this one extends, so they are all in any narrowed base. At most
        `checks` rows are looked at, so the answer may be shorter, but it is always a true prefix.
        """
        driver = max(terms, key=len)
        others = [(self.spaced(t), " " + t) for t in terms if t is not driver]
        joined = self._joined(driver)
        text, starts = joined.text, joined.starts
        needle = " " + driver
        found: list[int] = []
        pos = text.find(needle)
        while pos >= 0 and checks > 0:
            checks -= 1
            row = joined.row_at(pos)
            if all(n in hays[row] for hays, n in others):
                found.append(row)
                if len(found) >= want:
                    break
            if row + 1 >= len(starts):
                break
            pos = text.find(needle, starts[row + 1])
        return found
