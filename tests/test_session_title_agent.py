"""A restored session's title is its agent conversation's, as `dsh sessions` says, from the first line."""

from __future__ import annotations

from pathlib import Path

from dsh.persist.records import AgentInfo
from dsh.store import agent_table
from dsh.store.agent_table import ConversationRow
from tests.test_app_harness import run, running_app

CLAUDE_ID = "0b7e4c1a-9a49-4a4a-9d0f-2f1f1e3b9a11"


def test_a_line_typed_before_the_agents_titles_are_read_is_not_the_title(tmp_path: Path) -> None:
    """Lines sent to a restored agent from the prompt: the title stays the conversation's, even when the
    agents' stores have not been read yet (the index knows the conversation's title already)."""

    async def body() -> None:
        async with running_app(tmp_path) as h:
            session = h.session
            key = f"claude:{CLAUDE_ID}"
            row = ConversationRow(
                f"/h/{CLAUDE_ID}.jsonl", "claude", 1, 1, 1, "claude", CLAUDE_ID, key, str(tmp_path),
                "summarize the README for me", "summarize the README for me", None, None, 2, 1, None,
                "2026-01-01T00:00:00.000Z", "2026-01-01T00:00:00.000Z", "/h",
            )  # fmt: skip
            session.store.index.write(lambda conn: agent_table.upsert(conn, [row]))
            # As a restore leaves it: the agent learned from the log, its stores not read yet.
            session.titles.add_agent(key)
            session._agent_titles_due = float("inf")
            h.pane.agent = AgentInfo(kind="claude", session_id=CLAUDE_ID)
            session.record_input("now add the tests")
            assert session.display_title == "summarize the README for me"

    run(body)
