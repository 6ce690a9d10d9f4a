"""The prompt's models: shell history formats, suggestions by tier, reverse search, merged history."""

from __future__ import annotations

from pathlib import Path

import pytest

from dsh.prompt.history_sources import HistorySources, other_workspaces
from dsh.prompt.search import ReverseSearch
from dsh.prompt.shellhist import history_file, parse_bash, parse_fish, parse_zsh, read_history
from dsh.prompt.suggest import PrefixIndex, Suggester
from dsh.store.history_file import PromptHistory


def test_bash_history_skips_time_stamps() -> None:
    assert parse_bash("#1700000000\nls -la\n#1700000001\ngit status\n\n") == ["ls -la", "git status"]


def test_zsh_history_plain_extended_and_continued() -> None:
    text = ": 1700000000:0;make test\nplain line\n: 1700000002:3;echo one \\\ntwo\n"
    assert parse_zsh(text) == ["make test", "plain line", "echo one \ntwo"]


def test_zsh_metafied_bytes_are_read_back(tmp_path: Path) -> None:
    path = tmp_path / ".zsh_history"
    # 0x83 0xa3 is zsh's metafied 0x83 (meta xor 32): the UTF-8 of é is c3 a9, which needs no meta.
    path.write_bytes(b": 1:0;echo caf\xc3\xa9\n: 2:0;printf x\x83\xa3y\n")
    assert read_history("zsh", path) == ["echo café", "printf x\udc83y"]


def test_fish_history_entries_and_escapes() -> None:
    text = "- cmd: git log\n  when: 1700000000\n- cmd: echo a\\nb\n  when: 1700000001\n  paths:\n    - x\n"
    assert parse_fish(text) == ["git log", "echo a\nb"]


def test_the_shell_history_file_follows_the_users_environment(tmp_path: Path) -> None:
    (tmp_path / ".bash_history").write_text("ls\n")
    custom = tmp_path / "my_hist"
    custom.write_text("pwd\n")
    assert history_file("/bin/bash", {"HOME": str(tmp_path)}) == ("bash", tmp_path / ".bash_history")
    assert history_file("/usr/bin/bash", {"HOME": str(tmp_path), "HISTFILE": str(custom)}) == ("bash", custom)
    assert history_file("/bin/sh", {"HOME": str(tmp_path)}) is None
    fish = tmp_path / "data" / "fish"
    fish.mkdir(parents=True)
    (fish / "fish_history").write_text("- cmd: ls\n")
    assert history_file("fish", {"HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path / "data")}) == (
        "fish",
        fish / "fish_history",
    )


def test_a_huge_history_file_is_read_from_its_end(tmp_path: Path) -> None:
    path = tmp_path / "h"
    path.write_text("".join(f"cmd {i}\n" for i in range(10_000)))
    lines = read_history("bash", path, limit=1000)
    assert lines[-1] == "cmd 9999" and len(lines) < 200 and all(line.startswith("cmd ") for line in lines)


def test_the_newest_line_with_the_prefix_is_suggested() -> None:
    index = PrefixIndex(["git status", "git stash", "git status", "ls"])
    assert index.newest_with_prefix("git st") == "git status"  # used again last
    assert index.newest_with_prefix("git sta") == "git status"
    assert index.newest_with_prefix("ls") is None  # nothing longer to add
    assert index.newest_with_prefix("zz") is None


def test_a_common_prefix_in_a_big_history_still_finds_the_newest() -> None:
    lines = [f"echo {i}" for i in range(20_000)]
    assert PrefixIndex(lines).newest_with_prefix("echo ") == "echo 19999"
    assert PrefixIndex(lines).newest_with_prefix("echo 12") == "echo 12999"


def test_tiers_win_in_order_and_lines_run_now_win_over_all() -> None:
    suggester = Suggester([["make build"], ["make test", "make lint"], ["make clean"]])
    assert suggester.suggest("make ") == "build"  # this workspace first, however old
    assert suggester.suggest("make l") == "int"
    assert suggester.suggest("make c") == "lean"
    suggester.add("make deploy")
    assert suggester.suggest("make ") == "deploy"
    assert suggester.suggest("   ") is None and suggester.suggest("") is None


def test_reverse_search_finds_at_once_goes_back_and_fails_visibly() -> None:
    search = ReverseSearch(["git push", "make test", "git pull", "GIT LOG"], "draft", 3)
    search.type("git")
    assert search.match == "git push" and search.cursor() == 0
    search.older()
    assert search.match == "git pull"
    search.older()
    assert search.match == "GIT LOG"  # no capital in the query: case is ignored
    search.older()
    assert search.failed and search.match == "GIT LOG"
    search.backspace()
    assert search.match == "git push" and not search.failed
    search.type("Z")
    assert search.failed and search.label.startswith("(failed reverse-i-search)")


def test_a_query_with_a_capital_matches_case() -> None:
    search = ReverseSearch(["git log", "GIT LOG"], "", 0)
    search.type("GIT")
    assert search.match == "GIT LOG"


def test_merged_history_puts_this_workspace_last_and_each_line_once(dsh_home: Path, tmp_path: Path) -> None:
    sources = HistorySources(["make", "ls"], ["ls", "vim x"], ["ls", "htop"])
    assert sources.merged() == ["htop", "vim x", "make", "ls"]


def test_other_workspaces_are_read_newest_file_last(dsh_home: Path, tmp_path: Path) -> None:
    PromptHistory.for_workspace("/w/one").append("from one")
    PromptHistory.for_workspace("/w/two").append("from two")
    PromptHistory.for_workspace("/w/here").append("from here")
    from dsh.store.workspace import workspace_partition

    lines = other_workspaces(workspace_partition("/w/here"))
    assert set(lines) == {"from one", "from two"}


@pytest.mark.parametrize("shell", ["bash", "zsh"])
def test_history_sources_read_the_users_shell_history(dsh_home: Path, tmp_path: Path, shell: str) -> None:
    (tmp_path / f".{shell}_history").write_text("from the shell\n")
    sources = HistorySources.load("/w/here", {"SHELL": f"/bin/{shell}", "HOME": str(tmp_path)})
    assert sources.shell == ["from the shell"] and sources.merged()[0] == "from the shell"
