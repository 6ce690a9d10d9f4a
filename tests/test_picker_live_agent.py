"""Enter in /resume on a conversation this session holds goes to the pane that holds it."""

from __future__ import annotations

from pathlib import Path

import pytest

from dsh.persist.records import AgentInfo
from dsh.resume import agent_open
from dsh.resume.candidates import Candidate
from tests.test_app_harness import C_B, run, running_app


def test_enter_on_a_conversation_open_here_focuses_its_pane(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    async def body() -> None:
        async with running_app(tmp_path) as h:
            holder = h.pane
            h.send(C_B + "%")
            await h.wait(lambda: len(h.session.panes) == 2 and h.pane is not holder, "C-b % to split")
            monkeypatch.setattr(agent_open, "held_elsewhere", lambda index, kind, sid: h.session.log.id)
            row = Candidate("th-here", str(tmp_path), "~", "fix it", "fix it", "", "", 0, None, None, (), kind="codex")
            # In one turn of the loop (no agent probe between): the pane's agent, then Enter on its row.
            holder.agent = AgentInfo(kind="codex", session_id="th-here")
            h.app.resume._open_agent_candidate(row)
            assert h.pane is holder  # the pane holding the conversation is focused
            assert len(h.session.panes) == 2  # no second agent on the same transcript

    run(body)
