"""Autosuggestions as fish makes them: the newest history line that starts with what is typed."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence

# A prefix whose lines fill a slice this small is ranked by scanning the slice; a bigger slice means
# the prefix is common, so walking the lines newest first finds one almost at once.
_SCAN_SLICE = 512
_AFTER_ALL = "\U0010ffff"


class PrefixIndex:
    """Lines (oldest first, repeats allowed), answering "the newest line starting with p" quickly."""

    def __init__(self, lines: Sequence[str]) -> None:
        latest: dict[str, int] = {}
        for rank, line in enumerate(lines):
            if line and "\n" not in line:
                latest[line] = rank
        self._sorted = sorted(latest)
        self._rank = [latest[line] for line in self._sorted]
        self._newest_first = sorted(latest, key=latest.__getitem__, reverse=True)

    def __len__(self) -> int:
        return len(self._sorted)

    def newest_with_prefix(self, prefix: str) -> str | None:
        """The most recent line that starts with `prefix` and is longer than it, or None."""
        if not prefix:
            return None
        lo = bisect_left(self._sorted, prefix)
        hi = bisect_left(self._sorted, prefix + _AFTER_ALL, lo)
        if hi - lo <= _SCAN_SLICE:
            best, best_rank = None, -1
            for i in range(lo, hi):
                if self._rank[i] > best_rank and len(self._sorted[i]) > len(prefix):
                    best, best_rank = self._sorted[i], self._rank[i]
            return best
        for line in self._newest_first:
            if line.startswith(prefix) and len(line) > len(prefix):
                return line
        return None


class Suggester:
    """Tiers asked in order (this workspace, every workspace, the shell's own history): the first
    tier with a match wins, as the closest history is the likeliest."""

    def __init__(self, tiers: Sequence[Sequence[str]] = ()) -> None:
        self.tiers = [PrefixIndex(lines) for lines in tiers]
        self.recent: list[str] = []  # lines run since the tiers were built, oldest first

    def suggest(self, typed: str) -> str | None:
        """What to append to `typed` (the grey suffix), or None."""
        if not typed.strip() or "\n" in typed:
            return None
        for line in reversed(self.recent):
            if line.startswith(typed) and len(line) > len(typed):
                return line[len(typed) :]
        for tier in self.tiers:
            newest = tier.newest_with_prefix(typed)
            if newest is not None:
                return newest[len(typed) :]
        return None

    def add(self, line: str) -> None:
        """A line just run: suggested first from now on (a short list, scanned before the tiers)."""
        if line and "\n" not in line:
            self.recent.append(line)
