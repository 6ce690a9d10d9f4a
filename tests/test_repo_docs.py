"""The repository's own pages: no path a person who clones it lacks, links that resolve, the changelog's
newest version the one `dsh --version` prints, and one ruff for pre-commit and the test extra."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from dsh import __version__
from dsh.cli import main

REPO = Path(__file__).resolve().parent.parent
PAGES = ("README.md", "ARCHITECTURE.md", "CONTRIBUTING.md", "CHANGELOG.md")
# Top-level folders every Linux machine has: `/dev/null` or `/tmp/dsh-<uid>/` name no one's checkout.
SYSTEM_ROOTS = frozenset({"bin", "dev", "etc", "proc", "run", "sys", "tmp", "usr", "var"})
# An absolute path of two parts or more (`/resume` and `//text` are dsh commands, not paths), starting a
# word: not the tail of `~/x/y`, `$DSH_HOME/x/y`, `state/<id>/x`, `.venv/bin/x` or a URL.
_ABSOLUTE = re.compile(r"(?:^|(?<=[\s`(\[\"'=]))/([A-Za-z0-9_.-]+)/[^\s`)\]'\"]*", re.M)
_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def outside_paths(text: str) -> list[str]:
    """The paths in `text` that leave the repository: any `../`, and absolute paths outside the system's
    own folders."""
    found = [m.group(0) for m in re.finditer(r"\S*\.\./\S*", text)]
    found += [m.group(0) for m in _ABSOLUTE.finditer(text) if m.group(1) not in SYSTEM_ROOTS]
    return found


def test_outside_paths_tells_a_path_elsewhere_from_commands_and_paths_under_a_home() -> None:
    assert outside_paths("one package per part of `../shared/DESIGN.md`: x") == ["`../shared/DESIGN.md`:"]
    assert outside_paths("see /work/shared/tools/tui and /home/me/dsh/") == ["/work/shared/tools/tui", "/home/me/dsh/"]
    fine = (
        "`/resume`, `/focus left|right`, `//text`, `~/.dsh/config.toml`, `$DSH_HOME/log/host-ID.log`, "
        '`.venv/bin/dsh`, [workspace."/path"], /dev/null, `/tmp/dsh-<uid>/`, C-n/C-p, `state/<id>/x/y`, '
        "https://github.com/astral-sh/ruff-pre-commit, [the map](ARCHITECTURE.md)"
    )
    assert outside_paths(fine) == []


def test_readme_names_no_path_outside_the_repository() -> None:
    assert outside_paths((REPO / "README.md").read_text()) == []


@pytest.mark.parametrize("page", PAGES)
def test_the_pages_stay_inside_the_repository_and_their_links_resolve(page: str) -> None:
    text = (REPO / page).read_text()
    assert outside_paths(text) == []
    for target in _LINK.findall(text):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue  # a URL or an anchor
        path = (REPO / target.split("#")[0]).resolve()
        assert path.is_relative_to(REPO) and path.exists(), f"{page} links to {target}, which is not in the repository"


def test_readme_links_the_architecture_page() -> None:
    assert "](ARCHITECTURE.md)" in (REPO / "README.md").read_text()


def test_dsh_version_is_the_newest_version_in_the_changelog(capsys: pytest.CaptureFixture[str]) -> None:
    versions = re.findall(r"^## (\d+\.\d+\.\d+)\b", (REPO / "CHANGELOG.md").read_text(), re.M)
    assert versions, "CHANGELOG.md has no `## X.Y.Z` heading"
    assert versions == sorted(versions, key=lambda v: tuple(map(int, v.split("."))), reverse=True)
    assert versions[0] == __version__
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out == f"dsh {versions[0]}\n"


def test_pre_commit_runs_the_ruff_the_test_extra_pins() -> None:
    config = (REPO / ".pre-commit-config.yaml").read_text()
    block = config.split("repo: https://github.com/astral-sh/ruff-pre-commit", 1)
    assert len(block) == 2, "no astral-sh/ruff-pre-commit repo in .pre-commit-config.yaml"
    rev = re.search(r"^\s*rev:\s*v(\S+)", block[1], re.M)
    assert rev is not None
    assert {"ruff-check", "ruff-format"} <= set(re.findall(r"^\s*- id:\s*(\S+)", block[1], re.M))
    extra = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"]["test"]
    pinned = [spec.split("==", 1)[1] for spec in extra if spec.startswith("ruff==")]
    assert pinned == [rev.group(1)], f"pre-commit runs ruff {rev.group(1)}, the test extra pins {extra}"


def test_the_man_page_names_every_state_a_json_listing_gives() -> None:
    from dsh.store import summary

    page = (REPO / "man" / "dsh.1").read_text()
    entry = page[page.index(".B state\n") : page.index(".B agents\n")]
    named = set(re.findall(r"^\.B (\w+)$", entry, re.M)) - {"state", "dsh"}
    assert named == {summary.ATTACHED, summary.DETACHED, summary.CLOSED, summary.CRASHED}
