"""A listing's JSON array written as its rows are made: the first rows leave at once, the rest in batches."""

from __future__ import annotations

from typing import TextIO

FIRST_ROWS = 40  # about a screen of picker rows: written and flushed before the rest is made
BATCH = 2000  # 100,000 rows joined into one text (and that copied again) cost a tenth of a listing


class JsonRowsOut:
    """`[`, the rows one a line with commas, `]`. Another machine's picker reads this through ssh and
    shows what has come, so the newest rows go out (flushed) as soon as they are made, not after the
    whole listing; after those, rows are joined a batch at a time. `close()` ends the array (`[]` when
    no row came)."""

    def __init__(self, out: TextIO, *, first: int = FIRST_ROWS, batch: int = BATCH) -> None:
        self.out = out
        self.first = first
        self.batch = batch
        self.count = 0
        self._held: list[str] = []
        self._opened = False

    def add(self, row: str) -> None:
        self._held.append(row)
        self.count += 1
        if self.count == self.first or len(self._held) >= self.batch:
            self._write_held()
            if self.count == self.first:
                self.out.flush()

    def _write_held(self) -> None:
        if not self._held:
            return
        joined = ",\n".join(self._held)
        self._held.clear()
        # The first batch opens the array; every later one follows the last row written with a comma.
        self.out.write(f",\n{joined}" if self._opened else f"[\n{joined}")
        self._opened = True

    def close(self) -> None:
        if self.count == 0:
            self.out.write("[]\n")
            return
        self._write_held()
        self.out.write("\n]\n")
