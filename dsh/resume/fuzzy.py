"""fzf-like fuzzy matching of one query against one text: subsequence, smart case, fzf's scores."""

from __future__ import annotations

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


def score_term(term: str, text: str, hay: str) -> tuple[int, tuple[int, ...]] | None:
    """Best alignment of `term` in `text` (fzf V2-like, sparse over the term's character occurrences).

    `hay` is the string searched: `text` itself for a case-sensitive term, else `fold(text)` (and the term is
    lowercase). Bonuses are taken from `text`, so camelCase counts either way.
    """
    m = len(term)
    if m == 0:
        return 0, ()
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

    # Per occurrence p of term[j]: (score, run length, run's first bonus, previous position).
    prev_states: dict[int, tuple[int, int, int, int]] = {}
    prev_sorted: list[int] = []
    history: list[dict[int, tuple[int, int, int, int]]] = []
    for j in range(m):
        ch = term[j]
        states: dict[int, tuple[int, int, int, int]] = {}
        order: list[int] = []
        lo, hi = first[j], last[j]
        p = hay.find(ch, lo, hi + 1)
        k = 0
        best_gap = None  # max over q <= p-2 of (score(q) + q), with that q
        best_q = -1
        while p >= 0:
            bonus = bonus_at(text, p)
            if j == 0:
                states[p] = (SCORE_MATCH + bonus * FIRST_CHAR_MULTIPLIER, 1, bonus, -1)
            else:
                while k < len(prev_sorted) and prev_sorted[k] <= p - 2:
                    q = prev_sorted[k]
                    cand = prev_states[q][0] + q
                    if best_gap is None or cand > best_gap:
                        best_gap, best_q = cand, q
                    k += 1
                option: tuple[int, int, int, int] | None = None
                if best_gap is not None:
                    # A gap of g characters costs 3 + (g - 1) = (p - q - 1) + 2.
                    option = (best_gap - p - 1 + SCORE_MATCH + bonus, 1, bonus, best_q)
                run = prev_states.get(p - 1)
                if run is not None:
                    first_bonus = run[2]
                    if bonus >= BONUS_BOUNDARY and bonus > first_bonus:
                        first_bonus = bonus
                    b = max(bonus, first_bonus, BONUS_CONSECUTIVE)
                    cons = (run[0] + SCORE_MATCH + b, run[1] + 1, first_bonus, p - 1)
                    if option is None or cons[0] >= option[0]:
                        option = cons
                if option is None:
                    p = hay.find(ch, p + 1, hi + 1)
                    continue
                states[p] = option
            order.append(p)
            p = hay.find(ch, p + 1, hi + 1)
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
        p = history[j][p][3]
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
