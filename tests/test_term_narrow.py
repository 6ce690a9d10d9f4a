"""The one-cell characters: the stored table is what wcwidth says, and is used only for its own versions."""

from __future__ import annotations

import re
import subprocess
import sys

from dsh.term import narrow
from dsh.term.cells import NARROW, NARROW_TEXT, FirstUsePattern, is_narrow


def test_the_ranges_in_use_are_what_wcwidth_says_for_the_installed_versions() -> None:
    # With the table's versions installed this checks the table itself; with others, the fallback.
    assert narrow.narrow_ranges() == narrow.compute_ranges()
    assert NARROW == narrow.as_class(narrow.compute_ranges())


def test_the_table_is_used_for_its_own_versions_only() -> None:
    assert narrow.narrow_ranges(narrow.TABLE_VERSIONS) is narrow.TABLE
    other = ("0.0.1", narrow.TABLE_VERSIONS[1], "")
    assert narrow.narrow_ranges(other) is not narrow.TABLE
    assert narrow.narrow_ranges(other) == narrow.compute_ranges()
    assert narrow.narrow_ranges((*narrow.TABLE_VERSIONS[:2], "9.0.0")) is not narrow.TABLE  # UNICODE_VERSION


def test_the_table_source_round_trips_and_the_class_sorts_text() -> None:
    namespace: dict[str, object] = {"Ranges": narrow.Ranges}
    exec(narrow.table_source(), namespace)
    assert namespace["TABLE"] == narrow.compute_ranges()
    assert is_narrow("plain ascii and café") and not is_narrow("wide 漢字") and not is_narrow("e\u0301")


def test_the_narrow_patterns_are_compiled_on_first_use_and_match_as_compiled() -> None:
    text = "plain, café, wide 漢字, e\u0301 combined"
    for first in ("fullmatch", "findall"):
        runs = FirstUsePattern(f"[{NARROW}]+|[^{NARROW}]+")
        assert "fullmatch" not in vars(runs) and "findall" not in vars(runs)
        getattr(runs, first)(text)
        assert "fullmatch" in vars(runs) and "findall" in vars(runs)  # the compiled pattern's own now
        compiled = re.compile(runs.source)
        expected = ["plain, café, wide ", "漢字", ", e", "\u0301", " combined"]
        assert runs.findall(text) == compiled.findall(text) == expected
        assert runs.fullmatch("漢字") is not None and runs.fullmatch(text) is None
    assert NARROW_TEXT.fullmatch("café") is not None and NARROW_TEXT.fullmatch("漢字") is None


def test_importing_the_view_compiles_neither_narrow_pattern() -> None:
    # Start-up: compiling the two took 4-7 ms each of every host's start.
    code = (
        "import dsh.ui.remote\nfrom dsh.term import cells\n"
        "print(sorted(name for name in ('NARROW_TEXT', 'NARROW_RUNS') if 'fullmatch' in vars(getattr(cells, name))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"
