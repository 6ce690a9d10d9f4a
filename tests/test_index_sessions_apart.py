"""What tells sessions apart in the index: titles by one rule, branch, pane counts that follow pane_exited
and pane_closed, agents of open panes, state (live, closed, crashed), and the typed-line search."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from dsh.store import agent_table, textsearch
from dsh.store.agent_table import ConversationRow
from dsh.store.gitinfo import git_branch
from dsh.store.index import SessionIndex, apply_agent_titles
from dsh.store.log import SessionLog, append_event
from dsh.store.titles import session_title, worth_a_title

A = "0b7e4c1a-9a49-4a4a-9d0f-2f1f1e3b9a11"


@pytest.fixture
def index(tmp_path: Path, root: Path) -> SessionIndex:
    idx = SessionIndex(tmp_path / "session-query.db", root, progress=io.StringIO())
    yield idx
    idx.close()


def one(index: SessionIndex):
    index.refresh()
    (summary,) = index.summaries(cwd=None, include_archived=True)
    return summary


def test_titles_skip_slash_commands_and_exit() -> None:
    assert [worth_a_title(x) for x in ["/resume", "/agent claude", "exit", "  ", "make test"]] == [
        False,
        False,
        False,
        False,
        True,
    ]
    assert session_title("renamed", "agent says", "typed") == "renamed"
    assert session_title(None, "agent says", "typed") == "agent says"
    assert session_title(None, None, None) == "untitled"


def test_the_title_is_the_first_line_worth_one(index: SessionIndex, root: Path) -> None:
    log = SessionLog.create(root, "/w")
    for line in ["/resume", "/agent claude", "exit", "python -m http.server", "ls"]:
        log.append("input", text=line)
    log.close()
    summary = one(index)
    assert summary.title == "python -m http.server" and summary.first_input == "/resume"


def test_pane_counts_follow_exits_and_closes_and_agents_of_open_panes(index: SessionIndex, root: Path) -> None:
    log = SessionLog.create(root, "/w")
    for pane in ("p1", "p2", "p3"):
        log.append("pane_opened", pane_id=pane, argv=["sh"])
    log.append("agent", pane_id="p2", kind="claude", session_id=A)
    log.append("agent", pane_id="p3", kind="codex", session_id="1c8f5d2b-0b5a-4b5b-8e10-3020f2f4ab22")
    log.append("pane_closed", pane_id="p3")
    log.append("pane_exited", pane_id="p1", status=0)
    log.append("git", branch="feature/login")
    log.close()
    summary = one(index)
    assert summary.pane_count == 1 and summary.branch == "feature/login"
    assert summary.agents == (f"claude:{A}",) and summary.state == "closed"
    assert summary.to_json()["agents"] == [{"kind": "claude", "session_id": A}]


def test_state_says_crashed_for_a_session_left_without_a_close(index: SessionIndex, root: Path) -> None:
    path = root / "w-part" / "abc123.jsonl"
    path.parent.mkdir(parents=True)
    lines = [
        {"type": "session", "version": 1, "id": "abc123", "cwd": "/w", "created_at": "2026-01-01T00:00:00.000Z"},
        {"type": "input", "at": "2026-01-01T00:00:01.000Z", "text": "work"},
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))  # its dsh died: no close, no lock
    summary = one(index)
    assert summary.live_pid is None and summary.state == "crashed"


def test_a_session_with_an_agent_is_titled_after_its_conversation(index: SessionIndex, root: Path) -> None:
    log = SessionLog.create(root, "/w")
    log.append("input", text="/agent claude")
    log.append("pane_opened", pane_id="p1", argv=["claude"])
    log.append("agent", pane_id="p1", kind="claude", session_id=A)
    log.close()
    assert one(index).title == "untitled"  # no conversation known yet, nothing typed worth a title

    def add(conn) -> None:
        agent_table.upsert(
            conn,
            [
                ConversationRow(
                    "/c/p.jsonl",
                    "claude:/c",
                    1,
                    1,
                    1,
                    "claude",
                    A,
                    f"claude:{A}",
                    "/w",
                    "fix the login bug",
                    "fix the login bug",
                    None,
                    None,
                    2,
                    1,
                    None,
                    "2026-01-01T00:00:00.000Z",
                    "2026-01-01T00:00:00.000Z",
                    "/c",
                )
            ],
        )
        apply_agent_titles(conn, keys=[f"claude:{A}"])

    index.write(add)
    assert one(index).title == "fix the login bug"
    append_event(Path(one(index).path), "title", title="my own name")
    assert one(index).title == "my own name"


def test_typed_lines_are_searchable_and_only_new_ones_are_added(index: SessionIndex, root: Path) -> None:
    log = SessionLog.create(root, "/w")
    log.append("input", text="python -m http.server 8080")
    index.refresh()
    log.append("input", text="curl localhost:8080")
    index.refresh()
    hits = index.read(lambda conn: textsearch.search(conn, "HTTP.SERV"))
    assert hits == [textsearch.Hit(f"s:{log.id}", "python -m http.server 8080")]
    count = index.read(lambda conn: conn.execute("SELECT count(*) FROM lines").fetchone()[0])
    assert count == 2
    assert index.read(lambda conn: textsearch.search(conn, "curl local")) == [
        textsearch.Hit(f"s:{log.id}", "curl localhost:8080")
    ]
    assert index.read(lambda conn: textsearch.search(conn, "ht")) == []  # too short for the trigram index
    log.close()


def test_git_branch_reads_head_of_a_checkout_and_a_worktree(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (repo / "src" / "deep").mkdir(parents=True)
    assert git_branch(str(repo / "src" / "deep")) == "main"
    worktree = tmp_path / "wt"
    worktree.mkdir()
    (repo / ".git" / "worktrees" / "wt").mkdir(parents=True)
    (repo / ".git" / "worktrees" / "wt" / "HEAD").write_text("0123456789abcdef0123\n")
    (worktree / ".git").write_text(f"gitdir: {repo / '.git' / 'worktrees' / 'wt'}\n")
    assert git_branch(str(worktree)) == "0123456789ab"
    assert git_branch(str(tmp_path / "nowhere")) is None


def test_a_listing_refresh_stores_lines_and_a_worker_makes_them_searchable(index: SessionIndex, root: Path) -> None:
    log = SessionLog.create(root, "/w")
    log.append("input", text="docker compose up db")
    log.close()
    index.refresh(sync_search=False)
    assert index.read(lambda conn: textsearch.search(conn, "compose")) == []
    index.sync_search(batch=1)
    assert index.read(lambda conn: textsearch.search(conn, "compose")) == [
        textsearch.Hit(f"s:{log.id}", "docker compose up db")
    ]
