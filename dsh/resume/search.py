"""Ranking many rows at once in tiers: whole phrase, whole words, substring, word starts, sub-sequence.

A row's tier says how the query met it, best first:
0. the whole query (its terms in order, whitespace between) as whole words;
1. every term as a whole word, anywhere;
2. every term as a substring;
3. every term as a sub-sequence whose every run starts a word (`flamc` in "flamingo checkout");
4. every term as a sub-sequence above a quality floor (runs two characters long on average, or at most
   one run in four characters inside a word, so letters scattered across a row never count), ordered by
   an fzf-like score.
Ties go newest first: rows are given newest first and every tier keeps that order.

Scoring every row in Python at 100,000 rows takes too long for a keystroke, so a search is split: the first
tier-0 rows are found at once with C-speed `str.find` over every row joined in one string (when there are
enough, the visible head is exact at once); the rest is filtered (a sub-sequence pattern per term) and
tiered in steps bounded by a time budget (`Ranking.refine`), so a keystroke never waits for all of them.
"""

from __future__ import annotations

import bisect
import functools
import re
import time
from collections.abc import Callable, Mapping, Sequence
from itertools import accumulate

from dsh.resume.fuzzy import BONUS_CAMEL, bonus_at, fold, is_case_sensitive, score_term, split_terms

WHOLE_PHRASE, WHOLE_WORDS, SUBSTRING, WORD_STARTS, SUBSEQUENCE = range(5)
_CHUNK = 256
_SCORE_SLICE = 32  # rows tiered between two looks at the clock
_QUICK_ROWS = 8192  # rows a ranking must have left to look at before the joined text is searched first
_BUILD_SLICE = 2048
_WORD = re.compile(r"\w")
_SPACE_NOT_NEWLINE = re.compile(r"[^\S\n]")


def _subsequence_pattern(term: str) -> re.Pattern[str]:
    # `a[^b]*b[^c]*c` never backtracks, unlike `a.*?b.*?c`, so a miss costs one linear scan.
    parts = [re.escape(term[0])]
    for ch in term[1:]:
        esc = re.escape(ch)
        parts.append(f"[^{esc}]*{esc}")
    return re.compile("".join(parts))


def _is_word(ch: str) -> bool:
    return _WORD.match(ch) is not None


def _bounded(pattern: str, first: str, last: str) -> str:
    """`pattern` that must start and end a word where its first and last characters are word characters."""
    head = r"(?<!\w)" if first and _is_word(first[0]) else ""
    tail = r"(?!\w)" if last and _is_word(last[-1]) else ""
    return head + pattern + tail


@functools.lru_cache(maxsize=8)
def compiled(text: str) -> Query:
    """The Query for `text`, kept for the few queries in use (every drawn row asks for its highlight)."""
    return Query(text)


class Query:
    """One picker query, compiled: its terms (smart case each) and the patterns its tiers are tested with."""

    def __init__(self, text: str) -> None:
        raw = split_terms(text)
        self.sensitive = [is_case_sensitive(t) for t in raw]
        self.terms = [t if cs else fold(t) for t, cs in zip(raw, self.sensitive, strict=True)]
        self.any_sensitive = any(self.sensitive)
        # Whole-word and phrase patterns: a word boundary at each end that is a word character.
        self._words = [re.compile(_bounded(re.escape(t), t, t)).search for t in self.terms]
        joined = r"[^\S\n]+".join(
            re.escape(t) if cs else f"(?i:{re.escape(t)})" for t, cs in zip(self.terms, self.sensitive, strict=True)
        )
        if self.terms:
            self.phrase_in = re.compile(_bounded(joined, self.terms[0], self.terms[-1])).search
            # For the scan over every row joined: the same without its leading boundary, matched at a place
            # `str.find` found (a lookbehind first would cost the regex engine its literal-prefix search).
            self.phrase_at = re.compile(_bounded(joined, "", self.terms[-1])).match
        self._searches = [None if len(t) == 1 else _subsequence_pattern(t).search for t in self.terms]

    def __bool__(self) -> bool:
        return bool(self.terms)

    def _hay(self, i: int, text: str, low: str) -> str:
        return text if self.sensitive[i] else low

    def tier(self, text: str, low: str) -> tuple[int, int] | None:
        """(tier, score) of one text (`low` is `fold(text)`), or None when it does not match."""
        terms = self.terms
        if all(t in self._hay(i, text, low) for i, t in enumerate(terms)):
            if self.phrase_in(text) is not None:
                return WHOLE_PHRASE, 0
            if len(terms) > 1 and all(whole(self._hay(i, text, low)) for i, whole in enumerate(self._words)):
                return WHOLE_WORDS, 0
            return SUBSTRING, 0
        return self._fuzzy(text, low)

    def _fuzzy(self, text: str, low: str) -> tuple[int, int] | None:
        total = 0
        word_starts = True
        for i, term in enumerate(self.terms):
            found = score_term(term, text, self._hay(i, text, low))
            if found is None:
                return None
            score, positions = found
            runs = [p for n, p in enumerate(positions) if n == 0 or positions[n - 1] != p - 1]
            inside = sum(bonus_at(text, p) < BONUS_CAMEL for p in runs)  # runs that do not start a word
            if inside:
                word_starts = False
                if len(runs) > (len(term) + 1) // 2 and inside > len(term) // 4:
                    return None  # single letters scattered over the row: below the floor
            total += score
        return (WORD_STARTS, 0) if word_starts else (SUBSEQUENCE, total)

    def positions(self, text: str) -> tuple[int, ...]:
        """The characters of `text` to highlight: what put the row in its tier."""
        if not self.terms:
            return ()
        low = fold(text)
        phrase = self.phrase_in(text)
        if phrase is not None:
            return tuple(range(phrase.start(), phrase.end()))
        marked: set[int] = set()
        for i, term in enumerate(self.terms):
            hay = self._hay(i, text, low)
            whole = self._words[i](hay)
            if whole is not None:
                marked.update(range(whole.start(), whole.end()))
                continue
            at = hay.find(term)
            if at >= 0:
                marked.update(range(at, at + len(term)))
                continue
            found = score_term(term, text, hay)
            if found is None:
                return ()
            marked.update(found[1])
        return tuple(sorted(marked))


class _Joined:
    """All rows' lowercase texts in one string, to find a needle across rows with C-speed `str.find`."""

    def __init__(self, rows: list[str], text: str | None = None) -> None:
        self.text = "\n".join(rows) if text is None else text
        # Row i starts after the i rows before it and their i newlines.
        ends = accumulate(map(len, rows), initial=0)
        self.starts = [end + i for i, end in enumerate(ends)][: len(rows)]

    def row_at(self, pos: int) -> int:
        return bisect.bisect_right(self.starts, pos) - 1


class Ranking:
    """The ranked rows of one query; `head(n)` is exact once `exact(n)` holds.

    `boosts` (row -> tier) are rows another search found (a typed line or prompt that matched): such a row
    takes the better of its two tiers, and one the index does not match at all joins at its boost's tier.
    """

    def __init__(self, index: FuzzyIndex, query: Query, base: list[int], want: int) -> None:
        self._index = index
        self._query = query
        self._base = base
        self._cursor = 0
        self._tiers: list[list[int]] = [[] for _ in range(SUBSEQUENCE)]  # rows of tiers 0-3, in base order
        self._scored: list[tuple[int, int]] = []  # (-score, row) of tier 4, in base order
        self._survivors: list[int] = []
        self._unscored: list[int] = []  # survivors of the last chunk's filters not yet tiered (budget ran out)
        self._order: list[int] | None = None
        self._boosts: dict[int, int] = {}
        # The first whole-phrase rows of every row, found at once: an exact head.
        # Only worth it over many rows, and for a first term longer than a letter (a word of one letter
        # is rare, and its every occurrence would be looked at).
        quick = not query.any_sensitive and len(base) > _QUICK_ROWS and len(query.terms[0]) > 1
        self._known_top = index.phrase_rows(query, want) if quick else []

    @property
    def complete(self) -> bool:
        return self._cursor >= len(self._base) and not self._unscored

    def boost(self, boosts: Mapping[int, int]) -> None:
        self._boosts = dict(boosts)
        self._order = None

    def exact(self, n: int) -> bool:
        """Whether the first `n` rows of `head` are final."""
        return self.complete or (not self._boosts and len(self._top_so_far()) >= n)

    def known(self) -> int:
        """How many matching rows are known now (all of them once complete)."""
        return len(self._assemble())

    def head(self, n: int) -> list[int]:
        """The best `n` rows known now (final when `exact(n)`)."""
        if not self._boosts and n <= len(self._known_top):
            return self._known_top[:n]
        return self._assemble()[:n]

    def _top_so_far(self) -> list[int]:
        """Every tier-0 row found by either scan. Each found all of them up to where it got, so together
        they hold all tier-0 rows up to the further of the two: a true prefix of the ranking."""
        scanned = self._tiers[WHOLE_PHRASE]
        if not scanned:
            return self._known_top
        if not self._known_top or self._known_top[-1] <= scanned[-1]:
            return scanned
        return sorted(set(self._known_top).union(scanned))

    def _assemble(self) -> list[int]:
        key = (self._cursor, len(self._unscored), len(self._known_top))
        if self._order is not None and self._order_key == key:
            return self._order
        tiers = [self._top_so_far(), *self._tiers[1:]]
        scored = sorted(self._scored)  # rows were scored newest first, so ties stay newest first
        if self._boosts:
            tiers = [[r for r in rows if r not in self._boosts] for rows in tiers]
            scored = [(s, r) for s, r in scored if r not in self._boosts]
            for row, tier in self._boosts.items():
                own = self._index.tier(self._query, row)
                best = min(tier, own[0]) if own is not None else tier
                if best < SUBSEQUENCE:
                    bisect.insort(tiers[best], row)
                else:
                    bisect.insort(scored, (-(own[1] if own else 0), row))
        order = [r for rows in tiers for r in rows] + [r for _, r in scored]
        self._order, self._order_key = order, key
        return order

    _order_key: tuple[int, int, int] = (-1, -1, -1)

    def rows(self) -> list[int]:
        """Every row known to match, best first."""
        return self._assemble()

    def narrowed(self) -> list[int]:
        """Rows that may still match a longer query: survivors so far, then the rows not yet looked at."""
        if self.complete:
            return self._survivors
        return self._survivors + self._base[self._cursor :]

    def refine(self, budget: float) -> bool:
        """Filter and tier more rows for at most about `budget` seconds; True while work remains."""
        deadline = time.perf_counter() + budget
        base = self._base
        index = self._index
        query = self._query
        filters = [
            (index.hays(cs), term, search)
            for term, cs, search in zip(query.terms, query.sensitive, query._searches, strict=True)
        ]
        texts, lower = index.texts, index.lower
        tiers, scored = self._tiers, self._scored
        while self._unscored or self._cursor < len(base):
            if not self._unscored:
                chunk = base[self._cursor : self._cursor + _CHUNK]
                self._cursor += len(chunk)
                for hays, term, search in filters:
                    if search is None:
                        chunk = [r for r in chunk if term in hays[r]]
                    else:
                        chunk = [r for r in chunk if search(hays[r])]
                self._survivors.extend(chunk)
                self._unscored = chunk
            # Tiered a slice at a time: a chunk whose rows all pass the filters (a longer query narrowed
            # from a shorter one's survivors) is 256 fuzzy scores, 13 ms, over a keystroke's 5 ms budget.
            pending = self._unscored
            done = 0
            while done < len(pending):
                for row in pending[done : done + _SCORE_SLICE]:
                    found = query.tier(texts[row], lower[row])
                    if found is None:
                        continue
                    tier, score = found
                    if tier < SUBSEQUENCE:
                        tiers[tier].append(row)
                    else:
                        scored.append((-score, row))
                done += _SCORE_SLICE
                if time.perf_counter() >= deadline:
                    break
            self._unscored = pending[done:]
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

    def boost(self, boosts: Mapping[int, int]) -> None:
        pass

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
    """Searchable texts of many rows, given newest first; `search(query)` ranks them in tiers."""

    def __init__(self, texts: Sequence[str], between: Callable[[], None] | None = None) -> None:
        """`between` is called between slices of the build (a worker's listing gives way there)."""
        self.texts = list(texts)
        # One pass over many rows joined beats one call per row; rows with newlines (or characters whose
        # lowercase is longer) cannot be cut apart again and take the row-by-row way. The passes go a
        # slice of rows at a time: one C call over every row would hold the GIL for tens of ms, and an
        # index built on a worker thread would hold the event loop off that long.
        lower: list[str] = []
        parts: list[str] = []
        whole = True
        for start in range(0, len(self.texts), _BUILD_SLICE):
            if between is not None and start:
                between()
            rows = self.texts[start : start + _BUILD_SLICE]
            big = "\n".join(rows)
            low = big.lower()
            if len(low) != len(big) or big.count("\n") != len(rows) - 1:
                whole = False
                break
            if not big.replace("\n", "").isprintable():
                low = _SPACE_NOT_NEWLINE.sub(" ", low)
            lower += low.split("\n")
            parts.append(low)
        if whole:
            self.lower = lower
            self._joined = _Joined(lower, "\n".join(parts))
        else:
            self.lower = [fold(t) for t in self.texts]
            self._joined = _Joined([_SPACE_NOT_NEWLINE.sub(" ", t.replace("\n", " ")) for t in self.lower])
        self._all = list(range(len(self.texts)))
        self._last: tuple[str, Ranking] | None = None

    def __len__(self) -> int:
        return len(self.texts)

    def lists(self) -> tuple[list[str], list[str], list[int], list[int]]:
        """The index's lists of one item a row (text, numbers), never changed once made."""
        return self.texts, self.lower, self._all, self._joined.starts

    def hays(self, sensitive: bool) -> list[str]:
        return self.texts if sensitive else self.lower

    def tier(self, query: Query, row: int) -> tuple[int, int] | None:
        """(tier, score) of one row for `query`, or None when it does not match."""
        return query.tier(self.texts[row], self.lower[row])

    def search(self, text: str, want: int = 64) -> Ranking:
        """Start ranking `text`; the first `want` rows are exact at once when enough rows are tier 0."""
        query = Query(text)
        if not query:
            self._last = None
            return _Everything(len(self.texts))
        base = self._all
        # Extending a query can only drop rows, so the previous search narrows this one.
        if self._last is not None and text.startswith(self._last[0]):
            base = self._last[1].narrowed()
        ranking = Ranking(self, query, base, want)
        self._last = (text, ranking)
        return ranking

    def phrase_rows(self, query: Query, want: int, checks: int = 600) -> list[int]:
        """The first rows (at most `want`) where the whole query occurs as whole words (case-insensitive
        queries only). At most `checks` occurrences are looked at, so the answer may be shorter, but it
        is always a true prefix of tier 0."""
        joined = self._joined
        text, starts = joined.text, joined.starts
        needle = query.terms[0]
        bounded = _is_word(needle[0])
        at = query.phrase_at
        found: list[int] = []
        pos = text.find(needle)
        while pos >= 0 and checks > 0:
            checks -= 1
            if (not bounded or pos == 0 or not _is_word(text[pos - 1])) and at(text, pos) is not None:
                row = joined.row_at(pos)
                found.append(row)
                if len(found) >= want or row + 1 >= len(starts):
                    break
                pos = text.find(needle, starts[row + 1])  # the row is in: on to the next one
            else:
                pos = text.find(needle, pos + 1)
        return found
