"""The one-cell characters: the stored table is what wcwidth says, and is used only for its own versions."""

from __future__ import annotations

from dsh.term import narrow
from dsh.term.cells import NARROW, is_narrow


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
