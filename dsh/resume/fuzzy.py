"""fzf-like fuzzy matching of one query against one text: subsequence, smart case, fzf's scores."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

# fzf's constants (src/algo/algo.go): a match is worth 16, a gap costs 3 to open and 1 per extra char.
SCORE_MATCH = 16
GAP_START = -3
GAP_EXTEND = -1
BONUS_BOUNDARY = SCORE_MATCH // 2
BONUS_NON_WORD = SCORE_MATCH // 2
BONUS_CAMEL = BONUS_BOUNDARY + GAP_EXTEND
BONUS_CONSECUTIVE = -(GAP_START + GAP_EXTEND)
BONUS_BOUNDARY_WHITE = BONUS_BOUNDARY + 2
BONUS_BOUNDARY_DELIMITER = BONUS_BOUNDARY + 1
FIRST_CHAR_MULTIPLIER = 2

WHITE, NON_WORD, DELIMITER, LOWER, UPPER, LETTER, NUMBER = range(7)
_DELIMITERS = "/,:;|"
_WHITES = " \t\n\v\f\r\x85\xa0"


def _class_of(ch: str) -> int:
    if ch in _WHITES or ch.isspace():
        return WHITE
    if ch in _DELIMITERS:
        return DELIMITER
    if ch.islower():
        return LOWER
    if ch.isupper():
        return UPPER
    if ch.isdigit():
        return NUMBER
    if ch.isalpha():
        return LETTER
    return NON_WORD


def _bonus_for(prev: int, cur: int) -> int:
    if cur > NON_WORD:
        if prev == WHITE:
            return BONUS_BOUNDARY_WHITE
        if prev == DELIMITER:
            return BONUS_BOUNDARY_DELIMITER
        if prev == NON_WORD:
            return BONUS_BOUNDARY
    if (prev == LOWER and cur == UPPER) or (prev != NUMBER and cur == NUMBER):
        return BONUS_CAMEL
    if cur in (NON_WORD, DELIMITER):
        return BONUS_NON_WORD
    if cur == WHITE:
        return BONUS_BOUNDARY_WHITE
    return 0


_ASCII_CLASS = [_class_of(chr(i)) for i in range(128)]
_BONUS = [[_bonus_for(p, c) for c in range(7)] for p in range(7)]


def char_class(ch: str) -> int:
    code = ord(ch)
    return _ASCII_CLASS[code] if code < 128 else _class_of(ch)


def bonus_at(text: str, pos: int) -> int:
    """The bonus a match at `pos` earns from its neighbours; the text's start counts as after whitespace."""
    prev = WHITE if pos == 0 else char_class(text[pos - 1])
    return _BONUS[prev][char_class(text[pos])]


def max_term_score(length: int) -> int:
    """The best score a term of `length` characters can get: one run starting right after whitespace."""
    if length <= 0:
        return 0
    return SCORE_MATCH * length + BONUS_BOUNDARY_WHITE * (FIRST_CHAR_MULTIPLIER + length - 1)


def fold(text: str) -> str:
    """Lowercase without changing the length, so positions in the folded text are positions in `text`."""
    low = text.lower()
    if len(low) == len(text):
        return low
    return "".join(c if len(c.lower()) != 1 else c.lower() for c in text)


@dataclass(frozen=True, slots=True)
class Match:
    score: int
    positions: tuple[int, ...]


def split_terms(query: str) -> list[str]:
    return query.split()


def is_case_sensitive(term: str) -> bool:
    """Smart case: a term with an uppercase letter matches case-sensitively."""
    return any(c.isupper() for c in term)


_CLASS_CACHE: dict[str, int] = {chr(i): _ASCII_CLASS[i] for i in range(128)}


def _classes(text: str, positions: Iterable[int]) -> None:
    """Make sure the class of every character before and at `positions` is cached."""
    for p in positions:
        for ch in text[max(0, p - 1) : p + 1]:
            if ch not in _CLASS_CACHE:
                _CLASS_CACHE[ch] = _class_of(ch)


def score_term(term: str, text: str, hay: str) -> tuple[int, tuple[int, ...]] | None:
    """Best alignment of `term` in `text` (fzf V2-like, sparse over the term's character occurrences).

    `hay` is the string searched: `text` itself for a case-sensitive term, else `fold(text)` (and the term is
    lowercase). Bonuses are taken from `text`, so camelCase counts either way.
    """
    m = len(term)
    if m == 0:
        return 0, ()
    cls = _CLASS_CACHE
    bonus_table = _BONUS
    if m == 1:
        # One character: its best-placed occurrence, the earliest among equals.
        best_p, best_b = -1, -1
        p = hay.find(term)
        while p >= 0:
            try:
                b = bonus_table[cls[text[p - 1]] if p else WHITE][cls[text[p]]]
            except KeyError:
                _classes(text, (p,))
                continue
            if b > best_b:
                best_p, best_b = p, b
                if b == BONUS_BOUNDARY_WHITE:
                    break
            p = hay.find(term, p + 1)
        if best_p < 0:
            return None
        return SCORE_MATCH + best_b * FIRST_CHAR_MULTIPLIER, (best_p,)
    # Earliest and latest feasible position for each term character bound the occurrences worth trying.
    first: list[int] = []
    pos = -1
    for ch in term:
        pos = hay.find(ch, pos + 1)
        if pos < 0:
            return None
        first.append(pos)
    last = [0] * m
    pos = len(hay)
    for j in range(m - 1, -1, -1):
        pos = hay.rfind(term[j], 0, pos)
        last[j] = pos

    # Per occurrence p of term[j]: (score, run's first bonus, previous position).
    prev_states: dict[int, tuple[int, int, int]] = {}
    prev_sorted: list[int] = []
    history: list[dict[int, tuple[int, int, int]]] = []
    for j in range(m):
        ch = term[j]
        states: dict[int, tuple[int, int, int]] = {}
        order: list[int] = []
        hi = last[j] + 1
        p = hay.find(ch, first[j], hi)
        k = 0
        n_prev = len(prev_sorted)
        best_gap = -(1 << 30)  # max over q <= p-2 of (score(q) + q), with that q
        best_q = -1
        while p >= 0:
            try:
                bonus = bonus_table[cls[text[p - 1]] if p else WHITE][cls[text[p]]]
            except KeyError:
                _classes(text, (p,))
                continue
            if j == 0:
                states[p] = (SCORE_MATCH + bonus * FIRST_CHAR_MULTIPLIER, bonus, -1)
            else:
                limit = p - 2
                while k < n_prev and prev_sorted[k] <= limit:
                    q = prev_sorted[k]
                    cand = prev_states[q][0] + q
                    if cand > best_gap:
                        best_gap, best_q = cand, q
                    k += 1
                # A gap of g characters costs 3 + (g - 1) = (p - q - 1) + 2.
                score = best_gap - p - 1 + SCORE_MATCH + bonus if best_q >= 0 else None
                option = (score, bonus, best_q) if score is not None else None
                run = prev_states.get(p - 1)
                if run is not None:
                    first_bonus = run[1]
                    if bonus >= BONUS_BOUNDARY and bonus > first_bonus:
                        first_bonus = bonus
                    b = bonus if bonus > first_bonus else first_bonus
                    if b < BONUS_CONSECUTIVE:
                        b = BONUS_CONSECUTIVE
                    cons_score = run[0] + SCORE_MATCH + b
                    if score is None or cons_score >= score:
                        option = (cons_score, first_bonus, p - 1)
                if option is None:
                    p = hay.find(ch, p + 1, hi)
                    continue
                states[p] = option
            order.append(p)
            p = hay.find(ch, p + 1, hi)
        if not states:
            return None
        prev_states, prev_sorted = states, order
        history.append(states)
    end = max(prev_sorted, key=lambda q: (prev_states[q][0], -q))
    score = prev_states[end][0]
    positions = [0] * m
    p = end
    for j in range(m - 1, -1, -1):
        positions[j] = p
        p = history[j][p][2]
    return score, tuple(positions)


def match(query: str, text: str) -> Match | None:
    """Match every space-separated term of `query` in `text` (AND); None when any term is missing."""
    terms = split_terms(query)
    if not terms:
        return Match(0, ())
    folded: str | None = None
    total = 0
    positions: set[int] = set()
    for term in terms:
        if is_case_sensitive(term):
            found = score_term(term, text, text)
        else:
            if folded is None:
                folded = fold(text)
            found = score_term(fold(term), text, folded)
        if found is None:
            return None
        total += found[0]
        positions.update(found[1])
    return Match(total, tuple(sorted(positions)))
