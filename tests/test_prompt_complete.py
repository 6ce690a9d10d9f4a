"""Completing shell lines: words as the shell splits them, quoting, files, commands, bash-completion."""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

import pytest

from dsh.prompt.complete import (
    CommandNames,
    complete_line,
    complete_path,
    current_word,
    has_bash_completion,
    quote_word,
)


def test_the_word_under_the_cursor_as_the_shell_reads_it() -> None:
    word = current_word("cat my\\ fi")
    assert (word.index, word.value, word.typed, word.words) == (1, "my fi", "my\\ fi", ("cat",))
    word = current_word('grep -r "two wor')
    assert (word.index, word.value, word.quote, word.words) == (2, "two wor", '"', ("grep", "-r"))
    assert current_word("ls ").value == "" and current_word("ls ").index == 1
    assert current_word("make && gi").index == 0  # a new command after a separator


@pytest.mark.parametrize(
    ("text", "opened", "quoted"),
    [
        ("my file.txt", "", "my\\ file.txt"),
        ("a$b(c)", "", "a\\$b\\(c\\)"),
        ("~/notes", "", "~/notes"),
        ("it's", "'", "'it'\\''s"),
        ('say "hi"', '"', '"say \\"hi\\"'),
    ],
)
def test_quoting_as_the_shell_needs(text: str, opened: str, quoted: str) -> None:
    assert quote_word(text, opened) == quoted


def test_files_and_directories_relative_to_the_panes_directory(tmp_path: Path) -> None:
    (tmp_path / "module.py").touch()
    (tmp_path / "my file.txt").touch()
    (tmp_path / ".hidden").touch()
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "inner.txt").touch()
    texts = lambda line: [c.text for c in complete_path(current_word(line), str(tmp_path))]  # noqa: E731
    assert texts("cat mo") == ["module.py "]
    assert texts("cat my") == ["my\\ file.txt "]
    assert texts("cat s") == ["sub/"]
    assert texts("cat sub/i") == ["sub/inner.txt "]
    assert texts("cat .h") == [".hidden "] and ".hidden " not in texts("cat ")
    assert [c.text for c in complete_path(current_word("cd s"), str(tmp_path), dirs_only=True)] == ["sub/"]


def test_a_directory_of_ten_thousand_files_gives_a_bounded_menu(tmp_path: Path) -> None:
    for n in range(3000):
        (tmp_path / f"file-{n:05d}.log").touch()
    found = complete_path(current_word("less file-0"), str(tmp_path))
    assert found.total == 3000 and len(found) == 1000 and found[0].text == "file-00000.log "
    assert found[-1].text == "file-00999.log " and found.common == "file-0"
    assert complete_path(current_word("less file-000"), str(tmp_path)).common == "file-000"


def test_command_names_come_from_path_and_follow_its_changes(tmp_path: Path) -> None:
    tool = tmp_path / "zz-dsh-tool"
    tool.write_text("#!/bin/sh\n")
    tool.chmod(tool.stat().st_mode | stat.S_IXUSR)
    (tmp_path / "zz-not-executable").write_text("")
    names = CommandNames()
    found = names.complete(current_word("zz-"), str(tmp_path))
    assert [c.text for c in found] == ["zz-dsh-tool "]
    later = tmp_path / "zz-dsh-later"
    later.write_text("#!/bin/sh\n")
    later.chmod(0o755)
    os.utime(tmp_path, (1, 2))  # the folder changed: rescanned
    assert [c.display for c in names.complete(current_word("zz-"), str(tmp_path))] == ["zz-dsh-later", "zz-dsh-tool"]


def test_the_first_word_completes_commands_and_later_words_files(tmp_path: Path) -> None:
    (tmp_path / "module.py").touch()
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path)}
    _word, found = complete_line("ech", str(tmp_path), env, CommandNames())
    assert "echo " in [c.text for c in found]
    word, found = complete_line("cat mod", str(tmp_path), env, CommandNames())
    assert [c.text for c in found] == ["module.py "] and word.typed == "mod"


@pytest.mark.skipif(
    shutil.which("bash") is None or not os.path.isfile("/usr/share/bash-completion/bash_completion"),
    reason="needs bash and the bash-completion package (CI installs both)",
)
def test_bash_completion_completes_a_commands_arguments(tmp_path: Path) -> None:
    assert has_bash_completion("git", {"HOME": str(tmp_path)})
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path)}
    _word, found = complete_line("git ch", str(tmp_path), env, CommandNames())
    texts = [c.text for c in found]
    assert "checkout " in texts and "cherry-pick " in texts
